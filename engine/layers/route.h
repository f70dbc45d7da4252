// [route]: channel-wise concatenation of earlier layers' outputs (negative indices are relative),
// optionally of one channel group of each (AlexeyAB's groups/group_id).
#pragma once

#include "../layer.h"

namespace mdfi {

class RouteLayer : public Layer {
 public:
  static LayerResult create(const SectionReader& r, const BuildContext& ctx);
  const char* kind() const override { return "route"; }
  std::string detail() const override;
  Status forward(LayerIO& io) const override;
  void describe_schedule(SchedNode& node) const override;
  Status forward_rows(RowStep& step) const override;
  bool concatenates_sources() const override { return groups == 1; }
  bool slices_source(size_t* offset_floats) const override {
    if (groups == 1 || sources.size() != 1) return false;
    *offset_floats = source_shapes[0].count() / size_t(groups) * size_t(group_id);
    return true;
  }

  // AlexeyAB (YOLOv4-tiny): each source is split into `groups` equal channel slices and only
  // slice `group_id` is taken. Honoured under AlexeyAB semantics only; pjreddie ignores the keys.
  int groups = 1, group_id = 0;
};

// Resolves a Darknet layer reference (negative = relative to `index`) and checks it points to an
// earlier layer; on failure returns an error naming the cfg line.
Result<int> resolve_layer_ref(int ref, const BuildContext& ctx, const std::string& where, const char* what);

}  // namespace mdfi
