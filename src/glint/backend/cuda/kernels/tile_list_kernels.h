#pragma once
// The tile lists stage: every drawn splat writes one (tile, depth) key per tile its cut
// ellipse reaches, at its offset (the exclusive prefix sum of ProjectedSplat::tiles). After a
// stable sort of the 64-bit keys the lists are tile-major and each list is in depth order
// (ties in splat order); the ranges kernel then finds where each tile's list starts and ends.
//
// The key kernel enumerates the hit tiles again, separately compiled from the count in the
// project kernel; nvcc does not promise that two copies of one float test decide alike
// (they may contract differently), so each splat writes only inside its own slots
// [offsets[i], offsets[i + 1]): hits past them are dropped, slots left over are filled with
// kNoTileKey, which sorts after every tile and lies in no tile's range, and the number of
// keys written replaces the splat's count (the backward reads that many records). The
// dropped and the filled are counted; debug builds and the tests require zero.
#include <cstdint>
#include <cstring>

#include "glint/backend/cuda/cuda_namespace.h"
#include "glint/backend/cuda/cuda_api.h"
#include "glint/backend/cuda/device_span.h"
#include "glint/backend/cuda/indexing.h"
#include "glint/backend/cuda/kernels/project_kernel.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

// view depth > 0: its float bits sort like the floats
GLINT_HD inline std::uint32_t depth_bits(float depth) {
  std::uint32_t b;
  std::memcpy(&b, &depth, 4);
  return b;
}

// A slot the key kernel had no hit for: past every tile (ranges ignore it).
inline constexpr std::uint64_t kNoTileKey = ~std::uint64_t{0};

// counts[i] = splat i's tile count, and 0 at counts[N], so that an exclusive prefix sum of
// the N + 1 values gives every splat's first key and, last, the number of keys: in 64 bits,
// since the total of a large frame can pass 2^32 (the host refuses it before allocating).
GLINT_KERNEL void tile_counts_kernel(DeviceSpan<const ProjectedSplat> splats, DeviceSpan<std::uint64_t> counts) {
  const std::uint64_t i = thread_index();
  if (i < counts.size) counts[i] = i < splats.size ? splats[i].tiles : 0u;
}

// Keys and values of splat i in its slots only; written[i] = the keys it wrote (a hit
// count, like counts); mismatch[0] += the hits dropped and the slots filled with kNoTileKey
// (mismatch may be empty: not counted).
GLINT_KERNEL void tile_keys_kernel(DeviceSpan<const ProjectedSplat> splats, DeviceSpan<const std::uint64_t> offsets,
                                   std::int32_t width, std::int32_t height, DeviceSpan<std::uint64_t> keys,
                                   DeviceSpan<std::uint32_t> values, DeviceSpan<std::uint64_t> written,
                                   DeviceSpan<std::uint32_t> mismatch) {
  const std::uint64_t t = thread_index();
  if (t >= splats.size) return;
  const auto i = static_cast<std::uint32_t>(t);  // splats <= kMaxSplats
  const ProjectedSplat& s = splats[i];
  const std::uint64_t begin = offsets[i], end = offsets[i + 1];
  std::uint64_t k = begin;
  std::uint32_t dropped = 0;
  if (s.tiles > 0) {
    const std::uint64_t depth = depth_bits(s.depth);
    for_each_hit_tile(s, width, height, [&](std::uint32_t tile) {
      if (k == end) {
        ++dropped;
        return;
      }
      keys[k] = static_cast<std::uint64_t>(tile) << 32 | depth;
      values[k] = i;
      ++k;
    });
  }
  written[i] = k - begin;
  const auto filled = static_cast<std::uint32_t>(end - k);
  for (; k < end; ++k) {
    keys[k] = kNoTileKey;
    values[k] = i;
  }
  if (dropped + filled > 0 && mismatch.size > 0) atomicAdd(&mismatch.data[0], dropped + filled);
}

// slots[k] = k: the splat-major slot of every key, sorted along with the keys.
GLINT_KERNEL void iota_kernel(DeviceSpan<std::uint32_t> slots) {
  const std::uint64_t k = thread_index();
  if (k < slots.size) slots[k] = static_cast<std::uint32_t>(k);  // instances <= kMaxInstances
}

// sorted_splat[p] = the splat of the key at sorted place p.
GLINT_KERNEL void gather_splats_kernel(DeviceSpan<const std::uint32_t> splat_of_slot,
                                       DeviceSpan<const std::uint32_t> sorted_slot,
                                       DeviceSpan<std::uint32_t> sorted_splat) {
  const std::uint64_t p = thread_index();
  if (p < sorted_splat.size) sorted_splat[p] = splat_of_slot[sorted_slot[p]];
}

// ranges: [tiles * 2] (begin, end) of each tile's list in the sorted keys, zero where empty
// (cleared before the launch); kNoTileKey's slots, sorted last, belong to none.
GLINT_KERNEL void tile_ranges_kernel(DeviceSpan<const std::uint64_t> sorted_keys, DeviceSpan<std::uint32_t> ranges) {
  const std::uint64_t t = thread_index();
  if (t >= sorted_keys.size) return;
  const auto i = static_cast<std::uint32_t>(t), n = static_cast<std::uint32_t>(sorted_keys.size);  // <= kMaxInstances
  const std::uint32_t tile = static_cast<std::uint32_t>(sorted_keys[i] >> 32);
  if (tile >= ranges.size / 2) return;
  if (i == 0 || static_cast<std::uint32_t>(sorted_keys[i - 1] >> 32) != tile) ranges[2 * tile] = i;
  if (i + 1 == n || static_cast<std::uint32_t>(sorted_keys[i + 1] >> 32) != tile) ranges[2 * tile + 1] = i + 1;
}

// RenderOutput::radii from the projected splats (0: not drawn), so that a frame's radii
// come back as 4 bytes a splat rather than the whole projection.
GLINT_KERNEL void splat_radii_kernel(DeviceSpan<const ProjectedSplat> splats, DeviceSpan<std::int32_t> radii) {
  const std::uint64_t i = thread_index();
  if (i >= radii.size) return;
  radii[i] = splats[i].radius;
}

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
