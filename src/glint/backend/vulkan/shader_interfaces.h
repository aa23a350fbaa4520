#pragma once
// Each shader of shaders/ as the C++ side calls it: its name, push-constant struct and the
// storage buffers it binds, in binding order (In<T>: read, Out<T>: written). dispatch.h
// compiles a call only when its arguments are exactly these, and the pipeline is made only
// when the SPIR-V's reflection agrees with them.
#include <cstdint>
#include <tuple>

#include "glint/backend/vulkan/dispatch.h"

namespace glint::vk::shaders {

using u32 = std::uint32_t;
using i32 = std::int32_t;

struct Project {
  static constexpr const char* kName = "project";
  using Push = ProjectPush;
  // means, log_scales, quats, opacity logits, sh_dc, sh_rest -> splats, tile counts, radii
  using Args = std::tuple<In<float>, In<float>, In<float>, In<float>, In<float>, In<float>, Out<ProjectedSplat>,
                          Out<u32>, Out<i32>>;
};

struct TileKeys {
  static constexpr const char* kName = "tile_keys";
  using Push = TileKeysPush;
  // splats, offsets -> key low words, key high words, slots, splat of each slot
  using Args = std::tuple<In<ProjectedSplat>, In<u32>, Out<u32>, Out<u32>, Out<u32>, Out<u32>>;
};

struct ScanBlocks {
  static constexpr const char* kName = "scan_blocks";
  using Push = CountPush;
  using Args = std::tuple<Out<u32>, Out<u32>>;  // values (scanned in place), block sums
};

struct ScanAdd {
  static constexpr const char* kName = "scan_add";
  using Push = CountPush;
  using Args = std::tuple<Out<u32>, In<u32>>;  // values, scanned block sums
};

struct RadixCount {
  static constexpr const char* kName = "radix_count";
  using Push = CountPush;
  using Args = std::tuple<In<u32>, In<u32>, Out<u32>>;  // key low, key high -> histogram
};

struct RadixScatter {
  static constexpr const char* kName = "radix_scatter";
  using Push = CountPush;
  // key low, key high, values, scanned histogram -> the same three, reordered
  using Args = std::tuple<In<u32>, In<u32>, In<u32>, In<u32>, Out<u32>, Out<u32>, Out<u32>>;
};

struct TileRanges {
  static constexpr const char* kName = "tile_ranges";
  using Push = CountPush;
  // sorted key high words (tiles), sorted slots, splat of each slot -> sorted splats, ranges
  using Args = std::tuple<In<u32>, In<u32>, In<u32>, Out<u32>, Out<u32>>;
};

struct Blend {
  static constexpr const char* kName = "blend";
  using Push = BlendPush;
  // splats, sorted splats, ranges -> rgb, alpha, t_final, last, depth, depth_sum, median,
  // median_at, normal, distortion, dist_r, dist_z0, count, status (1: a walk was cut short)
  using Args = std::tuple<In<ProjectedSplat>, In<u32>, In<u32>, Out<float>, Out<float>, Out<float>, Out<u32>,
                          Out<float>, Out<float>, Out<float>, Out<u32>, Out<float>, Out<float>, Out<float>,
                          Out<float>, Out<float>, Out<u32>>;
};

struct BlendBackward {
  static constexpr const char* kName = "blend_backward";
  using Push = BlendPush;
  // splats, sorted splats, sorted slots, ranges, t_final, last, depth_sum, median_at, dist_r,
  // dist_z0, d_rgb, d_alpha, d_depth, d_median, d_normal, d_distortion -> records, status
  using Args = std::tuple<In<ProjectedSplat>, In<u32>, In<u32>, In<u32>, In<float>, In<u32>, In<float>, In<u32>,
                          In<float>, In<float>, In<float>, In<float>, In<float>, In<float>, In<float>, In<float>,
                          Out<float>, Out<u32>>;
};

struct SplatBackward {
  static constexpr const char* kName = "splat_backward";
  using Push = SplatBackwardPush;
  // means, log_scales, quats, opacity, sh_dc, sh_rest, splats, offsets, records -> the
  // gradients of means, log_scales, quats, opacity, sh_dc, sh_rest, and mean2d
  using Args = std::tuple<In<float>, In<float>, In<float>, In<float>, In<float>, In<float>, In<ProjectedSplat>,
                          In<u32>, In<float>, Out<float>, Out<float>, Out<float>, Out<float>, Out<float>, Out<float>,
                          Out<float>>;
};

struct MathCheck {
  static constexpr const char* kName = "math_check";
  using Push = MathCheckPush;
  using Args = std::tuple<In<float>, Out<float>>;
};


// Training (device_training_session.cpp).
struct TrainTarget {
  static constexpr const char* kName = "train_target";
  using Push = TargetPush;
  using Args = std::tuple<In<u32>, Out<float>>;  // packed 8-bit view -> target
};
struct MaskWeights {
  static constexpr const char* kName = "mask_weights";
  using Push = TargetPush;
  using Args = std::tuple<In<u32>, Out<float>, Out<float>>;  // packed 8-bit mask -> weights, target (in place)
};
struct ApplyWeights {
  static constexpr const char* kName = "apply_weights";
  using Push = LossPush;
  using Args = std::tuple<In<float>, In<float>, Out<float>>;  // render, weights -> weighted render
};
// The loss shaders' last binding: the pixels' weights of a masked step (LossPush::weighted),
// else any buffer.
struct SsimForward {
  static constexpr const char* kName = "ssim_forward";
  using Push = LossPush;
  // render, target -> derivative planes, SSIM map, |render - target|; weights
  using Args = std::tuple<In<float>, In<float>, Out<float>, Out<float>, Out<float>, In<float>>;
};
struct SsimBackward {
  static constexpr const char* kName = "ssim_backward";
  using Push = LossPush;
  // derivs, render, target -> grad; weights
  using Args = std::tuple<In<float>, In<float>, In<float>, Out<float>, In<float>>;
};
struct LossL1 {
  static constexpr const char* kName = "loss_l1";
  using Push = LossPush;
  // render, target -> grad, |diff|; weights
  using Args = std::tuple<In<float>, In<float>, Out<float>, Out<float>, In<float>>;
};
struct BlockSum {
  static constexpr const char* kName = "block_sum";
  using Push = SumPush;
  using Args = std::tuple<In<float>, Out<float>>;
};
struct AdamStep {
  static constexpr const char* kName = "adam";
  using Push = AdamPush;
  // params, grads, m, v, visible -> status
  using Args = std::tuple<Out<float>, In<float>, Out<float>, Out<float>, In<float>, Out<u32>>;
};
struct SplatStep {
  static constexpr const char* kName = "splat_step";
  using Push = SplatStepPush;
  // radii, mean2d, log_scales, opacity -> visible, grad_accum, grad_count, max_radii,
  // d_log_scales, d_opacity, terms, terms2
  using Args = std::tuple<In<std::int32_t>, In<float>, In<float>, In<float>, Out<float>, Out<float>, Out<float>,
                          Out<float>, Out<float>, Out<float>, Out<float>, Out<float>>;
};
struct McmcNoise {
  static constexpr const char* kName = "mcmc_noise";
  using Push = NoisePush;
  using Args = std::tuple<In<float>, In<float>, In<float>, In<float>, Out<float>>;  // log_scales, quats, opacity, normals -> means
};
// The geometry regularisers (geometry_loss_stages.h).
struct NcPixel {
  static constexpr const char* kName = "nc_pixel";
  using Push = NcPush;
  // normal, depth, alpha -> valid, terms, unscaled d_normal, unscaled neighbour contributions
  using Args = std::tuple<In<float>, In<float>, In<float>, Out<float>, Out<float>, Out<float>, Out<float>>;
};
struct NcGather {
  static constexpr const char* kName = "nc_gather";
  using Push = NcPush;
  using Args = std::tuple<In<float>, Out<float>, Out<float>>;  // contributions, d_normal (scaled in place) -> d_depth
};
struct NonFinite {
  static constexpr const char* kName = "non_finite";
  using Push = SplatStepPush;
  using Args = std::tuple<In<float>, Out<u32>>;
};

}  // namespace glint::vk::shaders

namespace glint::vk::shaders {
// Every shader the backend dispatches (the tests make each one's pipeline on every driver).
using All = std::tuple<Project, TileKeys, ScanBlocks, ScanAdd, RadixCount, RadixScatter, TileRanges, Blend,
                       BlendBackward, SplatBackward, MathCheck, TrainTarget, MaskWeights, ApplyWeights, SsimForward,
                       SsimBackward, LossL1, BlockSum, AdamStep, SplatStep, McmcNoise, NonFinite, NcPixel,
                       NcGather>;
}  // namespace glint::vk::shaders
