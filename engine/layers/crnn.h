// [crnn]: AlexeyAB's convolutional RNN (yolov3-tiny_occlusion_track), run as Darknet runs it at
// batch 1 on a first frame: the hidden state starts at zero, and the one step computes
//   state = conv_input(x) + conv_self(0);   output = conv_output(state)
// (conv_self of a zero state is not zero: its bias, batch-norm and activation still apply).
// mdfi keeps no state across images, so every image is a first frame; a video model that
// relies on the state carried from frame to frame gets its first-frame output on each image.
// The three convolutions are ordinary ConvLayers (reference and fast paths); the weights file
// holds them in Darknet's order: input (c -> hidden), self (hidden -> hidden), output
// (hidden -> output), each as a [convolutional]'s.
#pragma once

#include <memory>

#include "../layer.h"
#include "conv.h"

namespace mdfi {

class CrnnLayer : public Layer {
 public:
  static LayerResult create(const SectionReader& r, const BuildContext& ctx);
  const char* kind() const override { return "crnn"; }
  std::string detail() const override;
  size_t param_floats() const override;
  size_t resident_param_floats() const override;
  size_t workspace_floats() const override;
  std::vector<ParamSegment> param_layout() const override;
  double flops() const override;
  Status forward(LayerIO& io) const override;

  std::unique_ptr<ConvLayer> input_conv, self_conv, output_conv;
  bool shortcut = false;  // AlexeyAB shortcut=1 adds the old state: zero on a first frame
};

}  // namespace mdfi
