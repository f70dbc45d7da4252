// GFLOP/s of three SGEMMs on one OpenCL device, on YOLOv3-416's convolution shapes (M = filters,
// N = out_h*out_w, K = c*k*k, read from cfg/yolov3.cfg): mdfi's tiled kernel (tile and split-K
// chosen by its tuner), a naive one-work-item-per-output kernel, and CLBlast when
// libclblast.so.1 can be loaded (dlopen, so nothing links against it). Each figure is
// back-to-back launches over resident operands divided by their count (kernel time, no bus
// transfers). CLBlast and the naive kernel get plain row-major operands; CLBlast pads and
// transposes inside its call. mdfi is shown twice: "mdfi kern" on operands already in the padded
// layout its im2col produces (the kernel alone), and "mdfi+prep" from the same plain row-major
// operands CLBlast gets, including its operand preparation on the device (prep_weights_t
// transposing and padding A, a rectangular copy padding B) in every timed call: the like-for-like
// column against CLBlast. A launch error inside a timed loop aborts the run.
// Results are checked against the naive kernel.
//
//   mdfi_bench_sgemm [--device N|NAME] [--cfg cfg/yolov3.cfg] [--all]
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <set>
#include <tuple>

#include "layers/conv.h"
#include "network.h"
#include "runtime.h"
#include "sgemm.h"

using namespace mdfi;
using namespace mdfi::cl;

namespace {

// CLBlast's C API, declared here for dlsym (values from clblast_c.h: kRowMajor 101, kNo 111).
using ClblastSgemm = int (*)(int layout, int a_transpose, int b_transpose, size_t m, size_t n, size_t k, float alpha,
                             cl_mem a, size_t a_off, size_t a_ld, cl_mem b, size_t b_off, size_t b_ld, float beta,
                             cl_mem c, size_t c_off, size_t c_ld, cl_command_queue* queue, cl_event* event);

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Milliseconds per call of `launch`: warm-up, then the best of 5 trials of back-to-back calls
// sized to ~25 ms each.
double time_ms(Runtime& rt, const std::function<bool()>& launch) {
  for (int i = 0; i < 3; ++i)
    if (!launch()) return -1;
  clFinish(rt.queue());
  double t0 = now_ms();
  if (!launch()) return -1;
  if (clFinish(rt.queue()) != CL_SUCCESS) return -1;
  const double one = std::max(now_ms() - t0, 1e-3);
  const int reps = std::max(3, std::min(2000, int(25.0 / one)));
  double best = 1e300;
  for (int trial = 0; trial < 5; ++trial) {
    t0 = now_ms();
    for (int r = 0; r < reps; ++r)
      if (!launch()) return -1;
    if (clFinish(rt.queue()) != CL_SUCCESS) return -1;
    best = std::min(best, (now_ms() - t0) / reps);
  }
  return best;
}

// max|a-ref| / max|ref|; infinite when either holds a NaN or an Inf (a kernel that wrote garbage).
double rel_err(const std::vector<float>& a, const std::vector<float>& ref) {
  double d = 0, m = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    if (!std::isfinite(a[i]) || !std::isfinite(ref[i])) return INFINITY;
    d = std::max(d, double(std::fabs(a[i] - ref[i])));
    m = std::max(m, double(std::fabs(ref[i])));
  }
  return m > 0 ? d / m : d;
}

}  // namespace

int main(int argc, char** argv) {
  std::string device, cfg = "cfg/yolov3.cfg";
  bool all_candidates = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--device") && i + 1 < argc) device = argv[++i];
    else if (!std::strcmp(argv[i], "--cfg") && i + 1 < argc) cfg = argv[++i];
    else if (!std::strcmp(argv[i], "--all")) all_candidates = true;
    else {
      std::fprintf(stderr, "usage: mdfi_bench_sgemm [--device N|NAME] [--cfg FILE] [--all]\n");
      return 2;
    }
  }
  auto net = load_network_cfg(cfg, BuildOptions{});
  if (!net.ok()) {
    std::fprintf(stderr, "%s\n", net.status().message().c_str());
    return 1;
  }
  std::vector<std::tuple<double, int, int, int>> shapes;  // (-flops, M, N, K), heaviest first
  std::set<std::tuple<int, int, int>> seen;
  for (const auto& l : net->layers)
    if (auto* c = dynamic_cast<const ConvLayer*>(l.get()); c && c->groups == 1) {
      const int M = c->filters, N = c->out.h * c->out.w, K = c->in.c * c->size * c->size;
      if (seen.insert({M, N, K}).second) shapes.emplace_back(-2.0 * M * N * K, M, N, K);
    }
  std::sort(shapes.begin(), shapes.end());

  auto rt_r = Runtime::open(device);
  if (!rt_r.ok()) {
    std::fprintf(stderr, "mdfi_bench_sgemm: %s\n", rt_r.status().message().c_str());
    return 1;
  }
  Runtime& rt = **rt_r;
  std::printf("device: %s / %s (%s; driver %s), %u compute units\n", rt.device().info.platform.c_str(),
              rt.device().info.name.c_str(), rt.device().info.version.c_str(), rt.device().info.driver.c_str(),
              rt.device().info.compute_units);
  ClblastSgemm clblast = nullptr;
  if (void* h = dlopen("libclblast.so.1", RTLD_NOW)) clblast = reinterpret_cast<ClblastSgemm>(dlsym(h, "CLBlastSgemm"));
  std::printf("CLBlast: %s\n", clblast ? "libclblast.so.1 loaded" : (std::string("not available: ") + dlerror()).c_str());
  GemmTuner tuner(rt, true);

  std::printf("\n%-18s %10s %10s %-16s %10s %10s %8s %10s %10s %9s %9s\n", "M x N x K", "mdfi kern", "mdfi+prep",
              "(tile, splits)", "naive", "CLBlast", "/naive", "kern/CLB", "+prep/CLB", "err mdfi", "err clb");
  const std::set<std::tuple<int, int, int>> heavy = {
      {256, 2704, 1152}, {512, 676, 2304}, {1024, 169, 4608}, {128, 10816, 576}, {64, 43264, 288}};
  double log_m = 0, log_n = 0, log_c = 0, log_p = 0;
  int counted = 0, counted_c = 0;
  // A launch error inside a timed loop: say which, stop (a figure from failed launches is no figure).
  auto check = [](double ms, const char* what, int M, int N, int K) {
    if (ms > 0) return true;
    std::fprintf(stderr, "mdfi_bench_sgemm: %s failed to launch on %dx%dx%d\n", what, M, N, K);
    return false;
  };
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  for (const auto& [neg, M, N, K] : shapes) {
    const double flop = -neg;
    std::vector<float> A(size_t(M) * K), B(size_t(K) * N);
    for (float& v : A) v = dist(rng);
    for (float& v : B) v = dist(rng);
    auto plan = tuner.plan_for(M, N, K);
    if (!plan.ok()) {
      std::fprintf(stderr, "%s\n", plan.status().message().c_str());
      return 1;
    }
    const GemmPlan p = *plan;
    std::vector<float> at(p.at_floats(), 0.f), bp(p.b_floats(), 0.f);
    for (int m = 0; m < M; ++m)
      for (int k = 0; k < K; ++k) at[size_t(k) * p.Mp + m] = A[size_t(m) * K + k];
    for (int k = 0; k < K; ++k) std::copy(B.begin() + long(k) * N, B.begin() + long(k + 1) * N, bp.begin() + long(k) * p.Np);
    // prep_weights_t's input layout: M biases (zero here) then the row-major weights.
    std::vector<float> raw(size_t(M) + A.size(), 0.f);
    std::copy(A.begin(), A.end(), raw.begin() + M);
    auto dRaw = rt.alloc(raw.size() * 4, "raw A");
    if (!dRaw.ok()) return 1;
    rt.write(*dRaw, raw.data(), raw.size() * 4);
    auto dA = rt.alloc(A.size() * 4, "A"), dB = rt.alloc(B.size() * 4, "B"), dAt = rt.alloc(at.size() * 4, "At"),
         dBp = rt.alloc(bp.size() * 4, "Bp"), dC = rt.alloc(size_t(M) * N * 4, "C"),
         dP = rt.alloc(size_t(64) << 22, "partial");
    if (!(dA.ok() && dB.ok() && dAt.ok() && dBp.ok() && dC.ok() && dP.ok())) return 1;
    rt.write(*dA, A.data(), A.size() * 4);
    rt.write(*dB, B.data(), B.size() * 4);
    rt.write(*dAt, at.data(), at.size() * 4);
    rt.write(*dBp, bp.data(), bp.size() * 4);
    std::vector<float> ref(size_t(M) * N), got(size_t(M) * N), clb(size_t(M) * N);

    const size_t ng[2] = {size_t(N), size_t(M)}, nl[2] = {16, 16};
    auto naive = [&] { return rt.launch("sgemm_naive", 2, ng, nl, {M, N, K, dA->get(), dB->get(), dC->get()}).ok(); };
    const double t_naive = time_ms(rt, naive);
    if (!check(t_naive, "the naive kernel", M, N, K)) return 1;
    rt.read(*dC, ref.data(), ref.size() * 4);

    auto ours = [&] { return enqueue_gemm(rt, p, dAt->get(), dBp->get(), dC->get(), nullptr, -1, dP->get()).ok(); };
    const double t_ours = time_ms(rt, ours);
    if (!check(t_ours, "mdfi's SGEMM", M, N, K)) return 1;
    rt.read(*dC, got.data(), got.size() * 4);

    // The same, from CLBlast's plain operands: transpose + pad A, pad B, then the SGEMM.
    auto with_prep = [&] {
      const size_t g[2] = {size_t(p.Mp), size_t(p.Kp)}, lo[2] = {64, 1};
      if (!rt.launch("prep_weights_t", 2, g, lo, {dRaw->get(), M, K, 0, p.Mp, dAt->get()}).ok()) return false;
      const size_t origin[3] = {0, 0, 0}, region[3] = {size_t(N) * 4, size_t(K), 1};
      if (clEnqueueCopyBufferRect(rt.queue(), dB->get(), dBp->get(), origin, origin, region, size_t(N) * 4, 0,
                                  size_t(p.Np) * 4, 0, 0, nullptr, nullptr) != CL_SUCCESS)
        return false;
      return ours();
    };
    const double t_prep = time_ms(rt, with_prep);
    if (!check(t_prep, "mdfi's operand preparation + SGEMM", M, N, K)) return 1;
    std::vector<float> got_prep(size_t(M) * N);
    rt.read(*dC, got_prep.data(), got_prep.size() * 4);

    double t_clb = -1;
    if (clblast) {
      cl_command_queue q = rt.queue();
      auto run = [&] {
        return clblast(101, 111, 111, size_t(M), size_t(N), size_t(K), 1.f, dA->get(), 0, size_t(K), dB->get(), 0,
                       size_t(N), 0.f, dC->get(), 0, size_t(N), &q, nullptr) == 0;
      };
      t_clb = time_ms(rt, run);
      if (!check(t_clb, "CLBlastSgemm", M, N, K)) return 1;
      rt.read(*dC, clb.data(), clb.size() * 4);
    }
    const double g_ours = flop / t_ours / 1e6, g_naive = flop / t_naive / 1e6, g_clb = t_clb > 0 ? flop / t_clb / 1e6 : 0;
    const double g_prep = flop / t_prep / 1e6;
    char dims[32], tile[32];
    std::snprintf(dims, sizeof dims, "%dx%dx%d", M, N, K);
    std::snprintf(tile, sizeof tile, "%s/%d", gemm_configs()[size_t(p.config)].name + 6, p.splits);
    std::printf("%-18s %10.0f %10.0f %-16s %10.0f %10.0f %8.2f %10.2f %10.2f %9.1e %9.1e%s\n", dims, g_ours, g_prep, tile,
                g_naive, g_clb, g_ours / g_naive, g_clb > 0 ? g_ours / g_clb : 0.0, g_clb > 0 ? g_prep / g_clb : 0.0,
                std::max(rel_err(got, ref), rel_err(got_prep, ref)), clblast ? rel_err(clb, ref) : 0.0,
                heavy.count({M, N, K}) ? "  *" : "");
    if (heavy.count({M, N, K})) {
      log_m += std::log(g_ours);
      log_n += std::log(g_naive);
      log_p += std::log(g_prep);
      ++counted;
      if (g_clb > 0) log_c += std::log(g_clb), ++counted_c;
    }
    if (all_candidates)
      for (const GemmPlan& c : tuner.candidates(M, N, K)) {
        auto ms = tuner.time_plan(c, 7);
        if (ms.ok())
          std::printf("    %-14s splits %2d  %8.0f GFLOP/s\n", gemm_configs()[size_t(c.config)].name, c.splits,
                      flop / *ms / 1e6);
      }
  }
  if (counted) {
    const double gm = std::exp(log_m / counted), gn = std::exp(log_n / counted), gp = std::exp(log_p / counted);
    std::printf("\ngeometric mean over the five heaviest shapes (*): mdfi kernel alone %.0f GFLOP/s, mdfi with operand "
                "preparation %.0f, naive %.0f (mdfi kernel/naive %.2fx)",
                gm, gp, gn, gm / gn);
    if (counted_c == counted) {
      const double gc = std::exp(log_c / counted_c);
      std::printf(", CLBlast %.0f (CLBlast pads and transposes inside its call; mdfi with preparation/CLBlast %.2fx, "
                  "mdfi kernel alone/CLBlast %.2fx)",
                  gc, gp / gc, gm / gc);
    }
    std::printf("\n");
  }
  return 0;
}
