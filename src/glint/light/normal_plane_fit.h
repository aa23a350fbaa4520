#pragma once
// Shading normals from the view's own surface positions: per pixel, the normal of the
// weighted least-squares plane through its neighbours' world positions, with the blended
// splat normals as the guide that keeps the fit on one surface.
//
// Blended splat normals lean towards the camera: the splats of a flat surface spread in
// orientation (their tilt hardly changes a capture), and the ones turned towards the
// camera cover more of its pixels. The positions do not lean, and over a window of a few
// pixels the steps between single splats' depths average out; the splat normals only
// choose which neighbours share the pixel's surface (close to its tangent plane, and
// with a similar normal), so creases and occlusion edges stay sharp.
#include "glint/core/image.h"

namespace glint {

struct PlaneFitParams {
  float sigma_spatial_px = 4.0f;   // Gaussian over pixel distance
  // Samples at every stride-th pixel of every stride-th row; 0: sigma / 2 rounded (at least
  // 1), which keeps a window of about 9 x 9 samples whatever its size.
  int stride_px = 0;
  float sigma_plane_rel = 0.006f;  // Gaussian over a sample's distance from the pixel's tangent plane, / z
  // Gaussian over the angle between the pixel's and the sample's splat normal: narrow
  // enough to keep a curved surface's window (a torus tube, a sphere's facets) to the part
  // facing the pixel's way.
  float sigma_angle_deg = 10.f;
  // The fitted normal's share is exp(-q / planarity), the rest the guide's (the smoothed
  // splat normals), q = the samples' variance across the plane over their mean variance
  // along it: about 0 on a surface, large where the window holds a crease.
  float planarity = 0.1f;
};

// `normal` [H,W,3] unit splat normals (zero = no surface), `depth` [H,W,1] z-depth (0 = no
// surface), `position` [H,W,3] world positions. Returns unit normals oriented like the
// splat normals; pixels without a surface stay zero; a pixel whose samples span no plane
// (all on one line) gets the normal across the line nearest its smoothed splat normal.
ImageF fit_plane_normals(const ImageF& normal, const ImageF& depth, const ImageF& position,
                         const PlaneFitParams& params = {});
// The same one pixel at a time, without lanes: the definition the lane version is tested
// against (the same bits).
ImageF fit_plane_normals_reference(const ImageF& normal, const ImageF& depth, const ImageF& position,
                                   const PlaneFitParams& params = {});

}  // namespace glint
