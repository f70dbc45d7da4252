// How many threads the next image should use when the user left the count to mdfi: all the
// cores this process may run on, less those other processes kept busy lately. OpenMP threads
// beside a busy process lose their time slices at every barrier (a 640x480 batch took 1.3-2.5x
// its one-thread time beside one busy process on 2 cores; bench/threads-shared.sh), so a core
// someone else is using is left to them. Measured from /proc/stat, the whole machine's busy time,
// less this process's own CPU time, over the last 100 ms or more.
#pragma once

#include <cstdint>

namespace mdfi::app {

class CoreShare {
 public:
  // `most`: the thread count planned for (the cores allowed, or OMP_NUM_THREADS).
  explicit CoreShare(int most);
  // The threads for the next image: until a window of at least 100 ms has been measured, `most`
  // less the other tasks runnable when it was made; then `most` less the cores others kept busy
  // over the window (rounded), at least 1.
  int next();
  // Cores other processes kept busy over the last window (for -v); negative before the first.
  // The first next() may already give fewer than `most` (see the constructor).
  double others_busy() const { return others_; }

 private:
  struct Sample {
    double wall = 0;        // seconds, monotonic
    double self_cpu = 0;    // this process's user + system seconds
    uint64_t busy = 0, total = 0;  // /proc/stat's "cpu" line, in clock ticks
    bool ok = false;
  };
  static Sample take();
  int most_, current_;
  Sample last_;
  double others_ = -1;
};

}  // namespace mdfi::app
