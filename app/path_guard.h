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
  // A usage error naming `what` (e.g. "-o") when `path` is an input, or (unless `force`) an
  // existing picture (is_picture_file); Ok otherwise.
  Status check_output(const std::string& path, const char* what, bool force = false) const;

 private:
  std::set<std::pair<dev_t, ino_t>> ids_;
  std::set<std::string> canonical_;
};

// The absolute path with symlinks of the existing part resolved ("/a/b/new.json" for a file
// that does not exist yet in /a/b); "" when even the directory cannot be resolved.
std::string canonical_path(const std::string& path);

// The key that names an input across runs and machines (--resume, --shard, `mdfi merge`): the
// absolute path with its directories' symlinks, `.` and `..` resolved and the file's own name
// kept as given, so `batch/a.jpg`, `./batch/a.jpg` and `/abs/batch/a.jpg` are one input, while a
// symlink farm's `img1.jpg -> dog.jpg` stays an input of its own. "-" stays "-".
std::string input_key(const std::string& path);

// True when `path` is an existing regular file whose first bytes are a picture's signature:
// JPEG (FF D8 FF), PNG, GIF, BMP, TIFF, WebP (RIFF....WEBP), PNM (P1-P7), HEIF/AVIF (ftyp).
bool is_picture_file(const std::string& path);

// A usage error when writing `path` would replace an existing picture and `force` is off:
// "`what` PATH is an existing JPEG picture (not written by mdfi); refusing to replace it
// (--force replaces it)".
Status refuse_picture(const std::string& path, const char* what, bool force);

}  // namespace mdfi::app
