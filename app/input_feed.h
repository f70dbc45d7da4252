// Where the batch loop's images come from, one at a time, so a result can be written as soon as
// its image is done: paths given up front (command line, directories, a --list file), paths
// read line by line from stdin as they arrive (`--list -`, e.g. from `inotifywait -m`), and
// JPEG frames split out of an MJPEG byte stream (`--stream`, e.g. `rpicam-vid --codec mjpeg -o -`).
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "status.h"

namespace mdfi::app {

struct FeedItem {
  std::string name;                 // the path, "-", or "frame N" for a stream
  std::shared_ptr<const std::vector<uint8_t>> bytes;  // a stream frame's bytes; null for paths
  long long frame = -1;             // stream frame index (0-based); -1 for paths
  double read_at = 0;               // stream: when the frame was complete (seconds since the epoch)
  size_t skipped = 0;               // --latest: frames dropped since the previous record
  size_t garbage = 0;               // stream: bytes that were no JPEG data, skipped before this frame
  Status error;                     // a frame that could not be cut out (truncated): an error record
};

class InputFeed {
 public:
  virtual ~InputFeed() = default;
  // The next item; false at the end. An error that ends the feed (the list cannot be read) is
  // returned through `error()` after next() returns false.
  virtual bool next(FeedItem& item) = 0;
  virtual size_t total() const { return 0; }  // 0: not known in advance
  const Status& error() const { return error_; }

 protected:
  Status error_;
};

// Paths already expanded (command line, directories, a --list file), then, with `read_stdin`
// (`--list -`), paths read from stdin line by line as lines arrive, so a slow producer gets each
// record at once. Lines are trimmed; blank ones and `#` comments are skipped, as in list files;
// a directory on a line is expanded; `skip(path)` drops a path read from stdin (--resume, --shard).
Result<std::unique_ptr<InputFeed>> open_path_feed(std::vector<std::string> paths, bool read_stdin,
                                                  std::function<bool(const std::string&)> skip);

// Concatenated JPEG frames from `path` ("-" = stdin; a FIFO, a file or a device). latest: a
// reader thread keeps only the newest complete frame, so a slow network never lags behind the
// camera; each item says how many frames were dropped before it.
Result<std::unique_ptr<InputFeed>> open_mjpeg_feed(const std::string& path, bool latest);

// Splits one JPEG (SOI ... EOI) off `in` by walking its markers (segment lengths, then the
// entropy-coded data up to the next real marker), so an EXIF thumbnail's own SOI/EOI inside
// APP1 does not end the frame. Returns false at a clean end of stream. A frame cut short (the
// stream ends, or another SOI starts inside it) comes back with `truncated` set; a new frame
// that started inside it is kept for the next call. A frame cut inside a header segment has the
// next frame's first bytes read as that segment's rest; where no marker follows the segment,
// the next frame's SOI is looked for in those bytes, and they are read again as its start.
class MjpegSplitter {
 public:
  explicit MjpegSplitter(std::FILE* in) : in_(in) {}
  bool next(std::vector<uint8_t>& frame, bool& truncated);
  // Bytes the last next() skipped because they were no part of a JPEG (before its SOI).
  size_t garbage() const { return garbage_; }

 private:
  int get();
  void unget(int c);
  std::FILE* in_;
  bool pending_soi_ = false;    // an SOI already read, belonging to the next frame
  size_t garbage_ = 0;
  std::vector<uint8_t> again_;  // bytes to read again before the stream's (a resynchronised frame's start)
  size_t again_at_ = 0;
};

}  // namespace mdfi::app
