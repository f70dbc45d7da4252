#include "core_share.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

namespace mdfi::app {

CoreShare::CoreShare(int most) : most_(std::max(1, most)), current_(std::max(1, most)), last_(take()) {
  // Before a window has been measured: the tasks runnable right now (/proc/loadavg's 4th field,
  // "running/total"), less this one. A camera encoder beside mdfi is runnable whenever it is.
  if (std::FILE* f = std::fopen("/proc/loadavg", "r")) {
    double l1, l5, l15;
    int running = 0, total = 0;
    if (std::fscanf(f, "%lf %lf %lf %d/%d", &l1, &l5, &l15, &running, &total) == 5 && running > 1)
      current_ = std::clamp(most_ - (running - 1), 1, most_);
    std::fclose(f);
  }
}

CoreShare::Sample CoreShare::take() {
  Sample s;
  s.wall = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  rusage ru{};
  if (::getrusage(RUSAGE_SELF, &ru) == 0)
    s.self_cpu = double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + 1e-6 * double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
  std::FILE* f = std::fopen("/proc/stat", "r");
  if (!f) return s;
  // cpu  user nice system idle iowait irq softirq steal guest guest_nice
  unsigned long long v[8] = {};
  s.ok = std::fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                     &v[6], &v[7]) == 8;
  std::fclose(f);
  // Steal is time the hypervisor gave another guest: busy for us too.
  s.busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
  s.total = s.busy + v[3] + v[4];
  return s;
}

int CoreShare::next() {
  // Most images come well within a window of the last sample: no /proc read for them.
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  if (!last_.ok || wall - last_.wall < 0.1) return current_;
  const Sample now = take();
  if (!now.ok || !last_.ok || now.wall - last_.wall < 0.1 || now.total <= last_.total) return current_;
  static const double tick = double(::sysconf(_SC_CLK_TCK) > 0 ? ::sysconf(_SC_CLK_TCK) : 100);
  const double cores = double(::sysconf(_SC_NPROCESSORS_ONLN));
  // The machine's busy cores over the window (ticks of all CPUs over ticks of one), less ours.
  const double span = double(now.total - last_.total) / cores / tick;
  const double busy_cores = double(now.busy - last_.busy) / tick / span;
  const double ours = (now.self_cpu - last_.self_cpu) / (now.wall - last_.wall);
  others_ = std::max(0.0, busy_cores - ours);
  last_ = now;
  // A core counts as taken once others used more than half of it, so the noise of a shell or
  // a logger does not cost a thread.
  const int free_cores = int(std::lround(std::max(0.0, cores - others_)));
  current_ = std::clamp(std::min(free_cores, most_), 1, most_);
  return current_;
}

}  // namespace mdfi::app
