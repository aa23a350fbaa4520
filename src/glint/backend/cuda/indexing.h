#pragma once
// Index arithmetic of the CUDA backend (docs/ARCHITECTURE.md, "Floating-point and indexing
// rules for GPU backends"): a thread's grid-wide index and every element offset that is a
// count times a width are computed in 64 bits, since such products pass 2^32 on large
// scenes (45 SH floats of 100M splats, 13-float records of 400M tile instances); indices
// that name a splat, a tile instance or a pixel stay 32-bit, which the host guarantees by
// refusing larger sizes, with one line, before it allocates anything for them.
#include <cstdint>
#include <string>

#include "glint/backend/cuda/cuda_api.h"
#include "glint/backend/cuda/cuda_namespace.h"
#include "glint/core/error.h"
#include "glint/core/hd.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

// The grid-wide index of the running thread (grid.x * block.x can pass 2^32).
GLINT_HD inline std::uint64_t global_index(std::uint32_t block, std::uint32_t block_size, std::uint32_t thread) {
  return static_cast<std::uint64_t>(block) * block_size + thread;
}
GLINT_HD inline std::uint64_t thread_index() { return global_index(blockIdx.x, blockDim.x, threadIdx.x); }

// Element `col` of row `row` of an array of `width`-wide rows: a splat's parameters (45 SH
// floats), an instance's gradient record, a pixel's channels.
GLINT_HD constexpr std::uint64_t row_element(std::uint64_t row, std::uint32_t width, std::uint32_t col) {
  return row * width + col;
}
// Value i of plane `plane` of consecutive planes of `count` values (SSIM's derivatives).
GLINT_HD constexpr std::uint64_t plane_element(std::uint32_t plane, std::uint64_t count, std::uint64_t i) {
  return plane * count + i;
}

// What the backend indexes. Splats: 32-bit splat indices with room to grow (a
// densification's intermediate rows, kMaxRows); tile instances: 32-bit slots and sort
// values; pixels: 32-bit pixel indices computed in int.
inline constexpr std::uint64_t kMaxSplats = std::uint64_t{1} << 30;
inline constexpr std::uint64_t kMaxRows = 0xffffffffULL;
inline constexpr std::uint64_t kMaxInstances = 0xffffffffULL;
inline constexpr std::uint64_t kMaxPixels = 0x7fffffffULL;
// CUDA's limit on gridDim.x.
inline constexpr std::uint64_t kMaxGridBlocks = 0x7fffffffULL;

// Throws glint::Error("CUDA backend: <value> <what>, more than the <limit> it indexes")
// when value > limit; called before allocating for them.
inline void check_size(const char* what, std::uint64_t value, std::uint64_t limit) {
  if (value > limit)
    throw Error("CUDA backend", std::to_string(value) + " " + what + ", more than the " + std::to_string(limit) +
                                    " it indexes");
}

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
