#include "row_resize.h"

#include <cstddef>
#include <cstring>
#include <string>

#if defined(__aarch64__)
#include <arm_neon.h>
#endif

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

#if defined(__aarch64__)
// float(i) / 255.f for four integer-valued floats 0..255 without FDIV (not pipelined on the
// Pi's cores): the product by the float 1/255, its exact remainder by FMLS, one FMLA of the
// remainder's quotient. Correctly rounded for every byte value, i.e. the division's bits
// (test_row_resize.cpp checks all 256).
inline float32x4_t div255(float32x4_t v) {
  const float32x4_t inv = vdupq_n_f32(1.f / 255.f);
  const float32x4_t q = vmulq_f32(v, inv);
  return vfmaq_f32(q, vfmsq_f32(v, q, vdupq_n_f32(255.f)), inv);
}

// The horizontal pass for output columns [0, n), n a multiple of 4, each with a right-hand
// neighbour (not the last column, a source wider than 1). Per four columns: each column's six
// bytes (left pixel R G B, right pixel R G B) come in as two 32-bit lanes, bytes 0-3 and 2-5;
// TBL picks each channel's four left or right bytes into the low bytes of 32-bit lanes (an
// index out of range gives the zero high bytes); they are converted and divided by 255 as
// kByte's entries are, then ex * left + dx * right (FMUL, FMUL, FADD: the scalar loop's
// roundings). About 18 instructions a column where the scalar loop, six byte and six table loads
// a column, took 40. (LD3 by lane took 23: GCC kept the three-register NEON struct in memory.)
void hpass_neon(const uint8_t* rgb, const float* cols, int n, float* d0, float* d1, float* d2) {
  float* const d[3] = {d0, d1, d2};
  // Byte j of each 32-bit lane: its column's byte `first + j` of the lane pair, or zero.
  // (0x40 + ... : out of TBL's 0..15 range, so zero, and still so after adding 1 to 3.)
  static const uint8_t kPick[16] = {0, 0x40, 0x40, 0x40, 4, 0x40, 0x40, 0x40, 8, 0x40, 0x40, 0x40, 12, 0x40, 0x40, 0x40};
  const uint8x16_t pick0 = vld1q_u8(kPick), pick1 = vaddq_u8(pick0, vdupq_n_u8(1)),
                   pick2 = vaddq_u8(pick0, vdupq_n_u8(2)), pick3 = vaddq_u8(pick0, vdupq_n_u8(3));
  for (int x = 0; x < n; x += 4) {
    const float32x4x2_t c = vld2q_f32(cols + 2 * x);  // column bits and weights, deinterleaved
    const uint32x4_t off = vmulq_n_u32(vreinterpretq_u32_f32(c.val[0]), 3);
    const float32x4_t dx = c.val[1], ex = vsubq_f32(vdupq_n_f32(1.f), dx);
    uint32_t w[8];
    for (int j = 0; j < 4; ++j) {
      const uint8_t* p = rgb + (j == 0   ? vgetq_lane_u32(off, 0)
                                : j == 1 ? vgetq_lane_u32(off, 1)
                                : j == 2 ? vgetq_lane_u32(off, 2)
                                         : vgetq_lane_u32(off, 3));
      std::memcpy(&w[j], p, 4);      // R G B R'
      std::memcpy(&w[4 + j], p + 2, 4);  // B R' G' B'
    }
    const uint8x16_t a = vreinterpretq_u8_u32(vld1q_u32(w)), b = vreinterpretq_u8_u32(vld1q_u32(w + 4));
    const uint8x16_t bytes[3][2] = {{vqtbl1q_u8(a, pick0), vqtbl1q_u8(a, pick3)},
                                    {vqtbl1q_u8(a, pick1), vqtbl1q_u8(b, pick2)},
                                    {vqtbl1q_u8(a, pick2), vqtbl1q_u8(b, pick3)}};
    for (int k = 0; k < 3; ++k) {
      const float32x4_t left = div255(vcvtq_f32_u32(vreinterpretq_u32_u8(bytes[k][0])));
      const float32x4_t right = div255(vcvtq_f32_u32(vreinterpretq_u32_u8(bytes[k][1])));
      vst1q_f32(d[k] + x, vaddq_f32(vmulq_f32(ex, left), vmulq_f32(dx, right)));
    }
  }
}
#endif
}  // namespace

size_t RowResizer::working_bytes(int dst_w) { return (size_t(6) * dst_w + size_t(2) * dst_w) * sizeof(float); }

Result<RowResizer> RowResizer::make(int src_w, int src_h, const ResizeTarget& target, MemoryTracker& mem,
                                    const char* variant) {
  if (target.dst_w < 1 || target.dst_h < 1 || src_w < 1 || src_h < 1)
    return Result<RowResizer>(ErrorKind::kUsage, "cannot resize to or from an empty image");
  RowResizer r;
  r.t_ = target;
  r.src_w_ = src_w;
  r.src_h_ = src_h;
  r.vector_ = !(variant && std::strcmp(variant, "scalar") == 0);
  if (target.orientation < 1 || target.orientation > 8)
    return Result<RowResizer>(ErrorKind::kUsage, "EXIF orientation " + std::to_string(target.orientation) + " is not 1..8");
  {
    // Resized (x, y) lands at (tx, ty) of the turned block: tx = ax + bx x + cx y, ty = ay + by x + cy y.
    const int sw = target.dst_w, sh = target.dst_h;
    int ax = 0, bx = 1, cx = 0, ay = 0, by = 0, cy = 1;
    switch (target.orientation) {
      case 2: ax = sw - 1, bx = -1; break;                                        // mirrored
      case 3: ax = sw - 1, bx = -1, ay = sh - 1, cy = -1; break;                  // upside down
      case 4: ay = sh - 1, cy = -1; break;                                        // flipped
      case 5: bx = 0, cx = 1, by = 1, cy = 0; break;                              // transposed
      case 6: ax = sh - 1, bx = 0, cx = -1, by = 1, cy = 0; break;                // turn clockwise
      case 7: ax = sh - 1, bx = 0, cx = -1, ay = sw - 1, by = -1, cy = 0; break;  // transversed
      case 8: bx = 0, cx = 1, ay = sw - 1, by = -1, cy = 0; break;                // turn counter-clockwise
      default: break;
    }
    const std::ptrdiff_t ow = target.out_w;
    r.origin_ = (target.off_y + ay) * ow + target.off_x + ax;
    r.step_x_ = bx + by * ow;
    r.step_y_ = cx + cy * ow;
  }
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
  int x = 0;
#if defined(__aarch64__)
  if (vector_ && src_w_ > 1) {
    x = (w - 1) / 4 * 4;  // every column but the last has a right-hand neighbour
    hpass_neon(rgb, c, x, d0, d1, d2);
  }
#endif
  for (; x < w; ++x) {
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
    // Darknet stores (1 - dy) * top, then adds dy * bottom to it: one pass with the same two
    // roundings of products and one of the sum (no contraction: the engine builds with
    // -ffp-contract=off) gives its bits with one store per value.
    const float ey = 1 - dy;
    if (t_.orientation != 1) {  // the same values, stored where the EXIF turn puts them
      for (int k = 0; k < 3; ++k) {
        float* row = t_.out + size_t(k) * t_.out_h * t_.out_w + origin_ + r * step_y_;
        const float* top = rows_.data() + size_t(iy % 2) * 3 * w + size_t(k) * w;
        const float* bot = rows_.data() + size_t((iy + 1) % 2) * 3 * w + size_t(k) * w;
        for (int x = 0; x < w; ++x) row[x * step_x_] = blend ? ey * top[x] + dy * bot[x] : ey * top[x];
      }
      ++next_out_;
      continue;
    }
    for (int k = 0; k < 3; ++k) {
      float* row = t_.out + (size_t(k) * t_.out_h + r + t_.off_y) * t_.out_w + t_.off_x;
      const float* top = rows_.data() + size_t(iy % 2) * 3 * w + size_t(k) * w;
      if (!blend) {
        for (int x = 0; x < w; ++x) row[x] = ey * top[x];
        continue;
      }
      const float* bot = rows_.data() + size_t((iy + 1) % 2) * 3 * w + size_t(k) * w;
      for (int x = 0; x < w; ++x) row[x] = ey * top[x] + dy * bot[x];
    }
    ++next_out_;
  }
}

}  // namespace mdfi
