// The schedule in words, for -v and `mdfi plan --max-mem`.
#include "schedule.h"

namespace mdfi {

std::string describe_schedule(const Schedule& s) {
  std::string out;
  int blocked = 0;
  for (int b : s.block) blocked += b > 0;
  if (blocked) out += std::to_string(blocked) + " layers with weights in blocks of output channels";
  int wino = 0;
  for (SchedAlgo a : s.algo) wino += a != SchedAlgo::kGemm;
  if (wino) out += std::string(out.empty() ? "" : "; ") + std::to_string(wino) + " layers by Winograd";
  for (const BandGroup& g : s.groups) {
    if (!out.empty()) out += "; ";
    out += "layers " + std::to_string(g.first) + "-" + std::to_string(g.last) + " in bands of " +
           std::to_string(g.band_rows) + " rows" + (g.resident ? " (weights held)" : "") +
           (!g.resident && !g.held.empty() ? " (" + std::to_string(g.held.size()) + " layers' weights held)" : "");
  }
  return out.empty() ? "default (layer at a time, whole weights)" : out;
}

}  // namespace mdfi
