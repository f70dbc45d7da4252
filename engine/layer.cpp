#include "layer.h"

namespace mdfi {

const char* to_string(Compat c) {
  switch (c) {
    case Compat::kPjreddie: return "pjreddie";
    case Compat::kAlexeyAB: return "alexeyab";
    case Compat::kAuto: return "auto";
  }
  return "?";
}

Result<Buffer> load_params(LayerIO& io, size_t offset, size_t count, const char* what) {
  Result<Buffer> b = Buffer::make(*io.mem, count, MemCategory::kWeights, what);
  if (!b.ok()) return b;
  Status st = io.params->read(offset, b->data(), count);
  if (!st.ok()) return st;
  return b;
}

std::string layer_error(const BuildContext& ctx, const char* kind, const std::string& msg) {
  return ctx.where + ": layer " + std::to_string(ctx.index) + " [" + kind + "]: " + msg;
}

Status Layer::forward_rows(RowStep&) const {
  return Status(ErrorKind::kInternal, "layer " + std::to_string(index) + " [" + kind() + "] cannot run in bands");
}

}  // namespace mdfi
