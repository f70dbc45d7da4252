#include "row_resize.h"

#include <cstring>

namespace mdfi {

namespace {
// float(v) / 255.f for every byte: the value Darknet holds after its own u8 -> float step.
struct ByteToFloat {
  float v[256];
  ByteToFloat() {
    for (int i = 0; i < 256; ++i) v[i] = float(i) / 255.f;
  }
};
const ByteToFloat kByte;
}  // namespace

size_t RowResizer::working_bytes(int dst_w) { return (size_t(6) * dst_w + size_t(2) * dst_w) * sizeof(float); }

Result<RowResizer> RowResizer::make(int src_w, int src_h, const ResizeTarget& target, MemoryTracker& mem) {
  if (target.dst_w < 1 || target.dst_h < 1 || src_w < 1 || src_h < 1)
    return Result<RowResizer>(ErrorKind::kUsage, "cannot resize to or from an empty image");
  RowResizer r;
  r.t_ = target;
  r.src_w_ = src_w;
  r.src_h_ = src_h;
  // A 1-pixel-wide or -high target would divide by zero (Darknet does); its only sample is 0.
  r.w_scale_ = target.dst_w > 1 ? float(src_w - 1) / (target.dst_w - 1) : 0.f;
  r.h_scale_ = target.dst_h > 1 ? float(src_h - 1) / (target.dst_h - 1) : 0.f;
  MDFI_ASSIGN_OR_RETURN(auto rows, Buffer::make(mem, size_t(6) * target.dst_w, MemCategory::kOther, "the resize rows"));
  r.rows_ = std::move(rows);
  MDFI_ASSIGN_OR_RETURN(auto cols, Buffer::make(mem, size_t(2) * target.dst_w, MemCategory::kOther, "the resize columns"));
  r.columns_ = std::move(cols);
  float* c = r.columns_.data();
  for (int x = 0; x < target.dst_w; ++x) {
    int ix = src_w - 1;
    float dx = 0;
    if (!(x == target.dst_w - 1 || src_w == 1)) {
      const float sx = x * r.w_scale_;
      ix = int(sx);
      dx = sx - ix;
    }
    std::memcpy(&c[2 * x], &ix, sizeof ix);
    c[2 * x + 1] = dx;
  }
  return r;
}

// Whether some output row still to come reads source row j (as its top row, or as the bottom row
// of a blend). When shrinking, many source rows are read by none: their horizontal pass is skipped.
bool RowResizer::row_needed(int j) const {
  for (int r = next_out_; r < t_.dst_h; ++r) {
    const int iy = int(r * h_scale_);
    if (iy > j) return false;
    if (iy == j) return true;
    if (iy + 1 == j && !(r == t_.dst_h - 1 || src_h_ == 1)) return true;
  }
  return false;
}

void RowResizer::push_row(const uint8_t* rgb) {
  if (rows_in_ >= src_h_) return;
  if (!row_needed(rows_in_)) {
    ++rows_in_;
    emit_ready_rows();
    return;
  }
  const int w = t_.dst_w;
  float* slot = rows_.data() + size_t(rows_in_ % 2) * 3 * w;
  const float* c = columns_.data();
  float* d0 = slot;
  float* d1 = slot + w;
  float* d2 = slot + 2 * size_t(w);
  // Pixel by pixel, the three channels together (one column lookup for the three); the same
  // operations per value as Darknet's channel-by-channel loop.
  for (int x = 0; x < w; ++x) {
    if (x == w - 1 || src_w_ == 1) {
      const uint8_t* p = rgb + size_t(src_w_ - 1) * 3;
      d0[x] = kByte.v[p[0]];
      d1[x] = kByte.v[p[1]];
      d2[x] = kByte.v[p[2]];
      continue;
    }
    int ix;
    std::memcpy(&ix, &c[2 * x], sizeof ix);
    const float dx = c[2 * x + 1], ex = 1 - dx;
    const uint8_t* p = rgb + size_t(ix) * 3;
    d0[x] = ex * kByte.v[p[0]] + dx * kByte.v[p[3]];
    d1[x] = ex * kByte.v[p[1]] + dx * kByte.v[p[4]];
    d2[x] = ex * kByte.v[p[2]] + dx * kByte.v[p[5]];
  }
  ++rows_in_;
  emit_ready_rows();
}

void RowResizer::emit_ready_rows() {
  const int w = t_.dst_w;
  while (next_out_ < t_.dst_h) {
    const int r = next_out_;
    const float sy = r * h_scale_;
    const int iy = int(sy);
    const float dy = sy - iy;
    const bool blend = !(r == t_.dst_h - 1 || src_h_ == 1);
    if (iy + (blend ? 1 : 0) >= rows_in_) return;  // needs a row not decoded yet
    for (int k = 0; k < 3; ++k) {
      float* row = t_.out + (size_t(k) * t_.out_h + r + t_.off_y) * t_.out_w + t_.off_x;
      const float* top = rows_.data() + size_t(iy % 2) * 3 * w + size_t(k) * w;
      for (int x = 0; x < w; ++x) row[x] = (1 - dy) * top[x];
      if (!blend) continue;
      const float* bot = rows_.data() + size_t((iy + 1) % 2) * 3 * w + size_t(k) * w;
      for (int x = 0; x < w; ++x) row[x] += dy * bot[x];
    }
    ++next_out_;
  }
}

}  // namespace mdfi
