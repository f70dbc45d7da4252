// Darknet's leaky ReLU, x > 0 ? x : float(.1 * double(x)), on aarch64 NEON without double lanes.
//
// The exact form widens each half of a vector to double, multiplies and narrows back: 7 or 8
// instructions per four values, as many as a 3x3 depthwise output's taps. Here the double .1 is
// split into two floats, kHi = the float just below .1 and kLo = float(.1 - kHi) (> 0), and
//   t = fma(x, kHi, float(x * kLo))      (FMUL, then FMLA: one rounding of x*kHi + that)
//   leaky(x) = max(x, t)                 (FMAX: t <= x for x >= 0, t >= x for x <= 0)
// t equals float(.1 * double(x)) for every float x whose exponent field is at least 8 (|x| >=
// 2^-119) and for +-0 (kLo > 0 keeps -0 * kLo = -0); below that x * kLo loses bits to underflow
// and t can be one unit off. bench/leaky_exhaustive.cpp checks all 2^32 floats (positive
// values come out as x whatever t is). The exceptions are told apart by the bits as a signed
// integer: a negative float of exponent field < 8 is below kTinyBits (-0 too, which is only a
// false alarm), so the running signed minimum of the inputs (SMIN, one more instruction) says
// whether a block must be redone the exact way. Activations that small are rare (an exact -0
// also trips it), so the fast form costs 4 instructions per four values and the exact one
// seldom runs.
#pragma once

#include <cstdint>

#if defined(__aarch64__)
#include <arm_neon.h>
#endif

namespace mdfi::kernels::leaky_fast {

inline constexpr float kHi = 0x1.999998p-4f;        // 0x3DCCCCCC, the float just below .1f
inline constexpr float kLo = float(.1 - double(kHi));  // 5.96e-9
inline constexpr int32_t kTinyBits = INT32_MIN + 0x04000000;  // -2^-119's bits as int32 (0x84000000)

// Whether a block whose inputs' smallest bits (as int32) is `min_bits` was exact.
inline bool exact(int32_t min_bits) { return min_bits >= kTinyBits; }

#if defined(__aarch64__)
struct Consts {
  float32x4_t hi = vdupq_n_f32(kHi), lo = vdupq_n_f32(kLo);
};
// leaky(x) when exact(min) holds over the inputs; `min` takes x's bits (signed minimum).
inline float32x4_t apply(float32x4_t x, const Consts& k, int32x4_t& min) {
  min = vminq_s32(min, vreinterpretq_s32_f32(x));
  return vmaxq_f32(x, vfmaq_f32(vmulq_f32(x, k.lo), x, k.hi));
}
inline int32x4_t min_start() { return vdupq_n_s32(INT32_MAX); }
inline bool exact(int32x4_t min) { return exact(vminvq_s32(min)); }

// Darknet's product the exact way, on double lanes (FCVTL, FMUL, FCVTN per half), the positive
// lanes kept (FCMGT, BSL): activate()'s bits for every x.
inline float32x4_t apply_exact(float32x4_t x) {
  const float64x2_t tenth = vdupq_n_f64(.1);
  const float32x2_t lo = vcvt_f32_f64(vmulq_f64(vcvt_f64_f32(vget_low_f32(x)), tenth));
  return vbslq_f32(vcgtq_f32(x, vdupq_n_f32(0.f)), x, vcvt_high_f32_f64(lo, vmulq_f64(vcvt_high_f64_f32(x), tenth)));
}
#endif

}  // namespace mdfi::kernels::leaky_fast
