// Darknet's resize_image and letterbox_image computed while the image is still being decoded.
// Darknet's resize is two passes: each input row is resized horizontally, then every output row
// is a blend of two neighbouring horizontally resized rows. Output rows only ever move down the
// input, so two resized rows in flight are enough: a 48-megapixel photo is letterboxed through
// 2 x 3 x (network width) floats instead of a full-resolution float copy. The float operations
// and their order are Darknet's, so the result is bit-identical to resizing the whole image.
#pragma once

#include <cstddef>
#include <cstdint>

#include "memory.h"

namespace mdfi {

// Where the resized image goes: `planes` channel planes of out_w x out_h floats, the resized
// block's top-left corner at (off_x, off_y). A letterbox is this with a 0.5 border around it.
// dst_w x dst_h is the resized block as the rows arrive; with an EXIF `orientation` other than 1
// (2..8, TIFF's definitions) each resized value is stored where that turn puts it, so the block
// in `out` is dst_h x dst_w for 5..8. Resizing then turning samples the same points as turning
// then resizing (the corner-aligned sample grid maps onto itself); only the order of the two
// linear passes, and so the float rounding, differs.
struct ResizeTarget {
  float* out = nullptr;
  int out_w = 0, out_h = 0;
  int dst_w = 0, dst_h = 0;
  int off_x = 0, off_y = 0;
  int orientation = 1;
};

class RowResizer {
 public:
  RowResizer() = default;
  // src: the decoded image's size; rows arrive top to bottom as interleaved 8-bit RGB.
  // `variant` "scalar" keeps the horizontal pass off the aarch64 NEON loop (for the test that
  // compares the two); null picks NEON where it exists. Both give the same bits.
  static Result<RowResizer> make(int src_w, int src_h, const ResizeTarget& target, MemoryTracker& mem,
                                 const char* variant = nullptr);
  // The bytes make() asks for (the two resized rows, the column table): for the plan.
  static size_t working_bytes(int dst_w);

  // Takes the next source row and writes every output row it completes.
  void push_row(const uint8_t* rgb);
  bool done() const { return next_out_ >= t_.dst_h; }

 private:
  void emit_ready_rows();
  bool row_needed(int j) const;

  ResizeTarget t_;
  int src_w_ = 0, src_h_ = 0;
  int rows_in_ = 0;  // source rows pushed so far
  int next_out_ = 0;
  float w_scale_ = 0, h_scale_ = 0;
  // Turned: resized (x, y) of channel k goes to out[k * plane + origin_ + x * step_x_ + y * step_y_].
  std::ptrdiff_t origin_ = 0, step_x_ = 1, step_y_ = 0;
  bool vector_ = true;  // the aarch64 NEON horizontal pass
  Buffer rows_;     // two slots of 3 * dst_w floats, slot = source row % 2
  Buffer columns_;  // per output column: the left source column (as float bits) and its weight
};

}  // namespace mdfi
