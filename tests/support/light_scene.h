#pragma once
// The constructed lighting test scene: a flat ground of splats (2 x 2 m at z = 0) and a
// hollow box of splats floating above it, with analytic ray-box occlusion to compare to.
#include <algorithm>
#include <cmath>

#include "glint/core/gaussians.h"
#include "glint/core/math.h"
#include "glint/light/lights.h"
#include <cstdio>

namespace glint::test {

inline constexpr double kBoxHalf = 0.25, kBoxLo = 0.3, kBoxHi = 0.8, kGroundHalf = 1.0;

inline void add_splat(GaussianModel& m, Vec3d p, Vec3d s, float opacity_logit = 5.f) {
  const std::size_t i = m.size();
  m.resize(i + 1);
  store3(m.means.data(), long(i), Vec3f{float(p.x), float(p.y), float(p.z)});
  store3(m.log_scales.data(), long(i), Vec3f{float(std::log(s.x)), float(std::log(s.y)), float(std::log(s.z))});
  store_quat(m.quats.data(), long(i), Quatf{1, 0, 0, 0});
  m.opacity_logits[i] = opacity_logit;
  store3(m.sh_dc.data(), long(i), Vec3f{0, 0, 0});
}

// Ground: flat splats on z = 0; box: flat splats on its six faces, 2 cm apart.
inline GaussianModel ground_and_box() {
  GaussianModel m;
  const double h = 0.02, sig = 0.012, thin = 0.002;
  for (double x = -kGroundHalf; x <= kGroundHalf + 1e-9; x += h)
    for (double y = -kGroundHalf; y <= kGroundHalf + 1e-9; y += h) add_splat(m, {x, y, 0}, {sig, sig, thin});
  const int n = static_cast<int>(std::lround(2 * kBoxHalf / h));
  for (int a = 0; a <= n; ++a)
    for (int b = 0; b <= n; ++b) {
      const double u = -kBoxHalf + a * h, v = -kBoxHalf + b * h;
      const double w = kBoxLo + (kBoxHi - kBoxLo) * b / n;
      add_splat(m, {u, v, kBoxLo}, {sig, sig, thin});
      add_splat(m, {u, v, kBoxHi}, {sig, sig, thin});
      // Wall splats on the vertical edges are narrow: seen edge-on from above, a wall's
      // 26 stacked splats reach 2.7 sigma past its end before the transmittance rises
      // above 0.5, which would widen the silhouette at the box corners.
      const double st = (a == 0 || a == n) ? 0.004 : sig;
      add_splat(m, {-kBoxHalf, u, w}, {thin, st, sig});
      add_splat(m, {kBoxHalf, u, w}, {thin, st, sig});
      add_splat(m, {u, -kBoxHalf, w}, {st, thin, sig});
      add_splat(m, {u, kBoxHalf, w}, {st, thin, sig});
    }
  return m;
}

// Does the segment from g towards the light (or along a sun direction) cross the box,
// grown by `grow` (the splats reach past the face grid by about one sigma)?
inline bool blocked(Vec3d g, Vec3d dir, double tmax, double grow) {
  const double lo[3] = {-kBoxHalf - grow, -kBoxHalf - grow, kBoxLo - grow};
  const double hi[3] = {kBoxHalf + grow, kBoxHalf + grow, kBoxHi + grow};
  const double o[3] = {g.x, g.y, g.z}, d[3] = {dir.x, dir.y, dir.z};
  double t0 = 0, t1 = tmax;
  for (int k = 0; k < 3; ++k) {
    if (std::abs(d[k]) < 1e-12) {
      if (o[k] < lo[k] || o[k] > hi[k]) return false;
      continue;
    }
    double a = (lo[k] - o[k]) / d[k], b = (hi[k] - o[k]) / d[k];
    if (a > b) std::swap(a, b);
    t0 = std::max(t0, a);
    t1 = std::min(t1, b);
  }
  return t0 <= t1;
}

struct Mismatch {
  long samples = 0, wrong = 0, wrong_far = 0;
};

// Ground samples on a grid of `pitch`; a wrong classification is "far" when no sample
// within `tol` of it has the other analytic answer, i.e. it is not at a shadow edge.
template <class Vis>
Mismatch compare(const Light& light, double pitch, double tol, double grow, Vis vis) {
  Mismatch r;
  auto analytic = [&](Vec3d g) {
    if (light.type == LightType::Sun) return blocked(g, light.direction, 1e9, grow);
    Vec3d d = light.position - g;
    return blocked(g, d, 1.0, grow);
  };
  for (double x = -kGroundHalf + 0.05; x <= kGroundHalf - 0.05; x += pitch)
    for (double y = -kGroundHalf + 0.05; y <= kGroundHalf - 0.05; y += pitch) {
      const Vec3d g{x, y, 0};
      if (std::abs(x) <= kBoxHalf + grow && std::abs(y) <= kBoxHalf + grow) continue;  // under the box
      const bool shadow = analytic(g);
      const double v = vis(g);
      ++r.samples;
      if ((v < 0.5) == shadow) continue;
      ++r.wrong;
      bool edge = false;
      for (int k = 0; k < 16 && !edge; ++k) {
        const double a = k * 3.141592653589793 / 8;
        edge = analytic({x + tol * std::cos(a), y + tol * std::sin(a), 0}) != shadow;
      }
      r.wrong_far += !edge;
      if (!edge && r.wrong_far <= 5) std::printf("  far from an edge: (%.3f, %.3f) vis %.2f\n", x, y, v);
    }
  return r;
}

}  // namespace glint::test
