#include "image.h"

#include <algorithm>

namespace mdfi {

Result<Image> make_image(int w, int h, int c, MemoryTracker& mem, MemCategory cat) {
  Image im;
  im.w = w;
  im.h = h;
  im.c = c;
  MDFI_ASSIGN_OR_RETURN(auto b, Buffer::make(mem, size_t(w) * h * c, cat, "an image"));
  im.data = std::move(b);
  return im;
}

// Darknet's resize_image: a horizontal pass into a (w x im.h) intermediate, then a vertical pass
// that adds the lower row's share separately - the order of float operations matters for parity.
template <typename Src>
static Result<Image> resize_any(const Src& im, int w, int h, MemoryTracker& mem, MemCategory cat) {
  if (w < 1 || h < 1) return Result<Image>(ErrorKind::kUsage, "cannot resize to an empty image");
  auto resized = make_image(w, h, im.c, mem, cat);
  if (!resized.ok()) return resized;
  auto part = make_image(w, im.h, im.c, mem);
  if (!part.ok()) return part;
  // A 1-pixel-wide or -high target would divide by zero (Darknet does); its only sample is 0.
  const float w_scale = w > 1 ? float(im.w - 1) / (w - 1) : 0.f;
  const float h_scale = h > 1 ? float(im.h - 1) / (h - 1) : 0.f;
  float* P = part->data.data();
  for (int k = 0; k < im.c; ++k)
    for (int r = 0; r < im.h; ++r)
      for (int c = 0; c < w; ++c) {
        float val;
        if (c == w - 1 || im.w == 1) {
          val = im.at(im.w - 1, r, k);
        } else {
          const float sx = c * w_scale;
          const int ix = int(sx);
          const float dx = sx - ix;
          val = (1 - dx) * im.at(ix, r, k) + dx * im.at(ix + 1, r, k);
        }
        P[(size_t(k) * im.h + r) * w + c] = val;
      }
  float* R = resized->data.data();
  for (int k = 0; k < im.c; ++k)
    for (int r = 0; r < h; ++r) {
      const float sy = r * h_scale;
      const int iy = int(sy);
      const float dy = sy - iy;
      float* row = R + (size_t(k) * h + r) * w;
      const float* top = P + (size_t(k) * im.h + iy) * w;
      for (int c = 0; c < w; ++c) row[c] = (1 - dy) * top[c];
      if (r == h - 1 || im.h == 1) continue;
      const float* bot = top + w;
      for (int c = 0; c < w; ++c) row[c] += dy * bot[c];
    }
  return resized;
}

Result<Image> resize_image(const Image& im, int w, int h, MemoryTracker& mem) {
  return resize_any(im, w, h, mem, MemCategory::kOther);
}
Result<Image> resize_image(const ImageU8& im, int w, int h, MemoryTracker& mem) {
  return resize_any(im, w, h, mem, MemCategory::kOther);
}
Result<Image> resize_image(const ImageU8& im, int w, int h, MemoryTracker& mem, MemCategory cat) {
  return resize_any(im, w, h, mem, cat);
}

void letterbox_size(int im_w, int im_h, int net_w, int net_h, int* new_w, int* new_h) {
  // 64-bit products: a 1 x 60M strip times the net width overflows int. A very thin image keeps
  // at least one row/column so it never scales to an empty image.
  if (float(net_w) / im_w < float(net_h) / im_h) {
    *new_w = net_w;
    *new_h = int(std::max<long long>(1, (long long)im_h * net_w / im_w));
  } else {
    *new_h = net_h;
    *new_w = int(std::max<long long>(1, (long long)im_w * net_h / im_h));
  }
}

template <typename Src>
static Result<Image> letterbox_any(const Src& im, int w, int h, MemoryTracker& mem, MemCategory cat) {
  int new_w = 0, new_h = 0;
  letterbox_size(im.w, im.h, w, h, &new_w, &new_h);
  auto resized = resize_any(im, new_w, new_h, mem, MemCategory::kOther);
  if (!resized.ok()) return resized;
  auto boxed = make_image(w, h, im.c, mem, cat);
  if (!boxed.ok()) return boxed;
  std::fill(boxed->data.data(), boxed->data.data() + boxed->data.size(), .5f);
  if (!resized.ok()) return resized;
  const int dx = (w - new_w) / 2, dy = (h - new_h) / 2;
  for (int k = 0; k < im.c; ++k)
    for (int y = 0; y < new_h; ++y) {
      const float* src = resized->data.data() + (size_t(k) * new_h + y) * new_w;
      float* dst = boxed->data.data() + (size_t(k) * h + y + dy) * w + dx;
      std::copy(src, src + new_w, dst);
    }
  return boxed;
}

Result<Image> letterbox_image(const Image& im, int w, int h, MemoryTracker& mem) {
  return letterbox_any(im, w, h, mem, MemCategory::kOther);
}
Result<Image> letterbox_image(const ImageU8& im, int w, int h, MemoryTracker& mem) {
  return letterbox_any(im, w, h, mem, MemCategory::kOther);
}
Result<Image> letterbox_image(const ImageU8& im, int w, int h, MemoryTracker& mem, MemCategory cat) {
  return letterbox_any(im, w, h, mem, cat);
}

}  // namespace mdfi
