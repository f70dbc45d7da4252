#include "memory.h"

#include <cstdio>

#include <cstdlib>
#include <string>

namespace mdfi {

const char* to_string(MemCategory c) {
  switch (c) {
    case MemCategory::kWeights: return "weights";
    case MemCategory::kActivations: return "activations";
    case MemCategory::kWorkspace: return "workspace";
    case MemCategory::kOther: return "other";
    default: return "?";
  }
}

void* MemoryTracker::allocate(size_t bytes, MemCategory cat) {
  ++allocations_;
  if (fail_at_ != 0 && allocations_ == fail_at_) return nullptr;
  // 64-byte alignment: SIMD kernels load whole cache lines.
  void* p = arena_ ? arena_->allocate(bytes, cat == MemCategory::kActivations)
                  : allocate_aligned_block((bytes + 63) / 64 * 64);
  if (!p && bytes) return nullptr;
  count(bytes, cat);
  return p;
}

bool MemoryTracker::account(size_t bytes, MemCategory cat) {
  ++allocations_;
  if (fail_at_ != 0 && allocations_ == fail_at_) return false;
  count(bytes, cat);
  return true;
}

void MemoryTracker::count(size_t bytes, MemCategory cat) {
  current_.bytes[size_t(cat)] += bytes;
  if (current_.bytes[size_t(cat)] > cat_peak_[size_t(cat)]) cat_peak_[size_t(cat)] = current_.bytes[size_t(cat)];
  if (current_.bytes[size_t(cat)] > phase_cat_peak_[size_t(cat)]) phase_cat_peak_[size_t(cat)] = current_.bytes[size_t(cat)];
  if (current_.total() > phase_peak_) phase_peak_ = current_.total();
  if (current_.total() > at_peak_.total()) {
    at_peak_ = current_;
    peak_phase_ = phase_;
  }
}

void MemoryTracker::release(void* p, size_t bytes, MemCategory cat) {
  if (!p) return;
  if (arena_) arena_->release(p);
  else std::free(p);
  current_.bytes[size_t(cat)] -= bytes;
}

void MemoryTracker::raise_peak(size_t total_bytes) {
  if (total_bytes <= at_peak_.total()) return;
  at_peak_ = current_;
  if (total_bytes > current_.total()) at_peak_.bytes[size_t(MemCategory::kOther)] += total_bytes - current_.total();
  peak_phase_ = phase_;
}

void MemoryTracker::reset_peak() {
  at_peak_ = current_;
  peak_phase_ = phase_;
  cat_peak_ = current_.bytes;
}

Buffer& Buffer::operator=(Buffer&& o) noexcept {
  if (this != &o) {
    reset();
    data_ = o.data_;
    floats_ = o.floats_;
    tracker_ = o.tracker_;
    cat_ = o.cat_;
    o.data_ = nullptr;
    o.floats_ = 0;
    o.tracker_ = nullptr;
  }
  return *this;
}

Result<Buffer> Buffer::make(MemoryTracker& t, size_t floats, MemCategory cat, const char* what) {
  Buffer b;
  if (floats == 0) return b;
  void* p = t.allocate(floats * sizeof(float), cat);
  if (!p) {
    return Result<Buffer>(ErrorKind::kOutOfMemory,
                          std::string("out of memory allocating ") + format_bytes(floats * sizeof(float)) +
                              " for " + what);
  }
  b.data_ = static_cast<float*>(p);
  b.floats_ = floats;
  b.tracker_ = &t;
  b.cat_ = cat;
  return b;
}

void Buffer::reset() {
  if (data_ && tracker_) tracker_->release(data_, bytes(), cat_);
  data_ = nullptr;
  floats_ = 0;
  tracker_ = nullptr;
}

std::string format_bytes(size_t bytes) {
  char buf[32];
  double b = double(bytes);
  if (b >= 1e9) std::snprintf(buf, sizeof buf, "%.2f GB", b / 1e9);
  else if (b >= 1e6) std::snprintf(buf, sizeof buf, "%.1f MB", b / 1e6);
  else if (b >= 1e3) std::snprintf(buf, sizeof buf, "%.1f kB", b / 1e3);
  else std::snprintf(buf, sizeof buf, "%zu B", bytes);
  return buf;
}

}  // namespace mdfi
