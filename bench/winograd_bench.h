// Set-up shared by the Winograd benches: a padded 3x3 stride-1 layer of square maps, and its
// whole transformed weights made one filter panel at a time, as the layer does.
#pragma once
#include <algorithm>
#include <cstddef>

#include "kernels/sgemm.h"
#include "kernels/winograd.h"

namespace mdfi::bench {

inline kernels::WinogradGeo square_geo(int m, int channels, int hw, int filters) {
  kernels::WinogradGeo g;
  g.m = m;
  g.channels = channels;
  g.height = g.width = g.out_h = g.out_w = hw;
  g.pad = 1;
  g.filters = filters;
  return g;
}

// U of every filter panel of w (filters x channels*9, row-major) into u (winograd_u_floats).
inline void transform_all_weights(const kernels::WinogradGeo& g, const float* w, float* u) {
  const size_t per = size_t(g.channels) * 9, plane = kernels::packed_a_floats(g.filters, g.channels);
  for (int q = 0; q * kernels::kMR < g.filters; ++q)
    kernels::winograd_transform_weights(g, std::min(kernels::kMR, g.filters - q * kernels::kMR),
                                        w + size_t(q) * kernels::kMR * per, nullptr, u, plane, q);
}

}  // namespace mdfi::bench
