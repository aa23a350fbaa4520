#pragma once
// Soft, opacity-aware visibility: the transmittance of the splats between a surface point
// and the light, instead of the binary depth test of a shadow map.
//
// What is stored: per light face, K depth planes and for each plane an image of the
// transmittance of all splats whose centre lies in front of it, T_k = 1 - alpha of that
// prefix. The rasterizer blends splats in centre-depth order, so rendering the prefix
// subset gives the exact transmittance at the plane, per pixel, with the unchanged
// backend (K renders per face). Planes sit at quantiles of the depths of the splats the face sees, so
// they are dense where the splats are.
// Lookup: T of the last plane in front of the (biased) point. Interpolating between
// planes would count part of the receiver's own splats (self-shadowing); the price of the
// step is that occluders closer to the receiver than one plane spacing are missed
// (contact shadows are weaker than with the median-depth shadow map).
#include <vector>

#include "glint/backend/backend.h"
#include "glint/core/gaussians.h"
#include "glint/core/image.h"
#include "glint/light/light_map.h"
#include "glint/light/light_views.h"
#include "glint/light/lights.h"
#include "glint/light/surface_interpolation.h"

namespace glint {

// Smaller faces and a single tap by default: up to 2 * planes renders per face.
struct TransmittanceParams : LightMapParams {
  int planes = 12;  // quantiles per face; renders per face: up to 2x this (see above)
  TransmittanceParams() {
    resolution = 256;
    pcf_kernel = 1;
    // Planes hold coverage, not splat-centre depths: no face switching, which costs this
    // map's low resolution a tenth of its texels (0.8 dB on the relight benchmark's point setup).
    face_switch = 0;
  }
};

struct TransmittanceMap {
  struct Face {
    std::vector<float> plane_z;  // ascending z-depth in the face camera
    std::vector<ImageF> T;       // [R,R,1] per plane
  };
  LightViews views;
  std::vector<Face> faces;
  TransmittanceParams params;
};

TransmittanceMap render_transmittance_map(Backend& backend, const GaussianModel& model, const Light& light,
                                          const SceneBounds& bounds, const TransmittanceParams& params = {});

// Transmittance towards the light from world point x (normal n, may be zero), PCF-averaged;
// 1 outside every face.
double transmittance_visibility(const TransmittanceMap& map, const Light& light, Vec3d x, Vec3d n);
ImageF transmittance_visibility_image(const TransmittanceMap& map, const Light& light, const ImageF& positions,
                                      const ImageF& normals);
// The same over a plan's pixels, interpolated where it allows (light/surface_interpolation.h).
ImageF transmittance_visibility_image(const TransmittanceMap& map, const Light& light,
                                      const SurfaceInterpolationPlan& plan, int width, int height);

// The splats whose index is in `keep` (model order kept), for prefix renders.
GaussianModel subset_model(const GaussianModel& model, const std::vector<std::size_t>& keep);

}  // namespace glint
