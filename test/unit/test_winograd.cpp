// Winograd convolution (kernels/winograd.h) against a double-precision direct convolution, the
// whole layer against the reference path, kept weights against streamed ones, and the planner's
// rule that Winograd never raises a network's predicted peak (conv_choice.h).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "conv_choice.h"
#include "executor.h"
#include "kernels/sgemm.h"
#include "kernels/winograd.h"
#include "layers/conv.h"
#include "plan.h"
#include "resident_weights.h"
#include "support.h"
#include "weights.h"

using namespace mdfi;
using namespace mdfi::test;

namespace {

// Direct 3x3 stride-1 convolution in double, then (scale * sum + bias) and leaky.
std::vector<double> direct_conv(const kernels::WinogradGeo& g, const std::vector<float>& in, const std::vector<float>& w,
                                const std::vector<float>& scale, const std::vector<float>& bias) {
  std::vector<double> out(size_t(g.filters) * g.out_h * g.out_w);
  for (int f = 0; f < g.filters; ++f)
    for (int y = 0; y < g.out_h; ++y)
      for (int x = 0; x < g.out_w; ++x) {
        double s = 0;
        for (int c = 0; c < g.channels; ++c)
          for (int ky = 0; ky < 3; ++ky)
            for (int kx = 0; kx < 3; ++kx) {
              const int iy = y - g.pad + ky, ix = x - g.pad + kx;
              if (iy < 0 || iy >= g.height || ix < 0 || ix >= g.width) continue;
              s += double(w[((size_t(f) * g.channels + c) * 3 + ky) * 3 + kx]) *
                   in[(size_t(c) * g.height + iy) * g.width + ix];
            }
        const double v = s * scale[size_t(f)] + bias[size_t(f)];
        out[(size_t(f) * g.out_h + y) * g.out_w + x] = v > 0 ? v : .1 * v;
      }
  return out;
}

// U for all filters, kMR at a time, as the layer prepares it.
std::vector<float> transform_all(const kernels::WinogradGeo& g, int f0, int count, const std::vector<float>& w,
                                 const std::vector<float>& scale) {
  std::vector<float> u(kernels::winograd_u_floats(g, count), -9.f);
  const size_t plane = kernels::packed_a_floats(count, g.channels);
  for (int q = 0; q * kernels::kMR < count; ++q) {
    const int first = f0 + q * kernels::kMR, rows = std::min(kernels::kMR, f0 + count - first);
    kernels::winograd_transform_weights(g, rows, w.data() + size_t(first) * g.channels * 9, scale.data() + first,
                                        u.data(), plane, q);
  }
  return u;
}

}  // namespace

TEST_CASE("Winograd F(2x2) and F(4x4) equal a direct convolution: odd sizes, padding, BN scale, bias, leaky",
          "[layers][winograd]") {
  struct Case {
    int c, h, w, pad, filters;
  };
  // Channels and filters that are not multiples of 8 or of any SIMD width; outputs that do not
  // divide into tiles; pad 0 (valid) and 1 (same); a 13x13 map (fewer tiles than a 32-wide panel).
  const Case cases[] = {{9, 11, 17, 1, 19}, {13, 7, 5, 0, 8}, {24, 13, 13, 1, 33}, {10, 2, 9, 1, 9}, {17, 30, 23, 1, 12}};
  for (int m : {2, 4})
    for (const Case& cs : cases) {
      kernels::WinogradGeo g;
      g.m = m;
      g.channels = cs.c;
      g.height = cs.h;
      g.width = cs.w;
      g.pad = cs.pad;
      g.filters = cs.filters;
      g.out_h = cs.h + 2 * cs.pad - 2;
      g.out_w = cs.w + 2 * cs.pad - 2;
      const auto in = random_floats(size_t(cs.c) * cs.h * cs.w, 21);
      const auto w = random_floats(size_t(cs.filters) * cs.c * 9, 22);
      auto scale = random_floats(size_t(cs.filters), 23);
      for (float& s : scale) s = 0.5f + std::fabs(s);
      const auto bias = random_floats(size_t(cs.filters), 24);
      const auto want = direct_conv(g, in, w, scale, bias);
      // F(4x4)'s transforms scale values by up to 8 and 1/24: a wider but still small error.
      const double tol = m == 2 ? 2e-6 : 2e-5;
      INFO("F(" << m << "x" << m << ") c" << cs.c << " " << cs.h << "x" << cs.w << " pad " << cs.pad << " filters "
                << cs.filters << " kernel " << kernels::winograd_kernel(g).name);

      // Whole weights: each thread transforms one tile panel at a time.
      const auto u = transform_all(g, 0, cs.filters, w, scale);
      std::vector<float> ws(kernels::winograd_panel_workspace_floats(g, 2));
      std::vector<float> out(want.size(), 77.f);
      kernels::winograd_conv_whole_weights(g, in.data(), u.data(), bias.data(), Activation::kLeaky, out.data(), 2,
                                           ws.data());
      CHECK(relative_error(out, want) < tol);
      // Any thread count gives the same bits (each thread its own consecutive tile panels).
      for (int threads : {1, 3, 5}) {
        std::vector<float> wst(kernels::winograd_panel_workspace_floats(g, threads)), outt(want.size(), 77.f);
        kernels::winograd_conv_whole_weights(g, in.data(), u.data(), bias.data(), Activation::kLeaky, outt.data(),
                                             threads, wst.data());
        INFO(threads << " threads");
        CHECK(std::memcmp(outt.data(), out.data(), out.size() * sizeof(float)) == 0);
      }

      // Whole input, from the whole U and streamed panel by panel.
      std::vector<float> ws2(kernels::winograd_input_workspace_floats(g, 2));
      std::vector<float> out2(want.size(), 77.f);
      kernels::winograd_transform_input(g, in.data(), ws2.data(), 2);
      kernels::winograd_multiply_all(g, u.data(), bias.data(), Activation::kLeaky, out2.data(), 2, ws2.data());
      CHECK(relative_error(out2, want) < tol);
      // Several filter panels per pass over V (kept weights): the same products, the same bits.
      for (int group : {2, 3, 8}) {
        kernels::WinogradGeo gg = g;
        gg.group = group;
        std::vector<float> wsg(kernels::winograd_input_workspace_floats(gg, 2)), outg(want.size(), 77.f);
        kernels::winograd_transform_input(gg, in.data(), wsg.data(), 2);
        kernels::winograd_multiply_all(gg, u.data(), bias.data(), Activation::kLeaky, outg.data(), 2, wsg.data());
        INFO("group " << group);
        CHECK(std::memcmp(outg.data(), out2.data(), out2.size() * sizeof(float)) == 0);
      }
      struct Source : kernels::WinogradPanelSource {
        const kernels::WinogradGeo* g;
        const std::vector<float>*w, *scale;
        bool panel(int q, float* u_panel, float* raw) override {
          const int first = q * kernels::kMR, rows = std::min(kernels::kMR, g->filters - first);
          std::memcpy(raw, w->data() + size_t(first) * g->channels * 9, size_t(rows) * g->channels * 9 * sizeof(float));
          kernels::winograd_transform_weights(*g, rows, raw, scale->data() + first, u_panel,
                                              size_t(kernels::kMR) * g->channels, 0);
          return true;
        }
      } source;
      source.g = &g;
      source.w = &w;
      source.scale = &scale;
      std::vector<float> wscratch(kernels::winograd_stream_weight_floats(g, 2));
      std::vector<float> out3(want.size(), 77.f);
      kernels::winograd_multiply_streamed(g, source, bias.data(), Activation::kLeaky, out3.data(), 2, ws2.data(),
                                          wscratch.data());
      CHECK(std::memcmp(out3.data(), out2.data(), out2.size() * sizeof(float)) == 0);
      // Streamed, several filter panels per pass (each thread makes a pass's U, then goes over V
      // once): the same bits as one panel per pass, at 1, 2 and 3 threads.
      for (int group : {2, 3, 8})
        for (int threads : {1, 2, 3}) {
          kernels::WinogradGeo gg = g;
          gg.group = group;
          std::vector<float> wsg(kernels::winograd_input_workspace_floats(gg, threads));
          std::vector<float> wscratch_g(kernels::winograd_stream_weight_floats(gg, threads), -5.f);
          std::vector<float> outg(want.size(), 77.f);
          kernels::winograd_transform_input(gg, in.data(), wsg.data(), threads);
          kernels::winograd_multiply_streamed(gg, source, bias.data(), Activation::kLeaky, outg.data(), threads,
                                              wsg.data(), wscratch_g.data());
          INFO("streamed, group " << group << ", " << threads << " threads");
          CHECK(std::memcmp(outg.data(), out2.data(), out2.size() * sizeof(float)) == 0);
        }

      // Every instruction-set variant of the per-tile work gives the generic variant's bits.
      std::vector<float> generic_out(want.size(), 0.f);
      kernels::winograd_conv_whole_weights(g, in.data(), u.data(), bias.data(), Activation::kLeaky, generic_out.data(),
                                           2, ws.data(), kernels::find_winograd_ops("generic"));
      for (const char* name : {"avx2", "avx512", "neon"}) {
        const kernels::WinogradOps* ops = kernels::find_winograd_ops(name);
        if (!ops) continue;
        const auto u_isa = [&] {
          std::vector<float> v(u.size(), -9.f);
          const size_t plane = kernels::packed_a_floats(cs.filters, cs.c);
          for (int q = 0; q * kernels::kMR < cs.filters; ++q)
            kernels::winograd_transform_weights(g, std::min(kernels::kMR, cs.filters - q * kernels::kMR),
                                                w.data() + size_t(q) * kernels::kMR * cs.c * 9,
                                                scale.data() + q * kernels::kMR, v.data(), plane, q, ops);
          return v;
        }();
        CHECK(std::memcmp(u_isa.data(), u.data(), u.size() * sizeof(float)) == 0);
        std::vector<float> isa_out(want.size(), 0.f);
        kernels::winograd_conv_whole_weights(g, in.data(), u.data(), bias.data(), Activation::kLeaky, isa_out.data(), 2,
                                             ws.data(), ops);
        INFO(name);
        CHECK(std::memcmp(isa_out.data(), generic_out.data(), isa_out.size() * sizeof(float)) == 0);
        // The other activations (each variant's output pass has a path per kind: vector linear,
        // relu, leaky; the rest per value), and leaky on values so small that the fast leaky
        // must fall back to Darknet's double product (|x| < 2^-119): same bits as generic.
        std::vector<float> tiny_in(in), tiny_bias(bias);
        for (float& v : tiny_in) v *= 1e-37f;
        for (float& v : tiny_bias) v *= 1e-37f;
        struct Run {
          Activation act;
          const std::vector<float>*input, *b;
        };
        for (const Run& run : {Run{Activation::kLinear, &in, &bias}, Run{Activation::kRelu, &in, &bias},
                               Run{Activation::kLogistic, &in, &bias}, Run{Activation::kLeaky, &tiny_in, &tiny_bias}}) {
          std::vector<float> want_act(want.size(), 0.f), got_act(want.size(), 1.f);
          kernels::winograd_conv_whole_weights(g, run.input->data(), u.data(), run.b->data(), run.act, want_act.data(),
                                               2, ws.data(), kernels::find_winograd_ops("generic"));
          kernels::winograd_conv_whole_weights(g, run.input->data(), u.data(), run.b->data(), run.act, got_act.data(), 2,
                                               ws.data(), ops);
          INFO("activation " << int(run.act));
          CHECK(std::memcmp(got_act.data(), want_act.data(), got_act.size() * sizeof(float)) == 0);
        }
      }
    }
}

namespace {

struct Outputs {
  std::vector<std::vector<float>> layers;
  std::vector<size_t> heap_peak;
};

Outputs run_once(const Network& net, const std::string& wpath, bool reference, ResidentWeights* keep) {
  const Plan plan = make_plan(net);
  auto wf = WeightsFile::open(wpath);
  REQUIRE(wf.ok());
  MemoryTracker mem;
  auto in = Buffer::make(mem, net.input_shape().count(), MemCategory::kActivations, "input");
  REQUIRE(in.ok());
  auto r = random_floats(in->size(), 31);
  std::memcpy(in->data(), r.data(), in->bytes());
  Outputs o;
  RunHooks hooks;
  hooks.on_output = [&](const Layer& l, const float* p) {
    o.layers.emplace_back(p, p + l.out.count());
    return Status::Ok();
  };
  hooks.on_layer = [&](const LayerRunStats& s) { o.heap_peak.push_back(s.heap_peak); };
  ExecOptions exec;
  exec.reference = reference;
  exec.threads = default_threads();  // the threads make_plan planned for (OMP_NUM_THREADS)
  exec.resident = keep;
  auto out = run_network(net, plan, *wf, std::move(*in), mem, hooks, exec);
  INFO(out.status().message());
  REQUIRE(out.ok());
  return o;
}

}  // namespace

TEST_CASE("Winograd layers equal the reference path, every way, and stay within their planned memory",
          "[layers][winograd]") {
  auto net = network_from_text(winograd_test_cfg(), "winograd.cfg");
  REQUIRE(net.ok());
  const std::string wpath = std::string(MDFI_TEST_TMP) + "/winograd.weights";
  REQUIRE(generate_weights(*net, wpath, 5).ok());
  const Outputs ref = run_once(*net, wpath, true, nullptr);
  for (WinogradMode mode : {WinogradMode::kF2, WinogradMode::kF4}) {
    Outputs one_panel;  // streamed whole input, one filter panel per pass
    for (int way : {0, 1, 2}) {
      const bool whole_input = way > 0;
      // Every candidate (layers 1, 3 and 4; layer 0 has 3 channels, layer 5 is 1x1) forced into
      // one way, whatever the planner would pick; way 2 makes the streamed weights 3 filter
      // panels per pass (StreamedPanels reads each pass's raw rows at once).
      choose_conv_algorithms(*net, ConvChoice{mode, size_t(1) << 30, true});
      int forced = 0;
      for (auto& l : net->layers)
        if (auto* c = dynamic_cast<ConvLayer*>(l.get()); c && c->winograd) {
          c->winograd_whole_input = whole_input;
          c->winograd_group = way == 2 ? 3 : 1;
          ++forced;
        }
      CHECK(forced == 3);
      const Plan plan = make_plan(*net);
      const Outputs fast = run_once(*net, wpath, false, nullptr);
      REQUIRE(fast.layers.size() == ref.layers.size());
      for (size_t i = 0; i < ref.layers.size(); ++i) {
        INFO("layer " << i << (mode == WinogradMode::kF4 ? " F(4x4)" : " F(2x2)")
                      << (whole_input ? " whole input" : " whole weights") << (way == 2 ? ", 3 panels per pass" : ""));
        CHECK(relative_error(fast.layers[i], ref.layers[i]) < (mode == WinogradMode::kF4 ? 1e-4 : 1e-5));
        CHECK(fast.heap_peak[i] <= plan.layers[i].peak_bytes);
        if (way == 2)
          CHECK(std::memcmp(fast.layers[i].data(), one_panel.layers[i].data(), fast.layers[i].size() * 4) == 0);
      }
      if (way == 1) one_panel = fast;
    }
  }
}

TEST_CASE("kept Winograd weights (--keep-weights) give the streamed outputs on every image", "[layers][winograd]") {
  auto net = network_from_text(winograd_test_cfg(), "winograd_keep.cfg");
  REQUIRE(net.ok());
  const std::string wpath = std::string(MDFI_TEST_TMP) + "/winograd_keep.weights";
  REQUIRE(generate_weights(*net, wpath, 6).ok());
  for (bool whole_input : {false, true}) {
    choose_conv_algorithms(*net, ConvChoice{WinogradMode::kF2, size_t(1) << 30, true});
    for (auto& l : net->layers)
      if (auto* c = dynamic_cast<ConvLayer*>(l.get())) c->winograd_whole_input = c->winograd && whole_input;
    REQUIRE(winograd_layer_count(*net) == 3);
    const Outputs streamed = run_once(*net, wpath, false, nullptr);
    ResidentWeights kept;
    for (int image = 0; image < 2; ++image) {
      const Outputs resident = run_once(*net, wpath, false, &kept);
      for (size_t i = 0; i < streamed.layers.size(); ++i) {
        INFO("image " << image << " layer " << i << (whole_input ? " whole input" : " whole weights"));
        CHECK(std::memcmp(resident.layers[i].data(), streamed.layers[i].data(), streamed.layers[i].size() * 4) == 0);
      }
    }
    CHECK(kept.tracker().current().total() == kept_weights_floats(*net) * sizeof(float));
  }
}

TEST_CASE("the planner chooses Winograd only where it pays and does not raise the predicted peak", "[plan][winograd]") {
  auto net = load_network_cfg(source_path("cfg/yolov3-tiny.cfg"), BuildOptions{});
  REQUIRE(net.ok());
  auto conv = [&](int i) { return dynamic_cast<const ConvLayer*>(net->layers[size_t(i)].get()); };
  const Plan chosen = make_plan(*net);  // built with the default: auto, streamed weights
  // Auto takes F(4x4) on 13x13 maps where it needs fewer products than F(2x2), counted in whole
  // panels of the micro-kernel the products run on here (aarch64, armhf, AVX2: F(4x4), 16 tiles x
  // 36 against 49 x 16). AVX-512 keeps F(2x2): its 32-wide panels give 1152 against 1024, and
  // its 16-wide narrow tile, which would make it 576, lost there (conv_choice.cpp).
  const bool avx512 = std::strcmp(kernels::active_kernel().name, "avx512") == 0;
  const int tile_13x13 = avx512 ? 2 : 4;
  // Streamed on 32-bit ARM F(2x2) stays: its scalar transforms make F(4x4)'s per-image weight
  // transform cost more than it saves (conv_choice.cpp).
#if defined(__arm__) && !defined(__aarch64__)
  const int streamed_13x13 = 2;
#else
  const int streamed_13x13 = tile_13x13;
#endif
  INFO("kernel " << kernels::active_kernel().name);
  choose_conv_algorithms(*net, ConvChoice{WinogradMode::kOff, 0, false});
  const Plan gemm = make_plan(*net);
  CHECK(winograd_layer_count(*net) == 0);
  CHECK(chosen.peak_bytes <= gemm.peak_bytes);
  choose_conv_algorithms(*net, ConvChoice{});
  // Layer 0 has 3 input channels. Streamed, auto takes F(4x4) on maps of 676 pixels and more
  // (2: 208x208, 4: 104x104, 6: 52x52, 8 and 21: 26x26), and from 169 (10, 12, 14: 13x13) F(4x4)
  // or F(2x2) as above. At
  // 26x26 F(4x4) has 49 tiles: with at most 64 a layer transforms its whole input and passes its
  // weights once.
  // Layer 12 (512 -> 1024, the network's peak with 19 MB of packed weights) transforms its whole
  // input and streams its weights through it, which needs less than the GEMM path.
  CHECK(conv(0)->winograd == 0);
  for (int i : {2, 4, 6, 8, 21}) CHECK(conv(i)->winograd == 4);
  for (int i : {2, 4, 6}) CHECK(!conv(i)->winograd_whole_input);
  for (int i : {8, 21}) CHECK(conv(i)->winograd_whole_input);
  for (int i : {10, 12, 14}) CHECK(conv(i)->winograd == streamed_13x13);
  CHECK(conv(12)->winograd_whole_input);
  // Without F(4x4) under 26x26 (the --keep-weights fallback), F(2x2) there.
  choose_conv_algorithms(*net, ConvChoice{WinogradMode::kAuto, 0, false, false});
  for (int i : {10, 12, 14}) CHECK(conv(i)->winograd == 2);
  // f2: F(2x2) wherever it pays.
  choose_conv_algorithms(*net, ConvChoice{WinogradMode::kF2, 0, false});
  for (int i : {2, 4, 6, 8, 21}) CHECK(conv(i)->winograd == 2);
  // f4 streamed: F(4x4) wherever it fits, 13x13 maps included.
  choose_conv_algorithms(*net, ConvChoice{WinogradMode::kF4, 0, false});
  for (int i : {2, 4, 6, 8, 10, 12, 14, 21}) CHECK(conv(i)->winograd == 4);
  // Kept weights: every candidate pays. The 13x13 layers have 49 tiles: too few to read the whole
  // U once per panel, so they transform the whole input and pass the weights once. Layer 12 (512 -> 1024) is also the
  // network's peak with 19 MB of packed weights; streaming them through the input's tiles needs
  // less than the GEMM path.
  choose_conv_algorithms(*net, ConvChoice{WinogradMode::kF2, 0, true});
  CHECK(conv(10)->winograd == 2);
  CHECK(conv(10)->winograd_whole_input);
  CHECK(conv(12)->winograd == 2);
  CHECK(conv(12)->winograd_whole_input);
  CHECK(make_plan(*net).layers[12].peak_bytes < gemm.layers[12].peak_bytes);
  CHECK(make_plan(*net).peak_bytes <= gemm.peak_bytes);
  // Kept weights, auto: the same tiles as streamed.
  choose_conv_algorithms(*net, ConvChoice{WinogradMode::kAuto, 0, true});
  for (int i : {2, 4, 6, 8, 21}) CHECK(conv(i)->winograd == 4);
  for (int i : {10, 12, 14}) CHECK(conv(i)->winograd == tile_13x13);
  // A budget far above the peak lets a layer of many tile panels hold its whole U (layer 8: 169
  // tiles).
  choose_conv_algorithms(*net, ConvChoice{WinogradMode::kF2, size_t(1) << 30, true});
  CHECK(conv(8)->winograd == 2);
  CHECK(!conv(8)->winograd_whole_input);
  // A budget under the GEMM path's peak at layer 12: it takes the way that needs least even
  // streamed, where Winograd would not pay for its speed.
  choose_conv_algorithms(*net, ConvChoice{WinogradMode::kF2, gemm.layers[12].peak_bytes - 1, false});
  CHECK(conv(12)->winograd == 2);
  CHECK(conv(12)->winograd_whole_input);
  CHECK(make_plan(*net).layers[12].peak_bytes < gemm.layers[12].peak_bytes);
}

TEST_CASE("under --max-mem below the GEMM path's peak, yolov3-tiny runs by streaming layer 12 through Winograd",
          "[peak][winograd]") {
  const std::string cfg = source_path("cfg/yolov3-tiny.cfg");
  const std::string weights = generated_weights(cfg, "yolov3-tiny");
  REQUIRE(!weights.empty());
  const std::string dir = tmp_dir("winograd_budget");
  const std::string base = mdfi_binary() + " detect -q --cfg '" + cfg + "' -w '" + weights + "' ";
  // The GEMM path needs 21.1 MB at layer 12 (19 MB of packed weights): with --winograd off the
  // run fits 16M only through a schedule of weight blocks (schedule.h); the default needs none.
  auto off = run_command(base + "-v --winograd off --max-mem 16M /usr/share/darknet/data/dog.jpg");
  CHECK(off.exit_code == 0);
  CHECK(off.err.find("schedule for --max-mem") != std::string::npos);
  // The default: layer 12 transforms its whole input and streams its weights; the run fits, and
  // its reported peak is the plan's.
  auto on = run_command(base + "-v --max-mem 16M --mem-report='" + dir + "/mem.json' /usr/share/darknet/data/dog.jpg");
  INFO(on.err);
  REQUIRE(on.exit_code == 0);
  const std::string report = slurp(dir + "/mem.json");
  auto number = [&](const std::string& key) {
    const size_t at = report.find("\"" + key + "\"");
    REQUIRE(at != std::string::npos);
    return std::stod(report.substr(report.find(':', at) + 1));
  };
  CHECK(number("peak_bytes") <= number("predicted_peak_bytes"));
  CHECK(number("predicted_peak_bytes") <= 16e6);
  CHECK(on.err.find("schedule for --max-mem") == std::string::npos);
  // Below what any schedule can reach, the run is refused with the smallest budget that would do.
  auto tight = run_command(base + "--max-mem 3M /usr/share/darknet/data/dog.jpg");
  CHECK(tight.exit_code == 4);
  CHECK(tight.err.find("the smallest is") != std::string::npos);
}

TEST_CASE("--keep-weights under a --max-mem too small for F(4x4)'s kept 13x13 weights keeps F(2x2)'s there",
          "[peak][winograd]") {
  const std::string cfg = source_path("cfg/yolov3-tiny.cfg");
  const std::string weights = generated_weights(cfg, "yolov3-tiny");
  REQUIRE(!weights.empty());
  // F(4x4) on 13x13 maps with kept weights needs a kernel whose panels make it pay (conv_choice.cpp):
  // every ARM one, and AVX2 on x86 (forced here, so an AVX-512 host runs the same choice).
#if defined(__x86_64__) || defined(__i386__)
  const std::string env = "MDFI_KERNEL=avx2 ";
#else
  const std::string env;
#endif
  const std::string base = env + mdfi_binary() + " detect -v -j 1 --keep-weights --cfg '" + cfg + "' -w '" +
                           weights + "' /usr/share/darknet/data/dog.jpg ";
  auto kept_mb = [](const std::string& err) {
    const size_t at = err.find("kept weights ");
    REQUIRE(at != std::string::npos);
    return std::stod(err.substr(at + 13));
  };
  // Unbounded: F(4x4) everywhere it is a candidate, 136 MB of kept weights.
  auto all = run_command(base);
  INFO(all.err);
  REQUIRE(all.exit_code == 0);
  CHECK(all.err.find("in 8 of the convolutions") != std::string::npos);
  CHECK(kept_mb(all.err) > 120);
  // 120M leaves no room for them: F(2x2) on the 13x13 maps (73 MB kept) runs, not the GEMM path.
  auto bounded = run_command(base + "--max-mem 120M");
  INFO(bounded.err);
  REQUIRE(bounded.exit_code == 0);
  CHECK(bounded.err.find("in 8 of the convolutions") != std::string::npos);
  CHECK(kept_mb(bounded.err) < 80);
}
