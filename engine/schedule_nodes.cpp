// The scheduler's view of a built network: which layers can take weight blocks and bands, and
// their row geometry. The one place that asks concrete layer types (a registry-wide hook would
// touch every layer for what only five of them answer).
#include <algorithm>

#include "kernels/sgemm.h"
#include "layers/connected.h"
#include "layers/conv.h"
#include "layers/maxpool.h"
#include "layers/route.h"
#include "layers/shortcut.h"
#include "network.h"
#include "schedule.h"

namespace mdfi {

std::vector<SchedNode> sched_nodes_for(const Network& net) {
  const std::vector<PlanNode> plan = plan_nodes_for(net);
  std::vector<SchedNode> nodes(plan.size());
  for (size_t i = 0; i < plan.size(); ++i) {
    const Layer& l = *net.layers[i];
    SchedNode& n = nodes[i];
    n.plan = plan[i];
    n.out_h = l.out.h;
    n.out_w = l.out.w;
    n.row_bytes = size_t(l.out.c) * l.out.w * sizeof(float);
    n.flops = l.flops();
    n.output_head = l.is_output_head();
    if (auto* c = dynamic_cast<const ConvLayer*>(&l)) {
      if (c->depthwise()) {  // the direct kernel, whole weights (they are small)
        n.band = SchedNode::Band::kDepthwise;
        n.k = c->size;
        n.s = c->stride;
        n.pad_top = c->pad;
        continue;
      }
      if (c->groups != 1) continue;  // grouped convolutions keep today's path
      // Dilated taps (a wider halo) and borrowed weights (share_index) keep today's path too.
      if (c->dilation != 1 || c->share_from >= 0) continue;
      const int K = c->in.c * c->size * c->size;
      n.block_units = c->filters;
      n.block_multiple = kernels::kMR;
      n.default_block = c->filters;
      n.block_unit_bytes = size_t(K) * sizeof(float);
      n.block_fixed_bytes = (size_t(c->filters) * (c->batch_normalize ? 5 : 2) +
                             size_t(ConvLayer::pack_threads(kernels::planned_threads())) * kernels::kMR * K) *
                            sizeof(float);
      n.band = SchedNode::Band::kConv;
      n.k = c->size;
      n.s = c->stride;
      n.pad_top = c->pad;
      n.gemm_k = K;
    } else if (auto* f = dynamic_cast<const ConnectedLayer*>(&l)) {
      n.block_units = f->outputs;
      n.default_block = f->rows_per_block();
      n.block_unit_bytes = f->inputs() * sizeof(float);
      n.block_fixed_bytes = size_t(f->outputs) * (f->batch_normalize ? 4 : 1) * sizeof(float);
    } else if (auto* m = dynamic_cast<const MaxPoolLayer*>(&l)) {
      if (m->depth) continue;
      n.band = SchedNode::Band::kPool;
      n.k = m->size;
      n.s = m->stride;
      n.pad_top = m->padding / 2;
    } else if (auto* s = dynamic_cast<const ShortcutLayer*>(&l)) {
      if (s->alexeyab || s->source_shapes.size() != 2 || !(s->source_shapes[1] == s->out) ||
          !(s->source_shapes[0] == s->out))
        continue;
      n.band = SchedNode::Band::kAdd;
    } else if (l.aliases_input() && l.sources.size() == 1 && l.out == l.source_shapes[0]) {
      n.band = SchedNode::Band::kAlias;  // dropout at inference
    } else if (auto* r = dynamic_cast<const RouteLayer*>(&l)) {
      bool same = true;
      for (const Shape& sh : r->source_shapes) same = same && sh.h == l.out.h && sh.w == l.out.w;
      if (same) n.band = SchedNode::Band::kConcat;
    }
  }
  return nodes;
}

}  // namespace mdfi
