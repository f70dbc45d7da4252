#include "im2col.h"

namespace mdfi {

void im2col_tile(const float* im, int channels, int height, int width, int ksize, int stride, int pad,
                 int col_begin, int col_end, float* tile, int dilation) {
  const int out_w = (width + 2 * pad - (dilation * (ksize - 1) + 1)) / stride + 1;
  const int tile_n = col_end - col_begin;
  const int rows = channels * ksize * ksize;
  for (int r = 0; r < rows; ++r) {
    const int kx = r % ksize;
    const int ky = (r / ksize) % ksize;
    const int ch = r / ksize / ksize;
    const float* plane = im + long(ch) * height * width;
    float* dst = tile + long(r) * tile_n;
    int oy = col_begin / out_w;
    int ox = col_begin % out_w;
    for (int j = 0; j < tile_n; ++j) {
      const int iy = ky * dilation + oy * stride - pad;
      const int ix = kx * dilation + ox * stride - pad;
      dst[j] = (iy >= 0 && iy < height && ix >= 0 && ix < width) ? plane[long(iy) * width + ix] : 0.f;
      if (++ox == out_w) {
        ox = 0;
        ++oy;
      }
    }
  }
}

}  // namespace mdfi
