// Portable (baseline x86-64 / any target) build of the CPU tile kernels.
#include <array>
#define GLINT_CPU_ISA portable
#include "glint/backend/cpu/raster_kernels_impl.h"
