// Which Darknet's semantics a network runs with. pjreddie Darknet (the Debian package) and
// AlexeyAB Darknet read the same cfg grammar but differ at inference: input letterboxing,
// batch-norm epsilon, [yolo] scale_x_y, NMS kind. `auto` picks AlexeyAB when the cfg uses any
// section, key or activation only AlexeyAB defines (it was trained there), pjreddie otherwise,
// and says which cfg line decided it so `-v` can explain the choice.
#pragma once

#include <string>

#include "cfg.h"
#include "layer.h"

namespace mdfi {

struct CompatChoice {
  Compat compat = Compat::kPjreddie;  // never kAuto
  std::string reason;                 // e.g. "auto: x.cfg:12 uses key 'nms_kind' (AlexeyAB only)"
};

// "pjreddie", "alexeyab" or "auto"; false for anything else.
bool parse_compat(const std::string& name, Compat* out);

// Resolves `requested` against the cfg. Looks at keys without marking them used.
CompatChoice resolve_compat(const CfgFile& cfg, Compat requested);

// The first AlexeyAB-only feature of the cfg as "file:line: what", or "" when it has none.
std::string first_alexeyab_feature(const CfgFile& cfg);

}  // namespace mdfi
