// No output may ever replace one of the run's inputs. `InputFiles` remembers every file the run
// reads (images, list, cfg, weights, names, .data) by device+inode when it exists and by its
// canonical path otherwise; every output path (-o, reports, plots, drawings, crops, labels) is
// checked against it before anything is written. Names are not enough: `./a.jpg`, `a.jpg`, a
// symlink and a hard link all reach the same bytes.
#pragma once

#include <sys/types.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "status.h"

namespace mdfi::app {

class InputFiles {
 public:
  void add(const std::string& path);
  void add_all(const std::vector<std::string>& paths) {
    for (const auto& p : paths) add(p);
  }
  // True when writing `path` would replace (or write through) one of the inputs.
  bool is_input(const std::string& path) const;
  // A usage error naming `what` (e.g. "-o") when `path` is an input; Ok otherwise.
  Status check_output(const std::string& path, const char* what) const;

 private:
  std::set<std::pair<dev_t, ino_t>> ids_;
  std::set<std::string> canonical_;
};

// The absolute path with symlinks of the existing part resolved ("/a/b/new.json" for a file
// that does not exist yet in /a/b); "" when even the directory cannot be resolved.
std::string canonical_path(const std::string& path);

}  // namespace mdfi::app
