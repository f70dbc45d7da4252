// Direct convolution for weight blocks (issue 19): a stride-1 convolution with a square kernel of
// 2 to 8 taps, computed from its input rows where they lie. Under a small --max-mem budget a
// layer's filters come a block at a time, and the im2col path packs the whole (k*k times larger)
// im2col matrix of its input again for every block: AlexNet's 5x5 layer in blocks of a few
// filters spent most of its time packing. Here a register tile of kMR filters by a few vectors
// of consecutive output pixels of one row loads each tap's input pixels straight from the row,
// masked where they fall in the padding: a block packs nothing, and pays instead for the lanes a
// row's last vector leaves empty (direct_pays weighs the two).
//
// Every output gets the bits the SGEMM of the same kernel (microkernel.h's KernelInfo) gives it
// over the im2col matrix: products summed in K order (k = (channel * ksize + ky) * ksize + kx,
// padding taps included as products with zero), in blocks of kKC from zero, each block added to
// the sum of the ones before, then bias and activation as sgemm_packed applies them.
#pragma once

#include <cstddef>

#include "../activation.h"
#include "microkernel.h"

namespace mdfi::kernels {

struct DirectJob {
  // Input: channel c's row y (0 <= y < h) starts at in + c * in_channel + (y - in_lo) * w. Rows
  // outside [0, h) and columns outside [0, w) are the zero padding and are never read.
  const float* in = nullptr;
  size_t in_channel = 0;
  int in_lo = 0, h = 0, w = 0;
  int ksize = 0, pad = 0;
  int K = 0;  // channels * ksize * ksize
  // Output rows [y0, y1), out_w pixels each: filter f's pixel (y, x) at out + f * ldc + (y - y0) * out_w + x.
  float* out = nullptr;
  size_t ldc = 0;
  int out_w = 0, y0 = 0, y1 = 0;
  // Filters [0, filters): packed panels of kMR (pack_a_panel), panel p's k at a + (p * K + k) * kMR.
  const float* a = nullptr;
  int filters = 0;
  // finish: the last K block adds bias[f] (bias may be null: 0) and applies act in registers
  // (the kernel's FinishKernel does); else the outputs are left as the sums.
  const float* bias = nullptr;
  bool finish = false;
  TileAct act = TileAct::kLinear;
};

// Whether `kernel` has a direct path for a convolution of this shape (groups of one).
bool direct_suits(const KernelInfo& kernel, int ksize, int stride, int dilation, int pad);

// What the direct path costs beyond a layer's multiply-adds, as a factor of them, against
// im2col and SGEMM in blocks, which pack the im2col matrix once per block (~100 FLOPs of the
// SGEMM per element: schedule.cpp's cost model): direct computes the lanes a row leaves empty
// (a 13-wide map fills 13 of 16) and sets up each kernel row's loads once per ksize taps. The
// factor, (lanes computed / lanes used) * 3 / ksize, was fitted to these (1 thread, AVX-512, the
// loaded 2-core EPYC VM, minimum of 7 runs): blocks of 16 filters ran direct in half the time or
// less on 13- to 32-wide maps; AlexNet's 27-wide 5x5 layer in blocks of 8 took 5.8 ms against
// 28.4, in blocks of 64 8.5-12.9 against 14-20; its 13-wide 3x3 layers in blocks of 32 and 40,
// 4.2 and 2.9 ms against 5.4 and 3.6, in blocks of 64 2.8 against 2.9; 3x3 layers in blocks of
// 72 on 13- and 16-wide maps and of 104 on a 32-wide one ran slower direct.
double direct_cost_factor(int lanes, int ksize, int out_w);
// Whether `filters` filters in blocks of `block` run direct (lanes: KernelInfo::direct_lanes; 0:
// none): when 2 * filters * direct_cost_factor is under 100 per block.
bool direct_pays(int lanes, int ksize, int out_w, int filters, int block);

// job's outputs (its finish and act are set here) as sgemm_packed(filters, N, K, job.a,
// Im2colB-of-the-input, ..., bias, act, threads, ..., &kernel) computes them, bit for bit; bias
// and activations the kernel cannot fuse are applied afterwards, as sgemm_packed does. `threads`
// split the filter panels, or the rows when there are fewer panels than threads.
void conv_direct(const KernelInfo& kernel, DirectJob job, Activation act, int threads);

// The kernels' direct paths, for micro_generic/micro_avx2/micro_avx512's KernelInfo.
void direct_generic(const DirectJob& job);
#if defined(__x86_64__) || defined(__i386__)
void direct_avx2(const DirectJob& job);
void direct_avx512(const DirectJob& job);
#endif

}  // namespace mdfi::kernels
