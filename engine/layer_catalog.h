// What `mdfi info --layers` prints: every section type build_network supports, with the keys
// mdfi reads for it and a line on its semantics. Kept beside the factory table; a test checks the
// two list the same sections.
#pragma once

#include <string>
#include <vector>

namespace mdfi {

struct LayerDoc {
  const char* section;  // canonical name, e.g. "convolutional"
  const char* keys;     // keys read at inference, comma separated
  const char* note;     // one line: what it does, and where the two Darknets differ
};

const std::vector<LayerDoc>& layer_catalog();

}  // namespace mdfi
