#pragma once
// CUDA's execution model on the host, so that the CUDA backend's kernels also run in the
// normal test suite, under the sanitizers and in a debugger: a grid's blocks run one after
// another, the threads of a block are fibers on the launching thread, each running until
// __syncthreads or its end (emulation.cpp), __shared__ variables are function statics (one
// block runs at a time, so each block has them to itself). Only what the kernels use is
// here. One interleaving every run: the emulator finds indexing errors and uninitialised
// reads, not data races between a block's threads.
// Included instead of the CUDA runtime when the compiler is not nvcc (cuda_api.h).
#include <atomic>
#include <cstdint>
#include <functional>

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

namespace glint::cuda_emu {
// The running emulated thread's coordinates; in_block while a block's fibers run.
struct ThreadContext {
  dim3 thread_idx, block_idx, block_dim, grid_dim;
  bool in_block = false;
};
inline thread_local ThreadContext tls;

void sync_threads();

// Runs body() once per thread of the grid. Threads that return early leave the barrier, as
// exited threads no longer take part in __syncthreads on the device. With independent
// (a kernel whose threads never meet at a barrier: launch.h's shape_for) each thread runs
// to its end in turn, no fibers; a __syncthreads there aborts.
void run_grid(dim3 grid, dim3 block, bool independent, const std::function<void()>& body);

template <class T>
inline T atomic_add(T* address, T value) {
  return std::atomic_ref<T>(*address).fetch_add(value);
}
}  // namespace glint::cuda_emu

#define threadIdx (::glint::cuda_emu::tls.thread_idx)
#define blockIdx (::glint::cuda_emu::tls.block_idx)
#define blockDim (::glint::cuda_emu::tls.block_dim)
#define gridDim (::glint::cuda_emu::tls.grid_dim)
#define __syncthreads() ::glint::cuda_emu::sync_threads()
#define __shared__ static
#define atomicAdd(p, v) ::glint::cuda_emu::atomic_add(p, v)
