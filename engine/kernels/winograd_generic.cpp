// Winograd's per-tile work as portable C++ (the compiler vectorises it for the build's target).
#include <algorithm>
#include <cstring>

#include "winograd.h"

namespace mdfi::kernels {
namespace wino_generic {
#include "winograd_tiles.inc"
}  // namespace wino_generic

WinogradOps winograd_ops_generic() {
  return {"generic", &wino_generic::input_panel, &wino_generic::output_panel, &wino_generic::weights_panel};
}

}  // namespace mdfi::kernels
