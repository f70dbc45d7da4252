// One output row of a 2x2, stride-2 max pool whose windows lie wholly inside the input: the most
// common pool in Darknet cfgs (yolov3-tiny, yolov2-tiny, VGG). Same comparisons in the same order
// as the general loop (row 0 left, right, then row 1; a value wins only when greater, so NaN never
// wins and the first of equal values stays), so the result is bit-identical to Darknet's.
#pragma once

namespace mdfi::kernels {

// dst[j] = max of r0[2j], r0[2j+1], r1[2j], r1[2j+1] for j < n.
void max2x2_row(const float* r0, const float* r1, float* dst, int n);

}  // namespace mdfi::kernels
