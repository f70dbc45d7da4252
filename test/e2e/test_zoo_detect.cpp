// Box decoding and NMS for the pre-YOLOv3 heads against libdarknet's own post-processing
// (darknet_refdump detect: get_network_boxes + do_nms_sort): YOLOv2 [region] heads with the
// letterbox correction for a 640x480 image, and YOLOv1 [detection] heads (relative boxes).
// Generated weights and a random input on both sides; every detection libdarknet keeps must be
// found with the same classes and probabilities and the same box (1e-4).
// Tagged [parity] with the other libdarknet comparisons: cross builds have no libdarknet to run.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

#include "detect.h"
#include "executor.h"
#include "npy.h"
#include "plan.h"
#include "support.h"
#include "weights.h"

using namespace mdfi;
using namespace mdfi::test;

namespace {

struct Line {
  Box b;
  std::vector<std::pair<int, float>> probs;
};

void check_detections(const std::string& tag, const std::string& cfg_text, int img_w, int img_h, float thresh,
                      float nms) {
  const ParityFiles f = prepare_parity("zoodet_" + tag, tag, cfg_text, Compat::kPjreddie, 3, 777);
  const std::string &dir = f.dir, &cfg = f.cfg, &weights = f.weights;
  const Network* net = &f.net;

  REQUIRE(!refdump_binary().empty());
  char args[96];
  std::snprintf(args, sizeof args, " %d %d %g %g", img_w, img_h, double(thresh), double(nms));
  auto r = run_command(refdump_binary() + " detect '" + cfg + "' '" + weights + "' '" + f.input_npy + "'" + args);
  INFO(r.err.substr(r.err.size() > 1500 ? r.err.size() - 1500 : 0));
  REQUIRE(r.exit_code == 0);
  std::vector<Line> ref;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream ls(line);
    Line l;
    ls >> l.b.x >> l.b.y >> l.b.w >> l.b.h;
    for (std::string cp; ls >> cp;) l.probs.emplace_back(std::stoi(cp), std::stof(cp.substr(cp.find(':') + 1)));
    ref.push_back(l);
  }

  const CollectedRun run = run_collect(*net, weights, f.input);
  const std::vector<Detection> ours = kept_detections(*net, run.out, img_w, img_h, thresh, nms);
  const int classes = ours.empty() ? 0 : int(ours[0].prob.size());  // every detection has them all
  INFO(tag << ": libdarknet keeps " << ref.size() << ", mdfi " << ours.size());
  CHECK(ours.size() == ref.size());
  CHECK(ref.size() >= 3);  // the case must actually exercise decoding and NMS
  std::vector<bool> used(ours.size(), false);
  for (const Line& l : ref) {
    bool found = false;
    for (size_t i = 0; i < ours.size() && !found; ++i) {
      const Detection& d = ours[i];
      if (used[i] || std::fabs(d.bbox.x - l.b.x) > 1e-4f || std::fabs(d.bbox.y - l.b.y) > 1e-4f ||
          std::fabs(d.bbox.w - l.b.w) > 1e-4f || std::fabs(d.bbox.h - l.b.h) > 1e-4f)
        continue;
      size_t kept = 0;
      bool same = true;
      for (int c = 0; c < classes; ++c)
        if (d.prob[size_t(c)] > thresh) ++kept;
      for (const auto& cp : l.probs) same = same && std::fabs(d.prob[size_t(cp.first)] - cp.second) <= 1e-5f;
      found = used[i] = same && kept == l.probs.size();
    }
    INFO("libdarknet box " << l.b.x << " " << l.b.y << " " << l.b.w << " " << l.b.h << " first class "
                           << (l.probs.empty() ? -1 : l.probs[0].first));
    CHECK(found);
  }
  std::system(("rm -rf '" + dir + "'").c_str());
  WARN(tag << ": " << ref.size() << " detections equal libdarknet's");
}

}  // namespace

TEST_CASE("region (YOLOv2) boxes, letterbox correction and NMS equal libdarknet's", "[parity]") {
  check_detections("region", "[net]\nwidth=64\nheight=64\nchannels=3\n\n"
                             "[convolutional]\nfilters=8\nsize=3\nstride=2\npad=1\nactivation=leaky\n\n"
                             "[convolutional]\nfilters=8\nsize=3\nstride=2\npad=1\nactivation=leaky\n\n"
                             "[convolutional]\nfilters=24\nsize=1\nstride=1\nactivation=linear\n\n"
                             "[region]\nanchors=0.5,0.8, 1.5,2.0, 3.1,2.2\nbias_match=1\nclasses=3\ncoords=4\nnum=3\n"
                             "softmax=1\n",
                   640, 480, 0.2f, 0.45f);
}

TEST_CASE("yolov2-tiny-voc detections equal libdarknet's at 224", "[parity]") {
  std::ifstream f(darknet_cfg("yolov2-tiny-voc.cfg"));
  std::stringstream ss;
  ss << f.rdbuf();
  check_detections("yolov2-tiny-voc", set_key(set_key(ss.str(), "width", 224), "height", 224), 500, 375, 0.03f, 0.45f);
}

TEST_CASE("detection (YOLOv1) boxes and NMS equal libdarknet's", "[parity]") {
  check_detections("yolov1", "[net]\nwidth=28\nheight=28\nchannels=3\n\n"
                             "[convolutional]\nfilters=16\nsize=3\nstride=1\npad=1\nactivation=leaky\n\n"
                             "[maxpool]\nsize=2\nstride=2\n\n[maxpool]\nsize=2\nstride=2\n\n"
                             "[connected]\noutput=637\nactivation=logistic\n\n"
                             "[detection]\nclasses=3\ncoords=4\nrescore=1\nside=7\nnum=2\nsoftmax=1\nsqrt=1\n",
                   640, 480, 0.1f, 0.4f);  // image size unused: YOLOv1 boxes stay relative
}
