// The layers mdfi runs on the device: convolution (weights prepared from the layer's raw
// parameter range with batch-norm folded, then im2col + tiled SGEMM with bias and activation
// fused, or a direct kernel for grouped convolutions), maxpool, upsample, route, shortcut and
// the YOLO head's logistic. Anything else runs through the CPU reference (see executor).
#pragma once

#include <vector>

#include "sgemm.h"
#include "layer.h"
#include "runtime.h"

namespace mdfi::cl {

// A convolution's weights as the device kernels want them.
struct ConvWeights {
  DevBuf w;      // At (Kp x Mp) for the SGEMM, or [filters][K] for the direct kernel
  DevBuf bias;   // batch-norm folded
  GemmPlan plan;
  bool direct = false;
  size_t bytes() const { return w.bytes() + bias.bytes(); }
};

class DeviceLayers {
 public:
  DeviceLayers(Runtime& rt, GemmTuner& tuner) : rt_(rt), tuner_(tuner) {}

  // True when `layer` has a device implementation (aliasing layers need none).
  static bool on_device(const Layer& layer);
  // True for layers whose parameters the device path prepares itself (convolutions).
  static bool takes_conv_weights(const Layer& layer);

  // `raw` holds the layer's whole parameter range as the weights file stores it.
  Result<ConvWeights> prepare_conv(const Layer& layer, const DevBuf& raw);
  // out = layer(inputs); `w` only for convolutions.
  Status forward(const Layer& layer, const std::vector<const DevBuf*>& inputs, const DevBuf& out, const ConvWeights* w);

  size_t workspace_bytes() const { return cols_.bytes() + partial_.bytes(); }
  void release_workspace() {
    cols_.reset();
    partial_.reset();
  }

 private:
  Status conv(const Layer& layer, const DevBuf& in, const DevBuf& out, const ConvWeights& w);
  Status ensure(DevBuf& buf, size_t bytes, const char* what);
  Runtime& rt_;
  GemmTuner& tuner_;
  DevBuf cols_;     // im2col matrix, grown on demand
  DevBuf partial_;  // split-K partial sums
};

}  // namespace mdfi::cl
