// The arena and its planner: the greedy layout never lets two buffers that live at the same
// time share bytes and stays near the plan's peak; a network run from an arena gives the same
// outputs as one from the system allocator, with every buffer in the arena as planned, and a
// second run allocates nothing new.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>

#include "arena_plan.h"
#include "executor.h"
#include "plan.h"
#include "schedule.h"
#include "support.h"
#include "weights.h"

using namespace mdfi;
using namespace mdfi::test;

namespace {

struct Span {
  size_t offset, bytes;
  int first, last;
};

std::vector<Span> spans_of(const Plan& plan, const ArenaLayout& a) {
  std::vector<Span> s;
  if (a.input_offset != ArenaLayout::kNone)
    s.push_back({a.input_offset, arena_block_bytes(plan.input_bytes), -1, plan.last_use[0]});
  for (size_t i = 0; i < plan.layers.size(); ++i) {
    if (a.output_offset[i] != ArenaLayout::kNone)
      s.push_back({a.output_offset[i], arena_block_bytes(plan.layers[i].output_bytes), int(i), plan.last_use[i + 1]});
    if (a.transient_offset[i] != ArenaLayout::kNone) s.push_back({a.transient_offset[i], a.transient_bytes[i], int(i), int(i)});
  }
  return s;
}

}  // namespace

TEST_CASE("the arena layout keeps coexisting buffers apart and stays near the peak", "[memory]") {
  // yolov4: the greedy orders alone laid its 94.6 MB peak out in 106.5 MB (the local search
  // closes the gaps; arena_plan.h).
  for (const char* name : {"yolov3", "yolov3-tiny", "alexnet", "tiny", "darknet19", "darknet53", "resnet50", "yolov4"})
  for (bool outputs_first : {false, true}) {
    auto net = load_network_cfg(source_path(std::string("cfg/") + name + ".cfg"), BuildOptions{});
    REQUIRE(net.ok());
    const Plan plan = make_plan(*net);
    const ArenaLayout a = plan_arena(plan, outputs_first);
    const auto spans = spans_of(plan, a);
    INFO(name << (outputs_first ? " (outputs first)" : "") << ": arena " << a.size << " bytes, plan peak " << plan.peak_bytes);
    if (outputs_first) {
      // The outputs kept to the end fill [0, split) exactly (once moved there, when compact);
      // nothing else lives there at the end.
      size_t kept = 0;
      for (const Span& sp : spans)
        if (sp.last >= int(plan.layers.size())) {
          if (!a.compact) CHECK(sp.offset + sp.bytes <= a.split);
          kept += sp.bytes;
        }
      CHECK(kept == a.split);
      CHECK(a.split > 0);
    } else {
      CHECK(a.split == 0);
    }
    for (size_t i = 0; i < spans.size(); ++i) {
      CHECK(spans[i].offset + spans[i].bytes <= a.size);
      for (size_t j = i + 1; j < spans.size(); ++j) {
        const Span &x = spans[i], &y = spans[j];
        const bool coexist = x.first <= y.last && y.first <= x.last;
        const bool overlap = x.offset < y.offset + y.bytes && y.offset < x.offset + x.bytes;
        if (coexist && overlap) FAIL("buffers " << i << " and " << j << " share bytes while both live");
      }
    }
    CHECK(a.size >= plan.peak_bytes);
    CHECK(double(a.size) <= 1.05 * double(plan.peak_bytes) + 65536);
  }
}

namespace {

// No two spans that live at the same time share a byte, and each lies inside the arena.
void check_disjoint(const std::vector<Span>& spans, size_t size) {
  for (size_t i = 0; i < spans.size(); ++i) {
    CHECK(spans[i].offset + spans[i].bytes <= size);
    for (size_t j = i + 1; j < spans.size(); ++j) {
      const Span &x = spans[i], &y = spans[j];
      const bool coexist = x.first <= y.last && y.first <= x.last;
      const bool overlap = x.offset < y.offset + y.bytes && y.offset < x.offset + x.bytes;
      if (coexist && overlap) FAIL("buffers " << i << " and " << j << " share bytes while both live");
    }
  }
}

}  // namespace

TEST_CASE("the arena's search lays memory schedules out no larger than the greedy orders, validly and repeatably",
          "[memory]") {
  // Memory schedules planned on their peak alone (no decoder beside the arena, so nothing made
  // their arena tight): long-lived row windows beside one-step transients, where the greedy
  // orders leave gaps the local search closes.
  int smaller = 0, layouts = 0;
  for (const char* name : {"yolov3", "darknet53", "yolov3-tiny"}) {
    auto net = load_network_cfg(source_path(std::string("cfg/") + name + ".cfg"), BuildOptions{});
    REQUIRE(net.ok());
    const std::vector<SchedNode> nodes = sched_nodes_for(*net);
    const size_t input = net->input_shape().bytes(), whole = make_plan(*net).peak_bytes;
    size_t least = 0;
    REQUIRE(!choose_schedule(input, nodes, 1, &least).ok());
    for (int k = 0; k < 6; ++k) {
      const size_t budget = least + (whole - least) * size_t(k) / 10;
      auto choice = choose_schedule(input, nodes, budget);
      REQUIRE(choice.ok());
      for (bool outputs_first : {false, true}) {
        INFO(name << " at " << budget << " B" << (outputs_first ? " (outputs first)" : ""));
        const ArenaLayout a = plan_arena(choice->plan, outputs_first);
        const ArenaLayout greedy = plan_arena(choice->plan, outputs_first, 0);
        check_disjoint(spans_of(choice->plan, a), a.size);
        CHECK(a.size >= choice->plan.peak_bytes);
        CHECK(a.size <= greedy.size);
        if (outputs_first && !a.compact) {
          for (const Span& sp : spans_of(choice->plan, a))
            if (sp.last >= int(choice->plan.layers.size())) CHECK(sp.offset + sp.bytes <= a.split);
        }
        const ArenaLayout again = plan_arena(choice->plan, outputs_first);
        CHECK(again.size == a.size);
        CHECK(again.output_offset == a.output_offset);
        CHECK(again.transient_offset == a.transient_offset);
        smaller += a.size < greedy.size;
        ++layouts;
      }
    }
  }
  INFO(smaller << " of " << layouts << " layouts smaller than the greedy orders'");
  CHECK(smaller > 0);  // else this proves nothing about the search
}

namespace {

// yolov3-tiny on generated weights, run from an arena (or the system allocator when null); the
// kept outputs are copied out. With `shrink`, the arena is shrunk to the outputs after the run as
// `mdfi detect` does for one image, and its size then goes to *held_after.
struct TinyRun {
  std::string cfg = source_path("cfg/yolov3-tiny.cfg");
  Result<Network> net = load_network_cfg(cfg, BuildOptions{});
  Plan plan;
  std::string weights;
  TinyRun() {
    REQUIRE(net.ok());
    plan = make_plan(*net);
    weights = generated_weights(cfg, "arena-yolov3-tiny");
  }
  std::vector<std::vector<float>> run(const std::vector<float>& input, Arena* arena, bool shrink = false,
                                      size_t* held_after = nullptr) {
    auto wf = WeightsFile::open(weights);
    REQUIRE(wf.ok());
    MemoryTracker mem;
    if (arena) mem.use_arena(arena);
    // As run_image does for every image: the input goes to its planned slot, not wherever the
    // previous run's last phase leaves it (a best fit that may be a later layer's output slot).
    mem.set_phase(-1);
    auto in = Buffer::make(mem, input.size(), MemCategory::kActivations, "input");
    REQUIRE(in.ok());
    std::memcpy(in->data(), input.data(), in->bytes());
    ExecOptions exec;
    exec.threads = default_threads();  // the threads make_plan planned for (OMP_NUM_THREADS)
    auto out = run_network(*net, plan, *wf, std::move(*in), mem, RunHooks{}, exec);
    REQUIRE(out.ok());
    if (arena && shrink) {
      out->relocate(arena->shrink_to_split());
      *held_after = arena->capacity();
    }
    std::vector<std::vector<float>> kept;
    for (auto& kv : out->kept) kept.emplace_back(kv.second.data(), kv.second.data() + kv.second.size());
    return kept;  // the buffers go back to the arena (or the system) here
  }
};

}  // namespace

TEST_CASE("a run from the arena equals a run from the system allocator and the second allocates nothing new",
          "[memory]") {
  TinyRun t;
  std::vector<float> input(t.net->input_shape().count());
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> d(0.f, 1.f);
  for (float& x : input) x = d(rng);

  const auto plain = t.run(input, nullptr);
  Arena arena(plan_arena(t.plan));
  const auto first = t.run(input, &arena);
  CHECK(arena.outside() == 0);
  CHECK(arena.as_planned() == arena.in_arena());
  const auto second = t.run(input, &arena);
  CHECK(arena.outside() == 0);
  CHECK(arena.held_peak() == arena.capacity());
  REQUIRE(first.size() == plain.size());
  for (size_t i = 0; i < plain.size(); ++i) {
    CHECK(first[i] == plain[i]);
    CHECK(second[i] == plain[i]);
  }
}

TEST_CASE("a single image's arena shrinks to its outputs after the run, and the outputs stay intact", "[memory]") {
  // What `mdfi detect` does for one image: outputs planned at the low end, the rest given back
  // before post-processing. realloc may move the block (sanitizer builds always do): the kept
  // buffers follow it.
  TinyRun t;
  const std::vector<float> input(t.net->input_shape().count(), 0.5f);
  size_t held_after = 0;
  const auto plain = t.run(input, nullptr);
  const ArenaLayout layout = plan_arena(t.plan, true);
  Arena arena(layout);
  const auto shrunk = t.run(input, &arena, true, &held_after);
  CHECK(arena.outside() == 0);
  CHECK(arena.held_peak() == layout.size);
  CHECK(held_after == (layout.split + 63) / 64 * 64);
  CHECK(held_after < layout.size / 4);
  REQUIRE(shrunk.size() == plain.size());
  for (size_t i = 0; i < plain.size(); ++i) CHECK(shrunk[i] == plain[i]);
}

TEST_CASE("an arena too small for a request hands it to the system allocator", "[memory]") {
  ArenaLayout layout;
  layout.size = 4096;
  Arena arena(layout);
  void* a = arena.allocate(1000, true);
  void* b = arena.allocate(3000, false);
  void* c = arena.allocate(10000, true);  // no room left: from the system
  REQUIRE(a);
  REQUIRE(b);
  REQUIRE(c);
  CHECK(arena.in_arena() == 2);
  CHECK(arena.outside() == 1);
  CHECK(arena.held_peak() == 4096 + 10048);
  std::memset(c, 1, 10000);
  arena.release(a);
  arena.release(c);
  void* e = arena.allocate(1024, true);  // a's freed range is reused
  CHECK(e == a);
  arena.release(b);
  arena.release(e);
  void* f = arena.allocate(4096, true);  // everything coalesced back into one range
  CHECK(f != nullptr);
  CHECK(arena.outside() == 1);
  arena.release(f);
}

TEST_CASE("a compact layout moves the outputs down before shrinking, and they stay intact", "[memory]") {
  // plan_arena(.., true) may leave the outputs where the run put them (ArenaLayout::compact):
  // here the layout planned without outputs_first, told to compact, so the outputs lie anywhere.
  TinyRun t;
  const std::vector<float> input(t.net->input_shape().count(), 0.25f);
  const auto plain = t.run(input, nullptr);
  ArenaLayout layout = plan_arena(t.plan, false);
  const int n = int(t.plan.layers.size());
  size_t kept = 0, highest = 0;
  for (int i = 0; i < n; ++i)
    if (t.plan.layers[size_t(i)].buffer == i && t.plan.last_use[size_t(i) + 1] >= n) {
      kept += arena_block_bytes(t.plan.layers[size_t(i)].output_bytes);
      highest = std::max(highest, layout.output_offset[size_t(i)] + arena_block_bytes(t.plan.layers[size_t(i)].output_bytes));
    }
  REQUIRE(kept > 0);
  layout.split = kept;
  layout.compact = true;
  CHECK(highest > kept);  // something has to move
  Arena arena(layout);
  size_t held_after = 0;
  const auto shrunk = t.run(input, &arena, true, &held_after);
  CHECK(held_after == (kept + 63) / 64 * 64);
  REQUIRE(shrunk.size() == plain.size());
  for (size_t i = 0; i < plain.size(); ++i) CHECK(shrunk[i] == plain[i]);
}
