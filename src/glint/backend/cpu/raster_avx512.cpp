// AVX-512 build of the CPU rasterizer kernels, tile and per-splat: the same eight-lane
// code as raster_avx2.cpp, compiled for x86-64-v4 (AVX-512 F/BW/CD/DQ/VL, see
// src/CMakeLists.txt). The lanes stay 256 bits wide; what the compiler gains is 32 vector
// registers (fewer spills in the blend and VJP), mask registers for compares and selects,
// and three-input shuffles. Only called after the runtime CPU check in cpu_backend.cpp
// (active_cpu_simd). Every operation is IEEE and fused only where the code says fmadd, so
// it computes the AVX2 build's bits (tests/raster_determinism_test.cpp checks).
#include <array>
#if defined(__x86_64__) || defined(__i386__)
#define GLINT_CPU_ISA avx512
#define GLINT_RENDER_NS avx512
#define GLINT_LANES_NS lanes_avx512
#include "glint/backend/cpu/raster_kernels_impl.h"
#include "glint/backend/cpu/splat_kernels_impl.h"
#else
#include "glint/backend/cpu/splat_kernels.h"
namespace glint::cpu::avx512 {  // no AVX-512 on this target: the next build down stands in
const CpuKernels& kernels() { return avx2::kernels(); }
}  // namespace glint::cpu::avx512
#endif
