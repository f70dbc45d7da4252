// The tiled SGEMM body, compiled once per tile configuration: the host prepends
// NAME, BM, BN, BK, TM, TN and undefines them after. C[M x N] = A[M x K] * B[K x N] where
//  - A is given transposed and zero-padded: At is Kp x lda (lda a multiple of BM), so a tile
//    of A is read with aligned float4 loads along M;
//  - B is zero-padded: Kp x ldb (ldb a multiple of BN, rows past K zero);
//  - group z of a split-K launch sums k in [z*kslice, (z+1)*kslice) and writes slice z of C
//    (c_slice floats apart); with act >= 0 the epilogue adds bias[m] and the activation.
// Each work-group computes a BM x BN tile from BK-deep slabs staged in local memory; each
// work-item keeps a TM x TN block of C in registers, made of 4x4 sub-blocks spaced a quarter
// of the tile apart so that neighbouring work-items read neighbouring float4s of local memory.
// The next slab is fetched into registers while the current one is multiplied.
#define TX (BN / TN)
#define TY (BM / TM)
#define NT (TX * TY)
#define A_LOADS (BK * BM / 4 / NT)
#define B_LOADS (BK * BN / 4 / NT)

__kernel __attribute__((reqd_work_group_size(TX, TY, 1)))
void NAME(const int M, const int N, const int kslice,
          __global const float4* restrict At, const int lda,
          __global const float4* restrict B, const int ldb,
          __global float* restrict C, const int ldc, const int c_slice,
          __global const float* restrict bias, const int act) {
  __local float4 As[BK][BM / 4];
  __local float4 Bs[BK][BN / 4];
  const int tx = get_local_id(0), ty = get_local_id(1);
  const int tid = ty * TX + tx;
  const int n0 = get_group_id(0) * BN, m0 = get_group_id(1) * BM;
  const int z = get_group_id(2);
  const int lda4 = lda / 4, ldb4 = ldb / 4;
  __global const float4* a_ptr = At + (size_t)(z * kslice) * lda4 + m0 / 4;
  __global const float4* b_ptr = B + (size_t)(z * kslice) * ldb4 + n0 / 4;

  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.f;

  float4 a_next[A_LOADS], b_next[B_LOADS];
#pragma unroll
  for (int l = 0; l < A_LOADS; ++l) {
    const int idx = tid + l * NT;
    a_next[l] = a_ptr[(idx / (BM / 4)) * lda4 + idx % (BM / 4)];
  }
#pragma unroll
  for (int l = 0; l < B_LOADS; ++l) {
    const int idx = tid + l * NT;
    b_next[l] = b_ptr[(idx / (BN / 4)) * ldb4 + idx % (BN / 4)];
  }

  for (int k0 = 0; k0 < kslice; k0 += BK) {
#pragma unroll
    for (int l = 0; l < A_LOADS; ++l) {
      const int idx = tid + l * NT;
      As[idx / (BM / 4)][idx % (BM / 4)] = a_next[l];
    }
#pragma unroll
    for (int l = 0; l < B_LOADS; ++l) {
      const int idx = tid + l * NT;
      Bs[idx / (BN / 4)][idx % (BN / 4)] = b_next[l];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (k0 + BK < kslice) {
      a_ptr += BK * lda4;
      b_ptr += BK * ldb4;
#pragma unroll
      for (int l = 0; l < A_LOADS; ++l) {
        const int idx = tid + l * NT;
        a_next[l] = a_ptr[(idx / (BM / 4)) * lda4 + idx % (BM / 4)];
      }
#pragma unroll
      for (int l = 0; l < B_LOADS; ++l) {
        const int idx = tid + l * NT;
        b_next[l] = b_ptr[(idx / (BN / 4)) * ldb4 + idx % (BN / 4)];
      }
    }
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a[TM], b[TN];
#pragma unroll
      for (int i = 0; i < TM / 4; ++i) {
        const float4 v = As[k][i * TY + ty];
        a[4 * i] = v.x; a[4 * i + 1] = v.y; a[4 * i + 2] = v.z; a[4 * i + 3] = v.w;
      }
#pragma unroll
      for (int j = 0; j < TN / 4; ++j) {
        const float4 v = Bs[k][j * TX + tx];
        b[4 * j] = v.x; b[4 * j + 1] = v.y; b[4 * j + 2] = v.z; b[4 * j + 3] = v.w;
      }
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = mad(a[i], b[j], acc[i][j]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }

  __global float* c = C + (size_t)z * c_slice;
  const int epilogue = act >= 0;  // split-K partial sums pass act = -1
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int m = m0 + (i / 4) * (TY * 4) + ty * 4 + (i % 4);
    if (m >= M) continue;
    const float bm = epilogue ? bias[m] : 0.f;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int n = n0 + (j / 4) * (TX * 4) + tx * 4 + (j % 4);
      if (n < N) {
        float v = acc[i][j];
        if (epilogue) v = mdfi_activate(v + bm, act);
        c[(size_t)m * ldc + n] = v;
      }
    }
  }
}

#undef TX
#undef TY
#undef NT
#undef A_LOADS
#undef B_LOADS
