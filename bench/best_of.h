// Best-of-N timing for the kernel benches: the minimum over repeats, which a loaded host inflates
// less than a median would. Process CPU time counts every thread's work (with
// OMP_WAIT_POLICY=passive, waits excluded); wall time is what a user waits.
#pragma once
#include <algorithm>
#include <chrono>
#include <ctime>

namespace mdfi::bench {

inline double process_cpu_ms() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) * 1e3 + double(t.tv_nsec) * 1e-6;
}

inline double wall_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The shortest of `reps` runs of f, by `clock` (one of the two above).
template <class F>
double best_ms(double (*clock)(), F f, int reps) {
  double best = 1e300;
  for (int r = 0; r < reps; ++r) {
    const double t = clock();
    f();
    best = std::min(best, clock() - t);
  }
  return best;
}

}  // namespace mdfi::bench
