// The networks mdfi knows by name: their cfg in cfg/, labels, and where to look for weights.
#pragma once

#include <string>
#include <vector>

#include "status.h"

namespace mdfi::app {

struct NamedNet {
  const char* name;
  const char* cfg;         // file in cfg/
  const char* labels;      // file in data/ or an absolute path; "" = none
  const char* task;        // "detect" or "classify"
  const char* weights;     // official weights file name
  const char* url;         // where the official file is published
  const char* sha256;      // of the official file; "" = unknown
};

const std::vector<NamedNet>& named_nets();
const NamedNet* find_named_net(const std::string& name);
std::string named_net_list();  // "yolov3, yolov3-tiny, ..."

// The directory holding cfg/ and data/ (source tree, install prefix or $MDFI_DATA_DIR).
std::string data_root();
std::string cfg_path_for(const NamedNet& n);
std::string labels_path_for(const NamedNet& n);

// Finds the weights for a named network: explicit path, $MDFI_WEIGHTS, then $MDFI_WEIGHTS_DIR or
// ~/.local/share/mdfi/weights. The error lists every place looked at.
Result<std::string> find_weights(const NamedNet& n, const std::string& explicit_path);
std::string weights_dir();

}  // namespace mdfi::app
