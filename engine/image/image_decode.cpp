// stb_image compiled here, with its allocations routed through the MemoryTracker so decoded
// images count in the memory report.
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include <sys/stat.h>

#include "image.h"
#include "image_probe.h"

namespace {

thread_local mdfi::MemoryTracker* g_decode_tracker = nullptr;
// Set when an stb allocation fails. stb tries format after format and its last reason wins, so
// "outofmem" from the right decoder is often replaced by "unknown image type" or "no SOI".
thread_local bool g_decode_alloc_failed = false;
constexpr size_t kPrefix = 64;  // keeps the payload 64-byte aligned and remembers the size

void* tracked_malloc(size_t n) {
  if (!g_decode_tracker) return nullptr;
  void* raw = g_decode_tracker->allocate(n + kPrefix, mdfi::MemCategory::kOther);
  if (!raw) {
    g_decode_alloc_failed = true;
    return nullptr;
  }
  *static_cast<size_t*>(raw) = n;
  return static_cast<char*>(raw) + kPrefix;
}

void tracked_free(void* p) {
  if (!p || !g_decode_tracker) return;
  char* raw = static_cast<char*>(p) - kPrefix;
  g_decode_tracker->release(raw, *reinterpret_cast<size_t*>(raw) + kPrefix, mdfi::MemCategory::kOther);
}

void* tracked_realloc(void* p, size_t old_size, size_t new_size) {
  void* q = tracked_malloc(new_size);
  if (q && p) std::memcpy(q, p, old_size < new_size ? old_size : new_size);
  if (q) tracked_free(p);
  return q;
}

}  // namespace

#define STBI_MALLOC(sz) tracked_malloc(sz)
#define STBI_FREE(p) tracked_free(p)
#define STBI_REALLOC_SIZED(p, oldsz, newsz) tracked_realloc(p, oldsz, newsz)
#define STBI_NO_HDR
#define STBI_NO_LINEAR
#define STBI_NO_PSD
#define STBI_NO_PIC
#define STBI_NO_PNM
#define STBI_MAX_DIMENSIONS (1 << 16)
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#endif
#include <stb_image.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

namespace mdfi {

ImageU8& ImageU8::operator=(ImageU8&& o) noexcept {
  if (this != &o) {
    this->~ImageU8();
    w = o.w;
    h = o.h;
    c = o.c;
    pixels_ = o.pixels_;
    mem_ = o.mem_;
    o.pixels_ = nullptr;
  }
  return *this;
}

ImageU8::~ImageU8() {
  if (pixels_) {
    g_decode_tracker = mem_;
    stbi_image_free(pixels_);
    pixels_ = nullptr;
  }
}

Result<ImageU8> load_image_u8(const std::string& path, MemoryTracker& mem) {
  std::FILE* fp = std::fopen(path.c_str(), "rb");
  if (!fp) return Result<ImageU8>(ErrorKind::kImage, path + ": cannot open image (" + std::strerror(errno) + ")");
  struct Closer {
    std::FILE* f;
    ~Closer() { std::fclose(f); }
  } closer{fp};
  struct stat st {};
  if (::fstat(::fileno(fp), &st) == 0 && S_ISDIR(st.st_mode))
    return Result<ImageU8>(ErrorKind::kImage, path + ": is a directory, not an image");
  return decode_image_u8(fp, path, mem);
}

// The size of what fp holds: fstat for a file, the end position for fmemopen's memory stream.
static bool stream_size(std::FILE* fp, int64_t* size) {
  struct stat st {};
  const int fd = ::fileno(fp);
  if (fd >= 0 && ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) return *size = st.st_size, true;
  const long here = std::ftell(fp);
  if (here < 0 || std::fseek(fp, 0, SEEK_END) != 0) return false;
  *size = std::ftell(fp);
  std::fseek(fp, here, SEEK_SET);
  return *size >= 0;
}

Status pixel_limit_error(const std::string& path, long long w, long long h, long long limit, bool chosen, bool whole) {
  char mp[32];
  std::snprintf(mp, sizeof mp, "%.1f", double(w) * double(h) / 1e6);
  std::string why = std::to_string(limit / 1000000) + " megapixels";
  why = chosen ? "the --max-pixels limit of " + why
               : "the limit of " + why + (whole ? " for images decoded whole" : "") + " (--max-pixels raises it)";
  return Status(ErrorKind::kImage, path + ": image header says " + std::to_string(w) + "x" + std::to_string(h) + " (" +
                                       mp + " megapixels), over " + why + "; refused before decoding");
}

// The header's size against the pixel limit and the file's size, before any decoder runs.
static Status check_declared_size(std::FILE* fp, const std::string& path, bool have_stat, int64_t file_size,
                                  long long max_pixels, bool chosen, bool whole) {
  // Our own header read first: stb refuses some huge headers itself but then reports only
  // "unknown image type" after trying every other format.
  const DeclaredSize declared = probe_image_size(fp);
  // Each side is checked first: two 32-bit PNG sides overflow even an int64 product.
  if (declared.known && (declared.w <= 0 || declared.h <= 0))
    return Status(ErrorKind::kImage, path + ": image header says " + std::to_string(declared.w) + "x" +
                                         std::to_string(declared.h) + ", an empty image; refused before decoding");
  if (declared.known && (declared.w > max_pixels || declared.h > max_pixels || declared.w * declared.h > max_pixels))
    return pixel_limit_error(path, declared.w, declared.h, max_pixels, chosen, whole);
  // No image format packs more than ~10,000 pixels into a byte (deflate tops out near 1032:1 on
  // 1-bit pixels, GIF's LZW near 11,000:1), so a 20-byte file claiming 55 megapixels is a
  // decompression bomb: stb would allocate and clear ~0.5 GB and spend seconds before failing.
  if (have_stat && declared.known && declared.w * declared.h > file_size * 16384)
    return Status(ErrorKind::kImage, path + ": image header says " + std::to_string(declared.w) + "x" +
                                                  std::to_string(declared.h) + " but the file has only " +
                                                  std::to_string(file_size) +
                                                  " bytes; refused before decoding (truncated, or a decompression bomb)");
  return Status::Ok();
}

Status check_image_header(std::FILE* fp, const std::string& name, long long max_pixels, bool chosen, bool whole) {
  int64_t file_size = 0;
  const bool have_size = stream_size(fp, &file_size);
  return check_declared_size(fp, name, have_size, file_size, max_pixels, chosen, whole);
}

Result<ImageU8> decode_image_u8(std::FILE* fp, const std::string& path, MemoryTracker& mem, long long max_pixels) {
  const bool chosen = max_pixels > 0;
  if (!chosen) max_pixels = kMaxImagePixels;
  int64_t file_size = 0;
  const bool have_stat = stream_size(fp, &file_size);
  MDFI_RETURN_IF_ERROR(check_declared_size(fp, path, have_stat, file_size, max_pixels, chosen, true));
  const std::string bad_tables = jpeg_huffman_problem(fp);
  if (!bad_tables.empty())
    return Result<ImageU8>(ErrorKind::kImage, path + ": corrupt JPEG: " + bad_tables + "; refused before decoding");
  std::rewind(fp);
  int w = 0, h = 0, comp = 0;
  g_decode_tracker = &mem;
  g_decode_alloc_failed = false;
  if (!stbi_info_from_file(fp, &w, &h, &comp)) {
    const char* why = stbi_failure_reason();
    // stb's JPEG header reader allocates: a failed allocation there is not a bad image.
    if (g_decode_alloc_failed)
      return Result<ImageU8>(ErrorKind::kOutOfMemory, path + ": out of memory reading the image header");
    return Result<ImageU8>(ErrorKind::kImage, path + ": not a decodable image (" + (why ? why : "unknown format") + ")");
  }
  if (w <= 0 || h <= 0) return Result<ImageU8>(ErrorKind::kImage, path + ": image header says an empty image");
  if ((long long)w * h > max_pixels) return pixel_limit_error(path, w, h, max_pixels, chosen, true);
  int got_c = 0;
  g_decode_alloc_failed = false;
  unsigned char* pixels = stbi_load_from_file(fp, &w, &h, &got_c, 3);
  if (!pixels) {
    const char* why = stbi_failure_reason();
    std::string reason = why ? why : "";
    // Only stb's short ASCII codes are worth showing ("bad IHDR len"); a corrupt PNG chunk can
    // leave an unprintable byte there (found by fuzz_image).
    const bool printable = !reason.empty() && reason.size() < 64 &&
                           std::all_of(reason.begin(), reason.end(), [](char c) { return c >= 32 && c < 127; });
    if (!printable) reason = "decode failed";
    if (g_decode_alloc_failed || reason == "outofmem") return Result<ImageU8>(ErrorKind::kOutOfMemory, path + ": out of memory decoding the image");
    return Result<ImageU8>(ErrorKind::kImage, path + ": corrupt or truncated image (" + reason + ")");
  }
  ImageU8 im;
  im.w = w;
  im.h = h;
  im.c = 3;
  im.pixels_ = pixels;
  im.mem_ = &mem;
  return im;
}

Result<Image> load_image_rgb(const std::string& path, MemoryTracker& mem) {
  MDFI_ASSIGN_OR_RETURN(auto src, load_image_u8(path, mem));
  auto im = make_image(src.w, src.h, 3, mem);
  if (!im.ok()) return im;
  float* dst = im->data.data();
  const size_t plane = size_t(src.w) * src.h;
  const unsigned char* pixels = src.pixels();
  for (int k = 0; k < 3; ++k)
    for (size_t i = 0; i < plane; ++i) dst[k * plane + i] = float(pixels[i * 3 + k]) / 255.f;
  return im;
}

Status stb_header(std::FILE* fp, const std::string& name, int* w, int* h, int64_t* file_bytes, long long max_pixels) {
  const bool chosen = max_pixels > 0;
  if (!chosen) max_pixels = kMaxImagePixels;
  if (!stream_size(fp, file_bytes)) *file_bytes = 0;
  MDFI_RETURN_IF_ERROR(check_declared_size(fp, name, *file_bytes > 0, *file_bytes, max_pixels, chosen, true));
  const std::string bad_tables = jpeg_huffman_problem(fp);
  if (!bad_tables.empty()) return Status(ErrorKind::kImage, name + ": corrupt JPEG: " + bad_tables + "; refused before decoding");
  std::rewind(fp);
  int comp = 0;
  // stb's header readers allocate a little (its JPEG reader a whole decoder struct).
  MemoryTracker scratch;
  g_decode_tracker = &scratch;
  g_decode_alloc_failed = false;
  const int ok = stbi_info_from_file(fp, w, h, &comp);
  g_decode_tracker = nullptr;
  if (!ok) {
    if (g_decode_alloc_failed) return Status(ErrorKind::kOutOfMemory, name + ": out of memory reading the image header");
    const char* why = stbi_failure_reason();
    return Status(ErrorKind::kImage, name + ": not a decodable image (" + (why ? why : "unknown format") + ")");
  }
  if (*w <= 0 || *h <= 0) return Status(ErrorKind::kImage, name + ": image header says an empty image");
  if ((long long)*w * *h > max_pixels) return pixel_limit_error(name, *w, *h, max_pixels, chosen, true);
  return Status::Ok();
}

}  // namespace mdfi
