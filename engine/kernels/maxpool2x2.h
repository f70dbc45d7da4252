// One output row of a 2x2, stride-2 max pool whose windows lie wholly inside the input: the most
// common pool in Darknet cfgs (yolov3-tiny, yolov2-tiny, VGG). Same comparisons in the same order
// as the general loop (row 0 left, right, then row 1; a value wins only when greater, so NaN never
// wins and the first of equal values stays), so the result is bit-identical to Darknet's.
#pragma once

namespace mdfi::kernels {

// dst[j] = max of r0[2j], r0[2j+1], r1[2j], r1[2j+1] for j < n.
void max2x2_row(const float* r0, const float* r1, float* dst, int n);

#if defined(__aarch64__)
// One channel of a spatial max pool, stride 1 or 2, any window; `off` (<= 0) is the column and
// row of the first window's top-left tap (maxpool_neon.cpp). Same result as MaxPoolLayer's loop;
// false (nothing written) for another stride or a plane too wide for its stack buffer.
bool maxpool_plane_neon(const float* plane, int h, int w, int size, int stride, int off, float* out, int out_h,
                        int out_w);
#endif

}  // namespace mdfi::kernels
