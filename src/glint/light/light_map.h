#pragma once
// What the visibility maps rendered from a light (median-depth shadow maps, transmittance
// maps) share: the texel grid, the PCF window, the lookup biases, and the face cameras
// with a guard band wide enough for both.
#include <algorithm>
#include <cmath>

#include "glint/light/light_views.h"
#include "glint/light/lights.h"

namespace glint {

struct LightMapParams {
  int resolution = 512;          // texels per face side
  int pcf_kernel = 3;            // odd PCF window side in texels (1 = a single tap)
  double constant_bias = 1.0;    // in texels (world size of a texel at the point)
  double slope_bias = 2.0;       // texels times tan(angle between normal and light), tan capped at 10
  double normal_offset = 1.5;    // texels along the normal before projecting
  double sun_distance_factor = 1000;  // emulated orthographic: camera distance in scene radii
  // Cube maps: a lookup up to this far past its face's edge (tan of the angle beyond 45
  // degrees) may use the neighbouring face, when that face's axis is closer to the
  // surface normal; the guard band grows by as many texels. Map texels hold splat-centre
  // depths, exact for a surface facing the face's axis and off by up to a splat's extent
  // for one seen at 45 degrees, which the biases do not cover next to a face border.
  double face_switch = 0.1;
};

// The light's face cameras for a map with these parameters, with a guard band of the PCF
// radius plus the normal offset and two texels of rounding (plus the face-switch band for
// a cube). Throws glint::Error (prefixed
// with `what`) for an even or non-positive PCF kernel.
// The guard band a map of these parameters keeps (light_views.h), cube face switching aside.
int light_map_guard_px(const LightMapParams& p);

LightViews make_light_map_views(const Light& light, const SceneBounds& bounds, const LightMapParams& params,
                                const char* what);

// Mean of tap(x, y) over the kernel x kernel texels around (u, v) (pixel coordinates,
// centres at +0.5), coordinates clamped to the width x height face.
template <class Tap>
double pcf_mean(int width, int height, double u, double v, int kernel, Tap tap) {
  const int r = kernel / 2;
  const int cx = static_cast<int>(std::floor(u)), cy = static_cast<int>(std::floor(v));
  double sum = 0;
  for (int dy = -r; dy <= r; ++dy)
    for (int dx = -r; dx <= r; ++dx) sum += tap(std::clamp(cx + dx, 0, width - 1), std::clamp(cy + dy, 0, height - 1));
  return sum / ((2 * r + 1) * (2 * r + 1));
}

// The biased lookup point and depth tolerance of a surface point x with normal n (zero
// normal: no offset, no slope bias).
struct ShadowLookup {
  int face = -1;
  double u = 0, v = 0;  // pixel coordinates in the face (centres at +0.5)
  double z = 0;         // the point's z-depth in the face, bias already subtracted
};
ShadowLookup shadow_lookup(const LightViews& views, const Light& light, Vec3d x, Vec3d n, const LightMapParams& params);

}  // namespace glint
