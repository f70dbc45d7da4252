// Darknet's .data files (cfg/coco.data): `key=value` lines naming a model's class count, its
// label list and training files. mdfi reads `classes=` and `names=` (or `labels=`, the classifier's
// fallback key) so `--data FILE.data` gives labels without `--names`, and it recognises a .data
// file handed to `--names` so its lines are never taken for class names.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "status.h"

namespace mdfi::app {

struct DataFile {
  std::string path;
  // Every key in file order, whitespace removed as Darknet's strip() does ("names = a b" ->
  // "names", "ab"); lookups take the first occurrence, as Darknet's option_find does.
  struct Entry {
    std::string key, value;
    int line = 0;
  };
  std::vector<Entry> entries;

  const Entry* find(const std::string& key) const;
  int classes() const;            // classes=, or -1 when absent or not a positive integer
  const Entry* names_entry() const;  // names=, else labels=; nullptr when neither is there
};

// Parses the text of a .data file. Lines without '=' (after comments '#'/';' and blank lines
// are skipped) are errors naming path:line, where Darknet only prints a warning and goes on:
// such a line is what a names list looks like, and the point is to catch that mix-up.
Result<DataFile> parse_data_text(const std::string& text, const std::string& path);
Result<DataFile> parse_data_file(const std::string& path);

// Where names= points. Darknet fopen()s the value as written, so a relative path is relative to
// the working directory; when nothing is there, mdfi also tries the .data file's directory and
// its parent (Darknet's own layout is cfg/coco.data with names=data/coco.names, relative to the
// directory above cfg/). The error names the .data file, its line and every place looked at.
Result<std::string> resolve_names_path(const DataFile& data);

// True when `text` reads as a .data file rather than a names list: a `classes=`, `names=`,
// `train=`, `valid=` or `backup=` line (whitespace ignored, as Darknet strips it).
bool looks_like_data_text(const std::string& text);
// The same for a file, also true for the .data extension; false when it cannot be read.
bool looks_like_data_file(const std::string& path);

}  // namespace mdfi::app
