#include "glint/backend/cuda/forward_stages.h"

#include <string>

#include "glint/backend/cuda/device_algorithms.h"
#include "glint/backend/cuda/indexing.h"
#include "glint/backend/cuda/kernels/blend_backward_kernel.h"
#include "glint/backend/cuda/kernels/blend_kernel.h"
#include "glint/backend/cuda/kernels/project_kernel.h"
#include "glint/backend/cuda/kernels/tile_list_kernels.h"
#include "glint/backend/cuda/launch.h"
#include "glint/core/error.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

void forward_frame(const render::ViewT<float>& view, const SplatGeometry& geometry, int sh_degree, bool antialiased,
                   const float background[3], DeviceFrame& f, std::uint32_t aov_flags, bool stop_at_median) {
  check_size("splats", geometry.opacity_logits.size, kMaxSplats);
  const auto n = static_cast<std::uint32_t>(geometry.opacity_logits.size);
  const auto pixels = static_cast<std::uint64_t>(view.width) * static_cast<std::uint64_t>(view.height);
  check_size("pixels in a frame", pixels, kMaxPixels);
  f.view = view;
  f.sh_degree = sh_degree;
  f.antialiased = antialiased;
  f.splats.resize(n);
  launch(project_kernel, shape_for(n), view, geometry, static_cast<std::int32_t>(sh_degree),
         static_cast<std::uint32_t>(antialiased), f.splats.span());
  f.radii.resize(n);
  launch(splat_radii_kernel, shape_for(n), f.splats.cspan(), f.radii.span());

  // offsets[i] = sum of counts before i; offsets[n] = instances (count n + 1 values, the
  // last 0), in 64 bits: a total past what the slots index is refused, not wrapped
  f.counts.resize(std::size_t{n} + 1);
  f.offsets.resize(std::size_t{n} + 1);
  launch(tile_counts_kernel, shape_for(std::size_t{n} + 1), f.splats.cspan(), f.counts.span());
  exclusive_sum(f.counts.data(), f.offsets.data(), std::size_t{n} + 1, f.scratch);
  const std::uint64_t total = download_value(f.offsets.data() + n);
  check_size("tile instances in a frame", total, kMaxInstances);
  f.instances = static_cast<std::uint32_t>(total);

  const std::uint32_t m = f.instances;
  f.keys.resize(m);
  f.splat_of_slot.resize(m);
  f.slots.resize(m);
  f.sorted_keys.resize(m);
  f.sorted_slot.resize(m);
  f.sorted_splat.resize(m);
  f.key_mismatch.resize(1);
  clear(f.key_mismatch);
  launch(tile_keys_kernel, shape_for(n), f.splats.cspan(), f.offsets.cspan(), static_cast<std::int32_t>(view.width),
         static_cast<std::int32_t>(view.height), f.keys.span(), f.splat_of_slot.span(), f.counts.span(),
         f.key_mismatch.span());
#if !defined(NDEBUG)
  if (const std::uint32_t bad = key_mismatches(f))
    throw Error("CUDA backend", "internal: " + std::to_string(bad) +
                                    " tile keys dropped or filled (the tile count and the key kernel disagree)");
#endif
  launch(iota_kernel, shape_for(m), f.slots.span());
  // stable LSD radix sort of the 64-bit keys: tile-major, depth order within a tile; the
  // slots travel along, so the backward knows each sorted instance's splat-major record
  sort_pairs(f.keys.data(), f.sorted_keys.data(), f.slots.data(), f.sorted_slot.data(), m, f.scratch);
  launch(gather_splats_kernel, shape_for(m), f.splat_of_slot.cspan(), f.sorted_slot.cspan(), f.sorted_splat.span());

  const int TS = render::kTileSize, tiles_x = (view.width + TS - 1) / TS, tiles_y = (view.height + TS - 1) / TS;
  const auto tiles = static_cast<std::uint32_t>(tiles_x * tiles_y);
  f.tiles = tiles;
  f.ranges.resize(2 * std::size_t(tiles));
  clear(f.ranges);
  launch(tile_ranges_kernel, shape_for(m), f.sorted_keys.cspan(), f.ranges.span());

  f.rgb.resize(3 * pixels);
  f.alpha.resize(pixels);
  f.t_final.resize(pixels);
  f.last.resize(pixels);
  const BlendImage img{view.width, view.height, tiles_x, {background[0], background[1], background[2]}};
  f.image = img;
  BlendAovs aov;
  aov.flags = aov_flags;
  aov.stop_at_median = stop_at_median && (aov_flags & kAovMedian) != 0 ? 1u : 0u;
  const auto sized = [&](DeviceBuffer<float>& b, std::uint32_t flag, std::size_t per_pixel) {
    if ((aov_flags & flag) == 0) return DeviceSpan<float>{};
    b.resize(per_pixel * pixels);
    return b.span();
  };
  aov.depth = sized(f.depth, kAovDepth, 1);
  aov.depth_sum = sized(f.depth_sum, kAovDepth, 1);
  aov.median = sized(f.median, kAovMedian, 1);
  if (aov_flags & kAovMedian) {
    f.median_at.resize(pixels);
    aov.median_at = f.median_at.span();
  }
  aov.normal = sized(f.normal, kAovNormal, 3);
  aov.distortion = sized(f.distortion, kAovDistortion, 1);
  aov.dist_r = sized(f.dist_r, kAovDistortion, 1);
  aov.dist_z0 = sized(f.dist_z0, kAovDistortion, 1);
  aov.count = sized(f.count, kAovCount, 1);
  f.aovs = aov;
  launch(blend_kernel, LaunchShape{dim3(tiles), dim3(kBlendThreads)}, f.splats.cspan(), f.sorted_splat.cspan(),
         f.ranges.cspan(), img, f.rgb.span(), f.alpha.span(), f.t_final.span(), f.last.span(), aov);
  check_launches("blend");
}

std::uint32_t key_mismatches(const DeviceFrame& f) {
  return f.key_mismatch.size() == 0 ? 0u : download_value(f.key_mismatch.data());
}

void backward_frame(const SplatGeometry& geometry, DeviceFrame& f, const BlendGradIn& in, DeviceGrads& grads) {
  const std::uint64_t n = geometry.opacity_logits.size;  // the forward's, <= kMaxSplats
  const std::uint32_t rec = record_floats(f.aovs.flags);
  f.records.resize(std::size_t(rec) * f.instances);
  launch(blend_backward_kernel, LaunchShape{dim3(f.tiles), dim3(kBlendThreads)}, f.splats.cspan(),
         f.sorted_splat.cspan(), f.sorted_slot.cspan(), f.ranges.cspan(), f.image, f.t_final.cspan(), f.last.cspan(),
         f.aovs, in, f.records.span());
  grads.means.resize(3 * std::size_t(n));
  grads.log_scales.resize(3 * std::size_t(n));
  grads.quats.resize(4 * std::size_t(n));
  grads.opacity_logits.resize(n);
  grads.sh_dc.resize(3 * std::size_t(n));
  grads.sh_rest.resize(45 * std::size_t(n));
  grads.mean2d.resize(2 * std::size_t(n));
  const SplatGrads out{grads.means.span(), grads.log_scales.span(), grads.quats.span(), grads.opacity_logits.span(),
                       grads.sh_dc.span(), grads.sh_rest.span(), grads.mean2d.span()};
  launch(splat_backward_kernel, shape_for(n), f.view, geometry, static_cast<std::int32_t>(f.sh_degree),
         static_cast<std::uint32_t>(f.antialiased), f.splats.cspan(), f.offsets.cspan(), f.counts.cspan(),
         f.records.cspan(), rec, out);
  check_launches("backward");
}

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
