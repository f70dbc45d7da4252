// Band steps of Winograd layers (winograd_rows.h): the step's input rows copied with their
// padding into a scratch tensor that the whole-tensor Winograd functions run on.
#include <algorithm>
#include <cstring>
#include <vector>

#include "../kernels/sgemm.h"
#include "winograd_rows.h"

namespace mdfi {

kernels::WinogradGeo winograd_rows_geo(const kernels::WinogradGeo& whole, int rows) {
  kernels::WinogradGeo g = whole;
  g.pad = 0;
  g.out_h = rows;
  g.height = rows + 2;
  g.width = whole.out_w + 2;
  g.group = 1;
  return g;
}

static size_t scratch_in_floats(const kernels::WinogradGeo& g) { return size_t(g.channels) * g.height * g.width; }

// What a step of exactly `rows` rows holds at its peak, with `w` floats of streamed weights. The
// output goes straight into the output window (winograd_rows), so no scratch for it.
static size_t step_floats(const kernels::WinogradGeo& whole, int rows, bool held, int threads, size_t w) {
  const kernels::WinogradGeo g = winograd_rows_geo(whole, rows);
  if (held) return scratch_in_floats(g) + kernels::winograd_panel_workspace_floats(g, threads);
  return kernels::winograd_input_workspace_floats(g, threads) + std::max(scratch_in_floats(g), w);
}

size_t winograd_rows_workspace_floats(const kernels::WinogradGeo& whole, int rows, bool held, int threads,
                                      size_t weight_floats) {
  if (rows <= 0) return 0;
  // The micro-kernel (so the panel width and the workspace) depends on the step's tile count, not
  // always growing with it (winograd_kernel): the most over every step size up to `rows`.
  size_t most = 0;
  const int m = whole.m;
  for (int r = m; r < rows + m; r += m) most = std::max(most, step_floats(whole, std::min(r, rows), held, threads, weight_floats));
  return most - (held ? 0 : weight_floats);
}

Status winograd_rows_prepare(const ConvLayer& l, LayerIO& io, PreparedRows& out) {
  const kernels::WinogradGeo geo = l.winograd_geo();
  std::vector<float> factor;
  MDFI_RETURN_IF_ERROR(l.fold_head(io, *io.mem, &out.bias, &factor));
  auto u = Buffer::make(*io.mem, kernels::winograd_u_floats(geo, l.filters), MemCategory::kWeights, "Winograd conv weights");
  if (!u.ok()) return u.status();
  MDFI_RETURN_IF_ERROR(winograd_detail::prepare_block(l, io, geo, 0, l.filters, l.batch_normalize ? factor.data() : nullptr,
                                                      u->data()));
  out.weights = std::move(*u);
  return Status::Ok();
}

Status winograd_rows(const ConvLayer& l, LayerIO& io, const RowWindow& in, const RowWindow& out, int y0, int y1,
                     const PreparedRows* prepared) {
  if (y1 <= y0) return Status::Ok();
  const kernels::WinogradGeo whole = l.winograd_geo();
  const int m = whole.m;
  if (y0 % m || (y1 % m && y1 != l.out.h))
    return Status(ErrorKind::kInternal, "layer " + std::to_string(l.index) + ": Winograd band step [" +
                                            std::to_string(y0) + ", " + std::to_string(y1) + ") is not whole tile rows");
  const int rows = y1 - y0, threads = io.exec && io.exec->threads > 0 ? io.exec->threads : 1;
  kernels::WinogradGeo geo = winograd_rows_geo(whole, rows);
  // The output pass writes the step's rows where they lie in the output window: a filter's rows
  // [y0, y1) are consecutive there (RowWindow::row), its next filter's cap rows further on. The
  // same stores as into a scratch of the step, without the scratch and its copy.
  geo.out_plane = size_t(out.cap) * out.w;
  float* dst = out.row(0, y0);
  auto sin = Buffer::make(*io.mem, size_t(geo.channels) * geo.height * geo.width, MemCategory::kWorkspace,
                          "Winograd band input");
  if (!sin.ok()) return sin.status();
  // Scratch row i, column x is input row y0 - pad + i, column x - pad; +0.0 outside the input
  // (what the whole layer's tiles read there).
  const int W = l.in.w, pad = l.pad, sw = geo.width;
  const int lo = std::min(sw, pad), hi = std::min(sw, pad + W);
  for (int c = 0; c < geo.channels; ++c)
    for (int i = 0; i < geo.height; ++i) {
      float* d = sin->data() + (size_t(c) * geo.height + i) * sw;
      const int iy = y0 - pad + i;
      if (iy < 0 || iy >= l.in.h) {
        std::memset(d, 0, size_t(sw) * sizeof(float));
        continue;
      }
      std::memset(d, 0, size_t(lo) * sizeof(float));
      std::memcpy(d + lo, in.row(c, iy) + (lo - pad), size_t(hi - lo) * sizeof(float));
      std::memset(d + hi, 0, size_t(sw - hi) * sizeof(float));
    }
  if (prepared) {
    auto ws = Buffer::make(*io.mem, kernels::winograd_panel_workspace_floats(geo, threads), MemCategory::kWorkspace,
                           "Winograd tile panels");
    if (!ws.ok()) return ws.status();
    kernels::winograd_conv_whole_weights(geo, sin->data(), prepared->weights.data(), prepared->bias.data(), l.activation,
                                         dst, threads, ws->data());
  } else {
    // V first, from the scratch input, which then goes before the weights and the output come.
    auto ws = Buffer::make(*io.mem, kernels::winograd_input_workspace_floats(geo, threads), MemCategory::kWorkspace,
                           "Winograd input tiles");
    if (!ws.ok()) return ws.status();
    kernels::winograd_transform_input(geo, sin->data(), ws->data(), threads);
    sin->reset();
    Buffer bias;
    std::vector<float> factor;
    MDFI_RETURN_IF_ERROR(l.fold_head(io, *io.mem, &bias, &factor));
    MDFI_RETURN_IF_ERROR(winograd_detail::multiply_streamed(l, io, geo, l.batch_normalize ? factor.data() : nullptr,
                                                            bias.data(), dst, ws->data()));
  }
  return Status::Ok();
}

}  // namespace mdfi
