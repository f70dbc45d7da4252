// Bounded post-processing (postprocess.h) against the unbounded oracle (network_detections +
// network_nms + collect_found + the stable sort by confidence, as `mdfi detect` did it): the
// same results in the same order while under the limits, even with many equal confidences; and
// over the limits, a heap that stays within the limit whatever the number of boxes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "app/results.h"
#include "detect.h"
#include "layers/yolo.h"
#include "postprocess.h"
#include "support.h"

using namespace mdfi;
using namespace mdfi::test;

namespace {

constexpr int kClasses = 80;

// Two [yolo] heads read straight from the input (no weights), side x side and 2side x 2side.
Network two_heads(int side, bool alexeyab) {
  const std::string yolo =
      "[yolo]\nmask=0,1,2\nanchors=10,13,16,30,33,23\nclasses=80\nnum=3\n";
  const std::string cfg = "[net]\nwidth=" + std::to_string(side) + "\nheight=" + std::to_string(side) +
                          "\nchannels=255\n" + yolo + "[upsample]\nstride=2\n" + yolo;
  auto net = network_from_text(cfg);
  INFO(net.status().message());
  REQUIRE(net.ok());
  if (alexeyab) {
    net->net.compat = Compat::kAlexeyAB;
    for (auto& l : net->layers)
      if (auto* y = dynamic_cast<YoloLayer*>(l.get())) y->nms_kind = NmsKind::kGreedy;
  }
  return std::move(*net);
}

// Head outputs with scores on a coarse grid (many exact ties) and boxes clustered, so NMS has
// work and tie order matters.
struct Outputs {
  MemoryTracker mem;
  RunOutput out;
};
void fill(const Network& net, Outputs& o, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  for (const auto& l : net.layers) {
    if (!dynamic_cast<const YoloLayer*>(l.get())) continue;
    auto b = Buffer::make(o.mem, l->out.count(), MemCategory::kActivations, "head");
    REQUIRE(b.ok());
    const size_t hw = size_t(l->out.w) * l->out.h;
    float* p = b->data();
    for (int n = 0; n < 3; ++n) {
      float* a = p + size_t(n) * hw * (kClasses + 5);
      for (size_t i = 0; i < hw; ++i) {
        a[i] = 0.5f + 0.1f * (u(rng) - 0.5f);       // x
        a[hw + i] = 0.5f + 0.1f * (u(rng) - 0.5f);  // y
        a[2 * hw + i] = 1.5f * u(rng);              // w, h (exp)
        a[3 * hw + i] = 1.5f * u(rng);
        a[4 * hw + i] = std::floor(u(rng) * 8) / 8;  // objectness in eighths
        for (int c = 0; c < kClasses; ++c) a[(5 + c) * hw + i] = u(rng) < 0.8f ? 0.f : std::floor(u(rng) * 8) / 8;
      }
    }
    o.out.kept.emplace(l->index, std::move(*b));
  }
}

std::vector<Found> oracle(const Network& net, const RunOutput& out, const DetectOptions& opt, size_t top) {
  std::vector<Detection> dets = network_detections(net, out, 768, 576, opt);
  const int ncls = dets.empty() ? 0 : int(dets[0].prob.size());
  if (opt.nms > 0) network_nms(net, dets, ncls, opt.nms);
  std::vector<Found> found = collect_found(dets, 768, 576, opt.thresh);
  std::stable_sort(found.begin(), found.end(), [](const Found& a, const Found& b) { return a.prob > b.prob; });
  if (top > 0 && found.size() > top) found.resize(top);
  return found;
}

void require_same(const std::vector<Found>& a, const std::vector<Found>& b) {
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    INFO("result " << i);
    REQUIRE(a[i].class_id == b[i].class_id);
    REQUIRE(a[i].prob == b[i].prob);
    REQUIRE(a[i].rel.x == b[i].rel.x);
    REQUIRE(a[i].rel.y == b[i].rel.y);
    REQUIRE(a[i].rel.w == b[i].rel.w);
    REQUIRE(a[i].rel.h == b[i].rel.h);
    REQUIRE(a[i].left == b[i].left);
    REQUIRE(a[i].top == b[i].top);
    REQUIRE(a[i].right == b[i].right);
    REQUIRE(a[i].bottom == b[i].bottom);
  }
}

}  // namespace

TEST_CASE("bounded post-processing gives the oracle's results under its limits (IoU and DIoU NMS)", "[detect]") {
  for (bool alexeyab : {false, true}) {
    const Network net = two_heads(13, alexeyab);
    Outputs o;
    fill(net, o, alexeyab ? 7 : 3);
    for (float nms : {0.45f, 0.f}) {
      for (size_t top : {size_t(0), size_t(5)}) {
        DetectOptions opt;
        opt.nms = nms;
        const std::vector<Found> want = oracle(net, o.out, opt, top);
        INFO("alexeyab " << alexeyab << ", nms " << nms << ", top " << top << ": " << want.size() << " results");
        REQUIRE(want.size() > (top ? top - 1 : 100));
        PostHeap heap(nullptr);
        PostBytes found_bytes(heap);
        PostStats st;
        const PostLimits limits = post_limits(size_t(64) << 20, kClasses, head_boxes(net), 120);
        const auto got = bounded_results(net, o.out, 768, 576, opt, {}, top, limits, heap, found_bytes, &st);
        CHECK(st.candidates_kept == st.candidates);
        require_same(got, want);
      }
    }
  }
}

TEST_CASE("bounded post-processing: the class filter equals filtering the oracle's results", "[detect]") {
  const Network net = two_heads(13, false);
  Outputs o;
  fill(net, o, 11);
  DetectOptions opt;
  std::vector<bool> keep(kClasses, false);
  keep[3] = keep[17] = keep[79] = true;
  std::vector<Found> want = oracle(net, o.out, opt, 0);
  want.erase(std::remove_if(want.begin(), want.end(), [&](const Found& f) { return !keep[size_t(f.class_id)]; }),
             want.end());
  REQUIRE(!want.empty());
  PostHeap heap(nullptr);
  PostBytes found_bytes(heap);
  const auto got = bounded_results(net, o.out, 768, 576, opt, keep, 0, post_limits(size_t(64) << 20, kClasses, head_boxes(net), 120),
                                   heap, found_bytes);
  require_same(got, want);
}

TEST_CASE("bounded post-processing holds its limit however many boxes the heads give", "[detect]") {
  // Every cell over the threshold in every class: 3 x (26^2 + 52^2) = 10,140 boxes and, without
  // NMS, 811,200 results on the smaller network, four times that on the larger; both far over a
  // 2 MB limit.
  const PostLimits limits = post_limits(2u << 20, kClasses, size_t(1) << 20, 120);
  REQUIRE(limits.budget_bytes == (2u << 20));
  size_t peaks[2][2] = {{0, 0}, {0, 0}};
  for (int k = 0; k < 4; ++k) {
    const Network net = two_heads(k % 2 == 0 ? 26 : 52, false);
    Outputs o;
    fill(net, o, 5);
    for (auto& kv : o.out.kept) {  // objectness and every class over 0.25
      const Layer& l = *net.layers[size_t(kv.first)];
      const size_t hw = size_t(l.out.w) * l.out.h;
      for (int n = 0; n < 3; ++n)
        for (size_t c = 4; c < size_t(kClasses) + 5; ++c)
          for (size_t i = 0; i < hw; ++i) {
            float& v = kv.second.data()[size_t(n) * hw * (kClasses + 5) + c * hw + i];
            v = 0.6f + 0.4f * v;
          }
    }
    MemoryTracker mem;
    PostHeap heap(&mem);
    PostStats st;
    {
      PostBytes found_bytes(heap);
      DetectOptions opt;
      opt.nms = k < 2 ? 0.45f : 0.f;
      const auto got = bounded_results(net, o.out, 768, 576, opt, {}, 0, limits, heap, found_bytes, &st);
      INFO(st.candidates << " boxes, " << st.results << " results; kept " << st.candidates_kept << " and "
                         << got.size() << "; heap peak " << heap.peak() << " of " << limits.budget_bytes);
      CHECK(st.candidates > limits.max_candidates);
      CHECK(st.candidates_kept == limits.max_candidates);
      CHECK(got.size() == std::min(st.results, limits.max_results));
      if (opt.nms == 0) CHECK(st.results > limits.max_results);
      for (size_t i = 1; i < got.size(); ++i) REQUIRE(got[i - 1].prob >= got[i].prob);
      CHECK(heap.peak() <= limits.budget_bytes);
      // Once the candidates are gone, the results' records (the caller's 120 bytes each) fit too.
      CHECK(got.size() * limits.bytes_per_result <= limits.budget_bytes);
      CHECK(mem.peak() == heap.peak());  // counted in the tracker as it grew
      peaks[k / 2][k % 2] = heap.peak();
    }
    CHECK(mem.current().total() == 0);  // and given back
  }
  // Without NMS both are at both limits: four times the boxes, the same heap (the limits, not the
  // box count, size it). With NMS the results left vary, within the limit checked above.
  CHECK(peaks[1][1] == peaks[1][0]);
}

TEST_CASE("post-processing's limits fit beside the outputs of every named detector, keeping every box", "[memory]") {
  // What makes `mdfi plan`'s prediction hold for any number of boxes: the limits fill at most
  // the room the single-image arena leaves above the network's outputs (no minimum forced them
  // past it), and every box the heads can give fits, so only the results are ever cut.
  std::vector<std::string> cfgs;
  for (const char* n : {"yolov3", "yolov3-tiny", "yolov4-tiny", "yolov4", "yolov7-tiny", "yolo-fastest-1.1",
                        "yolo-fastest-1.1-xl", "mobilenetv2-yolov3-nano"})
    cfgs.push_back(source_path(std::string("cfg/") + n + ".cfg"));
  for (const char* m : {"yoloface-50k/yoloface-50k.cfg", "mobilenetv2-yolo-fastest-voc-v2/MobileNetV2-YOLO-Fastest-voc-v2.cfg"})
    if (!shared_path(std::string("models/") + m).empty()) cfgs.push_back(shared_path(std::string("models/") + m));
  for (const std::string& cfg : cfgs) {
    INFO(cfg);
    auto net = load_network_cfg(cfg, BuildOptions{});
    INFO(net.status().message());
    REQUIRE(net.ok());
    const Plan plan = make_plan(*net);
    const size_t room = post_room(plan);
    const PostLimits limits = post_limits(room, head_classes(*net), head_boxes(*net), sizeof(app::DetectionRecord) + 16);  // as detect
    INFO("room " << room << ", limits " << limits.max_candidates << " boxes, " << limits.max_results << " results");
    CHECK(room > 0);
    // A small arena (one thread's workspace: OMP_NUM_THREADS=1) may leave less room than the
    // minimum results need; the limits then grow past it, to exactly that minimum, and the
    // prediction (post_peak_bytes) counts the growth.
    if (limits.budget_bytes != room) {
      CHECK(limits.budget_bytes > room);
      CHECK(limits.max_results == kMinResults);
    }
    CHECK(limits.max_candidates == head_boxes(*net));
    CHECK(limits.max_results >= kMinResults);
  }
}
