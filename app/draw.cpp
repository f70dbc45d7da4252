#include "draw.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "font.h"
#include "image.h"

namespace mdfi::app {

void Canvas::fill(int x0, int y0, int x1, int y1, Rgb c) {
  x0 = std::max(x0, 0);
  y0 = std::max(y0, 0);
  x1 = std::min(x1, w);
  y1 = std::min(y1, h);
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) {
      uint8_t* p = &px[(size_t(y) * size_t(w) + size_t(x)) * 3];
      p[0] = c.r;
      p[1] = c.g;
      p[2] = c.b;
    }
}

Result<Canvas> load_canvas(const std::string& path) {
  MemoryTracker mem;
  // Interleaved RGB bytes: no float copy of a big photo.
  MDFI_ASSIGN_OR_RETURN(const ImageU8 im, load_image_u8(path, mem));
  Canvas c;
  c.w = im.w;
  c.h = im.h;
  const unsigned char* p = im.pixels();
  c.px.assign(p, p + size_t(c.w) * size_t(c.h) * 3);
  return c;
}

Rgb class_color(int class_id) {
  // Golden-ratio hue steps spread neighbouring ids apart; saturation and value alternate too, so
  // ids whose hues land close together (80 COCO classes on one wheel) still differ.
  const int id = class_id < 0 ? -class_id : class_id;
  double hue = std::fmod(0.11 + 0.6180339887 * id, 1.0) * 6.0;
  const double s = (id / 2) % 2 ? 0.6 : 0.9;
  const double v = id % 2 ? 0.7 : 0.95;
  const int sector = int(hue) % 6;
  const double f = hue - std::floor(hue);
  const double p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
  double r = v, g = t, b = p;
  switch (sector) {
    case 0: r = v, g = t, b = p; break;
    case 1: r = q, g = v, b = p; break;
    case 2: r = p, g = v, b = t; break;
    case 3: r = p, g = q, b = v; break;
    case 4: r = t, g = p, b = v; break;
    default: r = v, g = p, b = q; break;
  }
  return {uint8_t(std::lround(r * 255)), uint8_t(std::lround(g * 255)), uint8_t(std::lround(b * 255))};
}

void draw_box(Canvas& c, int left, int top, int width, int height, Rgb color, int thickness) {
  const int right = left + width, bottom = top + height;
  const int t = std::max(1, std::min(thickness, std::min(width, height) / 2 + 1));
  c.fill(left, top, right + 1, top + t, color);
  c.fill(left, bottom + 1 - t, right + 1, bottom + 1, color);
  c.fill(left, top, left + t, bottom + 1, color);
  c.fill(right + 1 - t, top, right + 1, bottom + 1, color);
}

int text_width(const std::string& text, int scale) { return int(text.size()) * (kGlyphW + 1) * scale; }

void draw_text(Canvas& c, int x, int y, const std::string& text, Rgb color, int scale) {
  for (size_t i = 0; i < text.size(); ++i) {
    const uint8_t* g = glyph5x7(static_cast<unsigned char>(text[i]));
    const int gx = x + int(i) * (kGlyphW + 1) * scale;
    for (int row = 0; row < kGlyphH; ++row)
      for (int col = 0; col < kGlyphW; ++col)
        if (g[row] & (0x10 >> col))
          c.fill(gx + col * scale, y + row * scale, gx + (col + 1) * scale, y + (row + 1) * scale, color);
  }
}

static int font_scale(const Canvas& c) {
  const long s = std::lround(std::min(c.w, c.h) / 250.0);
  return int(std::max(1L, std::min(8L, s)));
}

static Rgb text_color_on(Rgb bg) {
  const int luma = (299 * bg.r + 587 * bg.g + 114 * bg.b) / 1000;
  return luma > 140 ? Rgb{0, 0, 0} : Rgb{255, 255, 255};
}

namespace {

struct Rect {
  int x0, y0, x1, y1;
  bool overlaps(const Rect& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
};

// A filled label tag at the box's top-left corner: above it when there is room, else just inside;
// moved down past tags already placed so that no label hides another.
void draw_tag(Canvas& c, int x, int y, const std::string& text, Rgb bg, int scale, std::vector<Rect>& placed) {
  const int pad = scale;
  const int tw = text_width(text, scale) + 2 * pad - scale;
  const int th = kGlyphH * scale + 2 * pad;
  const int tx = std::max(0, std::min(x, c.w - tw));
  int ty = y - th >= 0 ? y - th : y;
  for (int tries = 0; tries < 16; ++tries) {
    bool clash = false;
    for (const Rect& r : placed)
      if (r.overlaps({tx, ty, tx + tw, ty + th})) {
        clash = true;
        ty = r.y1;
        break;
      }
    if (!clash) break;
  }
  ty = std::max(0, std::min(ty, c.h - th));
  placed.push_back({tx, ty, tx + tw, ty + th});
  c.fill(tx, ty, tx + tw, ty + th, bg);
  draw_text(c, tx + pad, ty + pad, text, text_color_on(bg), scale);
}

}  // namespace

void draw_detections(Canvas& c, const std::vector<DetectionRecord>& dets) {
  const int scale = font_scale(c);
  const int thickness = std::max(2, int(std::min(c.w, c.h) * 0.006));
  for (const DetectionRecord& d : dets) draw_box(c, d.left, d.top, d.width, d.height, class_color(d.class_id), thickness);
  // Labels after every box, so no box is drawn over a label.
  std::vector<Rect> placed;
  for (const DetectionRecord& d : dets) {
    char pct[16];
    std::snprintf(pct, sizeof pct, " %.0f%%", double(d.confidence) * 100);
    draw_tag(c, d.left, d.top, d.name + pct, class_color(d.class_id), scale, placed);
  }
}

void draw_classes(Canvas& c, const std::vector<ClassRecord>& classes) {
  const int scale = font_scale(c);
  int y = 0;
  for (const ClassRecord& k : classes) {
    char pct[16];
    std::snprintf(pct, sizeof pct, "%.1f%% ", double(k.probability) * 100);
    const std::string text = pct + k.name;
    const Rgb bg = class_color(k.class_id);
    const int th = kGlyphH * scale + 2 * scale;
    if (y + th > c.h) break;
    c.fill(0, y, text_width(text, scale) + scale, y + th, bg);
    draw_text(c, scale, y + scale, text, text_color_on(bg), scale);
    y += th;
  }
}

static std::string real_path(const std::string& p) {
  char buf[PATH_MAX];
  return ::realpath(p.c_str(), buf) ? std::string(buf) : std::string();
}

std::string DrawNamer::name_for(const std::string& input, const std::string& suffix) {
  std::string base = input.substr(input.find_last_of('/') + 1);
  const size_t dot = base.find_last_of('.');
  if (dot != std::string::npos && dot > 0) base.resize(dot);
  if (base.empty()) base = "image";
  const std::string in_real = real_path(input);
  for (int k = 0;; ++k) {
    const std::string candidate =
        dir_ + "/" + base + suffix + (k ? "_" + std::to_string(k) : std::string()) + "." + ext_;
    if (used_.count(candidate)) continue;
    const std::string cand_real = real_path(candidate);
    if (!in_real.empty() && cand_real == in_real) continue;  // never overwrite the input
    if (inputs_ && inputs_->is_input(candidate)) continue;   // nor any other file the run reads
    used_.insert(candidate);
    return candidate;
  }
}

Result<std::string> DrawNamer::claim(const std::string& input, const std::string& suffix) {
  std::string name = name_for(input, suffix);
  MDFI_RETURN_IF_ERROR(refuse_picture(name, what_, force_));
  return name;
}

}  // namespace mdfi::app
