// Darknet's logistic, float(1. / (1. + exp(-double(x)))), over an array, with the bits of the
// scalar formula (activation.cpp's activate) and so of libdarknet: the exp is evaluated in double
// vector lanes, and any lane whose float rounding the vector exp could decide differently from
// the C library's exp is recomputed by the scalar formula. YOLO layers put every x, y,
// objectness and class score through it: 690,000 values per YOLOv3 image, 127,000 per
// Yolo-Fastest image, where the scalar libm call per value was 5-10% of the network's time.
#pragma once

#include <cstddef>

namespace mdfi::kernels {

// `variant` picks a kernel for tests: "avx512", "avx2" (x86-64), "neon" (aarch64) or "scalar"
// (the formula per value); null picks the best this CPU runs.
void logistic_array(float* x, size_t n, const char* variant = nullptr);
bool logistic_variant_available(const char* variant);

}  // namespace mdfi::kernels
