// Hand-computed checks of the core inference layers (issue 3): convolution (3x3, strided,
// batch-norm, depthwise, grouped, 1x1), every pjreddie activation, connected, maxpool (incl. SPP
// stride 1 with padding), global avgpool, route, shortcut (same shape, larger and smaller source,
// alpha/beta), upsample, softmax (groups, temperature) and dropout. Each case is a few-value
// network with a weights file written here; the expected numbers are worked out in the comments
// from Darknet's formulas, and both the reference and the fast path must produce them.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "activation.h"
#include "executor.h"
#include "plan.h"
#include "support.h"
#include "weights.h"

using namespace mdfi;
using namespace mdfi::test;

namespace {

using Outputs = std::vector<std::vector<float>>;  // one per layer

// Builds `cfg`, writes `params` after a 0.2 header as its weights file, runs `input` once on
// the given path and returns every layer's output.
Outputs run_once(const std::string& tag, const std::string& cfg, const std::vector<float>& params,
                 const std::vector<float>& input, bool reference) {
  // One directory for every case, made without a shell: tmp_dir's rm/mkdir per run would cost
  // more than the runs themselves on a loaded machine.
  const std::string dir = std::string(MDFI_TEST_TMP) + "/core_layers";
  ::mkdir(MDFI_TEST_TMP, 0755);
  ::mkdir(dir.c_str(), 0755);
  const std::string base = dir + "/" + tag;
  std::ofstream(base + ".cfg") << cfg;
  auto net = load_network_cfg(base + ".cfg", BuildOptions{});
  INFO((net.ok() ? std::string() : net.status().message()));
  REQUIRE(net.ok());
  CHECK(net->warnings.empty());
  REQUIRE(net->param_floats() == params.size());
  write_weights_file(base + ".weights", params);
  auto wf = WeightsFile::open(base + ".weights");
  REQUIRE(wf.ok());
  REQUIRE(wf->validate(*net).ok());
  REQUIRE(input.size() == net->input_shape().count());
  MemoryTracker mem;
  auto in = Buffer::make(mem, input.size(), MemCategory::kActivations, "input");
  REQUIRE(in.ok());
  std::memcpy(in->data(), input.data(), input.size() * sizeof(float));
  Outputs outs(net->layers.size());
  RunHooks hooks;
  hooks.on_output = [&outs](const Layer& l, const float* o) {
    outs[size_t(l.index)].assign(o, o + l.out.count());
    return Status::Ok();
  };
  ExecOptions exec;
  exec.reference = reference;
  exec.threads = 2;
  auto r = run_network(*net, make_plan(*net), *wf, std::move(*in), mem, hooks, exec);
  INFO((r.ok() ? std::string() : r.status().message()));
  REQUIRE(r.ok());
  return outs;
}

void check_close(const std::vector<float>& got, const std::vector<float>& want, double tol = 2e-5) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("value " << i << ": got " << got[i] << ", want " << want[i]);
    CHECK(std::fabs(double(got[i]) - double(want[i])) <= tol * std::max(1.0, std::fabs(double(want[i]))));
  }
}

// Runs the network on both paths, checks layer `layer` against `want` on each, and returns the
// reference path's outputs for further checks.
Outputs run_both(const std::string& tag, const std::string& cfg, const std::vector<float>& params,
                 const std::vector<float>& input, size_t layer, const std::vector<float>& want, double tol = 2e-5) {
  Outputs ref = run_once(tag + "_ref", cfg, params, input, true);
  Outputs fast = run_once(tag + "_fast", cfg, params, input, false);
  {
    INFO("reference path, layer " << layer);
    check_close(ref[layer], want, tol);
  }
  {
    INFO("fast path, layer " << layer);
    check_close(fast[layer], want, tol);
  }
  for (size_t i = 0; i < ref.size(); ++i) {
    INFO("fast vs reference, layer " << i);
    check_close(fast[i], ref[i]);
  }
  return ref;
}

std::string net_head(int w, int h, int c) {
  return "[net]\nbatch=64\nwidth=" + std::to_string(w) + "\nheight=" + std::to_string(h) + "\nchannels=" +
         std::to_string(c) + "\n";
}

// 1x3x3 input used by the conv cases:   1 2 3
//                                       4 5 6
//                                       7 8 9
const std::vector<float> kX3 = {1, 2, 3, 4, 5, 6, 7, 8, 9};
// A kernel that tells its taps apart (a transposed or flipped kernel gives other numbers):
//   1 0 0
//   0 2 0     out(i,j) = 1*x(i-1,j-1) + 2*x(i,j) + 3*x(i+1,j+1), zero outside the image
//   0 0 3
const std::vector<float> kDiag = {1, 0, 0, 0, 2, 0, 0, 0, 3};

}  // namespace

TEST_CASE("conv 3x3 pad 1 stride 1 on a 1x3x3 input", "[layers]") {
  // With bias 0.5:
  //   (0,0): 0 + 2*1 + 3*5 = 17   (0,1): 0 + 2*2 + 3*6 = 22   (0,2): 0 + 2*3 + 0 = 6
  //   (1,0): 0 + 2*4 + 3*8 = 32   (1,1): 1 + 2*5 + 3*9 = 38   (1,2): 2 + 2*6 + 0 = 14
  //   (2,0): 0 + 2*7 + 0   = 14   (2,1): 4 + 2*8 + 0   = 20   (2,2): 5 + 2*9 + 0 = 23
  std::vector<float> params = {0.5f};
  params.insert(params.end(), kDiag.begin(), kDiag.end());
  run_both("conv3", net_head(3, 3, 1) + "[convolutional]\nfilters=1\nsize=3\nstride=1\npad=1\nactivation=linear\n",
           params, kX3, 0, {17.5f, 22.5f, 6.5f, 32.5f, 38.5f, 14.5f, 14.5f, 20.5f, 23.5f});
}

TEST_CASE("conv 3x3 stride 2: every other output of the stride-1 result", "[layers]") {
  // out = (3 + 2 - 3)/2 + 1 = 2 per side, at input positions (0,0) (0,2) (2,0) (2,2): 17 6 14 23,
  // minus 1 from the bias, then leaky (all positive).
  std::vector<float> params = {-1.f};
  params.insert(params.end(), kDiag.begin(), kDiag.end());
  run_both("conv3s2", net_head(3, 3, 1) + "[convolutional]\nfilters=1\nsize=3\nstride=2\npad=1\nactivation=leaky\n",
           params, kX3, 0, {16, 5, 13, 22});
  // A bias of -20 makes some negative: leaky multiplies them by .1.
  params[0] = -20;
  run_both("conv3s2n", net_head(3, 3, 1) + "[convolutional]\nfilters=1\nsize=3\nstride=2\npad=1\nactivation=leaky\n",
           params, kX3, 0, {-0.3f, -1.4f, -0.6f, 3});
}

TEST_CASE("conv with batch_normalize: (x-mean)/(sqrt(var)+.000001f), then scale, then bias", "[layers]") {
  // Input 1x1x2 (x = 1, 3), two 1x1 filters: w0 = 1, w1 = -2 -> f0 = [1, 3], f1 = [-2, -6].
  // File order: biases, scales, rolling means, rolling variances, weights.
  const std::vector<float> params = {0.5f, -1,   // biases
                                     2, 0.5f,    // scales
                                     1, 2,       // means
                                     4, 0.25f,   // variances
                                     1, -2};     // weights
  const double e = double(.000001f);
  // f0: (x - 1) / (2 + e) * 2 + 0.5;  f1: (x - 2) / (0.5 + e) * 0.5 - 1
  const std::vector<float> want = {float((1 - 1) / (2 + e) * 2 + 0.5), float((3 - 1) / (2 + e) * 2 + 0.5),
                                   float((-2 - 2) / (0.5 + e) * 0.5 - 1), float((-6 - 2) / (0.5 + e) * 0.5 - 1)};
  // i.e. about 0.5, 2.5, -5, -9
  check_close(want, {0.5f, 2.5f, -5, -9}, 1e-5);
  run_both("conv_bn", net_head(2, 1, 1) + "[convolutional]\nbatch_normalize=1\nfilters=2\nsize=1\nactivation=linear\n",
           params, {1, 3}, 0, want);
  // The epsilon is added to the standard deviation, not the variance: with var = 0 it is the whole
  // denominator, (1 - 0.999999) / 1e-6 is about 1, far from the 1/sqrt(1e-5)-ish of other forms.
  const std::vector<float> tiny_var = {0, 1, 0.999999f, 0, 1};  // bias, scale, mean, var, weight
  const std::string cfg0 = net_head(1, 1, 1) + "[convolutional]\nbatch_normalize=1\nfilters=1\nsize=1\nactivation=linear\n";
  const float want0 = float((1.0 - double(0.999999f)) / e);
  check_close(run_once("conv_bn0_ref", cfg0, tiny_var, {1}, true)[0], {want0}, 1e-5);
  // The fast path folds BN into the weights (1e6 * x - 999999): float cancellation costs about
  // one ulp of 1e6 (0.06) here, so only a loose bound holds on this degenerate zero variance.
  const float fast0 = run_once("conv_bn0_fast", cfg0, tiny_var, {1}, false)[0][0];
  CHECK(std::fabs(fast0 - want0) < 0.1f);
}

TEST_CASE("depthwise conv (groups = channels) keeps channels apart", "[layers]") {
  // Channel 0 = kX3 with the kDiag kernel (bias 0.5): the conv 3x3 result above.
  // Channel 1 = all ones with an all-ones kernel (bias -1): the number of in-image taps, minus 1:
  //   corners 4, edges 6, centre 9.
  std::vector<float> params = {0.5f, -1};
  params.insert(params.end(), kDiag.begin(), kDiag.end());
  params.insert(params.end(), 9, 1.f);
  std::vector<float> x = kX3;
  x.insert(x.end(), 9, 1.f);
  run_both("depthwise",
           net_head(3, 3, 2) + "[convolutional]\nfilters=2\ngroups=2\nsize=3\nstride=1\npad=1\nactivation=linear\n",
           params, x, 0, {17.5f, 22.5f, 6.5f, 32.5f, 38.5f, 14.5f, 14.5f, 20.5f, 23.5f,  //
                          3, 5, 3, 5, 8, 5, 3, 5, 3});
}

TEST_CASE("grouped conv (groups=2): each filter sees only its group's channels", "[layers]") {
  // Input 4x1x1 = [1, 2, 3, 4]; 4 filters of 3x3 pad 1: only the centre tap lands in the image,
  // so the 100s elsewhere must be ignored. Group 0 (filters 0, 1) reads channels 0, 1; group 1
  // (filters 2, 3) reads channels 2, 3. Centre weights per filter: f0 (1, 1) -> 3; f1 (1, -1) ->
  // -1; f2 (2, 0) -> 6; f3 (0, 3) -> 12. Biases 0.
  auto kernel = [](float centre) {
    std::vector<float> k(9, 100.f);
    k[4] = centre;
    return k;
  };
  std::vector<float> params = {0, 0, 0, 0};
  for (float c : {1.f, 1.f, 1.f, -1.f, 2.f, 0.f, 0.f, 3.f}) {
    const auto k = kernel(c);
    params.insert(params.end(), k.begin(), k.end());
  }
  run_both("grouped",
           net_head(1, 1, 4) + "[convolutional]\nfilters=4\ngroups=2\nsize=3\nstride=1\npad=1\nactivation=linear\n",
           params, {1, 2, 3, 4}, 0, {3, -1, 6, 12});
  // The same with size=1: the direct 1x1 path.
  std::vector<float> p1 = {0, 0, 0, 0, 1, 1, 1, -1, 2, 0, 0, 3};
  run_both("grouped1", net_head(1, 1, 4) + "[convolutional]\nfilters=4\ngroups=2\nsize=1\nactivation=linear\n", p1,
           {1, 2, 3, 4}, 0, {3, -1, 6, 12});
}

TEST_CASE("1x1 conv mixes channels per pixel, then relu", "[layers]") {
  // x: ch0 = [1 2 3 4], ch1 = [5 6 7 8] (2x2). f0 = ch0, f1 = ch1 + 1, f2 = 2*ch0 - 0.5*ch1:
  //   f2 = [2-2.5, 4-3, 6-3.5, 8-4] = [-0.5, 1, 2.5, 4] -> relu [0, 1, 2.5, 4].
  const std::vector<float> params = {0, 1, 0,            // biases
                                     1, 0, 0, 1, 2, -0.5f};  // weights, filter-major
  run_both("conv1x1", net_head(2, 2, 2) + "[convolutional]\nfilters=3\nsize=1\nstride=1\nactivation=relu\n", params,
           {1, 2, 3, 4, 5, 6, 7, 8}, 0, {1, 2, 3, 4, 6, 7, 8, 9, 0, 1, 2.5f, 4});
}

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
             net_head(9, 1, 1) + "[convolutional]\nfilters=1\nsize=1\nactivation=" + row.name + "\n", {0, 1}, pts, 0,
             row.want);
  }
  Activation a;
  CHECK_FALSE(parse_activation("leakyy", &a));
}

TEST_CASE("connected without and with batch_normalize", "[layers]") {
  // Input 3 values [1, 2, 3]; weights rows w0 = [1, 0, -1], w1 = [0.5, 0.5, 0.5]; biases [1, -1].
  //   w.x = [-2, 3]; + bias = [-1, 2]; leaky -> [-0.1, 2].
  run_both("fc", net_head(3, 1, 1) + "[connected]\noutput=2\nactivation=leaky\n", {1, -1, 1, 0, -1, 0.5f, 0.5f, 0.5f},
           {1, 2, 3}, 0, {-0.1f, 2});
  // With BN (file order: biases, weights, scales, means, variances), bias added after the BN:
  //   y0 = (-2 - 0.5)/(1 + e)*2 + 1 = about -4;  y1 = (3 - 1)/(2 + e)*3 - 1 = about 2.
  const double e = double(.000001f);
  run_both("fc_bn", net_head(3, 1, 1) + "[connected]\nbatch_normalize=1\noutput=2\nactivation=linear\n",
           {1, -1, 1, 0, -1, 0.5f, 0.5f, 0.5f, 2, 3, 0.5f, 1, 1, 4}, {1, 2, 3}, 0,
           {float(-2.5 / (1 + e) * 2 + 1), float(2 / (2 + e) * 3 - 1)});
  // A connected layer flattens a CHW input in memory order: input 2x1x2 -> 4 inputs.
  run_both("fc_flat", net_head(2, 1, 2) + "[connected]\noutput=1\nactivation=linear\n", {0, 1, 10, 100, 1000},
           {1, 2, 3, 4}, 0, {4321});
}

TEST_CASE("maxpool 2x2/2 and SPP-style size 3 stride 1 with out-of-image taps ignored", "[layers]") {
  // 4x4 input, blocks:  [1 5 / 3 4] -> 5   [2 0 / 8 7] -> 8   [9 -1 / 0 2] -> 9   [6 6 / -3 10] -> 10
  const std::vector<float> x = {1, 5, 2, 0, 3, 4, 8, 7, 9, -1, 6, 6, 0, 2, -3, 10};
  run_both("max2", net_head(4, 4, 1) + "[maxpool]\nsize=2\nstride=2\n", {}, x, 0, {5, 8, 9, 10});
  // size 3 stride 1, default padding size-1 = 2 (one each side): output 3x3 = max of the in-image
  // 3x3 neighbourhood. All values negative, so a padding tap counted as 0 would show up.
  //   -1 -2 -3      (0,0) max{-1,-2,-4,-5} = -1   (0,1) -1   (0,2) max{-2,-3,-5,-6} = -2
  //   -4 -5 -6      (1,0) -1                      (1,1) -1   (1,2) -2
  //   -7 -8 -9      (2,0) max{-4,-5,-7,-8} = -4   (2,1) -4   (2,2) max{-5,-6,-8,-9} = -5
  run_both("spp3", net_head(3, 3, 1) + "[maxpool]\nsize=3\nstride=1\n", {}, {-1, -2, -3, -4, -5, -6, -7, -8, -9}, 0,
           {-1, -1, -2, -1, -1, -2, -4, -4, -5});
  // Two channels pool independently.
  run_both("max2c", net_head(2, 2, 2) + "[max]\nsize=2\nstride=2\n", {}, {1, 4, 2, 3, -5, -6, -7, -8}, 0, {4, -5});
}

TEST_CASE("global avgpool averages each channel", "[layers]") {
  run_both("avg", net_head(2, 2, 2) + "[avgpool]\n", {}, {1, 2, 3, 4, -1, -1, -1, 5}, 0, {2.5f, 0.5f});
}

TEST_CASE("route concatenates its sources in the order listed", "[layers]") {
  // x = [1, -2] (2x1). Layer 0: identity 1x1 conv -> A = [1, -2]. Layer 1: 2 filters (w 2, 3) on
  // A -> B = [2, -4, 3, -6]. Layer 2: route -1,0 -> [B, A]. Layer 3: route 0,1 -> [A, B].
  const std::string cfg = net_head(2, 1, 1) +
                          "[convolutional]\nfilters=1\nsize=1\nactivation=linear\n"
                          "[convolutional]\nfilters=2\nsize=1\nactivation=linear\n"
                          "[route]\nlayers=-1,0\n"
                          "[route]\nlayers=0, 1\n";
  const Outputs o = run_both("route", cfg, {0, 1, 0, 0, 2, 3}, {1, -2}, 2, {2, -4, 3, -6, 1, -2});
  check_close(o[3], {1, -2, 2, -4, 3, -6});
}

TEST_CASE("shortcut: same shape with alpha/beta, and sources larger and smaller than the output", "[layers]") {
  SECTION("same shape: alpha * previous + beta * from, then the activation") {
    // A = x = [1, -2]; B = 2A = [2, -4]; shortcut from A: 0.5*B + 3*A = 4x = [4, -8]; leaky -> [4, -0.8].
    const std::string cfg = net_head(2, 1, 1) +
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
    const std::string cfg = net_head(4, 4, 1) +
                            "[convolutional]\nfilters=1\nsize=1\nactivation=linear\n"
                            "[maxpool]\nsize=2\nstride=2\n"
                            "[shortcut]\nfrom=0\nactivation=linear\n"
                            "[route]\nlayers=0\n"
                            "[shortcut]\nfrom=1\nactivation=linear\n";
    const Outputs o = run_both("sc_shapes", cfg, {0, 1}, x, 2, {5, 9, 21, 25});
    std::vector<float> want = x;
    want[0] += 5;
    want[2] += 7;
    want[8] += 13;
    want[10] += 15;
    check_close(o[4], want);
  }
  SECTION("more channels in the source than the output: the extra ones are dropped") {
    // Layer 0: 2 filters -> [x, -x]; layer 1: 1 filter -> 10x; shortcut from 0 adds channel 0 only.
    const std::string cfg = net_head(2, 1, 1) +
                            "[convolutional]\nfilters=2\nsize=1\nactivation=linear\n"
                            "[convolutional]\nfilters=1\nsize=1\nactivation=linear\n"
                            "[shortcut]\nfrom=0\nactivation=linear\n";
    run_both("sc_chan", cfg, {0, 0, 1, -1, 0, 10, 0}, {1, 2}, 2, {11, 22});
  }
}

TEST_CASE("upsample x2 repeats each pixel and multiplies by scale", "[layers]") {
  run_both("upsample", net_head(2, 2, 1) + "[upsample]\nstride=2\nscale=0.5\n", {}, {1, 2, 3, 4}, 0,
           {0.5f, 0.5f, 1, 1, 0.5f, 0.5f, 1, 1, 1.5f, 1.5f, 2, 2, 1.5f, 1.5f, 2, 2});
  // Default scale 1, two channels, stride 3 on a 1x1 input.
  run_both("upsample3", net_head(1, 1, 2) + "[upsample]\nstride=3\n", {}, {7, -1}, 0,
           {7, 7, 7, 7, 7, 7, 7, 7, 7, -1, -1, -1, -1, -1, -1, -1, -1, -1});
}

TEST_CASE("softmax with groups and temperature", "[layers]") {
  // x = [1, 2, 0, 4], groups=2, temperature=2: softmax([0.5, 1]) and softmax([0, 2]):
  //   1/(1+e^0.5) = 0.377540669, e^0.5/(1+e^0.5) = 0.622459331; 1/(1+e^2) = 0.119202922, 0.880797078.
  run_both("softmax_g", net_head(1, 1, 4) + "[softmax]\ngroups=2\ntemperature=2\n", {}, {1, 2, 0, 4}, 0,
           {0.377540669f, 0.622459331f, 0.119202922f, 0.880797078f}, 1e-6);
  // One group, temperature 1: e^x / sum over [1, 2, 0, 4] (sum = e + e^2 + 1 + e^4 = 65.68336).
  const double s = std::exp(1.0) + std::exp(2.0) + 1 + std::exp(4.0);
  run_both("softmax1", net_head(1, 1, 4) + "[soft]\n", {}, {1, 2, 0, 4}, 0,
           {float(std::exp(1.0) / s), float(std::exp(2.0) / s), float(1 / s), float(std::exp(4.0) / s)});
}

TEST_CASE("dropout is the identity at inference", "[layers]") {
  const std::string cfg = net_head(3, 1, 1) +
                          "[convolutional]\nfilters=1\nsize=1\nactivation=linear\n"
                          "[dropout]\nprobability=.5\n";
  auto net = network_from_text(cfg, "core_dropout.cfg");
  REQUIRE(net.ok());
  CHECK(net->layers[1]->aliases_input());
  CHECK(net->layers[1]->param_floats() == 0);
  // conv: 3x - 1 = [2, -7, 0.5]; dropout passes it through untouched.
  const Outputs o = run_both("dropout", cfg, {-1, 3}, {1, -2, 0.5f}, 1, {2, -7, 0.5f});
  CHECK(o[1] == o[0]);
}
