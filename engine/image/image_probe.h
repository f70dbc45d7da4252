// Reads the width and height an image file declares in its header (PNG IHDR, JPEG SOF, GIF
// screen, BMP info header) without decoding anything, so absurd sizes are refused with a clear
// message before any pixel memory is asked for. stb_image refuses some of them itself, but its
// reason is lost when it falls through to "unknown image type".
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace mdfi {

struct DeclaredSize {
  bool known = false;   // false: not one of the formats above, or the header is unreadable
  int64_t w = 0, h = 0;
};

// Reads from the start of `fp` and leaves it rewound.
DeclaredSize probe_image_size(std::FILE* fp);

// For a JPEG: "" when every Huffman table (DHT) has at most 256 codes, else a reason. Debian's
// stb_image (2022 snapshot) writes past its 257-entry tables for a DHT declaring more codes -
// memory corruption from a crafted file, found by fuzzing - so such files are refused before stb
// sees them. Walks every marker segment, scans included. "" for other formats. Leaves fp rewound.
std::string jpeg_huffman_problem(std::FILE* fp);

}  // namespace mdfi
