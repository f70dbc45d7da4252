// Input images: decoding with stb_image (JPEG, PNG, BMP, TGA, GIF first frame; grey and RGBA
// become RGB; 16-bit PNG is reduced to 8-bit), then Darknet's exact preprocessing: planar CHW
// floats in [0,1], its two-pass bilinear resize_image and letterbox_image (aspect kept, 0.5 pad).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>

#include "memory.h"

namespace mdfi {

struct Image {
  int w = 0, h = 0, c = 0;
  Buffer data;  // c planes of h rows of w floats
  float at(int x, int y, int ch) const { return data.data()[(size_t(ch) * h + y) * w + x]; }
};

// Decoded 8-bit pixels, interleaved RGB as stb_image returns them. Preprocessing reads these
// directly (value/255 on the fly, exactly the float Darknet would hold), so no full float copy
// of a large photo is ever made.
class ImageU8 {
 public:
  ImageU8() = default;
  ImageU8(ImageU8&& o) noexcept { *this = std::move(o); }
  ImageU8& operator=(ImageU8&& o) noexcept;
  ~ImageU8();
  ImageU8(const ImageU8&) = delete;
  ImageU8& operator=(const ImageU8&) = delete;

  int w = 0, h = 0, c = 3;
  float at(int x, int y, int ch) const { return float(pixels_[(size_t(y) * w + x) * 3 + ch]) / 255.f; }
  const unsigned char* pixels() const { return pixels_; }

 private:
  friend Result<ImageU8> decode_image_u8(std::FILE* fp, const std::string& name, MemoryTracker& mem,
                                         long long max_pixels);
  unsigned char* pixels_ = nullptr;
  MemoryTracker* mem_ = nullptr;
};

// Images with more pixels than their decoder's limit are refused from their header, before
// decoding (--max-pixels, DecodeOptions::max_pixels, replaces both). The decoders that hold the
// whole image (stb_image's formats, interlaced PNG, progressive JPEG's coefficients) need 3 to
// 12 bytes a pixel, so they stop at 64 megapixels; libjpeg's and libpng's row decoders hold a
// few rows whatever the size, so a 200-megapixel phone photo passes with room to spare.
constexpr long long kMaxImagePixels = 64LL * 1000 * 1000;
constexpr long long kMaxRowImagePixels = 1000LL * 1000 * 1000;
// The refusal: "PATH: image header says WxH (N megapixels), over ..., refused before decoding".
// `limit` is what applied; `chosen` whether --max-pixels set it (else the decoder's default).
Status pixel_limit_error(const std::string& path, long long w, long long h, long long limit, bool chosen, bool whole);

Result<ImageU8> load_image_u8(const std::string& path, MemoryTracker& mem);
// The size an image's header declares against kMaxImagePixels and the stream's length (a
// 20-byte file claiming 55 megapixels is a decompression bomb); no decoder runs.
Status check_image_header(std::FILE* fp, const std::string& name, long long max_pixels = kMaxImagePixels,
                          bool chosen = false, bool whole = true);
// stb_image's header read (what decode_image_u8 checks first), without decoding: the size and
// the stream's length in bytes.
// max_pixels 0: kMaxImagePixels.
Status stb_header(std::FILE* fp, const std::string& name, int* w, int* h, int64_t* file_bytes, long long max_pixels = 0);
// The same from an open stream (read from its start): stb_image's whole-image decode.
// max_pixels 0: kMaxImagePixels.
Result<ImageU8> decode_image_u8(std::FILE* fp, const std::string& name, MemoryTracker& mem, long long max_pixels = 0);
Result<Image> load_image_rgb(const std::string& path, MemoryTracker& mem);  // float planar copy
Result<Image> make_image(int w, int h, int c, MemoryTracker& mem, MemCategory cat = MemCategory::kOther);
Result<Image> resize_image(const Image& im, int w, int h, MemoryTracker& mem);
Result<Image> letterbox_image(const Image& im, int w, int h, MemoryTracker& mem);
Result<Image> resize_image(const ImageU8& im, int w, int h, MemoryTracker& mem);
Result<Image> letterbox_image(const ImageU8& im, int w, int h, MemoryTracker& mem);
// The output buffers of the two functions above are allocated in category `cat`, so the
// network input can be the letterboxed image itself without a copy.
Result<Image> letterbox_image(const ImageU8& im, int w, int h, MemoryTracker& mem, MemCategory cat);
Result<Image> resize_image(const ImageU8& im, int w, int h, MemoryTracker& mem, MemCategory cat);

// The (w, h) that letterbox_image scales an image to before padding.
void letterbox_size(int im_w, int im_h, int net_w, int net_h, int* new_w, int* new_h);

}  // namespace mdfi
