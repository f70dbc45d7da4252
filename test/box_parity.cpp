#include "box_parity.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <tuple>

#include "support.h"

namespace mdfi::test {

namespace {

// The layer tolerance of the parity tests (1e-4), applied to what decoding makes of the heads:
// coordinates and scores (both at most about 1) absolutely; w and h of boxes wider than the image
// relatively, since w = exp(t) * anchor turns the noise on t into relative error in w.
constexpr float kTol = 1e-4f;
bool near(float a, float b) { return std::fabs(a - b) <= kTol; }
bool near_wh(float a, float b) { return std::fabs(a - b) <= (std::fabs(b) > 1 ? 10 * kTol * std::fabs(b) : kTol); }

float best_score(const Detection& d) { return d.prob.empty() ? 0.f : *std::max_element(d.prob.begin(), d.prob.end()); }
bool any_score(const Detection& d) { return best_score(d) > 0; }
// Over the threshold on one side only because of noise: its best score is that close to it.
bool at_threshold(const Detection& d, float thresh) { return std::fabs(best_score(d) - thresh) <= kTol; }

std::string describe(const Detection& d) {
  char s[128];
  std::snprintf(s, sizeof s, "box (%g %g %g %g) objectness %g best score %g", double(d.bbox.x), double(d.bbox.y),
                double(d.bbox.w), double(d.bbox.h), double(d.objectness), double(best_score(d)));
  return s;
}

// A candidate's identity across a reordering: the exact bits of its box and objectness.
using Key = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, uint32_t>;
uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
Key key_of(const Detection& d) {
  return {bits(d.bbox.x), bits(d.bbox.y), bits(d.bbox.w), bits(d.bbox.h), bits(d.objectness)};
}

}  // namespace

bool write_candidates(const std::string& path, const std::vector<Detection>& dets, int classes) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return false;
  std::fprintf(f, "%zu %d\n", dets.size(), classes);
  for (const Detection& d : dets) {
    std::fprintf(f, "%a %a %a %a %a", double(d.bbox.x), double(d.bbox.y), double(d.bbox.w), double(d.bbox.h),
                 double(d.objectness));
    for (int c = 0; c < classes; ++c) std::fprintf(f, " %a", double(d.prob[size_t(c)]));
    std::fputc('\n', f);
  }
  return std::fclose(f) == 0;
}

std::vector<Detection> read_candidates(const std::string& path, int* classes) {
  std::vector<Detection> dets;
  std::ifstream f(path);
  size_t n = 0;
  *classes = 0;
  if (!(f >> n >> *classes)) return dets;
  auto next = [&f](float& v) {
    std::string word;
    if (!(f >> word)) return false;
    v = std::strtof(word.c_str(), nullptr);  // reads C99 hex floats
    return true;
  };
  for (size_t i = 0; i < n; ++i) {
    Detection d;
    d.prob.assign(size_t(*classes), 0.f);
    bool ok = next(d.bbox.x) && next(d.bbox.y) && next(d.bbox.w) && next(d.bbox.h) && next(d.objectness);
    for (float& p : d.prob) ok = ok && next(p);
    if (!ok) break;
    dets.push_back(std::move(d));
  }
  return dets;
}

std::vector<Detection> candidates_before_nms(const Network& net, const RunOutput& out, int img_w, int img_h,
                                             float thresh) {
  DetectOptions opt;
  opt.thresh = thresh;
  return network_detections(net, out, img_w, img_h, opt);
}

void check_candidates(const std::string& tag, const std::vector<Detection>& ours_all,
                      const std::vector<Detection>& ref_all, float thresh) {
  std::vector<const Detection*> ours, ref;
  for (const Detection& d : ours_all)
    if (any_score(d)) ours.push_back(&d);
  for (const Detection& d : ref_all)
    if (any_score(d)) ref.push_back(&d);
  INFO(tag << ": candidates before NMS, mdfi " << ours.size() << ", reference " << ref.size());
  CHECK(ref.size() >= 3);  // the case must exercise decoding
  // Matched by box, not by position: pjreddie's region heads list anchor by anchor, mdfi cell by
  // cell, and NMS sorts the list anyway.
  std::vector<bool> used(ours.size(), false);
  size_t matched = 0, one_sided = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    const Detection& r = *ref[i];
    size_t j = 0;
    for (; j < ours.size(); ++j) {
      const Detection& o = *ours[j];
      if (!used[j] && near(o.bbox.x, r.bbox.x) && near(o.bbox.y, r.bbox.y) && near_wh(o.bbox.w, r.bbox.w) &&
          near_wh(o.bbox.h, r.bbox.h) && near(o.objectness, r.objectness))
        break;
    }
    if (j == ours.size()) {
      INFO("reference candidate " << i << ": " << describe(r) << " has no match in mdfi's list");
      CHECK(at_threshold(r, thresh));
      ++one_sided;
      continue;
    }
    used[j] = true;
    ++matched;
    const Detection& o = *ours[j];
    REQUIRE(o.prob.size() == r.prob.size());
    for (size_t c = 0; c < r.prob.size(); ++c) {
      const float a = o.prob[c], b = r.prob[c];
      // Darknet zeroes a score not over the threshold: zero on one side only is noise at it.
      const bool ok = (a > 0 && b > 0) ? near(a, b) : (a == b || std::fabs(std::max(a, b) - thresh) <= kTol);
      INFO("reference candidate " << i << ": " << describe(r) << "; class " << c << ": mdfi " << a << ", reference " << b);
      CHECK(ok);
    }
  }
  for (size_t j = 0; j < ours.size(); ++j) {
    if (used[j]) continue;
    INFO("mdfi's candidate " << j << ": " << describe(*ours[j]) << " has no match in the reference's list");
    CHECK(at_threshold(*ours[j], thresh));
    ++one_sided;
  }
  WARN(tag << ": " << matched << " candidates before NMS equal the reference's; " << one_sided
           << " within the tolerance of the threshold on one side only");
}

size_t check_nms_on_same_candidates(const std::string& tag, const Network& net, const std::vector<Detection>& ours,
                                    float nms_thresh, const std::string& dir,
                                    const std::function<std::string(const std::string&, const std::string&)>& reference_nms,
                                    bool must_suppress) {
  const int classes = ours.empty() ? 0 : int(ours[0].prob.size());
  REQUIRE(classes > 0);
  const std::string in = dir + "/mdfi_candidates.txt", out = dir + "/reference_nms.txt";
  REQUIRE(write_candidates(in, ours, classes));
  const CommandResult r = run_command(reference_nms(in, out));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  int ref_classes = 0;
  std::vector<Detection> theirs = read_candidates(out, &ref_classes);
  REQUIRE(ref_classes == classes);
  REQUIRE(theirs.size() == ours.size());

  std::vector<Detection> mine = ours;
  network_nms(net, mine, classes, nms_thresh);

  // Pair the two results by identity; before-NMS scores come from `ours`.
  auto by_key = [](const Detection& a, const Detection& b) { return key_of(a) < key_of(b); };
  std::vector<Detection> before = ours;
  std::sort(before.begin(), before.end(), by_key);
  std::sort(mine.begin(), mine.end(), by_key);
  std::sort(theirs.begin(), theirs.end(), by_key);
  const float beta = nms_diou_beta(net);
  auto overlap = [&](const Box& a, const Box& b) { return beta < 0 ? box_iou(a, b) : box_diou(a, b, beta); };
  size_t suppressed = 0, ties = 0, differences = 0;
  for (size_t i = 0; i < before.size(); ++i) {
    REQUIRE(key_of(mine[i]) == key_of(before[i]));
    REQUIRE(key_of(theirs[i]) == key_of(before[i]));
    for (size_t c = 0; c < size_t(classes); ++c) {
      suppressed += before[i].prob[c] > 0 && mine[i].prob[c] == 0;
      if (bits(mine[i].prob[c]) == bits(theirs[i].prob[c])) continue;
      // An exact tie: another candidate with a bit-equal score for this class overlapping this
      // one past the threshold; which of the two NMS keeps is the sort's choice.
      bool tie = false;
      for (size_t k = 0; k < before.size() && !tie; ++k)
        tie = k != i && before[k].prob[c] > 0 && bits(before[k].prob[c]) == bits(before[i].prob[c]) &&
              overlap(before[k].bbox, before[i].bbox) > nms_thresh;
      ties += tie;
      differences += !tie;
      INFO(tag << ": candidate " << describe(before[i]) << ", class " << c << ": after NMS mdfi " << mine[i].prob[c]
               << ", reference " << theirs[i].prob[c] << " (before " << before[i].prob[c] << ")");
      CHECK(tie);
    }
  }
  if (must_suppress) CHECK(suppressed > 0);  // the case must exercise NMS
  if (must_suppress) WARN(tag << ": NMS on the same " << ours.size() << " candidates: mdfi and the reference suppress the same "
           << suppressed << " scores" << (ties ? " but for exact ties (" + std::to_string(ties) + ")" : std::string())
           << (differences ? "; " + std::to_string(differences) + " DIFFERENCES" : std::string()));
  return suppressed;
}

}  // namespace mdfi::test
