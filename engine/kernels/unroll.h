// MDFI_UNROLL before a loop over a micro-kernel's accumulators: their count is fixed, and only a
// fully unrolled loop keeps each accumulator in its own register (a rolled one spills them to the
// stack). GCC and clang spell the pragma differently.
#pragma once

#if defined(__clang__)
#define MDFI_UNROLL _Pragma("unroll")
#else
#define MDFI_UNROLL _Pragma("GCC unroll 8")
#endif
