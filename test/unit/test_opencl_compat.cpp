// The OpenCL backend follows --compat exactly as the CPU path does: every real model of
// ../shared/models (AlexeyAB-trained detectors with scale_x_y, DIoU NMS, tiny-variance
// batch-norm channels; pjreddie classifiers) runs on the device under both compat modes and
// must match the CPU path layer by layer (<= 1e-4, every value finite), and the candidate boxes
// before NMS must agree within that tolerance. Before the executors were one walk, the OpenCL path used
// pjreddie's batch-norm form under AlexeyAB too (3.5e-3 on Yolo-Fastest-1.1-XL from layer 0).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <dirent.h>
#include <memory>

#include "activation.h"
#include "backend.h"
#include "box_parity.h"
#include "detect.h"
#include "image.h"
#include "plan.h"
#include "support.h"
#include "weights.h"

using namespace mdfi;
using namespace mdfi::test;

namespace {

cl::Backend* compat_backend() {
  static std::unique_ptr<cl::Backend> b = [] {
    auto r = cl::Backend::open({});
    return r.ok() ? std::move(*r) : nullptr;
  }();
  return b.get();
}

struct Model {
  std::string name, cfg, weights;
};

// Every folder of ../shared/models with one .cfg and one .weights (mnist-lenet also keeps the
// upstream cfg that does not match its weights).
std::vector<Model> shared_models(const std::string& root) {
  std::vector<Model> out;
  DIR* d = ::opendir(root.c_str());
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name[0] == '.') continue;
    Model m{name, "", ""};
    DIR* sub = ::opendir((root + "/" + name).c_str());
    if (!sub) continue;
    while (dirent* f = ::readdir(sub)) {
      const std::string file = f->d_name;
      auto ends = [&](const std::string& s) { return file.size() > s.size() && file.compare(file.size() - s.size(), s.size(), s) == 0; };
      if (ends(".cfg") && file.find("committed-upstream") == std::string::npos) m.cfg = root + "/" + name + "/" + file;
      if (ends(".weights")) m.weights = root + "/" + name + "/" + file;
    }
    ::closedir(sub);
    if (!m.cfg.empty() && !m.weights.empty()) out.push_back(m);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end(), [](const Model& a, const Model& b) { return a.name < b.name; });
  return out;
}

bool all_finite(const std::vector<float>& v) {
  for (float x : v)
    if (!std::isfinite(x)) return false;
  return true;
}

struct Outputs {
  std::vector<std::vector<float>> layers;
  std::unique_ptr<MemoryTracker> mem = std::make_unique<MemoryTracker>();
  RunOutput out;
};

Outputs run(const Network& net, const std::string& weights, const std::vector<float>& input, bool device) {
  Outputs r;
  r.layers.resize(net.layers.size());
  auto wf = WeightsFile::open(weights);
  REQUIRE(wf.ok());
  REQUIRE(wf->validate(net).ok());
  auto in = Buffer::make(*r.mem, input.size(), MemCategory::kActivations, "input");
  REQUIRE(in.ok());
  std::copy(input.begin(), input.end(), in->data());
  RunHooks hooks;
  hooks.on_output = [&r](const Layer& l, const float* p) {
    r.layers[size_t(l.index)].assign(p, p + l.out.count());
    return Status::Ok();
  };
  auto out = device ? compat_backend()->run(net, make_plan(net), *wf, std::move(*in), *r.mem, hooks)
                    : run_network(net, make_plan(net), *wf, std::move(*in), *r.mem, hooks);
  INFO((out.ok() ? "" : out.status().message()));
  REQUIRE(out.ok());
  r.out = std::move(*out);
  return r;
}

std::vector<Detection> candidates(const Network& net, const RunOutput& out) {
  DetectOptions opt;
  opt.letterbox = net.net.letterbox;
  return network_detections(net, out, 768, 576, opt);
}

}  // namespace

TEST_CASE("OpenCL: every model of ../shared/models matches the CPU path per layer under both compat modes", "[opencl]") {
  if (!cl::compiled_in()) MDFI_SKIP(Need::kOpenCL, "built without OpenCL (MDFI_OPENCL=OFF)");
  if (!cl::list_devices().ok()) MDFI_SKIP(Need::kOpenCL, "no OpenCL platform");
  REQUIRE(compat_backend() != nullptr);
  const std::string root = shared_path("models");
  if (root.empty()) MDFI_SKIP(Need::kShared, "../shared/models is absent");
  const std::vector<Model> models = shared_models(root);
  REQUIRE(models.size() >= 8);
  int alexeyab_features = 0;
  for (const Model& m : models)
    for (Compat compat : {Compat::kPjreddie, Compat::kAlexeyAB}) {
      BuildOptions bo;
      bo.compat = compat;
      auto net = load_network_cfg(m.cfg, bo);
      INFO(m.name << " under " << to_string(compat) << (net.ok() ? "" : ": " + net.status().message()));
      REQUIRE(net.ok());
      REQUIRE(net->net.compat == compat);
      MemoryTracker mem;
      auto im = load_image_rgb(shared_path("models/images/dog.png"), mem);
      REQUIRE(im.ok());
      REQUIRE(net->net.c == 3);
      auto boxed = net->net.letterbox ? letterbox_image(*im, net->net.w, net->net.h, mem)
                                      : resize_image(*im, net->net.w, net->net.h, mem);
      REQUIRE(boxed.ok());
      const std::vector<float> input(boxed->data.data(), boxed->data.data() + boxed->data.size());
      Outputs cpu = run(*net, m.weights, input, false), dev = run(*net, m.weights, input, true);
      double worst = 0;
      for (size_t i = 0; i < cpu.layers.size(); ++i) {
        INFO("layer " << i << " [" << net->layers[i]->kind() << "]");
        REQUIRE(all_finite(cpu.layers[i]));
        REQUIRE(all_finite(dev.layers[i]));
        REQUIRE(dev.layers[i].size() == cpu.layers[i].size());
        const double rel = relative_error(dev.layers[i], cpu.layers[i]);
        INFO("relative error " << rel);
        CHECK(rel <= 1e-4);
        worst = std::max(worst, rel);
      }
      WARN(m.name << " " << to_string(compat) << ": worst layer relative error OpenCL vs CPU " << worst);
      // The candidates before NMS within the layer tolerance (test/box_parity.h): NMS is the same
      // code on both sides, so the same candidates keep the same boxes but for float noise.
      bool has_yolo = false;
      for (const auto& l : net->layers) has_yolo |= std::string(l->kind()) == "yolo";
      if (compat == Compat::kAlexeyAB && describe_nms(*net) != "IoU NMS (do_nms_sort)") ++alexeyab_features;
      if (!has_yolo) continue;
      check_candidates(m.name + " " + to_string(compat) + " OpenCL vs CPU", candidates(*net, dev.out),
                       candidates(*net, cpu.out), DetectOptions{}.thresh);
    }
  // At least the Yolo-Fastest models run DIoU NMS under AlexeyAB: the test covers that kind.
  CHECK(alexeyab_features >= 2);
}

namespace {

// A cfg written to the test's temp folder and built under `compat`, with generated weights.
Result<Network> build_text(const std::string& text, const std::string& name, Compat compat, std::string* weights) {
  const std::string path = tmp_dir("opencl_semantics") + "/" + name + ".cfg";
  FILE* f = std::fopen(path.c_str(), "w");
  REQUIRE(f);
  std::fputs(text.c_str(), f);
  std::fclose(f);
  BuildOptions bo;
  bo.compat = compat;
  auto net = load_network_cfg(path, bo);
  if (!net.ok()) return net;
  *weights = tmp_dir("opencl_semantics") + "/" + name + ".weights";
  REQUIRE(generate_weights(*net, *weights, 3).ok());
  return net;
}

void compare_chained(const Network& net, const std::string& weights, float input_scale, double limit) {
  std::vector<float> input = random_floats(net.input_shape().count(), 11);
  for (float& x : input) x *= input_scale;
  Outputs cpu = run(net, weights, input, false), dev = run(net, weights, input, true);
  for (size_t i = 0; i < cpu.layers.size(); ++i) {
    INFO("layer " << i << " [" << net.layers[i]->kind() << "] relative error "
                  << relative_error(dev.layers[i], cpu.layers[i]));
    REQUIRE(all_finite(cpu.layers[i]));
    REQUIRE(all_finite(dev.layers[i]));
    CHECK(relative_error(dev.layers[i], cpu.layers[i]) <= limit);
  }
}

}  // namespace

TEST_CASE("OpenCL: every activation, both batch-norm forms and the yolo head's AlexeyAB keys match the CPU", "[opencl]") {
  if (!cl::compiled_in()) MDFI_SKIP(Need::kOpenCL, "built without OpenCL (MDFI_OPENCL=OFF)");
  if (!cl::list_devices().ok()) MDFI_SKIP(Need::kOpenCL, "no OpenCL platform");
  REQUIRE(compat_backend() != nullptr);
  std::string names = activation_names() + ", ";
  int tested = 0;
  for (size_t at = 0, end; (end = names.find(", ", at)) != std::string::npos; at = end + 2) {
    const std::string act = names.substr(at, end - at);
    Activation a;
    REQUIRE(parse_activation(act, &a));
    for (Compat compat : {Compat::kPjreddie, Compat::kAlexeyAB}) {
      // A batch-normalised conv (the SGEMM path), a depthwise conv (the direct kernel) and a
      // shortcut, each with the activation; tiny variances make the two batch-norm forms differ.
      const std::string cfg = "[net]\nwidth=9\nheight=7\nchannels=3\n"
                              "[convolutional]\nbatch_normalize=1\nfilters=6\nsize=3\nstride=1\npad=1\nactivation=" + act +
                              "\n[convolutional]\nbatch_normalize=1\nfilters=6\ngroups=6\nsize=3\nstride=1\npad=1\nactivation=" +
                              act + "\n[shortcut]\nfrom=-2\nactivation=" + act + "\n";
      std::string weights;
      auto net = build_text(cfg, "act_" + act + "_" + to_string(compat), compat, &weights);
      INFO(act << " under " << to_string(compat) << (net.ok() ? "" : ": " + net.status().message()));
      REQUIRE(net.ok());
      compare_chained(*net, weights, 3.f, 1e-5);
      ++tested;
    }
  }
  CHECK(tested == 2 * 19);

  // [yolo] under AlexeyAB: scale_x_y shifts x, y; new_coords skips the logistic.
  for (const char* keys : {"scale_x_y=1.2", "scale_x_y=2.0\nnew_coords=1"}) {
    const std::string cfg = std::string("[net]\nwidth=5\nheight=4\nchannels=3\n"
                                        "[convolutional]\nfilters=14\nsize=1\nstride=1\npad=0\nactivation=logistic\n"
                                        "[yolo]\nmask=0,1\nnum=2\nclasses=2\nanchors=10,13,16,30\n") + keys + "\n";
    std::string weights;
    auto net = build_text(cfg, std::string("yolo_") + (keys[10] == '2' ? "new" : "sxy"), Compat::kAlexeyAB, &weights);
    INFO(keys << (net.ok() ? "" : ": " + net.status().message()));
    REQUIRE(net.ok());
    compare_chained(*net, weights, 1.f, 1e-6);
  }
}
