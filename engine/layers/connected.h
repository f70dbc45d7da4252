// [connected]: fully connected layer over the flattened (CHW) input, optional batch-norm, bias,
// activation. Its weight matrix is streamed from the file in row blocks, so AlexNet's 151 MB
// fc6 matrix is never held whole.
#pragma once

#include "../activation.h"
#include "../layer.h"

namespace mdfi {

class ConnectedLayer : public Layer {
 public:
  static LayerResult create(const SectionReader& r, const BuildContext& ctx);

  const char* kind() const override { return "connected"; }
  std::string detail() const override;
  size_t param_floats() const override;
  size_t resident_param_floats() const override;
  std::vector<ParamSegment> param_layout() const override;
  double flops() const override { return 2.0 * double(inputs()) * outputs; }
  Status forward(LayerIO& io) const override;
  void describe_schedule(SchedNode& node) const override;

  size_t inputs() const { return in.count(); }
  int rows_per_block() const;
  Status forward_streamed(LayerIO& io, float* block, int block_rows) const;
  void finish(float* y, const float* head) const;
  size_t kept_param_floats() const override;

  int outputs = 0;
  bool batch_normalize = false;
  Activation activation = Activation::kLogistic;
  Compat compat = Compat::kPjreddie;  // picks the batch-norm formula
};

}  // namespace mdfi
