#pragma once
// Axis-aligned rectangles on the ground (in a GroundFrame's u, v) and the rule that gives
// every point of the ground exactly one cell.
#include <algorithm>

#include "glint/core/math.h"

namespace glint::partition {

struct GroundRect {
  double u0 = 0, u1 = 0, v0 = 0, v1 = 0;

  double width() const { return u1 - u0; }
  double depth() const { return v1 - v0; }
  double area() const { return width() * depth(); }
  bool overlaps(const GroundRect& o) const { return u0 < o.u1 && o.u0 < u1 && v0 < o.v1 && o.v0 < v1; }
  GroundRect grown(double du, double dv) const { return {u0 - du, u1 + du, v0 - dv, v1 + dv}; }
  GroundRect clipped_to(const GroundRect& b) const {
    return {std::max(u0, b.u0), std::min(u1, b.u1), std::max(v0, b.v0), std::min(v1, b.v1)};
  }
  bool operator==(const GroundRect&) const = default;
};

// Whether the ground point p belongs to `r`, one of the rectangles that tile `bounds`:
// p is first clamped into the bounds (the outer cells reach to infinity), then tested
// half-open, [u0, u1) x [v0, v1), with the bounds' own upper edges closed. Of rectangles
// that tile the bounds, exactly one contains any point.
inline bool contains_clamped(const GroundRect& r, const GroundRect& bounds, Vec2d p) {
  const double u = std::clamp(p.x, bounds.u0, bounds.u1), v = std::clamp(p.y, bounds.v0, bounds.v1);
  const bool in_u = r.u0 <= u && (u < r.u1 || (u == r.u1 && r.u1 == bounds.u1));
  const bool in_v = r.v0 <= v && (v < r.v1 || (v == r.v1 && r.v1 == bounds.v1));
  return in_u && in_v;
}

}  // namespace glint::partition
