// Every activation, pjreddie's and AlexeyAB's, at a few points, alone and after a conv.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "activation.h"
#include "kernels/logistic.h"
#include "support.h"

using namespace mdfi;
using namespace mdfi::test;

TEST_CASE("every pjreddie activation at a few points, alone and after a conv", "[layers]") {
  const std::vector<float> pts = {-5, -1.5f, -0.5f, 0, 0.3f, 1.5f, 2.5f, 3.5f, 5};
  // Values of Darknet's activations.h formulas at those points, worked out in double:
  //   ramp x*(x>0) + .1x; relie .01x below 0; plse .01(x+4) below -4, .01(x-4)+1 above 4, else
  //   .125x+.5; lhtan .001x below 0, .001(x-1)+1 above 1; loggy 2/(1+e^-x) - 1; stair: n=floor(x),
  //   even n -> floor(x/2), odd -> (x-n) + floor(x/2) (C's % keeps the sign); selu 1.0507x, or
  //   1.0507*1.6732*(e^x-1) below 0.
  struct Row {
    const char* name;
    std::vector<float> want;
  };
  const Row rows[] = {
      {"linear", {-5, -1.5, -0.5, 0, 0.3, 1.5, 2.5, 3.5, 5}},
      {"leaky", {-0.5, -0.15, -0.05, 0, 0.3, 1.5, 2.5, 3.5, 5}},
      {"relu", {0, 0, 0, 0, 0.3, 1.5, 2.5, 3.5, 5}},
      {"logistic", {0.00669285092, 0.182425524, 0.377540669, 0.5, 0.574442517, 0.817574476, 0.92414182, 0.970687769,
                    0.993307149}},
      {"ramp", {-0.5, -0.15, -0.05, 0, 0.33, 1.65, 2.75, 3.85, 5.5}},
      {"tanh", {-0.999909204, -0.905148254, -0.462117157, 0, 0.291312612, 0.905148254, 0.986614298, 0.998177898,
                0.999909204}},
      {"relie", {-0.05, -0.015, -0.005, 0, 0.3, 1.5, 2.5, 3.5, 5}},
      {"plse", {-0.01, 0.3125, 0.4375, 0.5, 0.5375, 0.6875, 0.8125, 0.9375, 1.01}},
      {"hardtan", {-1, -1, -0.5, 0, 0.3, 1, 1, 1, 1}},
      {"lhtan", {-0.005, -0.0015, -0.0005, 0, 0.3, 1.0005, 1.0015, 1.0025, 1.004}},
      {"elu", {-0.993262053, -0.77686984, -0.39346934, 0, 0.3, 1.5, 2.5, 3.5, 5}},
      {"loggy", {-0.986614298, -0.635148952, -0.244918662, 0, 0.148885034, 0.635148952, 0.84828364, 0.941375538,
                 0.986614298}},
      {"stair", {-3, -1, -0.5, 0, 0, 0.5, 1, 1.5, 2}},
      {"selu", {-1.74618572, -1.36576145, -0.691731392, 0, 0.31521, 1.57605, 2.62675, 3.67745, 5.2535}},
  };
  for (const Row& row : rows) {
    INFO("activation " << row.name);
    Activation a;
    REQUIRE(parse_activation(row.name, &a));
    CHECK(std::string(to_string(a)) == row.name);
    std::vector<float> got(pts.size());
    for (size_t i = 0; i < pts.size(); ++i) got[i] = activate(pts[i], a);
    check_close(got, row.want, 1e-6);
    std::vector<float> arr = pts;
    activate_array(arr.data(), arr.size(), a);
    check_close(arr, row.want, 1e-6);
    // Through an identity 1x1 conv (weight 1, bias 0) on both paths.
    run_both(std::string("act_") + row.name,
             net_section(9, 1, 1) + "[convolutional]\nfilters=1\nsize=1\nactivation=" + row.name + "\n", {0, 1}, pts, 0,
             row.want);
  }
  Activation a;
  CHECK_FALSE(parse_activation("leakyy", &a));
}

TEST_CASE("AlexeyAB activations: mish, swish, relu6, hard_mish, gelu", "[layers]") {
  struct Case {
    const char* name;
    double (*f)(double);
  };
  const Case cases[] = {
      {"mish", [](double v) { return v * std::tanh(std::log1p(std::exp(v))); }},
      {"swish", [](double v) { return v / (1 + std::exp(-v)); }},
      {"relu6", [](double v) { return std::min(std::max(v, 0.0), 6.0); }},
      {"hard_mish", [](double v) { return v > 0 ? v : v > -2 ? v * v / 2 + v : 0.0; }},
      {"gelu", [](double v) { return 0.5 * v * (1 + std::tanh(0.797885 * v + 0.035677 * v * v * v)); }},
  };
  const std::vector<float> x = {-30, -3, -1.5f, -0.2f, 0, 0.7f, 2, 7, 25};
  for (const Case& c : cases) {
    INFO(c.name);
    const std::string cfg = net_section(9, 1, 1) + "[convolutional]\nfilters=1\nsize=1\nactivation=" + c.name + "\n";
    auto o = run_tiny(std::string("act_") + c.name, cfg, {0, 1}, x, Compat::kAlexeyAB);
    std::vector<float> want;
    for (float v : x) want.push_back(float(c.f(v)));
    check_close(o[0], want, 1e-5f);
  }
}

// The vector logistic must give the scalar formula's bits for every float: random bit patterns
// (every exponent, NaN and infinities included), values where YOLO scores lie, and the edges of
// the vector range. Lengths that are not multiples of the vector leave a scalar tail too.
TEST_CASE("logistic_array equals Darknet's scalar logistic bit for bit, every variant", "[layers]") {
  std::vector<float> in;
  uint32_t state = 12345;
  auto next = [&] { return state = state * 1664525u + 1013904223u; };
  for (int i = 0; i < 200000; ++i) {
    const uint32_t bits = next();
    float f;
    std::memcpy(&f, &bits, sizeof f);
    in.push_back(f);
  }
  for (int i = 0; i < 800000; ++i) in.push_back((float(next() >> 8) / float(1 << 24) - 0.5f) * 60.f);
  for (float f : {0.f, -0.f, 1e-30f, -1e-30f, 1e-45f, -80.f, -80.00001f, -79.99999f, 700.f, 700.0001f, 88.f, -88.f,
                  -87.3f, -103.f, 3.4e38f, -3.4e38f, INFINITY, -INFINITY, NAN, -NAN})
    in.push_back(f);
  in.push_back(0.5f);  // odd length: a tail of scalar values
  std::vector<float> want(in.size());
  for (size_t i = 0; i < in.size(); ++i) want[i] = mdfi::activate(in[i], mdfi::Activation::kLogistic);
  int tried = 0;
  for (const char* v : {"avx512", "avx2", "neon", "scalar"}) {
    if (!mdfi::kernels::logistic_variant_available(v)) continue;
    ++tried;
    std::vector<float> got = in;
    mdfi::kernels::logistic_array(got.data(), got.size(), v);
    size_t differ = 0;
    for (size_t i = 0; i < in.size(); ++i)
      if (std::memcmp(&got[i], &want[i], sizeof(float)) != 0 && !(std::isnan(got[i]) && std::isnan(want[i]))) ++differ;
    INFO("variant " << v);
    CHECK(differ == 0);
  }
  CHECK(tried >= 1);
  std::vector<float> got = in;  // and through activate_array, as the layers call it
  mdfi::activate_array(got.data(), got.size(), mdfi::Activation::kLogistic);
  size_t differ = 0;
  for (size_t i = 0; i < in.size(); ++i)
    if (std::memcmp(&got[i], &want[i], sizeof(float)) != 0 && !(std::isnan(got[i]) && std::isnan(want[i]))) ++differ;
  CHECK(differ == 0);
}

// Leaky through activate_array (aarch64: kernels/leaky_fast.h, sixteen values a block, a block
// with a value below its range on double lanes) must give activate()'s bits everywhere: a sweep
// over every 65521st bit pattern of all 2^32 (each exponent, NaNs, infinities, both zeros), blocks
// of tiny negatives at and around the range's edge (2^-119) mixed into ordinary values, and a
// tail shorter than a block. bench/leaky_exhaustive.cpp checks the fast form on all 2^32 floats.
TEST_CASE("leaky over an array equals activate() bit for bit: a sweep of all floats and the fast form's edges",
          "[layers]") {
  std::vector<float> in;
  for (uint64_t b = 0; b < (uint64_t(1) << 32); b += 65521) {
    const uint32_t bits = uint32_t(b);
    float f;
    std::memcpy(&f, &bits, sizeof f);
    in.push_back(f);
  }
  const uint32_t edge = 0x84000000u;  // -2^-119: the fast form's range starts here
  for (uint32_t d = 0; d < 64; ++d)
    for (uint32_t bits : {edge - 1 - d, edge + d, 0x80000000u + d, 0x00000000u + d, 0x83f00000u + 977 * d}) {
      float f;
      std::memcpy(&f, &bits, sizeof f);
      in.push_back(f);
      in.push_back(-1.5f + float(d) / 32.f);  // ordinary values beside them in each block
    }
  for (int i = 0; i < 1000; ++i) in.push_back(float(i % 37) - 18.25f);  // blocks with no exception
  in.push_back(-3.f);  // a tail
  std::vector<float> got = in;
  activate_array(got.data(), got.size(), Activation::kLeaky);
  size_t differ = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const float want = activate(in[i], Activation::kLeaky);
    if (std::memcmp(&got[i], &want, sizeof(float)) != 0) ++differ;
  }
  CHECK(differ == 0);
}
