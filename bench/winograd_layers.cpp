// Winograd against the GEMM path per layer shape (YOLOv3's 3x3 stride-1 layers, then YOLOv4-tiny's
// smaller ones), one thread, kept weights: the GEMM path (packed weights, im2col blocks), F(2x2)
// and F(4x4) by whole weights (ww) and by whole input (wi: transform, then every filter panel),
// and the weight transform alone. Process CPU time, best of REPS runs, so a loaded host inflates
// the figures less than wall time would. Not built by default:
//   cmake --build build --target mdfi_winograd_layers && build/bench/mdfi_winograd_layers [REPS]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "best_of.h"
#include "winograd_bench.h"
#include "kernels/sgemm.h"
#include "kernels/winograd.h"

using namespace mdfi::kernels;

template <class F>
static double best_ms(F f, int reps) {
  return mdfi::bench::best_ms(mdfi::bench::process_cpu_ms, f, reps);
}

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 5;
  struct Shape {
    int c, hw, f;
  } shapes[] = {{32, 208, 64},   {64, 104, 128}, {128, 52, 256}, {256, 26, 512}, {512, 13, 1024},
                {32, 104, 32},   {64, 52, 64},   {128, 26, 128}, {256, 13, 512}, {384, 26, 256}};
  std::printf("kernel %s, ms per layer (one thread, best of %d)\n", active_kernel().name, reps);
  for (const Shape& s : shapes) {
    const int K = s.c * 9, N = s.hw * s.hw;
    std::vector<float> in(size_t(s.c) * N), w(size_t(s.f) * K), out(size_t(s.f) * N), bias(size_t(s.f), 0.1f);
    for (size_t i = 0; i < in.size(); ++i) in[i] = float(i % 13) * 0.1f - 0.6f;
    for (size_t i = 0; i < w.size(); ++i) w[i] = float(i % 7) * 0.01f - 0.03f;
    std::vector<float> packed(packed_a_floats(s.f, K)), ws(sgemm_workspace_floats(K, N, 1));
    for (int m = 0; m < s.f; m += kMR)
      pack_a_panel(std::min(kMR, s.f - m), K, w.data() + size_t(m) * K, K, packed.data() + size_t(m) * K);
    Im2colB b(in.data(), s.c, s.hw, s.hw, 3, 1, 1);
    const double gemm = best_ms([&] {
      sgemm_packed(s.f, N, K, packed.data(), b, out.data(), N, bias.data(), mdfi::Activation::kLeaky, 1, ws.data());
    }, reps);
    std::printf("%4d -> %4d at %3dx%-3d: gemm %6.2f", s.c, s.f, s.hw, s.hw, gemm);
    for (int m : {2, 4}) {
      WinogradGeo g = mdfi::bench::square_geo(m, s.c, s.hw, s.f);
      std::vector<float> u(winograd_u_floats(g, s.f));
      const double wt = best_ms([&] {
        mdfi::bench::transform_all_weights(g, w.data(), u.data());
      }, reps);
      std::vector<float> pws(winograd_panel_workspace_floats(g, 1)), iws(winograd_input_workspace_floats(g, 1));
      const double ww = best_ms([&] {
        winograd_conv_whole_weights(g, in.data(), u.data(), bias.data(), mdfi::Activation::kLeaky, out.data(), 1,
                                    pws.data());
      }, reps);
      const double wi = best_ms([&] {
        winograd_transform_input(g, in.data(), iws.data(), 1);
        winograd_multiply_all(g, u.data(), bias.data(), mdfi::Activation::kLeaky, out.data(), 1, iws.data());
      }, reps);
      std::printf(" | F(%dx%d) ww %6.2f wi %6.2f weights %5.2f", m, m, ww, wi, wt);
    }
    std::printf("\n");
  }
}
