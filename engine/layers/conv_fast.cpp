// The optimised convolution path. Weights are read eight filter rows at a time, scaled by the
// folded batch-norm factor and packed straight into the SGEMM panel layout, so the packed copy
// replaces the raw one instead of sitting beside it. Bias and activation are applied while each
// output tile is still in cache.
#include <algorithm>
#include <cmath>
#include <vector>

#include "../kernels/depthwise.h"
#include "../kernels/sgemm.h"
#include "conv.h"

namespace mdfi {

// 1 / the batch-norm denominator of each compat (see batchnorm.h for the two forms).
static double bn_denominator(float var, Compat compat) {
  if (compat == Compat::kAlexeyAB) return std::sqrt(double(var) + .00001);
  return std::sqrt(double(var)) + double(.000001f);
}

size_t ConvLayer::fast_resident_param_floats() const {
  const size_t n = size_t(filters);
  const size_t head = n * (batch_normalize ? 4 : 1) + n;  // raw head + folded bias
  if (depthwise()) return head + weight_floats();
  const int K = (in.c / groups) * size * size;
  return head + size_t(groups) * kernels::packed_a_floats(filters / groups, K) + size_t(kernels::kMR) * K;
}

Status ConvLayer::forward_fast(LayerIO& io) const {
  const size_t n = size_t(filters);
  const int M = filters / groups, N = out.h * out.w, K = (in.c / groups) * size * size;
  const int threads = io.exec->threads > 0 ? io.exec->threads : 1;
  auto head = load_params(io, 0, n * (batch_normalize ? 4 : 1), "conv biases");
  if (!head.ok()) return head.status();
  // Folded: y = scale*(x - mean)/d + bias = (scale/d)*x + (bias - scale*mean/d).
  auto folded_bias = Buffer::make(*io.mem, n, MemCategory::kWeights, "conv folded bias");
  if (!folded_bias.ok()) return folded_bias.status();
  std::vector<float> factor(n, 1.f);
  for (size_t f = 0; f < n; ++f) {
    float b = head->data()[f];
    if (batch_normalize) {
      const float scale = head->data()[n + f], mean = head->data()[2 * n + f], var = head->data()[3 * n + f];
      const double d = bn_denominator(var, compat);
      factor[f] = float(scale / d);
      b = float(b - double(scale) * mean / d);
    }
    folded_bias->data()[f] = b;
  }
  head->reset();
  const size_t wbase = n * (batch_normalize ? 4 : 1);

  if (depthwise()) {
    auto w = load_params(io, wbase, weight_floats(), "conv weights");
    if (!w.ok()) return w.status();
    const int kk = size * size;
    for (size_t f = 0; f < n; ++f)
      for (int i = 0; i < kk; ++i) w->data()[f * kk + i] *= factor[f];
    kernels::depthwise_conv(io.inputs[0], in.c, in.h, in.w, w->data(), size, stride, pad, io.output, out.h, out.w,
                            folded_bias->data(), activation, threads);
    return Status::Ok();
  }

  const size_t per_group = kernels::packed_a_floats(M, K);
  auto packed = Buffer::make(*io.mem, per_group * groups, MemCategory::kWeights, "packed conv weights");
  if (!packed.ok()) return packed.status();
  {
    auto rows = Buffer::make(*io.mem, size_t(kernels::kMR) * K, MemCategory::kWeights, "conv weight rows");
    if (!rows.ok()) return rows.status();
    for (int g = 0; g < groups; ++g)
      for (int m0 = 0; m0 < M; m0 += kernels::kMR) {
        const int r = std::min(kernels::kMR, M - m0);
        const size_t f0 = size_t(g) * M + m0;
        MDFI_RETURN_IF_ERROR(io.params->read(wbase + f0 * K, rows->data(), size_t(r) * K));
        for (int i = 0; i < r; ++i) {
          float* row = rows->data() + size_t(i) * K;
          if (batch_normalize)
            for (int k = 0; k < K; ++k) row[k] *= factor[f0 + i];
        }
        kernels::pack_a_panel(r, K, rows->data(), K, packed->data() + g * per_group + size_t(m0) * K);
      }
  }
  auto ws = Buffer::make(*io.mem, kernels::sgemm_workspace_floats(K, N, threads), MemCategory::kWorkspace, "packed im2col block");
  if (!ws.ok()) return ws.status();
  const int cpg = in.c / groups;
  for (int g = 0; g < groups; ++g) {
    const float* im = io.inputs[0] + size_t(g) * cpg * in.h * in.w;
    float* C = io.output + size_t(g) * M * N;
    const float* A = packed->data() + g * per_group;
    const float* bias = folded_bias->data() + size_t(g) * M;
    if (direct_1x1()) {
      kernels::sgemm_packed(M, N, K, A, kernels::MatrixB(im, K, N), C, N, bias, activation, threads, ws->data());
    } else {
      kernels::sgemm_packed(M, N, K, A, kernels::Im2colB(im, cpg, in.h, in.w, size, stride, pad), C, N, bias,
                            activation, threads, ws->data());
    }
  }
  return Status::Ok();
}

}  // namespace mdfi
