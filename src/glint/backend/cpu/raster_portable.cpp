// Portable (baseline x86-64 / any target) build of the CPU rasterizer kernels, tile and
// per-splat.
#include <array>
#define GLINT_CPU_ISA portable
#include "glint/backend/cpu/raster_kernels_impl.h"
#include "glint/backend/cpu/splat_kernels_impl.h"
