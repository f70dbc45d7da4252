// Detection post-processing in bounded, counted memory: the same candidates, NMS and printed
// results as network_detections + network_nms + collect_found (detect.h, kept as the oracle),
// held in a few flat arrays whose size has a limit known from the cfg alone.
//
// Why a limit: an untrained or odd model puts a box over the threshold in every cell (10,647 on
// yolov7-tiny at 416) and 20 classes in each, so Darknet's records grow to 10^5 per image and the
// heap to 3x the network's own peak. The limit is the room a single image's arena leaves above
// the network's outputs (plan_arena's split): post-processing then never raises the peak that
// `mdfi plan` predicts. Under the limit the results are Darknet's exactly; over it, the
// best-scoring candidate boxes (highest class score, earliest first on ties) and then the most
// confident results are kept, and PostStats says how many were dropped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "detect.h"
#include "memory.h"
#include "plan.h"

namespace mdfi {

struct PostLimits {
  size_t budget_bytes = 0;     // what the limits below may hold at once, at most
  size_t max_candidates = 0;   // candidate boxes kept per image
  size_t max_results = 0;      // (box, class) results kept per image
  size_t bytes_per_result = 0; // the Found plus what the caller holds per result (its record)
};

// The room a single image's arena leaves above its outputs (0 for a network without an arena).
size_t post_room(const Plan& plan);
// The classes of the network's detection heads (their largest).
int head_classes(const Network& net);
// The most candidate boxes the heads can give: one per cell and anchor, as Darknet allocates.
size_t head_boxes(const Network& net);
// Limits that fit `budget_bytes`: every one of `boxes` candidates when they fit, the results in
// what is left; `caller_bytes_per_result` is what the caller holds per result. Never below
// kMinCandidates (or `boxes`) and kMinResults: then budget_bytes grows to what they need.
PostLimits post_limits(size_t budget_bytes, int classes, size_t boxes, size_t caller_bytes_per_result);
constexpr size_t kMinCandidates = 1024, kMinResults = 1024;

// Post-processing's heap in the run's tracker. `held` is what the process holds beside it (the
// arena while it is whole, else the tracked buffers): the peak is raised to held + this heap.
class PostHeap {
 public:
  explicit PostHeap(MemoryTracker* mem);
  void add(size_t bytes);
  void sub(size_t bytes);
  size_t bytes() const { return bytes_; }
  size_t peak() const { return peak_; }

 private:
  MemoryTracker* mem_;
  size_t held_ = 0, bytes_ = 0, peak_ = 0, accounted_ = 0;
};

// A counted block of the PostHeap: set() to its size, released on destruction.
class PostBytes {
 public:
  explicit PostBytes(PostHeap& heap) : heap_(heap) {}
  ~PostBytes() { set(0); }
  PostBytes(const PostBytes&) = delete;
  PostBytes& operator=(const PostBytes&) = delete;
  void set(size_t bytes);

 private:
  PostHeap& heap_;
  size_t bytes_ = 0;
};

struct PostStats {
  size_t candidates = 0, candidates_kept = 0;  // boxes with a class over the threshold
  size_t results = 0, results_kept = 0;        // (box, class) results after NMS and the class filter
};

// The printed results, most confident first (Darknet's print order on ties), at most
// `limits.max_results` and, when top > 0, `top`; keep_class (when not empty) filters class ids.
// The returned vector is counted in `heap` through `found_bytes`, which the caller keeps alive
// as long as the vector.
std::vector<Found> bounded_results(const Network& net, const RunOutput& out, int img_w, int img_h,
                                   const DetectOptions& opt, const std::vector<bool>& keep_class, size_t top,
                                   const PostLimits& limits, PostHeap& heap, PostBytes& found_bytes,
                                   PostStats* stats = nullptr);

}  // namespace mdfi
