// The direct convolution of weight blocks (kernels/conv_direct.h) against the path it replaces:
// every kernel with a direct path, on random stride-1 shapes (kernel sizes 2 to 8, paddings,
// channel counts and widths that are not multiples of the vector, band windows of a few rows,
// every activation), gives the bits of the SGEMM over the im2col matrix; and through schedules:
// convs in weight blocks, and AlexNet at its smallest budget, reproduce the default layer by layer.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "conv_choice.h"
#include "executor.h"
#include "kernels/conv_direct.h"
#include "kernels/sgemm.h"
#include "layers/conv.h"
#include "layers/conv_rows.h"
#include "schedule.h"
#include "support.h"
#include "weights.h"

using namespace mdfi;
using namespace mdfi::test;

namespace {

bool same_bits(const float* a, const float* b, size_t n) { return std::memcmp(a, b, n * sizeof(float)) == 0; }

// A window of rows [lo, lo + cap) of a c x h x w tensor, inside a buffer whose floats before and
// after it are NaN: a load that strays outside the window shows in the outputs.
struct Window {
  std::vector<float> buf;
  RowWindow rw;
  Window(int c, int h, int w, int lo, int cap, uint32_t seed, int guard = 64) {
    const std::vector<float> v = random_floats(size_t(c) * cap * w, seed);
    buf.assign(v.size() + 2 * size_t(guard), std::numeric_limits<float>::quiet_NaN());
    std::memcpy(buf.data() + guard, v.data(), v.size() * sizeof(float));
    rw = RowWindow{buf.data() + guard, c, h, w, lo, cap};
  }
};

}  // namespace

TEST_CASE("direct convolution gives the im2col SGEMM's bits on random shapes, every activation", "[layers]") {
  std::mt19937 rng(20261204);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const Activation acts[] = {Activation::kLinear, Activation::kLeaky,   Activation::kRelu,  Activation::kLogistic,
                             Activation::kMish,   Activation::kSwish,   Activation::kElu,   Activation::kTanh,
                             Activation::kRelu6,  Activation::kHardMish, Activation::kLoggy, Activation::kGelu};
  int tested = 0, kernels_tested = 0;
  for (const char* name : {"generic", "avx2", "avx512"}) {
    const kernels::KernelInfo* kern = kernels::find_kernel(name);
    if (!kern || !kern->direct) continue;
    ++kernels_tested;
    for (int trial = 0; trial < 120; ++trial) {
      const int ks = 2 + trial % 7, c = pick(1, 13), h = pick(1, 19), w = pick(1, 37);
      const int pad = trial % 3 == 0 ? ks / 2 : pick(0, ks - 1);
      const int out_h = h + 2 * pad - ks + 1, out_w = w + 2 * pad - ks + 1;
      if (out_h < 1 || out_w < 1) continue;
      const int M = pick(1, 21), K = c * ks * ks;
      const Activation act = acts[size_t(trial) % (sizeof acts / sizeof acts[0])];
      // Output rows [y0, y1): the whole map, or a band from a window of the input rows it reads.
      const bool band = trial % 2 == 1;
      const int y0 = band ? pick(0, out_h - 1) : 0, y1 = band ? pick(y0 + 1, out_h) : out_h;
      const int lo = band ? std::max(0, y0 - pad) : 0, hi = band ? std::min(h, y1 - 1 - pad + ks) : h;
      const Window in(c, h, w, lo, std::max(1, hi - lo), uint32_t(trial) + 1);
      INFO(name << ": k " << ks << " pad " << pad << ", " << c << " x " << h << " x " << w << " -> " << M
                << " filters, rows " << y0 << ".." << y1 << ", " << to_string(act));
      // Packed filters (a partial last panel when M is not a multiple of kMR) and biases.
      const std::vector<float> wts = random_floats(size_t(M) * K, uint32_t(trial) + 100);
      std::vector<float> packed(kernels::packed_a_floats(M, K));
      for (int m0 = 0; m0 < M; m0 += kernels::kMR)
        kernels::pack_a_panel(std::min(kernels::kMR, M - m0), K, wts.data() + size_t(m0) * K, K,
                              packed.data() + size_t(m0) * K);
      const std::vector<float> bias = random_floats(size_t(M), uint32_t(trial) + 200);
      // Outputs in a window of the rows too (channel stride out_cap rows), first filled with the
      // same values, which the first K block must overwrite.
      const int out_cap = y1 - y0 + 1;
      const size_t ldc = size_t(out_cap) * out_w, n = size_t(y1 - y0) * out_w;
      std::vector<float> want(size_t(M) * ldc, 7.f), got = want, got2 = want;
      const WindowIm2colB b(in.rw, ks, 1, pad, out_w, y0, y1 - y0);
      std::vector<float> ws(size_t(std::min(K, kernels::kKC)) * (kernels::kNC + 64) * 2);
      kernels::sgemm_packed(M, int(n), K, packed.data(), b, want.data(), int(ldc), bias.data(), act, 1, ws.data(), kern);
      REQUIRE(kernels::direct_suits(*kern, ks, 1, 1, pad));
      kernels::DirectJob job{in.rw.data, size_t(in.rw.cap) * w, in.rw.lo, h, w, ks, pad, K};
      job.out = got.data(), job.ldc = ldc, job.out_w = out_w, job.y0 = y0, job.y1 = y1;
      job.a = packed.data(), job.filters = M, job.bias = bias.data();
      kernels::conv_direct(*kern, job, act, 1);
      job.out = got2.data();
      kernels::conv_direct(*kern, job, act, 3);  // rows when the weights are small and rows many, else panels
      for (int f = 0; f < M; ++f) {
        INFO("filter " << f);
        const size_t at = size_t(f) * ldc;
        CHECK(same_bits(got.data() + at, want.data() + at, n));
        CHECK(same_bits(got2.data() + at, want.data() + at, n));
        // The rows past y1 are not the job's: left as they were.
        CHECK(got[at + n] == 7.f);
      }
      ++tested;
    }
  }
#if defined(__x86_64__) || defined(__i386__)
  CHECK(kernels_tested >= 2);  // the generic kernel and at least AVX2 on any x86-64 CI box
#endif
  CHECK(kernels_tested >= 1);
  CHECK(tested >= 90 * kernels_tested);
}

TEST_CASE("direct convolution refuses what it does not compute", "[layers]") {
  const kernels::KernelInfo* generic = kernels::find_kernel("generic");
  REQUIRE(generic);
  CHECK(kernels::direct_suits(*generic, 5, 1, 1, 2));
  CHECK(kernels::direct_suits(*generic, 2, 1, 1, 1));
  CHECK(kernels::direct_suits(*generic, 8, 1, 1, 0));
  CHECK(!kernels::direct_suits(*generic, 1, 1, 1, 0));  // 1x1: read in place by the SGEMM already
  CHECK(!kernels::direct_suits(*generic, 9, 1, 1, 4));
  CHECK(!kernels::direct_suits(*generic, 3, 2, 1, 1));
  CHECK(!kernels::direct_suits(*generic, 3, 1, 2, 1));
  CHECK(!kernels::direct_suits(*generic, 3, 1, 1, 3));
  // Direct where it costs less than packing im2col per block (few filters per block).
  CHECK(kernels::direct_pays(16, 5, 27, 256, 8));    // AlexNet's 5x5 layer in blocks of 8
  CHECK(kernels::direct_pays(16, 5, 27, 256, 64));
  CHECK(kernels::direct_pays(16, 3, 13, 256, 40));   // AlexNet's layer 6
  CHECK(kernels::direct_pays(16, 3, 32, 256, 48));
  CHECK(!kernels::direct_pays(16, 3, 13, 1024, 72));  // yolov3-tiny's layer 12
  CHECK(!kernels::direct_pays(16, 3, 32, 256, 104));
  CHECK(!kernels::direct_pays(16, 3, 3, 64, 16));
  CHECK(!kernels::direct_pays(16, 3, 32, 256, 256));  // one block: nothing packed again
  CHECK(!kernels::direct_pays(0, 3, 32, 256, 8));
  kernels::KernelInfo none = *generic;
  none.direct = nullptr;
  CHECK(!kernels::direct_suits(none, 3, 1, 1, 1));
}

namespace {

std::vector<std::vector<float>> run_layers(const Network& net, const Plan& plan, const std::string& wpath,
                                           const Schedule* schedule, int threads) {
  ExecOptions exec;
  exec.threads = threads;
  exec.schedule = schedule;
  CollectedRun run = run_collect(net, wpath, uniform_input(net.input_shape().count(), 11), exec, &plan);
  CHECK(run.mem->peak() <= plan.peak_bytes);
  return std::move(run.layers);
}

// Whether conv_rows runs `layer` in blocks of `block` filters by the direct path (as it decides).
bool takes_direct(const Network& net, int layer, int block) {
  const auto* conv = dynamic_cast<const ConvLayer*>(net.layers[size_t(layer)].get());
  const kernels::KernelInfo& kern = kernels::active_kernel();
  return conv && conv->groups == 1 && block < conv->filters &&
         kernels::direct_suits(kern, conv->size, conv->stride, conv->dilation, conv->pad) &&
         kernels::direct_pays(kern.direct_lanes, conv->size, conv->out.w, conv->filters, block);
}

}  // namespace

TEST_CASE("convs of kernel 2 to 8 in weight blocks (the direct path) reproduce the default bit for bit", "[plan]") {
  std::mt19937 rng(19);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const char* acts[] = {"leaky", "linear", "relu", "logistic", "mish", "swish"};
  int direct_layers = 0;
  for (int trial = 0; trial < 14; ++trial) {
    const int ks = 2 + trial % 7;
    std::string cfg = "[net]\nwidth=" + std::to_string(pick(ks, 30)) + "\nheight=" + std::to_string(pick(ks, 20)) +
                      "\nchannels=" + std::to_string(pick(1, 5)) + "\n";
    for (int l = 0; l < 2; ++l)
      cfg += "[convolutional]\nbatch_normalize=" + std::to_string((trial + l) % 2) + "\nfilters=" +
             std::to_string(pick(9, 29)) + "\nsize=" + std::to_string(l ? 3 : ks) + "\nstride=1\npad=" +
             std::to_string(l ? 1 : pick(0, 1)) + "\nactivation=" + acts[size_t(trial + l) % 6] + "\n";
    INFO("cfg:\n" << cfg);
    auto net = network_from_text(cfg, "direct_blocks.cfg");
    REQUIRE(net.ok());
    choose_conv_algorithms(*net, ConvChoice{WinogradMode::kOff, 0, false});
    const std::string wpath = std::string(MDFI_TEST_TMP) + "/direct_blocks.weights";
    REQUIRE(generate_weights(*net, wpath, uint64_t(trial) + 3).ok());
    const std::vector<SchedNode> nodes = sched_nodes_for(*net);
    const auto base = run_layers(*net, make_plan(*net), wpath, nullptr, 1);
    // Blocks of one and two panels, whole layers and banded (a group of both layers).
    for (int variant = 0; variant < 3; ++variant) {
      Schedule s;
      s.block = {variant == 1 ? 16 : 8, 8};
      if (variant == 2) {
        BandGroup g;
        g.first = 0, g.last = 1, g.band_rows = 1 + trial % 3;
        s.groups.push_back(g);
      }
      const Plan plan = plan_schedule(net->input_shape().bytes(), nodes, s);
      // No more threads than the plan's workspaces are for (one at OMP_NUM_THREADS=1).
      const auto r = run_layers(*net, plan, wpath, &s, std::min(1 + variant % 2, kernels::planned_threads()));
      for (size_t i = 0; i < net->layers.size(); ++i) {
        if (variant == 2 && i == 0) continue;  // inside the group: only rows of it existed
        INFO("layer " << i << ", variant " << variant);
        REQUIRE(r[i].size() == base[i].size());
        CHECK(same_bits(r[i].data(), base[i].data(), r[i].size()));
      }
    }
    direct_layers += takes_direct(*net, 0, 8) + takes_direct(*net, 1, 8);
  }
  // Of 28: narrow maps fill too few lanes, and take im2col. A target without a direct kernel
  // (the NEON ones have none) runs every block by im2col: the same bits, checked above.
  if (kernels::active_kernel().direct)
    CHECK(direct_layers >= 10);
  else
    CHECK(direct_layers == 0);
}

TEST_CASE("alexnet at its smallest budget reproduces the default layer by layer (through the direct path where the kernel has one)", "[plan]") {
  const std::string cfg = source_path("cfg/alexnet.cfg");
  auto net = load_network_cfg(cfg, BuildOptions{});
  REQUIRE(net.ok());
  choose_conv_algorithms(*net, ConvChoice{WinogradMode::kOff, 0, false});
  const std::string wpath = generated_weights(cfg, "alexnet");
  REQUIRE(!wpath.empty());
  const std::vector<SchedNode> nodes = sched_nodes_for(*net);
  const size_t input = net->input_shape().bytes();
  size_t least = 0;
  REQUIRE(!choose_schedule(input, nodes, 1, &least).ok());
  auto choice = choose_schedule(input, nodes, least);
  REQUIRE(choice.ok());
  const Schedule& s = choice->schedule;
  INFO(describe_schedule(s));
  // The 5x5 layer (2) runs in weight blocks, which take the direct path where there is one.
  const auto* conv = dynamic_cast<const ConvLayer*>(net->layers[2].get());
  REQUIRE(conv);
  CHECK(conv->size == 5);
  REQUIRE(s.block.size() > 2);
  CHECK(s.block[2] > 0);
  CHECK(s.block[2] < conv->filters);
  CHECK(takes_direct(*net, 2, s.block[2]) == (kernels::active_kernel().direct != nullptr));  // not NEON
  const auto base = run_layers(*net, make_plan(*net), wpath, nullptr, 2);
  // One and two threads (run_layers checks the tracked peak against the plan): on two threads the
  // plan once counted the workspace of the tallest band step of layer 0, while a shorter step,
  // taken as one chunk, needed 50 kB more (band_conv_workspace_bytes).
  int compared = 0;
  for (int threads : {1, std::min(2, kernels::planned_threads())}) {
    const auto r = run_layers(*net, choice->plan, wpath, &s, threads);
    for (size_t i = 0; i < net->layers.size(); ++i) {
      const BandGroup* g = s.group_of(int(i));
      if (g && int(i) != g->last) continue;
      INFO("layer " << i << ", " << threads << " thread(s)");
      REQUIRE(r[i].size() == base[i].size());
      CHECK(same_bits(r[i].data(), base[i].data(), r[i].size()));
      ++compared;
    }
  }
  CHECK(compared >= 16);
}
