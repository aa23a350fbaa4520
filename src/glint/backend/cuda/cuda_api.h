#pragma once
// The CUDA runtime under nvcc, its host emulation (emulation.h) elsewhere. GLINT_KERNEL
// marks a kernel: __global__ on the device, a function with internal linkage that launch()
// runs through the emulator on the host. Internal, because nvcc gives every kernel a host
// stub of the same name and signature: a binary that links the CUDA backend and also runs
// emulated kernels (the test suite) would otherwise have the linker take the stub, which
// launches on a device, for the emulated calls.
#if defined(__CUDACC__)
#include <cuda_runtime.h>
#define GLINT_KERNEL __global__
#else
#include "glint/backend/cuda/emulation.h"
#define GLINT_KERNEL static inline
#endif
