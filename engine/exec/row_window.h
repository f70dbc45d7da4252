// Row windows of a tensor and one band step of a layer: what a banded layer group (band_exec.h,
// schedule.h) hands each layer's Layer::forward_rows, so the row code of a layer lives in the
// layer's own file.
#pragma once

#include <vector>

#include "layer.h"

namespace mdfi {

// Rows [lo, lo + cap) of a c x h x w tensor: channel ch, row y at data + (ch * cap + y - lo) * w.
// Rows outside [0, h) are the convolution's zero padding; rows in [0, h) outside the window
// must not be read.
struct RowWindow {
  float* data = nullptr;
  int c = 0, h = 0, w = 0;
  int lo = 0, cap = 0;
  static RowWindow whole(float* data, const Shape& s) { return {data, s.c, s.h, s.w, 0, s.h}; }
  bool is_whole() const { return lo == 0 && cap == h; }
  float* row(int ch, int y) const { return data + (size_t(ch) * cap + size_t(y - lo)) * w; }
};

// A layer's weights prepared for all the band steps of a resident group (Layer::prepare_rows):
// a conv's folded biases and packed filters (the SGEMM's panels) or a depthwise conv's folded
// taps, exactly as each step would prepare them.
struct PreparedRows {
  Buffer bias;
  Buffer weights;
  bool ready() const { return !weights.empty(); }
};

// One step of a banded group: output rows [y0, y1) of a layer into `out`, from windows of its
// sources (in Layer::sources order). io carries the layer's parameters, the tracker and the
// step's ExecOptions (threads); block is the schedule's weight block (filters at a time, 0: all).
struct RowStep {
  LayerIO io;
  std::vector<RowWindow> inputs;
  RowWindow out;
  int y0 = 0, y1 = 0;
  int block = 0;
  const PreparedRows* prepared = nullptr;  // the group's resident weights, or null: read them
};

}  // namespace mdfi
