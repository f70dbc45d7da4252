// im2col_neon.h's whole-panel case on x86-64: a B panel of consecutive outputs of one output row
// whose every tap lies inside the input horizontally is, row by row, a copy of nr floats (stride
// 1) or every other float of 2 * nr (stride 2), or zeros above and below the image. Im2colB::pack's
// general loop calls im2col_row_run per row of every panel, whose padding bounds take two integer
// divisions and whose stride-2 loop the baseline (SSE2) build gathers a few floats at a time: on
// yolov4-tiny's 32 -> 64 stride-2 layer (104x104 outputs) packing was most of the layer's time.
// Here the copies are AVX2 or AVX-512 vectors (the kernel widths: 8, 16, 24 or 32 columns). The
// same floats are copied either way.
#pragma once

namespace mdfi::kernels {

// Packs rows [k0, k0 + kc) of the panel whose nr columns are the outputs (oy, ox..ox + nr - 1)
// and returns true, or returns false writing nothing when the panel is not of that kind (stride
// other than 1 or 2, a tap outside the row, nr not a multiple of 8) or this CPU lacks AVX2.
bool im2col_panel_inside_x86(const float* im, int h, int w, int k, int s, int p, int d, int oy, int ox, int k0,
                             int kc, int nr, float* panel);

#if !(defined(__x86_64__) || defined(__i386__))
inline bool im2col_panel_inside_x86(const float*, int, int, int, int, int, int, int, int, int, int, int, float*) {
  return false;
}
#endif

}  // namespace mdfi::kernels
