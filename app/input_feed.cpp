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
  PathFeed(std::vector<std::string> upfront, bool read_stdin) : items_(upfront.begin(), upfront.end()), stdin_(read_stdin) {
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
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.empty()) continue;
      std::vector<std::string> expanded;
      auto st = expand_inputs({line}, "", std::cin);
      if (!st.ok()) {  // an unreadable directory named on a line: that line's error record
        item = FeedItem{};
        item.name = line;
        item.error = st.status();
        return true;
      }
      items_.insert(items_.end(), st->begin(), st->end());
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
  size_t total_ = 0;
};

}  // namespace

Result<std::unique_ptr<InputFeed>> open_path_feed(const std::vector<std::string>& paths, const std::string& list_file) {
  const bool from_stdin = list_file == "-";
  std::istringstream none;
  auto upfront = expand_inputs(paths, from_stdin ? "" : list_file, none);
  if (!upfront.ok()) return upfront.status();
  return std::unique_ptr<InputFeed>(std::make_unique<PathFeed>(std::move(*upfront), from_stdin));
}

int MjpegSplitter::get() { return std::getc(in_); }

bool MjpegSplitter::next(std::vector<uint8_t>& frame, bool& truncated) {
  frame.clear();
  truncated = false;
  if (!pending_soi_) {  // skip anything before the next SOI (FF D8)
    int prev = -1, c;
    while ((c = get()) != EOF) {
      if (prev == 0xFF && c == 0xD8) break;
      prev = c;
    }
    if (c == EOF) return false;
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
    for (int i = 2; i < len; ++i) {
      const int b = get();
      if (b == EOF) return cut();
      frame.push_back(uint8_t(b));
    }
    if (m != 0xDA) {  // not SOS: the next marker follows directly
      c = get();
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
      std::ungetc(n, in_);
      c = 0xFF;
      break;
    }
  }
}

namespace {

class MjpegFeed final : public InputFeed {
 public:
  MjpegFeed(std::FILE* in, std::string path, bool latest) : in_(in), path_(std::move(path)), split_(in), latest_(latest) {
    if (latest_) reader_ = std::thread([this] { read_all(); });
  }
  ~MjpegFeed() override {
    if (reader_.joinable()) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        stop_ = true;
      }
      // The reader may be blocked in a read on a pipe that never ends: it is detached, and the
      // process exit ends it (nothing it owns outlives the feed but the FILE, left open).
      reader_.detach();
      in_ = nullptr;
    }
    if (in_ && in_ != stdin) std::fclose(in_);
  }

  bool next(FeedItem& item) override {
    if (!latest_) {
      std::vector<uint8_t> frame;
      bool truncated = false;
      if (!split_.next(frame, truncated)) return false;
      fill(item, std::move(frame), truncated, index_++, 0);
      return true;
    }
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return has_frame_ || ended_; });
    if (!has_frame_) return false;
    item = std::move(newest_);
    has_frame_ = false;
    item.skipped = dropped_;
    dropped_ = 0;
    return true;
  }

 private:
  void fill(FeedItem& item, std::vector<uint8_t> frame, bool truncated, long long index, size_t skipped) {
    item = FeedItem{};
    item.frame = index;
    item.name = path_ + "#" + std::to_string(index);
    item.read_at = now_seconds();
    item.skipped = skipped;
    if (truncated)
      item.error = Status(ErrorKind::kImage, item.name + ": truncated JPEG frame (" + std::to_string(frame.size()) +
                                                 " bytes, no end-of-image marker)");
    else
      item.bytes = std::make_shared<const std::vector<uint8_t>>(std::move(frame));
  }

  // --latest: read frames as fast as they come, keeping only the newest.
  void read_all() {
    long long index = 0;
    while (true) {
      std::vector<uint8_t> frame;
      bool truncated = false;
      const bool got = split_.next(frame, truncated);
      std::lock_guard<std::mutex> lock(mu_);
      if (!got || stop_) {
        ended_ = true;
        cv_.notify_all();
        return;
      }
      if (has_frame_) ++dropped_;
      fill(newest_, std::move(frame), truncated, index++, 0);
      has_frame_ = true;
      cv_.notify_all();
    }
  }

  std::FILE* in_;
  std::string path_;
  MjpegSplitter split_;
  bool latest_;
  long long index_ = 0;
  std::thread reader_;
  std::mutex mu_;
  std::condition_variable cv_;
  FeedItem newest_;
  bool has_frame_ = false, ended_ = false, stop_ = false;
  size_t dropped_ = 0;
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
