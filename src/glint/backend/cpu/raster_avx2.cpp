// AVX2+FMA build of the CPU rasterizer kernels, tile and per-splat (compiled with -mavx2
// -mfma on x86-64, see src/CMakeLists.txt); only called after the runtime CPU check in
// cpu_backend.cpp (active_cpu_simd).
#include <array>
#if defined(__x86_64__) || defined(__i386__)
#define GLINT_CPU_ISA avx2
#define GLINT_RENDER_NS avx2
#define GLINT_LANES_NS lanes_avx2
#include "glint/backend/cpu/raster_kernels_impl.h"
#include "glint/backend/cpu/splat_kernels_impl.h"
#else
#include "glint/backend/cpu/splat_kernels.h"
namespace glint::cpu::avx2 {  // no AVX2 on this target: the portable kernels stand in
const CpuKernels& kernels() { return portable::kernels(); }
}  // namespace glint::cpu::avx2
#endif
