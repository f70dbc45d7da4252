#include "resident_weights.h"

namespace mdfi {

const std::vector<Buffer>* ResidentWeights::find(int layer) const {
  auto it = kept_.find(layer);
  return it == kept_.end() ? nullptr : &it->second;
}

void ResidentWeights::store(int layer, std::vector<Buffer> buffers) { kept_[layer] = std::move(buffers); }

size_t kept_weights_floats(const Network& net) {
  size_t total = 0;
  for (const auto& l : net.layers) total += l->kept_param_floats();
  return total;
}

}  // namespace mdfi
