// Winograd's per-tile work with NEON intrinsics for F(4x4,3x3) and F(2x2,3x3) on aarch64
// (winograd.h). The portable code (winograd_tiles.inc) vectorises its transforms across tiles,
// but it gathers each tile's input patch and scatters its output block one float at a time, and
// those copies were most of its instructions. Here the gather is LD4 / LD2 (lanes = four tiles
// side by side: LD4 of a padded input row splits it into the four columns of four consecutive
// F(4x4) tiles, LD2 into two of F(2x2)'s) and the scatter ST4 / ST2, the transforms run on whole
// vectors, and the layouts (V, the product tiles) are the portable code's. The weight transform
// gathers four filters by 4x4 transposes. (F(2x2)'s passes had run the portable code: 20.9 M
// instructions per inference on yolov3-tiny's three 13x13 layers, 11.9 M here.)
//
// Same IEEE operations in the same order as Tf<M> (columns, then rows; no FMA), and the same
// bias and activation: the [winograd] tests check this variant against the generic one bit for
// bit.
#if defined(__aarch64__)
#include <arm_neon.h>

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "leaky_fast.h"
#include "winograd.h"

#if defined(__clang__)
#define MDFI_WINO_UNROLL _Pragma("unroll")
#else
#define MDFI_WINO_UNROLL _Pragma("GCC unroll 8")
#endif

namespace mdfi::kernels {
namespace wino_neon {
#include "winograd_tiles.inc"

// Tf<4>::in on six vectors (element k of four tiles each), written to r[0], r[rs], ...
inline void in4(const float32x4_t* d, int ds, float32x4_t* r, int rs) {
  const float32x4_t d0 = d[0], d1 = d[ds], d2 = d[2 * ds], d3 = d[3 * ds], d4 = d[4 * ds], d5 = d[5 * ds];
  r[0] = vaddq_f32(vsubq_f32(vmulq_n_f32(d0, 4.f), vmulq_n_f32(d2, 5.f)), d4);
  r[rs] = vaddq_f32(vaddq_f32(vmulq_n_f32(vaddq_f32(d1, d2), -4.f), d3), d4);
  r[2 * rs] = vaddq_f32(vsubq_f32(vmulq_n_f32(vsubq_f32(d1, d2), 4.f), d3), d4);
  r[3 * rs] = vaddq_f32(vsubq_f32(vmulq_n_f32(vsubq_f32(d3, d1), 2.f), d2), d4);
  r[4 * rs] = vaddq_f32(vsubq_f32(vmulq_n_f32(vsubq_f32(d1, d3), 2.f), d2), d4);
  r[5 * rs] = vaddq_f32(vsubq_f32(vmulq_n_f32(d1, 4.f), vmulq_n_f32(d3, 5.f)), d5);
}

// Tf<4>::out on six vectors.
inline void out4(const float32x4_t* m, int ms, float32x4_t* r, int rs) {
  const float32x4_t m0 = m[0], m1 = m[ms], m2 = m[2 * ms], m3 = m[3 * ms], m4 = m[4 * ms], m5 = m[5 * ms];
  const float32x4_t a = vaddq_f32(m1, m2), b = vsubq_f32(m1, m2), c = vaddq_f32(m3, m4), d = vsubq_f32(m3, m4);
  r[0] = vaddq_f32(vaddq_f32(m0, a), c);
  r[rs] = vaddq_f32(b, vmulq_n_f32(d, 2.f));
  r[2 * rs] = vaddq_f32(a, vmulq_n_f32(c, 4.f));
  r[3 * rs] = vaddq_f32(vaddq_f32(b, vmulq_n_f32(d, 8.f)), m5);
}

// Tf<2>::in on four vectors.
inline void in2(const float32x4_t* d, int ds, float32x4_t* r, int rs) {
  const float32x4_t d0 = d[0], d1 = d[ds], d2 = d[2 * ds], d3 = d[3 * ds];
  r[0] = vsubq_f32(d0, d2);
  r[rs] = vaddq_f32(d1, d2);
  r[2 * rs] = vsubq_f32(d2, d1);
  r[3 * rs] = vsubq_f32(d1, d3);
}

// Tf<2>::out on four vectors.
inline void out2(const float32x4_t* m, int ms, float32x4_t* r, int rs) {
  const float32x4_t m0 = m[0], m1 = m[ms], m2 = m[2 * ms], m3 = m[3 * ms];
  r[0] = vaddq_f32(vaddq_f32(m0, m1), m2);
  r[rs] = vsubq_f32(vsubq_f32(m1, m2), m3);
}

template <int M>
inline void in_vec(const float32x4_t* d, int ds, float32x4_t* r, int rs) {
  if constexpr (M == 4) in4(d, ds, r, rs);
  else in2(d, ds, r, rs);
}
template <int M>
inline void out_vec(const float32x4_t* m, int ms, float32x4_t* r, int rs) {
  if constexpr (M == 4) out4(m, ms, r, rs);
  else out2(m, ms, r, rs);
}

// + bias, then linear, leaky (Darknet's double product, on double lanes) or relu (x * (x > 0)).
inline float32x4_t finish(float32x4_t v, float b, Activation act) {
  v = vaddq_f32(v, vdupq_n_f32(b));
  if (act == Activation::kLinear) return v;
  const uint32x4_t positive = vcgtq_f32(v, vdupq_n_f32(0.f));
  if (act == Activation::kRelu)
    return vmulq_f32(v, vreinterpretq_f32_u32(vandq_u32(positive, vreinterpretq_u32_f32(vdupq_n_f32(1.f)))));
  const float64x2_t tenth = vdupq_n_f64(.1);
  const float32x2_t lo = vcvt_f32_f64(vmulq_f64(vcvt_f64_f32(vget_low_f32(v)), tenth));
  return vbslq_f32(positive, v, vcvt_high_f32_f64(lo, vmulq_f64(vcvt_high_f64_f32(v), tenth)));
}

// V of tile panel `panel`: transform_panel<M>'s layout and padding rules.
template <int M>
void input_tiles(const WinogradGeo& geo, const float* in, int panel, int nr, float* dst) {
  constexpr int n = M + 2;
  const int tx_count = geo.tiles_x(), tiles = geo.tiles(), C = geo.channels, H = geo.height, W = geo.width;
  const size_t plane = size_t(C) * nr;
  const int cols = std::max(0, std::min(nr, tiles - panel * nr));
  const int groups = (nr + 3) / 4;  // nr is a multiple of 4 (12 on aarch64)
  alignas(64) float d[n * n][kMaxNR];
  // Room past a run's last input: the second LD4 of its last group reads 16 floats from 4 past it.
  alignas(64) float rows[n][kMaxNR * M + n + 16];
  for (int k = 0; k < n * n; ++k)
    for (int j = cols; j < nr; ++j) d[k][j] = 0.f;
  for (int c = 0; c < C; ++c) {
    const float* src = in + size_t(c) * H * W;
    for (int j = 0; j < cols;) {
      const int t = panel * nr + j, ty = t / tx_count, tx = t % tx_count;
      const int len = std::min(cols - j, tx_count - tx);
      const int y0 = ty * M - geo.pad, x0 = tx * M - geo.pad, width = (len - 1) * M + n;
      const int lo = std::min(width, std::max(0, -x0)), hi = std::max(lo, std::min(width, W - x0));
      // A run whose rows lie inside the image (F(4x4): and the two floats the last LD4 reads past
      // them) is gathered where it lies; only runs over the padding are copied out first.
      const float* rp[n];
      const bool inside = y0 >= 0 && y0 + n <= H && x0 >= 0 && x0 + width + (M == 4 ? 2 : 0) <= W;
      for (int y = 0; y < n; ++y) {
        float* row = rows[y];
        rp[y] = inside ? src + size_t(y0 + y) * W + x0 : row;
        if (inside) continue;
        const int iy = y0 + y;
        if (iy < 0 || iy >= H) {
          std::memset(row, 0, size_t(width) * sizeof(float));
          continue;
        }
        for (int x = 0; x < lo; ++x) row[x] = 0.f;
        // Inline vector copy: a memcpy call per row of a run (some 50 floats) cost more than it.
        const float* from = src + size_t(iy) * W + x0;
        int x = lo;
        for (; x + 4 <= hi; x += 4) vst1q_f32(row + x, vld1q_f32(from + x));
        for (; x < hi; ++x) row[x] = from[x];
        for (x = hi; x < width; ++x) row[x] = 0.f;
      }
      // F(4x4): column x of tile q is row[4q + x]: LD4 at 4q gives x = 0..3 of tiles q..q+3,
      // LD4 at 4q + 4 gives x = 4, 5 (its first two lanes' sources are the next tiles' x = 0, 1).
      // F(2x2): row[2q + x]: LD2 at 2q gives x = 0, 1, LD2 at 2q + 2 gives x = 2, 3.
      int q = 0;
      for (; q + 4 <= len; q += 4)
        for (int y = 0; y < n; ++y) {
          float* dk = &d[y * n][j + q];
          if constexpr (M == 4) {
            const float32x4x4_t a = vld4q_f32(rp[y] + 4 * q), b = vld4q_f32(rp[y] + 4 * q + 4);
            vst1q_f32(dk, a.val[0]);
            vst1q_f32(dk + kMaxNR, a.val[1]);
            vst1q_f32(dk + 2 * kMaxNR, a.val[2]);
            vst1q_f32(dk + 3 * kMaxNR, a.val[3]);
            vst1q_f32(dk + 4 * kMaxNR, b.val[0]);
            vst1q_f32(dk + 5 * kMaxNR, b.val[1]);
          } else {
            const float32x4x2_t a = vld2q_f32(rp[y] + 2 * q), b = vld2q_f32(rp[y] + 2 * q + 2);
            vst1q_f32(dk, a.val[0]);
            vst1q_f32(dk + kMaxNR, a.val[1]);
            vst1q_f32(dk + 2 * kMaxNR, b.val[0]);
            vst1q_f32(dk + 3 * kMaxNR, b.val[1]);
          }
        }
      for (; q < len; ++q)
        for (int y = 0; y < n; ++y)
          for (int x = 0; x < n; ++x) d[y * n + x][j + q] = rp[y][q * M + x];
      j += len;
    }
    // Per four tiles: columns (over y), then rows (over x), each row of V stored as it is made,
    // straight into V (planes C * nr floats apart: with nr = 12 not a power of two, so these
    // stores do not all fall into one cache set, which is why the portable code buffers them).
    float* vc = dst + size_t(c) * nr;
    // Each column's n vectors are loaded as it is transformed: loading all n^2 into an array
    // first made GCC copy them through the stack in a loop (a fifth of this function).
    // The column pass's n^2 results go through a stack array, one column at a time (the empty
    // asm keeps GCC from hoisting every column's loads to the top, which had it spill the values
    // it loaded and the ones it made alike): yolov3-tiny's F(4x4) input pass 20.2 -> 19.0 M.
    for (int g = 0; g < groups; ++g) {
      alignas(16) float tvs[n * n][4];
      MDFI_WINO_UNROLL for (int x = 0; x < n; ++x) {
        float32x4_t col[n], r[n];
        MDFI_WINO_UNROLL for (int y = 0; y < n; ++y) col[y] = vld1q_f32(&d[y * n + x][4 * g]);
        in_vec<M>(col, 1, r, 1);
        MDFI_WINO_UNROLL for (int y = 0; y < n; ++y) vst1q_f32(tvs[y * n + x], r[y]);
        asm volatile("" ::: "memory");
      }
      float* vp = vc + 4 * g;
      MDFI_WINO_UNROLL for (int y = 0; y < n; ++y) {
        float32x4_t tv[n], vv[n];
        MDFI_WINO_UNROLL for (int x = 0; x < n; ++x) tv[x] = vld1q_f32(tvs[y * n + x]);
        in_vec<M>(tv, 1, vv, 1);
        MDFI_WINO_UNROLL for (int x = 0; x < n; ++x) {
          vst1q_f32(vp, vv[x]);
          vp += plane;
        }
      }
    }
  }
}

// Stores the first `w` (1..4) floats of v at p.
inline void store_first(float* p, float32x4_t v, int w) {
  if (w == 4) {
    vst1q_f32(p, v);
    return;
  }
  if (w >= 2) vst1_f32(p, vget_low_f32(v));
  if (w == 1) vst1q_lane_f32(p, v, 0);
  if (w == 3) vst1q_lane_f32(p + 2, v, 2);
}

// The products of one tile panel and one filter panel through the output transform, bias and
// activation into `out`: output_panel<M>'s layout and edge rules. Per four tiles: the column pass
// over all n columns, then the row pass one output row at a time. With a vector activation each
// output row of the four tiles is stored straight from the row pass: four tiles side by side in
// one tile row and inside the map by one ST4 / ST2; otherwise (a tile row ends among them, or a
// tile reaches past the map's right or bottom edge) transposed into each tile's row and stored
// tile by tile, as much of it as lies inside. Other activations go through the staging array `y`
// and the scatter below. (Before, every group went through `y`, and its 16 + 24 vectors live at
// once made GCC spill them and reload the leaky constants: 10.8 instructions per output pixel on
// yolov3-tiny's F(4x4) layers.)
// NR: the panel width when it is known at compile time (then the n^2 loads of a group are one base
// register and immediate offsets: with a run-time stride GCC kept n^2 pointers, most on the stack).
template <int M, int NR>
void output_tiles(const WinogradGeo& geo, const float* mbuf, int nr_arg, int f_first, int t_first, const float* bias,
                  Activation act, float* out) {
  constexpr int n = M + 2;
  const int nr = NR ? NR : nr_arg;
  const int rows = std::min(kMR, geo.filters - f_first), cols = std::min(nr, geo.tiles() - t_first);
  const int tx_count = geo.tiles_x(), OH = geo.out_h, OW = geo.out_w;
  const int groups = (cols + 3) / 4;
  const bool vector_act = act == Activation::kLinear || act == Activation::kLeaky || act == Activation::kRelu;
  // Per group: `side`: four tiles side by side in one tile row, all inside the map (one ST4 / ST2
  // per output row at `at[g][0]`); else per tile k: its first output pixel `at`, the columns
  // `wide` and rows `high` of it inside the map (0 for a tile past the panel's last).
  long at[kMaxNR / 4][4];
  int wide[kMaxNR / 4][4], high[kMaxNR / 4][4];
  bool side[kMaxNR / 4];
  for (int g = 0; g < groups && vector_act; ++g) {
    const int t = t_first + 4 * g, tx = t % tx_count, oy = (t / tx_count) * M;
    side[g] = 4 * g + 4 <= cols && tx + 4 <= tx_count && (tx + 4) * M <= OW && oy + M <= OH;
    for (int k = 0; k < 4; ++k) {
      const int tk = t + k, txk = tk % tx_count, oyk = (tk / tx_count) * M;
      const bool real = 4 * g + k < cols;
      at[g][k] = long(oyk) * OW + long(txk) * M;
      wide[g][k] = real ? std::min(M, OW - txk * M) : 0;
      high[g][k] = real ? std::min(M, OH - oyk) : 0;
    }
  }
  alignas(64) float y[M * M][kMaxNR];
  const leaky_fast::Consts leaky;
  for (int i = 0; i < rows; ++i) {
    const float b = bias ? bias[f_first + i] : 0.f;
    const float32x4_t bv = vdupq_n_f32(b);
    float* plane = out + size_t(f_first + i) * geo.plane();
    const float* m0 = mbuf + size_t(i) * nr;  // element p of tile j at m0[p * kMR * nr + j]
    const size_t ps = size_t(kMR) * nr;
    for (int g = 0; g < groups; ++g) {
      float32x4_t tv[M * n];
      MDFI_WINO_UNROLL for (int x = 0; x < n; ++x) {  // loaded column by column, as in the input pass
        float32x4_t col[n];
        MDFI_WINO_UNROLL for (int yy = 0; yy < n; ++yy) col[yy] = vld1q_f32(m0 + (yy * n + x) * ps + 4 * g);
        out_vec<M>(col, 1, tv + x, n);
      }
      MDFI_WINO_UNROLL for (int r = 0; r < M; ++r) {
        float32x4_t yv[M];
        out_vec<M>(tv + r * n, 1, yv, 1);
        if (!vector_act) {
          for (int s = 0; s < M; ++s) vst1q_f32(&y[r * M + s][4 * g], yv[s]);
          continue;
        }
        if (act == Activation::kLeaky) {
          // leaky_fast.h's four instructions a vector; the row again on double lanes (finish)
          // when a value lies below its range.
          int32x4_t mn = leaky_fast::min_start();
          float32x4_t res[M];
          MDFI_WINO_UNROLL for (int s = 0; s < M; ++s) res[s] = leaky_fast::apply(vaddq_f32(yv[s], bv), leaky, mn);
          if (!leaky_fast::exact(mn))
            for (int s = 0; s < M; ++s) res[s] = finish(yv[s], b, act);
          MDFI_WINO_UNROLL for (int s = 0; s < M; ++s) yv[s] = res[s];
        } else {
          MDFI_WINO_UNROLL for (int s = 0; s < M; ++s) yv[s] = finish(yv[s], b, act);
        }
        const size_t ro = size_t(r) * OW;
        if (side[g]) {  // ST4 (ST2) interleaves the four (two) columns of four tiles into one output row.
          if constexpr (M == 4) vst4q_f32(plane + at[g][0] + ro, (float32x4x4_t{{yv[0], yv[1], yv[2], yv[3]}}));
          else vst2q_f32(plane + at[g][0] + ro, (float32x4x2_t{{yv[0], yv[1]}}));
          continue;
        }
        // Lane k of yv[s] is tile k's column s: transposed, each tile's row r.
        float32x4_t tr[4];
        if constexpr (M == 4) {
          const float64x2_t a0 = vreinterpretq_f64_f32(vtrn1q_f32(yv[0], yv[1]));
          const float64x2_t a1 = vreinterpretq_f64_f32(vtrn2q_f32(yv[0], yv[1]));
          const float64x2_t a2 = vreinterpretq_f64_f32(vtrn1q_f32(yv[2], yv[3]));
          const float64x2_t a3 = vreinterpretq_f64_f32(vtrn2q_f32(yv[2], yv[3]));
          tr[0] = vreinterpretq_f32_f64(vtrn1q_f64(a0, a2));
          tr[1] = vreinterpretq_f32_f64(vtrn1q_f64(a1, a3));
          tr[2] = vreinterpretq_f32_f64(vtrn2q_f64(a0, a2));
          tr[3] = vreinterpretq_f32_f64(vtrn2q_f64(a1, a3));
        } else {
          const float32x4_t lo = vzip1q_f32(yv[0], yv[1]), hi = vzip2q_f32(yv[0], yv[1]);
          tr[0] = lo;
          tr[1] = vextq_f32(lo, lo, 2);
          tr[2] = hi;
          tr[3] = vextq_f32(hi, hi, 2);
        }
        for (int k = 0; k < 4; ++k)
          if (r < high[g][k]) store_first(plane + at[g][k] + ro, tr[k], wide[g][k]);
      }
    }
    if (vector_act) continue;
    for (int k = 0; k < M * M; ++k)
      for (int j = 0; j < cols; ++j) y[k][j] = activate_one(y[k][j] + b, act);
    for (int j = 0; j < cols;) {
      const int t = t_first + j, oy = (t / tx_count) * M, tx = t % tx_count;
      const int len = std::min(cols - j, tx_count - tx);
      const int h = std::min(M, OH - oy);
      // The run's last tile may stick out past the right edge.
      const int full = (tx + len) * M <= OW ? len : len - 1;
      for (int r = 0; r < h; ++r) {
        float* o = plane + size_t(oy + r) * OW + size_t(tx) * M;
        for (int q = 0; q < full; ++q)
          for (int s = 0; s < M; ++s) o[q * M + s] = y[r * M + s][j + q];
        for (int s = 0; s < OW - (tx + full) * M && full < len; ++s) o[full * M + s] = y[r * M + s][j + full];
      }
      j += len;
    }
  }
}

// Tf<M>::weight on vectors (element k of four filters each).
template <int M>
inline void weight_vec(const float32x4_t* g, int gs, float32x4_t* r, int rs);
template <>
inline void weight_vec<2>(const float32x4_t* g, int gs, float32x4_t* r, int rs) {
  const float32x4_t g0 = g[0], g1 = g[gs], g2 = g[2 * gs];
  r[0] = g0;
  r[rs] = vmulq_n_f32(vaddq_f32(vaddq_f32(g0, g1), g2), .5f);
  r[2 * rs] = vmulq_n_f32(vaddq_f32(vsubq_f32(g0, g1), g2), .5f);
  r[3 * rs] = g2;
}
template <>
inline void weight_vec<4>(const float32x4_t* g, int gs, float32x4_t* r, int rs) {
  const float32x4_t g0 = g[0], g1 = g[gs], g2 = g[2 * gs];
  constexpr float k6 = 1.f / 6.f, k12 = 1.f / 12.f, k24 = 1.f / 24.f;
  const float32x4_t a = vaddq_f32(vmulq_n_f32(g0, k24), vmulq_n_f32(g2, k6)), b = vmulq_n_f32(g1, k12);
  r[0] = vmulq_n_f32(g0, .25f);
  r[rs] = vmulq_n_f32(vnegq_f32(vaddq_f32(vaddq_f32(g0, g1), g2)), k6);
  r[2 * rs] = vmulq_n_f32(vnegq_f32(vaddq_f32(vsubq_f32(g0, g1), g2)), k6);
  r[3 * rs] = vaddq_f32(a, b);
  r[4 * rs] = vsubq_f32(a, b);
  r[5 * rs] = g2;
}

// Columns, then rows, of one channel's nine taps across four filters (gv[k]: tap k), each row of
// U stored as it is made (t_c: its element 0, t_plane floats to the next element).
template <int M>
inline void weight_taps(const float32x4_t* gv, float* t_c, size_t t_plane) {
  constexpr int n = M + 2;
  float32x4_t col[n * 3];
  MDFI_WINO_UNROLL for (int x = 0; x < 3; ++x) weight_vec<M>(gv + x, 3, col + x, 3);
  MDFI_WINO_UNROLL for (int y = 0; y < n; ++y) {
    float32x4_t tv[n];
    weight_vec<M>(col + y * 3, 1, tv, 1);
    MDFI_WINO_UNROLL for (int x = 0; x < n; ++x) vst1q_f32(t_c + size_t(y * n + x) * t_plane, tv[x]);
  }
}

// transform_weights<M> with the gather and the transform in NEON. The raw rows of four filters
// are 9 floats per channel, so four channels are nine vectors per filter; 4x4 transposes of the
// four filters' vectors give each (channel, tap) across the filters, the lanes the transform
// works on, and they are transformed from registers (the portable code gathered them one float
// at a time: most of its instructions, and with weights streamed this runs for every weight of
// every image). Filters short of a four and channels past the last four go through `g`.
template <int M>
void weights_neon(const WinogradGeo& geo, int rows, const float* raw, const float* scale, float* u_block,
                  size_t plane_stride, int panel) {
  constexpr int n = Tf<M>::n;
  constexpr int kChunk = 16;  // channels transformed before U is written, a multiple of 4
  constexpr size_t kPlane = size_t(kChunk) * kMR;  // t's floats from one element to the next
  const int C = geo.channels;
  float* dst = u_block + size_t(panel) * kMR * C;
  alignas(32) float g[kChunk][9][kMR], t[n * n][kChunk][kMR];
  for (int cc = 0; cc < kChunk; ++cc)
    for (int k = 0; k < 9; ++k)
      for (int i = rows; i < kMR; ++i) g[cc][k][i] = 0.f;
  for (int c0 = 0; c0 < C; c0 += kChunk) {
    const int cn = std::min(kChunk, C - c0);
    int done[kMR / 4] = {};  // per four filters: channels already in t
    for (int i0 = 0; i0 < kMR; i0 += 4) {
      const int quad = std::min(4, rows - i0);
      if (quad <= 0) break;
      int cc = 0;
      if (quad == 4) {
        const float32x4_t sc = scale ? vld1q_f32(scale + i0) : vdupq_n_f32(1.f);
        const float* w0 = raw + (size_t(i0) * C + c0) * 9;
        const size_t fs = size_t(C) * 9;  // one filter to the next
        // Scaled or not as a compile-time choice: a branch inside the block split it, and GCC
        // then kept x on the stack across the branches.
        const auto block = [&](auto scaled) {
          for (; cc + 4 <= cn; cc += 4) {
            float32x4_t x[36];  // element 4q + e of the four channels' 36: channel (4q + e) / 9, tap (4q + e) % 9
            // Channel c's taps are x[9c .. 9c + 8]: each channel is transformed as soon as its
            // last transpose is made (after q = 2, 4, 6, 8).
            MDFI_WINO_UNROLL for (int q = 0; q < 9; ++q) {
              const float* w = w0 + size_t(cc) * 9 + 4 * q;
              const float32x4_t a0 = vld1q_f32(w), a1 = vld1q_f32(w + fs), a2 = vld1q_f32(w + 2 * fs),
                                a3 = vld1q_f32(w + 3 * fs);
              const float32x4_t b0 = vtrn1q_f32(a0, a1), b1 = vtrn2q_f32(a0, a1), b2 = vtrn1q_f32(a2, a3),
                                b3 = vtrn2q_f32(a2, a3);
              float32x4_t* xq = x + 4 * q;
              xq[0] = vreinterpretq_f32_f64(vtrn1q_f64(vreinterpretq_f64_f32(b0), vreinterpretq_f64_f32(b2)));
              xq[1] = vreinterpretq_f32_f64(vtrn1q_f64(vreinterpretq_f64_f32(b1), vreinterpretq_f64_f32(b3)));
              xq[2] = vreinterpretq_f32_f64(vtrn2q_f64(vreinterpretq_f64_f32(b0), vreinterpretq_f64_f32(b2)));
              xq[3] = vreinterpretq_f32_f64(vtrn2q_f64(vreinterpretq_f64_f32(b1), vreinterpretq_f64_f32(b3)));
              if constexpr (decltype(scaled)::value)
                MDFI_WINO_UNROLL for (int e = 0; e < 4; ++e) xq[e] = vmulq_f32(xq[e], sc);
              if (q >= 2 && q % 2 == 0) weight_taps<M>(x + 9 * (q / 2 - 1), &t[0][cc + q / 2 - 1][i0], kPlane);
            }
          }
        };
        if (scale) block(std::true_type{});
        else block(std::false_type{});
        done[i0 / 4] = cc;
      }
      for (int i = i0; i < i0 + quad; ++i) {  // what is left: channels past the last four, or < 4 filters
        const float* w = raw + (size_t(i) * C + c0) * 9;
        for (int c = cc; c < cn; ++c)
          for (int k = 0; k < 9; ++k) g[c][k][i] = scale ? w[c * 9 + k] * scale[i] : w[c * 9 + k];
      }
    }
    for (int h = 0; h < kMR; h += 4)  // the rest from g: columns, then rows, four filters a vector
      for (int cc = done[h / 4]; cc < cn; ++cc) {
        float32x4_t gv[9];
        for (int k = 0; k < 9; ++k) gv[k] = vld1q_f32(&g[cc][k][h]);
        weight_taps<M>(gv, &t[0][cc][h], kPlane);
      }
    // t to U, plane by plane, inline: a memcpy call per plane (512 bytes) cost about twice this
    // (glibc's generic copy loop), with weights streamed for every U float of every image.
    const int floats = cn * kMR;  // a multiple of kMR = 8
    for (int k = 0; k < n * n; ++k) {
      float* to = dst + size_t(k) * plane_stride + size_t(c0) * kMR;
      const float* from = t[k][0];
      int f = 0;
      for (; f + 16 <= floats; f += 16) vst1q_f32_x4(to + f, vld1q_f32_x4(from + f));
      if (f < floats) vst1q_f32_x2(to + f, vld1q_f32_x2(from + f));
    }
  }
}

void weights(const WinogradGeo& geo, int rows, const float* raw, const float* scale, float* u_block,
             size_t plane_stride, int panel) {
  if (geo.m == 4) weights_neon<4>(geo, rows, raw, scale, u_block, plane_stride, panel);
  else weights_neon<2>(geo, rows, raw, scale, u_block, plane_stride, panel);
}

void input(const WinogradGeo& geo, const float* in, int panel, int nr, float* dst) {
  if (nr % 4 != 0) input_panel(geo, in, panel, nr, dst);
  else if (geo.m == 4) input_tiles<4>(geo, in, panel, nr, dst);
  else input_tiles<2>(geo, in, panel, nr, dst);
}

void output(const WinogradGeo& geo, const float* mbuf, int nr, int f_first, int t_first, const float* bias,
            Activation act, float* out) {
  if (nr % 4 != 0) output_panel(geo, mbuf, nr, f_first, t_first, bias, act, out);
  else if (geo.m == 4) {
    if (nr == 12) output_tiles<4, 12>(geo, mbuf, nr, f_first, t_first, bias, act, out);
    else output_tiles<4, 0>(geo, mbuf, nr, f_first, t_first, bias, act, out);
  } else if (nr == 12) {
    output_tiles<2, 12>(geo, mbuf, nr, f_first, t_first, bias, act, out);
  } else {
    output_tiles<2, 0>(geo, mbuf, nr, f_first, t_first, bias, act, out);
  }
}

}  // namespace wino_neon

WinogradOps winograd_ops_neon() { return {"neon", &wino_neon::input, &wino_neon::output, &wino_neon::weights}; }

}  // namespace mdfi::kernels
#endif
