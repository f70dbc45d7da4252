// The memory scheduler (schedule.h): weight blocks and banded groups reproduce layer-at-a-time
// outputs bit for bit, every schedule it returns fits its budget when executed, and a budget
// below the smallest it can reach is refused with that figure.
#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>
#include <random>

#include "executor.h"
#include "kernels/sgemm.h"
#include "conv_choice.h"
#include "schedule.h"
#include "support.h"
#include "weights.h"

using namespace mdfi;
using namespace mdfi::test;

namespace {

struct RunResult {
  std::vector<std::vector<float>> outputs;  // per layer; empty for layers inside a group
  size_t peak = 0;
};

RunResult run_with(const Network& net, const Plan& plan, const std::string& wpath, const Schedule* schedule,
                   uint32_t seed, int threads = 2) {
  ExecOptions exec;
  exec.threads = threads;
  exec.schedule = schedule;
  CollectedRun run = run_collect(net, wpath, random_floats(net.input_shape().count(), seed), exec, &plan);
  return RunResult{std::move(run.layers), run.mem->peak()};
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// A random small network: conv stacks (1x1, 3x3 and depthwise, strides 1 and 2, with and
// without batch-norm), max pools, dropouts, shortcuts, and routes both inside a run and back
// across it.
std::string random_cfg(std::mt19937& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int h = pick(9, 30), w = pick(9, 30), c = pick(1, 4);
  std::string cfg = "[net]\nwidth=" + std::to_string(w) + "\nheight=" + std::to_string(h) + "\nchannels=" +
                    std::to_string(c) + "\n";
  struct S {
    int c, h, w;
  };
  std::vector<S> shapes;
  const int layers = pick(4, 11);
  const char* acts[] = {"leaky", "linear", "logistic", "relu"};
  for (int i = 0; i < layers; ++i) {
    const int kind = pick(0, 11);
    const S cur = shapes.empty() ? S{c, h, w} : shapes.back();
    // A shortcut or route needs an earlier layer of the same size.
    int same = -1;
    for (int j = int(shapes.size()) - 2; j >= 0; --j)
      if (shapes[size_t(j)].h == cur.h && shapes[size_t(j)].w == cur.w) {
        same = j;
        break;
      }
    if (kind == 7 && same >= 0 && shapes[size_t(same)].c == cur.c) {
      cfg += "[shortcut]\nfrom=" + std::to_string(same) + "\nactivation=" + acts[pick(0, 1)] + "\n";
      shapes.push_back(cur);
    } else if (kind == 8 && same >= 0) {
      cfg += "[route]\nlayers=-1," + std::to_string(same) + "\n";
      shapes.push_back({cur.c + shapes[size_t(same)].c, cur.h, cur.w});
    } else if (kind == 10) {  // depthwise, as Yolo-Fastest
      const int stride = (cur.h >= 6 && pick(0, 2) == 0) ? 2 : 1;
      cfg += "[convolutional]\nbatch_normalize=" + std::to_string(pick(0, 1)) + "\nfilters=" + std::to_string(cur.c) +
             "\ngroups=" + std::to_string(cur.c) + "\nsize=3\nstride=" + std::to_string(stride) + "\npad=1\nactivation=" +
             acts[pick(0, 3)] + "\n";
      shapes.push_back({cur.c, (cur.h + 2 - 3) / stride + 1, (cur.w + 2 - 3) / stride + 1});
    } else if (kind == 11 && !shapes.empty()) {
      cfg += "[dropout]\nprobability=.2\n";
      shapes.push_back(cur);
    } else if (kind == 9 && cur.h >= 3 && cur.w >= 3) {
      const int size = pick(2, 3), stride = pick(1, 2);
      cfg += "[maxpool]\nsize=" + std::to_string(size) + "\nstride=" + std::to_string(stride) + "\n";
      const int pad = size - 1;
      shapes.push_back({cur.c, (cur.h + pad - size) / stride + 1, (cur.w + pad - size) / stride + 1});
    } else {
      const int size = pick(0, 2) ? 3 : 1, stride = (cur.h >= 6 && pick(0, 3) == 0) ? 2 : 1, filters = pick(3, 21);
      cfg += "[convolutional]\nbatch_normalize=" + std::to_string(pick(0, 1)) + "\nfilters=" + std::to_string(filters) +
             "\nsize=" + std::to_string(size) + "\nstride=" + std::to_string(stride) + "\npad=1\nactivation=" +
             acts[pick(0, 3)] + "\n";
      const int p = size / 2;
      shapes.push_back({filters, (cur.h + 2 * p - size) / stride + 1, (cur.w + 2 * p - size) / stride + 1});
    }
  }
  return cfg;
}

}  // namespace

TEST_CASE("schedule: conv and connected weights in blocks of output channels are bit-identical", "[plan]") {
  const std::string cfg = R"([net]
width=23
height=19
channels=3
[convolutional]
batch_normalize=1
filters=43
size=3
stride=1
pad=1
activation=leaky
[convolutional]
filters=20
size=1
stride=1
pad=1
activation=logistic
[convolutional]
batch_normalize=1
filters=33
size=3
stride=2
pad=1
activation=linear
[connected]
output=37
activation=leaky
)";
  auto net = network_from_text(cfg, "sched_blocks.cfg");
  REQUIRE(net.ok());
  // A schedule runs without Winograd (prepare_model turns it off first): so does its baseline.
  choose_conv_algorithms(*net, ConvChoice{WinogradMode::kOff, 0, false});
  const std::string wpath = std::string(MDFI_TEST_TMP) + "/sched_blocks.weights";
  REQUIRE(generate_weights(*net, wpath, 5).ok());
  const std::vector<SchedNode> nodes = sched_nodes_for(*net);
  const RunResult base = run_with(*net, make_plan(*net), wpath, nullptr, 3);
  for (int block : {1, 8, 16, 24}) {
    Schedule s;
    s.block = {block, block, block, block};
    const Plan plan = plan_schedule(net->input_shape().bytes(), nodes, s);
    const RunResult r = run_with(*net, plan, wpath, &s, 3);
    INFO("block " << block);
    for (size_t i = 0; i < net->layers.size(); ++i) {
      INFO("layer " << i);
      CHECK(same_bits(r.outputs[i], base.outputs[i]));
    }
    CHECK(r.peak <= plan.peak_bytes);
    // The block is what is held: the 43-filter layer's weights shrink with it.
    CHECK(plan.layers[0].weight_bytes < make_plan(*net).layers[0].weight_bytes);
  }
}

TEST_CASE("schedule: a banded group with shortcut and route inside is bit-identical and holds only windows", "[plan]") {
  const std::string cfg = R"([net]
width=31
height=29
channels=3
[convolutional]
batch_normalize=1
filters=8
size=3
stride=1
pad=1
activation=leaky
[convolutional]
filters=16
size=3
stride=2
pad=1
activation=leaky
[convolutional]
filters=8
size=1
stride=1
pad=1
activation=leaky
[convolutional]
filters=16
size=3
stride=1
pad=1
activation=leaky
[shortcut]
from=-3
activation=linear
[maxpool]
size=2
stride=2
[route]
layers=-1
[convolutional]
filters=12
size=3
stride=1
pad=1
activation=logistic
[route]
layers=-1,-2
[convolutional]
filters=10
size=1
stride=1
pad=1
activation=linear
)";
  // The same network under AlexeyAB's semantics: its weightless shortcut is a plain add, and
  // bands as well.
  for (int variant = 0; variant < 2; ++variant) {
    const std::string path = std::string(MDFI_TEST_TMP) + "/sched_bands.cfg";
    std::ofstream(path, std::ios::binary) << cfg;
    BuildOptions opts;
    opts.compat = variant ? Compat::kAlexeyAB : Compat::kPjreddie;
    auto net = load_network_cfg(path, opts);
    REQUIRE(net.ok());
    CHECK(net->net.compat == (variant ? Compat::kAlexeyAB : Compat::kPjreddie));
    // A schedule runs without Winograd (prepare_model turns it off first): so does its baseline.
    choose_conv_algorithms(*net, ConvChoice{WinogradMode::kOff, 0, false});
    const std::string wpath = std::string(MDFI_TEST_TMP) + "/sched_bands.weights";
    REQUIRE(generate_weights(*net, wpath, 9).ok());
    const std::vector<SchedNode> nodes = sched_nodes_for(*net);
    REQUIRE(valid_group(nodes, 0, 9));
    const Plan base_plan = make_plan(*net);
    const RunResult base = run_with(*net, base_plan, wpath, nullptr, 4);
    for (int rows : {1, 2, 3, 5, 8})
      for (int resident : {0, 1, 2}) {  // weights read per step, all held, layers 0 and 3 held
        Schedule s;
        s.block.assign(nodes.size(), 0);
        s.groups.push_back({0, 9, rows, resident == 1, {}});
        if (resident == 2) s.groups[0].held = {0, 3};
        s.block[7] = 4;  // a layer read per step, in blocks
        const Plan plan = plan_schedule(net->input_shape().bytes(), nodes, s);
        const RunResult r = run_with(*net, plan, wpath, &s, 4);
        INFO("bands of " << rows << " rows" << (resident == 1 ? ", weights held" : resident ? ", two layers' weights held" : ""));
        CHECK(same_bits(r.outputs[9], base.outputs[9]));
        CHECK(r.peak <= plan.peak_bytes);
        if (rows <= 2) CHECK(plan.peak_bytes < base_plan.peak_bytes);
        // The first band's receptive field reaches 10 rows of layer 0 (through the stride-2 conv
        // and the pool); computed in steps of layer 0's share of a band (29 / 8 rows of the last
        // output: 4 per row), its window holds one step plus the halo, not those 10 rows.
        const BandProgram prog = band_program(nodes, s, s.groups[0]);
        const int share = (rows * 29 + 7) / 8;
        if (rows == 1) CHECK(prog.window_rows[0] <= share + 2);
        CHECK(prog.band_count == (8 + rows - 1) / rows);
      }
  }
}

TEST_CASE("schedule: random small cfgs and budgets fit when run and reproduce layer-at-a-time outputs", "[plan]") {
  std::mt19937 rng(20261203);
  int grouped = 0, grouped_depthwise = 0, grouped_dropout = 0, wino_kept = 0, wino_grouped = 0;
  for (int trial = 0; trial < 32; ++trial) {
    const std::string cfg = random_cfg(rng);
    INFO("cfg:\n" << cfg);
    auto net = network_from_text(cfg, "sched_random.cfg");
    REQUIRE(net.ok());
    // The default's Winograd tiles (every candidate, F(2x2) or F(4x4)), which a schedule may keep
    // outside its bands; it is chosen on the network without Winograd (as prepare_model does).
    choose_conv_algorithms(*net, ConvChoice{trial % 2 ? WinogradMode::kF4 : WinogradMode::kF2, 0, true});
    const std::vector<int> tiles = winograd_tiles(*net);
    choose_conv_algorithms(*net, ConvChoice{WinogradMode::kOff, 0, false});
    const std::string wpath = std::string(MDFI_TEST_TMP) + "/sched_random.weights";
    REQUIRE(generate_weights(*net, wpath, uint64_t(trial) + 1).ok());
    const std::vector<SchedNode> nodes = sched_nodes_for(*net, tiles);
    const size_t input = net->input_shape().bytes();
    const Plan base_plan = make_plan(*net);
    size_t least = 0;
    auto refused = choose_schedule(input, nodes, 1, &least);
    REQUIRE(!refused.ok());
    CHECK(refused.status().kind() == ErrorKind::kBudget);
    CHECK(refused.status().message().find(std::to_string(least) + " bytes") != std::string::npos);
    CHECK(least <= base_plan.peak_bytes);
    if (least > 0) CHECK(!choose_schedule(input, nodes, least - 1).ok());
    // One thread: hundreds of one-row bands are hundreds of OpenMP barriers, slow on a busy CI box.
    const RunResult base = run_with(*net, base_plan, wpath, nullptr, 7, 1);
    std::vector<size_t> budgets{least, base_plan.peak_bytes};
    for (int k = 0; k < 2; ++k)
      budgets.push_back(least + std::uniform_int_distribution<size_t>(0, base_plan.peak_bytes - least)(rng));
    for (size_t budget : budgets) {
      INFO("budget " << budget << " (smallest " << least << ", default " << base_plan.peak_bytes << ")");
      auto choice = choose_schedule(input, nodes, budget);
      INFO(choice.status().message());
      REQUIRE(choice.ok());
      CHECK(choice->plan.peak_bytes <= budget);
      grouped += !choice->schedule.groups.empty();
      for (const BandGroup& g : choice->schedule.groups)
        for (int l = g.first; l <= g.last; ++l) {
          grouped_depthwise += nodes[size_t(l)].band == SchedNode::Band::kDepthwise;
          grouped_dropout += nodes[size_t(l)].band == SchedNode::Band::kAlias;
        }
      // The chosen schedule, and the same with every Winograd candidate of its groups run by
      // Winograd (whether or not the budget has room for it: its own plan then), so that band
      // steps of whole tile rows run on every random geometry whatever the planner prefers.
      std::vector<std::pair<Schedule, Plan>> runs{{choice->schedule, choice->plan}};
      Schedule forced = choice->schedule;
      forced.algo.resize(nodes.size(), SchedAlgo::kGemm);
      bool more = false;
      for (const BandGroup& g : forced.groups)
        for (int l = g.first; l <= g.last; ++l)
          if (nodes[size_t(l)].band == SchedNode::Band::kConv && nodes[size_t(l)].wino_tile &&
              forced.algo[size_t(l)] == SchedAlgo::kGemm)
            forced.algo[size_t(l)] = SchedAlgo::kWinogradInput, more = true;
      if (more) runs.push_back({forced, plan_schedule(input, nodes, forced)});
      for (const auto& [schedule, plan] : runs) {
        for (const BandGroup& g : schedule.groups)
          for (int l = g.first; l <= g.last; ++l)
            wino_grouped += nodes[size_t(l)].wino_tile && schedule.algo_of(l) != SchedAlgo::kGemm;
        // Layer at a time with the schedule's per-layer algorithms: Winograd where it kept it.
        apply_schedule_algorithms(*net, nodes, schedule);
        for (size_t i = 0; i < nodes.size(); ++i) wino_kept += schedule.algo_of(int(i)) != SchedAlgo::kGemm;
        const RunResult same_algos = schedule.is_default() ? base : run_with(*net, make_plan(*net), wpath, nullptr, 7, 1);
        const RunResult r = run_with(*net, plan, wpath, &schedule, 7, 1);
        choose_conv_algorithms(*net, ConvChoice{WinogradMode::kOff, 0, false});
        CHECK(r.peak <= plan.peak_bytes);
        for (size_t i = 0; i < net->layers.size(); ++i) {
          const BandGroup* g = schedule.group_of(int(i));
          if (g && int(i) != g->last) continue;  // never whole: only rows of it ever existed
          INFO("layer " << i << (&schedule == &runs.front().first ? "" : ", Winograd forced in the groups"));
          CHECK(same_bits(r.outputs[i], same_algos.outputs[i]));
        }
      }
    }
  }
  // The generator must exercise the bands, or this test proves nothing about them.
  CHECK(grouped > 0);
  CHECK(grouped_depthwise > 0);
  CHECK(grouped_dropout > 0);
  CHECK(wino_kept > 0);
  CHECK(wino_grouped > 0);  // Winograd layers inside groups (winograd_rows.h)
}

// Every layer with a Winograd tile (small: with a small_tile, taking it) by `algo` in blocks of
// `block` filters (0: whole); the others by GEMM, whole.
Schedule every_winograd_layer(const std::vector<SchedNode>& nodes, SchedAlgo algo, int block, bool small) {
  Schedule s;
  s.block.assign(nodes.size(), 0);
  s.algo.assign(nodes.size(), SchedAlgo::kGemm);
  s.small.assign(nodes.size(), 0);
  for (size_t i = 0; i < nodes.size(); ++i)
    if (small ? bool(nodes[i].small_tile) : nodes[i].wino_tile > 0) s.algo[i] = algo, s.block[i] = block, s.small[i] = small;
  return s;
}

TEST_CASE("schedule: layers outside bands keep the default's Winograd tile, whole or in blocks of filters, "
          "bit-identical to that layer run whole", "[plan][winograd]") {
  // Layer 0 (3 channels) and the 1x1 layer 5 stay on the GEMM path; layers 1, 3 (no padding) and 4
  // are Winograd candidates on 27x21 and 13x10 maps.
  auto net = network_from_text(winograd_test_cfg(), "sched_winograd.cfg");
  REQUIRE(net.ok());
  const std::string wpath = std::string(MDFI_TEST_TMP) + "/sched_winograd.weights";
  REQUIRE(generate_weights(*net, wpath, 11).ok());
  const size_t input = net->input_shape().bytes();
  for (WinogradMode mode : {WinogradMode::kF2, WinogradMode::kF4}) {
    // The default schedule's tiles (as prepare_model takes them), then the network a schedule is
    // chosen on: without Winograd.
    choose_conv_algorithms(*net, ConvChoice{mode, 0, true});
    const std::vector<int> tiles = winograd_tiles(*net);
    const RunResult whole = run_with(*net, make_plan(*net), wpath, nullptr, 5, 2);
    choose_conv_algorithms(*net, ConvChoice{WinogradMode::kOff, 0, false});
    const std::vector<SchedNode> nodes = sched_nodes_for(*net, tiles);
    int candidates = 0;
    for (const SchedNode& n : nodes) candidates += n.wino_tile > 0;
    REQUIRE(candidates == 3);
    for (SchedAlgo algo : {SchedAlgo::kWinogradInput, SchedAlgo::kWinogradWeights})
      for (int block : {0, 8, 16}) {
        if (algo == SchedAlgo::kWinogradInput && block) continue;
        Schedule s = every_winograd_layer(nodes, algo, block, false);
        s.block[0] = 8;  // and a GEMM layer in blocks, before them
        const Plan plan = plan_schedule(input, nodes, s);
        apply_schedule_algorithms(*net, nodes, s);
        const RunResult r = run_with(*net, plan, wpath, &s, 5, 2);
        INFO((mode == WinogradMode::kF2 ? "F(2x2)" : "F(4x4)") << (algo == SchedAlgo::kWinogradInput ? " whole input" : " whole weights")
                                                               << " in blocks of " << block);
        // Every layer as the default run computes it (the same per-layer algorithms, whole).
        for (size_t i = 0; i < net->layers.size(); ++i) {
          INFO("layer " << i);
          CHECK(same_bits(r.outputs[i], whole.outputs[i]));
        }
        // The plan is what the run holds, layer by layer (the planner's figures are the layer's own).
        const Plan layered = make_plan(*net);
        for (size_t i = 0; i < nodes.size(); ++i)
          if (s.algo[i] != SchedAlgo::kGemm && !s.block[i]) CHECK(plan.layers[i].peak_bytes == layered.layers[i].peak_bytes);
        CHECK(r.peak <= plan.peak_bytes);
        choose_conv_algorithms(*net, ConvChoice{WinogradMode::kOff, 0, false});
      }
    // The planner keeps Winograd where it fits: at the default peak every candidate runs it.
    auto choice = choose_schedule(input, nodes, make_plan(*net).peak_bytes - 1);
    REQUIRE(choice.ok());
    int kept = 0;
    for (size_t i = 0; i < nodes.size(); ++i) kept += choice->schedule.algo_of(int(i)) != SchedAlgo::kGemm;
    CHECK(kept > 0);
  }
}

TEST_CASE("schedule: the re-choice pass picks cheaper ways outside groups that still fit, bit-identical", "[plan][winograd]") {
  // Layers 1, 3 and 4 have the default's Winograd tile; 0 and 5 are GEMM only (winograd_test_cfg).
  auto net = network_from_text(winograd_test_cfg(), "sched_rechoose.cfg");
  REQUIRE(net.ok());
  const std::string wpath = std::string(MDFI_TEST_TMP) + "/sched_rechoose.weights";
  REQUIRE(generate_weights(*net, wpath, 17).ok());
  const size_t input = net->input_shape().bytes();
  int improved = 0, to_winograd = 0;
  for (WinogradMode mode : {WinogradMode::kF2, WinogradMode::kF4}) {
    choose_conv_algorithms(*net, ConvChoice{mode, 0, true});
    const std::vector<int> tiles = winograd_tiles(*net);
    choose_conv_algorithms(*net, ConvChoice{WinogradMode::kOff, 0, false});
    const Plan base = make_plan(*net);
    const std::vector<SchedNode> nodes = sched_nodes_for(*net, tiles);
    // The costliest start: every blockable layer by GEMM in blocks of one panel, a group of the
    // first two layers in bands of one row (which the pass leaves alone).
    Schedule start;
    start.block.assign(nodes.size(), 0);
    start.algo.assign(nodes.size(), SchedAlgo::kGemm);
    for (size_t i = 0; i < nodes.size(); ++i)
      if (nodes[i].block_units) start.block[i] = nodes[i].block_multiple;
    REQUIRE(valid_group(nodes, 0, 1));
    start.groups.push_back({0, 1, 1, false, {}});
    const size_t least = plan_schedule(input, nodes, start).peak_bytes;
    for (size_t budget : {least, (least + base.peak_bytes) / 2, base.peak_bytes, size_t(1) << 30}) {
      INFO((mode == WinogradMode::kF2 ? "F(2x2)" : "F(4x4)") << ", budget " << budget << " (start " << least << ")");
      const Schedule s = rechoose_ways(input, nodes, start, budget);
      const Plan plan = plan_schedule(input, nodes, s);
      CHECK(plan.peak_bytes <= budget);
      CHECK(schedule_cost(nodes, s) <= schedule_cost(nodes, start));
      REQUIRE(s.groups.size() == 1);
      CHECK((s.groups[0].first == 0 && s.groups[0].last == 1 && s.groups[0].band_rows == 1));
      for (int l = 0; l <= 1; ++l) CHECK((s.block[size_t(l)] == start.block[size_t(l)] && s.algo_of(l) == SchedAlgo::kGemm));
      improved += schedule_cost(nodes, s) < schedule_cost(nodes, start);
      if (budget >= base.peak_bytes) {
        // Room for every layer's cheapest way: whole GEMM weights, the default's Winograd.
        for (size_t i = 2; i < nodes.size(); ++i) {
          INFO("layer " << i);
          if (!nodes[i].block_units) continue;
          if (nodes[i].wino_tile) CHECK(s.algo_of(int(i)) != SchedAlgo::kGemm);
          else CHECK(s.block[i] == 0);
          to_winograd += nodes[i].wino_tile && s.algo_of(int(i)) != SchedAlgo::kGemm;
        }
      }
      // Run: every layer as layer-at-a-time computes it with the same per-layer algorithms.
      apply_schedule_algorithms(*net, nodes, s);
      const RunResult same = run_with(*net, make_plan(*net), wpath, nullptr, 9, 1);
      const RunResult r = run_with(*net, plan, wpath, &s, 9, 1);
      choose_conv_algorithms(*net, ConvChoice{WinogradMode::kOff, 0, false});
      CHECK(r.peak <= plan.peak_bytes);
      for (size_t i = 1; i < net->layers.size(); ++i) {
        INFO("layer " << i);
        CHECK(same_bits(r.outputs[i], same.outputs[i]));
      }
    }
  }
  CHECK(improved >= 4);
  CHECK(to_winograd > 0);
}

TEST_CASE("schedule: where F(4x4) does not fit the re-choice pass may take F(2x2) (small_tile), bit-identical to "
          "that layer run whole with F(2x2)", "[plan][winograd]") {
  // Layers 1, 3 and 4 are Winograd candidates (winograd_test_cfg); with F(4x4) as the default's
  // tile each has a small_tile, F(2x2), whose whole-weights blocks take 16/36 of F(4x4)'s bytes.
  auto net = network_from_text(winograd_test_cfg(), "sched_small_tile.cfg");
  REQUIRE(net.ok());
  const std::string wpath = std::string(MDFI_TEST_TMP) + "/sched_small_tile.weights";
  REQUIRE(generate_weights(*net, wpath, 23).ok());
  const size_t input = net->input_shape().bytes();
  choose_conv_algorithms(*net, ConvChoice{WinogradMode::kF4, 0, true});
  const std::vector<int> tiles = winograd_tiles(*net);
  choose_conv_algorithms(*net, ConvChoice{WinogradMode::kOff, 0, false});
  const std::vector<SchedNode> nodes = sched_nodes_for(*net, tiles);
  int with_small = 0;
  for (const SchedNode& n : nodes) {
    if (!n.small_tile) continue;
    ++with_small;
    CHECK(n.wino_tile == 4);
    CHECK(n.small_tile->wino_tile == 2);
    CHECK(n.small_tile->wino_default_tile == 4);
    CHECK(n.small_tile->wino_unit_bytes * 36 == n.wino_unit_bytes * 16);
  }
  REQUIRE(with_small == 3);
  // Each of F(2x2)'s ways, whole or in filter blocks, set by hand: the plan holds what the run
  // holds, and every layer equals layer-at-a-time with the same tiles.
  for (SchedAlgo algo : {SchedAlgo::kWinogradInput, SchedAlgo::kWinogradWeights})
    for (int block : {0, 8, 16}) {
      if (algo == SchedAlgo::kWinogradInput && block) continue;
      const Schedule s = every_winograd_layer(nodes, algo, block, true);
      const Plan plan = plan_schedule(input, nodes, s);
      apply_schedule_algorithms(*net, nodes, s);
      for (size_t i = 0; i < nodes.size(); ++i)
        if (nodes[i].small_tile) CHECK(net->layers[i]->winograd_tile() == 2);
      const RunResult same = run_with(*net, make_plan(*net), wpath, nullptr, 5, 2);
      const Plan layered = make_plan(*net);
      const RunResult r = run_with(*net, plan, wpath, &s, 5, 2);
      choose_conv_algorithms(*net, ConvChoice{WinogradMode::kOff, 0, false});
      INFO((algo == SchedAlgo::kWinogradInput ? "whole input" : "whole weights") << " in blocks of " << block);
      CHECK(r.peak <= plan.peak_bytes);
      for (size_t i = 0; i < nodes.size(); ++i) {
        INFO("layer " << i);
        CHECK(same_bits(r.outputs[i], same.outputs[i]));
        if (nodes[i].small_tile && !block) CHECK(plan.layers[i].peak_bytes == layered.layers[i].peak_bytes);
      }
    }
  // From every blockable layer by GEMM in blocks of one panel, budgets from that start's peak up
  // to the default's: each re-chosen schedule fits, and a run of it equals layer-at-a-time with
  // the same per-layer algorithms and tiles.
  Schedule start;
  start.block.assign(nodes.size(), 0);
  start.algo.assign(nodes.size(), SchedAlgo::kGemm);
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].block_units) start.block[i] = nodes[i].block_multiple;
  const size_t least = plan_schedule(input, nodes, start).peak_bytes, most = make_plan(*net).peak_bytes;
  int small_taken = 0, runs = 0;
  for (int k = 0; k <= 24; ++k) {
    const size_t budget = least + (most - least) * size_t(k) / 24;
    const Schedule s = rechoose_ways(input, nodes, start, budget);
    const Plan plan = plan_schedule(input, nodes, s);
    INFO("budget " << budget);
    CHECK(plan.peak_bytes <= budget);
    int small = 0;
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (!s.small_of(int(i))) continue;
      ++small;
      CHECK(nodes[i].small_tile);
      CHECK(s.algo_of(int(i)) != SchedAlgo::kGemm);
    }
    small_taken += small > 0;
    if (!small) continue;
    apply_schedule_algorithms(*net, nodes, s);
    for (size_t i = 0; i < nodes.size(); ++i)
      if (s.small_of(int(i))) CHECK(net->layers[i]->winograd_tile() == 2);
    const RunResult same = run_with(*net, make_plan(*net), wpath, nullptr, 3, 2);
    const RunResult r = run_with(*net, plan, wpath, &s, 3, 2);
    choose_conv_algorithms(*net, ConvChoice{WinogradMode::kOff, 0, false});
    ++runs;
    CHECK(r.peak <= plan.peak_bytes);
    for (size_t i = 0; i < net->layers.size(); ++i) {
      INFO("layer " << i);
      CHECK(same_bits(r.outputs[i], same.outputs[i]));
    }
  }
  CHECK(runs == small_taken);
  // With the AVX2 and AVX-512 kernels' panel widths some budget of this sweep takes it; the
  // generic and NEON kernels' workspaces leave GEMM blocks the cheaper way that fits on this
  // small network (scripts/test-kernels.sh runs this group under each kernel the CPU has).
  const std::string kernel = kernels::active_kernel().name;
  if (kernel == "avx512" || kernel == "avx2") CHECK(small_taken > 0);
  else WARN("kernel " << kernel << ": " << small_taken << " budgets took a small-tile way");
}

TEST_CASE("schedule: Winograd layers inside band groups step in whole tile rows and give the default's bits",
          "[plan][winograd]") {
  // Layers 1, 3 (no padding: 13x10 -> 11x8) and 4 are Winograd candidates (winograd_test_cfg).
  auto net = network_from_text(winograd_test_cfg(), "sched_wino_bands.cfg");
  REQUIRE(net.ok());
  const std::string wpath = std::string(MDFI_TEST_TMP) + "/sched_wino_bands.weights";
  REQUIRE(generate_weights(*net, wpath, 13).ok());
  const size_t input = net->input_shape().bytes();
  int checked = 0;
  for (WinogradMode mode : {WinogradMode::kF2, WinogradMode::kF4}) {
    choose_conv_algorithms(*net, ConvChoice{mode, 0, true});
    const std::vector<int> tiles = winograd_tiles(*net);
    const RunResult whole = run_with(*net, make_plan(*net), wpath, nullptr, 3, 2);
    choose_conv_algorithms(*net, ConvChoice{WinogradMode::kOff, 0, false});
    const std::vector<SchedNode> nodes = sched_nodes_for(*net, tiles);
    for (int last : {4, 5})  // ending on a Winograd layer (its bands: whole tile rows) or a 1x1 one
      for (int rows : {1, 2, 3, 5})
        for (int held : {0, 1, 2}) {  // filters streamed per step, all held, layer 1 alone held
          REQUIRE(valid_group(nodes, 0, last));
          Schedule s;
          s.block.assign(nodes.size(), 0);
          s.algo.assign(nodes.size(), SchedAlgo::kGemm);
          for (size_t i = 0; i < nodes.size(); ++i)
            if (nodes[i].wino_tile) s.algo[i] = SchedAlgo::kWinogradInput;
          s.groups.push_back({0, last, rows, held == 1, {}});
          if (held == 2) s.groups[0].held = {1};
          INFO((mode == WinogradMode::kF2 ? "F(2x2)" : "F(4x4)") << ", layers 0-" << last << " in bands of " << rows
                                                                 << " rows, held " << held);
          // Every step of a Winograd layer is whole tile rows, and the steps cover each row once.
          const BandProgram prog = band_program(nodes, s, s.groups[0]);
          for (int l = 0; l <= last; ++l) {
            const int m = nodes[size_t(l)].wino_tile;
            int next = 0;
            for (const auto& band : prog.bands)
              for (const BandStep& st : band) {
                if (st.layer != l || st.to <= st.from) continue;
                CHECK(st.from == next);
                next = st.to;
                if (!m) continue;
                CHECK(st.from % m == 0);
                CHECK((st.to % m == 0 || st.to == nodes[size_t(l)].out_h));
              }
            CHECK(next == nodes[size_t(l)].out_h);
          }
          const Plan plan = plan_schedule(input, nodes, s);
          apply_schedule_algorithms(*net, nodes, s);
          const RunResult r = run_with(*net, plan, wpath, &s, 3, 2);
          choose_conv_algorithms(*net, ConvChoice{WinogradMode::kOff, 0, false});
          CHECK(same_bits(r.outputs[size_t(last)], whole.outputs[size_t(last)]));
          CHECK(r.peak <= plan.peak_bytes);
          ++checked;
        }
  }
  CHECK(checked == 48);
}

TEST_CASE("schedule: bands through an SPP block (stride-1 pools of 5 and 9) and a 5x5 depthwise conv are bit-identical", "[plan]") {
  // The band rows of a stride-1 pool take forward's separable maxima over a window's rows; the
  // depthwise rows run forward's vector kernel over a window (conv_rows.cpp). Bands of 1 row
  // read the fewest rows; 7 rows cross the map's bottom edge within a band.
  const std::string cfg = R"([net]
width=23
height=19
channels=3
[convolutional]
filters=8
size=3
stride=1
pad=1
activation=leaky
[maxpool]
size=5
stride=1
[route]
layers=-2
[maxpool]
size=9
stride=1
[route]
layers=-1,-3,-4
[convolutional]
batch_normalize=1
filters=6
size=1
stride=1
pad=1
activation=leaky
[convolutional]
filters=6
groups=6
size=5
stride=1
pad=1
activation=leaky
)";
  const std::string path = std::string(MDFI_TEST_TMP) + "/sched_spp.cfg";
  std::ofstream(path, std::ios::binary) << cfg;
  auto net = load_network_cfg(path, BuildOptions{});
  REQUIRE(net.ok());
  choose_conv_algorithms(*net, ConvChoice{WinogradMode::kOff, 0, false});
  const std::string wpath = std::string(MDFI_TEST_TMP) + "/sched_spp.weights";
  REQUIRE(generate_weights(*net, wpath, 5).ok());
  const std::vector<SchedNode> nodes = sched_nodes_for(*net);
  REQUIRE(valid_group(nodes, 0, 6));
  const RunResult base = run_with(*net, make_plan(*net), wpath, nullptr, 3);
  for (int threads : {1, 2})
    for (int rows : {1, 2, 3, 7}) {
      Schedule s;
      s.block.assign(nodes.size(), 0);
      s.groups.push_back({0, 6, rows, true, {}});
      const Plan plan = plan_schedule(net->input_shape().bytes(), nodes, s);
      const RunResult r = run_with(*net, plan, wpath, &s, 3, threads);
      INFO("bands of " << rows << " rows, " << threads << " threads");
      CHECK(same_bits(r.outputs[6], base.outputs[6]));
    }
}

TEST_CASE("schedule: a group's blocked layers take the fewest equal blocks that fit", "[plan]") {
  // The planner's last pass gives each blocked layer the fewest equal blocks of whole panels that
  // still fit, not only doubled blocks: inside a group (whose own peak alone decides whether a
  // larger block fits, the passes after it touching only layers outside groups) the next fewer
  // blocks must not fit.
  std::mt19937 rng(20261204);
  int checked = 0;
  // Random small cfgs, and one whose 3x3 convs of 72 filters (9 panels) take blocks inside a
  // group over a fine sweep of budgets: there doubling a block skips counts that fit (layer 1 in
  // blocks of 2 panels, where 3 fit and 4 did not).
  const std::string wide =
      "[net]\nwidth=40\nheight=40\nchannels=8\n"
      "[convolutional]\nfilters=72\nsize=3\nstride=1\npad=1\nactivation=leaky\n"
      "[convolutional]\nfilters=72\nsize=3\nstride=1\npad=1\nactivation=leaky\n"
      "[maxpool]\nsize=2\nstride=2\n"
      "[convolutional]\nfilters=72\nsize=3\nstride=1\npad=1\nactivation=leaky\n"
      "[convolutional]\nfilters=16\nsize=1\nstride=1\npad=1\nactivation=linear\n";
  for (int trial = 0; trial < 65; ++trial) {
    const std::string cfg = trial < 64 ? random_cfg(rng) : wide;
    INFO("cfg:\n" << cfg);
    auto net = network_from_text(cfg, "sched_grow.cfg");
    REQUIRE(net.ok());
    const std::vector<SchedNode> nodes = sched_nodes_for(*net);
    const size_t input = net->input_shape().bytes(), top = make_plan(*net).peak_bytes;
    size_t least = 0;
    REQUIRE(!choose_schedule(input, nodes, 1, &least).ok());
    const int steps = trial < 64 ? 4 : 64;
    for (int k = 0; k < steps; ++k) {
      const size_t budget = least + (top - least) * size_t(k) / size_t(steps);
      INFO("budget " << budget);
      auto choice = choose_schedule(input, nodes, budget);
      REQUIRE(choice.ok());
      const Schedule& s = choice->schedule;
      for (const BandGroup& g : s.groups)
        for (int l = g.first; l <= g.last; ++l) {
          const int b = s.block[size_t(l)];
          const SchedNode& n = nodes[size_t(l)];
          if (!b || g.holds(l) || s.algo_of(l) != SchedAlgo::kGemm) continue;
          const int m = n.block_multiple, nb = (n.block_units + b - 1) / b;
          REQUIRE(nb >= 2);
          int fewer = ((n.block_units + nb - 2) / (nb - 1) + m - 1) / m * m;  // nb - 1 equal blocks
          if (fewer >= n.default_block) fewer = 0;
          if (fewer && fewer <= b) continue;
          INFO("layer " << l << ": blocks of " << b << ", " << fewer << " instead");
          Schedule t = s;
          t.block[size_t(l)] = fewer;
          CHECK(plan_schedule(input, nodes, t).peak_bytes > budget);
          ++checked;
        }
    }
  }
  CHECK(checked > 0);
}

TEST_CASE("schedule: each extra block of the whole-weights Winograd way costs a share of the layer's FLOPs",
          "[plan][winograd]") {
  // Besides transforming the input again, a block reads its U panels per tile panel and runs the
  // output pass of its filters (schedule.cpp, kWinogradBlockShare): a layer of many filters on a
  // map of few tiles (YOLOv3's 26x26 layers of 512) is no longer charged almost nothing per block.
  const std::string cfg =
      "[net]\nwidth=16\nheight=16\nchannels=32\n"
      "[convolutional]\nfilters=384\nsize=3\nstride=1\npad=1\nactivation=leaky\n"
      "[convolutional]\nfilters=32\nsize=3\nstride=1\npad=1\nactivation=leaky\n";
  auto net = network_from_text(cfg, "sched_wino_blocks.cfg");
  REQUIRE(net.ok());
  choose_conv_algorithms(*net, ConvChoice{WinogradMode::kF4, 0, true});
  const std::vector<int> tiles = winograd_tiles(*net);
  choose_conv_algorithms(*net, ConvChoice{WinogradMode::kOff, 0, false});
  const std::vector<SchedNode> nodes = sched_nodes_for(*net, tiles);
  REQUIRE(nodes[0].wino_tile == 4);
  int checked = 0, by_share = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const SchedNode& n = nodes[i];
    if (!n.wino_tile) continue;
    Schedule whole;
    whole.block.assign(nodes.size(), 0);
    whole.algo.assign(nodes.size(), SchedAlgo::kGemm);
    whole.algo[i] = SchedAlgo::kWinogradWeights;
    const double base = schedule_cost(nodes, whole), transform = 100 * n.wino_transform_floats;
    double before = base;
    for (int block = n.block_units - n.block_multiple; block >= n.block_multiple; block -= n.block_multiple) {
      Schedule t = whole;
      t.block[i] = block;
      const int nb = (n.block_units + block - 1) / block;
      const double extra = schedule_cost(nodes, t) - base;
      INFO("layer " << i << " in " << nb << " blocks of " << block);
      CHECK(extra >= std::max(0.045 * n.flops, transform) * (nb - 1) * (1 - 1e-9));
      CHECK(schedule_cost(nodes, t) >= before);  // smaller blocks never cost less
      before = schedule_cost(nodes, t);
      by_share += extra > transform * (nb - 1) * (1 + 1e-9);
      ++checked;
    }
  }
  CHECK(checked > 0);
  CHECK(by_share > 0);  // layer 0 (384 filters, 16 tiles): the share, over the transform's cost
}
