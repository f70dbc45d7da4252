// [yolo]: the logistic, and AlexeyAB's scale_x_y and new_coords.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "detect.h"
#include "executor.h"
#include "layers/yolo.h"
#include "network.h"
#include "plan.h"
#include "support.h"
#include "weights.h"

using namespace mdfi;
using namespace mdfi::test;

namespace {

// These hand-computed cases hold to 1e-5 (check_close defaults to 2e-5).
constexpr double kTol = 1e-5;

}  // namespace

TEST_CASE("yolo: scale_x_y and new_coords under AlexeyAB, ignored under pjreddie", "[layers]") {
  // 1 anchor, 1 class, 1x1 grid: 6 channels x, y, w, h, obj, class.
  const std::string cfg = net_section(1, 1, 6) +
                          "[yolo]\nmask=0\nanchors=10,20\nnum=1\nclasses=1\nscale_x_y=1.2\nnms_kind=greedynms\n";
  const std::vector<float> x = {0, 2, 0.5f, -1, 0, 3};
  auto sig = [](float v) { return float(1 / (1 + std::exp(-double(v)))); };
  auto ab = run_tiny("yolo_ab", cfg, {}, x, Compat::kAlexeyAB);
  check_close(ab[0], {sig(0) * 1.2f - 0.1f, sig(2) * 1.2f - 0.1f, 0.5f, -1, sig(0), sig(3)}, kTol);
  auto pj = run_tiny("yolo_pj", cfg, {}, x, Compat::kPjreddie);
  check_close(pj[0], {sig(0), sig(2), 0.5f, -1, sig(0), sig(3)}, kTol);
  auto nc = run_tiny("yolo_nc", net_section(1, 1, 6) + "[yolo]\nmask=0\nanchors=10,20\nnum=1\nclasses=1\nnew_coords=1\n"
                                                    "scale_x_y=2\n",
                     {}, {0.25f, 0.5f, 0.5f, 1, 0.9f, 0.8f}, Compat::kAlexeyAB);
  check_close(nc[0], {0.25f * 2 - 0.5f, 0.5f * 2 - 0.5f, 0.5f, 1, 0.9f, 0.8f}, kTol);  // no logistic at all
}

TEST_CASE("yolo: when only the box decoding reads a head, its class logistics wait for it, same boxes", "[layers][detect]") {
  // 2 anchors, 7 classes on a 9x5 grid; pjreddie, AlexeyAB with scale_x_y, and with new_coords
  // (no logistic to leave: the output stays whole).
  for (const char* extra : {"", "scale_x_y=1.1\n", "new_coords=1\nscale_x_y=2\n"}) {
    INFO("yolo keys: " << extra);
    const std::string cfg = net_section(9, 5, 3) +
                            "[convolutional]\nfilters=24\nsize=1\nstride=1\npad=0\nactivation=linear\n"
                            "[yolo]\nmask=0,1\nanchors=10,14,23,27\nnum=2\nclasses=7\n" + extra;
    const std::string path = std::string(MDFI_TEST_TMP) + "/yolo_only_decoded.cfg";
    write_file(path, cfg);
    BuildOptions build;
    build.compat = *extra ? Compat::kAlexeyAB : Compat::kPjreddie;
    auto net = load_network_cfg(path, build);
    REQUIRE(net.ok());
    const bool new_coords = static_cast<const YoloLayer&>(*net->layers[1]).new_coords;
    CHECK(new_coords == (std::string(extra).find("new_coords") != std::string::npos));
    const std::string weights = std::string(MDFI_TEST_TMP) + "/yolo_only_decoded.weights";
    REQUIRE(generate_weights(*net, weights, 3).ok());
    const std::vector<float> input = uniform_input(net->input_shape().count(), 5);
    auto run = [&](bool only_decoded, bool hook) {
      auto wf = WeightsFile::open(weights);
      REQUIRE(wf.ok());
      auto mem = std::make_unique<MemoryTracker>();
      auto in = Buffer::make(*mem, input.size(), MemCategory::kActivations, "input");
      REQUIRE(in.ok());
      std::copy(input.begin(), input.end(), in->data());
      RunHooks hooks;
      if (hook) hooks.on_output = [](const Layer&, const float*) { return Status::Ok(); };
      ExecOptions exec;
      exec.heads_only_decoded = only_decoded;
      auto out = run_network(*net, make_plan(*net), *wf, std::move(*in), *mem, hooks, exec);
      REQUIRE(out.ok());
      DetectOptions opt;
      opt.thresh = 0.05f;
      opt.nms = 0;
      const float* head = out->output_of(*net, 1);
      std::vector<float> head_copy(head, head + net->layers[1]->out.count());
      return std::make_tuple(network_detections(*net, *out, 640, 480, opt), head_copy, out->only_decoded);
    };
    const auto [whole, whole_head, whole_flags] = run(false, false);
    const auto [lazy, lazy_head, lazy_flags] = run(true, false);
    const auto [hooked, hooked_head, hooked_flags] = run(true, true);
    CHECK(whole_flags.empty());
    REQUIRE(lazy_flags.size() == 2);
    CHECK(lazy_flags[1] == 1);
    CHECK(hooked_flags.empty());  // a hook sees every output as Darknet has it
    CHECK(hooked_head == whole_head);
    // The class scores were left as logits (unless new_coords), everything else is the same.
    CHECK((lazy_head != whole_head) == !new_coords);
    REQUIRE(whole.size() > 20);
    REQUIRE(lazy.size() == whole.size());
    for (size_t i = 0; i < whole.size(); ++i) {
      INFO("box " << i);
      CHECK(std::memcmp(&lazy[i].bbox, &whole[i].bbox, sizeof(Box)) == 0);
      CHECK(lazy[i].objectness == whole[i].objectness);
      CHECK(lazy[i].prob == whole[i].prob);
    }
  }
}
