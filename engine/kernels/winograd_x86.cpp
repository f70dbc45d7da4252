// Winograd's per-tile work compiled for AVX2 and for AVX-512 (the binary's baseline is plain
// x86-64): the same source, winograd_tiles.inc, under each target, chosen at run time.
#if defined(__x86_64__) || defined(__i386__)
#include <algorithm>
#include <cstring>

#include "winograd.h"

namespace mdfi::kernels {

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif
namespace wino_avx2 {
#include "winograd_tiles.inc"
}  // namespace wino_avx2
#if defined(__clang__)
#pragma clang attribute pop
#pragma clang attribute push(__attribute__((target("avx512f"))), apply_to = function)
#else
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx512f")
#endif
namespace wino_avx512 {
#include "winograd_tiles.inc"
}  // namespace wino_avx512
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

WinogradOps winograd_ops_avx2() {
  return {"avx2", &wino_avx2::input_panel, &wino_avx2::output_panel, &wino_avx2::weights_panel};
}
WinogradOps winograd_ops_avx512() {
  return {"avx512", &wino_avx512::input_panel, &wino_avx512::output_panel, &wino_avx512::weights_panel};
}

}  // namespace mdfi::kernels
#endif
