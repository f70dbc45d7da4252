// Where mdfi finds the files it ships (cfg/*.cfg of the named networks, data/ label lists).
// Each file is looked for, in order, in:
//   1. <directory of the executable>/../share/mdfi   (an install under any prefix, moved or not)
//   2. $MDFI_DATA_DIR
//   3. the source tree, only for a binary that runs from inside its own build tree
//   4. the copy compiled into the binary (embedded_data.h)
// so files on disk win over the built-in copies, a copied binary never reads the tree it was
// built in, and nothing is read from /usr/share/darknet.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mdfi::app {

struct DataRef {
  std::string path;            // the file on disk, or "" when only the built-in copy exists
  std::string_view embedded;   // the built-in copy when path is ""
  bool found() const { return !path.empty() || embedded.data() != nullptr; }
  // For messages: the path, or "built-in cfg/x.cfg".
  std::string label(const std::string& rel) const { return !path.empty() ? path : "built-in " + rel; }
};

// rel: a path under the data root, e.g. "cfg/yolov4-tiny.cfg".
DataRef find_data(const std::string& rel);

// The on-disk places searched, in order (those that apply to this run), for messages and `models`.
std::vector<std::string> data_dirs();

// The directory holding the running binary (/proc/self/exe, symlinks resolved); "" when unknown.
std::string exe_dir();

// Whether the binary carries a copy of rel.
bool is_embedded(const std::string& rel);

}  // namespace mdfi::app
