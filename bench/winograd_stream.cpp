// Where a streamed Winograd layer's time goes, against the same layer with kept weights: the
// whole-input way (transform the input, then every filter panel) on the shapes of yolov4-tiny's
// and yolov3's streamed layers. Per shape: kept (a whole U, G filter panels per pass), streamed
// (each thread makes its panels' U from raw weights in memory, G per pass), the weight transform
// alone and a pread of the raw weights from a file in the page cache alone. Wall time, best of
// REPS, so a loaded host inflates the figures less than a median would. Not built by default:
//   cmake --build build --target mdfi_winograd_stream && build/bench/mdfi_winograd_stream THREADS [REPS] [G...]
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "best_of.h"
#include "winograd_bench.h"
#include "kernels/sgemm.h"
#include "kernels/winograd.h"

using namespace mdfi::kernels;

// CPU_TIME=1: the process's CPU time (with OMP_WAIT_POLICY=passive, the work of all threads, waits
// excluded), else wall time.
template <class F>
static double best_ms(F f, int reps) {
  static const bool cpu = std::getenv("CPU_TIME") && *std::getenv("CPU_TIME") == '1';
  return mdfi::bench::best_ms(cpu ? mdfi::bench::process_cpu_ms : mdfi::bench::wall_ms, f, reps);
}

namespace {

// Makes U of a filter panel from raw weights in memory, as StreamedPanels does from the file.
class MemoryPanels : public WinogradPanelSource {
 public:
  MemoryPanels(const WinogradGeo& g, const float* w) : g_(g), w_(w) {}
  bool panel(int q, float* u_panel, float* raw) override {
    const int per = g_.channels * 9, r = std::min(kMR, g_.filters - q * kMR);
    std::copy(w_ + size_t(q) * kMR * per, w_ + (size_t(q) * kMR + r) * per, raw);
    winograd_transform_weights(g_, r, raw, nullptr, u_panel, size_t(kMR) * g_.channels, 0);
    return true;
  }

 private:
  const WinogradGeo& g_;
  const float* w_;
};

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 5;
  std::vector<int> groups;
  for (int i = 3; i < argc; ++i) groups.push_back(std::atoi(argv[i]));
  if (groups.empty()) groups = {1, 8};
  struct Shape {
    const char* name;
    int c, hw, f, m;
  } shapes[] = {{"v4t 18", 256, 26, 256, 4}, {"v4t 35", 384, 26, 256, 4}, {"v4t 26", 512, 13, 512, 2},
                {"v4t 28", 256, 13, 512, 2}, {"v3 64", 512, 13, 1024, 2}, {"v3 39", 256, 26, 512, 4}};
  std::printf("kernel %s, %d thread(s), ms per layer (%s, best of %d)\n", active_kernel().name, threads, std::getenv("CPU_TIME") ? "CPU time" : "wall", reps);
  const std::string path = "/tmp/mdfi_winograd_stream.bin";
  for (const Shape& s : shapes) {
    const int K = s.c * 9, N = s.hw * s.hw;
    std::vector<float> in(size_t(s.c) * N), w(size_t(s.f) * K), out(size_t(s.f) * N), bias(size_t(s.f), 0.1f);
    for (size_t i = 0; i < in.size(); ++i) in[i] = float(i % 13) * 0.1f - 0.6f;
    for (size_t i = 0; i < w.size(); ++i) w[i] = float(i % 7) * 0.01f - 0.03f;
    WinogradGeo g = mdfi::bench::square_geo(s.m, s.c, s.hw, s.f);
    std::vector<float> u(winograd_u_floats(g, s.f));
    mdfi::bench::transform_all_weights(g, w.data(), u.data());
    std::printf("%-7s %4d -> %4d at %2dx%-2d F(%d): ", s.name, s.c, s.f, s.hw, s.hw, s.m);
    for (int G : groups) {
      g.group = G;
      std::vector<float> iws(winograd_input_workspace_floats(g, threads));
      const double kept = best_ms([&] {
        winograd_transform_input(g, in.data(), iws.data(), threads);
        winograd_multiply_all(g, u.data(), bias.data(), mdfi::Activation::kLeaky, out.data(), threads, iws.data());
      }, reps);
      std::printf("kept G%d %6.2f  ", G, kept);
    }
    for (int G : groups) {
      g.group = G;
      std::vector<float> iws(winograd_input_workspace_floats(g, threads)), scratch(winograd_stream_weight_floats(g, threads));
      MemoryPanels src(g, w.data());
      const double streamed = best_ms([&] {
        winograd_transform_input(g, in.data(), iws.data(), threads);
        winograd_multiply_streamed(g, src, bias.data(), mdfi::Activation::kLeaky, out.data(), threads, iws.data(),
                                   scratch.data());
      }, reps);
      std::printf("streamed G%d %6.2f  ", G, streamed);
    }
    g.group = 1;
    const double wt = best_ms([&] {
      mdfi::bench::transform_all_weights(g, w.data(), u.data());
    }, reps);
    // The raw weights through a file in the page cache, as the layer reads them (one thread).
    FILE* fp = std::fopen(path.c_str(), "wb");
    if (!fp || std::fwrite(w.data(), 4, w.size(), fp) != w.size()) return 1;
    std::fclose(fp);
    const int fd = ::open(path.c_str(), O_RDONLY);
    std::vector<float> raw(w.size());
    const double rd = best_ms([&] {
      size_t done = 0;
      const size_t bytes = raw.size() * 4;
      while (done < bytes) {
        const ssize_t got = ::pread(fd, reinterpret_cast<char*>(raw.data()) + done, std::min<size_t>(bytes - done, 256 << 10), off_t(done));
        if (got <= 0) break;
        done += size_t(got);
      }
    }, reps);
    ::close(fd);
    std::printf("| transform (1 thread) %5.2f  pread (1 thread) %5.2f\n", wt, rd);
  }
  std::remove(path.c_str());
}
