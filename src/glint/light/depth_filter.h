#pragma once
// Edge-aware cleanup of rendered depth and normals derived from it. Splat depth is noisy on
// flat regions (each pixel blends a few overlapping ellipsoids) but its discontinuities sit
// where the colour changes, so the colour image guides the smoothing.
#include "glint/core/camera.h"
#include "glint/core/image.h"

namespace glint {

struct DepthFilterParams {
  float sigma_spatial_px = 2.0f;  // Gaussian over pixel distance
  int radius_px = 0;              // window half size; 0 = ceil(2 * sigma_spatial_px)
  float sigma_range = 0.1f;       // Gaussian over the guide's colour distance (values in [0,1])
  float alpha_threshold = 0.5f;   // pixels with alpha <= this have no depth and are skipped
};

// Joint bilateral filter of `depth` ([H,W,1]) guided by `guide` ([H,W,1|3]). Only valid
// pixels (alpha > threshold, depth > 0; alpha may be null) are filtered and contribute;
// invalid ones are returned unchanged.
ImageF joint_bilateral_depth(const ImageF& depth, const ImageF& guide, const ImageF* alpha,
                             const DepthFilterParams& params = {});

// Camera-space unit normals ([H,W,3]) from z-depth: the cross product of the x and y
// differences of back-projected points. At each pixel each axis takes the one-sided
// difference with the smaller depth change, so a normal at a depth discontinuity belongs
// to the surface the pixel is on. Normals face the camera; zero where depth is invalid
// (alpha <= threshold or depth <= 0) or no neighbour on an axis is valid.
ImageF normals_from_depth(const Camera& camera, const ImageF& depth, const ImageF* alpha,
                          float alpha_threshold = 0.5f);
// The same, rotated to world space.
ImageF world_normals_from_depth(const Camera& camera, const ImageF& depth, const ImageF* alpha,
                                float alpha_threshold = 0.5f);

}  // namespace glint
