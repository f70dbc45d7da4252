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

bool recurrent_or_tree(const std::string& cfg, const std::vector<DarknetLayer>& layers) {
  for (const auto& l : layers)
    if (l.type == 15 || l.type == 16 || l.type == 17 || l.type == 18) return true;  // rnn gru lstm crnn
  return cfg == "yolo9000.cfg" || cfg == "darknet9000.cfg";
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
               << " (rnn/gru/softmax-tree) refused as unsupported");
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
