#pragma once
// Adaptive density control of 3DGS (Kerbl et al. 2023, densify_and_prune), on a SplatSet.
//
// Per step, after the backward pass: accumulate_densify_stats(). After the optimizer step:
// densify_step(), which at the scheduled steps clones, splits, prunes and resets opacities
// (the order 3DGS applies them in). Steps are 1-based (schedule.h).
//
// Positional gradient statistic: 3DGS accumulates the norm of dL/d(mean2d) where its
// rasterizer's mean2d lives in NDC-like units (its backward multiplies the pixel gradient
// by 0.5 * W and 0.5 * H). With pixel-space gradients g_px from our rasterizer we
// therefore accumulate ||(g_px.x * W / 2, g_px.y * H / 2)||, so the 2e-4 threshold keeps
// its meaning.
#include <cstddef>
#include <cstdint>
#include <span>

#include "glint/train/rng.h"
#include "glint/train/splat_set.h"

namespace glint {

struct DensifyOptions {
  long densify_from = 500;     // densify at steps > densify_from ...
  long densify_until = 15000;  // ... and < densify_until (also the end of statistics and resets)
  long densify_every = 100;
  float grad_threshold = 2e-4f;  // on the mean view-space gradient norm
  float percent_dense = 0.01f;   // x extent: clone at or below, split above
  int split_count = 2;           // children a split splat becomes
  float split_scale_divisor = 1.6f;  // children's scale = parent / this (0.8 * split_count in 3DGS)
  float min_opacity = 0.005f;        // prune below
  // After the first opacity reset (step > opacity_reset_every) also prune splats larger
  // than these. 0 disables either test.
  float max_screen_radius = 20.f;  // pixels, largest radius since the last densification
  float max_world_scale = 0.1f;    // x extent, largest axis
  long opacity_reset_every = 3000;
  float opacity_reset_value = 0.01f;  // opacities are capped at this at each reset
  bool white_background = false;      // 3DGS also resets opacities at densify_from then
};

// Adds this view's statistics for the splats it saw (radius > 0): the view-space gradient
// norm above, a count, and the running maximum of the screen radius. mean2d_grads: [N,2]
// pixel-space gradients; radii: [N] pixels, 0 for splats not drawn. Does nothing once
// step >= densify_until. Sizes must match the set (std::invalid_argument otherwise).
void accumulate_densify_stats(SplatSet& set, long step, const DensifyOptions& options,
                              std::span<const float> mean2d_grads, std::span<const float> radii, int image_width,
                              int image_height);
// The same with the gradient's scales given (sx, sy: half the image's width and height
// above; backend/target_view.h gives a cropped view's).
void accumulate_densify_stats_scaled(SplatSet& set, long step, const DensifyOptions& options,
                                     std::span<const float> mean2d_grads, std::span<const float> radii, float sx,
                                     float sy);

struct DensifyReport {
  bool densified = false;  // clone/split/prune ran this step
  bool opacity_reset = false;
  std::size_t cloned = 0;  // splats added by cloning
  std::size_t split = 0;   // parents split (each replaced by split_count children)
  std::size_t pruned = 0;
};

// What the schedule calls for at this step. extent: the scene's extent (Dataset::radius).
// Deterministic for a given rng state; draws from rng only when splitting.
DensifyReport densify_step(SplatSet& set, long step, double extent, const DensifyOptions& options, Rng& rng);

// The pieces, for tests and other strategies.
// Grows, clones, splits and prunes once (3DGS densify_and_prune); prune_large enables the
// screen/world size tests. Statistics of every splat are zeroed afterwards.
DensifyReport densify_and_prune(SplatSet& set, double extent, const DensifyOptions& options, bool prune_large,
                                Rng& rng);
// Appends an exact copy of each listed splat (zero moments and statistics).
void clone_splats(SplatSet& set, std::span<const std::uint32_t> rows);
// Replaces each listed splat by `count` children: position = parent + R(q) (s * z) with
// z ~ N(0, I) and s the parent's scales (3DGS samples with std = scale), log scale =
// log(s / scale_divisor), everything else copied. Children are appended in 3DGS order
// (all first children, then all second children, ...), then the parents removed. Returns
// the number of children.
std::size_t split_splats(SplatSet& set, std::span<const std::uint32_t> rows, int count, float scale_divisor,
                         Rng& rng);
// Opacity logits set to logit(min(sigmoid(o), max_opacity)); both Adam moments of the
// opacity group zeroed, as 3DGS's replace_tensor_to_optimizer does.
void reset_opacity(SplatSet& set, float max_opacity);

}  // namespace glint
