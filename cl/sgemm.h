// mdfi's SGEMM on the device: the tile configurations compiled into the program, the padded
// operand layout they share, how a configuration and a split-K factor are chosen for a shape
// (a cost heuristic, or a short timing of every candidate on GPUs, cached on disk per device
// and driver), and the launch itself.
#pragma once

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "runtime.h"

namespace mdfi::cl {

struct GemmConfig {
  const char* name;  // kernel name in the program
  int bm, bn, bk, tm, tn;
  int threads() const { return (bm / tm) * (bn / tn); }
};
const std::vector<GemmConfig>& gemm_configs();

// Operands: At is Kp x Mp (A transposed, zero-padded), B is Kp x Np (zero-padded), C is M x N
// with row stride N. Mp, Np, Kp are multiples of the tile; Kp splits evenly into `splits`
// slices of kslice (a multiple of bk).
struct GemmPlan {
  int config = 0, splits = 1;
  int M = 0, N = 0, K = 0;
  int Mp = 0, Np = 0, Kp = 0, kslice = 0;
  size_t at_floats() const { return size_t(Kp) * Mp; }
  size_t b_floats() const { return size_t(Kp) * Np; }
  size_t partial_floats() const { return splits > 1 ? size_t(splits) * M * N : 0; }
};
GemmPlan make_gemm_plan(int M, int N, int K, int config, int splits);

class GemmTuner {
 public:
  // `timed`: measure candidates on the device (GPUs); otherwise use the heuristic alone.
  GemmTuner(Runtime& rt, bool timed);
  Result<GemmPlan> plan_for(int M, int N, int K);
  // Every candidate for a shape, for the benchmark.
  std::vector<GemmPlan> candidates(int M, int N, int K) const;
  GemmPlan heuristic(int M, int N, int K) const;
  // Median milliseconds of `reps` back-to-back launches of `p` on scratch operands.
  Result<double> time_plan(const GemmPlan& p, int reps);

 private:
  void load();
  void save() const;
  Runtime& rt_;
  bool timed_;
  std::string file_;
  std::map<std::tuple<int, int, int>, std::pair<int, int>> chosen_;  // (M,N,K) -> (config, splits)
};

// C = act(At^T * B + bias), or the raw product when act < 0 (bias unused, may be null).
// `partial` must hold p.partial_floats() when p.splits > 1.
Status enqueue_gemm(Runtime& rt, const GemmPlan& p, cl_mem At, cl_mem B, cl_mem C, cl_mem bias, int act,
                    cl_mem partial);

}  // namespace mdfi::cl
