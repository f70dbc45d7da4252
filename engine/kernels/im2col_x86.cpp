#if defined(__x86_64__) || defined(__i386__)
#include "im2col_x86.h"

#include <immintrin.h>

#include <algorithm>
#include <cstddef>

#include "cpu_features.h"
#include "target_region.h"

namespace mdfi::kernels {

namespace {

// A panel's rows in im2col order: tap column kx, then tap row ky, then channel.
struct TapCursor {
  int k, kx, ky, ch;
  TapCursor(int k, int k0) : k(k), kx(k0 % k), ky(k0 / k % k), ch(k0 / k / k) {}
  void next() {
    if (++kx == k) {
      kx = 0;
      if (++ky == k) ky = 0, ++ch;
    }
  }
};

// A panel of one run with every tap inside its input row: calls copy(src, dst) for each row
// inside the image (nr floats from src, or every other float of 2 * nr), zeros(dst) above and
// below it.
template <typename Copy, typename Zeros>
inline void inside_rows(const Im2colImage& im, int k, int d, int iy0, int x0, int k0, int kc, int nr, float* panel,
                        Copy copy, Zeros zeros) {
  for (TapCursor t(k, k0); kc > 0; --kc, t.next(), panel += nr) {
    const int iy = iy0 + t.ky * d;
    if (unsigned(iy) >= unsigned(im.h)) zeros(panel);
    else copy(im.row(t.ch, iy) + x0 + t.kx * d, panel);
  }
}

}  // namespace

MDFI_TARGET_BEGIN("avx2")
namespace {
template <int S>
void inside_avx2(const Im2colImage& im, int k, int d, int iy0, int x0, int k0, int kc, int nr, float* panel) {
  inside_rows(
      im, k, d, iy0, x0, k0, kc, nr, panel,
      [nr](const float* src, float* dst) {
        for (int j = 0; j < nr; j += 8) {
          // The row's next panel (runs_avx512's comment says why); a 64-byte line per 16 floats.
          if ((S * j) % 16 == 0) _mm_prefetch(reinterpret_cast<const char*>(src + S * (j + nr)), _MM_HINT_T0);
          if (S == 1) {
            _mm256_storeu_ps(dst + j, _mm256_loadu_ps(src + j));
          } else {
            // Even floats of 16: shuffle picks 0 2 of each 128-bit half of both, permute orders them.
            const __m256 a = _mm256_loadu_ps(src + 2 * j), b = _mm256_loadu_ps(src + 2 * j + 8);
            const __m256 even = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
            _mm256_storeu_ps(dst + j, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(even), 0xD8)));
          }
        }
      },
      [nr](float* dst) {
        for (int j = 0; j < nr; j += 8) _mm256_storeu_ps(dst + j, _mm256_setzero_ps());
      });
}
}  // namespace
MDFI_TARGET_END()

MDFI_TARGET_BEGIN("avx512f")
namespace {
constexpr int kMaxRuns = 4;    // a 32-wide panel of output rows 11 or more wide
constexpr int kMaxTaps = 7;    // kernel columns
constexpr int kMaxChunks = 4;  // 16-column chunks of a panel: nr <= 64

// Lanes f < 16 with from + f in [lo, hi), as a mask.
inline __mmask16 lanes_within(int from, int lo, int hi) {
  lo = std::max(lo - from, 0), hi = std::min(hi - from, 16);
  return hi > lo ? __mmask16(((1u << hi) - 1) & ~((1u << lo) - 1)) : __mmask16(0);
}

// inside_avx2's panels in 16-float vectors: no masks to make, which on a first layer's few rows
// per panel (3 channels: 27) cost more than the copies (yolov4-tiny's layer 0, device Xeon, 1
// thread: 1.16 ms with this path, 1.33 when runs_avx512 took every panel). Each row's next
// panel is prefetched, as runs_avx512 does and for the same reason (its comment).
template <int S>
void inside_avx512(const Im2colImage& im, int k, int d, int iy0, int x0, int k0, int kc, int nr, float* panel) {
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  inside_rows(
      im, k, d, iy0, x0, k0, kc, nr, panel,
      [nr, even](const float* src, float* dst) {
        for (int j = 0; j < nr; j += 16) {
          const float* next = src + S * (j + nr);
          _mm_prefetch(reinterpret_cast<const char*>(next), _MM_HINT_T0);
          if (S == 2) _mm_prefetch(reinterpret_cast<const char*>(next + 16), _MM_HINT_T0);
          if (S == 1) _mm512_storeu_ps(dst + j, _mm512_loadu_ps(src + j));
          else
            _mm512_storeu_ps(dst + j, _mm512_permutex2var_ps(_mm512_loadu_ps(src + 2 * j), even,
                                                             _mm512_loadu_ps(src + 2 * j + 16)));
        }
      },
      [nr](float* dst) {
        for (int j = 0; j < nr; j += 16) _mm512_storeu_ps(dst + j, _mm512_setzero_ps());
      });
}

// Each 16-column chunk of a panel row is put together in registers, every run overlapping it
// loaded under a mask into the lanes it owns (those of its columns whose input float lies inside
// its row), then stored whole: padding and columns past the matrix stay zero.
template <int S>
void runs_avx512(const Im2colImage& im, int k, int p, int d, const Im2colRun* runs, int n_runs, int k0, int kc,
                 int nr, float* panel) {
  const int n_chunks = nr / 16;
  // Per chunk c: the runs it overlaps; per run q: the input column under the chunk's lane 0, and
  // per tap column kx the masks of the first and (stride 2) second 16 floats loaded from there.
  int first[kMaxChunks], last[kMaxChunks], iy0[kMaxRuns], x0[kMaxRuns][kMaxChunks];
  __mmask16 lo[kMaxRuns][kMaxTaps][kMaxChunks], hi[kMaxRuns][kMaxTaps][kMaxChunks];
  for (int q = 0; q < n_runs; ++q) iy0[q] = runs[q].oy * S - p;
  for (int c = 0; c < n_chunks; ++c) {
    first[c] = n_runs, last[c] = -1;
    for (int q = 0; q < n_runs; ++q) {
      const Im2colRun& run = runs[q];
      if (run.j0 >= 16 * c + 16 || run.j0 + run.len <= 16 * c) continue;
      first[c] = std::min(first[c], q), last[c] = q;
      x0[q][c] = run.ox * S - p + (16 * c - run.j0) * S;
      // The floats loaded that belong to the run's columns, [run_lo, run_hi), and of those the
      // ones inside the row.
      const int run_lo = (run.j0 - 16 * c) * S, run_hi = (run.j0 + run.len - 16 * c) * S;
      for (int kx = 0; kx < k; ++kx) {
        const int x = x0[q][c] + kx * d, from = std::max(run_lo, -x), to = std::min(run_hi, im.w - x);
        lo[q][kx][c] = lanes_within(0, from, to);
        hi[q][kx][c] = S == 2 ? lanes_within(16, from, to) : __mmask16(0);
      }
    }
  }
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  for (TapCursor t(k, k0); kc > 0; --kc, t.next(), panel += nr) {
    for (int c = 0; c < n_chunks; ++c) {
      __m512 a = _mm512_setzero_ps(), b = _mm512_setzero_ps();
      for (int q = first[c]; q <= last[c]; ++q) {
        const int iy = iy0[q] + t.ky * d;
        if (unsigned(iy) >= unsigned(im.h)) continue;  // above or below the image: zeros
        // Where the run starts in the padding this points before the row: only lanes inside are read.
        const float* src = im.row(t.ch, iy) + (x0[q][c] + t.kx * d);
        // The next panel reads on from here. Without this the loads waited on memory: a panel's
        // rows come from every channel of the block (96 input rows for a 32-channel 3x3 layer),
        // more streams than the hardware prefetchers follow (yolov4-tiny's 32 -> 64 stride-2 layer,
        // 1 thread, Zen 4: 4.6-4.9 -> 4.1-4.2 ms).
        _mm_prefetch(reinterpret_cast<const char*>(src + nr * S), _MM_HINT_T0);
        if (S == 2) _mm_prefetch(reinterpret_cast<const char*>(src + nr * S + 16), _MM_HINT_T0);
        a = _mm512_mask_loadu_ps(a, lo[q][t.kx][c], src);
        if (S == 2) b = _mm512_mask_loadu_ps(b, hi[q][t.kx][c], src + 16);
      }
      _mm512_storeu_ps(panel + 16 * c, S == 2 ? _mm512_permutex2var_ps(a, even, b) : a);
    }
  }
}
}  // namespace
MDFI_TARGET_END()

bool im2col_panel_x86(const Im2colImage& im, int k, int s, int p, int d, const Im2colRun* runs, int n_runs, int k0,
                      int kc, int nr, int cols, float* panel) {
  if ((s != 1 && s != 2) || nr % 8 != 0 || n_runs < 1) return false;
  static const bool avx512 = cpu_has_avx512f(), avx2 = cpu_has_avx2_fma();
  const int x0 = runs[0].ox * s - p, iy0 = runs[0].oy * s - p;
  // One run with every tap inside the row; the last tap's last float read: stride 2 loads
  // pairs, so one past the last column it uses.
  const bool inside = n_runs == 1 && cols == nr && x0 >= 0 && x0 + (k - 1) * d + nr * s - 1 < im.w;
  if (avx512 && nr % 16 == 0 && inside) {
    if (s == 1) inside_avx512<1>(im, k, d, iy0, x0, k0, kc, nr, panel);
    else inside_avx512<2>(im, k, d, iy0, x0, k0, kc, nr, panel);
  } else if (avx512 && nr % 16 == 0 && nr <= 16 * kMaxChunks && n_runs <= kMaxRuns && k <= kMaxTaps) {
    if (s == 1) runs_avx512<1>(im, k, p, d, runs, n_runs, k0, kc, nr, panel);
    else runs_avx512<2>(im, k, p, d, runs, n_runs, k0, kc, nr, panel);
  } else if (avx2 && inside) {
    if (s == 1) inside_avx2<1>(im, k, d, iy0, x0, k0, kc, nr, panel);
    else inside_avx2<2>(im, k, d, iy0, x0, k0, kc, nr, panel);
  } else {
    return false;
  }
  return true;
}

}  // namespace mdfi::kernels
#endif
