#pragma once
// The CPU rasterizer as named stages over one CpuForwardState (cpu_forward_state.h says
// which stage writes and reads each field). One stage, one file, one function, so that a
// CUDA backend can put one kernel (or kernel sequence) behind each name:
//   forward:  frame -> project -> count_offsets -> depth_sort -> tile_lists -> tile_order
//             -> blend (which runs compose on each band of tile rows as it completes)
//   backward: record_slots -> backward_tiles -> splat_vjps
// Every stage runs on up to `threads` OpenMP threads and gives the same bits for every
// thread count. docs/RASTERIZER.md describes the algorithms.
#include <cstdint>
#include <vector>

#include "glint/backend/backend.h"
#include "glint/backend/cpu/cpu_forward_state.h"
#include "glint/core/camera.h"
#include "glint/core/gaussians.h"

namespace glint::cpu::stage {

// A GaussianModel's arrays as the per-splat kernels take them.
inline SplatArrays splat_arrays(const GaussianModel& m) {
  return {m.size(),       m.means.data(), m.log_scales.data(), m.quats.data(), m.opacity_logits.data(),
          m.sh_dc.data(), m.sh_rest.data()};
}

// frame.cpp: the frame fields of the state: settings, SH degree, output flags, sizes, and
// the kernel build active_cpu_simd() picks now.
void frame(CpuForwardState& st, const GaussianModel& model, const Camera& camera, const RenderSettings& settings);

// project.cpp: every splat's packed record, tile count, depth key, tile mask and SH clamp
// bits, and its radius in `radii` ([N]). Needs the frame fields.
void project(CpuForwardState& st, const GaussianModel& model, const Camera& camera, const RenderSettings& settings,
             int* radii, int threads);

// count_offsets.cpp: the exclusive prefix sum of the tile counts (splat_inst_offsets),
// the totals, and the visible splats with their depth keys (less the smallest), in splat
// order. Throws when the instances would not fit 32-bit offsets.
void count_offsets(CpuForwardState& st, int threads);

// depth_sort.cpp: `sorted` in depth order (radix_sort_pairs).
void depth_sort(CpuForwardState& st, int threads);

// tile_lists.cpp: every instance in depth order with its tile, the tile offsets, and the
// tile lists (a stable counting sort of the instances by tile, so each list is in depth
// order): inst_splat, and inst_slot when the settings ask for_backward (else the chunk
// places record_slots needs).
void tile_lists(CpuForwardState& st, bool for_backward, int threads);

// tile_order.cpp: the order threads take the tiles in, most splats first.
void tile_order(CpuForwardState& st);

// blend.cpp: the wanted output images of `out` sized, every tile blended in tile order
// (the per-pixel state for the backward saved), each band of tile rows composed by the
// thread that finishes its last tile.
void blend(CpuForwardState& st, RenderOutput& out, int threads);

// compose.cpp: colour over the background and alpha for tile-row band `band`, from the
// blend's T_final and C_final (CpuKernels::compose_rows).
void compose(const CpuForwardState& st, const TileForwardArgs& fa, int band);

// tile_lists.cpp: each tile-list entry's splat-major record slot, by the forward's scatter
// run again from tile_base, when the forward was not for_backward. `work` is scratch.
void record_slots(const CpuForwardState& st, std::vector<std::uint32_t>& work, std::uint32_t* slots, int threads);

// backward_tiles.cpp: one gradient record per instance ([instances * kRecordFloats],
// splat-major by inst_slot, 64-byte aligned), each tile walked back to front.
void backward_tiles(const CpuForwardState& st, const RenderGradIn& gin, const std::uint32_t* inst_slot, float* records,
                    int threads);

// splat_vjps.cpp: every splat's records summed in tile order, then the projection and SH
// VJPs into `grad` (sized by the caller).
void splat_vjps(const CpuForwardState& st, const GaussianModel& model, const Camera& camera, const float* records,
                ModelGrad& grad, int threads);

}  // namespace glint::cpu::stage
