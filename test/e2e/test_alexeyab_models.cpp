// Real-model acceptance under AlexeyAB semantics: the Yolo-Fastest and MobileNetV2-YOLO models in
// ../shared/models were trained with AlexeyAB Darknet, whose reference run on the lossless PNG
// copies of Darknet's test images is recorded (as JSON) in each model's reference_detections.txt.
// mdfi, with --compat auto resolving to alexeyab, must give the same classes, confidences within
// 0.01 and boxes within 2 px. Skips cleanly when ../shared is absent.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

#include "box_parity.h"
#include "detect.h"
#include "executor.h"
#include "image.h"
#include "plan.h"
#include "support.h"
#include "weights.h"

using namespace mdfi;
using namespace mdfi::test;

namespace {

struct RefObject {
  int class_id = 0;
  float cx = 0, cy = 0, w = 0, h = 0, confidence = 0;
};


float number_after(const std::string& s, size_t from, const std::string& key) {
  const size_t k = s.find("\"" + key + "\":", from);
  REQUIRE(k != std::string::npos);
  return std::stof(s.substr(k + key.size() + 3));
}

// The objects of `image` (e.g. "images/dog.png") in the JSON that follows `section` (e.g.
// "######## A2)"): AlexeyAB's -out format, one {"class_id":..} object per kept (box, class).
std::vector<RefObject> reference_objects(const std::string& text, const std::string& section, const std::string& image) {
  const size_t sec = text.find(section);
  REQUIRE(sec != std::string::npos);
  const size_t start = text.find("\"filename\":\"" + image + "\"", sec);
  REQUIRE(start != std::string::npos);
  const size_t end = text.find("\"frame_id\"", start);
  std::vector<RefObject> v;
  for (size_t p = text.find("{\"class_id\"", start); p != std::string::npos && p < end;
       p = text.find("{\"class_id\"", p + 1)) {
    RefObject o;
    o.class_id = int(number_after(text, p, "class_id"));
    o.cx = number_after(text, p, "center_x");
    o.cy = number_after(text, p, "center_y");
    o.w = number_after(text, p, "width");
    o.h = number_after(text, p, "height");
    o.confidence = number_after(text, p, "confidence");
    v.push_back(o);
  }
  return v;
}

struct Model {
  const char* dir;
  const char* name;
  std::vector<const char*> images = {"dog", "person", "horses", "eagle", "giraffe"};
  float thresh = 0.25f;  // as in the reference run's command line
};

// Runs the model on one image the way `mdfi detect` does (compat auto) and returns what it finds.
// Also checks mdfi's NMS against the reference's on this image's candidates (test/box_parity.h)
// when the reference helper is built.
std::vector<Found> detect(const Network& net, WeightsFile& wf, const std::string& image, float thresh, int* img_w,
                          int* img_h, const std::string& cfg) {
  MemoryTracker mem;
  auto im = load_image_u8(image, mem);
  REQUIRE(im.ok());
  *img_w = im->w;
  *img_h = im->h;
  auto in = net.net.letterbox ? letterbox_image(*im, net.net.w, net.net.h, mem, MemCategory::kActivations)
                              : resize_image(*im, net.net.w, net.net.h, mem, MemCategory::kActivations);
  REQUIRE(in.ok());
  const Plan plan = make_plan(net);
  auto out = run_network(net, plan, wf, std::move(in->data), mem);
  INFO((out.ok() ? std::string() : out.status().message()));
  REQUIRE(out.ok());
  DetectOptions opt;  // nms .45 as the reference runs
  opt.thresh = thresh;
  std::vector<Detection> dets = network_detections(net, *out, *img_w, *img_h, opt);
  const int classes = dets.empty() ? 0 : int(dets[0].prob.size());
  // The NMS of the compat in force: AlexeyAB's (kind and beta_nms as its parser reads the cfg),
  // or pjreddie's do_nms_sort.
  const bool ab = net.net.compat == Compat::kAlexeyAB;
  const std::string helper = ab ? ab_refdump_binary() : refdump_binary();
  if (!helper.empty() && !dets.empty()) {
    char t[32];
    std::snprintf(t, sizeof t, "%g", double(opt.nms));
    check_nms_on_same_candidates(image, net, dets, opt.nms, tmp_dir("models_nms"),
                                 [&](const std::string& in, const std::string& to) {
                                   return ab ? helper + " nms-cfg '" + cfg + "' '" + in + "' " + t + " '" + to + "'"
                                             : helper + " nms '" + in + "' " + t + " '" + to + "'";
                                 }, false);
  }
  network_nms(net, dets, classes, opt.nms);
  return collect_found(dets, *img_w, *img_h, opt.thresh);
}

void check_model(const Model& m) {
  if (!have_shared_models()) MDFI_SKIP(Need::kShared, "../shared/models is absent");
  const std::string dir = shared_path(std::string("models/") + m.dir);
  REQUIRE(!dir.empty());
  BuildOptions bo;
  bo.compat = Compat::kAuto;
  auto net = load_network_cfg(dir + "/" + m.name + ".cfg", bo);
  INFO((net.ok() ? std::string() : net.status().message()));
  REQUIRE(net.ok());
  CHECK(net->net.compat == Compat::kAlexeyAB);  // the cfg's nms_kind/scale_x_y/... say so
  CHECK_FALSE(net->net.letterbox);
  auto wf = WeightsFile::open(dir + "/" + m.name + ".weights");
  REQUIRE(wf.ok());
  REQUIRE(wf->validate(*net).ok());
  const std::string ref = slurp(dir + "/reference_detections.txt");
  int total = 0;
  for (const char* img : m.images) {
    int iw = 0, ih = 0;
    const std::vector<Found> found = detect(*net, *wf, shared_path(std::string("models/images/") + img + ".png"), m.thresh,
                                              &iw, &ih, dir + "/" + m.name + ".cfg");
    const std::vector<RefObject> want = reference_objects(ref, "######## A2)", std::string("images/") + img + ".png");
    INFO(m.name << " on " << img << ".png: " << found.size() << " found, " << want.size() << " in the reference");
    CHECK(found.size() == want.size());
    std::vector<bool> used(found.size(), false);
    for (const RefObject& o : want) {
      bool matched = false;
      for (size_t i = 0; i < found.size() && !matched; ++i) {
        const Found& f = found[i];
        if (used[i] || f.class_id != o.class_id || std::fabs(f.prob - o.confidence) > 0.01f) continue;
        // Unclipped box edges in pixels, on both sides.
        const double dl = (f.rel.x - f.rel.w / 2 - (o.cx - o.w / 2)) * iw, dr = (f.rel.x + f.rel.w / 2 - (o.cx + o.w / 2)) * iw;
        const double dt = (f.rel.y - f.rel.h / 2 - (o.cy - o.h / 2)) * ih, db = (f.rel.y + f.rel.h / 2 - (o.cy + o.h / 2)) * ih;
        if (std::fabs(dl) <= 2 && std::fabs(dr) <= 2 && std::fabs(dt) <= 2 && std::fabs(db) <= 2) matched = used[i] = true;
      }
      INFO("reference class " << o.class_id << " conf " << o.confidence << " centre " << o.cx << "," << o.cy << " size "
                              << o.w << "x" << o.h);
      CHECK(matched);
      ++total;
    }
  }
  WARN(m.name << ": " << total << " reference detections over " << m.images.size() << " images reproduced");
}

// Section B of the reference (pjreddie Darknet 2018, letterbox, IoU NMS, AlexeyAB keys ignored)
// prints only "  name: NN%" per kept (box, class). Under --compat pjreddie mdfi must print the
// same multiset of names with percentages within 1 (rounding).
void check_model_pjreddie(const Model& m, const char* names_file) {
  if (!have_shared_models()) MDFI_SKIP(Need::kShared, "../shared/models is absent");
  const std::string dir = shared_path(std::string("models/") + m.dir);
  REQUIRE(!dir.empty());
  BuildOptions bo;
  bo.compat = Compat::kPjreddie;
  auto net = load_network_cfg(dir + "/" + m.name + ".cfg", bo);
  REQUIRE(net.ok());
  CHECK(net->net.letterbox);
  auto wf = WeightsFile::open(dir + "/" + m.name + ".weights");
  REQUIRE(wf.ok());
  std::vector<std::string> names;
  {
    std::ifstream f(dir + "/" + names_file);
    for (std::string line; std::getline(f, line);) names.push_back(line);
  }
  const std::string ref = slurp(dir + "/reference_detections.txt");
  const size_t sec = ref.find("######## B)");
  REQUIRE(sec != std::string::npos);
  for (const char* img : m.images) {
    std::vector<std::pair<std::string, int>> want;
    size_t p = ref.find(std::string("\nimages/") + img + ".jpg:\n", sec);
    REQUIRE(p != std::string::npos);
    std::istringstream lines(ref.substr(ref.find('\n', p + 1) + 1));
    for (std::string line; std::getline(lines, line) && line.rfind("  ", 0) == 0;) {
      const size_t colon = line.rfind(':');
      want.emplace_back(line.substr(2, colon - 2), std::stoi(line.substr(colon + 1)));
    }
    int iw = 0, ih = 0;
    const std::vector<Found> found = detect(*net, *wf, shared_path(std::string("models/images/") + img + ".png"), m.thresh,
                                              &iw, &ih, dir + "/" + m.name + ".cfg");
    INFO(m.name << " (pjreddie) on " << img << ".png");
    CHECK(found.size() == want.size());
    std::vector<bool> used(found.size(), false);
    for (const auto& w : want) {
      bool matched = false;
      for (size_t i = 0; i < found.size() && !matched; ++i) {
        const std::string name = size_t(found[i].class_id) < names.size() ? names[size_t(found[i].class_id)] : "";
        if (!used[i] && name == w.first && std::abs(int(std::lround(found[i].prob * 100)) - w.second) <= 1)
          matched = used[i] = true;
      }
      INFO("reference " << w.first << ": " << w.second << "%");
      CHECK(matched);
    }
  }
}

}  // namespace

TEST_CASE("Yolo-Fastest-1.1 and -XL, Nano: pjreddie's detections under --compat pjreddie", "[models]") {
  check_model_pjreddie({"yolo-fastest-1.1-coco", "yolo-fastest-1.1"}, "coco.names");
  check_model_pjreddie({"yolo-fastest-1.1-xl-coco", "yolo-fastest-1.1-xl"}, "coco.names");
  check_model_pjreddie({"mobilenetv2-yolov3-nano-coco", "MobileNetV2-YOLOv3-Nano-coco"}, "coco.names");
  check_model_pjreddie({"yoloface-50k", "yoloface-50k", {"person", "dog"}, 0.5f}, "label.names");
}

TEST_CASE("yoloface-50k reproduces AlexeyAB's detections", "[models]") {
  check_model({"yoloface-50k", "yoloface-50k", {"person", "dog"}, 0.5f});
}

TEST_CASE("Yolo-Fastest-1.1 reproduces AlexeyAB's detections", "[models]") {
  check_model({"yolo-fastest-1.1-coco", "yolo-fastest-1.1"});
}
TEST_CASE("Yolo-Fastest-1.1-XL reproduces AlexeyAB's detections", "[models]") {
  check_model({"yolo-fastest-1.1-xl-coco", "yolo-fastest-1.1-xl"});
}
TEST_CASE("MobileNetV2-YOLOv3-Nano reproduces AlexeyAB's detections", "[models]") {
  check_model({"mobilenetv2-yolov3-nano-coco", "MobileNetV2-YOLOv3-Nano-coco"});
}
TEST_CASE("MobileNetV2-YOLO-Fastest-v2 (scale_channels) reproduces AlexeyAB's detections", "[models]") {
  check_model({"mobilenetv2-yolo-fastest-voc-v2", "MobileNetV2-YOLO-Fastest-voc-v2"});
}

TEST_CASE("mdfi detect: auto picks AlexeyAB for an SE model, says why with -v, and resizes", "[models]") {
  if (!have_shared_models()) MDFI_SKIP(Need::kShared, "../shared/models is absent");
  const std::string dir = shared_path("models/mobilenetv2-yolo-fastest-voc-v2");
  const std::string base = mdfi_binary() + " -v detect --cfg '" + dir + "/MobileNetV2-YOLO-Fastest-voc-v2.cfg' -w '" + dir +
                           "/MobileNetV2-YOLO-Fastest-voc-v2.weights' --names '" + dir + "/voc.names' '" +
                           shared_path("models/images/dog.png") + "'";
  auto r = run_command(base);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("compat alexeyab") != std::string::npos);
  CHECK(r.err.find("[scale_channels]") != std::string::npos);  // the reason names the section and line
  CHECK(r.err.find("resized") != std::string::npos);
  // AlexeyAB's printed lines for dog.png (A2): dog 58%, horse 44%, bicycle 70%, 34%, 32%.
  for (const char* line : {"dog: 58%", "horse: 44%", "bicycle: 70%", "bicycle: 34%", "bicycle: 32%"})
    CHECK(r.out.find(line) != std::string::npos);
  // Explicit pjreddie semantics on the same file: letterbox, and the cfg's AlexeyAB keys ignored.
  auto p = run_command(mdfi_binary() + " -v detect --compat pjreddie" + base.substr(base.find(" --cfg")));
  INFO(p.err);
  CHECK(p.err.find("compat pjreddie") != std::string::npos);
  CHECK(p.err.find("letterboxed") != std::string::npos);
}
