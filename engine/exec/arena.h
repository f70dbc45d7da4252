// One block sized by the plan's predicted peak, from which every engine buffer is carved.
// Without it each layer's output, weight and workspace buffers are fresh mappings whose pages
// fault in on first touch: ~80,000 faults per YOLOv3 image, a quarter of the CPU time on a VM,
// and the weights of every image land in new memory. With it the pages are touched once for a
// whole batch (TFLite Micro's arena, sized by our planner instead of by hand).
//
// Placement follows an ArenaLayout planned before the run (arena_plan.h): in phase i (the
// tracker's layer) an activation request takes layer i's planned output slot and weights or
// workspace requests fill layer i's planned transient range. Anything else, or a planned spot
// that is not free, gets the best fit over the address-ordered free ranges (which coalesce on
// release). A request the arena cannot place at all falls back to the system allocator, so the
// arena changes speed, never results. held_peak() is what an external heap profiler sees.
// Not thread-safe: the engine allocates from the thread that runs the network.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <unordered_map>
#include <vector>

namespace mdfi {

// Where a run's buffers go in the arena; plan_arena() (arena_plan.h) computes it from the Plan.
struct ArenaLayout {
  static constexpr size_t kNone = ~size_t(0);
  size_t size = 0;
  size_t split = 0;  // the run's outputs lie below this offset (plan_arena's outputs_first), else 0
  bool compact = false;  // ... once Arena::shrink_to_split has moved them there (they lie anywhere before)
  size_t input_offset = kNone;
  std::vector<size_t> output_offset;     // per layer; kNone when it reuses another buffer
  std::vector<size_t> transient_offset;  // per layer: weights and workspace, kNone when none
  std::vector<size_t> transient_bytes;
};

class Arena {
 public:
  // The block (layout.size bytes) is allocated on the first request, so an arena that is never
  // used costs nothing.
  explicit Arena(ArenaLayout layout);
  ~Arena();
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  // A 64-byte aligned block of at least `bytes`; nullptr when the system has no memory left.
  void* allocate(size_t bytes, bool activation);
  void release(void* p);
  // After a run planned with outputs_first: when nothing lives above layout.split any more, the
  // block shrinks to split bytes (realloc) and only the outputs stay held. With layout.compact
  // the outputs are first moved down (memmove, in address order) to fill [0, split). Each move,
  // and realloc's (glibc shrinks in place, sanitizer allocators copy), is returned in order: the
  // caller re-points the buffers that lay in [from, from + bytes) by `by` bytes
  // (RunOutput::relocate), applying the moves in that order.
  struct Move {
    const char* from = nullptr;
    size_t bytes = 0;
    std::ptrdiff_t by = 0;
  };
  std::vector<Move> shrink_to_split();
  // The layer now running (-1: before the first); MemoryTracker::set_phase forwards it.
  void set_phase(int phase);

  size_t capacity() const { return capacity_; }
  size_t held_peak() const { return held_peak_; }
  size_t in_arena() const { return placed_; }      // requests served from the arena
  size_t as_planned() const { return planned_; }   // ... of which at their planned place
  size_t outside() const { return fell_back_; }    // requests that went to the system

 private:
  bool take(size_t at, size_t len);  // [at, at+len) if it is free
  void* place(size_t at, size_t len);
  size_t first_fit_in(size_t begin, size_t end, size_t len) const;

  char* base_ = nullptr;
  ArenaLayout layout_;
  size_t capacity_;
  size_t slot_ = ArenaLayout::kNone;  // this phase's activation slot, until taken
  size_t region_ = ArenaLayout::kNone, region_bytes_ = 0;
  bool tried_ = false;
  std::map<size_t, size_t> free_;               // offset -> length, coalesced
  std::unordered_map<size_t, size_t> used_;     // offset -> length of placed blocks
  std::unordered_map<void*, size_t> system_;    // fallback blocks -> bytes
  size_t system_live_ = 0, held_peak_ = 0;
  size_t placed_ = 0, planned_ = 0, fell_back_ = 0;
};

// A 64-byte aligned block of `rounded` bytes (a multiple of 64) straight from the system, with
// transparent huge pages asked for inside large ones; nullptr on failure. Free with std::free.
void* allocate_aligned_block(size_t rounded);

}  // namespace mdfi
