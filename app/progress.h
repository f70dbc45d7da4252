// What a batch tells the person watching it, all on stderr: a one-line progress display
// ("[37/500] img.jpg 812 ms ETA 6m", only when stderr is a terminal and not -q, so logs and
// pipes never fill with carriage returns) and the end-of-run summary.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>

namespace mdfi::app {

struct BatchStats {
  size_t total = 0;
  size_t ok = 0, failed = 0;
  size_t over_budget = 0;  // images refused by --max-mem before decoding (also counted in failed)
  size_t skipped = 0;      // --stream --latest: frames dropped because inference was slower
  double load_ms = 0;  // resolving, planning and opening the model
  double sum_ms = 0, min_ms = 0, max_ms = 0;  // over images that ran
  size_t peak_heap = 0;  // the largest MemoryTracker::peak() of any image
  size_t held_peak = 0;     // the arena plus anything that did not fit in it (Arena::held_peak)
  size_t kept_weights = 0;  // --keep-weights: prepared weights resident across the batch
  int host_layers = -1;     // --backend opencl: layers without a device kernel (-1 = CPU backend)
  int layers = 0;
  void add_time(double ms);
};

class Progress {
 public:
  Progress(size_t total, bool enabled) : total_(total), enabled_(enabled) {}
  ~Progress() { finish(); }
  void update(size_t done, const std::string& path, double ms, double mean_ms);
  void finish();  // ends the line so later messages start clean

 private:
  size_t total_;
  bool enabled_;
  bool drawn_ = false;
};

std::string format_eta(double seconds);  // "45s", "6m", "1h20m"
bool stderr_is_terminal();
void print_summary(std::FILE* out, const BatchStats& s, size_t peak_rss);

}  // namespace mdfi::app
