// --resume: which inputs an earlier run of the same command already recorded in its -o file,
// so the rerun skips them and appends the rest. Line formats only (JSONL, CSV, text): a JSON
// array is written all-or-nothing, so an interrupted one leaves no file to resume from.
// Records are matched by input key (path_guard.h's input_key: the absolute path with its
// directories resolved), so `batch/`, `./batch/` and `/abs/batch/` name the same inputs; a
// JSONL record's "path" (written by --shard runs) is that key already. Stream records
// ("SRC#N") are keyed by the stream's key and the frame number. A last line cut short (power
// lost mid-write) is dropped from the file before appending.
#pragma once

#include <set>
#include <string>

#include "output.h"
#include "status.h"

namespace mdfi::app {

struct Recorded {
  std::set<std::string> keys;    // input keys, or "KEY#N" for stream frames
  std::set<std::string> shards;  // JSONL "shard" values seen ("1/3")
  bool file_has_data = false;  // non-empty after trimming (CSV: the header is there already)
};

// A missing or empty file is an empty set (nothing to skip).
// `stream`: the records are frames of a --stream run ("SRC#N").
Result<Recorded> read_recorded(const std::string& path, Format format, bool stream = false);

// The key of a record's image string: input_key(image), or for a stream frame "SRC#N"
// input_key(SRC) + "#N".
std::string record_key(const std::string& image, bool stream);

}  // namespace mdfi::app
