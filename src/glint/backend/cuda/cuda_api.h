#pragma once
// The CUDA runtime under nvcc, its host emulation (emulation.h) elsewhere. GLINT_KERNEL
// marks a kernel: __global__ on the device, a plain inline function that launch() runs
// through the emulator on the host.
#if defined(__CUDACC__)
#include <cuda_runtime.h>
#define GLINT_KERNEL __global__
#else
#include "glint/backend/cuda/emulation.h"
#define GLINT_KERNEL inline
#endif
