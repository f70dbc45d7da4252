#include "progress.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>

#include "memory.h"

namespace mdfi::app {

void BatchStats::add_time(double ms) {
  const size_t n = ok;  // called after ok was counted
  min_ms = n <= 1 ? ms : std::min(min_ms, ms);
  max_ms = n <= 1 ? ms : std::max(max_ms, ms);
  sum_ms += ms;
}

std::string format_eta(double s) {
  if (!(s >= 0)) s = 0;
  const long t = std::lround(s);
  if (t < 60) return std::to_string(t) + "s";
  if (t < 3600) return std::to_string((t + 30) / 60) + "m";
  return std::to_string(t / 3600) + "h" + std::to_string((t % 3600) / 60) + "m";
}

bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

void Progress::update(size_t done, const std::string& path, double ms, double mean_ms) {
  if (!enabled_) return;
  std::string name = path.substr(path.find_last_of('/') + 1);
  if (name.size() > 40) name = "..." + name.substr(name.size() - 37);
  const double eta = mean_ms * double(total_ - std::min(done, total_)) / 1000.0;
  // \r and erase-to-end-of-line: redraw in place.
  std::fprintf(stderr, "\r\033[K[%zu/%zu] %s %.0f ms ETA %s", done, total_, name.c_str(), ms, format_eta(eta).c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void Progress::finish() {
  if (drawn_) std::fputs("\r\033[K", stderr);
  drawn_ = false;
}

void print_summary(std::FILE* out, const BatchStats& s, size_t peak_rss) {
  std::fprintf(out, "mdfi: %zu image%s: %zu ok, %zu failed; model load %.1f ms", s.total, s.total == 1 ? "" : "s", s.ok,
               s.failed, s.load_ms);
  if (s.ok)
    std::fprintf(out, "; per image mean %.1f ms, min %.1f, max %.1f", s.sum_ms / double(s.ok), s.min_ms, s.max_ms);
  std::fprintf(out, "; peak heap %s", format_bytes(s.peak_heap).c_str());
  if (s.held_peak) std::fprintf(out, " (arena %s)", format_bytes(s.held_peak).c_str());
  if (s.kept_weights) std::fprintf(out, "; kept weights %s", format_bytes(s.kept_weights).c_str());
  if (s.host_layers >= 0)
    std::fprintf(out, "; OpenCL: %d of %d layers ran on the CPU (no device kernel)", s.host_layers, s.layers);
  std::fprintf(out, "; peak RSS %s", format_bytes(peak_rss).c_str());
  if (s.skipped) std::fprintf(out, "; %zu frame%s skipped (--latest)", s.skipped, s.skipped == 1 ? "" : "s");
  if (s.over_budget) std::fprintf(out, "; %zu over --max-mem", s.over_budget);
  std::fprintf(out, "\n");
}

}  // namespace mdfi::app
