// NEON micro-kernels for the Raspberry Pi targets: 8x12 on aarch64 (32 vector registers: 24
// accumulators + 3 for B + 2 for A) and 8x4 on 32-bit ARMv7 (16 quad registers: 8 accumulators
// + 1 for B + 2 for A; an 8x8 tile would need all 16 for accumulators and spill).
// NEON is always present on aarch64 and enabled by the armhf toolchain's -mfpu=neon-vfpv4, so
// this file needs no per-function target attributes and is compiled only for ARM.
#if defined(__ARM_NEON) || defined(__aarch64__)
#include <arm_neon.h>

#include "leaky_fast.h"
#include "microkernel.h"
#include "unroll.h"

namespace mdfi::kernels {

#if defined(__aarch64__)

static constexpr int kNR = 12;

// The products run in assembly: the 24 accumulators of the 8x12 tile live in v8-v31 (row i,
// columns 4j..4j+3 in v(8 + 3i + j), so a row is three consecutive registers and the tile 24),
// A and B pass through v0-v7. Per two k steps one LD1 of four vectors brings both steps' A, one
// of four the first step's B and a vector of the second's, one of two the rest: 3 loads and 48
// FMLA, and SUBS/B.NE once per four steps: 26 instructions a step where the compiled
// intrinsics took 31 (LDP/LDR and both pointer updates every step); unrolled intrinsics need
// 24 + 10 vector registers and GCC spilled them, and an asm statement cannot take 24 in-out
// vector operands (30 at most), hence the fixed registers. Each accumulator still takes its k
// steps in order through the same FMLA (fused, as vfmaq_laneq_f32 was): bit-identical results.
#define MDFI_ROW3(r0, r1, r2, b0, b1, b2, a)  \
  "fmla " r0 ".4s, " b0 ".4s, " a "\n\t"      \
  "fmla " r1 ".4s, " b1 ".4s, " a "\n\t"      \
  "fmla " r2 ".4s, " b2 ".4s, " a "\n\t"
#define MDFI_STEP(b0, b1, b2, alo, ahi)                               \
  MDFI_ROW3("v8", "v9", "v10", b0, b1, b2, alo ".s[0]")               \
  MDFI_ROW3("v11", "v12", "v13", b0, b1, b2, alo ".s[1]")             \
  MDFI_ROW3("v14", "v15", "v16", b0, b1, b2, alo ".s[2]")             \
  MDFI_ROW3("v17", "v18", "v19", b0, b1, b2, alo ".s[3]")             \
  MDFI_ROW3("v20", "v21", "v22", b0, b1, b2, ahi ".s[0]")             \
  MDFI_ROW3("v23", "v24", "v25", b0, b1, b2, ahi ".s[1]")             \
  MDFI_ROW3("v26", "v27", "v28", b0, b1, b2, ahi ".s[2]")             \
  MDFI_ROW3("v29", "v30", "v31", b0, b1, b2, ahi ".s[3]")
// Two k steps: 3 loads, 48 FMLA.
#define MDFI_PAIR                                                                                      \
  "ld1 {v0.4s, v1.4s, v2.4s, v3.4s}, [%[a]], #64\n\t"                                                  \
  "ld1 {v4.4s, v5.4s, v6.4s, v7.4s}, [%[b]], #64\n\t"                                                  \
  MDFI_STEP("v4", "v5", "v6", "v0", "v1")                                                              \
  "ld1 {v4.4s, v5.4s}, [%[b]], #32\n\t"                                                                \
  MDFI_STEP("v7", "v4", "v5", "v2", "v3")
// From zero: kc steps (quads = kc / 4 iterations of two pairs, then a pair if kc % 4 >= 2, then
// the odd step), tile in v8-v31. Four steps an iteration: the loop's SUBS/B.NE once per 96 FMLA.
#define MDFI_PRODUCTS_OF(PAIR)                                                                         \
  "movi v8.4s, #0\n\t movi v9.4s, #0\n\t movi v10.4s, #0\n\t movi v11.4s, #0\n\t"                      \
  "movi v12.4s, #0\n\t movi v13.4s, #0\n\t movi v14.4s, #0\n\t movi v15.4s, #0\n\t"                    \
  "movi v16.4s, #0\n\t movi v17.4s, #0\n\t movi v18.4s, #0\n\t movi v19.4s, #0\n\t"                    \
  "movi v20.4s, #0\n\t movi v21.4s, #0\n\t movi v22.4s, #0\n\t movi v23.4s, #0\n\t"                    \
  "movi v24.4s, #0\n\t movi v25.4s, #0\n\t movi v26.4s, #0\n\t movi v27.4s, #0\n\t"                    \
  "movi v28.4s, #0\n\t movi v29.4s, #0\n\t movi v30.4s, #0\n\t movi v31.4s, #0\n\t"                    \
  "cbz %w[quads], 4f\n"                                                                                \
  "1:\n\t"                                                                                             \
  PAIR                                                                                                 \
  PAIR                                                                                                 \
  "subs %w[quads], %w[quads], #1\n\t"                                                                  \
  "b.ne 1b\n"                                                                                          \
  "4:\n\t"                                                                                             \
  "cbz %w[pair], 2f\n\t"                                                                               \
  PAIR                                                                                                 \
  "2:\n\t"                                                                                             \
  "cbz %w[odd], 3f\n\t"                                                                                \
  "ld1 {v0.4s, v1.4s}, [%[a]]\n\t"                                                                     \
  "ld1 {v4.4s, v5.4s, v6.4s}, [%[b]]\n\t"                                                              \
  MDFI_STEP("v4", "v5", "v6", "v0", "v1")                                                              \
  "3:\n\t"
#define MDFI_PRODUCTS MDFI_PRODUCTS_OF(MDFI_PAIR)
// B read where it lies (a 1x1 convolution's input, rows `ldb` bytes apart): per two k steps one
// LD1 of four vectors for both steps' A and one of three for each step's B, post-indexed by the
// row stride: the same 3 loads and 48 FMLA as the packed loop, and B is never copied.
#define MDFI_STRIDED_PAIR                                                                              \
  "ld1 {v0.4s, v1.4s, v2.4s, v3.4s}, [%[a]], #64\n\t"                                                  \
  "ld1 {v4.4s, v5.4s, v6.4s}, [%[b]], %[ldb]\n\t"                                                      \
  MDFI_STEP("v4", "v5", "v6", "v0", "v1")                                                              \
  "ld1 {v4.4s, v5.4s, v6.4s}, [%[b]], %[ldb]\n\t"                                                      \
  MDFI_STEP("v4", "v5", "v6", "v2", "v3")
#define MDFI_TILE_CLOBBERS                                                                             \
  "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13", "v14", "v15", \
      "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28", "v29", \
      "v30", "v31", "cc", "memory"

// C = A*B for the plain (not finishing, first) block: each row's three registers straight to C.
static void products_to_c(int kc, const float* a, const float* b, float* c, int ldc) {
  int quads = kc / 4;
  const int pair = kc / 2 % 2, odd = kc % 2;
  const long ld = long(ldc) * long(sizeof(float));
  asm volatile(MDFI_PRODUCTS
               "st1 {v8.4s, v9.4s, v10.4s}, [%[c]], %[ld]\n\t"
               "st1 {v11.4s, v12.4s, v13.4s}, [%[c]], %[ld]\n\t"
               "st1 {v14.4s, v15.4s, v16.4s}, [%[c]], %[ld]\n\t"
               "st1 {v17.4s, v18.4s, v19.4s}, [%[c]], %[ld]\n\t"
               "st1 {v20.4s, v21.4s, v22.4s}, [%[c]], %[ld]\n\t"
               "st1 {v23.4s, v24.4s, v25.4s}, [%[c]], %[ld]\n\t"
               "st1 {v26.4s, v27.4s, v28.4s}, [%[c]], %[ld]\n\t"
               "st1 {v29.4s, v30.4s, v31.4s}, [%[c]]\n\t"
               : [a] "+r"(a), [b] "+r"(b), [quads] "+r"(quads), [c] "+r"(c)
               : [pair] "r"(pair), [odd] "r"(odd), [ld] "r"(ld)
               : MDFI_TILE_CLOBBERS);
}

// A*B into `tile` (8 rows of 12, row-major: the registers in order, six stores).
static void products_to_tile(int kc, const float* a, const float* b, float* tile) {
  int quads = kc / 4;
  const int pair = kc / 2 % 2, odd = kc % 2;
  asm volatile(MDFI_PRODUCTS
               "st1 {v8.4s, v9.4s, v10.4s, v11.4s}, [%[t]], #64\n\t"
               "st1 {v12.4s, v13.4s, v14.4s, v15.4s}, [%[t]], #64\n\t"
               "st1 {v16.4s, v17.4s, v18.4s, v19.4s}, [%[t]], #64\n\t"
               "st1 {v20.4s, v21.4s, v22.4s, v23.4s}, [%[t]], #64\n\t"
               "st1 {v24.4s, v25.4s, v26.4s, v27.4s}, [%[t]], #64\n\t"
               "st1 {v28.4s, v29.4s, v30.4s, v31.4s}, [%[t]]\n\t"
               : [a] "+r"(a), [b] "+r"(b), [quads] "+r"(quads), [t] "+r"(tile)
               : [pair] "r"(pair), [odd] "r"(odd)
               : MDFI_TILE_CLOBBERS);
}
// products_to_c and products_to_tile with B read in place.
static void strided_to_c(int kc, const float* a, const float* b, long ldb, float* c, int ldc) {
  int quads = kc / 4;
  const int pair = kc / 2 % 2, odd = kc % 2;
  const long ld = long(ldc) * long(sizeof(float));
  asm volatile(MDFI_PRODUCTS_OF(MDFI_STRIDED_PAIR)
               "st1 {v8.4s, v9.4s, v10.4s}, [%[c]], %[ld]\n\t"
               "st1 {v11.4s, v12.4s, v13.4s}, [%[c]], %[ld]\n\t"
               "st1 {v14.4s, v15.4s, v16.4s}, [%[c]], %[ld]\n\t"
               "st1 {v17.4s, v18.4s, v19.4s}, [%[c]], %[ld]\n\t"
               "st1 {v20.4s, v21.4s, v22.4s}, [%[c]], %[ld]\n\t"
               "st1 {v23.4s, v24.4s, v25.4s}, [%[c]], %[ld]\n\t"
               "st1 {v26.4s, v27.4s, v28.4s}, [%[c]], %[ld]\n\t"
               "st1 {v29.4s, v30.4s, v31.4s}, [%[c]]\n\t"
               : [a] "+r"(a), [b] "+r"(b), [quads] "+r"(quads), [c] "+r"(c)
               : [pair] "r"(pair), [odd] "r"(odd), [ld] "r"(ld), [ldb] "r"(ldb)
               : MDFI_TILE_CLOBBERS);
}

static void strided_to_tile(int kc, const float* a, const float* b, long ldb, float* tile) {
  int quads = kc / 4;
  const int pair = kc / 2 % 2, odd = kc % 2;
  asm volatile(MDFI_PRODUCTS_OF(MDFI_STRIDED_PAIR)
               "st1 {v8.4s, v9.4s, v10.4s, v11.4s}, [%[t]], #64\n\t"
               "st1 {v12.4s, v13.4s, v14.4s, v15.4s}, [%[t]], #64\n\t"
               "st1 {v16.4s, v17.4s, v18.4s, v19.4s}, [%[t]], #64\n\t"
               "st1 {v20.4s, v21.4s, v22.4s, v23.4s}, [%[t]], #64\n\t"
               "st1 {v24.4s, v25.4s, v26.4s, v27.4s}, [%[t]], #64\n\t"
               "st1 {v28.4s, v29.4s, v30.4s, v31.4s}, [%[t]]\n\t"
               : [a] "+r"(a), [b] "+r"(b), [quads] "+r"(quads), [t] "+r"(tile)
               : [pair] "r"(pair), [odd] "r"(odd), [ldb] "r"(ldb)
               : MDFI_TILE_CLOBBERS);
}
// The finishing epilogue of a first (whole-K) block in the same asm statement, so the tile never
// goes through memory: bias[i] added to row i (DUP of its lane, three FADD), then for leaky
// Darknet's double product per vector (FCMGT; FCVTL/FCVTL2, FMUL by 0.1 in double lanes,
// FCVTN/FCVTN2; BIF keeps the positive lanes), for relu the product by 1 or 0: finish_vec's
// operations in its order, so the same bits. The tile path had stored the 24 registers, reloaded them and applied finish_vec.
#define MDFI_BIAS_ROW(r0, r1, r2, lane)                                                                \
  "dup v0.4s, " lane "\n\t"                                                                           \
  "fadd " r0 ".4s, " r0 ".4s, v0.4s\n\t"                                                               \
  "fadd " r1 ".4s, " r1 ".4s, v0.4s\n\t"                                                               \
  "fadd " r2 ".4s, " r2 ".4s, v0.4s\n\t"
#define MDFI_ADD_BIAS                                                                                  \
  "ld1 {v6.4s, v7.4s}, [%[bias]]\n\t"                                                                  \
  MDFI_BIAS_ROW("v8", "v9", "v10", "v6.s[0]") MDFI_BIAS_ROW("v11", "v12", "v13", "v6.s[1]")             \
  MDFI_BIAS_ROW("v14", "v15", "v16", "v6.s[2]") MDFI_BIAS_ROW("v17", "v18", "v19", "v6.s[3]")           \
  MDFI_BIAS_ROW("v20", "v21", "v22", "v7.s[0]") MDFI_BIAS_ROW("v23", "v24", "v25", "v7.s[1]")           \
  MDFI_BIAS_ROW("v26", "v27", "v28", "v7.s[2]") MDFI_BIAS_ROW("v29", "v30", "v31", "v7.s[3]")
#define MDFI_LEAKY1(r)                                                                                 \
  "fcmgt v1.4s, " r ".4s, #0.0\n\t"                                                                    \
  "fcvtl v2.2d, " r ".2s\n\t"                                                                          \
  "fcvtl2 v3.2d, " r ".4s\n\t"                                                                         \
  "fmul v2.2d, v2.2d, v5.2d\n\t"                                                                       \
  "fmul v3.2d, v3.2d, v5.2d\n\t"                                                                       \
  "fcvtn v4.2s, v2.2d\n\t"                                                                             \
  "fcvtn2 v4.4s, v3.2d\n\t"                                                                            \
  "bif " r ".16b, v4.16b, v1.16b\n\t"
#define MDFI_LEAKY3(r0, r1, r2) MDFI_LEAKY1(r0) MDFI_LEAKY1(r1) MDFI_LEAKY1(r2)
#define MDFI_LEAKY_ALL                                                                                 \
  "ld1 {v5.2d}, [%[tenth]]\n\t"                                                                        \
  MDFI_LEAKY3("v8", "v9", "v10") MDFI_LEAKY3("v11", "v12", "v13") MDFI_LEAKY3("v14", "v15", "v16")      \
  MDFI_LEAKY3("v17", "v18", "v19") MDFI_LEAKY3("v20", "v21", "v22") MDFI_LEAKY3("v23", "v24", "v25")    \
  MDFI_LEAKY3("v26", "v27", "v28") MDFI_LEAKY3("v29", "v30", "v31")
// The same bits by leaky_fast.h (FMUL by kLo, FMLA by kHi, FMAX: 4 instructions a vector with
// the SMIN of its range test, where the double lanes take 8); %[minb] receives the signed minimum
// of the tile's bits, and finish_to_c redoes the tile with MDFI_LEAKY_ALL when it is out of range.
#define MDFI_LEAKY_FAST1(r)                                                                            \
  "fmul v1.4s, " r ".4s, v6.4s\n\t"                                                                    \
  "fmla v1.4s, " r ".4s, v5.4s\n\t"                                                                    \
  "smin v0.4s, v0.4s, " r ".4s\n\t"                                                                    \
  "fmax " r ".4s, " r ".4s, v1.4s\n\t"
#define MDFI_LEAKY_FAST3(r0, r1, r2) MDFI_LEAKY_FAST1(r0) MDFI_LEAKY_FAST1(r1) MDFI_LEAKY_FAST1(r2)
#define MDFI_LEAKY_FAST_ALL                                                                            \
  "ld1 {v5.4s, v6.4s}, [%[hilo]]\n\t"                                                                  \
  "mvni v0.4s, #0x80, lsl #24\n\t"                                                                     \
  MDFI_LEAKY_FAST3("v8", "v9", "v10") MDFI_LEAKY_FAST3("v11", "v12", "v13")                             \
  MDFI_LEAKY_FAST3("v14", "v15", "v16") MDFI_LEAKY_FAST3("v17", "v18", "v19")                           \
  MDFI_LEAKY_FAST3("v20", "v21", "v22") MDFI_LEAKY_FAST3("v23", "v24", "v25")                           \
  MDFI_LEAKY_FAST3("v26", "v27", "v28") MDFI_LEAKY_FAST3("v29", "v30", "v31")                           \
  "sminv s0, v0.4s\n\t"                                                                                \
  "fmov %w[minb], s0\n\t"
// relu: x * (x > 0 ? 1 : 0), Darknet's product (keeps -0 and NaN as finish_vec does).
#define MDFI_RELU1(r)                                                                                  \
  "fcmgt v1.4s, " r ".4s, #0.0\n\t"                                                                    \
  "and v1.16b, v1.16b, v5.16b\n\t"                                                                     \
  "fmul " r ".4s, " r ".4s, v1.4s\n\t"
#define MDFI_RELU3(r0, r1, r2) MDFI_RELU1(r0) MDFI_RELU1(r1) MDFI_RELU1(r2)
#define MDFI_RELU_ALL                                                                                  \
  "fmov v5.4s, #1.0\n\t"                                                                               \
  MDFI_RELU3("v8", "v9", "v10") MDFI_RELU3("v11", "v12", "v13") MDFI_RELU3("v14", "v15", "v16")         \
  MDFI_RELU3("v17", "v18", "v19") MDFI_RELU3("v20", "v21", "v22") MDFI_RELU3("v23", "v24", "v25")       \
  MDFI_RELU3("v26", "v27", "v28") MDFI_RELU3("v29", "v30", "v31")
#define MDFI_STORE_C                                                                                   \
  "st1 {v8.4s, v9.4s, v10.4s}, [%[c]], %[ld]\n\t"                                                      \
  "st1 {v11.4s, v12.4s, v13.4s}, [%[c]], %[ld]\n\t"                                                    \
  "st1 {v14.4s, v15.4s, v16.4s}, [%[c]], %[ld]\n\t"                                                    \
  "st1 {v17.4s, v18.4s, v19.4s}, [%[c]], %[ld]\n\t"                                                    \
  "st1 {v20.4s, v21.4s, v22.4s}, [%[c]], %[ld]\n\t"                                                    \
  "st1 {v23.4s, v24.4s, v25.4s}, [%[c]], %[ld]\n\t"                                                    \
  "st1 {v26.4s, v27.4s, v28.4s}, [%[c]], %[ld]\n\t"                                                    \
  "st1 {v29.4s, v30.4s, v31.4s}, [%[c]]\n\t"
#define MDFI_FINISH_ASM(PRODUCTS, EPILOGUE)                                                            \
  asm volatile(PRODUCTS MDFI_ADD_BIAS EPILOGUE MDFI_STORE_C                                            \
               : [a] "+r"(a), [b] "+r"(b), [quads] "+r"(quads), [c] "+r"(c), [minb] "=&r"(minb)       \
               : [pair] "r"(pair), [odd] "r"(odd), [ld] "r"(ld), [ldb] "r"(ldb), [bias] "r"(bias),     \
                 [tenth] "r"(kTenth), [hilo] "r"(kHiLo)                                                \
               : MDFI_TILE_CLOBBERS)

// C = A*B + bias, then `act`, for a first block; B packed (ldb unused) or strided.
template <bool kStrided, TileAct kAct>
static void finish_to_c(int kc, const float* a, const float* b, long ldb, float* c, int ldc, const float* bias) {
  alignas(16) static const double kTenth[2] = {.1, .1};
  alignas(16) static const float kHiLo[8] = {leaky_fast::kHi, leaky_fast::kHi, leaky_fast::kHi, leaky_fast::kHi,
                                             leaky_fast::kLo, leaky_fast::kLo, leaky_fast::kLo, leaky_fast::kLo};
  alignas(16) static const float kZero[kMR] = {};
  if (!bias) bias = kZero;  // finish_vec adds +0 then too (a -0 sum becomes +0)
  int quads = kc / 4;
  const int pair = kc / 2 % 2, odd = kc % 2;
  const long ld = long(ldc) * long(sizeof(float));
  int minb = 0;
  constexpr bool kLeaky = kAct == TileAct::kLeaky, kRelu = kAct == TileAct::kRelu;
  if constexpr (kLeaky) {
    const float *a0 = a, *b0 = b;
    float* c0 = c;
    const int quads0 = quads;
    if constexpr (kStrided) MDFI_FINISH_ASM(MDFI_PRODUCTS_OF(MDFI_STRIDED_PAIR), MDFI_LEAKY_FAST_ALL);
    else MDFI_FINISH_ASM(MDFI_PRODUCTS, MDFI_LEAKY_FAST_ALL);
    if (leaky_fast::exact(minb)) return;
    // A value below leaky_fast's range: the whole tile again, with the double lanes.
    a = a0, b = b0, c = c0, quads = quads0;
    if constexpr (kStrided) MDFI_FINISH_ASM(MDFI_PRODUCTS_OF(MDFI_STRIDED_PAIR), MDFI_LEAKY_ALL);
    else MDFI_FINISH_ASM(MDFI_PRODUCTS, MDFI_LEAKY_ALL);
  } else if constexpr (kStrided && kRelu) {
    MDFI_FINISH_ASM(MDFI_PRODUCTS_OF(MDFI_STRIDED_PAIR), MDFI_RELU_ALL);
  } else if constexpr (kStrided) {
    MDFI_FINISH_ASM(MDFI_PRODUCTS_OF(MDFI_STRIDED_PAIR), "");
  } else if constexpr (kRelu) {
    MDFI_FINISH_ASM(MDFI_PRODUCTS, MDFI_RELU_ALL);
  } else {
    MDFI_FINISH_ASM(MDFI_PRODUCTS, "");
  }
  (void)minb;
}

// finish_to_c for whichever activation `act` is.
template <bool kStrided>
static void finish_any(int kc, const float* a, const float* b, long ldb, float* c, int ldc, const float* bias,
                       TileAct act) {
  if (act == TileAct::kLeaky) finish_to_c<kStrided, TileAct::kLeaky>(kc, a, b, ldb, c, ldc, bias);
  else if (act == TileAct::kRelu) finish_to_c<kStrided, TileAct::kRelu>(kc, a, b, ldb, c, ldc, bias);
  else finish_to_c<kStrided, TileAct::kLinear>(kc, a, b, ldb, c, ldc, bias);
}
#undef MDFI_FINISH_ASM
#undef MDFI_STORE_C
#undef MDFI_RELU_ALL
#undef MDFI_RELU3
#undef MDFI_RELU1
#undef MDFI_LEAKY_FAST_ALL
#undef MDFI_LEAKY_FAST3
#undef MDFI_LEAKY_FAST1
#undef MDFI_LEAKY_ALL
#undef MDFI_LEAKY3
#undef MDFI_LEAKY1
#undef MDFI_ADD_BIAS
#undef MDFI_BIAS_ROW
#undef MDFI_STRIDED_PAIR
#undef MDFI_PRODUCTS_OF
#undef MDFI_TILE_CLOBBERS
#undef MDFI_PRODUCTS
#undef MDFI_PAIR
#undef MDFI_STEP
#undef MDFI_ROW3

// Bias and activation on a finished vector, in registers, with Darknet's arithmetic: leaky's
// .1 * x is a double product there, so the lanes are widened to double, scaled and rounded back
// (bit-identical to activate()); relu multiplies by 1 or 0 as Darknet does (keeps -0 and NaN).
static inline float32x4_t finish_vec(float32x4_t v, float32x4_t bias, TileAct act) {
  v = vaddq_f32(v, bias);
  if (act == TileAct::kLinear) return v;
  const uint32x4_t positive = vcgtq_f32(v, vdupq_n_f32(0.f));
  if (act == TileAct::kRelu)
    return vmulq_f32(v, vreinterpretq_f32_u32(vandq_u32(positive, vreinterpretq_u32_f32(vdupq_n_f32(1.f)))));
  const float64x2_t tenth = vdupq_n_f64(.1);
  const float32x2_t lo = vcvt_f32_f64(vmulq_f64(vcvt_f64_f32(vget_low_f32(v)), tenth));
  return vbslq_f32(positive, v, vcvt_high_f32_f64(lo, vmulq_f64(vcvt_high_f64_f32(v), tenth)));
}

// kFinish: the last K block; bias (may be null) and act are applied before the store, so the
// tile is written once (a separate bias pass and activate_array() had cost more instructions
// than the multiply-adds on the thin layers of Yolo-Fastest and MobileNet).
template <bool kFinish>
static inline void tile_out(const float* tile, float* c, int ldc, int first, const float* bias, TileAct act) {
  float32x4_t c0[kMR], c1[kMR], c2[kMR];
  MDFI_UNROLL for (int i = 0; i < kMR; ++i) {
    c0[i] = vld1q_f32(tile + i * kNR);
    c1[i] = vld1q_f32(tile + i * kNR + 4);
    c2[i] = vld1q_f32(tile + i * kNR + 8);
  }
  MDFI_UNROLL for (int i = 0; i < kMR; ++i) {
    float* ci = c + i * ldc;
    if (!first) {
      c0[i] = vaddq_f32(c0[i], vld1q_f32(ci));
      c1[i] = vaddq_f32(c1[i], vld1q_f32(ci + 4));
      c2[i] = vaddq_f32(c2[i], vld1q_f32(ci + 8));
    }
    if (kFinish) {
      const float32x4_t bv = vdupq_n_f32(bias ? bias[i] : 0.f);
      c0[i] = finish_vec(c0[i], bv, act);
      c1[i] = finish_vec(c1[i], bv, act);
      c2[i] = finish_vec(c2[i], bv, act);
    }
    vst1q_f32(ci, c0[i]);
    vst1q_f32(ci + 4, c1[i]);
    vst1q_f32(ci + 8, c2[i]);
  }
}

template <bool kFinish>
static void kernel_neon(int kc, const float* a, const float* b, float* c, int ldc, int first, const float* bias,
                        TileAct act) {
  if (!kFinish && first) return products_to_c(kc, a, b, c, ldc);
  if (kFinish && first) return finish_any<false>(kc, a, b, 0, c, ldc, bias, act);
  alignas(16) float tile[kMR * kNR];
  products_to_tile(kc, a, b, tile);
  tile_out<kFinish>(tile, c, ldc, first, bias, act);
}

// StridedKernel: kernel_neon with B's rows `ldb` floats apart.
static void strided_neon(int kc, const float* a, const float* b, int ldb, float* c, int ldc, int first, bool finish,
                         const float* bias, TileAct act) {
  const long lb = long(ldb) * long(sizeof(float));
  if (!finish && first) return strided_to_c(kc, a, b, lb, c, ldc);
  if (finish && first) return finish_any<true>(kc, a, b, lb, c, ldc, bias, act);
  alignas(16) float tile[kMR * kNR];
  strided_to_tile(kc, a, b, lb, tile);
  if (finish) tile_out<true>(tile, c, ldc, first, bias, act);
  else tile_out<false>(tile, c, ldc, first, bias, act);
}

// NarrowKernel: the panel's first `cols` columns from B rows kNR apart. One column: the eight
// rows' accumulators in two vectors, B's value broadcast; two to four: an 8x4 tile. Each
// accumulator starts at +0 and takes the same fused multiply-adds in k order as the 8x12 tile's
// (a * b and b * a are the same product): the same bits in the columns that matter.
static void narrow_neon(int kc, const float* a, const float* b, float* c, int ldc, int cols) {
  if (cols > 4) return products_to_c(kc, a, b, c, ldc);
  if (cols == 1) {
    // Four k steps an iteration: two LD1 of four vectors for A, B's four values by LDR with
    // offsets, FMLA by element.
    float32x4_t lo = vdupq_n_f32(0.f), hi = vdupq_n_f32(0.f);
    int k = 0;
    for (; k + 4 <= kc; k += 4, a += 4 * kMR, b += 4 * kNR) {
      const float32x4x4_t a01 = vld1q_f32_x4(a), a23 = vld1q_f32_x4(a + 2 * kMR);
      const float b0 = b[0], b1 = b[kNR], b2 = b[2 * kNR], b3 = b[3 * kNR];
      lo = vfmaq_n_f32(lo, a01.val[0], b0);
      hi = vfmaq_n_f32(hi, a01.val[1], b0);
      lo = vfmaq_n_f32(lo, a01.val[2], b1);
      hi = vfmaq_n_f32(hi, a01.val[3], b1);
      lo = vfmaq_n_f32(lo, a23.val[0], b2);
      hi = vfmaq_n_f32(hi, a23.val[1], b2);
      lo = vfmaq_n_f32(lo, a23.val[2], b3);
      hi = vfmaq_n_f32(hi, a23.val[3], b3);
    }
    for (; k < kc; ++k, a += kMR, b += kNR) {
      lo = vfmaq_n_f32(lo, vld1q_f32(a), b[0]);
      hi = vfmaq_n_f32(hi, vld1q_f32(a + 4), b[0]);
    }
    c[0] = vgetq_lane_f32(lo, 0), c[ldc] = vgetq_lane_f32(lo, 1), c[2 * ldc] = vgetq_lane_f32(lo, 2);
    c[3 * ldc] = vgetq_lane_f32(lo, 3), c[4 * ldc] = vgetq_lane_f32(hi, 0), c[5 * ldc] = vgetq_lane_f32(hi, 1);
    c[6 * ldc] = vgetq_lane_f32(hi, 2), c[7 * ldc] = vgetq_lane_f32(hi, 3);
    return;
  }
  // Two to four columns: an 8x4 tile, four k steps an iteration in assembly (two LD1 of four
  // vectors bring their A, four LDR their B): 6 loads, 32 FMLA, one pointer update and the loop's
  // SUBS/B.NE, where one step at a time took 3 loads and 8 FMLA plus the loop every step (and
  // intrinsics unrolled by four gained register moves). F(4x4) on a 13x13 map has 16 tiles, a
  // 12-wide panel and 4 here, for all 36 planes: this loop was 12% of yolov3-tiny's instructions
  // with kept weights. Each accumulator takes its k steps in order, fused, as before.
  float32x4_t acc[kMR];
  MDFI_UNROLL for (int i = 0; i < kMR; ++i) acc[i] = vdupq_n_f32(0.f);
  if (int quads = kc / 4) {
#define MDFI_NARROW_STEP(bv, alo, ahi)                                              \
  "fmla %[c0].4s, " bv ".4s, " alo ".s[0]\n\t fmla %[c1].4s, " bv ".4s, " alo ".s[1]\n\t" \
  "fmla %[c2].4s, " bv ".4s, " alo ".s[2]\n\t fmla %[c3].4s, " bv ".4s, " alo ".s[3]\n\t" \
  "fmla %[c4].4s, " bv ".4s, " ahi ".s[0]\n\t fmla %[c5].4s, " bv ".4s, " ahi ".s[1]\n\t" \
  "fmla %[c6].4s, " bv ".4s, " ahi ".s[2]\n\t fmla %[c7].4s, " bv ".4s, " ahi ".s[3]\n\t"
    static_assert(kMR == 8 && kNR == 12, "the offsets below are 8 floats of A and 12 of B per step");
    asm volatile(
        "1:\n\t"
        "ld1 {v0.4s, v1.4s, v2.4s, v3.4s}, [%[a]], #64\n\t"
        "ld1 {v4.4s, v5.4s, v6.4s, v7.4s}, [%[a]], #64\n\t"
        "ldr q24, [%[b]]\n\t"
        "ldr q25, [%[b], #48]\n\t"
        "ldr q26, [%[b], #96]\n\t"
        "ldr q27, [%[b], #144]\n\t"
        "add %[b], %[b], #192\n\t"
        MDFI_NARROW_STEP("v24", "v0", "v1")
        MDFI_NARROW_STEP("v25", "v2", "v3")
        MDFI_NARROW_STEP("v26", "v4", "v5")
        MDFI_NARROW_STEP("v27", "v6", "v7")
        "subs %w[quads], %w[quads], #1\n\t"
        "b.ne 1b\n\t"
        : [a] "+r"(a), [b] "+r"(b), [quads] "+r"(quads), [c0] "+w"(acc[0]), [c1] "+w"(acc[1]), [c2] "+w"(acc[2]),
          [c3] "+w"(acc[3]), [c4] "+w"(acc[4]), [c5] "+w"(acc[5]), [c6] "+w"(acc[6]), [c7] "+w"(acc[7])
        :
        : "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v24", "v25", "v26", "v27", "cc", "memory");
#undef MDFI_NARROW_STEP
  }
  for (int k = kc / 4 * 4; k < kc; ++k, a += kMR, b += kNR) {
    const float32x4_t a_lo = vld1q_f32(a), a_hi = vld1q_f32(a + 4), bv = vld1q_f32(b);
    acc[0] = vfmaq_laneq_f32(acc[0], bv, a_lo, 0);
    acc[1] = vfmaq_laneq_f32(acc[1], bv, a_lo, 1);
    acc[2] = vfmaq_laneq_f32(acc[2], bv, a_lo, 2);
    acc[3] = vfmaq_laneq_f32(acc[3], bv, a_lo, 3);
    acc[4] = vfmaq_laneq_f32(acc[4], bv, a_hi, 0);
    acc[5] = vfmaq_laneq_f32(acc[5], bv, a_hi, 1);
    acc[6] = vfmaq_laneq_f32(acc[6], bv, a_hi, 2);
    acc[7] = vfmaq_laneq_f32(acc[7], bv, a_hi, 3);
  }
  MDFI_UNROLL for (int i = 0; i < kMR; ++i) vst1q_f32(c + i * ldc, acc[i]);
}

#else  // 32-bit ARMv7 NEON

static constexpr int kNR = 4;

// VMLA by lane (multiply then add, not fused): ARMv7 NEON has no by-lane fused form, and the
// unfused one is what the Cortex-A7/A53 pipelines chain best.
// kFinish: the last K block; bias (may be null) and act are applied before the store. ARMv7
// NEON has no double lanes, so leaky's double product (Darknet's arithmetic) is done per negative
// value on the VFP after the store. (The bias add in NEON flushes a denormal result to zero, as
// the NEON products and sums before it already do.)
template <bool kFinish>
static void kernel_neon(int kc, const float* a, const float* b, float* c, int ldc, int first, const float* bias,
                        TileAct act) {
  float32x4_t acc[kMR];
  MDFI_UNROLL for (int i = 0; i < kMR; ++i) acc[i] = vdupq_n_f32(0.f);
  for (int k = 0; k < kc; ++k, a += kMR, b += kNR) {
    const float32x4_t a_lo = vld1q_f32(a), a_hi = vld1q_f32(a + 4);
    const float32x4_t bv = vld1q_f32(b);
    acc[0] = vmlaq_lane_f32(acc[0], bv, vget_low_f32(a_lo), 0);
    acc[1] = vmlaq_lane_f32(acc[1], bv, vget_low_f32(a_lo), 1);
    acc[2] = vmlaq_lane_f32(acc[2], bv, vget_high_f32(a_lo), 0);
    acc[3] = vmlaq_lane_f32(acc[3], bv, vget_high_f32(a_lo), 1);
    acc[4] = vmlaq_lane_f32(acc[4], bv, vget_low_f32(a_hi), 0);
    acc[5] = vmlaq_lane_f32(acc[5], bv, vget_low_f32(a_hi), 1);
    acc[6] = vmlaq_lane_f32(acc[6], bv, vget_high_f32(a_hi), 0);
    acc[7] = vmlaq_lane_f32(acc[7], bv, vget_high_f32(a_hi), 1);
  }
  MDFI_UNROLL for (int i = 0; i < kMR; ++i) {
    float* ci = c + i * ldc;
    if (!first) acc[i] = vaddq_f32(acc[i], vld1q_f32(ci));
    if (kFinish) {
      float32x4_t v = vaddq_f32(acc[i], vdupq_n_f32(bias ? bias[i] : 0.f));
      if (act == TileAct::kRelu) {
        const uint32x4_t positive = vcgtq_f32(v, vdupq_n_f32(0.f));
        v = vmulq_f32(v, vreinterpretq_f32_u32(vandq_u32(positive, vreinterpretq_u32_f32(vdupq_n_f32(1.f)))));
      }
      acc[i] = v;
    }
    vst1q_f32(ci, acc[i]);
    if (kFinish && act == TileAct::kLeaky)
      for (int j = 0; j < kNR; ++j)
        if (!(ci[j] > 0)) ci[j] = float(.1 * double(ci[j]));
  }
}

#endif

static void neon_block(int kc, const float* a, const float* b, float* c, int ldc, int first) {
  kernel_neon<false>(kc, a, b, c, ldc, first, nullptr, TileAct::kLinear);
}

#if defined(__aarch64__)
KernelInfo micro_neon() { return {"neon", kNR, &neon_block, &kernel_neon<true>, &strided_neon, &narrow_neon, nullptr, 0, 4}; }
#else
KernelInfo micro_neon() { return {"neon", kNR, &neon_block, &kernel_neon<true>}; }
#endif

}  // namespace mdfi::kernels
#endif
