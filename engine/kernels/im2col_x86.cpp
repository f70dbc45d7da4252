#if defined(__x86_64__) || defined(__i386__)
#include "im2col_x86.h"

#include <immintrin.h>

#include <cstddef>

#include "cpu_features.h"
#include "target_region.h"

namespace mdfi::kernels {

namespace {

// Walks the panel's rows (channel, ky, kx in im2col order) and calls copy(src, dst) for each row
// inside the image, zeros(dst) above and below it.
template <typename Copy, typename Zeros>
inline void panel_rows(const float* im, int h, int w, int k, int d, int iy0, int x0, int k0, int kc, int nr,
                       float* panel, Copy copy, Zeros zeros) {
  const size_t plane_size = size_t(h) * w;
  int kx = k0 % k, ky = (k0 / k) % k;
  const float* plane = im + size_t(k0 / k / k) * plane_size;
  int iy = iy0 + ky * d;
  for (int r = 0; r < kc; ++r, panel += nr) {
    if (unsigned(iy) >= unsigned(h)) zeros(panel);
    else copy(plane + size_t(iy) * w + x0 + kx * d, panel);
    if (++kx == k) {
      kx = 0;
      iy += d;
      if (++ky == k) ky = 0, iy = iy0, plane += plane_size;
    }
  }
}

}  // namespace

MDFI_TARGET_BEGIN("avx2")
namespace {
template <int S>
void rows_avx2(const float* im, int h, int w, int k, int d, int iy0, int x0, int k0, int kc, int nr, float* panel) {
  panel_rows(
      im, h, w, k, d, iy0, x0, k0, kc, nr, panel,
      [nr](const float* src, float* dst) {
        for (int j = 0; j < nr; j += 8) {
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
template <int S>
void rows_avx512(const float* im, int h, int w, int k, int d, int iy0, int x0, int k0, int kc, int nr, float* panel) {
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  panel_rows(
      im, h, w, k, d, iy0, x0, k0, kc, nr, panel,
      [nr, even](const float* src, float* dst) {
        for (int j = 0; j < nr; j += 16) {
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
}  // namespace
MDFI_TARGET_END()

bool im2col_panel_inside_x86(const float* im, int h, int w, int k, int s, int p, int d, int oy, int ox, int k0,
                             int kc, int nr, float* panel) {
  if ((s != 1 && s != 2) || nr % 8 != 0) return false;
  const int x0 = ox * s - p;
  // The last tap's last float read: stride 2 loads pairs, so one past the last column it uses.
  if (x0 < 0 || x0 + (k - 1) * d + nr * s - 1 >= w) return false;
  static const bool avx512 = cpu_has_avx512f(), avx2 = cpu_has_avx2_fma();
  const int iy0 = oy * s - p;
  if (avx512 && nr % 16 == 0) {
    if (s == 1) rows_avx512<1>(im, h, w, k, d, iy0, x0, k0, kc, nr, panel);
    else rows_avx512<2>(im, h, w, k, d, iy0, x0, k0, kc, nr, panel);
  } else if (avx2) {
    if (s == 1) rows_avx2<1>(im, h, w, k, d, iy0, x0, k0, kc, nr, panel);
    else rows_avx2<2>(im, h, w, k, d, iy0, x0, k0, kc, nr, panel);
  } else {
    return false;
  }
  return true;
}

}  // namespace mdfi::kernels
#endif
