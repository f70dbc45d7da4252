#include "route.h"
#include "row_window.h"
#include "schedule.h"

#include <algorithm>
#include <cstring>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "../layer_registry.h"

namespace mdfi {

LayerRegistration register_route() {
  LayerRegistration r;
  r.section = "route";
  r.keys = "layers, groups, group_id (AlexeyAB)";
  r.doc = "channel concatenation, or one channel slice per source";
  r.alexeyab_keys = {"groups", "group_id"};
  r.create = &RouteLayer::create;
  return r;
}

Result<int> resolve_layer_ref(int ref, const BuildContext& ctx, const std::string& where, const char* what) {
  const int abs = ref < 0 ? ctx.index + ref : ref;
  if (abs < 0 || abs >= ctx.index)
    return Result<int>(ErrorKind::kCfg, where + ": layer " + std::to_string(ctx.index) + " " + what + " " +
                                            std::to_string(ref) + " -> layer " + std::to_string(abs) +
                                            (abs >= ctx.index ? " is not an earlier layer" : " is out of range"));
  return abs;
}

LayerResult RouteLayer::create(const SectionReader& r, const BuildContext& ctx) {
  auto l = std::make_unique<RouteLayer>();
  MDFI_ASSIGN_OR_RETURN(auto refs, r.get_int_list("layers"));
  if (refs.empty()) return LayerResult(ErrorKind::kCfg, r.where() + ": [route] needs layers=");
  for (int ref : refs) {
    MDFI_ASSIGN_OR_RETURN(auto idx, resolve_layer_ref(ref, ctx, r.where("layers"), "route to"));
    const Shape s = ctx.built[idx]->out;
    if (!l->sources.empty() && (s.w != l->source_shapes[0].w || s.h != l->source_shapes[0].h))
      return LayerResult(ErrorKind::kCfg, r.where("layers") + ": layer " + std::to_string(ctx.index) +
                                              " route joins layer " + std::to_string(idx) + " (" +
                                              std::to_string(s.w) + "x" + std::to_string(s.h) +
                                              ") with a different size (" + std::to_string(l->source_shapes[0].w) +
                                              "x" + std::to_string(l->source_shapes[0].h) + ")");
    l->sources.push_back(idx);
    l->source_shapes.push_back(s);
    // Listing a huge layer many times would overflow the int channel count.
    if (l->out.c > (1 << 30) - s.c)
      return LayerResult(ErrorKind::kCfg, r.where("layers") + ": layer " + std::to_string(ctx.index) +
                                              " route output has absurdly many channels, refused");
    l->out.c += s.c;
  }
  if (ctx.net.compat == Compat::kAlexeyAB) {
    MDFI_ASSIGN_OR_RETURN(auto groups, r.get_int("groups", 1));
    MDFI_ASSIGN_OR_RETURN(auto group_id, r.get_int("group_id", 0));
    if (groups <= 0 || group_id < 0 || group_id >= groups)
      return LayerResult(ErrorKind::kCfg, r.where("groups") + ": [route] needs groups > 0 and 0 <= group_id < groups");
    for (const Shape& s : l->source_shapes)
      if (s.c % groups != 0)
        return LayerResult(ErrorKind::kCfg, r.where("groups") + ": groups=" + std::to_string(groups) +
                                                " does not divide a source's " + std::to_string(s.c) + " channels");
    l->groups = groups;
    l->group_id = group_id;
    l->out.c /= l->groups;
  }
  l->in = l->source_shapes[0];
  l->out.w = l->in.w;
  l->out.h = l->in.h;
  return LayerResult(std::unique_ptr<Layer>(std::move(l)));
}

std::string RouteLayer::detail() const {
  std::string s;
  for (int i : sources) s += " " + std::to_string(i);
  return s;
}

// The output is the sources' slices one after another; threads split it into equal ranges and
// copy the pieces of slices inside their range. A concatenation is pure memory traffic, done on
// one thread while the others waited: yolov4-tiny's four 104x104 and 52x52 routes were 6% of its
// forward time on two threads (AMD EPYC VM). Small routes stay on the calling thread.
Status RouteLayer::forward(LayerIO& io) const {
  const size_t total = out.count();
  const int threads = io.memory_pass_threads(total);
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
#if defined(_OPENMP)
    const size_t tid = size_t(omp_get_thread_num()), nt = size_t(omp_get_num_threads());
#else
    const size_t tid = 0, nt = 1;
#endif
    const size_t lo = total * tid / nt, hi = total * (tid + 1) / nt;
    size_t at = 0;  // where source i's slice starts in the output
    for (size_t i = 0; i < sources.size() && at < hi; ++i) {
      const size_t part = source_shapes[i].count() / size_t(groups);
      const size_t from = std::max(lo, at), to = std::min(hi, at + part);
      if (from < to)
        std::memcpy(io.output + from, io.inputs[i] + part * size_t(group_id) + (from - at), (to - from) * sizeof(float));
      at += part;
    }
  }
  return Status::Ok();
}

// Bands of a concatenation whose sources all have the output's height and width.
void RouteLayer::describe_schedule(SchedNode& n) const {
  bool same = true;
  for (const Shape& sh : source_shapes) same = same && sh.h == out.h && sh.w == out.w;
  if (same) n.band = SchedNode::Band::kConcat;
}

// Rows of forward: each source's channel slice, one after another.
Status RouteLayer::forward_rows(RowStep& step) const {
  const std::vector<RowWindow>& ins = step.inputs;
  const RowWindow& out = step.out;
  const int y0 = step.y0, y1 = step.y1;

  int oc = 0;
  for (const RowWindow& in : ins) {
    const int part = in.c / groups;
    for (int k = 0; k < part; ++k, ++oc)
      for (int i = y0; i < y1; ++i)
        std::memcpy(out.row(oc, i), in.row(part * group_id + k, i), size_t(out.w) * sizeof(float));
  }
  return Status::Ok();
}
}  // namespace mdfi
