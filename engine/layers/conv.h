// [convolutional]: grouped 2-D convolution, optional batch-norm with Darknet's inference formula,
// then bias and activation. k>1 convolutions build im2col in column tiles under a bounded
// workspace; 1x1 stride-1 convolutions read their input directly.
#pragma once

#include "../activation.h"
#include "../kernels/winograd.h"
#include "../layer.h"

namespace mdfi {

class ConvLayer : public Layer {
 public:
  static LayerResult create(const SectionReader& r, const BuildContext& ctx);

  const char* kind() const override { return "conv"; }
  std::string detail() const override;
  size_t param_floats() const override;
  size_t workspace_floats() const override;
  size_t resident_param_floats() const override;
  std::vector<ParamSegment> param_layout() const override;
  double flops() const override;
  Status forward(LayerIO& io) const override;
  void describe_schedule(SchedNode& node) const override;
  Status forward_rows(RowStep& step) const override;
  Status prepare_rows(LayerIO& io, PreparedRows& out) const override;
  // Optimised path (layers/conv_fast.cpp): BN folded into packed weights, blocked SGEMM or a
  // direct depthwise kernel, bias and activation fused into the output pass.
  Status forward_fast(LayerIO& io) const;
  bool depthwise() const { return groups > 1 && groups == in.c && groups == filters && dilation == 1; }
  size_t fast_resident_param_floats() const;
  static int pack_threads(int threads);
  size_t kept_param_floats() const override;
  Status compute_fast(LayerIO& io, const float* weights, const float* bias) const;
  Status forward_small_streamed(LayerIO& io, size_t head_floats) const;
  Status fold_head(LayerIO& io, MemoryTracker& wmem, Buffer* folded_bias, std::vector<float>* factor) const;
  // fold_head's arithmetic on a head already read (biases, then the batch-norm terms).
  Status fold_values(const float* head, MemoryTracker& wmem, Buffer* folded_bias, std::vector<float>* factor) const;

  // Winograd (layers/conv_winograd.cpp, kernels/winograd.h): the output tile the planner chose
  // for this layer (conv_choice.h), 2 or 4; 0 runs the GEMM path.
  int winograd = 0;
  bool winograd_whole_input = false;  // transform the whole input, stream the weights in blocks
  bool winograd_candidate() const override;  // 3x3, stride 1, ungrouped, more than 8 channels and filters
  int winograd_group = 1;  // filter panels per pass of the whole-input way (WinogradGeo::group)
  void set_winograd(int tile, bool whole_input) override { winograd = tile, winograd_whole_input = whole_input, winograd_group = 1; }
  void set_winograd_group(int panels) override { winograd_group = panels; }
  int winograd_tile() const override { return winograd; }
  bool winograd_streams_weights() const override { return winograd_whole_input; }
  kernels::WinogradGeo winograd_geo() const;
  size_t winograd_weight_floats() const;
  size_t winograd_workspace_floats() const;
  Status forward_winograd(LayerIO& io) const;

  int filters = 0, size = 1, stride = 1, pad = 0, groups = 1;
  int dilation = 1;  // AlexeyAB: kernel taps `dilation` pixels apart, padding pad*dilation
  // AlexeyAB share_index: this layer computes with layer `share_from`'s weights, biases and
  // batch-norm (as AlexeyAB's fused weights), and has none of its own in the file. -1: its own.
  int share_from = -1;
  int params_from() const override { return share_from; }
  size_t own_param_floats() const { return size_t(filters) * (batch_normalize ? 4 : 1) + weight_floats(); }
  bool batch_normalize = false;
  Activation activation = Activation::kLogistic;
  Compat compat = Compat::kPjreddie;  // picks the batch-norm formula

  size_t weight_floats() const { return size_t(filters) * (in.c / groups) * size * size; }
  bool direct_1x1() const { return size == 1 && stride == 1 && pad == 0; }
  // Whether the fast path convolves straight from the input rows (kernels/conv_direct.h) instead
  // of packing the im2col matrix for the SGEMM: a layer Winograd never takes where direct_pays
  // holds for all the filters as one block, as it does for the few filters of a first layer.
  bool direct_whole() const;
  int tile_columns() const;  // im2col columns per tile
};

// Darknet's batch-norm at inference: (x - mean) / (sqrt(var) + .000001f), then scale.
void batchnorm_inference(float* x, int channels, size_t spatial, const float* mean, const float* var,
                         const float* scales);
void add_bias(float* x, int channels, size_t spatial, const float* bias);

}  // namespace mdfi
