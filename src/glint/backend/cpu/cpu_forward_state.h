#pragma once
// What one CPU forward leaves for its backward, and the scratch of its stages
// (backend/cpu/stages/stages.h). Each field says which stage writes it and which read it;
// "frame" fields are set by forward_into before the first stage. A state is recycled from
// frame to frame (CpuBackend::take_state), so its vectors keep their capacity and the
// stages grow them without shrinking.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "glint/backend/backend.h"
#include "glint/backend/cpu/raster_tiles.h"
#include "glint/backend/cpu/splat_kernels.h"
#include "glint/core/uninitialized_allocator.h"

namespace glint::cpu {

// Sums over a chunk of splats (count_offsets), turned into their exclusive prefix.
struct SplatChunkSums {
  std::uint64_t instances = 0;
  std::uint32_t visible = 0, min_key = std::numeric_limits<std::uint32_t>::max(), max_key = 0;
};

struct CpuForwardState final : ForwardState {
  // frame: the kernel build the forward ran; the backward runs the same one
  const CpuKernels* kernels = nullptr;
  RenderSettings settings{};  // frame; read by blend and every backward stage
  int sh_degree = 0;          // frame; project, splat_vjps
  unsigned flags = 0;         // frame: TileFlags of the wanted outputs; blend, backward_tiles
  std::size_t n = 0;          // frame: splats
  const float* model_means = nullptr;  // frame; identity check only
  int width = 0, height = 0, tiles_x = 0, tiles_y = 0;  // frame

  // project -> count_offsets, tile_lists, blend, splat_vjps
  std::vector<SplatPacked> packed;          // [N] what the tiles blend
  std::vector<std::uint32_t> count;         // [N] tiles hit, 0 when culled (count_offsets)
  std::vector<std::uint32_t> depth_key;     // [N] float bits of the view depth (count_offsets)
  std::vector<TileHitMask> tile_mask;       // [N] tiles of small splats (tile_lists)
  std::vector<std::uint8_t> sh_clamped;     // [N] bit c: colour channel c was clamped at 0 (splat_vjps)

  // count_offsets -> depth_sort, tile_lists, splat_vjps
  std::vector<std::uint32_t> splat_inst_offsets;  // [N+1] each splat's first splat-major instance
  std::vector<SplatChunkSums> chunk_sums;         // [chunks+1] scratch: prefix of the splat chunks
  std::uint64_t num_instances = 0;                // (tile, splat) pairs, splat_inst_offsets[N]
  std::uint32_t num_visible = 0;                  // splats with at least one tile
  std::uint32_t key_range = 0;                    // largest depth key of `sorted` (depth_sort)

  // count_offsets writes the visible splats as (depth key - smallest << 32 | splat) in
  // splat order; depth_sort sorts them by key (stably: ties stay in splat order);
  // tile_lists reads them.
  std::vector<std::uint64_t> sorted;            // [visible]
  std::vector<std::uint64_t> sorted2;           // scratch of depth_sort
  std::vector<std::uint32_t> hist;              // scratch of depth_sort and tile_lists

  // tile_lists: instances in depth order, the tile lists, and what the backward's
  // record_slots needs to run the scatter again
  std::vector<std::uint32_t> d_first;     // [visible+1] first depth-major instance of rank s
  std::vector<std::uint32_t> d_slot;      // [visible] its first splat-major slot
  std::vector<std::uint32_t> d_tile;      // [instances] each depth-major instance's tile
  std::vector<std::uint32_t> chunk_base;  // [chunks+1] scratch: prefix of the depth-order counts
  std::vector<std::uint32_t> tile_offsets;  // [tiles+1] -> tile_order, blend, backward_tiles
  std::vector<std::uint32_t> inst_splat;    // [instances] splat of each tile-list entry -> blend, backward_tiles
  std::vector<std::uint32_t> inst_slot;     // [instances] its splat-major slot (for_backward only) -> backward_tiles
  int bin_chunks = 0;                       // chunks of the depth order -> record_slots
  std::size_t bin_chunk = 0;
  std::vector<std::uint32_t> tile_base;     // [chunks*tiles] each chunk's first place per tile (without for_backward) -> record_slots

  // tile_order -> blend, backward_tiles
  std::vector<std::uint32_t> tile_order;  // [tiles] the order threads take the tiles in
  std::vector<std::uint64_t> tile_keys;   // scratch

  // blend -> backward_tiles: per-pixel state, each from a 64-byte boundary (line_aligned):
  // transmittance, colour, and what each wanted output saves (TileForwardArgs::saved); the
  // tile kernels write them in full, so they grow uncleared (core/uninitialized_allocator.h)
  UninitializedVector<float> T_final, C_final;
  UninitializedVector<float> saved[aov::kCount];
  std::vector<std::uint32_t> inst_groups;  // [instances] lane groups where it blended or stopped a pixel
  std::vector<std::uint32_t> tile_stop;    // [tiles] where each tile's blend ended
  std::vector<std::atomic<int>> band_done;  // [tiles_y] scratch: tiles blended per band (compose)
};

// Grows a vector to at least n elements without shrinking (contents are scratch).
template <class T, class A>
T* grow(std::vector<T, A>& v, std::size_t n) {
  if (v.size() < n) v.resize(n);
  return v.data();
}

// Scratch that starts on a cache line: n values from a 64-byte boundary of the vector (the
// const overload finds the same boundary again). For what tiles write while the other
// thread writes the neighbouring tiles: a tile row of the per-pixel forward state
// (T_final, ...) is 64 bytes, and at malloc's 16-byte alignment it would share a line with
// each neighbour (false sharing slows the blend); and for the backward's gradient records,
// one line each, which the tile kernels write with streaming stores.
template <class T, class A>
T* line_aligned(std::vector<T, A>& v, std::size_t n) {
  T* p = grow(v, n + 64 / sizeof(T));
  return p + (64 - reinterpret_cast<std::uintptr_t>(p) % 64) % 64 / sizeof(T);
}
template <class T, class A>
const T* line_aligned(const std::vector<T, A>& v) {
  const T* p = v.data();
  return p + (64 - reinterpret_cast<std::uintptr_t>(p) % 64) % 64 / sizeof(T);
}

}  // namespace glint::cpu
