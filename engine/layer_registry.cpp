#include "layer_registry.h"

#include <cstring>

#include "layer_registrations.h"  // generated: MDFI_LAYER_REGISTRATIONS
#include "layers/layer_list.h"

namespace mdfi {

#define MDFI_DECLARE_REGISTRATION(name) LayerRegistration register_##name();
MDFI_LAYER_LIST(MDFI_DECLARE_REGISTRATION)
#undef MDFI_DECLARE_REGISTRATION

namespace {
#define MDFI_COUNT_ONE(name) +1
constexpr int kListed = 0 MDFI_LAYER_LIST(MDFI_COUNT_ONE);
#undef MDFI_COUNT_ONE
}  // namespace

// engine/CMakeLists.txt counts the `LayerRegistration register_<name>()` definitions in
// engine/layers/*.cpp. A layer source whose registration layer_list.h does not name would
// otherwise be silently unreachable (and its object file dropped by the static link).
static_assert(kListed == MDFI_LAYER_REGISTRATIONS,
              "engine/layers/layer_list.h must name every register_<name>() defined in engine/layers/*.cpp");

const std::vector<LayerRegistration>& registered_layers() {
  // Explicit calls: each one references its layer's object file, so a static link keeps them all.
#define MDFI_CALL_REGISTRATION(name) register_##name(),
  static const std::vector<LayerRegistration> all = {MDFI_LAYER_LIST(MDFI_CALL_REGISTRATION)};
#undef MDFI_CALL_REGISTRATION
  return all;
}

const LayerRegistration* find_registration(const std::string& section) {
  if (section == net_registration().section) return &net_registration();
  for (const LayerRegistration& r : registered_layers())
    if (section == r.section) return &r;
  return nullptr;
}

}  // namespace mdfi
