// --draw: pictures of the results. The input is decoded again after the run (so the run's
// memory peak is not inflated by a kept copy), boxes and labels are painted into an 8-bit RGB
// canvas with the built-in bitmap font (font.h), and image_write.cpp encodes it.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "path_guard.h"
#include "results.h"
#include "status.h"

namespace mdfi::app {

struct Rgb {
  uint8_t r = 0, g = 0, b = 0;
  bool operator==(const Rgb& o) const { return r == o.r && g == o.g && b == o.b; }
};

struct Canvas {
  int w = 0, h = 0;
  std::vector<uint8_t> px;  // RGB, row-major, 3 bytes per pixel
  Rgb at(int x, int y) const {
    const size_t i = (size_t(y) * size_t(w) + size_t(x)) * 3;
    return {px[i], px[i + 1], px[i + 2]};
  }
  // Fills [x0, x1) x [y0, y1), clipped to the canvas.
  void fill(int x0, int y0, int x1, int y1, Rgb c);
};

// Decodes an image file the same way the engine does (stb_image, RGB).
Result<Canvas> load_canvas(const std::string& path);

// A distinct, stable colour per class (golden-ratio hue steps).
Rgb class_color(int class_id);

// Outline of the box spanning columns left..left+width and rows top..top+height (inclusive,
// Darknet's convention), `thickness` pixels drawn inwards.
void draw_box(Canvas& c, int left, int top, int width, int height, Rgb color, int thickness);
// Text with its top-left corner at (x, y), each font pixel scale x scale.
void draw_text(Canvas& c, int x, int y, const std::string& text, Rgb color, int scale);
int text_width(const std::string& text, int scale);

void draw_detections(Canvas& c, const std::vector<DetectionRecord>& dets);
void draw_classes(Canvas& c, const std::vector<ClassRecord>& classes);

// Output names DIR/<stem><suffix>.<ext>: unique within a run (dog.jpg from two folders gives
// dog.jpg and dog_1.jpg) and never one of the run's input files (`inputs`, when given; the
// image itself always).
class DrawNamer {
 public:
  DrawNamer(std::string dir, std::string ext, const InputFiles* inputs = nullptr)
      : dir_(std::move(dir)), ext_(std::move(ext)), inputs_(inputs) {}
  std::string name_for(const std::string& input, const std::string& suffix = "");
  // name_for, refused (a usage error naming `what_` and the file) when that name is an
  // existing picture this run did not write and --force is off: a rerun into the same folder
  // does not silently replace photos kept there.
  Result<std::string> claim(const std::string& input, const std::string& suffix = "");
  void guard(const char* what, bool force) {
    what_ = what;
    force_ = force;
  }

 private:
  std::string dir_, ext_;
  const InputFiles* inputs_;
  std::set<std::string> used_;
  const char* what_ = "--draw";
  bool force_ = true;
};

// Encodes by the extension of `path` (.png, else JPEG quality 90), via a temporary file renamed
// into place, so a failed write never leaves a truncated picture.
Status write_canvas(const Canvas& c, const std::string& path);

}  // namespace mdfi::app
