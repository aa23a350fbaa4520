#pragma once
// Typed kernel launches: launch(kernel, shape, args...) is a C++ call whose argument list
// is checked against the kernel's parameter list at compile time, type by type, with no
// conversions (a DeviceSpan<float> where the kernel takes DeviceSpan<const float>, an int
// where it takes a uint32_t, or one argument too few, does not compile). Under nvcc it is
// a <<<>>> launch; on the host the emulator runs the kernel's threads.
#include <cstddef>
#include <type_traits>
#include <utility>

#include "glint/backend/cuda/cuda_api.h"
#include "glint/backend/cuda/cuda_namespace.h"
#include "glint/backend/cuda/indexing.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

struct LaunchShape {
  dim3 grid, block;
  // The block's threads never meet at __syncthreads: the emulator may then run them one
  // after another on one host thread (emulation.h), which is what makes emulated
  // elementwise kernels cheap. Kernels with barriers take a shape with this false.
  bool independent = false;
};

// One thread per element, `threads` a block; for kernels without barriers. Kernels read
// their element with thread_index() (indexing.h), in 64 bits.
inline LaunchShape shape_for(std::size_t elements, unsigned threads = 256) {
  const std::uint64_t blocks = (static_cast<std::uint64_t>(elements) + threads - 1) / threads;
  check_size("blocks in one launch", blocks, kMaxGridBlocks);
  return {dim3(static_cast<unsigned>(blocks)), dim3(threads), true};
}

template <class... Params, class... Args>
void launch(void (*kernel)(Params...), const LaunchShape& shape, Args&&... args) {
  static_assert(sizeof...(Params) == sizeof...(Args), "launch: the argument count differs from the kernel's");
  static_assert((std::is_same_v<std::remove_cvref_t<Args>, std::remove_cvref_t<Params>> && ...),
                "launch: an argument's type differs from the kernel's parameter (no conversions)");
  if (shape.grid.x == 0 || shape.grid.y == 0 || shape.grid.z == 0) return;  // nothing to do (and no valid launch)
#if defined(__CUDACC__)
  kernel<<<shape.grid, shape.block>>>(std::forward<Args>(args)...);
#else
  cuda_emu::run_grid(shape.grid, shape.block, shape.independent, [&] { kernel(args...); });
#endif
}

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
