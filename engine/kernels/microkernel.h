// Register-blocked SGEMM micro-kernels: C[MR x NR] (+)= A_panel * B_panel over kc steps, where
// A_panel holds MR values per k (packed weights) and B_panel NR values per k (packed im2col).
// One implementation per instruction set; sgemm.cpp picks the best the CPU supports at run time,
// so one binary runs on any x86-64 and cross builds never see host-ISA flags.
#pragma once

namespace mdfi::kernels {

constexpr int kMR = 8;  // rows per A panel, shared by every kernel so packed weights are portable

// first != 0: C = A*B (C's old contents ignored); else C += A*B.
using MicroKernel = void (*)(int kc, const float* a, const float* b, float* c, int ldc, int first);

// What a finishing kernel does to the completed tile while it is still in registers: add
// bias[row] (when bias is not null), then one of the activations below, with Darknet's exact
// arithmetic (leaky: x > 0 ? x : float(.1 * double(x)); relu: x * (x > 0)).
enum class TileAct { kLinear, kLeaky, kRelu };
using FinishKernel = void (*)(int kc, const float* a, const float* b, float* c, int ldc, int first,
                              const float* bias, TileAct act);

// fn (finish == false) or finish (finish == true) reading B's kc rows of nr columns `ldb` floats
// apart instead of from a packed panel: a 1x1 convolution's input is B as it lies in memory.
using StridedKernel = void (*)(int kc, const float* a, const float* b, int ldb, float* c, int ldc, int first,
                               bool finish, const float* bias, TileAct act);

// fn with first != 0 for a panel whose columns from `cols` (< nr) on are padding: C's columns
// [0, cols) get the same values fn gives them; its other columns up to nr may be overwritten
// with padding products or left as they were. Fewer multiply-adds for a layer's last, nearly
// empty panel (a 13x13 map's 49 Winograd tiles: four panels of 12 and one).
using NarrowKernel = void (*)(int kc, const float* a, const float* b, float* c, int ldc, int cols);

// A stride-1 k x k convolution computed from its input rows where they lie, with no im2col
// matrix (conv_direct.h): each output the same bits as this kernel's SGEMM over the im2col
// matrix would give it (same products, same order, same K blocks and epilogue).
struct DirectJob;
using DirectKernel = void (*)(const DirectJob& job);

struct KernelInfo {
  const char* name;
  int nr;  // columns per B panel
  MicroKernel fn;
  FinishKernel finish = nullptr;  // the last K block with the epilogue fused; null: sgemm applies it after
  StridedKernel strided = nullptr;  // null: sgemm packs every B panel
  NarrowKernel narrow = nullptr;  // null: fn for every panel
  DirectKernel direct = nullptr;  // null: weight blocks of k x k convs pack im2col (conv_rows.cpp)
  int direct_lanes = 0;           // pixels per vector of `direct` (a row's last vector may hold fewer)
  // A panel with at most this many real columns costs `narrow` about this many columns' work;
  // one with more costs a whole panel (narrow then runs fn). Planners count by it.
  int narrow_cols = 0;
};

KernelInfo micro_generic();
#if defined(__x86_64__) || defined(__i386__)
KernelInfo micro_avx2();
KernelInfo micro_avx2_narrow();
KernelInfo micro_avx512();
#endif
#if defined(__ARM_NEON) || defined(__aarch64__)
KernelInfo micro_neon();
#endif

}  // namespace mdfi::kernels
