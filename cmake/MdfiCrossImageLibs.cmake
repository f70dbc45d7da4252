# Cross builds only: libjpeg-turbo, libpng and zlib of the TARGET architecture, from Debian's
# multiarch -dev packages (libjpeg62-turbo-dev:arm64 etc., MDFI_SETUP_CROSS=1
# scripts/setup-debian.sh), linked statically so the one binary copied to a Pi needs only glibc,
# libstdc++ and libgomp. Nothing is searched: every file is named, so the host's x86-64
# libraries and its arch-specific headers (/usr/include/x86_64-linux-gnu) cannot leak in.
#
# Headers: /usr/include also holds the host's C library headers, which must never shadow the
# target's, so (as for the header-only deps) only the needed files are linked into
# build-*/target-headers. jconfig.h is the one arch-specific header; it comes from
# /usr/include/<triplet>/. pnglibconf.h and zconf.h are identical on every Debian architecture
# (their packages are Multi-Arch: same, which requires that).
if(NOT MDFI_TARGET_MULTIARCH)
  message(FATAL_ERROR "mdfi: the toolchain file must set MDFI_TARGET_MULTIARCH (see toolchains/)")
endif()
set(_mdfi_arch ${MDFI_TARGET_MULTIARCH})
set(_mdfi_debarch ${MDFI_TARGET_DEBIAN_ARCH})
set(_mdfi_tgt_hdrs ${CMAKE_BINARY_DIR}/target-headers)
file(MAKE_DIRECTORY ${_mdfi_tgt_hdrs})

set(_mdfi_missing_hint "install libjpeg62-turbo-dev:${_mdfi_debarch} libpng-dev:${_mdfi_debarch} \
zlib1g-dev:${_mdfi_debarch} (MDFI_SETUP_CROSS=1 scripts/setup-debian.sh)")

foreach(src
    /usr/include/jpeglib.h /usr/include/jerror.h /usr/include/jmorecfg.h
    /usr/include/${_mdfi_arch}/jconfig.h
    /usr/include/libpng16/png.h /usr/include/libpng16/pngconf.h /usr/include/libpng16/pnglibconf.h
    /usr/include/zlib.h /usr/include/zconf.h)
  if(NOT EXISTS ${src})
    message(FATAL_ERROR "mdfi: ${src} not found: ${_mdfi_missing_hint}")
  endif()
  get_filename_component(_mdfi_name ${src} NAME)
  file(CREATE_LINK ${src} ${_mdfi_tgt_hdrs}/${_mdfi_name} SYMBOLIC)
endforeach()

set(_mdfi_libdir /usr/lib/${_mdfi_arch})
foreach(lib libjpeg.a libpng16.a libz.a)
  if(NOT EXISTS ${_mdfi_libdir}/${lib})
    message(FATAL_ERROR "mdfi: ${_mdfi_libdir}/${lib} not found: ${_mdfi_missing_hint}")
  endif()
endforeach()

# The Find modules take these as given (FORCE: an older configure may have cached host paths).
set(JPEG_INCLUDE_DIR ${_mdfi_tgt_hdrs} CACHE PATH "target jpeglib.h (cross)" FORCE)
set(JPEG_LIBRARY ${_mdfi_libdir}/libjpeg.a CACHE FILEPATH "target libjpeg (cross)" FORCE)
set(PNG_PNG_INCLUDE_DIR ${_mdfi_tgt_hdrs} CACHE PATH "target png.h (cross)" FORCE)
set(PNG_LIBRARY ${_mdfi_libdir}/libpng16.a CACHE FILEPATH "target libpng (cross)" FORCE)
set(ZLIB_INCLUDE_DIR ${_mdfi_tgt_hdrs} CACHE PATH "target zlib.h (cross)" FORCE)
set(ZLIB_LIBRARY ${_mdfi_libdir}/libz.a CACHE FILEPATH "target zlib (cross)" FORCE)
