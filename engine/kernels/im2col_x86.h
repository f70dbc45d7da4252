// Im2colB's panels on x86-64, in vectors. A panel's columns are consecutive output pixels, which fall
// into a few runs along output rows; row by row (channel, ky, kx) each run is a copy of len floats
// (stride 1) or every other float of 2 * len (stride 2), clipped where it meets the padding, or
// zeros above and below the image. Im2colB::pack's general loop calls im2col_row_run per run of
// every row, whose padding bounds take two integer divisions and whose stride-2 loop the baseline
// (SSE2) build gathers a few floats at a time: on yolov4-tiny's 32 -> 64 stride-2 layer (104x104
// outputs) packing was most of the layer's time.
// A panel of one run with every tap inside its row is a plain vector copy (AVX2 or AVX-512). With
// AVX-512 every other panel is put together in registers by masked loads (masks made once per
// panel for each run, tap column and 16 columns): a 32-wide panel of a 104-wide output row meets
// the padding or the next row more often than not. With AVX2 those are left to the general loop.
// The same floats are copied either way.
#pragma once

#include "sgemm.h"

namespace mdfi::kernels {

// Packs rows [k0, k0 + kc) of the panel of nr columns whose first `cols` are the runs (the rest
// zeros) and returns true, or returns false writing nothing when this CPU or the panel is not one
// of the above (stride other than 1 or 2, nr not a multiple of 8, more runs or taps than the
// masks are made for).
bool im2col_panel_x86(const Im2colImage& im, int k, int s, int p, int d, const Im2colRun* runs, int n_runs, int k0,
                      int kc, int nr, int cols, float* panel);

#if !(defined(__x86_64__) || defined(__i386__))
inline bool im2col_panel_x86(const Im2colImage&, int, int, int, int, const Im2colRun*, int, int, int, int, int,
                             float*) {
  return false;
}
#endif

}  // namespace mdfi::kernels
