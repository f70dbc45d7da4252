// One OpenMP region whose threads take equal, consecutive shares of [0, n): the split every
// layer uses when a thread should work on one contiguous part (its band of rows, its channels,
// its weight panels) rather than items handed out one at a time.
#pragma once

#include <cstdint>

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace mdfi::kernels {

// Calls f(tid, begin, end) once per thread, thread tid of nt taking [n * tid / nt, n * (tid + 1)
// / nt) (as schedule(static) splits a loop; a share may be empty). One thread runs it here: an
// OpenMP region, even of one thread, costs microseconds.
template <class F>
void split_range(int threads, int n, F&& f) {
  if (threads <= 1) {
    f(0, 0, n);
    return;
  }
#pragma omp parallel num_threads(threads)
  {
#if defined(_OPENMP)
    const int tid = omp_get_thread_num(), nt = omp_get_num_threads();
#else
    const int tid = 0, nt = 1;
#endif
    f(tid, int(int64_t(n) * tid / nt), int(int64_t(n) * (tid + 1) / nt));
  }
}

}  // namespace mdfi::kernels
