#include "logistic.h"

#include <cmath>
#include <cstring>

#include "cpu_features.h"
#include "target_region.h"

namespace mdfi::kernels {

namespace {

// Darknet's formula, one value at a time (activation.cpp's activate(x, kLogistic)).
void logistic_scalar(float* x, size_t n) {
  for (size_t i = 0; i < n; ++i) x[i] = float(1. / (1. + std::exp(-double(x[i]))));
}

#if defined(__x86_64__)

MDFI_TARGET_BEGIN("avx2")
namespace lg_avx2 {
#define MDFI_LG_BYTES 32
#include "logistic_body.inc"
#undef MDFI_LG_BYTES
}  // namespace lg_avx2
MDFI_TARGET_END()

MDFI_TARGET_BEGIN("avx512f")
namespace lg_avx512 {
#define MDFI_LG_BYTES 64
#include "logistic_body.inc"
#undef MDFI_LG_BYTES
}  // namespace lg_avx512
MDFI_TARGET_END()
#endif

#if defined(__aarch64__)
namespace lg_neon {
#define MDFI_LG_BYTES 16
#include "logistic_body.inc"
#undef MDFI_LG_BYTES
}  // namespace lg_neon
#endif

using Fn = void (*)(float*, size_t);

Fn pick(const char* variant) {
  const bool any = variant == nullptr;
  if (!any && std::strcmp(variant, "scalar") == 0) return &logistic_scalar;
#if defined(__x86_64__)
  if ((any || std::strcmp(variant, "avx512") == 0) && cpu_has_avx512f()) return &lg_avx512::logistic_lanes;
  if ((any || std::strcmp(variant, "avx2") == 0) && cpu_has_avx2_fma()) return &lg_avx2::logistic_lanes;
#endif
#if defined(__aarch64__)
  if (any || std::strcmp(variant, "neon") == 0) return &lg_neon::logistic_lanes;
#endif
  // Baseline x86-64 (SSE2: two double lanes, no 64-bit compares; slower than the C library's
  // exp here) and 32-bit ARM (no double vector lanes): the scalar formula.
  return any ? &logistic_scalar : nullptr;
}

}  // namespace

void logistic_array(float* x, size_t n, const char* variant) {
  static const Fn best = pick(nullptr);
  const Fn fn = variant ? pick(variant) : best;
  if (fn) fn(x, n);
}

bool logistic_variant_available(const char* variant) { return pick(variant) != nullptr; }

}  // namespace mdfi::kernels
