// stb_image compiled here, with its allocations routed through the MemoryTracker so decoded
// images count in the memory report.
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "image.h"

namespace {

thread_local mdfi::MemoryTracker* g_decode_tracker = nullptr;
constexpr size_t kPrefix = 64;  // keeps the payload 64-byte aligned and remembers the size

void* tracked_malloc(size_t n) {
  if (!g_decode_tracker) return nullptr;
  void* raw = g_decode_tracker->allocate(n + kPrefix, mdfi::MemCategory::kOther);
  if (!raw) return nullptr;
  *static_cast<size_t*>(raw) = n;
  return static_cast<char*>(raw) + kPrefix;
}

void tracked_free(void* p) {
  if (!p) return;
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

Result<Image> load_image_rgb(const std::string& path, MemoryTracker& mem) {
  std::FILE* fp = std::fopen(path.c_str(), "rb");
  if (!fp) return Result<Image>(ErrorKind::kImage, path + ": cannot open image (" + std::strerror(errno) + ")");
  struct Closer {
    std::FILE* f;
    ~Closer() { std::fclose(f); }
  } closer{fp};
  int w = 0, h = 0, comp = 0;
  g_decode_tracker = &mem;
  if (!stbi_info_from_file(fp, &w, &h, &comp)) {
    const char* why = stbi_failure_reason();
    return Result<Image>(ErrorKind::kImage, path + ": not a decodable image (" + (why ? why : "unknown format") + ")");
  }
  if (w <= 0 || h <= 0 || (long long)w * h > kMaxImagePixels)
    return Result<Image>(ErrorKind::kImage, path + ": image header says " + std::to_string(w) + "x" + std::to_string(h) +
                                                ", over the limit of " + std::to_string(kMaxImagePixels / 1000000) +
                                                " megapixels; refused before decoding");
  int got_c = 0;
  unsigned char* pixels = stbi_load_from_file(fp, &w, &h, &got_c, 3);
  if (!pixels) {
    const char* why = stbi_failure_reason();
    std::string reason = why ? why : "decode failed";
    if (reason == "outofmem")
      return Result<Image>(ErrorKind::kOutOfMemory, path + ": out of memory decoding the image");
    return Result<Image>(ErrorKind::kImage, path + ": corrupt or truncated image (" + reason + ")");
  }
  struct Freer {
    unsigned char* p;
    ~Freer() { stbi_image_free(p); }
  } freer{pixels};
  auto im = make_image(w, h, 3, mem);
  if (!im.ok()) return im;
  float* dst = im->data.data();
  const size_t plane = size_t(w) * h;
  for (int k = 0; k < 3; ++k)
    for (size_t i = 0; i < plane; ++i) dst[k * plane + i] = float(pixels[i * 3 + k]) / 255.f;
  return im;
}

}  // namespace mdfi
