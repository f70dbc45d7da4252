// A network description built from a cfg: [net] settings plus one Layer per section, with shapes
// inferred and cross-layer references (route, shortcut) checked. Holds no weights.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cfg.h"
#include "layer.h"

namespace mdfi {

struct BuildOptions {
  int width = 0;   // override [net] width when > 0
  int height = 0;  // override [net] height when > 0
  Compat compat = Compat::kPjreddie;
  // Winograd for 3x3 stride-1 convolutions, chosen per layer (conv_choice.h): "off", "auto", "f2", "f4".
  std::string winograd = "auto";
};

struct Network {
  std::string cfg_path;
  NetParams net;
  std::vector<std::unique_ptr<Layer>> layers;
  std::vector<std::string> warnings;  // unused keys etc., "file:line: ..."
  // make_plan lets a [route]'s sources write in place into its output and a channel-group
  // route be a view of its source (plan.h); off for backends that cannot alias buffers (OpenCL).
  bool concat_in_place = true;

  Shape input_shape() const { return Shape{net.c, net.h, net.w}; }
  size_t param_floats() const;
  double flops() const;
};

// Inputs above this many values (per layer output) are refused before anything is allocated.
constexpr size_t kMaxTensorFloats = size_t(1) << 30;

Result<Network> build_network(const CfgFile& cfg, const BuildOptions& opts);
Result<Network> load_network_cfg(const std::string& path, const BuildOptions& opts);

// Section names that build_network knows how to turn into layers.
std::vector<std::string> supported_layer_types();

}  // namespace mdfi
