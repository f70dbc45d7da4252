// The common case of an im2col run (sgemm.h's im2col_row_run) in NEON, inline where the runs are
// made: the run lies wholly inside its input row, stride 1 or 2. Then it is a plain copy (stride
// 1) or every other float (stride 2, LD2), with no padding to clip. A 3-channel first layer
// (yolov3-tiny's 416x416) makes 27 such runs of 12 per panel of 12 columns, and the general
// function - the padding bounds by division, a memcpy call per run - cost some 95 instructions a
// run (37 M per inference there) where this takes a dozen. The same floats are copied either way.
#pragma once

#if defined(__ARM_NEON) || defined(__aarch64__)
#include <arm_neon.h>
#define MDFI_IM2COL_NEON 1
#endif

namespace mdfi::kernels {

// Copies the run out[j] = row[ix0 + j * stride] (j < len) and returns true when it lies inside
// [0, width) and stride is 1 or 2; else returns false and writes nothing (im2col_row_run then
// does it). Stride 2 reads one float past the run's last (LD2 pairs): only taken when that float
// is inside the row too.
inline bool im2col_run_inside(const float* row, int ix0, int stride, int width, int len, float* out) {
#if defined(MDFI_IM2COL_NEON)
  if (ix0 < 0) return false;
  const float* from = row + ix0;
  if (stride == 1) {
    if (ix0 + len > width) return false;
    int j = 0;
    for (; j + 4 <= len; j += 4) vst1q_f32(out + j, vld1q_f32(from + j));
    for (; j < len; ++j) out[j] = from[j];
    return true;
  }
  if (stride == 2) {
    if (ix0 + 2 * len > width) return false;
    int j = 0;
    for (; j + 4 <= len; j += 4) vst1q_f32(out + j, vld2q_f32(from + 2 * j).val[0]);
    for (; j < len; ++j) out[j] = from[2 * j];
    return true;
  }
#else
  (void)row, (void)ix0, (void)stride, (void)width, (void)len, (void)out;
#endif
  return false;
}

#if defined(MDFI_IM2COL_NEON)
template <int NR, int S>
inline void im2col_panel_rows(const float* plane, size_t plane_size, int h, int w, int k, int d, int iy0, int x0,
                              int k0, int kc, float* panel) {
  int kx = k0 % k, ky = (k0 / k) % k;
  plane += size_t(k0 / k / k) * plane_size;
  int iy = iy0 + ky * d;
  for (int r = 0; r < kc; ++r, panel += NR) {
    if (k == 3 && kx == 0 && r + 3 <= kc && unsigned(iy) < unsigned(h)) {
      // A 3x3 kernel's three taps of one input row as one step (the row's address made once, one
      // loop test): yolov3-tiny's 3-channel first layer spent 17 instructions a panel row.
      const float* src = plane + size_t(iy) * w + x0;
      for (int t = 0; t < 3; ++t, src += d, panel += NR)
        for (int j = 0; j < NR; j += 4) vst1q_f32(panel + j, S == 1 ? vld1q_f32(src + j) : vld2q_f32(src + 2 * j).val[0]);
      r += 2;
      panel -= NR;  // the loop's step adds it back
      iy += d;
      if (++ky == k) ky = 0, iy = iy0, plane += plane_size;
      continue;
    }
    if (unsigned(iy) >= unsigned(h)) {
      for (int j = 0; j < NR; j += 4) vst1q_f32(panel + j, vdupq_n_f32(0.f));
    } else {
      const float* src = plane + size_t(iy) * w + x0 + kx * d;
      for (int j = 0; j < NR; j += 4) vst1q_f32(panel + j, S == 1 ? vld1q_f32(src + j) : vld2q_f32(src + 2 * j).val[0]);
    }
    if (++kx == k) {
      kx = 0;
      iy += d;
      if (++ky == k) ky = 0, iy = iy0, plane += plane_size;
    }
  }
}
#endif

// A whole panel (nr columns, rows [k0, k0 + kc) of the im2col matrix) whose columns are the
// consecutive outputs (oy, ox..ox + nr - 1) of one output row and whose every tap lies inside
// the input horizontally: each row is then a copy of nr floats (stride 1) or every other float of
// 2 * nr (stride 2; its last float is inside too), or zeros above and below the image. Returns
// false, writing nothing, for any other panel. Rows counted in locals: Im2colB::pack's general
// loop reloaded its members after every store and took 73 instructions a row, this about 17.
inline bool im2col_panel_inside(const float* im, int h, int w, int k, int s, int p, int d, int oy, int ox, int k0,
                                int kc, int nr, float* panel) {
#if defined(MDFI_IM2COL_NEON)
  if ((nr != 12 && nr != 4) || (s != 1 && s != 2)) return false;
  const int x0 = ox * s - p;
  if (x0 < 0 || x0 + (k - 1) * d + nr * s - 1 >= w) return false;
  const size_t plane_size = size_t(h) * w;
  const int iy0 = oy * s - p;
  if (nr == 12 && s == 1) im2col_panel_rows<12, 1>(im, plane_size, h, w, k, d, iy0, x0, k0, kc, panel);
  else if (nr == 12) im2col_panel_rows<12, 2>(im, plane_size, h, w, k, d, iy0, x0, k0, kc, panel);
  else if (s == 1) im2col_panel_rows<4, 1>(im, plane_size, h, w, k, d, iy0, x0, k0, kc, panel);
  else im2col_panel_rows<4, 2>(im, plane_size, h, w, k, d, iy0, x0, k0, kc, panel);
  return true;
#else
  (void)im, (void)h, (void)w, (void)k, (void)s, (void)p, (void)d, (void)oy, (void)ox, (void)k0, (void)kc, (void)nr;
  (void)panel;
  return false;
#endif
}

}  // namespace mdfi::kernels
