#include "band_exec.h"

#include <algorithm>
#include <cfloat>
#include <cstring>

#include "activation.h"
#include "layers/conv_rows.h"
#include "layers/maxpool.h"
#include "layers/route.h"
#include "layers/shortcut.h"

namespace mdfi {

namespace {

// Rows [y0, y1) of a max pool, with MaxPoolLayer::forward's window, bounds and comparison
// order (the fast 2x2 kernel takes the same maximum).
void pool_rows(const MaxPoolLayer& l, const RowWindow& in, const RowWindow& out, int y0, int y1, int threads) {
  const int off = -l.padding / 2;
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int k = 0; k < out.c; ++k)
    for (int i = y0; i < y1; ++i) {
      float* dst = out.row(k, i);
      const int ys = off + i * l.stride;
      for (int j = 0; j < out.w; ++j) {
        const int x0 = off + j * l.stride;
        float best = -FLT_MAX;
        for (int n = 0; n < l.size; ++n) {
          const int y = ys + n;
          if (y < 0 || y >= in.h) continue;
          const float* row = in.row(k, y);
          for (int m = 0; m < l.size; ++m) {
            const int x = x0 + m;
            if (x >= 0 && x < in.w && row[x] > best) best = row[x];
          }
        }
        dst[j] = best;
      }
    }
}

// ShortcutLayer::forward for equal shapes: out = alpha * prev + beta * from, then the activation.
void add_rows(const ShortcutLayer& l, const RowWindow& a, const RowWindow& b, const RowWindow& out, int y0, int y1) {
  for (int k = 0; k < out.c; ++k)
    for (int i = y0; i < y1; ++i) {
      const float* pa = a.row(k, i);
      const float* pb = b.row(k, i);
      float* o = out.row(k, i);
      for (int j = 0; j < out.w; ++j) {
        o[j] = pa[j];
        o[j] = l.alpha * o[j] + l.beta * pb[j];
      }
      activate_array(o, size_t(out.w), l.activation);
    }
}

// RouteLayer::forward: each source's channel slice, one after another.
void concat_rows(const RouteLayer& l, const std::vector<RowWindow>& ins, const RowWindow& out, int y0, int y1) {
  int oc = 0;
  for (const RowWindow& in : ins) {
    const int part = in.c / l.groups;
    for (int k = 0; k < part; ++k, ++oc)
      for (int i = y0; i < y1; ++i)
        std::memcpy(out.row(oc, i), in.row(part * l.group_id + k, i), size_t(out.w) * sizeof(float));
  }
}

}  // namespace

Status run_band_group(const Network& net, const Schedule& schedule, const BandGroup& g,
                      const std::map<int, const float*>& external, float* output, WeightsFile& weights,
                      const std::vector<size_t>& offsets, MemoryTracker& mem, const ExecOptions& exec) {
  const std::vector<SchedNode> nodes = sched_nodes_for(net);
  const BandProgram prog = band_program(nodes, schedule, g);
  const int count = g.last - g.first + 1;
  std::vector<RowWindow> win(static_cast<size_t>(count));
  size_t floats = 0;
  for (int l = 0; l + 1 < count; ++l) floats += size_t(prog.window_rows[size_t(l)]) * nodes[size_t(g.first + l)].row_bytes / sizeof(float);
  Buffer slab;
  if (floats) {
    auto b = Buffer::make(mem, floats, MemCategory::kWorkspace, "band windows");
    if (!b.ok()) return b.status();
    slab = std::move(*b);
  }
  size_t at = 0;
  for (int l = 0; l < count; ++l) {
    const Shape& s = net.layers[size_t(g.first + l)]->out;
    if (l + 1 == count) {
      win[size_t(l)] = RowWindow::whole(output, s);
    } else {
      win[size_t(l)] = {slab.data() + at, s.c, s.h, s.w, 0, prog.window_rows[size_t(l)]};
      at += size_t(prog.window_rows[size_t(l)]) * s.c * s.w;
    }
  }
  auto view_of = [&](int src) -> RowWindow {
    while (src >= g.first && nodes[size_t(src)].band == SchedNode::Band::kAlias) src = net.layers[size_t(src)]->sources[0];
    if (src >= g.first) return win[size_t(src - g.first)];
    const Shape s = src < 0 ? net.input_shape() : net.layers[size_t(src)]->out;
    return RowWindow::whole(const_cast<float*>(external.at(src)), s);
  };
  for (const std::vector<BandStep>& band : prog.bands)
    for (const BandStep& st : band) {
      const int idx = st.layer - g.first;
      if (nodes[size_t(st.layer)].band == SchedNode::Band::kAlias) continue;  // its source's rows
      RowWindow& w = win[size_t(idx)];
      if (idx + 1 < count && st.keep > w.lo) {
        // Drop the rows no consumer needs any more: the kept ones move to the window's start.
        const int shift = st.keep - w.lo, kept = st.from - st.keep;
        for (int ch = 0; ch < w.c && kept > 0; ++ch) {
          float* base = w.data + size_t(ch) * w.cap * w.w;
          std::memmove(base, base + size_t(shift) * w.w, size_t(kept) * w.w * sizeof(float));
        }
        w.lo = st.keep;
      }
      if (st.to <= st.from) continue;
      if (st.to - w.lo > w.cap)
        return Status(ErrorKind::kInternal, "layer " + std::to_string(st.layer) + ": band window too small");
      const Layer& layer = *net.layers[size_t(st.layer)];
      // A small step runs on this thread alone: waking the team for a few hundred microseconds
      // of work costs more than it saves, and much more on a busy machine.
      const double step_flops = nodes[size_t(st.layer)].flops * (st.to - st.from) / std::max(1, layer.out.h);
      ExecOptions step_exec = exec;
      if (step_flops < 8e6) step_exec.threads = 1;
      if (auto* c = dynamic_cast<const ConvLayer*>(&layer)) {
        LayerParams params(weights, layer, offsets[size_t(st.layer)]);
        LayerIO io;
        io.params = &params;
        io.mem = &mem;
        io.exec = &step_exec;
        Status s = c->depthwise()
                       ? depthwise_rows(*c, io, view_of(layer.sources[0]), w, st.from, st.to)
                       : conv_rows(*c, io, view_of(layer.sources[0]), w, st.from, st.to, scheduled_block(&exec, st.layer));
        if (!s.ok()) return s;
      } else if (auto* m = dynamic_cast<const MaxPoolLayer*>(&layer)) {
        pool_rows(*m, view_of(layer.sources[0]), w, st.from, st.to, std::max(1, step_exec.threads));
      } else if (auto* a = dynamic_cast<const ShortcutLayer*>(&layer)) {
        add_rows(*a, view_of(layer.sources[0]), view_of(layer.sources[1]), w, st.from, st.to);
      } else if (auto* r = dynamic_cast<const RouteLayer*>(&layer)) {
        std::vector<RowWindow> ins;
        for (int s : layer.sources) ins.push_back(view_of(s));
        concat_rows(*r, ins, w, st.from, st.to);
      } else {
        return Status(ErrorKind::kInternal, "layer " + std::to_string(st.layer) + " [" + layer.kind() +
                                                "] cannot run in bands");
      }
    }
  return Status::Ok();
}

}  // namespace mdfi
