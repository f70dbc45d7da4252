// The streaming resizer (row_resize.h) against Darknet's whole-image resize (image.cpp), bit for
// bit, with the aarch64 NEON horizontal pass and with the scalar one: shrinking and enlarging,
// widths around the four-column vector step, one-pixel sources and targets, a block placed at an
// offset as a letterbox does, and a row holding every byte value at scale 1 (each output is then
// that byte's float(b) / 255.f, which the NEON pass computes without a division).
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <vector>

#include "image.h"
#include "row_resize.h"

using namespace mdfi;

namespace {

// Random interleaved RGB bytes (fixed seed), or 0, 1, .. 255, 0, .. when `ramp`.
std::vector<uint8_t> pixels(int w, int h, uint32_t seed, bool ramp) {
  std::vector<uint8_t> v(size_t(w) * h * 3);
  for (size_t i = 0; i < v.size(); ++i) {
    seed = seed * 1664525u + 1013904223u;
    v[i] = ramp ? uint8_t(i / 3) : uint8_t(seed >> 24);
  }
  return v;
}

}  // namespace

TEST_CASE("row resizer equals the whole-image resize bit for bit, NEON and scalar horizontal passes", "[image]") {
  struct Case {
    int sw, sh, dw, dh;
    bool ramp;
  };
  const Case cases[] = {{768, 576, 320, 320, false}, {256, 2, 256, 3, true},  {257, 3, 257, 1, true},
                        {50, 40, 131, 97, false},    {13, 11, 6, 7, false},   {13, 11, 9, 5, false},
                        {1, 9, 5, 4, false},         {9, 1, 4, 6, false},     {7, 7, 1, 1, false},
                        {641, 17, 416, 11, false},   {33, 29, 8, 8, false},   {4, 4, 5, 5, false}};
  int checked = 0;
  for (const Case& t : cases)
    for (const char* variant : {"default", "scalar"}) {
      MemoryTracker mem;
      const std::vector<uint8_t> px = pixels(t.sw, t.sh, uint32_t(t.sw * 31 + t.dw), t.ramp);
      // The reference: Darknet's resize of the float image (byte / 255.f, planar).
      auto im = make_image(t.sw, t.sh, 3, mem);
      REQUIRE(im.ok());
      for (int y = 0; y < t.sh; ++y)
        for (int x = 0; x < t.sw; ++x)
          for (int k = 0; k < 3; ++k)
            im->data.data()[(size_t(k) * t.sh + y) * t.sw + x] = float(px[(size_t(y) * t.sw + x) * 3 + k]) / 255.f;
      auto want = resize_image(*im, t.dw, t.dh, mem);
      REQUIRE(want.ok());
      // Streamed into a larger plane at an offset, guard values around the block.
      ResizeTarget target;
      target.out_w = t.dw + 3, target.out_h = t.dh + 2, target.dst_w = t.dw, target.dst_h = t.dh;
      target.off_x = 2, target.off_y = 1;
      std::vector<float> out(size_t(3) * target.out_w * target.out_h, -7.f);
      target.out = out.data();
      auto rr = RowResizer::make(t.sw, t.sh, target, mem, std::strcmp(variant, "scalar") == 0 ? "scalar" : nullptr);
      REQUIRE(rr.ok());
      for (int y = 0; y < t.sh; ++y) rr->push_row(px.data() + size_t(y) * t.sw * 3);
      INFO(variant << " " << t.sw << "x" << t.sh << " -> " << t.dw << "x" << t.dh);
      REQUIRE(rr->done());
      size_t differ = 0, guards = 0;
      for (int k = 0; k < 3; ++k)
        for (int y = 0; y < target.out_h; ++y)
          for (int x = 0; x < target.out_w; ++x) {
            const float got = out[(size_t(k) * target.out_h + y) * target.out_w + x];
            const int bx = x - target.off_x, by = y - target.off_y;
            if (bx < 0 || by < 0 || bx >= t.dw || by >= t.dh) {
              guards += got != -7.f;
              continue;
            }
            const float w = want->data.data()[(size_t(k) * t.dh + by) * t.dw + bx];
            differ += std::memcmp(&got, &w, sizeof got) != 0;
          }
      CHECK(guards == 0);
      CHECK(differ == 0);
      ++checked;
    }
  CHECK(checked == 24);
}
