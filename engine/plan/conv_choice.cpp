#include "conv_choice.h"

#include <algorithm>
#include <vector>

#include "kernels/sgemm.h"
#include "kernels/winograd.h"
#include "plan.h"

namespace mdfi {

bool parse_winograd_mode(const std::string& text, WinogradMode* out) {
  if (text == "off") *out = WinogradMode::kOff;
  else if (text == "auto") *out = WinogradMode::kAuto;
  else if (text == "f2") *out = WinogradMode::kF2;
  else if (text == "f4") *out = WinogradMode::kF4;
  else return false;
  return true;
}

// Streamed weights: F(2x2) from 13x13 output maps, F(4x4) from 26x26 (conv_choice.h says why).
constexpr int kF2FromPixels = 169;
constexpr int kF4FromPixels = 676;
// Filter panels per pass of the whole-input way at most: yolov4-tiny's 26x26 and 13x13 layers,
// kept weights, one thread, took 13.7 ms by one panel per pass, 12.9 by 4, 12.1 by 8, 11.8 by 16
// (the 2-core AMD EPYC VM, CPU time); 8 keeps two passes per thread for 256 filters at two threads.
constexpr int kMaxGroup = 8;
// Streamed weights: a pass's panels of U and their raw rows, per thread, at most this many bytes,
// so that what a thread has just made is still in its L2 cache (1-2 MB per core on the x86 hosts
// measured, 512 kB-1 MB on ARM) when the pass multiplies it. yolov4-tiny's and yolov3's streamed
// layers then pass over V (their transformed input, 1-3.5 MB) 2-8 times less often.
constexpr size_t kStreamPassBytes = size_t(2) << 20;

// The whole-input way first (before whole weights) where U is larger than this. The whole-weights
// way multiplies each tile panel by all of U, which then comes from L3 or memory once per tile
// panel; the whole-input way reads U once and its V once per pass. yolov3's eleven 52x52 layers
// (F(4x4), 128 -> 256, U 4.7 MB, six tile panels), kept weights, in three alternated rounds on the
// VM: 30.5-36.4 -> 25.8-30.6 ms at two threads, 51.6-52.7 -> 42.0-42.2 at one; streamed, two
// threads, 35.1-36.6 -> 31.7-33.0. Not so with less U: yolov4-tiny's 52x52 layer 10 (2.4 MB) was
// no faster (1.77-1.96 against 1.82-2.10 ms kept), nor yolov3's 104x104 layers (1.2 MB) at all
// (4.9-5.5 -> 7.0-7.5 ms for two).
constexpr size_t kWholeInputFromUBytes = size_t(3) << 20;

namespace {

// Maps under kF4FromPixels: whether F(4x4) needs fewer multiplications than F(2x2) on the
// micro-kernel its products run on here (winograd_kernel), counting tiles in whole panels of that
// kernel's width (a last panel its narrow variant takes: that variant's width). 13x13: F(4x4)'s
// 16 tiles x 36 planes against F(2x2)'s 49 x 16. AVX-512 (32-wide panels): 1152 against 1024,
// so F(2x2); yolov3-tiny's 512 -> 1024 layer, kept weights, one thread, measured 9.2-12.0 ms by
// F(2x2) and 11.8-13.5 by F(4x4). AVX2 (8-wide panels for both): 576 against 896, F(4x4); kept
// 8.9-11.1 ms against 12.3-13.8, streamed 16.1-18.2 against 18.3-19.4 (the 2-core VM, 3-4
// alternated rounds; darknet53 at 256, streamed, whose 16x16 layers change: 181-188 -> 178 ms).
// aarch64 (12 wide, narrow): 576 against 784; per inference (qemu) yolov3-tiny 464.9 -> 429.5 M
// instructions kept, 494.0 -> 478.6 M streamed, yolov4-tiny 559.5 from 567.6 M streamed. Streamed
// weights are transformed per image into 36 planes instead of 16, which the products saved repay
// from 13x13 on these kernels (F(2x2) itself starts there).
// Streamed weights on 32-bit ARM: its Winograd transforms run scalar (winograd.h), and F(4x4)'s
// per-image weight transform into 36 planes cost more than its products saved: yolov3-tiny
// armhf 1282.9 -> 1318.6 M instructions per inference with F(4x4) on the 13x13 maps.
#if defined(__arm__) && !defined(__aarch64__)
constexpr bool kStreamedSmallF4 = false;
#else
constexpr bool kStreamedSmallF4 = true;
#endif

// AVX-512's narrow tile (16 columns) would make F(4x4) on a 13x13 map 576 products against
// 1024, but it lost there on the 2-core VM: yolov3-tiny's layer 12 (512 -> 1024) at two threads
// took 5.4-5.6 ms kept against F(2x2)'s 4.8-5.0 (36 planes of U, 75 MB, come from memory once per
// image for 16 products each), and 7.8 against 7.3 ms streamed (the per-image transform into 36
// planes). So here a narrow tile counts only from fewer columns than this (NEON's 4).
constexpr int kSmallMapNarrowFrom = 16;

bool f4_fewer_products(const Layer& c) {
  auto columns = [&](int m) {
    kernels::WinogradGeo geo;
    geo.m = m, geo.out_h = c.out.h, geo.out_w = c.out.w;
    const kernels::KernelInfo& k = kernels::winograd_kernel(geo);
    const int t = geo.tiles(), full = t / k.nr * k.nr, rest = t - full;
    const bool narrow = k.narrow && rest <= k.narrow_cols && k.narrow_cols < kSmallMapNarrowFrom;
    return full + (rest == 0 ? 0 : narrow ? k.narrow_cols : k.nr);
  };
  return 36 * columns(4) < 16 * columns(2);
}

}  // namespace

void choose_conv_algorithms(Network& net, const ConvChoice& choice) {
  for (auto& l : net.layers) l->set_winograd(0, false);
  if (choice.mode == WinogradMode::kOff) return;
  const Plan base = make_plan(net);
  const size_t limit = choice.budget_bytes ? choice.budget_bytes : base.peak_bytes;
  struct Way {
    int m;
    bool whole_input;
  };
  const int nr = kernels::active_kernel().nr, threads = kernels::planned_threads();
  for (size_t i = 0; i < net.layers.size(); ++i) {
    Layer* c = net.layers[i].get();
    if (!c->winograd_candidate()) continue;
    const int pixels = c->out.h * c->out.w;
    std::vector<Way> ways;
    // F(4x4) from 26x26, and on smaller maps where it needs fewer products (kept weights: on any
    // map; streamed: from 13x13, where F(2x2) starts to pay for its per-image transform).
    int f4_from = kF4FromPixels;
    if (choice.small_map_f4 && f4_fewer_products(*c)) {
      if (choice.kept_weights) f4_from = 0;
      else if (kStreamedSmallF4) f4_from = kF2FromPixels;
    }
    const bool f4_auto = pixels >= f4_from;
    for (int m : {4, 2}) {
      if (m == 4 && !(choice.mode == WinogradMode::kF4 || (choice.mode == WinogradMode::kAuto && f4_auto))) continue;
      const int tiles = ((c->out.h + m - 1) / m) * ((c->out.w + m - 1) / m);
      // Few tiles: at most two 32-wide panels (whatever this CPU's kernel width, so the plan is the
      // same everywhere), or no more panels than threads. Or much U: the whole-weights way reads
      // all of U once per tile panel (kWholeInputFromUBytes).
      kernels::WinogradGeo geo;
      geo.m = m, geo.channels = c->in.c;
      const size_t u_bytes = kernels::winograd_u_floats(geo, c->out.c) * sizeof(float);
      const bool few = tiles <= 64 || (tiles + nr - 1) / nr <= threads || u_bytes > kWholeInputFromUBytes;
      ways.push_back({m, few});
      ways.push_back({m, !few});
    }
    const LayerPlan& lp = base.layers[i];
    const size_t fixed = lp.live_before + lp.output_bytes;
    size_t least = lp.peak_bytes;  // the GEMM path's
    Way chosen{0, false}, smallest{0, false};
    for (const Way& w : ways) {
      c->set_winograd(w.m, w.whole_input);
      const size_t peak = fixed + (c->resident_param_floats() + c->workspace_floats()) * sizeof(float);
      // --winograd f4 asks for F(4x4) wherever it fits, paying or not (the parity suite runs it
      // so on every map, the 13x13 ones that ARM and AVX2 take by default included).
      const bool pays = choice.kept_weights || (w.m == 4 && choice.mode == WinogradMode::kF4) ||
                        pixels >= (w.m == 4 ? f4_from : kF2FromPixels);
      if (pays && peak <= limit && !chosen.m) chosen = w;
      if (peak < least) least = peak, smallest = w;
    }
    if (lp.peak_bytes > limit) chosen = smallest;
    c->set_winograd(chosen.m, chosen.whole_input);
    // The whole-input way reads all of V once per pass: as many filter panels per pass as the
    // limit allows, up to kMaxGroup and no more than leaves every thread a pass (winograd.h);
    // streamed, also no more than kStreamPassBytes of the pass's weights per thread.
    if (chosen.m && chosen.whole_input && lp.peak_bytes <= limit) {
      const int f_panels = (c->out.c + kernels::kMR - 1) / kernels::kMR;
      int most = std::min(kMaxGroup, std::max(1, f_panels / threads));
      if (!choice.kept_weights) {
        const size_t n = size_t(chosen.m + 2) * size_t(chosen.m + 2);
        const size_t panel_bytes = (n + 9) * kernels::kMR * size_t(c->in.c) * sizeof(float);
        most = std::min(most, int(std::max<size_t>(1, kStreamPassBytes / panel_bytes)));
      }
      for (int g = most; g > 1; g /= 2) {
        c->set_winograd_group(g);
        if (fixed + (c->resident_param_floats() + c->workspace_floats()) * sizeof(float) <= limit) break;
        c->set_winograd_group(1);
      }
    }
  }
}

int winograd_layer_count(const Network& net) {
  int n = 0;
  for (const auto& l : net.layers) n += l->winograd_tile() != 0;
  return n;
}

std::string winograd_summary(const Network& net) {
  std::string text;
  for (int m : {4, 2}) {
    std::string layers;
    for (const auto& l : net.layers)
      if (l->winograd_tile() == m) layers += " " + std::to_string(l->index) + (l->winograd_streams_weights() ? "s" : "");
    if (layers.empty()) continue;
    if (!text.empty()) text += "; ";
    text += "F(" + std::to_string(m) + "x" + std::to_string(m) + ",3x3) in layers" + layers;
  }
  return text;
}

}  // namespace mdfi
