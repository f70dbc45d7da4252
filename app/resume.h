// --resume: which inputs an earlier run of the same command already recorded in its -o file,
// so the rerun skips them and appends the rest. Line formats only (JSONL, CSV, text): a JSON
// array is written all-or-nothing, so an interrupted one leaves no file to resume from.
// Records are matched by the image path exactly as it was given (the same command line, or
// the same list, gives the same strings). A last line cut short (power lost mid-write) is
// dropped from the file before appending.
#pragma once

#include <set>
#include <string>

#include "output.h"
#include "status.h"

namespace mdfi::app {

struct Recorded {
  std::set<std::string> images;
  bool file_has_data = false;  // non-empty after trimming (CSV: the header is there already)
};

// A missing or empty file is an empty set (nothing to skip).
Result<Recorded> read_recorded(const std::string& path, Format format);

}  // namespace mdfi::app
