// Shape and FLOP inference against Darknet itself: for every cfg in /usr/share/darknet/cfg,
// test/data/darknet_shapes.txt holds what libdarknet built (layer types, output shapes, the
// BFLOPs it prints), captured once by test/data/darknet_shapes/capture.sh. mdfi must build the
// same layers with the same shapes and FLOPs. The recurrent cfgs (rnn, gru) and the softmax-tree
// ones (yolo9000, darknet9000) must instead be refused as unsupported, naming the section.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "support.h"

using namespace mdfi;
using namespace mdfi::test;

namespace {

struct DarknetLayer {
  int index, type, c, h, w, outputs;
  std::string bflops;  // "-" when darknet prints none
};

std::map<std::string, std::vector<DarknetLayer>> load_expected() {
  std::ifstream f(source_path("test/data/darknet_shapes.txt"));
  REQUIRE(f.good());
  std::map<std::string, std::vector<DarknetLayer>> m;
  std::string line, cfg;
  while (std::getline(f, line)) {
    std::istringstream ss(line);
    std::string tag;
    ss >> tag;
    if (tag == "cfg") {
      ss >> cfg;
      m[cfg];
    } else if (tag == "L") {
      DarknetLayer l;
      ss >> l.index >> l.type >> l.c >> l.h >> l.w >> l.outputs >> l.bflops;
      m[cfg].push_back(l);
    }
  }
  return m;
}

// darknet.h's LAYER_TYPE numbers -> mdfi's kind().
const char* kind_of_type(int t) {
  switch (t) {
    case 0: return "conv";
    case 2: return "connected";
    case 3: return "max";
    case 4: return "softmax";
    case 5: return "detection";
    case 6: return "dropout";
    case 7: return "crop";
    case 8: return "route";
    case 9: return "cost";
    case 10: return "norm";
    case 11: return "avg";
    case 12: return "local";
    case 13: return "res";
    case 19: return "batchnorm";
    case 22: return "region";
    case 23: return "yolo";
    case 25: return "reorg";
    case 26: return "upsample";
    default: return "?";
  }
}

// [region] trees (yolo9000) are supported; a [softmax] tree (darknet9000) is not.
bool recurrent_or_tree(const std::string& cfg, const std::vector<DarknetLayer>& layers) {
  for (const auto& l : layers)
    if (l.type == 15 || l.type == 16 || l.type == 17 || l.type == 18) return true;  // rnn gru lstm crnn
  return cfg == "darknet9000.cfg";
}

}  // namespace

TEST_CASE("every Darknet zoo cfg builds with libdarknet's layer shapes and BFLOPs", "[shapes]") {
  const auto expected = load_expected();
  REQUIRE(expected.size() >= 40);
  int checked = 0, refused = 0;
  for (const auto& kv : expected) {
    const std::string& name = kv.first;
    const auto& want = kv.second;
    INFO(name);
    auto net = load_network_cfg(darknet_cfg(name), BuildOptions{});
    if (recurrent_or_tree(name, want)) {
      REQUIRE_FALSE(net.ok());
      // rnn/gru cfgs size their input with [net] inputs= (no width/height): refused even earlier.
      CHECK((net.status().kind() == ErrorKind::kUnsupported || net.status().kind() == ErrorKind::kCfg));
      CHECK(net.status().message().find(darknet_cfg(name) + ":") != std::string::npos);
      ++refused;
      continue;
    }
    INFO((net.ok() ? std::string() : net.status().message()));
    REQUIRE(net.ok());
    REQUIRE(net->layers.size() == want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      const Layer& l = *net->layers[i];
      const DarknetLayer& d = want[i];
      INFO("layer " << i << " [" << l.kind() << "] darknet type " << d.type << " " << d.c << "x" << d.h << "x" << d.w
                    << " (" << d.outputs << ")");
      CHECK(std::string(l.kind()) == kind_of_type(d.type));
      CHECK(l.out.count() == size_t(d.outputs));
      // Darknet leaves out_c/h/w at 0 for flat outputs (detection, reorg extra, what follows).
      if (size_t(d.c) * d.h * d.w == size_t(d.outputs) && d.outputs > 0) {
        CHECK(l.out.c == d.c);
        CHECK(l.out.h == d.h);
        CHECK(l.out.w == d.w);
      }
      if (d.bflops != "-") CHECK(std::fabs(l.flops() / 1e9 - std::stod(d.bflops)) <= 0.0005 + 1e-9);
    }
    ++checked;
  }
  WARN(checked << " zoo cfgs match libdarknet layer by layer; " << refused
               << " (rnn/gru, darknet9000's [softmax] tree) refused as unsupported");
  CHECK(checked >= 39);
}

TEST_CASE("an unsupported section names itself, its line and what is supported", "[shapes]") {
  auto net = network_from_text("[net]\nwidth=8\nheight=8\nchannels=3\n\n[convolutional]\nfilters=4\nsize=1\n\n"
                               "[rnn]\noutput=4\n",
                               "unsupported_rnn.cfg");
  REQUIRE_FALSE(net.ok());
  CHECK(net.status().kind() == ErrorKind::kUnsupported);
  const std::string msg = net.status().message();
  CHECK(msg.find("unsupported_rnn.cfg:10") != std::string::npos);
  CHECK(msg.find("[rnn]") != std::string::npos);
  for (const char* t : {"convolutional", "region", "reorg", "local", "detection", "scale_channels", "sam", "crop"})
    CHECK(msg.find(t) != std::string::npos);
}

TEST_CASE("YOLOv4-tiny (route groups/group_id) builds with AlexeyAB's published size and cost", "[shapes]") {
  // The architecture of AlexeyAB's yolov4-tiny.cfg, assembled here block by block.
  auto conv = [](int f, int s, bool bn = true, const char* act = "leaky") {
    return std::string("[convolutional]\n") + (bn ? "batch_normalize=1\n" : "") + "filters=" + std::to_string(f) +
           "\nsize=" + std::to_string(s) + "\nstride=1\npad=1\nactivation=" + act + "\n\n";
  };
  auto route = [](const char* layers, bool half = false) {
    return std::string("[route]\nlayers=") + layers + (half ? "\ngroups=2\ngroup_id=1" : "") + "\n\n";
  };
  auto csp = [&](int f) {  // conv, take half the channels, two convs, concat, 1x1, concat, pool
    return conv(f, 3) + route("-1", true) + conv(f / 2, 3) + conv(f / 2, 3) + route("-1,-2") + conv(f, 1) +
           route("-6,-1") + "[maxpool]\nsize=2\nstride=2\n\n";
  };
  auto yolo = [](const char* mask) {
    return std::string("[yolo]\nmask=") + mask +
           "\nanchors=10,14, 23,27, 37,58, 81,82, 135,169, 344,319\nclasses=80\nnum=6\nscale_x_y=1.05\n"
           "nms_kind=greedynms\nbeta_nms=0.6\n\n";
  };
  const std::string down = "[convolutional]\nbatch_normalize=1\nfilters=%d\nsize=3\nstride=2\npad=1\nactivation=leaky\n\n";
  char d32[128], d64[128];
  std::snprintf(d32, sizeof d32, down.c_str(), 32);
  std::snprintf(d64, sizeof d64, down.c_str(), 64);
  const std::string cfg = std::string("[net]\nwidth=416\nheight=416\nchannels=3\n\n") + d32 + d64 + csp(64) + csp(128) +
                          csp(256) + conv(512, 3) + conv(256, 1) + conv(512, 3) + conv(255, 1, false, "linear") +
                          yolo("3,4,5") + route("-4") + conv(128, 1) + "[upsample]\nstride=2\n\n" + route("-1,23") +
                          conv(256, 3) + conv(255, 1, false, "linear") + yolo("1,2,3");
  const std::string path = tmp_dir("yolov4_tiny") + "/yolov4-tiny.cfg";
  std::ofstream(path) << cfg;
  BuildOptions bo;
  bo.compat = Compat::kAuto;
  auto net = load_network_cfg(path, bo);
  INFO((net.ok() ? std::string() : net.status().message()));
  REQUIRE(net.ok());
  CHECK(net->net.compat == Compat::kAlexeyAB);
  CHECK(net->layers.size() == 38);
  CHECK(net->layers[3]->out == (Shape{32, 104, 104}));  // half of layer 2's 64 channels
  CHECK(20 + net->param_floats() * 4 == 24251276);       // the official yolov4-tiny.weights size
  CHECK(std::fabs(net->flops() / 1e9 - 6.9) < 0.02);      // "6.9 BFlops" in AlexeyAB's model zoo
  // pjreddie Darknet ignores groups: the route takes all 64 channels (and the weights no longer fit).
  bo.compat = Compat::kPjreddie;
  auto pj = load_network_cfg(path, bo);
  REQUIRE(pj.ok());
  CHECK(pj->layers[3]->out == (Shape{64, 104, 104}));
  CHECK(20 + pj->param_floats() * 4 != 24251276);
}
