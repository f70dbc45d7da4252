#include "band_exec.h"

#include <algorithm>
#include <cstring>

#include "row_window.h"

namespace mdfi {

Status run_band_group(const Network& net, const Schedule& schedule, const BandGroup& g,
                      const std::map<int, const float*>& external, float* output, WeightsFile& weights,
                      const std::vector<size_t>& offsets, MemoryTracker& mem, const ExecOptions& exec) {
  // The layers' Winograd tiles as the schedule set them: its Winograd layers step in whole tile rows.
  const std::vector<SchedNode> nodes = sched_nodes_for(net, winograd_tiles(net));
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
  // Every band reads the weights of the layers the group does not hold again: mapped (once, for
  // the file's life), the steps pack and transform them where they lie in the page cache rather
  // than copying them out of it once per band. Where the file declines, reads as before.
  if (!g.resident) weights.map_range(offsets[size_t(g.first)], offsets[size_t(g.last) + 1] - offsets[size_t(g.first)]);
  // The layers whose weights the group holds are prepared once, for all its steps.
  std::vector<PreparedRows> prepared(static_cast<size_t>(count));
  for (int l = 0; l < count; ++l) {
    if (!g.holds(g.first + l)) continue;
    const Layer& layer = *net.layers[size_t(g.first + l)];
    LayerParams params(weights, layer, offsets[size_t(g.first + l)]);
    LayerIO io;
    io.params = &params;
    io.mem = &mem;
    io.exec = &exec;
    MDFI_RETURN_IF_ERROR(layer.prepare_rows(io, prepared[size_t(l)]));
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
      LayerParams params(weights, layer, offsets[size_t(st.layer)]);
      RowStep step;
      step.io.params = &params;
      step.io.mem = &mem;
      step.io.exec = &step_exec;
      for (int s : layer.sources) step.inputs.push_back(view_of(s));
      step.out = w;
      step.y0 = st.from;
      step.y1 = st.to;
      const bool held = g.holds(st.layer);
      step.block = held ? 0 : scheduled_block(&exec, st.layer);
      step.prepared = held ? &prepared[size_t(idx)] : nullptr;
      MDFI_RETURN_IF_ERROR(layer.forward_rows(step));
    }
  return Status::Ok();
}

}  // namespace mdfi
