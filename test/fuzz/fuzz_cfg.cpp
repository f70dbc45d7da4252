// libFuzzer target: arbitrary bytes as a cfg file, through the parser, the network builder (shape
// inference, route/shortcut/yolo checks) and the planner. None of these may crash, overflow or
// allocate tensors; every rejection must be a Status.
#include <cstddef>
#include <cstdint>
#include <string>

#include "cfg.h"
#include "network.h"
#include "plan.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 64 * 1024) return 0;  // real cfgs are a few kB; bigger inputs only slow the search
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto cfg = mdfi::parse_cfg_text(text, "fuzz.cfg");
  if (!cfg.ok()) return 0;
  auto net = mdfi::build_network(*cfg, mdfi::BuildOptions{});
  if (!net.ok()) return 0;
  const mdfi::Plan plan = mdfi::make_plan(*net);
  (void)plan;
  (void)net->flops();
  (void)net->param_floats();
  return 0;
}
