# Header-only dependencies from Debian's -dev packages. Only headers are used (no compiled
# spdlog/fmt libraries) so the same /usr/include serves native and cross builds alike.
find_path(MDFI_CLI11_INCLUDE CLI/CLI.hpp HINTS /usr/include)
find_path(MDFI_SPDLOG_INCLUDE spdlog/spdlog.h HINTS /usr/include)
find_path(MDFI_FMT_INCLUDE fmt/format.h HINTS /usr/include)
find_path(MDFI_STB_INCLUDE stb_image.h HINTS /usr/include/stb PATH_SUFFIXES stb)
find_path(MDFI_CATCH2_INCLUDE catch2/catch.hpp HINTS /usr/include)
# nlohmann-json3-dev: the CLI's JSON/JSONL results (a real writer that escapes every string).
find_path(MDFI_JSON_INCLUDE nlohmann/json.hpp HINTS /usr/include)

foreach(dep CLI11 SPDLOG FMT STB JSON)
  if(NOT MDFI_${dep}_INCLUDE)
    message(FATAL_ERROR "mdfi: ${dep} headers not found; run scripts/setup-debian.sh")
  endif()
endforeach()

# Cross builds (toolchains/): the deps sit in the host's /usr/include beside the host's C library
# headers, which must never shadow the target's, so only the deps' own folders are exposed,
# through links in the build tree.
if(CMAKE_CROSSCOMPILING)
  set(_mdfi_hdrs ${CMAKE_BINARY_DIR}/host-headers)
  file(MAKE_DIRECTORY ${_mdfi_hdrs})
  foreach(pair CLI11:CLI SPDLOG:spdlog FMT:fmt JSON:nlohmann CATCH2:catch2)
    string(REPLACE ":" ";" pair "${pair}")
    list(GET pair 0 dep)
    list(GET pair 1 sub)
    if(MDFI_${dep}_INCLUDE STREQUAL "/usr/include")
      file(CREATE_LINK /usr/include/${sub} ${_mdfi_hdrs}/${sub} SYMBOLIC)
      set(MDFI_${dep}_INCLUDE ${_mdfi_hdrs})
    endif()
  endforeach()
endif()

add_library(mdfi_thirdparty INTERFACE)
# SYSTEM: third-party headers must not trip our warning flags.
target_include_directories(mdfi_thirdparty SYSTEM INTERFACE
  ${MDFI_CLI11_INCLUDE} ${MDFI_SPDLOG_INCLUDE} ${MDFI_FMT_INCLUDE} ${MDFI_STB_INCLUDE} ${MDFI_JSON_INCLUDE})
target_compile_definitions(mdfi_thirdparty INTERFACE SPDLOG_HEADER_ONLY FMT_HEADER_ONLY)

find_package(Threads REQUIRED)

# Row-by-row image decoders (engine/image/row_decoder.h): libjpeg-turbo (Debian libjpeg62-turbo-dev;
# SIMD decoding, a scanline API and DCT-domain scaling) and libpng (libpng-dev; a row API).
# Cross builds link them statically, so the one binary copied to a Pi needs nothing besides
# glibc, libstdc++ and libgomp (and qemu-user runs it without the target's libraries
# installed): cmake/MdfiCrossImageLibs.cmake names the target's .a files and headers.
if(CMAKE_CROSSCOMPILING)
  include(MdfiCrossImageLibs)
endif()
find_package(JPEG REQUIRED)
find_package(PNG REQUIRED)
