// NEON spatial max pool, stride 1 or 2, any window, one channel plane at a time, over copies of
// the input rows padded with -FLT_MAX: four outputs per vector, every output through the same
// code (the scalar loop checks bounds per tap, and at Yolo-Fastest's 10x10 SPP pools with 9x9
// windows almost every output is a border one).
//
// Same result bit for bit as MaxPoolLayer::forward: per lane, best starts at -FLT_MAX and takes
// v where v > best, taps in (row, column) order. A -FLT_MAX pad never passes that test, exactly
// as the scalar loop skips the taps outside the image; NaN never wins; of equal values (+0, -0)
// the first stays. (FMAX would differ on NaN and on signed zeros, so it is not used.) aarch64
// only: 32-bit ARMv7 NEON compares denormals as zero, which could keep a +0 that Darknet replaces.
#if defined(__aarch64__)
#include <arm_neon.h>

#include <algorithm>
#include <cfloat>

#include "maxpool2x2.h"

namespace mdfi::kernels {
namespace {

constexpr int kBuf = 12288;  // floats of padded rows on the stack (48 KiB)

inline float32x4_t take_greater(float32x4_t v, float32x4_t best) { return vbslq_f32(vcgtq_f32(v, best), v, best); }

// Four outputs at x from `size` padded rows starting at r (row stride ld).
// K: the window size when known at compile time (0: `size`), so that a small window's taps unroll.
template <int S, int K = 0>
inline float32x4_t window4(const float* r, size_t ld, int size_arg, int x) {
  const int size = K ? K : size_arg;
  float32x4_t best = vdupq_n_f32(-FLT_MAX);
  for (int n = 0; n < size; ++n) {
    const float* row = r + size_t(n) * ld + size_t(x) * S;
    for (int m = 0; m < size; ++m) {
      const float32x4_t v = S == 1 ? vld1q_f32(row + m) : vld2q_f32(row + m).val[0];
      best = take_greater(v, best);
    }
  }
  return best;
}

template <int S, int K = 0>
void pool(const float* in, int h, int w, int size, int off, float* out, int out_h, int out_w, int row_len,
          float* buf) {
  const size_t ld = size_t(row_len);
  const int strip = std::max(1, ((kBuf / row_len) - size) / S + 1);
  const float32x4_t lowest = vdupq_n_f32(-FLT_MAX);
  for (int oy0 = 0; oy0 < out_h; oy0 += strip) {
    const int n = std::min(strip, out_h - oy0);
    const int rows = (n - 1) * S + size, iy0 = oy0 * S + off;
    for (int i = 0; i < rows; ++i) {  // row i holds input row iy0 + i at [-off, -off + w)
      float* r = buf + size_t(i) * ld;
      const int iy = iy0 + i;
      int j = 0;
      if (iy >= 0 && iy < h) {
        for (; j < -off; ++j) r[j] = -FLT_MAX;
        const float* src = in + size_t(iy) * w;
        int q = 0;
        for (; q + 4 <= w; q += 4) vst1q_f32(r + j + q, vld1q_f32(src + q));
        for (; q < w; ++q) r[j + q] = src[q];
        j += w;
      }
      for (; j + 4 <= row_len; j += 4) vst1q_f32(r + j, lowest);
      for (; j < row_len; ++j) r[j] = -FLT_MAX;
    }
    for (int i = 0; i < n; ++i) {
      const float* r = buf + size_t(i) * S * ld;
      float* orow = out + size_t(oy0 + i) * out_w;
      int x = 0;
      for (; x + 4 <= out_w; x += 4) vst1q_f32(orow + x, window4<S, K>(r, ld, size, x));
      if (x < out_w) {  // the last outputs: overlapping the ones before, or through a small buffer
        if (out_w >= 4) {
          vst1q_f32(orow + out_w - 4, window4<S, K>(r, ld, size, out_w - 4));
        } else {
          float tmp[4];
          vst1q_f32(tmp, window4<S, K>(r, ld, size, 0));
          for (int j = 0; j < out_w; ++j) orow[j] = tmp[j];
        }
      }
    }
  }
}

// Darknet's usual 2x2 stride-2 pool when every window lies inside the plane: straight from the
// input, no padded copy (the copy and the general window loop had cost 16 instructions per
// output on yolov3-tiny's pools; this is under 4). LD2 splits a row's eight floats into the
// left and right taps of four windows; the taps go in the same order through the same test.
inline void pool2x2s2_four(const float* r0, const float* r1, float* o, float32x4_t lowest) {
  const float32x4x2_t a = vld2q_f32(r0), b = vld2q_f32(r1);
  float32x4_t best = take_greater(a.val[0], lowest);
  best = take_greater(a.val[1], best);
  best = take_greater(b.val[0], best);
  vst1q_f32(o, take_greater(b.val[1], best));
}

// The row's loop steps three pointers and a count (indexing by x had cost 24 instructions per
// four outputs in sign extensions and address arithmetic, 13 now).
void pool2x2s2_inside(const float* in, int w, float* out, int out_h, int out_w) {
  const float32x4_t lowest = vdupq_n_f32(-FLT_MAX);
  for (int oy = 0; oy < out_h; ++oy) {
    const float* r0 = in + size_t(2 * oy) * w;
    const float* r1 = r0 + w;
    float* orow = out + size_t(oy) * out_w;
    const float *a = r0, *b = r1;
    float* o = orow;
    for (int k = out_w / 4; k > 0; --k, a += 8, b += 8, o += 4) pool2x2s2_four(a, b, o, lowest);
    if (out_w % 4) {  // the last four overlap the ones before
      const size_t x = size_t(out_w - 4);
      pool2x2s2_four(r0 + 2 * x, r1 + 2 * x, orow + x, lowest);
    }
  }
}

}  // namespace

bool maxpool_plane_neon(const float* in, int h, int w, int size, int stride, int off, float* out, int out_h,
                        int out_w) {
  if ((stride != 1 && stride != 2) || size < 1 || off > 0 || out_w <= 0 || out_h <= 0) return false;
  if (size == 2 && stride == 2 && off == 0 && out_w >= 4 && 2 * out_w <= w && 2 * out_h <= h) {
    pool2x2s2_inside(in, w, out, out_h, out_w);
    return true;
  }
  // Loads reach stride * (max(out_w, 4) + 1) + size + 8 floats into a padded row (vld2 reads
  // eight floats from each tap of the last four outputs); the input sits at [-off, -off + w).
  const int row_len = std::max(stride * (std::max(out_w, 4) + 1) + size + 8, w - off);
  if (size_t(row_len) * size > size_t(kBuf)) return false;
  float buf[kBuf];
  // yolov3-tiny's 2x2 stride-1 pool (13x13, 512 channels) with its four taps unrolled.
  if (stride == 1 && size == 2) pool<1, 2>(in, h, w, size, off, out, out_h, out_w, row_len, buf);
  else if (stride == 1) pool<1>(in, h, w, size, off, out, out_h, out_w, row_len, buf);
  else pool<2>(in, h, w, size, off, out, out_h, out_w, row_len, buf);
  return true;
}

}  // namespace mdfi::kernels
#endif
