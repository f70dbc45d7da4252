// The one accounting point for the engine's heap. Every large buffer (weights, activations,
// workspace, decoded images) is a Buffer obtained from a MemoryTracker, which knows current and
// peak bytes per category and which layer was running when the peak happened. Small bookkeeping
// (cfg strings, layer descriptors) is not tracked; the README says so.
//
// The tracker can be told to fail the Nth allocation, so tests can prove every out-of-memory
// path returns an error instead of crashing (as ncnn's OOM tests do).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "arena.h"
#include "status.h"

namespace mdfi {

enum class MemCategory { kWeights = 0, kActivations, kWorkspace, kOther, kCount };
const char* to_string(MemCategory c);

struct MemSnapshot {
  std::array<size_t, size_t(MemCategory::kCount)> bytes{};
  size_t total() const {
    size_t t = 0;
    for (size_t b : bytes) t += b;
    return t;
  }
  size_t of(MemCategory c) const { return bytes[size_t(c)]; }
};

class MemoryTracker {
 public:
  // Returns nullptr when the allocation fails or an injected failure triggers.
  void* allocate(size_t bytes, MemCategory cat);
  void release(void* p, size_t bytes, MemCategory cat);
  // Counts memory a library allocates itself (libjpeg's pools, libpng's row buffers): only the
  // figures move, no pointer. Fails like allocate() when an injected failure triggers.
  bool account(size_t bytes, MemCategory cat);
  void unaccount(size_t bytes, MemCategory cat) { current_.bytes[size_t(cat)] -= bytes; }
  // Raises the peak to `total_bytes` now when the heap is known to hold more than the tracked
  // buffers: while an image is decoded, the arena is already allocated whole (its unused part
  // shows as "other"). The current figures are unchanged.
  void raise_peak(size_t total_bytes);
  // The arena's size (0 without one): what it holds once its first buffer is asked for.
  size_t arena_capacity() const { return arena_ ? arena_->capacity() : 0; }
  // Carve buffers from an arena that outlives this tracker (a batch keeps one for all images),
  // so memory is reused instead of faulted in afresh. Set it before the first allocation.
  void use_arena(Arena* arena) { arena_ = arena; }

  const MemSnapshot& current() const { return current_; }
  const MemSnapshot& at_peak() const { return at_peak_; }
  size_t peak() const { return at_peak_.total(); }
  int peak_phase() const { return peak_phase_; }
  size_t category_peak(MemCategory c) const { return cat_peak_[size_t(c)]; }

  // The executor sets this to the running layer so the peak can be attributed to it.
  // Starting a phase also restarts the phase peaks below.
  void set_phase(int phase) {
    phase_ = phase;
    if (arena_) arena_->set_phase(phase);
    phase_peak_ = current_.total();
    phase_cat_peak_ = current_.bytes;
  }
  size_t phase_peak() const { return phase_peak_; }
  size_t phase_category_peak(MemCategory c) const { return phase_cat_peak_[size_t(c)]; }
  int phase() const { return phase_; }
  void reset_peak();

  // Failure injection for tests: the Nth allocation from now (1-based) fails; 0 disables.
  void fail_nth_allocation(uint64_t n) { fail_at_ = n ? allocations_ + n : 0; }
  uint64_t allocations() const { return allocations_; }

 private:
  MemSnapshot current_;
  MemSnapshot at_peak_;
  std::array<size_t, size_t(MemCategory::kCount)> cat_peak_{};
  int phase_ = -1;
  size_t phase_peak_ = 0;
  std::array<size_t, size_t(MemCategory::kCount)> phase_cat_peak_{};
  int peak_phase_ = -1;
  uint64_t allocations_ = 0;
  uint64_t fail_at_ = 0;
  Arena* arena_ = nullptr;
  void count(size_t bytes, MemCategory cat);
};

// An owned, tracked float array. Move-only; frees itself.
class Buffer {
 public:
  Buffer() = default;
  ~Buffer() { reset(); }
  Buffer(Buffer&& o) noexcept { *this = std::move(o); }
  Buffer& operator=(Buffer&& o) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  static Result<Buffer> make(MemoryTracker& t, size_t floats, MemCategory cat, const char* what);
  // `floats` values at `data` that another Buffer owns: never released through this one.
  static Buffer view(float* data, size_t floats) {
    Buffer b;
    b.data_ = data;
    b.floats_ = floats;
    return b;
  }

  float* data() { return data_; }
  const float* data() const { return data_; }
  size_t size() const { return floats_; }
  size_t bytes() const { return floats_ * sizeof(float); }
  bool empty() const { return data_ == nullptr; }
  void reset();
  // The block holding this buffer was moved by `by` bytes (Arena::shrink_to_split's realloc).
  void moved_by(std::ptrdiff_t by) { data_ = reinterpret_cast<float*>(reinterpret_cast<char*>(data_) + by); }

 private:
  float* data_ = nullptr;
  size_t floats_ = 0;
  MemoryTracker* tracker_ = nullptr;
  MemCategory cat_ = MemCategory::kOther;
};

std::string format_bytes(size_t bytes);  // "33.3 MB" (decimal megabytes, as the issues quote)

}  // namespace mdfi
