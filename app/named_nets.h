// The networks mdfi knows by name: their cfg in cfg/, labels in data/, their task, and where
// the official weights are published.
#pragma once

#include <string>
#include <vector>

#include "data_lookup.h"
#include "status.h"

namespace mdfi::app {

struct NamedNet {
  const char* name;
  const char* cfg;         // file in cfg/
  const char* labels;      // file in data/; "" = none
  const char* task;        // "detect" or "classify": the command that runs it
  const char* weights;     // official weights file name
  const char* url;         // where the official file is published
  const char* sha256;      // of the official file, only where its publisher gives one; "" = unknown
};

const std::vector<NamedNet>& named_nets();
const NamedNet* find_named_net(const std::string& name);
std::string named_net_list(const char* task = nullptr);  // "yolov3, yolov3-tiny, ..." (of one task)

// The cfg and label list of a named network: on disk or built in (data_lookup.h).
DataRef cfg_for(const NamedNet& n);
DataRef labels_for(const NamedNet& n);
inline std::string cfg_rel(const NamedNet& n) { return std::string("cfg/") + n.cfg; }
inline std::string labels_rel(const NamedNet& n) { return std::string("data/") + n.labels; }

// Finds the weights for a named network: the explicit path, else $MDFI_WEIGHTS (a file), else
// the official file name (n.weights) in, in order, the working directory, the directory holding
// the mdfi binary, and $MDFI_WEIGHTS_DIR or ~/.local/share/mdfi/weights. The error (one line)
// lists every place looked at.
Result<std::string> find_weights(const NamedNet& n, const std::string& explicit_path);
// The paths after $MDFI_WEIGHTS where find_weights looks for n's official file, in order
// (absolute; a directory met twice is listed once).
std::vector<std::string> weights_places(const NamedNet& n);
std::string weights_dir();
// The path of scripts/get-weights.sh to show in messages.
std::string get_weights_script();

}  // namespace mdfi::app
