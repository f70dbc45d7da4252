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

// A convolution's weights as the device kernels want them: in buffers of their own (kept across
// runs), or in the DeviceLayers' weights arena, which the next layer's weights overwrite. The
// in-order queue makes that safe: the next layer's preparation runs after this layer's kernels.
struct ConvWeights {
  cl_mem w = nullptr;     // At (Kp x Mp) for the SGEMM, or [filters][K] for the direct kernel
  cl_mem bias = nullptr;  // batch-norm folded
  DevBuf own_w, own_bias; // set when the weights own their storage
  size_t bytes = 0;
  GemmPlan plan;
  bool direct = false;
};

class DeviceLayers {
 public:
  DeviceLayers(Runtime& rt, GemmTuner& tuner) : rt_(rt), tuner_(tuner) {}

  // True when `layer` has a device implementation (aliasing layers need none).
  static bool on_device(const Layer& layer);
  // True for layers whose parameters the device path prepares itself (convolutions).
  static bool takes_conv_weights(const Layer& layer);

  // `raw` holds the layer's whole parameter range as the weights file stores it, once the
  // events `ready` (its uploads) have completed. `own`: give the result buffers of its own;
  // otherwise it lives in the arena until the next call. Batch-norm folds in the layer's
  // compat form.
  Result<ConvWeights> prepare_conv(const Layer& layer, const DevBuf& raw, bool own,
                                   const std::vector<cl_event>* ready = nullptr);
  // out = layer(inputs); `w` only for convolutions.
  Status forward(const Layer& layer, const std::vector<const DevBuf*>& inputs, const DevBuf& out, const ConvWeights* w);

  // The kernels, one per layer kind (layers.cpp's table says which kind each one runs).
  using Inputs = std::vector<const DevBuf*>;
  Status conv(const Layer& layer, const Inputs& inputs, const DevBuf& out, const ConvWeights* w);
  Status maxpool(const Layer& layer, const Inputs& inputs, const DevBuf& out, const ConvWeights*);
  Status upsample(const Layer& layer, const Inputs& inputs, const DevBuf& out, const ConvWeights*);
  Status route(const Layer& layer, const Inputs& inputs, const DevBuf& out, const ConvWeights*);
  Status shortcut(const Layer& layer, const Inputs& inputs, const DevBuf& out, const ConvWeights*);
  Status yolo(const Layer& layer, const Inputs& inputs, const DevBuf& out, const ConvWeights*);

  size_t workspace_bytes() const { return cols_.bytes() + partial_.bytes(); }
  size_t arena_bytes() const { return w_arena_.bytes() + bias_arena_.bytes(); }

 private:
  Status ensure(DevBuf& buf, size_t bytes, const char* what);
  Status place(ConvWeights& cw, bool own, DevBuf& own_buf, DevBuf& arena, cl_mem* where, size_t bytes, const char* what);
  Runtime& rt_;
  GemmTuner& tuner_;
  DevBuf cols_;     // im2col matrix, grown on demand
  DevBuf partial_;  // split-K partial sums
  DevBuf w_arena_, bias_arena_;  // one streamed layer's prepared weights at a time
};

}  // namespace mdfi::cl
