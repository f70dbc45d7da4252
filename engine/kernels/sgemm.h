// Packed, cache-blocked SGEMM for convolution: C[M x N] = A[M x K] * B[K x N] (+ bias, then an
// activation), with A = a layer's weights packed once as they are read, and B produced block by
// block by a BSource (im2col or the input itself) so no full im2col matrix ever exists.
// Blocking: K in KC-row blocks, N in NC-column blocks (the packed B block is the only
// workspace), register tiles of kMR x NR by a run-time selected micro-kernel; OpenMP threads
// split each block's tiles.
#pragma once

#include <cstddef>

#include "../activation.h"
#include "microkernel.h"

namespace mdfi::kernels {

// The finishing kernels' activation for a layer's: leaky and relu are fused, the rest run after.
inline TileAct tile_act(Activation act) {
  return act == Activation::kLeaky ? TileAct::kLeaky : act == Activation::kRelu ? TileAct::kRelu : TileAct::kLinear;
}

constexpr int kKC = 256;
constexpr int kNC = 512;

// The best micro-kernel this CPU runs (MDFI_KERNEL=generic|avx2|avx512|neon forces one).
const KernelInfo& active_kernel();
// A kernel by name, or nullptr when it is not built or not supported by this CPU.
const KernelInfo* find_kernel(const char* name);

size_t packed_a_floats(int M, int K);
// Packs `rows` (<= kMR) rows of A (row stride lda) into one panel; missing rows are zero. With
// `scale`, row i is multiplied by scale[i] on the way (batch-norm folding: the same float product
// as scaling the row first).
void pack_a_panel(int rows, int K, const float* A, int lda, float* panel, const float* scale = nullptr);

// Fills a packed B block: rows [k0, k0+kc), columns [n0, n0+nc), as NR-wide panels, each kc x nr,
// zero beyond column N.
class BSource {
 public:
  virtual ~BSource() = default;
  virtual void pack(int k0, int kc, int n0, int nc, int nr, float* dst) const = 0;
  // B's element (k0, 0) and its row stride when B is a plain row-major matrix in memory, so whole
  // panels can be read where they lie (KernelInfo::strided); null when B is generated.
  virtual const float* rows(int k0, int* ldb) const {
    (void)k0, (void)ldb;
    return nullptr;
  }
};

// Rows of a plain row-major K x N matrix, rows `ld` floats apart (default N): 1x1 stride-1
// convolutions read their input this way, a band's rows from a window (ld: a window channel).
class MatrixB : public BSource {
 public:
  MatrixB(const float* b, int K, int N, int ld = 0) : b_(b), K_(K), N_(N), ld_(ld > 0 ? ld : N) {}
  void pack(int k0, int kc, int n0, int nc, int nr, float* dst) const override;
  const float* rows(int k0, int* ldb) const override {
    *ldb = ld_;
    return b_ + size_t(k0) * ld_;
  }

 private:
  const float* b_;
  int K_, N_, ld_;
};

// The im2col matrix of one image (channels x height x width), generated block by block.
// One run of an im2col row: out[j] = row[ix0 + j * stride] for j < len, 0 where that column falls
// outside [0, width) (the padding). Shared by Im2colB and the band rows' WindowIm2colB.
void im2col_row_run(const float* row, int ix0, int stride, int width, int len, float* out);

// A run of a panel's columns: columns [j0, j0 + len) are the outputs (oy, ox..ox + len - 1).
struct Im2colRun {
  int j0, len, oy, ox;
};

// The input of an im2col, whole or a window of its rows: each channel of the h x w image holds
// its rows from y_lo on, the channels `plane` floats apart; rows outside [0, h) are padding.
struct Im2colImage {
  const float* data;
  size_t plane;
  int y_lo, h, w;
  const float* row(int ch, int y) const { return data + size_t(ch) * plane + size_t(y - y_lo) * w; }
};

class Im2colB : public BSource {
 public:
  // dilation > 1: taps that far apart (AlexeyAB), `pad` being the padding itself.
  Im2colB(const float* im, int channels, int height, int width, int ksize, int stride, int pad, int dilation = 1);
  void pack(int k0, int kc, int n0, int nc, int nr, float* dst) const override;

 private:
  const float* im_;
  int c_, h_, w_, k_, s_, p_, out_w_, n_, d_;
};

// The thread count the plan assumes (OpenMP's default: all cores).
int planned_threads();
// Workspace for `threads` threads (each packs its own B blocks).
size_t sgemm_workspace_floats(int K, int N, int threads);
// Whether sgemm_packed splits the threads over row panels (small N, many rows) instead of
// columns; the workspace is the same either way.
bool split_by_rows(int M, int N, int threads);

// C (row stride ldc) = A_packed * B (+ bias[row]), then activation. `workspace` holds
// sgemm_workspace_floats(K, N) floats.
// `kernel` defaults to active_kernel(); tests pass each available one. The workspace must hold
// sgemm_workspace_floats(K, N, threads) for the kernel's NR (that function uses the active one's).
void sgemm_packed(int M, int N, int K, const float* a_packed, const BSource& b, float* C, int ldc, const float* bias,
                  Activation act, int threads, float* workspace, const KernelInfo* kernel = nullptr);

}  // namespace mdfi::kernels
