#include "postprocess.h"

#include <algorithm>
#include <cmath>

#include "arena_plan.h"

namespace mdfi {

namespace {

constexpr int kGrid = 32;                   // NMS's uniform grid over the image, as suppress_prefix
constexpr size_t kGridCells = size_t(kGrid) * kGrid;
constexpr size_t kEntriesPerBox = 8;        // grid entries budgeted per box (larger boxes are compared with all)

// Per kept candidate: box, objectness, sequence number, score, its class scores, and the NMS's
// order, merge scratch, seen mark, always-list slot and grid entries.
size_t candidate_bytes(int classes) {
  return sizeof(Box) + 3 * sizeof(float) + size_t(classes) * sizeof(float) + 4 * sizeof(uint32_t) +
         kEntriesPerBox * sizeof(uint32_t);
}
// Once per image: the staging row of class scores and the grid's cell offsets.
size_t fixed_bytes(int classes) { return size_t(classes) * sizeof(float) + (kGridCells + 1) * sizeof(uint32_t); }

template <typename T>
void sized(std::vector<T>& v, size_t n, PostBytes& counted) {
  v.resize(n);
  counted.set(v.capacity() * sizeof(T));
}

// The flat candidate store, filled by the box decoders in Darknet's order. Past max_candidates
// the store becomes a min-heap on (score, later first) and keeps the best-scoring boxes.
class Store : public CandidateSink {
 public:
  Store(int classes, size_t capacity, PostHeap& heap)
      : c_(size_t(classes)), cap_(capacity), box_bytes_(heap), row_bytes_(heap), meta_bytes_(heap), order_bytes_(heap) {
    sized(box_, cap_, box_bytes_);
    sized(probs_, (cap_ + 1) * c_, row_bytes_);
    sized(meta_, cap_, meta_bytes_);
    sized(order_, cap_, order_bytes_);
  }
  float* row(int classes) override {
    float* r = probs_.data() + cap_ * c_;
    std::fill(r + std::min(size_t(classes), c_), r + c_, 0.f);
    return r;
  }
  void add(const Box& b, float objectness) override {
    const float* r = probs_.data() + cap_ * c_;
    float score = r[0];
    for (size_t j = 1; j < c_; ++j) score = std::max(score, r[j]);
    const uint32_t seq = uint32_t(seen_++);
    if (n_ < cap_) {
      put(n_, b, objectness, score, seq, r);
      order_[n_] = uint32_t(n_);
      ++n_;
      return;
    }
    if (cap_ == 0) return;
    if (!heap_) {
      std::make_heap(order_.begin(), order_.end(), worse_first());
      heap_ = true;
    }
    if (!(score > meta_[order_.front()].score)) return;  // on a tie the earlier box stays
    std::pop_heap(order_.begin(), order_.end(), worse_first());
    put(order_.back(), b, objectness, score, seq, r);
    std::push_heap(order_.begin(), order_.end(), worse_first());
  }
  // The kept slots in Darknet's order.
  void finish() {
    if (heap_)
      std::sort(order_.begin(), order_.begin() + long(n_),
                [this](uint32_t a, uint32_t b) { return meta_[a].seq < meta_[b].seq; });
  }

  struct Meta {
    float objectness, score;
    uint32_t seq;
  };
  size_t c_, cap_, n_ = 0, seen_ = 0;
  std::vector<Box> box_;
  std::vector<float> probs_;
  std::vector<Meta> meta_;
  std::vector<uint32_t> order_;  // slots: a heap while over capacity, then Darknet's order

 private:
  // std heaps keep the largest on top: "larger" = worse here (lower score, later on ties).
  struct WorseFirst {
    const std::vector<Meta>* meta;
    bool operator()(uint32_t a, uint32_t b) const {
      const Meta &x = (*meta)[a], &y = (*meta)[b];
      return x.score != y.score ? x.score > y.score : x.seq < y.seq;
    }
  };
  WorseFirst worse_first() const { return WorseFirst{&meta_}; }
  void put(size_t slot, const Box& b, float objectness, float score, uint32_t seq, const float* r) {
    box_[slot] = b;
    meta_[slot] = Meta{objectness, score, seq};
    std::copy(r, r + c_, probs_.data() + slot * c_);
  }
  bool heap_ = false;
  PostBytes box_bytes_, row_bytes_, meta_bytes_, order_bytes_;
};

// How many candidates the decoders give, without keeping them (to size the store).
class Counter : public CandidateSink {
 public:
  Counter(int classes, PostHeap& heap) : bytes_(heap) { sized(row_, size_t(classes), bytes_); }
  float* row(int) override { return row_.data(); }
  void add(const Box&, float) override { ++n; }
  size_t n = 0;

 private:
  std::vector<float> row_;
  PostBytes bytes_;
};

// std::stable_sort's order (class score descending, ties keep their order) without its
// temporary buffer: a bottom-up merge sort through `tmp`.
void stable_sort_desc(uint32_t* a, uint32_t* tmp, size_t n, const float* probs, size_t stride, int k) {
  auto key = [&](uint32_t s) { return probs[size_t(s) * stride + size_t(k)]; };
  constexpr size_t kRun = 32;
  for (size_t lo = 0; lo < n; lo += kRun) {
    const size_t hi = std::min(lo + kRun, n);
    for (size_t i = lo + 1; i < hi; ++i) {
      const uint32_t v = a[i];
      const float kv = key(v);
      size_t j = i;
      for (; j > lo && key(a[j - 1]) < kv; --j) a[j] = a[j - 1];
      a[j] = v;
    }
  }
  uint32_t *src = a, *dst = tmp;
  for (size_t width = kRun; width < n; width *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * width) {
      const size_t mid = std::min(lo + width, n), hi = std::min(lo + 2 * width, n);
      size_t i = lo, j = mid, o = lo;
      while (i < mid && j < hi) dst[o++] = key(src[j]) > key(src[i]) ? src[j++] : src[i++];
      while (i < mid) dst[o++] = src[i++];
      while (j < hi) dst[o++] = src[j++];
    }
    std::swap(src, dst);
  }
  if (src != a) std::copy(src, src + n, a);
}

// suppress_prefix (detect.cpp) over the store: the same pairs decide, the same boxes are
// suppressed. Its grid lists live in `entries`, a fixed allowance: when the boxes cover more
// cells than it holds, the largest boxes are compared with every later box instead.
struct Suppressor {
  const Store& s;
  float* probs;
  std::vector<uint32_t>& seen;
  std::vector<uint32_t>& always;
  std::vector<uint32_t>& cells;    // kGridCells + 1 offsets
  std::vector<uint32_t>& entries;

  struct Span {
    int x0, x1, y0, y1;
    bool always;
  };
  static int cell(float v) { return int(std::min(float(kGrid - 1), std::max(0.f, std::floor(v * kGrid)))); }
  static Span span_of(const Box& b, size_t limit) {
    Span sp{1, 0, 0, 0, false};
    const float l = b.x - b.w / 2, r = b.x + b.w / 2, t = b.y - b.h / 2, d = b.y + b.h / 2;
    sp.always = !(std::isfinite(l) && std::isfinite(r) && std::isfinite(t) && std::isfinite(d));
    if (sp.always) return sp;
    if (r <= l || d <= t) return sp;  // no area: no positive intersection with anything
    sp.x0 = cell(l), sp.x1 = cell(r), sp.y0 = cell(t), sp.y1 = cell(d);
    sp.always = size_t(sp.x1 - sp.x0 + 1) * size_t(sp.y1 - sp.y0 + 1) > limit;
    return sp;
  }

  template <typename Score>
  void run(const uint32_t* perm, size_t live, int k, float thresh, Score score) {
    const size_t c = s.c_;
    auto p = [&](size_t pos) -> float& { return probs[size_t(perm[pos]) * c + size_t(k)]; };
    auto bx = [&](size_t pos) -> const Box& { return s.box_[perm[pos]]; };
    if (live < 64 || !(thresh >= 0)) {
      for (size_t i = 0; i < live; ++i) {
        if (p(i) == 0) continue;
        for (size_t j = i + 1; j < live; ++j)
          if (p(j) != 0 && score(bx(i), bx(j)) > thresh) p(j) = 0;
      }
      return;
    }
    size_t limit = 64;
    for (;;) {
      size_t need = 0;
      for (size_t j = 0; j < live; ++j) {
        const Span sp = span_of(bx(j), limit);
        if (!sp.always && sp.x1 >= sp.x0) need += size_t(sp.x1 - sp.x0 + 1) * size_t(sp.y1 - sp.y0 + 1);
      }
      if (need <= entries.size() || limit == 0) break;
      limit /= 2;
    }
    std::fill(cells.begin(), cells.end(), 0u);
    size_t n_always = 0;
    for (size_t j = 0; j < live; ++j) {
      const Span sp = span_of(bx(j), limit);
      if (sp.always) {
        always[n_always++] = uint32_t(j);
        continue;
      }
      for (int y = sp.y0; y <= sp.y1 && sp.x1 >= sp.x0; ++y)
        for (int x = sp.x0; x <= sp.x1; ++x) ++cells[size_t(y) * kGrid + x + 1];
    }
    for (size_t g = 1; g <= kGridCells; ++g) cells[g] += cells[g - 1];  // cells[g]: start of cell g
    for (size_t j = 0; j < live; ++j) {
      const Span sp = span_of(bx(j), limit);
      if (sp.always) continue;
      for (int y = sp.y0; y <= sp.y1 && sp.x1 >= sp.x0; ++y)
        for (int x = sp.x0; x <= sp.x1; ++x) entries[cells[size_t(y) * kGrid + x]++] = uint32_t(j);
    }
    // Now cells[g] is the end of cell g and cells[g - 1] its start.
    std::fill(seen.begin(), seen.begin() + long(live), ~uint32_t(0));
    auto visit = [&](size_t i, uint32_t j) {
      if (j <= i || seen[j] == uint32_t(i)) return;
      seen[j] = uint32_t(i);
      if (p(j) != 0 && score(bx(i), bx(j)) > thresh) p(j) = 0;
    };
    for (size_t i = 0; i < live; ++i) {
      if (p(i) == 0) continue;
      const Span sp = span_of(bx(i), limit);
      if (sp.always) {
        for (size_t j = i + 1; j < live; ++j) visit(i, uint32_t(j));
        continue;
      }
      if (sp.x1 < sp.x0) continue;
      for (int y = sp.y0; y <= sp.y1; ++y)
        for (int x = sp.x0; x <= sp.x1; ++x) {
          const size_t g = size_t(y) * kGrid + x;
          for (size_t e = g ? cells[g - 1] : 0; e < cells[g]; ++e) visit(i, entries[e]);
        }
      for (size_t a = 0; a < n_always; ++a) visit(i, always[a]);
    }
  }
};

// do_nms_sort / AlexeyAB's DIoU NMS over the store, in Darknet's sort-per-class order.
void store_nms(Store& s, float thresh, float beta, PostHeap& heap) {
  const size_t n = s.n_;
  std::vector<uint32_t> tmp, seen, always, cells, entries;
  PostBytes tmp_b(heap), seen_b(heap), always_b(heap), cells_b(heap), entries_b(heap);
  sized(tmp, n, tmp_b);
  sized(seen, n, seen_b);
  sized(always, n, always_b);
  sized(cells, kGridCells + 1, cells_b);
  sized(entries, n * kEntriesPerBox, entries_b);
  uint32_t* perm = s.order_.data();
  // Objectness-0 boxes go to the back (stable) and take no part.
  size_t total = 0, back = 0;
  for (size_t i = 0; i < n; ++i) {
    if (s.meta_[perm[i]].objectness != 0) perm[total++] = perm[i];
    else tmp[back++] = perm[i];
  }
  std::copy(tmp.begin(), tmp.begin() + long(back), perm + total);
  Suppressor sup{s, s.probs_.data(), seen, always, cells, entries};
  for (int k = 0; k < int(s.c_); ++k) {
    stable_sort_desc(perm, tmp.data(), total, s.probs_.data(), s.c_, k);
    size_t live = 0;
    while (live < total && s.probs_[size_t(perm[live]) * s.c_ + size_t(k)] > 0) ++live;
    if (beta < 0)
      sup.run(perm, live, k, thresh, box_iou);
    else
      sup.run(perm, live, k, thresh, [beta](const Box& a, const Box& b) { return box_diou(a, b, beta); });
  }
}

}  // namespace

size_t post_room(const Plan& plan) {
  if (plan.layers.empty()) return 0;
  const ArenaLayout layout = plan_arena(plan, true);
  const size_t split = (layout.split + 63) / 64 * 64;
  return layout.size > split ? layout.size - split : 0;
}

int head_classes(const Network& net) {
  int c = 0;
  for (const auto& l : net.layers) c = std::max(c, l->head_classes());
  return c;
}

size_t head_boxes(const Network& net) {
  size_t n = 0;
  for (const auto& l : net.layers) n += l->head_boxes();
  return n;
}

PostLimits post_limits(size_t budget_bytes, int classes, size_t boxes, size_t caller_bytes_per_result) {
  PostLimits l;
  l.bytes_per_result = sizeof(Found) + caller_bytes_per_result;
  // Three stages hold memory at once: the candidates with NMS's scratch; the candidates with the
  // Found list made from them; the Found list with the caller's records (the candidates are gone).
  // The results get what the last stage allows; the candidates what is left beside their Found
  // list, which is every box the heads can give (Darknet's detection array) whenever that fits.
  // Candidates first (a box cut before NMS can change what NMS keeps), beside the smallest
  // Found list; the results then get what the candidates leave.
  const size_t fixed = fixed_bytes(classes), per_candidate = candidate_bytes(classes);
  const size_t results = budget_bytes / l.bytes_per_result;
  const size_t used = fixed + std::min(results, kMinResults) * sizeof(Found);
  const size_t room = budget_bytes > used ? budget_bytes - used : 0;
  l.max_candidates = std::min(boxes, std::max(kMinCandidates, room / per_candidate));
  const size_t candidates_bytes = fixed + l.max_candidates * per_candidate;
  const size_t beside = budget_bytes > candidates_bytes ? (budget_bytes - candidates_bytes) / sizeof(Found) : 0;
  l.max_results = std::max(kMinResults, std::min(beside, results));
  const size_t need =
      std::max(candidates_bytes + l.max_results * sizeof(Found), l.max_results * l.bytes_per_result);
  l.budget_bytes = std::max(budget_bytes, need);
  return l;
}

PostHeap::PostHeap(MemoryTracker* mem) : mem_(mem) {
  if (mem_) held_ = std::max(mem_->current().total(), mem_->arena_capacity());
}

void PostHeap::add(size_t bytes) {
  bytes_ += bytes;
  peak_ = std::max(peak_, bytes_);
  if (!mem_) return;
  if (mem_->account(bytes, MemCategory::kOther)) accounted_ += bytes;
  mem_->raise_peak(held_ + bytes_);
}

void PostHeap::sub(size_t bytes) {
  bytes_ -= bytes;
  if (!mem_) return;
  const size_t u = std::min(bytes, accounted_);
  accounted_ -= u;
  mem_->unaccount(u, MemCategory::kOther);
}

void PostBytes::set(size_t bytes) {
  if (bytes > bytes_) heap_.add(bytes - bytes_);
  else if (bytes < bytes_) heap_.sub(bytes_ - bytes);
  bytes_ = bytes;
}

std::vector<Found> bounded_results(const Network& net, const RunOutput& out, int img_w, int img_h,
                                   const DetectOptions& opt, const std::vector<bool>& keep_class, size_t top,
                                   const PostLimits& limits, PostHeap& heap, PostBytes& found_bytes,
                                   PostStats* stats) {
  const int classes = head_classes(net);
  std::vector<Found> found;
  if (classes <= 0) return found;
  size_t count = 0;
  {
    Counter counter(classes, heap);
    network_candidates(net, out, img_w, img_h, opt, counter);
    count = counter.n;
  }
  Store store(classes, std::min(count, limits.max_candidates), heap);
  network_candidates(net, out, img_w, img_h, opt, store);
  store.finish();
  if (opt.nms > 0) store_nms(store, opt.nms, nms_diou_beta(net), heap);

  // The results in Darknet's print order (boxes in their post-NMS order, classes ascending),
  // through the class filter; over the limit, the most confident are kept.
  const size_t c = store.c_;
  auto each_result = [&](auto&& fn) {
    uint32_t order = 0;
    for (size_t i = 0; i < store.n_; ++i) {
      const uint32_t slot = store.order_[i];
      const float* pr = store.probs_.data() + size_t(slot) * c;
      for (size_t j = 0; j < c; ++j) {
        if (!(pr[j] > opt.thresh)) continue;
        if (!keep_class.empty() && (j >= keep_class.size() || !keep_class[j])) continue;
        Found f;
        if (!found_of(store.box_[slot], int(j), pr[j], img_w, img_h, f)) continue;
        f.order = order++;
        fn(f);
      }
    }
  };
  size_t results = 0;
  each_result([&](const Found&) { ++results; });
  size_t keep = std::min(results, limits.max_results);
  if (top > 0) keep = std::min(keep, top);
  found.reserve(keep);
  found_bytes.set(found.capacity() * sizeof(Found));
  // Most confident first; on equal confidence Darknet's order (a stable sort's result).
  auto better = [](const Found& a, const Found& b) { return a.prob != b.prob ? a.prob > b.prob : a.order < b.order; };
  if (keep > 0)
    each_result([&](const Found& f) {
      if (found.size() < keep) {
        found.push_back(f);
        if (found.size() == keep) std::make_heap(found.begin(), found.end(), better);  // worst on top
      } else if (better(f, found.front())) {
        std::pop_heap(found.begin(), found.end(), better);
        found.back() = f;
        std::push_heap(found.begin(), found.end(), better);
      }
    });
  std::sort(found.begin(), found.end(), better);
  if (stats) {
    stats->candidates = count;
    stats->candidates_kept = store.n_;
    stats->results = results;
    stats->results_kept = found.size();
  }
  return found;
}

}  // namespace mdfi
