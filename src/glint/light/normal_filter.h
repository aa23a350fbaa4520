#pragma once
// Edge-aware smoothing of a world-space normal map. Blended splat normals are noisy from
// pixel to pixel (each pixel mixes a few ellipsoids whose shortest axes disagree by several
// degrees) while real creases are rare and come with a change of depth or of the normal
// itself, so the smoothing weights neighbours by distance, by depth similarity and by
// normal similarity, not by colour (texture edges are not geometry edges).
#include "glint/core/image.h"

namespace glint {

struct NormalFilterParams {
  float sigma_spatial_px = 2.0f;  // Gaussian over pixel distance; 0 turns the filter off
  int radius_px = 0;              // window half size; 0 = ceil(2 * sigma_spatial_px)
  float sigma_depth_rel = 0.01f;  // Gaussian over |z_j - z_i| / z_i
  float sigma_angle_deg = 20.f;   // Gaussian over the angle between the two normals
};

// `normal` [H,W,3] (zero = no surface), `depth` [H,W,1] z-depth (0 = no surface). Returns
// unit normals; pixels without a surface stay zero.
ImageF smooth_normals(const ImageF& normal, const ImageF& depth, const NormalFilterParams& params = {});

}  // namespace glint
