#include "input_feed.h"

#include <sys/stat.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <fstream>
#include <sstream>
#include <iostream>
#include <mutex>
#include <thread>

#include "inputs.h"

namespace mdfi::app {

namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

class PathFeed final : public InputFeed {
 public:
  PathFeed(std::vector<std::string> upfront, bool read_stdin, std::function<bool(const std::string&)> skip)
      : items_(upfront.begin(), upfront.end()), stdin_(read_stdin), skip_(std::move(skip)) {
    total_ = read_stdin ? 0 : items_.size();
  }
  bool next(FeedItem& item) override {
    while (items_.empty() && stdin_) {
      std::string line;
      if (!std::getline(std::cin, line)) {
        if (std::cin.bad()) error_ = Status(ErrorKind::kIo, "--list -: reading stdin failed");
        stdin_ = false;
        break;
      }
      const size_t b = line.find_first_not_of(" \t\r"), e = line.find_last_not_of(" \t\r");
      if (b == std::string::npos || line[b] == '#') continue;
      line = line.substr(b, e - b + 1);
      std::istringstream none;
      auto expanded = expand_inputs({line}, "", none);
      if (!expanded.ok()) {  // an unreadable directory named on a line: that line's error record
        item = FeedItem{};
        item.name = line;
        item.error = expanded.status();
        return true;
      }
      for (std::string& p : *expanded)
        if (!skip_ || !skip_(p)) items_.push_back(std::move(p));
    }
    if (items_.empty()) return false;
    item = FeedItem{};
    item.name = std::move(items_.front());
    items_.pop_front();
    return true;
  }
  size_t total() const override { return total_; }

 private:
  std::deque<std::string> items_;
  bool stdin_;
  std::function<bool(const std::string&)> skip_;
  size_t total_ = 0;
};

}  // namespace

Result<std::unique_ptr<InputFeed>> open_path_feed(std::vector<std::string> paths, bool read_stdin,
                                                  std::function<bool(const std::string&)> skip) {
  return std::unique_ptr<InputFeed>(std::make_unique<PathFeed>(std::move(paths), read_stdin, std::move(skip)));
}

int MjpegSplitter::get() {
  if (again_at_ < again_.size()) return again_[again_at_++];
  if (!again_.empty()) again_.clear(), again_.shrink_to_fit(), again_at_ = 0;
  return std::getc(in_);
}

// Only ever the byte just read: back into the slot it came from, or onto the stream.
void MjpegSplitter::unget(int c) {
  if (again_at_ > 0) again_[--again_at_] = uint8_t(c);
  else std::ungetc(c, in_);
}

bool MjpegSplitter::next(std::vector<uint8_t>& frame, bool& truncated) {
  frame.clear();
  truncated = false;
  garbage_ = 0;
  if (!pending_soi_) {  // skip anything before the next SOI (FF D8), counted
    int prev = -1, c;
    size_t read = 0;
    while ((c = get()) != EOF) {
      ++read;
      if (prev == 0xFF && c == 0xD8) break;
      prev = c;
    }
    if (c == EOF) return false;
    garbage_ = read - 2;
  }
  pending_soi_ = false;
  frame.push_back(0xFF);
  frame.push_back(0xD8);
  auto cut = [&]() {
    truncated = true;
    return true;
  };
  int c = get();
  while (true) {
    // Expecting a marker: FF, fill FFs, then its code.
    if (c == EOF) return cut();
    if (c != 0xFF) {  // garbage where a marker belongs: keep it, look for the next FF
      frame.push_back(uint8_t(c));
      c = get();
      continue;
    }
    int m;
    while ((m = get()) == 0xFF) {
    }
    if (m == EOF) return cut();
    if (m == 0xD8) {  // another image begins: this one was cut short
      pending_soi_ = true;
      return cut();
    }
    frame.push_back(0xFF);
    frame.push_back(uint8_t(m));
    if (m == 0xD9) return true;                                  // EOI
    if ((m >= 0xD0 && m <= 0xD7) || m == 0x01) {  // standalone markers
      c = get();
      continue;
    }
    const int hi = get(), lo = get();
    if (hi == EOF || lo == EOF) return cut();
    frame.push_back(uint8_t(hi));
    frame.push_back(uint8_t(lo));
    const int len = hi << 8 | lo;
    const size_t payload = frame.size();
    for (int i = 2; i < len; ++i) {
      const int b = get();
      if (b == EOF) return cut();
      frame.push_back(uint8_t(b));
    }
    if (m != 0xDA) {  // not SOS: the next marker follows directly
      c = get();
      if (c != 0xFF && c != EOF) {
        // No marker after the segment: the frame was cut inside it, and its length took bytes of
        // the frames after it. The first SOI followed by a marker among them starts the next
        // frame (an EXIF thumbnail's would be found first, but only in a frame already cut).
        frame.push_back(uint8_t(c));
        for (size_t p = payload; p + 2 < frame.size(); ++p)
          if (frame[p] == 0xFF && frame[p + 1] == 0xD8 && frame[p + 2] == 0xFF) {
            std::vector<uint8_t> rest(frame.begin() + std::ptrdiff_t(p), frame.end());
            rest.insert(rest.end(), again_.begin() + std::ptrdiff_t(again_at_), again_.end());
            again_ = std::move(rest);
            again_at_ = 0;
            frame.resize(p);
            return cut();
          }
        frame.pop_back();
      }
      continue;
    }
    // Entropy-coded data: FF 00 is a data byte, FF D0-D7 a restart; any other FF xx is a marker.
    while (true) {
      const int b = get();
      if (b == EOF) return cut();
      if (b != 0xFF) {
        frame.push_back(uint8_t(b));
        continue;
      }
      int n;
      while ((n = get()) == 0xFF) {
      }
      if (n == EOF) return cut();
      if (n == 0x00 || (n >= 0xD0 && n <= 0xD7)) {
        frame.push_back(0xFF);
        frame.push_back(uint8_t(n));
        continue;
      }
      // A marker: hand it to the marker loop (FF already consumed, so push back the code).
      unget(n);
      c = 0xFF;
      break;
    }
  }
}

namespace {

// Everything the --latest reader thread touches, shared with it: the feed may be destroyed
// (an early stop) while the thread is still blocked reading a pipe that never ends; the thread
// then finishes with its own reference and the process exit ends it.
struct StreamState {
  StreamState(std::FILE* f, std::string p) : in(f), path(std::move(p)), split(f) {}
  ~StreamState() {
    if (in != stdin) std::fclose(in);
  }
  std::FILE* in;
  std::string path;
  MjpegSplitter split;
  std::mutex mu;
  std::condition_variable cv;
  FeedItem newest;
  bool has_frame = false, ended = false;
  size_t dropped = 0;

  void fill(FeedItem& item, std::vector<uint8_t> frame, bool truncated, long long index) const {
    item = FeedItem{};
    item.frame = index;
    item.garbage = split.garbage();
    item.name = path + "#" + std::to_string(index);
    item.read_at = now_seconds();
    if (truncated)
      item.error = Status(ErrorKind::kImage, item.name + ": truncated JPEG frame (" + std::to_string(frame.size()) +
                                                 " bytes, no end-of-image marker)");
    else
      item.bytes = std::make_shared<const std::vector<uint8_t>>(std::move(frame));
  }
};

// --latest: reads frames as fast as they come, keeping only the newest.
void read_newest(const std::shared_ptr<StreamState>& s) {
  long long index = 0;
  while (true) {
    std::vector<uint8_t> frame;
    bool truncated = false;
    const bool got = s->split.next(frame, truncated);
    std::lock_guard<std::mutex> lock(s->mu);
    if (!got) {
      s->ended = true;
      s->cv.notify_all();
      return;
    }
    if (s->has_frame) ++s->dropped;
    s->fill(s->newest, std::move(frame), truncated, index++);
    s->has_frame = true;
    s->cv.notify_all();
  }
}

class MjpegFeed final : public InputFeed {
 public:
  MjpegFeed(std::FILE* in, std::string path, bool latest)
      : s_(std::make_shared<StreamState>(in, std::move(path))), latest_(latest) {
    if (latest_) std::thread([s = s_] { read_newest(s); }).detach();
  }

  bool next(FeedItem& item) override {
    if (!latest_) {
      std::vector<uint8_t> frame;
      bool truncated = false;
      if (!s_->split.next(frame, truncated)) return false;
      s_->fill(item, std::move(frame), truncated, index_++);
      return true;
    }
    std::unique_lock<std::mutex> lock(s_->mu);
    s_->cv.wait(lock, [this] { return s_->has_frame || s_->ended; });
    if (!s_->has_frame) return false;
    item = std::move(s_->newest);
    s_->has_frame = false;
    item.skipped = s_->dropped;
    s_->dropped = 0;
    return true;
  }

 private:
  std::shared_ptr<StreamState> s_;
  bool latest_;
  long long index_ = 0;
};

}  // namespace

Result<std::unique_ptr<InputFeed>> open_mjpeg_feed(const std::string& path, bool latest) {
  std::FILE* in = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
  if (!in) return Result<std::unique_ptr<InputFeed>>(ErrorKind::kIo, path + ": cannot open the stream (" + std::strerror(errno) + ")");
  struct stat st {};
  if (::fstat(::fileno(in), &st) == 0 && S_ISDIR(st.st_mode)) {
    std::fclose(in);
    return Result<std::unique_ptr<InputFeed>>(ErrorKind::kUsage, path + ": --stream needs a file, FIFO or '-', not a directory");
  }
  return std::unique_ptr<InputFeed>(std::make_unique<MjpegFeed>(in, path == "-" ? "stdin" : path, latest));
}

}  // namespace mdfi::app
