// A tensor shape in Darknet's memory order: channels, then rows, then columns (CHW, batch 1).
#pragma once

#include <cstddef>
#include <cstdint>

namespace mdfi {

struct Shape {
  int c = 0;
  int h = 0;
  int w = 0;

  size_t count() const { return size_t(c) * size_t(h) * size_t(w); }
  size_t bytes() const { return count() * sizeof(float); }
  bool operator==(const Shape& o) const { return c == o.c && h == o.h && w == o.w; }
  bool operator!=(const Shape& o) const { return !(*this == o); }
};

}  // namespace mdfi
