// Checks kernels/leaky_fast.h over all 2^32 float bit patterns: wherever a block of inputs
// passes its exact() test, the fast leaky must equal Darknet's x > 0 ? x : float(.1 * double(x))
// bit for bit; and every input that fails the test must be a negative float of exponent field
// below 8 (or -0), so that the fallback is as rare as the header says. On aarch64 it runs the
// NEON code itself (under qemu-aarch64 about a minute); elsewhere a scalar model of the same
// instructions (std::fma rounds once, like FMLA; max as FMAX), which checks the arithmetic.
//   cmake --build build --target mdfi_leaky_exhaustive && build/bench/mdfi_leaky_exhaustive
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "kernels/leaky_fast.h"

using namespace mdfi::kernels;

namespace {

float darknet_leaky(float x) { return x > 0 ? x : float(.1 * double(x)); }

#if !defined(__aarch64__)
// FMAX(x, t): a NaN operand wins (x first), else the larger.
float model(float x) {
  const float t = std::fma(x, leaky_fast::kHi, x * leaky_fast::kLo);
  if (std::isnan(x)) return x + 0.f;  // quieted, as FMAX returns it
  if (std::isnan(t)) return t;
  return x > t ? x : t;
}
#endif

}  // namespace

int main() {
  uint64_t checked = 0, flagged = 0, wrong = 0, bad_flag = 0;
  for (uint64_t base = 0; base < (uint64_t(1) << 32); base += 4) {
    uint32_t bits[4];
    float x[4], got[4];
    for (int i = 0; i < 4; ++i) bits[i] = uint32_t(base + i);
    std::memcpy(x, bits, sizeof x);
    int32_t min_bits = INT32_MAX;
#if defined(__aarch64__)
    const leaky_fast::Consts k;
    int32x4_t mn = leaky_fast::min_start();
    vst1q_f32(got, leaky_fast::apply(vld1q_f32(x), k, mn));
    min_bits = vminvq_s32(mn);
#else
    for (int i = 0; i < 4; ++i) {
      got[i] = model(x[i]);
      int32_t s;
      std::memcpy(&s, &bits[i], sizeof s);
      if (s < min_bits) min_bits = s;
    }
#endif
    for (int i = 0; i < 4; ++i) {
      int32_t s;
      std::memcpy(&s, &bits[i], sizeof s);
      const bool tiny_negative = bits[i] >= 0x80000000u && bits[i] < 0x84000000u;
      if (s < leaky_fast::kTinyBits && !tiny_negative) ++bad_flag;
    }
    if (!leaky_fast::exact(min_bits)) {
      flagged += 4;
      continue;
    }
    for (int i = 0; i < 4; ++i) {
      const float want = darknet_leaky(x[i]);
      if (std::memcmp(&want, &got[i], sizeof want) != 0) {
        uint32_t g;
        std::memcpy(&g, &got[i], sizeof g);
        if (wrong < 10) std::printf("mismatch: x bits %08x got %08x\n", bits[i], g);
        ++wrong;
      }
    }
    checked += 4;
  }
  std::printf("leaky_fast: %llu values checked, %llu in flagged blocks (fallback), %llu wrong, %llu flagged wrongly\n",
              (unsigned long long)checked, (unsigned long long)flagged, (unsigned long long)wrong,
              (unsigned long long)bad_flag);
  return wrong == 0 && bad_flag == 0 ? 0 : 1;
}
