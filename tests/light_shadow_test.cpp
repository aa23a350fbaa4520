// Shadows of a constructed splat scene against analytic ray-box intersection: a flat
// ground of splats and a box of splats above it.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>

#include "glint/backend/backend.h"
#include "glint/light/shadow_map.h"

using namespace glint;

namespace {

constexpr double kBoxHalf = 0.25, kBoxLo = 0.3, kBoxHi = 0.8, kGroundHalf = 1.0;

void add_splat(GaussianModel& m, Vec3d p, Vec3d s) {
  const std::size_t i = m.size();
  m.resize(i + 1);
  store3(m.means.data(), long(i), Vec3f{float(p.x), float(p.y), float(p.z)});
  store3(m.log_scales.data(), long(i), Vec3f{float(std::log(s.x)), float(std::log(s.y)), float(std::log(s.z))});
  store_quat(m.quats.data(), long(i), Quatf{1, 0, 0, 0});
  m.opacity_logits[i] = 5.f;
  store3(m.sh_dc.data(), long(i), Vec3f{0, 0, 0});
}

// Ground: flat splats on z = 0; box: flat splats on its six faces, 2 cm apart.
GaussianModel ground_and_box() {
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
bool blocked(Vec3d g, Vec3d dir, double tmax, double grow) {
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

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

TEST(LightShadow, SunOverheadShadowIsTheBoxFootprint) {
  GaussianModel m = ground_and_box();
  auto backend = make_cpu_backend();
  const Light sun = Light::sun({0, 0, 1}, 3);
  ShadowMapParams p;
  p.resolution = 256;
  p.pcf_kernel = 1;
  auto t0 = std::chrono::steady_clock::now();
  ShadowMap map = render_shadow_map(*backend, m, sun, bounds_of_points(m.means), p);
  const double ms = ms_since(t0);
  ASSERT_EQ(map.depth.size(), 1u);
  const Camera& cam = map.views.faces[0];
  const double texel = cam.world_to_camera({0, 0, 0}).z / cam.fx;
  // Sampled at the texel pitch; allowed errors only within 2 texels of the footprint edge.
  Mismatch r = compare(sun, texel, 2 * texel, 0.012, [&](Vec3d g) { return shadow_visibility(map, sun, g, {0, 0, 1}); });
  std::printf("[ shadow ] sun map %dx%d, %zu splats: %.1f ms; texel %.4f m; %ld/%ld wrong (%ld away from the edge)\n",
              p.resolution, p.resolution, m.size(), ms, texel, r.wrong, r.samples, r.wrong_far);
  EXPECT_EQ(r.wrong_far, 0);
  EXPECT_GT(r.samples, 10000);
  // Inside the footprint the ground is dark, far outside it is lit, and the box top is lit.
  EXPECT_EQ(shadow_visibility(map, sun, {0, 0, 0}, {0, 0, 1}), 0.0);
  EXPECT_EQ(shadow_visibility(map, sun, {0.6, 0.6, 0}, {0, 0, 1}), 1.0);
  EXPECT_EQ(shadow_visibility(map, sun, {0.05, 0.05, kBoxHi}, {0, 0, 1}), 1.0);
}

// The depth definition of the maps, measured: median against alpha-normalised expected
// depth, with a sun at 40 deg so the shadow falls on open ground.
TEST(LightShadow, MedianAndExpectedDepthCompared) {
  GaussianModel m = ground_and_box();
  auto backend = make_cpu_backend();
  const Light sun = Light::sun({0.55, 0.25, 0.8}, 3);
  long far[2];
  for (int k = 0; k < 2; ++k) {
    ShadowMapParams p;
    p.resolution = 256;
    p.pcf_kernel = 1;
    p.depth = k == 0 ? ShadowDepth::Median : ShadowDepth::Expected;
    ShadowMap map = render_shadow_map(*backend, m, sun, bounds_of_points(m.means), p);
    const double texel = map.views.faces[0].world_to_camera({0, 0, 0}).z / map.views.faces[0].fx;
    Mismatch r = compare(sun, texel, 2 * texel, 0.012, [&](Vec3d g) { return shadow_visibility(map, sun, g, {0, 0, 1}); });
    std::printf("[ shadow ] %s depth, oblique sun: %ld/%ld wrong (%ld away from the edge)\n",
                k == 0 ? "median" : "expected", r.wrong, r.samples, r.wrong_far);
    far[k] = r.wrong_far;
  }
  EXPECT_EQ(far[0], 0);
}

TEST(LightShadow, PointLightShadowIsSeamlessAcrossCubeFaces) {
  GaussianModel m = ground_and_box();
  auto backend = make_cpu_backend();
  // The +X/-Z cube-face border (x - lx = lz - z) crosses the ground at x = 0.4, right
  // through the box's shadow, which spans x in [-0.07, 1].
  const Light pt = Light::point({-0.8, 0, 1.2}, 10);
  ShadowMapParams p;
  p.resolution = 256;
  p.pcf_kernel = 3;
  auto t0 = std::chrono::steady_clock::now();
  ShadowMap map = render_shadow_map(*backend, m, pt, bounds_of_points(m.means), p);
  const double ms = ms_since(t0);
  ASSERT_EQ(map.depth.size(), 6u);
  EXPECT_EQ(map.views.face_of({0.39, 0, 0}), 5);  // -Z
  EXPECT_EQ(map.views.face_of({0.41, 0, 0}), 0);  // +X
  Mismatch r = compare(pt, 0.01, 0.035, 0.012, [&](Vec3d g) { return shadow_visibility(map, pt, g, {0, 0, 1}); });
  std::printf("[ shadow ] point cube 6x%dx%d: %.1f ms (%.1f ms a face); %ld/%ld wrong (%ld away from edges)\n",
              p.resolution, p.resolution, ms, ms / 6, r.wrong, r.samples, r.wrong_far);
  EXPECT_EQ(r.wrong_far, 0);
  // Along the seam line inside the shadow: dark on both sides of the border.
  for (double y = -0.1; y <= 0.1; y += 0.01)
    for (double x : {0.38, 0.39, 0.40, 0.41, 0.42}) EXPECT_EQ(shadow_visibility(map, pt, {x, y, 0}, {0, 0, 1}), 0.0) << x << "," << y;
  // And lit across the seam outside the shadow.
  for (double x : {0.38, 0.40, 0.42}) EXPECT_EQ(shadow_visibility(map, pt, {x, 0.8, 0}, {0, 0, 1}), 1.0) << x;
}
