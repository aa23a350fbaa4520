// Stage blend: every tile front to back by the frame's tile kernel, in tile order, with the
// per-pixel state the backward needs.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "glint/backend/cpu/launch.h"
#include "glint/backend/cpu/stages/stages.h"

namespace glint::cpu::stage {
namespace {

// An output image of w x h x c, or none when not wanted. One that already has the size is
// kept as it is, and a new one is not cleared: the kernels write every pixel of every
// output they produce.
void output_image(ImageF& img, bool wanted, int w, int h, int c) {
  if (!wanted)
    img = ImageF();
  else if (img.width != w || img.height != h || img.channels != c ||
           img.data.size() != std::size_t(w) * std::size_t(h) * std::size_t(c))
    img = ImageF::uninitialized(w, h, c);
}

}  // namespace

void blend(CpuForwardState& st, RenderOutput& out, int threads) {
  const RenderSettings& settings = st.settings;
  const int W = st.width, H = st.height, ntiles = st.tiles_x * st.tiles_y;
  const std::uint64_t total = st.num_instances;
  const std::size_t P = std::size_t(W) * std::size_t(H);
  TileForwardArgs fa{};
  fa.splats = st.packed.data();
  fa.inst_splat = st.inst_splat.data();
  fa.tile_offsets = st.tile_offsets.data();
  fa.width = W;
  fa.height = H;
  fa.tiles_x = st.tiles_x;
  for (int c = 0; c < 3; ++c) fa.bg[c] = settings.background[c];
  output_image(out.rgb, settings.want_rgb, W, H, 3);
  fa.rgb = settings.want_rgb ? out.rgb.data.data() : nullptr;
  fa.T_final = line_aligned(st.T_final, P);
  fa.C_final = line_aligned(st.C_final, 3 * P);
  for (int i = 0; i < aov::kCount; ++i) {
    const aov::Id id = aov::Id(i);
    const bool want = wants(settings, id);
    ImageF& img = image_of(out, id);
    output_image(img, want, W, H, aov::info(id).channels);
    fa.out[i] = want ? img.data.data() : nullptr;
    const int words = aov::info(id).saved_words;
    fa.saved[i] = want && words > 0 ? line_aligned(st.saved[i], std::size_t(words) * P) : nullptr;
  }
  fa.inst_groups = grow(st.inst_groups, std::max<std::uint64_t>(1, total));
  fa.tile_stop = grow(st.tile_stop, std::size_t(ntiles));
  fa.stop_at_median = settings.median_depth_only && wants(settings, aov::median_depth);
  const unsigned flags = st.flags;
  const CpuKernels& k = *st.kernels;
  // Each band of tile rows is composed (compose.cpp says why there) by the thread that
  // finishes the band's last tile: the band's transmittance and colour are still in cache,
  // and the pass overlaps the other tiles, where a pass over the whole image after the
  // tiles would run alone and read them back from memory.
  // The count is acq_rel so the composing thread sees every tile of the band.
  std::vector<std::atomic<int>>& band_done = st.band_done;
  if (band_done.size() < std::size_t(st.tiles_y)) band_done = std::vector<std::atomic<int>>(std::size_t(st.tiles_y));
  for (int b = 0; b < st.tiles_y; ++b) band_done[std::size_t(b)].store(0, std::memory_order_relaxed);
  const std::uint32_t* order = st.tile_order.data();
  const int tiles_x = st.tiles_x;
  parallel_for_tiles(ntiles, threads, [&](int i) {
    const int t = int(order[i]);
    k.forward_tile(fa, t, flags);
    const int band = t / tiles_x;
    if (band_done[std::size_t(band)].fetch_add(1, std::memory_order_acq_rel) + 1 == tiles_x) compose(st, fa, band);
  });
}

}  // namespace glint::cpu::stage
