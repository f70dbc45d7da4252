// Convolution helpers around the SGEMM: im2col into the padded layout the SGEMM reads, weight
// preparation (batch-norm folded, transposed, padded) from the layer's raw parameter range,
// the split-K reduction with bias and activation, and a direct kernel for grouped convolutions
// (depthwise layers have M = 1 per group, far too thin for a tiled GEMM).

// B[r][col] for r < K, col < N is the im2col matrix of one group's input; the padding up to
// Kp x ldb is written with zeros (the SGEMM multiplies it by the zero padding of A, and
// uninitialised memory could hold NaNs). One work-item per element of the padded matrix.
__kernel void im2col_pad(__global const float* restrict im, const int channels, const int height,
                         const int width, const int ksize, const int stride, const int pad,
                         const int out_w, const int K, const int N, const int ldb,
                         __global float* restrict B) {
  const int col = get_global_id(0), r = get_global_id(1);
  if (col >= ldb) return;
  float v = 0.f;
  if (r < K && col < N) {
    const int kx = r % ksize, ky = (r / ksize) % ksize, ch = r / (ksize * ksize);
    const int oy = col / out_w, ox = col % out_w;
    const int iy = ky + oy * stride - pad, ix = kx + ox * stride - pad;
    if (iy >= 0 && iy < height && ix >= 0 && ix < width) v = im[((size_t)ch * height + iy) * width + ix];
  }
  B[(size_t)r * ldb + col] = v;
}

// 1 / the batch-norm denominator of channel m, per compat (engine/layers/batchnorm.h):
// pjreddie (bn == 1) divides by sqrt(var) + .000001f, AlexeyAB (bn == 2) by sqrt(var + .00001f).
inline float bn_inv(__global const float* restrict raw, const int M, const int m, const int bn) {
  const float var = raw[3 * M + m];
  return bn == 2 ? 1.f / sqrt(var + .00001f) : 1.f / (sqrt(var) + .000001f);
}

// raw = biases[M], then (with batch-norm) scales[M], means[M], variances[M], then weights
// [M][K]. Writes At[k][m] (Kp x lda, zero outside K x M) with Darknet's inference batch-norm
// (x - mean) / denominator * scale folded into the weights. bn: 0 none, 1 pjreddie, 2 AlexeyAB.
__kernel void prep_weights_t(__global const float* restrict raw, const int M, const int K, const int bn,
                             const int lda, __global float* restrict At) {
  const int m = get_global_id(0), k = get_global_id(1);
  if (m >= lda) return;
  float v = 0.f;
  if (m < M && k < K) {
    const int w0 = bn ? 4 * M : M;
    v = raw[w0 + (size_t)m * K + k];
    if (bn) v *= raw[M + m] * bn_inv(raw, M, m, bn);
  }
  At[(size_t)k * lda + m] = v;
}

// The matching bias: bias - mean * scale / denominator with batch-norm, else bias.
__kernel void prep_bias(__global const float* restrict raw, const int M, const int bn, __global float* restrict bias) {
  const int m = get_global_id(0);
  if (m >= M) return;
  float b = raw[m];
  if (bn) b -= raw[2 * M + m] * raw[M + m] * bn_inv(raw, M, m, bn);
  bias[m] = b;
}

// Folds batch-norm into untransposed weights [filters][K] for the direct kernel.
__kernel void prep_weights_direct(__global const float* restrict raw, const int M, const int K, const int bn,
                                  __global float* restrict W) {
  const size_t i = get_global_id(0);
  if (i >= (size_t)M * K) return;
  const int m = (int)(i / K);
  float v = raw[(bn ? 4 * M : M) + i];
  if (bn) v *= raw[M + m] * bn_inv(raw, M, m, bn);
  W[i] = v;
}

// Sums the split-K slices of C, then adds the bias and applies the activation (act < 0: neither).
__kernel void splitk_reduce(__global const float* restrict part, const int slices, const int M, const int N,
                            __global const float* restrict bias, const int act, __global float* restrict C) {
  const int n = get_global_id(0), m = get_global_id(1);
  if (n >= N || m >= M) return;
  const size_t i = (size_t)m * N + n, stride = (size_t)M * N;
  float s = 0.f;
  for (int z = 0; z < slices; ++z) s += part[i + z * stride];
  C[i] = act >= 0 ? mdfi_activate(s + bias[m], act) : s;
}

// Grouped convolution, one work-item per output value: out[f][y][x] over the cpg input channels
// of f's group.
__kernel void conv_direct(__global const float* restrict in, const int in_c, const int in_h, const int in_w,
                          __global const float* restrict W, __global const float* restrict bias,
                          const int filters, const int groups, const int ksize, const int stride, const int pad,
                          const int out_h, const int out_w, const int act, __global float* restrict out) {
  const int x = get_global_id(0), y = get_global_id(1), f = get_global_id(2);
  if (x >= out_w || y >= out_h) return;
  const int cpg = in_c / groups, g = f / (filters / groups);
  __global const float* w = W + (size_t)f * cpg * ksize * ksize;
  float s = 0.f;
  for (int c = 0; c < cpg; ++c) {
    __global const float* plane = in + (size_t)(g * cpg + c) * in_h * in_w;
    for (int ky = 0; ky < ksize; ++ky) {
      const int iy = y * stride - pad + ky;
      if (iy < 0 || iy >= in_h) continue;
      for (int kx = 0; kx < ksize; ++kx) {
        const int ix = x * stride - pad + kx;
        if (ix >= 0 && ix < in_w) s = mad(w[(c * ksize + ky) * ksize + kx], plane[iy * in_w + ix], s);
      }
    }
  }
  out[((size_t)f * out_h + y) * out_w + x] = mdfi_activate(s + bias[f], act);
}

// The naive SGEMM the benchmark compares against: one work-item per element of C, plain
// row-major operands, no tiling (the design mdfi grew from).
__kernel void sgemm_naive(const int M, const int N, const int K, __global const float* restrict A,
                          __global const float* restrict B, __global float* restrict C) {
  const int n = get_global_id(0), m = get_global_id(1);
  if (n >= N || m >= M) return;
  float s = 0.f;
  for (int k = 0; k < K; ++k) s = mad(A[(size_t)m * K + k], B[(size_t)k * N + n], s);
  C[(size_t)m * N + n] = s;
}
