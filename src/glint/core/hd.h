#pragma once
// GLINT_HD marks per-element math that every backend compiles: __host__ __device__ under
// nvcc, nothing on the CPU. Code under it uses plain values only (no STL, no exceptions),
// so the same function runs in a CPU thread and a CUDA thread.
#if defined(__CUDACC__)
#define GLINT_HD __host__ __device__
#else
#define GLINT_HD
#endif
