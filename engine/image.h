// Input images: decoding with stb_image (JPEG, PNG, BMP, TGA, GIF first frame; grey and RGBA
// become RGB; 16-bit PNG is reduced to 8-bit), then Darknet's exact preprocessing: planar CHW
// floats in [0,1], its two-pass bilinear resize_image and letterbox_image (aspect kept, 0.5 pad).
#pragma once

#include <string>

#include "memory.h"

namespace mdfi {

struct Image {
  int w = 0, h = 0, c = 0;
  Buffer data;  // c planes of h rows of w floats
  float at(int x, int y, int ch) const { return data.data()[(size_t(ch) * h + y) * w + x]; }
};

// Images with more pixels than this are refused from their header, before decoding.
constexpr long long kMaxImagePixels = 64LL * 1000 * 1000;

Result<Image> load_image_rgb(const std::string& path, MemoryTracker& mem);
Result<Image> make_image(int w, int h, int c, MemoryTracker& mem);
Result<Image> resize_image(const Image& im, int w, int h, MemoryTracker& mem);
Result<Image> letterbox_image(const Image& im, int w, int h, MemoryTracker& mem);

// The (w, h) that letterbox_image scales an image to before padding.
void letterbox_size(int im_w, int im_h, int net_w, int net_h, int* new_w, int* new_h);

}  // namespace mdfi
