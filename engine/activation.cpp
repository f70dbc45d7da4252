#include "activation.h"

#include <algorithm>
#include <cmath>

#include "kernels/leaky_fast.h"
#include "kernels/logistic.h"

#if defined(__aarch64__)
#include <arm_neon.h>
#endif

namespace mdfi {
namespace {

struct Named {
  const char* name;
  Activation act;
};
const Named kNames[] = {
    {"linear", Activation::kLinear}, {"logistic", Activation::kLogistic}, {"loggy", Activation::kLoggy},
    {"relu", Activation::kRelu},     {"elu", Activation::kElu},           {"selu", Activation::kSelu},
    {"relie", Activation::kRelie},   {"ramp", Activation::kRamp},         {"leaky", Activation::kLeaky},
    {"tanh", Activation::kTanh},     {"plse", Activation::kPlse},         {"stair", Activation::kStair},
    {"hardtan", Activation::kHardtan}, {"lhtan", Activation::kLhtan},
    {"mish", Activation::kMish},       {"swish", Activation::kSwish},       {"relu6", Activation::kRelu6},
    {"hard_mish", Activation::kHardMish}, {"gelu", Activation::kGelu},
};

// AlexeyAB evaluates its activations in float (expf, tanhf), unlike pjreddie's double literals.
float logistic_f(float x) { return 1.f / (1.f + std::exp(-x)); }
float tanh_f(float x) { return 2.f / (1.f + std::exp(-2.f * x)) - 1.f; }
float softplus_f(float x, float threshold) {
  if (x > threshold) return x;
  if (x < -threshold) return std::exp(x);
  return std::log(std::exp(x) + 1.f);
}

}  // namespace

bool parse_activation(const std::string& name, Activation* out) {
  for (const Named& n : kNames)
    if (name == n.name) {
      *out = n.act;
      return true;
    }
  return false;
}

const char* to_string(Activation a) {
  for (const Named& n : kNames)
    if (n.act == a) return n.name;
  return "?";
}

bool is_alexeyab_activation(Activation a) {
  switch (a) {
    case Activation::kMish: case Activation::kSwish: case Activation::kRelu6: case Activation::kHardMish:
    case Activation::kGelu: return true;
    default: return false;
  }
}

std::string activation_names() {
  std::string s;
  for (const Named& n : kNames) s += (s.empty() ? "" : ", ") + std::string(n.name);
  return s;
}

// The constants and the float/double mix follow Darknet's inline functions, so results are
// bit-identical with libdarknet when compiled the same way.
float activate(float x, Activation a) {
  // Darknet evaluates these in double (its literals are double) and stores a float.
  const double d = x;
  switch (a) {
    case Activation::kLinear: return x;
    case Activation::kLogistic: return float(1. / (1. + std::exp(-d)));
    case Activation::kLoggy: return float(2. / (1. + std::exp(-d)) - 1);
    case Activation::kRelu: return x * (x > 0);
    case Activation::kElu: return float((x >= 0) * d + (x < 0) * (std::exp(d) - 1));
    case Activation::kSelu: return float((x >= 0) * 1.0507 * d + (x < 0) * 1.0507 * 1.6732 * (std::exp(d) - 1));
    case Activation::kRelie: return (x > 0) ? x : float(.01 * d);
    case Activation::kRamp: return float(x * (x > 0) + .1 * d);
    case Activation::kLeaky: return (x > 0) ? x : float(.1 * d);
    case Activation::kTanh: return float((std::exp(2 * d) - 1) / (std::exp(2 * d) + 1));
    case Activation::kPlse:
      if (x < -4) return float(.01 * (d + 4));
      if (x > 4) return float(.01 * (d - 4) + 1);
      return float(.125 * d + .5);
    case Activation::kStair: {
      int n = int(std::floor(x));
      if (n % 2 == 0) return float(std::floor(d / 2.));
      return float((d - n) + std::floor(d / 2.));
    }
    case Activation::kHardtan:
      if (x < -1) return -1;
      if (x > 1) return 1;
      return x;
    case Activation::kLhtan:
      if (x < 0) return float(.001 * d);
      if (x > 1) return float(.001 * (d - 1) + 1);
      return x;
    case Activation::kMish: return x * tanh_f(softplus_f(x, 20.f));  // AlexeyAB's MISH_THRESHOLD
    case Activation::kSwish: return x * logistic_f(x);
    case Activation::kRelu6: return std::min(std::max(x, 0.f), 6.f);
    case Activation::kHardMish:
      if (x > 0) return x;
      if (x > -2) return x * x / 2 + x;
      return 0;
    case Activation::kGelu: return 0.5f * x * (1.f + std::tanh(0.797885f * x + 0.035677f * x * x * x));
  }
  return x;
}

void activate_array(float* x, size_t n, Activation a) {
  switch (a) {
    case Activation::kLinear: return;
    case Activation::kLeaky: {
      size_t i = 0;
#if defined(__aarch64__)
      // Darknet's .1 * x is a double product rounded to float: kernels/leaky_fast.h gives its
      // bits with float FMUL + FMLA + FMAX, sixteen values at a time; a block holding a value
      // outside its range is done on double lanes instead (32-bit ARM NEON has none: scalar there).
      const kernels::leaky_fast::Consts k;
      for (; i + 16 <= n; i += 16) {
        const float32x4_t v0 = vld1q_f32(x + i), v1 = vld1q_f32(x + i + 4), v2 = vld1q_f32(x + i + 8),
                          v3 = vld1q_f32(x + i + 12);
        int32x4_t mn = kernels::leaky_fast::min_start();
        const float32x4_t r0 = kernels::leaky_fast::apply(v0, k, mn), r1 = kernels::leaky_fast::apply(v1, k, mn),
                          r2 = kernels::leaky_fast::apply(v2, k, mn), r3 = kernels::leaky_fast::apply(v3, k, mn);
        if (kernels::leaky_fast::exact(mn)) {
          vst1q_f32(x + i, r0), vst1q_f32(x + i + 4, r1), vst1q_f32(x + i + 8, r2), vst1q_f32(x + i + 12, r3);
        } else {
          vst1q_f32(x + i, kernels::leaky_fast::apply_exact(v0));
          vst1q_f32(x + i + 4, kernels::leaky_fast::apply_exact(v1));
          vst1q_f32(x + i + 8, kernels::leaky_fast::apply_exact(v2));
          vst1q_f32(x + i + 12, kernels::leaky_fast::apply_exact(v3));
        }
      }
      for (; i + 4 <= n; i += 4) vst1q_f32(x + i, kernels::leaky_fast::apply_exact(vld1q_f32(x + i)));
#endif
#if defined(__arm__) && !defined(__aarch64__)
      // 32-bit ARM has no double vectors: the product stays scalar, so take it only where the
      // value is not positive (the chunked select below computed it for every value: armhf
      // Yolo-Fastest-1.1 305.4 -> 321.2 M instructions per inference).
      for (; i < n; ++i) x[i] = x[i] > 0 ? x[i] : float(.1 * double(x[i]));
#endif
      // Elsewhere: the scaled values of a chunk, then a select between two arrays, which the
      // compiler vectorises (as one loop GCC keeps the branch: it ran scalar, a quarter of
      // Yolo-Fastest's banded depthwise rows). The same values either way.
      for (; i < n; i += 64) {
        const size_t m = std::min<size_t>(64, n - i);
        float scaled[64];
        for (size_t j = 0; j < m; ++j) scaled[j] = float(.1 * double(x[i + j]));
        for (size_t j = 0; j < m; ++j) x[i + j] = x[i + j] > 0 ? x[i + j] : scaled[j];
      }
      return;
    }
    case Activation::kRelu:
      for (size_t i = 0; i < n; ++i) x[i] = x[i] * (x[i] > 0);
      return;
    case Activation::kLogistic:  // the same bits as activate(), in vector lanes (kernels/logistic.h)
      kernels::logistic_array(x, n);
      return;
    default:
      for (size_t i = 0; i < n; ++i) x[i] = activate(x[i], a);
  }
}

}  // namespace mdfi
