// NEON micro-kernels for the Raspberry Pi targets: 8x12 on aarch64 (32 vector registers: 24
// accumulators + 3 for B + 2 for A) and 8x4 on 32-bit ARMv7 (16 quad registers: 8 accumulators
// + 1 for B + 2 for A; an 8x8 tile would need all 16 for accumulators and spill).
// NEON is always present on aarch64 and enabled by the armhf toolchain's -mfpu=neon-vfpv4, so
// this file needs no per-function target attributes and is compiled only for ARM.
#if defined(__ARM_NEON) || defined(__aarch64__)
#include <arm_neon.h>

#include "microkernel.h"

// The accumulators must stay in registers, so the per-row loops are fully unrolled.
#if defined(__clang__)
#define MDFI_UNROLL _Pragma("unroll")
#else
#define MDFI_UNROLL _Pragma("GCC unroll 8")
#endif

namespace mdfi::kernels {

#if defined(__aarch64__)

static constexpr int kNR = 12;

// Lane indices must be literal constants for the intrinsics, hence a macro per A row.
#define MDFI_NEON_ROW(i, av, lane)               \
  c0[i] = vfmaq_laneq_f32(c0[i], b0, av, lane); \
  c1[i] = vfmaq_laneq_f32(c1[i], b1, av, lane); \
  c2[i] = vfmaq_laneq_f32(c2[i], b2, av, lane)

// Bias and activation on a finished vector, in registers, with Darknet's arithmetic: leaky's
// .1 * x is a double product there, so the lanes are widened to double, scaled and rounded back
// (bit-identical to activate()); relu multiplies by 1 or 0 as Darknet does (keeps -0 and NaN).
static inline float32x4_t finish_vec(float32x4_t v, float32x4_t bias, TileAct act) {
  v = vaddq_f32(v, bias);
  if (act == TileAct::kLinear) return v;
  const uint32x4_t positive = vcgtq_f32(v, vdupq_n_f32(0.f));
  if (act == TileAct::kRelu)
    return vmulq_f32(v, vreinterpretq_f32_u32(vandq_u32(positive, vreinterpretq_u32_f32(vdupq_n_f32(1.f)))));
  const float64x2_t tenth = vdupq_n_f64(.1);
  const float32x2_t lo = vcvt_f32_f64(vmulq_f64(vcvt_f64_f32(vget_low_f32(v)), tenth));
  return vbslq_f32(positive, v, vcvt_high_f32_f64(lo, vmulq_f64(vcvt_high_f64_f32(v), tenth)));
}

// kFinish: the last K block; bias (may be null) and act are applied before the store, so the
// tile is written once (a separate bias pass and activate_array() had cost more instructions
// than the multiply-adds on the thin layers of Yolo-Fastest and MobileNet).
template <bool kFinish>
static void kernel_neon(int kc, const float* a, const float* b, float* c, int ldc, int first, const float* bias,
                        TileAct act) {
  float32x4_t c0[kMR], c1[kMR], c2[kMR];
  MDFI_UNROLL for (int i = 0; i < kMR; ++i) c0[i] = c1[i] = c2[i] = vdupq_n_f32(0.f);
  for (int k = 0; k < kc; ++k, a += kMR, b += kNR) {
    const float32x4_t a_lo = vld1q_f32(a), a_hi = vld1q_f32(a + 4);
    const float32x4_t b0 = vld1q_f32(b), b1 = vld1q_f32(b + 4), b2 = vld1q_f32(b + 8);
    MDFI_NEON_ROW(0, a_lo, 0);
    MDFI_NEON_ROW(1, a_lo, 1);
    MDFI_NEON_ROW(2, a_lo, 2);
    MDFI_NEON_ROW(3, a_lo, 3);
    MDFI_NEON_ROW(4, a_hi, 0);
    MDFI_NEON_ROW(5, a_hi, 1);
    MDFI_NEON_ROW(6, a_hi, 2);
    MDFI_NEON_ROW(7, a_hi, 3);
  }
  MDFI_UNROLL for (int i = 0; i < kMR; ++i) {
    float* ci = c + i * ldc;
    if (!first) {
      c0[i] = vaddq_f32(c0[i], vld1q_f32(ci));
      c1[i] = vaddq_f32(c1[i], vld1q_f32(ci + 4));
      c2[i] = vaddq_f32(c2[i], vld1q_f32(ci + 8));
    }
    if (kFinish) {
      const float32x4_t bv = vdupq_n_f32(bias ? bias[i] : 0.f);
      c0[i] = finish_vec(c0[i], bv, act);
      c1[i] = finish_vec(c1[i], bv, act);
      c2[i] = finish_vec(c2[i], bv, act);
    }
    vst1q_f32(ci, c0[i]);
    vst1q_f32(ci + 4, c1[i]);
    vst1q_f32(ci + 8, c2[i]);
  }
}
#undef MDFI_NEON_ROW

#else  // 32-bit ARMv7 NEON

static constexpr int kNR = 4;

// VMLA by lane (multiply then add, not fused): ARMv7 NEON has no by-lane fused form, and the
// unfused one is what the Cortex-A7/A53 pipelines chain best.
// kFinish: the last K block; bias (may be null) and act are applied before the store. ARMv7
// NEON has no double lanes, so leaky's double product (Darknet's arithmetic) is done per negative
// value on the VFP after the store. (The bias add in NEON flushes a denormal result to zero, as
// the NEON products and sums before it already do.)
template <bool kFinish>
static void kernel_neon(int kc, const float* a, const float* b, float* c, int ldc, int first, const float* bias,
                        TileAct act) {
  float32x4_t acc[kMR];
  MDFI_UNROLL for (int i = 0; i < kMR; ++i) acc[i] = vdupq_n_f32(0.f);
  for (int k = 0; k < kc; ++k, a += kMR, b += kNR) {
    const float32x4_t a_lo = vld1q_f32(a), a_hi = vld1q_f32(a + 4);
    const float32x4_t bv = vld1q_f32(b);
    acc[0] = vmlaq_lane_f32(acc[0], bv, vget_low_f32(a_lo), 0);
    acc[1] = vmlaq_lane_f32(acc[1], bv, vget_low_f32(a_lo), 1);
    acc[2] = vmlaq_lane_f32(acc[2], bv, vget_high_f32(a_lo), 0);
    acc[3] = vmlaq_lane_f32(acc[3], bv, vget_high_f32(a_lo), 1);
    acc[4] = vmlaq_lane_f32(acc[4], bv, vget_low_f32(a_hi), 0);
    acc[5] = vmlaq_lane_f32(acc[5], bv, vget_low_f32(a_hi), 1);
    acc[6] = vmlaq_lane_f32(acc[6], bv, vget_high_f32(a_hi), 0);
    acc[7] = vmlaq_lane_f32(acc[7], bv, vget_high_f32(a_hi), 1);
  }
  MDFI_UNROLL for (int i = 0; i < kMR; ++i) {
    float* ci = c + i * ldc;
    if (!first) acc[i] = vaddq_f32(acc[i], vld1q_f32(ci));
    if (kFinish) {
      float32x4_t v = vaddq_f32(acc[i], vdupq_n_f32(bias ? bias[i] : 0.f));
      if (act == TileAct::kRelu) {
        const uint32x4_t positive = vcgtq_f32(v, vdupq_n_f32(0.f));
        v = vmulq_f32(v, vreinterpretq_f32_u32(vandq_u32(positive, vreinterpretq_u32_f32(vdupq_n_f32(1.f)))));
      }
      acc[i] = v;
    }
    vst1q_f32(ci, acc[i]);
    if (kFinish && act == TileAct::kLeaky)
      for (int j = 0; j < kNR; ++j)
        if (!(ci[j] > 0)) ci[j] = float(.1 * double(ci[j]));
  }
}

#endif

static void neon_block(int kc, const float* a, const float* b, float* c, int ldc, int first) {
  kernel_neon<false>(kc, a, b, c, ldc, first, nullptr, TileAct::kLinear);
}

KernelInfo micro_neon() { return {"neon", kNR, &neon_block, &kernel_neon<true>}; }

}  // namespace mdfi::kernels
#endif
