#include "sgemm.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace mdfi::kernels {

static std::vector<KernelInfo> available_kernels() {
  std::vector<KernelInfo> v;
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) v.push_back(micro_avx512());
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) v.push_back(micro_avx2());
#endif
#if defined(__ARM_NEON) || defined(__aarch64__)
  v.push_back(micro_neon());
#endif
  v.push_back(micro_generic());
  return v;
}

const KernelInfo* find_kernel(const char* name) {
  static const std::vector<KernelInfo> kernels = available_kernels();
  for (const KernelInfo& k : kernels)
    if (std::strcmp(k.name, name) == 0) return &k;
  return nullptr;
}

const KernelInfo& active_kernel() {
  static const KernelInfo chosen = [] {
    const char* forced = std::getenv("MDFI_KERNEL");
    if (forced && *forced)
      if (const KernelInfo* k = find_kernel(forced)) return *k;
    return available_kernels().front();
  }();
  return chosen;
}

size_t packed_a_floats(int M, int K) { return size_t((M + kMR - 1) / kMR) * kMR * size_t(K); }

void pack_a_panel(int rows, int K, const float* A, int lda, float* panel) {
  for (int k = 0; k < K; ++k)
    for (int i = 0; i < kMR; ++i) panel[size_t(k) * kMR + i] = i < rows ? A[size_t(i) * lda + k] : 0.f;
}

void MatrixB::pack(int k0, int kc, int n0, int nc, int nr, float* dst) const {
  for (int p = 0; p < nc; p += nr) {
    const int cols = std::min(nr, N_ - (n0 + p));
    float* panel = dst + size_t(p) * kc;
    for (int r = 0; r < kc; ++r) {
      const float* src = b_ + size_t(k0 + r) * N_ + n0 + p;
      float* d = panel + size_t(r) * nr;
      std::memcpy(d, src, size_t(std::max(cols, 0)) * sizeof(float));
      for (int j = std::max(cols, 0); j < nr; ++j) d[j] = 0.f;
    }
  }
}

Im2colB::Im2colB(const float* im, int channels, int height, int width, int ksize, int stride, int pad)
    : im_(im), c_(channels), h_(height), w_(width), k_(ksize), s_(stride), p_(pad) {
  out_w_ = (width + 2 * pad - ksize) / stride + 1;
  const int out_h = (height + 2 * pad - ksize) / stride + 1;
  n_ = out_w_ * out_h;
}

void Im2colB::pack(int k0, int kc, int n0, int nc, int nr, float* dst) const {
  int by[64], bx[64];  // top-left input pixel of each column in the panel (nr <= 64)
  for (int p = 0; p < nc; p += nr) {
    const int cols = std::max(0, std::min(nr, n_ - (n0 + p)));
    for (int j = 0; j < cols; ++j) {
      const int col = n0 + p + j;
      by[j] = (col / out_w_) * s_ - p_;
      bx[j] = (col % out_w_) * s_ - p_;
    }
    float* panel = dst + size_t(p) * kc;
    for (int r = 0; r < kc; ++r) {
      const int row = k0 + r;
      const int kx = row % k_, ky = (row / k_) % k_, ch = row / k_ / k_;
      const float* plane = im_ + size_t(ch) * h_ * w_;
      float* d = panel + size_t(r) * nr;
      for (int j = 0; j < cols; ++j) {
        const int iy = by[j] + ky, ix = bx[j] + kx;
        d[j] = (unsigned(iy) < unsigned(h_) && unsigned(ix) < unsigned(w_)) ? plane[size_t(iy) * w_ + ix] : 0.f;
      }
      for (int j = cols; j < nr; ++j) d[j] = 0.f;
    }
  }
}

int planned_threads() {
#if defined(_OPENMP)
  return omp_get_max_threads();
#else
  return 1;
#endif
}

// Each thread owns a contiguous range of whole NR panels of C's columns: it packs its own B
// blocks into its own slice of the workspace and computes every row panel for them, so the
// threads never wait for each other inside a GEMM. (A shared B block needs two barriers per
// K block; on a loaded machine every barrier waits for a descheduled thread's time slice.)
// Column blocks hold whole panels: kNC rounded down to a multiple of NR (NEON's NR is 12).
static int block_cols(int nr) { return std::max(nr, kNC / nr * nr); }

static size_t per_thread_floats(int K, int N, int threads, int nr) {
  const int panels = (N + nr - 1) / nr;
  const int cols = ((panels + threads - 1) / threads) * nr;
  return size_t(std::min(K, kKC)) * size_t(std::min(cols, block_cols(nr)));
}

size_t sgemm_workspace_floats(int K, int N, int threads) {
  threads = std::max(1, threads);
  return per_thread_floats(K, N, threads, active_kernel().nr) * size_t(threads);
}

void sgemm_packed(int M, int N, int K, const float* a_packed, const BSource& b, float* C, int ldc, const float* bias,
                  Activation act, int threads, float* workspace, const KernelInfo* kernel) {
  const KernelInfo& kern = kernel ? *kernel : active_kernel();
  const int nr = kern.nr;
  threads = std::max(1, threads);
  const int m_panels = (M + kMR - 1) / kMR;
  const int panels = (N + nr - 1) / nr;
  const size_t slice = per_thread_floats(K, N, threads, nr);
  const int nc_max = block_cols(nr);
#pragma omp parallel num_threads(threads)
  {
#if defined(_OPENMP)
    const int tid = omp_get_thread_num(), nt = omp_get_num_threads();
#else
    const int tid = 0, nt = 1;
#endif
    const int per = (panels + nt - 1) / nt;
    const int c_begin = std::min(N, tid * per * nr), c_end = std::min(N, (tid + 1) * per * nr);
    float* ws = workspace + slice * size_t(tid);
    float edge[kMR * 64];  // partial tiles are computed here, then the valid part is copied
    for (int n0 = c_begin; n0 < c_end; n0 += nc_max) {
      const int nc = std::min(nc_max, c_end - n0);
      const int n_panels = (nc + nr - 1) / nr;
      for (int k0 = 0; k0 < K; k0 += kKC) {
        const int kc = std::min(kKC, K - k0);
        const bool first = k0 == 0, last = k0 + kc == K;
        for (int p = 0; p < n_panels; ++p)
          b.pack(k0, kc, n0 + p * nr, std::min(nr, nc - p * nr), nr, ws + size_t(p) * nr * kc);
        for (int mp = 0; mp < m_panels; ++mp) {
          const int m0 = mp * kMR, rows = std::min(kMR, M - m0);
          const float* a = a_packed + size_t(mp) * kMR * K + size_t(k0) * kMR;
          for (int np = 0; np < n_panels; ++np) {
            const int c0 = n0 + np * nr, cols = std::min(nr, c_end - c0);  // never past this thread's range
            const float* bp = ws + size_t(np) * nr * kc;
            float* c = C + size_t(m0) * ldc + c0;
            if (rows == kMR && cols == nr) {
              kern.fn(kc, a, bp, c, ldc, first);
            } else {
              if (!first)
                for (int i = 0; i < rows; ++i) std::memcpy(edge + i * nr, c + size_t(i) * ldc, cols * sizeof(float));
              kern.fn(kc, a, bp, edge, nr, first);
              for (int i = 0; i < rows; ++i) std::memcpy(c + size_t(i) * ldc, edge + i * nr, cols * sizeof(float));
            }
            if (last) {
              for (int i = 0; i < rows; ++i) {
                float* ci = c + size_t(i) * ldc;
                if (bias) {
                  const float bv = bias[m0 + i];
                  for (int j = 0; j < cols; ++j) ci[j] += bv;
                }
                activate_array(ci, size_t(cols), act);
              }
            }
          }
        }
      }
    }
  }
}

}  // namespace mdfi::kernels
