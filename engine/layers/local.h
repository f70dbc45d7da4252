// [local]: YOLOv1's locally connected layer: a convolution whose filters differ at every output
// location (unshared weights). Parameters per output value: one bias each, then for each location
// a filters x (c*size*size) matrix. Padding is the cfg's `pad` value itself, as Darknet uses it.
#pragma once

#include "../activation.h"
#include "../layer.h"

namespace mdfi {

class LocalLayer : public Layer {
 public:
  static LayerResult create(const SectionReader& r, const BuildContext& ctx);
  const char* kind() const override { return "local"; }
  std::string detail() const override;
  size_t param_floats() const override { return out.count() + weight_floats(); }
  // The weights stream in one location at a time.
  size_t resident_param_floats() const override { return out.count() + size_t(filters) * in.c * size * size; }
  std::vector<ParamSegment> param_layout() const override;
  size_t workspace_floats() const override { return size_t(in.c) * size * size * locations(); }
  double flops() const override { return 2.0 * double(weight_floats()); }
  Status forward(LayerIO& io) const override;

  int filters = 0, size = 1, stride = 1, pad = 0;
  Activation activation = Activation::kLogistic;
  size_t locations() const { return size_t(out.h) * out.w; }
  size_t weight_floats() const { return size_t(in.c) * filters * size * size * locations(); }
};

}  // namespace mdfi
