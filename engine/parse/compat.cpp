#include "compat.h"

#include "activation.h"
#include "layer_registry.h"

namespace mdfi {
namespace {

// A key only AlexeyAB reads: one its section's registration names, or one that marks a cfg as
// AlexeyAB's in whatever section it stands. The lists live with the layers (layer_registry.h).
bool alexeyab_key(const LayerRegistration* section, const std::string& key) {
  if (section)
    for (const char* k : section->alexeyab_keys)
      if (key == k) return true;
  auto anywhere = [&key](const LayerRegistration& r) {
    for (const char* k : r.alexeyab_keys_anywhere)
      if (key == k) return true;
    return false;
  };
  if (anywhere(net_registration())) return true;
  for (const LayerRegistration& r : registered_layers())
    if (anywhere(r)) return true;
  return false;
}

}  // namespace

bool parse_compat(const std::string& name, Compat* out) {
  if (name == "pjreddie") *out = Compat::kPjreddie;
  else if (name == "alexeyab") *out = Compat::kAlexeyAB;
  else if (name == "auto") *out = Compat::kAuto;
  else return false;
  return true;
}

std::string first_alexeyab_feature(const CfgFile& cfg) {
  for (const CfgSection& sec : cfg.sections) {
    const std::string where = cfg.path + ":" + std::to_string(sec.line);
    const LayerRegistration* reg = find_registration(sec.name);
    if (reg && reg->alexeyab_section) return where + ": section [" + sec.raw_name + "]";
    for (const CfgOption& opt : sec.options) {
      const std::string at = cfg.path + ":" + std::to_string(opt.line);
      if (alexeyab_key(reg, opt.key)) return at + ": key '" + opt.key + "' in [" + sec.raw_name + "]";
      Activation a;
      if (opt.key == "activation" && parse_activation(opt.value, &a) && is_alexeyab_activation(a))
        return at + ": activation '" + opt.value + "'";
    }
  }
  return "";
}

CompatChoice resolve_compat(const CfgFile& cfg, Compat requested) {
  CompatChoice c;
  if (requested != Compat::kAuto) {
    c.compat = requested;
    c.reason = std::string("--compat ") + to_string(requested) + " was given";
    return c;
  }
  const std::string feature = first_alexeyab_feature(cfg);
  if (feature.empty()) {
    c.compat = Compat::kPjreddie;
    c.reason = "auto: the cfg uses nothing AlexeyAB-only, so pjreddie Darknet semantics";
  } else {
    c.compat = Compat::kAlexeyAB;
    c.reason = "auto: " + feature + " is AlexeyAB Darknet only, so its semantics";
  }
  return c;
}

}  // namespace mdfi
