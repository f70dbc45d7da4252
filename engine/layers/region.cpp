#include "region.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "../activation.h"
#include "softmax.h"
#include "detect.h"
#include "../layer_registry.h"

namespace mdfi {

LayerRegistration register_region() {
  LayerRegistration r;
  r.section = "region";
  r.keys = "anchors, num, classes, coords, softmax, background, tree (file beside the cfg or in ../)";
  r.doc = "YOLOv2 head (logistic x, y, objectness; softmax, tree-group softmax or logistic classes)";
  // bias_match only changes which anchor training assigns a truth to; the rest are training knobs.
  r.ignored = {"bias_match", "jitter", "rescore", "thresh", "classfix", "absolute", "random", "coord_scale",
                "object_scale", "noobject_scale", "mask_scale", "class_scale", "max", "log", "sqrt", "map",
                "focal_loss"};
  r.create = &RegionLayer::create;
  return r;
}

LayerResult RegionLayer::create(const SectionReader& r, const BuildContext& ctx) {
  auto l = std::make_unique<RegionLayer>();
  MDFI_ASSIGN_OR_RETURN(auto classes, r.get_int("classes", 20));
  MDFI_ASSIGN_OR_RETURN(auto coords, r.get_int("coords", 4));
  MDFI_ASSIGN_OR_RETURN(auto num, r.get_int("num", 1));
  MDFI_ASSIGN_OR_RETURN(auto softmax, r.get_int("softmax", 0));
  MDFI_ASSIGN_OR_RETURN(auto background, r.get_int("background", 0));
  MDFI_ASSIGN_OR_RETURN(auto anchors, r.get_float_list("anchors"));
  if (r.has("tree")) {
    // Darknet opens tree= relative to its working directory (a Darknet checkout): see
    // find_beside_cfg for where mdfi looks.
    const std::string name = r.get_string("tree", "");
    std::vector<std::string> tried;
    const std::string path = find_beside_cfg(r.file().path, name, &tried);
    if (path.empty()) {
      std::string list;
      for (const auto& t : tried) list += (list.empty() ? "" : ", ") + t;
      return LayerResult(ErrorKind::kIo, r.where("tree") + ": softmax tree file '" + name + "' not found (tried " + list + ")");
    }
    auto tree = read_softmax_tree(path);
    if (!tree.ok()) return LayerResult(tree.status().kind(), r.where("tree") + ": " + tree.status().message());
    l->tree = std::make_shared<const SoftmaxTree>(std::move(*tree));
    l->tree_path = path;
  }
  l->classes = classes;
  l->coords = coords;
  l->n = num;
  l->softmax = softmax != 0;
  l->background = background != 0;
  if (l->classes < 0) return LayerResult(ErrorKind::kCfg, r.where("classes") + ": classes must be >= 0");
  if (l->coords < 2) return LayerResult(ErrorKind::kCfg, r.where("coords") + ": coords must be >= 2");
  if (l->n <= 0) return LayerResult(ErrorKind::kCfg, r.where("num") + ": num must be > 0");
  // 64-bit arithmetic: hostile cfgs give values whose products overflow an int.
  if (int64_t(l->n) * (int64_t(l->classes) + l->coords + 1) != ctx.input.c)
    return LayerResult(ErrorKind::kCfg,
                       layer_error(ctx, "region", "input has " + std::to_string(ctx.input.c) + " channels but num " +
                                                      std::to_string(l->n) + " x (classes " + std::to_string(l->classes) +
                                                      " + coords " + std::to_string(l->coords) + " + 1) = " +
                                                      std::to_string(int64_t(l->n) * (int64_t(l->classes) + l->coords + 1))));
  if (l->tree && l->tree->n() != l->classes)
    return LayerResult(ErrorKind::kCfg, r.where("tree") + ": the softmax tree " + l->tree_path + " has " +
                                            std::to_string(l->tree->n()) + " classes but classes=" +
                                            std::to_string(l->classes));
  l->anchors = anchors;
  // As in [yolo]: AlexeyAB reads at most num*2 values (the rest stay .5), pjreddie all of them.
  if (ctx.net.compat == Compat::kAlexeyAB && !l->anchors.empty()) l->anchors.resize(size_t(2) * size_t(l->n), .5f);
  if (!l->anchors.empty() && l->anchors.size() != size_t(2) * size_t(l->n))
    return LayerResult(ErrorKind::kCfg, r.where("anchors") + ": " + std::to_string(l->anchors.size()) +
                                            " anchor values but num=" + std::to_string(l->n) + " needs " +
                                            std::to_string(2 * int64_t(l->n)));
  if (l->anchors.empty()) l->anchors.assign(size_t(2) * size_t(l->n), .5f);  // Darknet's default
  l->in = ctx.input;
  l->out = ctx.input;
  return LayerResult(std::unique_ptr<Layer>(std::move(l)));
}

Status RegionLayer::forward(LayerIO& io) const {
  const float* x = io.inputs[0];
  std::memcpy(io.output, x, out.bytes());
  const size_t hw = size_t(out.w) * out.h;
  for (int a = 0; a < n; ++a) {
    activate_array(io.output + entry(a, 0, 0), 2 * hw, Activation::kLogistic);
    if (!background) activate_array(io.output + entry(a, 0, coords), hw, Activation::kLogistic);
    if (!softmax && !tree) activate_array(io.output + entry(a, 0, coords + 1), size_t(classes) * hw, Activation::kLogistic);
  }
  if (tree) {
    // Per anchor, cell and tree group: a softmax across the group's class planes.
    for (int a = 0; a < n; ++a)
      for (size_t g = 0; g < tree->group_size.size(); ++g) {
        const int first = coords + 1 + tree->group_offset[g];
        for (size_t loc = 0; loc < hw; ++loc)
          softmax_strided(x + entry(a, loc, first), tree->group_size[g], 1.f, io.output + entry(a, loc, first), int(hw));
      }
  } else if (softmax) {
    // Per anchor and cell, a softmax across the class planes, read from the raw input.
    const int first = coords + !background;
    for (int a = 0; a < n; ++a)
      for (size_t loc = 0; loc < hw; ++loc)
        softmax_strided(x + entry(a, loc, first), classes + int(background), 1.f, io.output + entry(a, loc, first),
                        int(hw));
  }
  return Status::Ok();
}

// get_region_detections (pjreddie): every anchor of every cell; those at or under the
// threshold have objectness 0 and no class scores, which NMS and printing then skip.
void RegionLayer::decode_boxes(const float* pred, const BoxFrame& frame, CandidateSink& sink) const {
  const RegionLayer& l = *this;
  const DetectOptions& opt = *frame.opt;
  const size_t hw = size_t(l.out.w) * l.out.h;
  const BoxCorrection fix(frame.img_w, frame.img_h, frame.net_w, frame.net_h, opt.letterbox);
  for (size_t i = 0; i < hw; ++i) {
    const int row = int(i / l.out.w), col = int(i % l.out.w);
    for (int n = 0; n < l.n; ++n) {
      const float scale = l.background ? 1.f : pred[l.entry(n, i, l.coords)];
      if (!(scale > opt.thresh)) continue;  // objectness 0: dropped before NMS anyway
      Box b;
      b.x = (col + pred[l.entry(n, i, 0)]) / l.out.w;
      b.y = (row + pred[l.entry(n, i, 1)]) / l.out.h;
      b.w = float(std::exp(pred[l.entry(n, i, 2)]) * l.anchors[2 * n] / l.out.w);
      b.h = float(std::exp(pred[l.entry(n, i, 3)]) * l.anchors[2 * n + 1] / l.out.h);
      float* prob = sink.row(l.classes);
      if (l.tree) {
        // pjreddie: hierarchy_predictions (in place on its output; here on a copy), then only
        // the top prediction along the tree, at --hier, gets the objectness as its probability.
        std::vector<float> cls(size_t(l.classes));
        for (int j = 0; j < l.classes; ++j) cls[size_t(j)] = pred[l.entry(n, i, l.coords + !l.background + j)];
        hierarchy_predictions(cls.data(), *l.tree, 1);
        const int top = hierarchy_top_prediction(cls.data(), *l.tree, opt.hier_thresh, 1);
        for (int j = 0; j < l.classes; ++j) prob[size_t(j)] = 0;
        prob[size_t(top)] = scale;  // scale > thresh here
        fix.apply(b);
        sink.add(b, scale);
        continue;
      }
      for (int j = 0; j < l.classes; ++j) {
        const float p = scale * pred[l.entry(n, i, l.coords + 1 + j)];
        prob[size_t(j)] = p > opt.thresh ? p : 0;
      }
      fix.apply(b);
      sink.add(b, scale);
    }
  }
}

}  // namespace mdfi
