// A small built-in 5x7 bitmap font for the labels that --draw writes onto pictures. Built in so
// drawing needs no font files on the target board; printable ASCII only (other bytes draw '?').
#pragma once

#include <cstdint>

namespace mdfi::app {

constexpr int kGlyphW = 5;
constexpr int kGlyphH = 7;

// Seven rows, top first; bit 4 is the leftmost column.
const uint8_t* glyph5x7(unsigned char c);

}  // namespace mdfi::app
