// Darknet's im2col, restricted to a range of output columns so a convolution can be computed in
// column tiles under a small, bounded workspace instead of one (K x out_h*out_w) matrix.
#pragma once

namespace mdfi {

// Writes rows 0..channels*ksize*ksize-1 of the im2col matrix, columns [col_begin, col_end), into
// `tile` (row stride col_end - col_begin). Pixels outside the image read as 0. With dilation > 1
// (AlexeyAB's im2col_cpu_ext) the taps are `dilation` pixels apart; `pad` is the padding itself.
void im2col_tile(const float* im, int channels, int height, int width, int ksize, int stride, int pad,
                 int col_begin, int col_end, float* tile, int dilation = 1);

}  // namespace mdfi
