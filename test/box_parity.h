// Box-level parity that tests decoding and NMS, not float noise.
//
// A detector's kept boxes are two steps: decoding (candidates: boxes, objectness, class scores)
// and NMS. Comparing only the kept boxes of two implementations mixes them: a 1e-6 difference
// in two near-tied scores changes which box NMS visits first, and the difference cascades. So
// the parity tests check the two steps apart:
//  1. check_candidates: mdfi's candidates before NMS against the reference's, one to one
//     (matched by box: Darknet's heads list them in different orders), within the layer
//     tolerance. A candidate may be missing on one side only when its best score is within
//     that tolerance of the threshold (the noise put it over on one side).
//  2. check_nms_on_same_candidates: mdfi's candidate list is written out bit for bit, the
//     reference's own NMS runs on it (test/refdump nms), mdfi's NMS runs on the same list, and
//     the results must be identical, score for score. The one exception is an exact tie (two
//     overlapping candidates with bit-equal scores for a class), where the visiting order is
//     the sort's choice; it is counted and printed.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "detect.h"
#include "network.h"

namespace mdfi::test {

// test/refdump/candidates.h's format: "N CLASSES", then per candidate x y w h objectness and
// CLASSES scores, all C99 hex floats.
bool write_candidates(const std::string& path, const std::vector<Detection>& dets, int classes);
std::vector<Detection> read_candidates(const std::string& path, int* classes);

// mdfi's candidates before NMS for an img_w x img_h image (network_detections at `thresh`).
std::vector<Detection> candidates_before_nms(const Network& net, const RunOutput& out, int img_w, int img_h,
                                             float thresh);

// Step 1. Candidates whose every score is 0 (not over the threshold) are left out on both sides:
// pjreddie's get_network_boxes lists them, mdfi does not, and NMS ignores them either way.
void check_candidates(const std::string& tag, const std::vector<Detection>& ours, const std::vector<Detection>& ref,
                      float thresh);

// Step 2. `reference_nms(in, out)` returns the shell command that runs the reference's NMS on
// the candidate file `in` and writes the list after NMS to `out`. Returns how many (candidate,
// class) scores NMS suppressed; with `must_suppress` (generated weights, hundreds of candidates)
// a case where it suppressed none fails, since it would not have exercised NMS.
size_t check_nms_on_same_candidates(const std::string& tag, const Network& net, const std::vector<Detection>& ours,
                                    float nms_thresh, const std::string& dir,
                                    const std::function<std::string(const std::string&, const std::string&)>& reference_nms,
                                    bool must_suppress = true);

}  // namespace mdfi::test
