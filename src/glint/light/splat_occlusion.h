#pragma once
// Ambient occlusion baked per splat, for viewers that de-light with one value a splat
// instead of a per-pixel estimate: the estimator of ambient_occlusion.h evaluated at each
// splat's centre with its normal (the axis of its smallest scale, render/project.h). The
// sign of that normal depends on the camera (it is turned to face it), so both sides are
// baked; a viewer picks the side facing its camera.
#include <vector>

#include "glint/core/gaussians.h"
#include "glint/light/ambient_occlusion.h"

namespace glint {

// Splat i as a surface element: its centre and its normal axis, the column of its rotation
// for its smallest scale (first on ties), either sign.
struct SplatSurfel {
  Vec3d centre, axis;
};
SplatSurfel splat_surfel(const GaussianModel& model, std::size_t i);

// [N*2]: index 2i is AO with normal +axis_i, 2i+1 with -axis_i (axis_i the column of the
// splat's rotation for its smallest scale, first on ties).
std::vector<float> splat_ambient_occlusion(const AoMaps& maps, const GaussianModel& model);

}  // namespace glint
