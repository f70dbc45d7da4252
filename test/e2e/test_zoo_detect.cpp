// Box decoding and NMS for the pre-YOLOv3 heads against libdarknet's own post-processing
// (darknet_refdump detect: get_network_boxes + do_nms_sort): YOLOv2 [region] heads with the
// letterbox correction for a 640x480 image, and YOLOv1 [detection] heads (relative boxes).
// Generated weights and a random input on both sides; the candidates before NMS must agree within
// the layer tolerance, and libdarknet's do_nms_sort on mdfi's candidates must keep exactly what
// mdfi's NMS keeps (test/box_parity.h).
// Tagged [parity] with the other libdarknet comparisons: cross builds have no libdarknet to run.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

#include "box_parity.h"
#include "detect.h"
#include "executor.h"
#include "npy.h"
#include "plan.h"
#include "support.h"
#include "weights.h"

using namespace mdfi;
using namespace mdfi::test;

namespace {

void check_detections(const std::string& tag, const std::string& cfg_text, int img_w, int img_h, float thresh,
                      float nms) {
  const ParityFiles f = prepare_parity("zoodet_" + tag, tag, cfg_text, Compat::kPjreddie, 3, 777);
  const std::string &dir = f.dir, &cfg = f.cfg, &weights = f.weights;
  const Network* net = &f.net;

  REQUIRE(!refdump_binary().empty());
  char args[96];
  std::snprintf(args, sizeof args, " %d %d %g %g", img_w, img_h, double(thresh), double(nms));
  const std::string ref_candidates = dir + "/ref_candidates.txt";
  auto r = run_command(refdump_binary() + " detect '" + cfg + "' '" + weights + "' '" + f.input_npy + "'" + args +
                       " '" + ref_candidates + "'");
  INFO(r.err.substr(r.err.size() > 1500 ? r.err.size() - 1500 : 0));
  REQUIRE(r.exit_code == 0);
  int classes = 0;
  const std::vector<Detection> ref = read_candidates(ref_candidates, &classes);

  const CollectedRun run = run_collect(*net, weights, f.input);
  const std::vector<Detection> ours = candidates_before_nms(*net, run.out, img_w, img_h, thresh);
  check_candidates(tag, ours, ref, thresh);
  check_nms_on_same_candidates(tag, *net, ours, nms, dir, [&](const std::string& in, const std::string& out) {
    char t[32];
    std::snprintf(t, sizeof t, "%g", double(nms));
    return refdump_binary() + " nms '" + in + "' " + t + " '" + out + "'";
  });
  std::system(("rm -rf '" + dir + "'").c_str());
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
