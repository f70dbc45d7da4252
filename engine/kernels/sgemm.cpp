#include "sgemm.h"

#include "cpu_features.h"
#include "im2col_neon.h"
#include "im2col_x86.h"
#include "transpose_x86.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif
#if defined(__ARM_NEON) || defined(__aarch64__)
#include <arm_neon.h>
#endif

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace mdfi::kernels {

static std::vector<KernelInfo> available_kernels() {
  std::vector<KernelInfo> v;
#if defined(__x86_64__) || defined(__i386__)
  if (cpu_has_avx512f()) v.push_back(micro_avx512());
  if (cpu_has_avx2_fma()) v.push_back(micro_avx2());
  if (cpu_has_avx2_fma()) v.push_back(micro_avx2_narrow());  // Winograd's few-tile layers (winograd.cpp)
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

#if defined(__x86_64__) || defined(__i386__)
// Whole panels, eight k at a time: eight row vectors (scaled), an 8x8 transpose, eight stores.
__attribute__((target("avx2"))) static int pack_a_full_avx2(int K, const float* A, int lda, const float* scale,
                                                            float* panel) {
  __m256 f[kMR];
  for (int i = 0; i < kMR; ++i) f[i] = _mm256_set1_ps(scale ? scale[i] : 1.f);
  int k = 0;
  for (; k + 8 <= K; k += 8) {
    __m256 r[kMR];
    for (int i = 0; i < kMR; ++i) {
      r[i] = _mm256_loadu_ps(A + size_t(i) * lda + k);
      if (scale) r[i] = _mm256_mul_ps(r[i], f[i]);
    }
    __m256 col[kMR];
    transpose8x8_ps(r, col);  // col[j]: k + j of the eight rows
    float* d = panel + size_t(k) * kMR;
    for (int j = 0; j < 8; ++j) _mm256_storeu_ps(d + j * kMR, col[j]);
  }
  return k;
}


#endif

#if defined(__ARM_NEON) || defined(__aarch64__)
// Whole panels, four k at a time: eight row vectors (scaled: the same product as the scalar
// loop), two 4x4 transposes, eight stores. The weights are packed again for every image when
// they stream, so the scalar loop's five instructions per float were counted once per inference.
static int pack_a_full_neon(int K, const float* A, int lda, const float* scale, float* panel) {
  int k = 0;
  for (; k + 4 <= K; k += 4) {
    float32x4_t r[kMR];
    for (int i = 0; i < kMR; ++i) {
      r[i] = vld1q_f32(A + size_t(i) * lda + k);
      if (scale) r[i] = vmulq_n_f32(r[i], scale[i]);
    }
    float* d = panel + size_t(k) * kMR;
    for (int h = 0; h < 2; ++h) {  // rows 0-3, then 4-7: lanes h*4.. of each k's eight
      const float32x4x2_t p = vtrnq_f32(r[4 * h], r[4 * h + 1]), q = vtrnq_f32(r[4 * h + 2], r[4 * h + 3]);
      vst1q_f32(d + 0 * kMR + 4 * h, vcombine_f32(vget_low_f32(p.val[0]), vget_low_f32(q.val[0])));
      vst1q_f32(d + 1 * kMR + 4 * h, vcombine_f32(vget_low_f32(p.val[1]), vget_low_f32(q.val[1])));
      vst1q_f32(d + 2 * kMR + 4 * h, vcombine_f32(vget_high_f32(p.val[0]), vget_high_f32(q.val[0])));
      vst1q_f32(d + 3 * kMR + 4 * h, vcombine_f32(vget_high_f32(p.val[1]), vget_high_f32(q.val[1])));
    }
  }
  return k;
}
#endif

void pack_a_panel(int rows, int K, const float* A, int lda, float* panel, const float* scale) {
  int k = 0;
#if defined(__x86_64__) || defined(__i386__)
  if (rows == kMR && cpu_has_avx2_fma()) k = pack_a_full_avx2(K, A, lda, scale, panel);
#endif
#if defined(__aarch64__)
  if (rows == kMR) k = pack_a_full_neon(K, A, lda, scale, panel);
#elif defined(__ARM_NEON)
  // ARMv7 NEON flushes denormal products to zero, the VFP loop below does not: scaled rows there.
  if (rows == kMR && !scale) k = pack_a_full_neon(K, A, lda, scale, panel);
#endif
  for (; k < K; ++k)
    for (int i = 0; i < kMR; ++i)
      panel[size_t(k) * kMR + i] = i < rows ? (scale ? A[size_t(i) * lda + k] * scale[i] : A[size_t(i) * lda + k]) : 0.f;
}

void MatrixB::pack(int k0, int kc, int n0, int nc, int nr, float* dst) const {
  for (int p = 0; p < nc; p += nr) {
    const int cols = std::min(nr, N_ - (n0 + p));
    float* panel = dst + size_t(p) * kc;
    if (cols == 12 && nr == 12) {  // NEON's whole panels: a fixed-size copy, not a memcpy call per row
      for (int r = 0; r < kc; ++r) {
        const float* src = b_ + size_t(k0 + r) * ld_ + n0 + p;
        float* d = panel + size_t(r) * 12;
        std::memcpy(d, src, 12 * sizeof(float));  // constant size: inlined as three vector moves
      }
      continue;
    }
    for (int r = 0; r < kc; ++r) {
      const float* src = b_ + size_t(k0 + r) * ld_ + n0 + p;
      float* d = panel + size_t(r) * nr;
      std::memcpy(d, src, size_t(std::max(cols, 0)) * sizeof(float));
      for (int j = std::max(cols, 0); j < nr; ++j) d[j] = 0.f;
    }
  }
}

Im2colB::Im2colB(const float* im, int channels, int height, int width, int ksize, int stride, int pad, int dilation)
    : im_(im), c_(channels), h_(height), w_(width), k_(ksize), s_(stride), p_(pad), d_(dilation) {
  const int span = dilation * (ksize - 1) + 1;
  out_w_ = (width + 2 * pad - span) / stride + 1;
  const int out_h = (height + 2 * pad - span) / stride + 1;
  n_ = out_w_ * out_h;
}

// Columns of a panel are consecutive output pixels, so they fall into a few runs along output
// rows; within a run, one row of the im2col matrix reads input pixels at a fixed stride. Each run
// is copied with its padding clipped once at the ends (a memcpy for stride 1) instead of a bounds
// check per element: this pass touches every element of B and used to cost as much as the GEMM
// on the small, thin layers.
void im2col_row_run(const float* row, int ix0, int stride, int width, int len, float* out) {
  // Elements j in [lo, hi) read inside the row; the rest is padding.
  const int lo = ix0 >= 0 ? 0 : std::min(len, (-ix0 + stride - 1) / stride);
  const int hi = ix0 >= width ? 0 : std::min(len, (width - 1 - ix0) / stride + 1);
  int j = 0;
  for (; j < lo; ++j) out[j] = 0.f;
  if (stride == 1) {
    if (hi > j) std::memcpy(out + j, row + ix0 + j, size_t(hi - j) * sizeof(float));
    j = std::max(j, hi);
  } else if (stride == 2) {
    // A constant stride the compiler vectorises (loads and shuffles): the general loop below runs
    // scalar, a third of a 3x3 stride-2 layer with few filters (yolov3's first).
    const float* from = row + ix0;
    for (; j < hi; ++j) out[j] = from[2 * j];
  } else {
    for (; j < hi; ++j) out[j] = row[ix0 + j * stride];
  }
  for (; j < len; ++j) out[j] = 0.f;
}

void Im2colB::pack(int k0, int kc, int n0, int nc, int nr, float* dst) const {
  Im2colRun runs[65];  // nr <= 64 columns, each run at least one column
  for (int p = 0; p < nc; p += nr) {
    const int cols = std::max(0, std::min(nr, n_ - (n0 + p)));
    int n_runs = 0;
    for (int j = 0; j < cols;) {
      const int col = n0 + p + j, oy = col / out_w_, ox = col % out_w_;
      const int len = std::min(cols - j, out_w_ - ox);
      runs[n_runs++] = {j, len, oy, ox};
      j += len;
    }
    float* panel = dst + size_t(p) * kc;
    if (im2col_panel_x86({im_, size_t(h_) * w_, 0, h_, w_}, k_, s_, p_, d_, runs, n_runs, k0, kc, nr, cols, panel) ||
        (n_runs == 1 && cols == nr &&
         im2col_panel_inside(im_, h_, w_, k_, s_, p_, d_, runs[0].oy, runs[0].ox, k0, kc, nr, panel)))
      continue;
    int kx = k0 % k_, ky = (k0 / k_) % k_, ch = k0 / k_ / k_;
    for (int r = 0; r < kc; ++r) {
      const float* plane = im_ + size_t(ch) * h_ * w_;
      float* d = panel + size_t(r) * nr;
      for (int q = 0; q < n_runs; ++q) {
        const Im2colRun& run = runs[q];
        float* out = d + run.j0;
        const int iy = run.oy * s_ - p_ + ky * d_;
        if (unsigned(iy) >= unsigned(h_)) {
          std::memset(out, 0, size_t(run.len) * sizeof(float));
          continue;
        }
        const float* src = plane + size_t(iy) * w_;
        const int ix0 = run.ox * s_ - p_ + kx * d_;  // input column of the run's first element
        if (!im2col_run_inside(src, ix0, s_, w_, run.len, out)) im2col_row_run(src, ix0, s_, w_, run.len, out);
      }
      for (int j = cols; j < nr; ++j) d[j] = 0.f;
      if (++kx == k_) {
        kx = 0;
        if (++ky == k_) ky = 0, ++ch;
      }
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

// Small images under many filters (YOLOv3's 13x13 layers: 169 columns, 19 MB of packed weights)
// split the other way: each thread takes a range of row panels over all the columns, packing the
// (small) B blocks itself, so the weights pass through the caches once instead of once per thread.
bool split_by_rows(int M, int N, int threads) {
  return threads > 1 && M >= N && (M + kMR - 1) / kMR >= threads;
}

size_t sgemm_workspace_floats(int K, int N, int threads) {
  threads = std::max(1, threads);
  return per_thread_floats(K, N, threads, active_kernel().nr) * size_t(threads);
}

// Whether B is read in place (direct) rather than packed. Each in-place panel reads kc rows N
// floats apart, 128 bytes from each: on maps up to 64x64 that measured faster than copying, and
// so it did on bigger maps under at most two row panels (B is then used once or twice, so the
// copy is pure overhead); a 160x160 map under 48 filters was slower in place (Nano's layer 3:
// 0.16 ms packed, 0.18 in place, 1 thread).
static bool read_b_in_place(int M, int N) { return N <= 4096 || M <= 2 * kMR; }

void sgemm_packed(int M, int N, int K, const float* a_packed, const BSource& b, float* C, int ldc, const float* bias,
                  Activation act, int threads, float* workspace, const KernelInfo* kernel) {
  const KernelInfo& kern = kernel ? *kernel : active_kernel();
  const int nr = kern.nr;
  threads = std::max(1, threads);
  const int m_panels = (M + kMR - 1) / kMR;
  const int panels = (N + nr - 1) / nr;
  const size_t slice = per_thread_floats(K, N, threads, nr);
  const bool by_rows = split_by_rows(M, N, threads);
  const int nc_max = block_cols(nr);
  // The finishing kernel applies bias and activation in registers when it knows the activation.
  const bool fused = kern.finish && (act == Activation::kLinear || act == Activation::kLeaky || act == Activation::kRelu);
  const TileAct tile_act = kernels::tile_act(act);
  // Thread tid of nt. One thread runs it here: an OpenMP region, even of one thread, costs
  // 1.5-2 us, which the thousands of GEMMs of a --max-mem schedule's bands pay each.
  auto run = [&](const int tid, const int nt) {
    // By rows: this thread's row panels over all the columns; else its columns, every row panel.
    const int per = by_rows ? panels : (panels + nt - 1) / nt;
    const int c_begin = by_rows ? 0 : std::min(N, tid * per * nr);
    const int c_end = by_rows ? N : std::min(N, (tid + 1) * per * nr);
    const int m_per = by_rows ? (m_panels + nt - 1) / nt : m_panels;
    const int mp_begin = by_rows ? std::min(m_panels, tid * m_per) : 0;
    const int mp_end = std::min(m_panels, mp_begin + m_per);
    float* ws = workspace + slice * size_t(tid);
    float edge[kMR * 64];  // partial tiles are computed here, then the valid part is copied
    float edge_bias[kMR];  // bias of a partial row panel, zero past M
    // Packs B's block (k0.., n0..) and multiplies this thread's row panels by it.
    auto block = [&](int n0, int nc, int k0) {
      const int n_panels = (nc + nr - 1) / nr;
      const int kc = std::min(kKC, K - k0);
      const bool first = k0 == 0, last = k0 + kc == K;
      const bool finish_here = last && fused;
      // A plain matrix B (1x1 convolutions) is read where it lies, whole panels at least: no copy.
      int ldb = 0;
      const float* direct = kern.strided && read_b_in_place(M, N) ? b.rows(k0, &ldb) : nullptr;
      const int direct_end = direct ? N / nr * nr : 0;  // columns of whole panels
      for (int p = 0; p < n_panels; ++p)
        if (n0 + p * nr + nr > direct_end)
          b.pack(k0, kc, n0 + p * nr, std::min(nr, nc - p * nr), nr, ws + size_t(p) * nr * kc);
      for (int mp = mp_begin; mp < mp_end; ++mp) {
        const int m0 = mp * kMR, rows = std::min(kMR, M - m0);
        const float* a = a_packed + size_t(mp) * kMR * K + size_t(k0) * kMR;
#if defined(__x86_64__) || defined(__i386__)
        // The next row panel's K block lies kMR * K floats on: a new stream each panel, which the
        // hardware prefetchers pick up only after its first misses. Kept weights come from memory
        // (yolov3's 13x13 layers: 19 MB each); asked for here, it arrives while this panel runs.
        if (mp + 1 < mp_end) {
          const char* next = reinterpret_cast<const char*>(a + size_t(kMR) * K);
          for (size_t off = 0; off < size_t(kc) * kMR * sizeof(float); off += 64) _mm_prefetch(next + off, _MM_HINT_T0);
        }
#endif
        const float* tile_bias = bias ? bias + m0 : nullptr;
        if (bias && rows < kMR) {
          for (int i = 0; i < kMR; ++i) edge_bias[i] = i < rows ? bias[m0 + i] : 0.f;
          tile_bias = edge_bias;
        }
        for (int np = 0; np < n_panels; ++np) {
          const int c0 = n0 + np * nr, cols = std::min(nr, c_end - c0);  // never past this thread's range
          const bool in_place = c0 + nr <= direct_end;
          const float* bp = in_place ? direct + c0 : ws + size_t(np) * nr * kc;
          float* c = C + size_t(m0) * ldc + c0;
          const bool whole = rows == kMR && cols == nr;
          float* dst = whole ? c : edge;
          const int ldd = whole ? ldc : nr;
          if (!whole && !first)
            for (int i = 0; i < rows; ++i) std::memcpy(edge + i * nr, c + size_t(i) * ldc, cols * sizeof(float));
          if (in_place) kern.strided(kc, a, bp, ldb, dst, ldd, first, finish_here, tile_bias, tile_act);
          else if (finish_here) kern.finish(kc, a, bp, dst, ldd, first, tile_bias, tile_act);
          else kern.fn(kc, a, bp, dst, ldd, first);
          if (!whole)
            for (int i = 0; i < rows; ++i) std::memcpy(c + size_t(i) * ldc, edge + i * nr, cols * sizeof(float));
          if (last && !fused) {
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
    };
    if (!by_rows) {
      for (int n0 = c_begin; n0 < c_end; n0 += nc_max)
        for (int k0 = 0; k0 < K; k0 += kKC) block(n0, std::min(nc_max, c_end - n0), k0);
    } else if (mp_begin < mp_end) {
      // K blocks outermost: this thread's rows of one K block of A stay in cache while every
      // column block passes, so the weights are read from memory once. Each tile still sums its
      // K blocks in order with the same kernel calls, so C is bit-identical to the column split.
      const int ncb = int(slice / size_t(std::min(K, kKC)));  // the columns this thread's slice holds
      for (int k0 = 0; k0 < K; k0 += kKC)
        for (int n0 = 0; n0 < N; n0 += ncb) block(n0, std::min(ncb, N - n0), k0);
    }
  };
  if (threads == 1) {
    run(0, 1);
    return;
  }
#pragma omp parallel num_threads(threads)
  {
#if defined(_OPENMP)
    run(omp_get_thread_num(), omp_get_num_threads());
#else
    run(0, 1);
#endif
  }
}

}  // namespace mdfi::kernels
