// Compiles a stretch of source for a wider x86 target than the binary's baseline (the kernel is
// then chosen at run time by CPU features). GCC and clang spell this differently; these two macros
// spell it once:
//   MDFI_TARGET_BEGIN("avx2,fma")
//   namespace k_avx2 { ... }
//   MDFI_TARGET_END()
#pragma once

#define MDFI_PRAGMA_(...) _Pragma(#__VA_ARGS__)
#if defined(__clang__)
#define MDFI_TARGET_BEGIN(features) \
  MDFI_PRAGMA_(clang attribute push(__attribute__((target(features))), apply_to = function))
#define MDFI_TARGET_END() MDFI_PRAGMA_(clang attribute pop)
#else
#define MDFI_TARGET_BEGIN(features) MDFI_PRAGMA_(GCC push_options) MDFI_PRAGMA_(GCC target(features))
#define MDFI_TARGET_END() MDFI_PRAGMA_(GCC pop_options)
#endif
