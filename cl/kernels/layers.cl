// The other layers mdfi runs on the device, each one work-item per output value, each with
// Darknet's semantics (see the CPU reference in engine/layers/).

// Max pooling with Darknet's offset -padding/2; taps outside the image are ignored.
__kernel void maxpool(__global const float* restrict in, const int in_h, const int in_w, const int size,
                      const int stride, const int padding, const int out_h, const int out_w,
                      __global float* restrict out) {
  const int x = get_global_id(0), y = get_global_id(1), c = get_global_id(2);
  if (x >= out_w || y >= out_h) return;
  const int off = -padding / 2;
  float best = -FLT_MAX;
  __global const float* plane = in + (size_t)c * in_h * in_w;
  for (int n = 0; n < size; ++n) {
    const int iy = off + y * stride + n;
    if (iy < 0 || iy >= in_h) continue;
    for (int m = 0; m < size; ++m) {
      const int ix = off + x * stride + m;
      if (ix >= 0 && ix < in_w) best = fmax(best, plane[iy * in_w + ix]);
    }
  }
  out[((size_t)c * out_h + y) * out_w + x] = best;
}

// Nearest-neighbour upsampling by an integer stride, times scale.
__kernel void upsample_nn(  // "upsample" is an OpenCL built-in
    __global const float* restrict in, const int in_h, const int in_w, const int stride,
                       const float scale, const int out_h, const int out_w, __global float* restrict out) {
  const int x = get_global_id(0), y = get_global_id(1), c = get_global_id(2);
  if (x >= out_w || y >= out_h) return;
  out[((size_t)c * out_h + y) * out_w + x] = scale * in[((size_t)c * in_h + y / stride) * in_w + x / stride];
}

// Darknet's shortcut: out = alpha*prev + beta*add where `add` maps onto `out` by the integer
// factors stride (add larger) and sample (add smaller); values outside the mapped lattice copy
// prev. Then the activation. One work-item per output value.
__kernel void shortcut(__global const float* restrict prev, __global const float* restrict add, const int oc,
                       const int oh, const int ow, const int ac, const int ah, const int aw, const float alpha,
                       const float beta, const int act, __global float* restrict out) {
  const size_t i = get_global_id(0);
  if (i >= (size_t)oc * oh * ow) return;
  const int x = (int)(i % ow), y = (int)((i / ow) % oh), k = (int)(i / ((size_t)ow * oh));
  int stride = aw / ow, sample = ow / aw;
  if (stride < 1) stride = 1;
  if (sample < 1) sample = 1;
  const int minw = min(aw, ow), minh = min(ah, oh), minc = min(ac, oc);
  float v = prev[i];
  if (k < minc && x % sample == 0 && y % sample == 0 && x / sample < minw && y / sample < minh) {
    const int ax = (x / sample) * stride, ay = (y / sample) * stride;
    v = alpha * v + beta * add[((size_t)k * ah + ay) * aw + ax];
  }
  out[i] = mdfi_activate(v, act);
}

// The YOLO head at inference: the logistic on x, y, objectness and class scores of each
// anchor (unless new_coords: the conv applied it already); w and h pass through. AlexeyAB's
// scale_x_y then maps x, y to x * scale + bias (bias = -(scale - 1) / 2, rounded by the host as
// the CPU path does); pjreddie's networks pass scale 1 and shift 0.
__kernel void yolo_logistic(__global const float* restrict in, const int hw, const int classes, const int n,
                            const float scale_x_y, const float bias, const int shift, const int new_coords,
                            __global float* restrict out) {
  const size_t i = get_global_id(0);
  if (i >= (size_t)n * hw * (classes + 5)) return;
  const int entry = (int)((i / hw) % (classes + 5));
  float v = in[i];
  if (entry == 2 || entry == 3) {
    out[i] = v;
    return;
  }
  if (!new_coords) v = 1.f / (1.f + exp(-v));
  if (shift && entry < 2) v = v * scale_x_y + bias;
  out[i] = v;
}
