// SGEMM tile table, plan padding, the tuner (candidate timing with a disk cache, and the cost
// heuristic used where timing is off) and the launch of one GEMM, split-K reduction included.
#include "sgemm.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "program_cache.h"

namespace mdfi::cl {

const std::vector<GemmConfig>& gemm_configs() {
  // Large tiles reuse each loaded value most; the smaller ones keep all compute units busy on
  // the thin shapes (YOLOv3's 13x13 layers give N = 169).
  static const std::vector<GemmConfig> configs = {
      {"sgemm_128x128", 128, 128, 16, 8, 8}, {"sgemm_64x128", 64, 128, 16, 4, 8},
      {"sgemm_128x64", 128, 64, 16, 8, 4},   {"sgemm_64x64", 64, 64, 16, 8, 8},
      {"sgemm_64x64t", 64, 64, 16, 4, 4},    {"sgemm_32x64", 32, 64, 16, 4, 4},
  };
  return configs;
}

static int round_up(int v, int m) { return (v + m - 1) / m * m; }

GemmPlan make_gemm_plan(int M, int N, int K, int config, int splits) {
  const GemmConfig& c = gemm_configs()[size_t(config)];
  GemmPlan p;
  p.config = config;
  p.splits = splits;
  p.M = M;
  p.N = N;
  p.K = K;
  p.Mp = round_up(M, c.bm);
  p.Np = round_up(N, c.bn);
  p.Kp = round_up(K, c.bk * splits);
  p.kslice = p.Kp / splits;
  return p;
}

GemmTuner::GemmTuner(Runtime& rt, bool timed) : rt_(rt), timed_(timed) {
  const std::string dir = cache_dir();
  if (timed_ && !dir.empty()) {
    const DeviceSummary& d = rt.device().info;
    char key[17];
    std::snprintf(key, sizeof key, "%016llx",
                  static_cast<unsigned long long>(fnv1a64(d.platform + "\n" + d.name + "\n" + d.driver + "\n" + program_source())));
    file_ = dir + "/sgemm-tune-" + key + ".txt";
    load();
  }
}

void GemmTuner::load() {
  std::FILE* f = std::fopen(file_.c_str(), "r");
  if (!f) return;
  int m, n, k, c, s;
  while (std::fscanf(f, "%d %d %d %d %d", &m, &n, &k, &c, &s) == 5)
    if (c >= 0 && size_t(c) < gemm_configs().size() && s >= 1) chosen_[{m, n, k}] = {c, s};
  std::fclose(f);
}

void GemmTuner::save() const {
  if (file_.empty()) return;
  const std::string tmp = file_ + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "w");
  if (!f) return;
  for (const auto& [shape, cs] : chosen_)
    std::fprintf(f, "%d %d %d %d %d\n", std::get<0>(shape), std::get<1>(shape), std::get<2>(shape), cs.first, cs.second);
  if (std::fclose(f) == 0) std::rename(tmp.c_str(), file_.c_str());
}

std::vector<GemmPlan> GemmTuner::candidates(int M, int N, int K) const {
  std::vector<GemmPlan> out;
  for (size_t c = 0; c < gemm_configs().size(); ++c)
    for (int s : {1, 2, 4, 8, 16}) {
      GemmPlan p = make_gemm_plan(M, N, K, int(c), s);
      if (s > 1 && (p.kslice < 4 * gemm_configs()[c].bk || p.partial_floats() > (size_t(64) << 20))) continue;
      out.push_back(p);
    }
  return out;
}

GemmPlan GemmTuner::heuristic(int M, int N, int K) const {
  // Estimated time ~ waves of work-groups x work per group / tile efficiency, plus the extra
  // traffic of split-K partial sums. Crude, but it picks small tiles and splits for thin shapes.
  const double cus = std::max(1u, rt_.device().info.compute_units);
  GemmPlan best = make_gemm_plan(M, N, K, 0, 1);
  double best_cost = 1e300;
  for (const GemmPlan& p : candidates(M, N, K)) {
    const GemmConfig& c = gemm_configs()[size_t(p.config)];
    const double eff = double(c.tm * c.tn) / (c.tm + c.tn) / 4.0;  // register reuse: 1.0 for 8x8
    const double per_cu = c.threads() >= 256 ? 2 : 4;
    const double tiles = double(p.Mp / c.bm) * (p.Np / c.bn) * p.splits;
    const double waves = std::ceil(tiles / (cus * per_cu));
    double cost = waves * double(c.bm) * c.bn * p.kslice / eff;
    cost += p.splits > 1 ? 64.0 * double(p.splits) * M * N / cus : 0;
    if (!rt_.device().is_gpu) cost = double(p.Mp) * p.Np * p.Kp / eff;  // CPUs: least padding
    if (cost < best_cost) {
      best_cost = cost;
      best = p;
    }
  }
  return best;
}

Result<double> GemmTuner::time_plan(const GemmPlan& p, int reps) {
  MDFI_ASSIGN_OR_RETURN(auto at, rt_.alloc(p.at_floats() * 4, "tuning A"));
  MDFI_ASSIGN_OR_RETURN(auto b, rt_.alloc(p.b_floats() * 4, "tuning B"));
  MDFI_ASSIGN_OR_RETURN(auto c, rt_.alloc(size_t(p.M) * p.N * 4, "tuning C"));
  MDFI_ASSIGN_OR_RETURN(auto part, rt_.alloc(std::max<size_t>(p.partial_floats(), 1) * 4, "tuning partial sums"));
  // Not zeros: fresh memory often is, and zeros can run faster than real data.
  const float pattern = 0.37f;
  MDFI_CL_CHECK(clEnqueueFillBuffer(rt_.queue(), at.get(), &pattern, 4, 0, at.bytes(), 0, nullptr, nullptr), "fill");
  MDFI_CL_CHECK(clEnqueueFillBuffer(rt_.queue(), b.get(), &pattern, 4, 0, b.bytes(), 0, nullptr, nullptr), "fill");
  MDFI_RETURN_IF_ERROR(enqueue_gemm(rt_, p, at.get(), b.get(), c.get(), nullptr, -1, part.get()));
  MDFI_RETURN_IF_ERROR(rt_.finish());
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    MDFI_RETURN_IF_ERROR(enqueue_gemm(rt_, p, at.get(), b.get(), c.get(), nullptr, -1, part.get()));
    MDFI_RETURN_IF_ERROR(rt_.finish());
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

Result<GemmPlan> GemmTuner::plan_for(int M, int N, int K) {
  auto it = chosen_.find({M, N, K});
  if (it != chosen_.end()) return make_gemm_plan(M, N, K, it->second.first, it->second.second);
  if (!timed_) return heuristic(M, N, K);
  GemmPlan best = heuristic(M, N, K);
  double best_ms = 1e300;
  for (const GemmPlan& p : candidates(M, N, K)) {
    auto ms = time_plan(p, 5);
    if (!ms.ok()) continue;  // e.g. a configuration this device cannot launch
    if (*ms < best_ms) {
      best_ms = *ms;
      best = p;
    }
  }
  chosen_[{M, N, K}] = {best.config, best.splits};
  save();
  return best;
}

Status enqueue_gemm(Runtime& rt, const GemmPlan& p, cl_mem At, cl_mem B, cl_mem C, cl_mem bias, int act,
                    cl_mem partial) {
  const GemmConfig& c = gemm_configs()[size_t(p.config)];
  const size_t local[3] = {size_t(c.bn / c.tn), size_t(c.bm / c.tm), 1};
  const size_t global[3] = {size_t(p.Np / c.bn) * local[0], size_t(p.Mp / c.bm) * local[1], size_t(p.splits)};
  if (p.splits == 1)
    return rt.launch(c.name, 3, global, local, {p.M, p.N, p.kslice, At, p.Mp, B, p.Np, C, p.N, 0, bias, act});
  MDFI_RETURN_IF_ERROR(
      rt.launch(c.name, 3, global, local, {p.M, p.N, p.kslice, At, p.Mp, B, p.Np, partial, p.N, p.M * p.N, bias, -1}));
  const size_t rg[2] = {size_t(p.N), size_t(p.M)}, rl[2] = {64, 1};
  return rt.launch("splitk_reduce", 2, rg, rl, {partial, p.splits, p.M, p.N, bias, act, C});
}

}  // namespace mdfi::cl
