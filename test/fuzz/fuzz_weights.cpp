// libFuzzer target: arbitrary bytes as a .weights file for a fixed small network (conv with
// batch-norm, maxpool, grouped conv, route, shortcut, upsample, connected, yolo): header parsing,
// exact size validation, then - when the size fits - a whole run that streams every layer's
// parameters from the file (NaN/Inf policy, short reads).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "cfg.h"
#include "executor.h"
#include "network.h"
#include "plan.h"
#include "weights.h"

namespace {

const char* kCfg = R"([net]
width=8
height=8
channels=3
[convolutional]
batch_normalize=1
filters=4
size=3
stride=1
pad=1
activation=leaky
[maxpool]
size=2
stride=2
[convolutional]
filters=4
groups=2
size=1
activation=linear
[route]
layers=-1,-2
[convolutional]
filters=4
size=1
activation=linear
[shortcut]
from=-4
[upsample]
stride=2
[convolutional]
filters=18
size=1
activation=linear
[yolo]
mask=0,1,2
anchors=1,1,2,2,3,3
classes=1
num=3
[route]
layers=-3
[connected]
output=3
activation=linear
)";

const mdfi::Network& network() {
  static const mdfi::Network net = [] {
    auto cfg = mdfi::parse_cfg_text(kCfg, "fuzz-weights.cfg");
    if (!cfg.ok()) __builtin_trap();
    auto n = mdfi::build_network(*cfg, mdfi::BuildOptions{});
    if (!n.ok()) __builtin_trap();
    return std::move(*n);
  }();
  return net;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const mdfi::Network& net = network();
  // One file per process: parallel fuzzing jobs must not share it.
  static const std::string path = "/tmp/mdfi_fuzz_weights_" + std::to_string(::getpid()) + ".weights";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  auto wf = mdfi::WeightsFile::open(path);
  if (!wf.ok()) return 0;
  if (!wf->validate(net).ok()) return 0;
  mdfi::MemoryTracker mem;
  auto input = mdfi::Buffer::make(mem, net.input_shape().count(), mdfi::MemCategory::kActivations, "input");
  if (!input.ok()) __builtin_trap();
  for (size_t i = 0; i < input->size(); ++i) input->data()[i] = float(i % 7) / 7.f;
  const mdfi::Plan plan = mdfi::make_plan(net);
  auto out = mdfi::run_network(net, plan, *wf, std::move(*input), mem);
  (void)out;
  return 0;
}
