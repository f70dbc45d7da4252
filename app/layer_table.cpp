#include "layer_table.h"

#include <algorithm>
#include <string>

namespace mdfi::app {

void print_layer_table(std::FILE* out, const Network& net, const Plan* plan) {
  // The detail column is as wide as its longest entry ("24  3 x 3 / 2 g24" is wider than the
  // usual 18), so the columns after it stay aligned.
  int detail_w = 18;
  for (const auto& l : net.layers) detail_w = std::max(detail_w, int(l->detail().size()));
  std::fprintf(out, "layer     type  filters size/str%*s        input                 output      BFLOPs     weights      output%s\n",
               detail_w - 18, "", plan ? "   planned heap  freed after" : "");
  for (const auto& l : net.layers) {
    const Shape& in = l->in;
    const Shape& o = l->out;
    std::fprintf(out, "%5d %8s %-*s %4d x%4d x%5d -> %4d x%4d x%5d %8.3f %11s %11s", l->index, l->kind(), detail_w,
                 l->detail().c_str(), in.w, in.h, in.c, o.w, o.h, o.c, l->flops() / 1e9,
                 format_bytes(l->param_floats() * 4).c_str(), format_bytes(l->aliases_input() ? 0 : o.bytes()).c_str());
    if (plan) {
      const LayerPlan& lp = plan->layers[size_t(l->index)];
      std::string freed;
      for (int b : lp.frees) freed += (freed.empty() ? "" : ",") + (b < 0 ? std::string("in") : std::to_string(b));
      std::fprintf(out, " %14s  %s", format_bytes(lp.peak_bytes).c_str(), freed.c_str());
    }
    std::fputc('\n', out);
  }
}

void print_totals(std::FILE* out, const Network& net) {
  std::fprintf(out, "total: %zu layers, %zu parameters, %s of weights, %.2f BFLOPs, input %dx%dx%d\n",
               net.layers.size(), net.param_floats(), format_bytes(net.param_floats() * 4).c_str(), net.flops() / 1e9,
               net.net.w, net.net.h, net.net.c);
}

}  // namespace mdfi::app
