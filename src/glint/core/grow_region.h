#pragma once
// The part of space where a training run may add splats (clone or split), for a run that
// trains one part of a larger scene (a partition cell, partition/cell_dataset.h): a
// rectangle on a plane, extruded along the plane's normal. A point p is inside when
// (p - origin) . u lies in [u0, u1] and (p - origin) . v in [v0, v1]; an infinite bound
// leaves that side open.
#include <array>

namespace glint {

struct GrowRegion {
  std::array<double, 3> origin{0, 0, 0}, u{1, 0, 0}, v{0, 1, 0};
  double u0 = 0, u1 = 0, v0 = 0, v1 = 0;

  bool contains(const float* p) const {
    const double d[3] = {p[0] - origin[0], p[1] - origin[1], p[2] - origin[2]};
    const double a = d[0] * u[0] + d[1] * u[1] + d[2] * u[2], b = d[0] * v[0] + d[1] * v[1] + d[2] * v[2];
    return a >= u0 && a <= u1 && b >= v0 && b <= v1;
  }
  bool operator==(const GrowRegion&) const = default;
};

}  // namespace glint
