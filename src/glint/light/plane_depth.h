#pragma once
// Planar depth of a view (the "unbiased depth" of PGSR): along each pixel's ray, the point
// on the blended plane of the splats the pixel sees,
//
//   z = sum_i w_i d_i / -(sum_i w_i n_i) . r,   d_i = n_i . (mu_i - eye) <= 0,
//
// with w_i the blend weights, n_i splat i's normal (the axis of its smallest scale, turned
// to face the camera, as the normal output), mu_i its centre and r the pixel's ray with
// camera z 1. Each splat then contributes its own plane rather than its centre's depth: on a
// surface of flat splats the point lies on the surface at every pixel, where the expected
// depth (the blended centre depths) is constant across each splat however it is tilted and
// so steps from splat to splat on a surface seen at an angle.
//
// Rendered on any backend through the colour channels: a copy of the model at SH degree 0
// whose colour is |d_i| (colours are clamped at 0, and |d_i| is not negative), on black.
#include "glint/backend/backend.h"
#include "glint/core/camera.h"
#include "glint/core/gaussians.h"
#include "glint/core/image.h"

namespace glint {

struct PlaneDepth {
  ImageF depth;     // [H,W,1] z-depth, 0 where coverage is below the threshold or no plane faces the ray
  ImageF position;  // [H,W,3] world, 0 where depth is 0
};

// `view_alpha`, `view_normal`: the alpha and normal outputs of a forward of the same model
// and camera that the caller has rendered already (the normal as rendered, not normalised);
// they are what this forward would render again, so with them it renders colour only.
// Both or neither; null: it renders them itself.
PlaneDepth render_plane_depth(const GaussianModel& model, Backend& backend, const Camera& camera,
                              float alpha_threshold, const ImageF* view_alpha = nullptr,
                              const ImageF* view_normal = nullptr);

}  // namespace glint
