// [convolutional]: hand-computed 3x3 (padded, strided), batch-norm, depthwise, grouped and 1x1 cases on
// both paths, and the AlexeyAB keys that are refused or accepted.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "backend.h"
#include "npy.h"
#include "support.h"
#include "weights.h"

using namespace mdfi;
using namespace mdfi::test;

namespace {

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
  run_both("conv3", net_section(3, 3, 1) + "[convolutional]\nfilters=1\nsize=3\nstride=1\npad=1\nactivation=linear\n",
           params, kX3, 0, {17.5f, 22.5f, 6.5f, 32.5f, 38.5f, 14.5f, 14.5f, 20.5f, 23.5f});
}

TEST_CASE("conv 3x3 stride 2: every other output of the stride-1 result", "[layers]") {
  // out = (3 + 2 - 3)/2 + 1 = 2 per side, at input positions (0,0) (0,2) (2,0) (2,2): 17 6 14 23,
  // minus 1 from the bias, then leaky (all positive).
  std::vector<float> params = {-1.f};
  params.insert(params.end(), kDiag.begin(), kDiag.end());
  run_both("conv3s2", net_section(3, 3, 1) + "[convolutional]\nfilters=1\nsize=3\nstride=2\npad=1\nactivation=leaky\n",
           params, kX3, 0, {16, 5, 13, 22});
  // A bias of -20 makes some negative: leaky multiplies them by .1.
  params[0] = -20;
  run_both("conv3s2n", net_section(3, 3, 1) + "[convolutional]\nfilters=1\nsize=3\nstride=2\npad=1\nactivation=leaky\n",
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
  run_both("conv_bn", net_section(2, 1, 1) + "[convolutional]\nbatch_normalize=1\nfilters=2\nsize=1\nactivation=linear\n",
           params, {1, 3}, 0, want);
  // The epsilon is added to the standard deviation, not the variance: with var = 0 it is the whole
  // denominator, (1 - 0.999999) / 1e-6 is about 1, far from the 1/sqrt(1e-5)-ish of other forms.
  const std::vector<float> tiny_var = {0, 1, 0.999999f, 0, 1};  // bias, scale, mean, var, weight
  const std::string cfg0 = net_section(1, 1, 1) + "[convolutional]\nbatch_normalize=1\nfilters=1\nsize=1\nactivation=linear\n";
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
           net_section(3, 3, 2) + "[convolutional]\nfilters=2\ngroups=2\nsize=3\nstride=1\npad=1\nactivation=linear\n",
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
           net_section(1, 1, 4) + "[convolutional]\nfilters=4\ngroups=2\nsize=3\nstride=1\npad=1\nactivation=linear\n",
           params, {1, 2, 3, 4}, 0, {3, -1, 6, 12});
  // The same with size=1: the direct 1x1 path.
  std::vector<float> p1 = {0, 0, 0, 0, 1, 1, 1, -1, 2, 0, 0, 3};
  run_both("grouped1", net_section(1, 1, 4) + "[convolutional]\nfilters=4\ngroups=2\nsize=1\nactivation=linear\n", p1,
           {1, 2, 3, 4}, 0, {3, -1, 6, 12});
}

TEST_CASE("1x1 conv mixes channels per pixel, then relu", "[layers]") {
  // x: ch0 = [1 2 3 4], ch1 = [5 6 7 8] (2x2). f0 = ch0, f1 = ch1 + 1, f2 = 2*ch0 - 0.5*ch1:
  //   f2 = [2-2.5, 4-3, 6-3.5, 8-4] = [-0.5, 1, 2.5, 4] -> relu [0, 1, 2.5, 4].
  const std::vector<float> params = {0, 1, 0,            // biases
                                     1, 0, 0, 1, 2, -0.5f};  // weights, filter-major
  run_both("conv1x1", net_section(2, 2, 2) + "[convolutional]\nfilters=3\nsize=1\nstride=1\nactivation=relu\n", params,
           {1, 2, 3, 4, 5, 6, 7, 8}, 0, {1, 2, 3, 4, 6, 7, 8, 9, 0, 1, 2.5f, 4});
}

TEST_CASE("AlexeyAB conv keys that change results are refused, harmless values accepted", "[layers]") {
  const std::string head = "[net]\nwidth=8\nheight=8\nchannels=3\n\n[convolutional]\nfilters=2\nsize=3\nstride=1\n";
  // dilation=2 without pad=1: AlexeyAB's output size and dilated im2col disagree (dilation itself
  // and share_index are supported: the cases below).
  for (const char* bad : {"dilation=2", "stride_x=2", "antialiasing=1"}) {
    auto n = network_from_text(head + bad + "\n", "conv_bad.cfg");
    INFO(bad);
    REQUIRE_FALSE(n.ok());
    CHECK(n.status().kind() == ErrorKind::kUnsupported);
    CHECK(n.status().message().find("conv_bad.cfg:10") != std::string::npos);
  }
  CHECK(network_from_text(head + "dilation=1\nstride_x=1\nstride_y=1\nantialiasing=0\n", "conv_ok.cfg").ok());
}

// dilation= (AlexeyAB): taps `dilation` pixels apart with pad*dilation of padding, on the reference
// and fast paths, against a direct loop; parity on resnet152_trident: test_alexeyab_parity.cpp.

TEST_CASE("conv dilation: matches a direct dilated convolution on both paths", "[layers]") {
  const int c = 2, h = 7, w = 6, f = 2, k = 3;
  for (int d : {2, 3})
    for (int groups : {1, 2}) {
      const std::string cfg = net_section(w, h, c) + "[convolutional]\nfilters=2\nsize=3\nstride=1\npad=1\ndilation=" +
                              std::to_string(d) + "\ngroups=" + std::to_string(groups) + "\nactivation=linear\n";
      const int cpg = c / groups;
      std::vector<float> params = {0.25f, -0.5f};  // biases
      const std::vector<float> wts = random_floats(size_t(f * cpg * k * k), 11);
      params.insert(params.end(), wts.begin(), wts.end());
      const std::vector<float> x = random_floats(size_t(c * h * w), 12);
      std::vector<float> want(size_t(f * h * w));
      for (int o = 0; o < f; ++o)
        for (int y = 0; y < h; ++y)
          for (int xx = 0; xx < w; ++xx) {
            double s = params[size_t(o)];
            const int g = o / (f / groups);
            for (int ci = 0; ci < cpg; ++ci)
              for (int ky = 0; ky < k; ++ky)
                for (int kx = 0; kx < k; ++kx) {
                  const int iy = y - d + ky * d, ix = xx - d + kx * d;  // pad = 1 * dilation
                  if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
                  s += double(wts[size_t(((o * cpg + ci) * k + ky) * k + kx)]) *
                       x[size_t(((g * cpg + ci) * h + iy) * w + ix)];
                }
            want[size_t((o * h + y) * w + xx)] = float(s);
          }
      for (bool reference : {true, false}) {
        const LayerOutputs r = run_layers("dil", cfg, params, x, LayerRunOptions{Compat::kAlexeyAB, reference, 2});
        INFO("dilation " << d << " groups " << groups << (reference ? " reference" : " fast"));
        CHECK(relative_error(r[0], want) <= 1e-5);
      }
    }
}

TEST_CASE("conv dilation: depthwise layers take the grouped path and still match", "[layers]") {
  const std::string base = net_section(5, 5, 3) + "[convolutional]\nfilters=3\nsize=3\nstride=1\npad=1\ngroups=3\nactivation=leaky\n";
  std::vector<float> params = {0.1f, 0.2f, 0.3f};
  const std::vector<float> wts = random_floats(27, 5);
  params.insert(params.end(), wts.begin(), wts.end());
  const std::vector<float> x = random_floats(75, 6);
  const LayerOutputs ref = run_layers("dil_dw_ref", base + "dilation=2\n", params, x, LayerRunOptions{Compat::kAlexeyAB, true});
  const LayerOutputs fast = run_layers("dil_dw_fast", base + "dilation=2\n", params, x, LayerRunOptions{Compat::kAlexeyAB, false, 2});
  CHECK(relative_error(fast[0], ref[0]) <= 1e-6);
  const LayerOutputs plain = run_layers("dil_dw_plain", base, params, x, LayerRunOptions{Compat::kAlexeyAB, true});
  CHECK(relative_error(plain[0], ref[0]) > 1e-3);  // the dilation did change the result
}

TEST_CASE("conv dilation: padding where AlexeyAB's output size and im2col disagree is refused", "[layers]") {
  auto net = network_from_text(net_section(8, 8, 1) + "[convolutional]\nfilters=1\nsize=3\nstride=1\ndilation=2\n");
  REQUIRE_FALSE(net.ok());
  CHECK(net.status().message().find("dilation=2") != std::string::npos);
  // A 1x1 kernel ignores dilation, as in AlexeyAB.
  auto one = network_from_text(net_section(8, 8, 1) + "[convolutional]\nfilters=1\nsize=1\nstride=1\ndilation=4\n");
  CHECK(one.ok());
}

TEST_CASE("conv dilation: OpenCL runs dilated and weight-sharing convs on the CPU, same result", "[opencl]") {
  if (!cl::compiled_in()) MDFI_SKIP(Need::kOpenCL, "built without OpenCL (MDFI_OPENCL=OFF)");
  auto devs = cl::list_devices();
  if (!devs.ok()) MDFI_SKIP(Need::kOpenCL, "no OpenCL platform: " << devs.status().message());
  const std::string conv = "[convolutional]\nbatch_normalize=1\nfilters=4\nsize=3\nstride=1\npad=1\nactivation=leaky\n";
  const std::string text = net_section(16, 16, 3) + conv + conv + "dilation=2\n" + conv + "dilation=3\nshare_index=-1\n";
  const std::string dir = tmp_dir("dil_cl");
  write_file(dir + "/d.cfg", text);
  auto net = load_network_cfg(dir + "/d.cfg", BuildOptions{});
  REQUIRE(net.ok());
  CHECK(cl::Backend::host_layers(*net) == std::vector<int>{1, 2});
  REQUIRE(generate_weights(*net, dir + "/d.weights", 9).ok());  // positive variances
  const std::string model = " --cfg '" + dir + "/d.cfg' -w '" + dir + "/d.weights' /usr/share/darknet/data/dog.jpg";
  auto cpu = run_command(mdfi_binary() + " -q classify --dump-layers '" + dir + "/cpu'" + model);
  INFO(cpu.err);
  REQUIRE(cpu.exit_code == 0);
  auto dev = run_command(mdfi_binary() + " -v classify --backend opencl --dump-layers '" + dir + "/cl'" + model);
  INFO(dev.err);
  REQUIRE(dev.exit_code == 0);
  CHECK(dev.err.find("2 of 3 layers have no device kernel and run on the CPU: 1 [conv], 2 [conv]") != std::string::npos);
  for (const char* layer : {"/000.npy", "/001.npy", "/002.npy"}) {
    auto a = read_npy(dir + "/cl" + layer);
    auto b = read_npy(dir + "/cpu" + layer);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    INFO(layer);
    CHECK(relative_error(a->data, b->data) <= 1e-5);
  }
}

// share_index= (AlexeyAB, resnet152_trident): a conv computing with an earlier conv's weights,
// biases and batch-norm, with none of its own in the file.

namespace {
const std::string kConv = "[convolutional]\nbatch_normalize=1\nfilters=2\nsize=3\nstride=1\npad=1\nactivation=leaky\n";
}

TEST_CASE("conv share_index: reuses the earlier layer's parameters, reads none of its own", "[layers]") {
  // Layer 1 is the same conv as layer 0 (2 -> 2 channels), dilated, sharing layer 0's parameters.
  const std::string cfg = net_section(5, 4, 2) + kConv + kConv + "dilation=2\nshare_index=0\n";
  auto net = network_from_text(cfg);
  INFO((net.ok() ? std::string() : net.status().message()));
  REQUIRE(net.ok());
  CHECK(net->layers[1]->param_floats() == 0);
  CHECK(net->layers[1]->params_from() == 0);
  std::vector<float> params = random_floats(2 * 4 + 2 * 2 * 9, 3);
  params[6] = 0.7f, params[7] = 1.3f;  // variances
  const std::vector<float> x = random_floats(40, 4);
  // The same two convs, the second with its own copy of layer 0's parameters, is the expectation.
  const std::string own = net_section(5, 4, 2) + kConv + kConv + "dilation=2\n";
  std::vector<float> twice = params;
  twice.insert(twice.end(), params.begin(), params.end());
  for (bool reference : {true, false}) {
    const LayerOutputs shared = run_layers("share", cfg, params, x, LayerRunOptions{Compat::kAlexeyAB, reference});
    const LayerOutputs copy = run_layers("share_own", own, twice, x, LayerRunOptions{Compat::kAlexeyAB, reference});
    CHECK(shared[1] == copy[1]);
  }
  // A negative share_index counts back from the layer.
  CHECK(network_from_text(net_section(5, 4, 2) + kConv + kConv + "share_index=-1\n").ok());
}

TEST_CASE("conv share_index: naming a non-conv or a conv of another shape is refused", "[layers]") {
  auto route = network_from_text(net_section(5, 4, 2) + kConv + "[route]\nlayers=0\n" + kConv + "share_index=1\n");
  REQUIRE_FALSE(route.ok());
  CHECK(route.status().message().find("must name an earlier [convolutional] layer") != std::string::npos);
  auto other = network_from_text(net_section(5, 4, 2) + kConv + "[convolutional]\nfilters=3\nsize=3\npad=1\nshare_index=0\n");
  REQUIRE_FALSE(other.ok());
  CHECK(other.status().message().find("another size, filters, channels or groups") != std::string::npos);
}
