// [shortcut]: pjreddie's strided form (same, larger and smaller sources, alpha/beta) and AlexeyAB's
// weighted form (weights_type, weights_normalization).
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "support.h"

using namespace mdfi;
using namespace mdfi::test;

namespace {

// These hand-computed cases hold to 1e-5 (check_close defaults to 2e-5).
constexpr double kTol = 1e-5;

}  // namespace

TEST_CASE("shortcut: same shape with alpha/beta, and sources larger and smaller than the output", "[layers]") {
  SECTION("same shape: alpha * previous + beta * from, then the activation") {
    // A = x = [1, -2]; B = 2A = [2, -4]; shortcut from A: 0.5*B + 3*A = 4x = [4, -8]; leaky -> [4, -0.8].
    const std::string cfg = net_section(2, 1, 1) +
                            "[convolutional]\nfilters=1\nsize=1\nactivation=linear\n"
                            "[convolutional]\nfilters=1\nsize=1\nactivation=linear\n"
                            "[shortcut]\nfrom=-2\nalpha=0.5\nbeta=3\nactivation=leaky\n";
    run_both("sc_same", cfg, {0, 1, 0, 2}, {1, -2}, 2, {4, -0.8f});
  }
  SECTION("larger source (stride) and smaller source (sample)") {
    // x = 0..15 (4x4). Layer 0: identity -> A. Layer 1: maxpool 2/2 -> B = [5, 7, 13, 15].
    // Layer 2: B + A subsampled with stride 2: B(i,j) + A(2i,2j) = [5+0, 7+2, 13+8, 15+10].
    // Layer 3: route back to A (4x4). Layer 4: A + B spread with sample 2: B(i,j) lands on
    // A(2i,2j): indices 0, 2, 8, 10 gain 5, 7, 13, 15; the rest stay.
    std::vector<float> x(16);
    for (int i = 0; i < 16; ++i) x[size_t(i)] = float(i);
    const std::string cfg = net_section(4, 4, 1) +
                            "[convolutional]\nfilters=1\nsize=1\nactivation=linear\n"
                            "[maxpool]\nsize=2\nstride=2\n"
                            "[shortcut]\nfrom=0\nactivation=linear\n"
                            "[route]\nlayers=0\n"
                            "[shortcut]\nfrom=1\nactivation=linear\n";
    const LayerOutputs o = run_both("sc_shapes", cfg, {0, 1}, x, 2, {5, 9, 21, 25});
    std::vector<float> want = x;
    want[0] += 5;
    want[2] += 7;
    want[8] += 13;
    want[10] += 15;
    check_close(o[4], want);
  }
  SECTION("more channels in the source than the output: the extra ones are dropped") {
    // Layer 0: 2 filters -> [x, -x]; layer 1: 1 filter -> 10x; shortcut from 0 adds channel 0 only.
    const std::string cfg = net_section(2, 1, 1) +
                            "[convolutional]\nfilters=2\nsize=1\nactivation=linear\n"
                            "[convolutional]\nfilters=1\nsize=1\nactivation=linear\n"
                            "[shortcut]\nfrom=0\nactivation=linear\n";
    run_both("sc_chan", cfg, {0, 0, 1, -1, 0, 10, 0}, {1, 2}, 2, {11, 22});
  }
}

TEST_CASE("shortcut: AlexeyAB weights_type per_feature and per_channel with normalisation", "[layers]") {
  const std::string base = net_section(1, 1, 2) + "[convolutional]\nfilters=2\nsize=1\nactivation=linear\n\n"
                                               "[convolutional]\nfilters=2\nsize=1\nactivation=linear\n\n";
  const std::vector<float> convs = {0, 0, 1, 0, 0, 1, 0, 0, 2, 0, 0, 2};  // identity, then 2*identity
  const std::vector<float> x = {1, -3};
  SECTION("per_feature, no normalisation: w0*prev + w1*from") {
    std::vector<float> p = convs;
    p.insert(p.end(), {0.5f, 3});
    auto o = run_tiny("sc_pf", base + "[shortcut]\nfrom=0\nweights_type=per_feature\nactivation=linear\n", p, x,
                      Compat::kAlexeyAB);
    check_close(o[2], {0.5f * 2 + 3 * 1, 0.5f * -6 + 3 * -3}, kTol);
  }
  SECTION("per_channel, relu normalisation") {
    std::vector<float> p = convs;
    p.insert(p.end(), {1, -1, 3, 2});  // [source][channel]: prev c0,c1 then from c0,c1
    auto o = run_tiny("sc_pc", base + "[shortcut]\nfrom=0\nweights_type=per_channel\nweights_normalization=relu\n", p,
                      x, Compat::kAlexeyAB);
    const float s0 = 0.0001f + 1 + 3, s1 = 0.0001f + 0 + 2;
    check_close(o[2], {2 * 1 / s0 + 1 * 3 / s0, -6 * 0 / s1 + -3 * 2 / s1}, kTol);
  }
  SECTION("per_feature, softmax normalisation, leaky") {
    std::vector<float> p = convs;
    p.insert(p.end(), {0, std::log(3.f)});
    auto o = run_tiny("sc_sm", base + "[shortcut]\nfrom=0\nweights_type=per_feature\nweights_normalization=softmax\n"
                                      "activation=leaky\n",
                      p, x, Compat::kAlexeyAB);
    const float s = 0.0001f + 1.f / 3 + 1;  // exp(w - max): 1/3 and 1
    const float c0 = 2 * (1.f / 3) / s + 1 * 1 / s, c1 = -6 * (1.f / 3) / s + -3 * 1 / s;
    check_close(o[2], {c0, c1 * 0.1f}, kTol);
  }
}
