#include "conv_direct.h"

#include <algorithm>
#include <cstdint>

#include "sgemm.h"

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace mdfi::kernels {

// Weights small enough that a whole layer's threads all read them (conv_direct: rows-first split).
constexpr size_t kRowsFirstWeightBytes = 32 * 1024;

bool direct_suits(const KernelInfo& kernel, int ksize, int stride, int dilation, int pad) {
  return kernel.direct && stride == 1 && dilation == 1 && ksize >= 2 && ksize <= 8 && pad >= 0 && pad < ksize;
}

double direct_cost_factor(int lanes, int ksize, int out_w) {
  const int computed = (out_w + lanes - 1) / lanes * lanes;
  return double(computed) / out_w * 3 / ksize;
}

bool direct_pays(int lanes, int ksize, int out_w, int filters, int block) {
  if (lanes <= 0 || out_w <= 0 || ksize <= 0 || block <= 0) return false;
  const int blocks = (filters + block - 1) / block;
  return 2.0 * filters * direct_cost_factor(lanes, ksize, out_w) < 100.0 * blocks;
}

// The portable kernel's (micro_generic.cpp) arithmetic: per output, acc += a * b in K order from
// zero with no contraction (the engine builds with -ffp-contract=off), a K block's sum stored
// (first block) or added to the output. Runs of 8 pixels, as its 8-column panels.
void direct_generic(const DirectJob& j) {
  constexpr int kL = 8;
  const int ks = j.ksize, kk = ks * ks;
  const int panels = (j.filters + kMR - 1) / kMR;
  for (int p = 0; p < panels; ++p) {
    const int rows = std::min(kMR, j.filters - p * kMR);
    const float* ap = j.a + size_t(p) * kMR * j.K;
    for (int k0 = 0; k0 < j.K; k0 += kKC) {
      const int kc = std::min(kKC, j.K - k0);
      for (int y = j.y0; y < j.y1; ++y)
        for (int x0 = 0; x0 < j.out_w; x0 += kL) {
          const int lanes = std::min(kL, j.out_w - x0);
          float acc[kMR][kL] = {};
          int ch = k0 / kk, ky = k0 % kk / ks, kx = k0 % ks;
          for (int k = k0; k < k0 + kc; ++k) {
            float b[kL];
            const int iy = y - j.pad + ky;
            const bool row_in = iy >= 0 && iy < j.h;
            const float* src = row_in ? j.in + size_t(ch) * j.in_channel + size_t(iy - j.in_lo) * j.w : nullptr;
            for (int l = 0; l < kL; ++l) {
              const int ix = x0 + l - j.pad + kx;
              b[l] = row_in && l < lanes && ix >= 0 && ix < j.w ? src[ix] : 0.f;
            }
            const float* ak = ap + size_t(k) * kMR;
            for (int i = 0; i < kMR; ++i)
              for (int l = 0; l < kL; ++l) acc[i][l] += ak[i] * b[l];
            if (++kx == ks) {
              kx = 0;
              if (++ky == ks) ky = 0, ++ch;
            }
          }
          for (int i = 0; i < rows; ++i) {
            float* c = j.out + size_t(p * kMR + i) * j.ldc + size_t(y - j.y0) * j.out_w + x0;
            for (int l = 0; l < lanes; ++l) c[l] = k0 == 0 ? acc[i][l] : c[l] + acc[i][l];
          }
        }
    }
  }
}

void conv_direct(const KernelInfo& kernel, DirectJob job, Activation act, int threads) {
  // As sgemm_packed: a finishing kernel applies bias and the activations it knows in registers.
  const bool fused = kernel.finish && (act == Activation::kLinear || act == Activation::kLeaky || act == Activation::kRelu);
  job.finish = fused;
  job.act = tile_act(act);
  const int panels = (job.filters + kMR - 1) / kMR, rows = job.y1 - job.y0;
  threads = std::max(1, threads);
  // Threads take a grid of filter panels by output rows: panels first (each thread then reads
  // its own weights), rows when there are fewer panels than threads. A layer of small weights (a
  // first layer's 3 channels) splits its rows alone: every thread reads all of them from cache
  // anyway, and the next layer (GEMM by columns, Winograd by tile panels, a pool by rows) splits
  // the map the same way, so each thread reads what its own core wrote (yolov3-tiny's layers 0
  // and 1, 2 threads, on the VM).
  const bool by_rows = size_t(job.filters) * job.K * sizeof(float) <= kRowsFirstWeightBytes && rows >= 4 * threads;
  const int pc = by_rows ? 1 : std::min(panels, threads), rc = std::max(1, std::min(rows, threads / std::max(1, pc)));
  auto part = [&](int tid) {
    if (tid >= pc * rc) return;
    const int pg = tid % pc, rg = tid / pc;
    const int p0 = int(int64_t(panels) * pg / pc), p1 = int(int64_t(panels) * (pg + 1) / pc);
    const int r0 = job.y0 + int(int64_t(rows) * rg / rc), r1 = job.y0 + int(int64_t(rows) * (rg + 1) / rc);
    if (p0 >= p1 || r0 >= r1) return;
    DirectJob j = job;
    j.a += size_t(p0) * kMR * job.K;
    j.filters = std::min(job.filters, p1 * kMR) - p0 * kMR;
    if (j.bias) j.bias += p0 * kMR;
    j.out += size_t(p0) * kMR * job.ldc + size_t(r0 - job.y0) * job.out_w;
    j.y0 = r0, j.y1 = r1;
    kernel.direct(j);
    if (fused) return;
    // sgemm_packed's epilogue after the last K block: bias, then the activation.
    const size_t n = size_t(r1 - r0) * job.out_w;
    for (int f = 0; f < j.filters; ++f) {
      float* c = j.out + size_t(f) * j.ldc;
      if (j.bias)
        for (size_t i = 0; i < n; ++i) c[i] += j.bias[f];
      activate_array(c, n, act);
    }
  };
#if defined(_OPENMP)
  if (pc * rc > 1) {
#pragma omp parallel num_threads(pc * rc)
    part(omp_get_thread_num());
    return;
  }
#endif
  for (int t = 0; t < pc * rc; ++t) part(t);
}

}  // namespace mdfi::kernels
