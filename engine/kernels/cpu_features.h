// What the x86-64 CPU we run on supports, asked once (the binary is built for baseline x86-64;
// kernels with wider instructions carry target attributes and are picked at run time).
#pragma once

namespace mdfi::kernels {

#if defined(__x86_64__) || defined(__i386__)
bool cpu_has_avx2_fma();
bool cpu_has_avx512f();
#endif

}  // namespace mdfi::kernels
