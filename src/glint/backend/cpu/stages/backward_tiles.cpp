// Stage backward_tiles: each tile back to front by the forward's tile kernel build, one
// gradient record per instance; no float atomics, so the bits do not depend on the thread
// count.
#include "glint/backend/cpu/launch.h"
#include "glint/backend/cpu/stages/stages.h"

namespace glint::cpu::stage {

void backward_tiles(const CpuForwardState& st, const RenderGradIn& gin, const std::uint32_t* inst_slot, float* records,
                    int threads) {
  const int ntiles = st.tiles_x * st.tiles_y;
  TileBackwardArgs ba{};
  ba.splats = st.packed.data();
  ba.inst_splat = st.inst_splat.data();
  ba.tile_offsets = st.tile_offsets.data();
  ba.width = st.width;
  ba.height = st.height;
  ba.tiles_x = st.tiles_x;
  for (int c = 0; c < 3; ++c) ba.bg[c] = st.settings.background[c];
  ba.T_final = line_aligned(st.T_final);
  ba.C_final = line_aligned(st.C_final);
  ba.d_rgb = gin.d_rgb;
  for (int i = 0; i < aov::kCount; ++i) {
    const aov::Id id = aov::Id(i);
    const bool kept = wants(st.settings, id) && aov::info(id).saved_words > 0;
    ba.saved[i] = kept ? line_aligned(st.saved[i]) : nullptr;
    ba.d_out[i] = grad_of(gin, id);
  }
  ba.inst_slot = inst_slot;
  ba.inst_groups = st.inst_groups.data();
  ba.tile_stop = st.tile_stop.data();
  ba.want_abs = st.settings.want_mean2d_abs;
  ba.records = records;
  const unsigned flags = st.flags & kBackwardFlags;
  const CpuKernels& k = *st.kernels;
  const std::uint32_t* order = st.tile_order.data();
  parallel_for_tiles(ntiles, threads, [&](int i) { k.backward_tile(ba, int(order[i]), flags); });
}

}  // namespace glint::cpu::stage
