#pragma once
// The CUDA runtime under nvcc, its host emulation (emulation.h) elsewhere. GLINT_KERNEL
// marks a kernel: __global__ on the device, a function that launch() runs through the
// emulator on the host; internal linkage either way. On the host, because nvcc gives every
// kernel a host stub of the same name and signature: a binary that links the CUDA backend
// and also runs emulated kernels (the test suite) would otherwise have the linker take the
// stub, which launches on a device, for the emulated calls. On the device, so that two .cu
// files may launch kernels of one header (each gets its copy; maybe_unused: a file need
// not launch all of them).
#if defined(__CUDACC__)
#include <cuda_runtime.h>
#define GLINT_KERNEL [[maybe_unused]] static __global__
#else
#include "glint/backend/cuda/emulation.h"
#define GLINT_KERNEL static inline
#endif
