#pragma once
// Geometry regularisers of the 2DGS / PGSR line, with their gradients:
//  * normal consistency: mean over covered interior pixels of 1 - <n_rendered, n_depth>,
//    where n_rendered is the normalised blended splat normal and n_depth the normal of the
//    surface the rendered (expected) depth describes, by central differences. Gradients go
//    to both the normal image and the depth image.
//  * flattening: mean over splats of the smallest scale, pushing splats towards discs whose
//    shortest axis is the surface normal.
//  * depth distortion: mean over pixels of sum_ij w_i w_j |z_i - z_j| (the rasterizer's
//    `distortion` output), pulling the splats a pixel sees towards one depth.
#include "glint/core/camera.h"
#include "glint/core/gaussians.h"
#include "glint/core/image.h"

namespace glint {

struct NormalConsistency {
  double loss = 0;     // weighted mean
  long pixels = 0;     // pixels that took part
  ImageF d_normal;     // [H,W,3] dL/d(rendered normal, unnormalised)
  ImageF d_depth;      // [H,W,1] dL/d(expected depth)
};

// normal: world-space blended normals; depth: z-depth; alpha: coverage. Pixels take part
// when they and their 4 neighbours have alpha > alpha_threshold and depth > 0.
// edge_eps > 0 (--normal-edge): a taking-part pixel on a depth edge
// (normal_consistency_math.h: normal_consistency_edge) adds no term and no gradient, but
// still counts in `pixels`, the mean's divisor, so that the weight of the other pixels does
// not grow with the number of edges in view. edge_eps = 0 is the loss without the test, bit
// for bit.
NormalConsistency normal_consistency(const Camera& camera, const ImageF& normal, const ImageF& depth,
                                     const ImageF& alpha, float weight, float alpha_threshold = 0.5f,
                                     float edge_eps = 0.f);

struct DistortionLoss {
  double loss = 0;     // weighted mean
  ImageF d_distortion; // [H,W,1] dL/d(distortion): weight / pixels everywhere
};

// weight * mean over pixels of the rendered distortion image.
DistortionLoss distortion_loss(const ImageF& distortion, float weight);

// weight * mean_i min_k exp(log_scale_ik); adds its gradient into d_log_scales [N,3].
double flatten_loss(const GaussianModel& model, float weight, float* d_log_scales);

}  // namespace glint
