// Shadows of a constructed splat scene against analytic ray-box intersection: a flat
// ground of splats and a box of splats above it.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include "glint/backend/backend.h"
#include "glint/light/light_map.h"
#include "glint/light/shadow_map.h"
#include "support/light_scene.h"

using namespace glint;
using namespace glint::test;

namespace {

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

// Many lights' faces go to the backend in batches (more faces than one batch here: three
// point lights' cubes and two suns): every map is the one its light renders alone.
TEST(LightShadow, BatchedMapsAreEachLightsOwn) {
  const GaussianModel m = ground_and_box();
  auto backend = make_cpu_backend();
  const SceneBounds bounds = bounds_of_points(m.means);
  const std::vector<Light> lights = {Light::point_from_power({0.8, -0.5, 1.2}, 100), Light::sun({0, 0, 1}, 3),
                                     Light::point_from_power({-0.7, 0.6, 1.0}, 50),
                                     Light::sun(normalize(Vec3d{0.5, 0.2, 1}), 2),
                                     Light::point_from_power({0.1, 0.9, 0.8}, 70)};
  ShadowMapParams p;
  p.resolution = 48;
  const std::vector<ShadowMap> maps = render_shadow_maps(*backend, m, lights, bounds, p);
  ASSERT_EQ(maps.size(), lights.size());
  std::size_t faces = 0;
  for (std::size_t l = 0; l < lights.size(); ++l) {
    const ShadowMap alone = render_shadow_map(*backend, m, lights[l], bounds, p);
    ASSERT_EQ(maps[l].depth.size(), alone.depth.size()) << l;
    for (std::size_t f = 0; f < alone.depth.size(); ++f) {
      EXPECT_TRUE(std::ranges::equal(maps[l].depth[f].data, alone.depth[f].data)) << l << " " << f;
      EXPECT_EQ(maps[l].depth[f].width, 48);
    }
    faces += alone.depth.size();
  }
  EXPECT_EQ(faces, 20u);
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

// The batched lookups (a sun's four at a time on lanes; a point light's one by one) give
// shadow_visibility's values: lit, shadowed and partly lit points, points outside the
// sun's face, zero normals, normals facing away, batches of every length up to a group.
TEST(LightShadow, BatchedLookupsEqualOnePointLookups) {
  GaussianModel m = ground_and_box();
  auto backend = make_cpu_backend();
  const SceneBounds bounds = bounds_of_points(m.means);
  const Light sun = Light::sun(normalize(Vec3d{0.4, -0.3, 1}), 1.0);
  const Light pt = Light::point({0.3, 0.2, 1.6}, 10.0);
  ShadowMapParams p;
  p.resolution = 96;
  std::vector<Vec3d> xs, ns;
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> U(-1.6, 1.6), S(-0.6, 0.4);  // S: around the box's shadow
  std::normal_distribution<double> N(0, 1);
  for (int i = 0; i < 403; ++i) {
    if (i % 3 == 1) xs.push_back({S(rng), S(rng), 0.0});
    else xs.push_back({U(rng), U(rng), i % 3 == 0 ? kBoxHi : 0.5 * (U(rng) + 1.6)});
    const Vec3d r{N(rng), N(rng), N(rng)};
    ns.push_back(i % 17 == 0 ? Vec3d{0, 0, 0} : (i % 5 == 0 ? normalize(r) : normalize(Vec3d{0, 0, 1} + 0.3 * r)));
  }
  for (const Light& light : {sun, pt}) {
    const ShadowMap map = render_shadow_map(*backend, m, light, bounds, p);
    long shadowed = 0;
    for (int count : {403, 1, 2, 3, 4, 5}) {
      std::vector<double> got(static_cast<std::size_t>(count));
      shadow_visibility_batch(map, light, xs.data(), ns.data(), count, got.data());
      for (int i = 0; i < count; ++i) {
        const double want = shadow_visibility(map, light, xs[i], ns[i]);
        EXPECT_EQ(got[i], want) << light_type_name(light.type) << " point " << i << " of " << count;
        shadowed += want < 1;
      }
    }
    EXPECT_GT(shadowed, 20) << light_type_name(light.type);
  }
}

// A spot's perspective map has texels of a cube face's mean solid angle (4 pi / 6 over the
// side squared) at its centre: the relight benchmark's 22.9 degree spot at 384 texels gets
// 384 * 2 tan(11.45 deg) / sqrt(4 pi / 6) = 107; a wide cone is capped at the side given, a
// narrow one kept above its guard bands; the shadow map is rendered at that side and still
// shadows the ground below the box.
TEST(LightShadow, SpotMapTexelsHaveACubeFacesSolidAngle) {
  const double deg = 3.14159265358979 / 180;
  EXPECT_EQ(spot_map_resolution(384, 22.9 * deg, 5), 107);
  EXPECT_EQ(spot_map_resolution(384, 110 * deg, 5), 384);
  EXPECT_EQ(spot_map_resolution(384, 0.5 * deg, 5), 28);
  EXPECT_EQ(spot_map_resolution(16, 0.5 * deg, 5), 16);
  const double cone = 40 * deg;  // from 2.3 m above the box: its shadow and the ground around it
  GaussianModel m = ground_and_box();
  auto backend = make_cpu_backend();
  const Light spot = Light::spot({0, 0, 2.3}, {0, 0, -1}, 10, cone, 0.1);
  ShadowMapParams p;
  p.resolution = 384;
  const ShadowMap map = render_shadow_maps(*backend, m, {spot}, bounds_of_points(m.means), p).front();
  const int side = spot_map_resolution(384, cone, light_map_guard_px(p));
  EXPECT_EQ(map.views.faces.front().width, side);
  EXPECT_EQ(map.params.resolution, side);
  EXPECT_LT(side, 384);
  EXPECT_LT(shadow_visibility(map, spot, {0, 0, 0}, {0, 0, 1}), 0.05);      // under the box
  EXPECT_GT(shadow_visibility(map, spot, {0, 0.45, 0}, {0, 0, 1}), 0.95);  // lit ground beside it
}

// The PCF window's taps against a slow reference that compares each texel with the
// lookup's depth in double, on texels set at and around that depth in float (the nearest
// float, the floats either side, empty and NaN texels), for kernels of 1 to 7 texels: the
// taps may compare in float only where that changes no answer. A point light's cube map,
// whose lookups are shadow_lookup's, so the reference finds the same window and depth, and
// a sun's map, looked up one point at a time and in batches (whose taps run on the
// vector units the machine has).
TEST(LightShadow, PcfTapsCompareEachTexelAsTheDepthItself) {
  GaussianModel m = ground_and_box();
  auto backend = make_cpu_backend();
  const SceneBounds bounds = bounds_of_points(m.means);
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> U(-1.4, 1.4);
  std::uniform_int_distribution<int> pick(0, 7);
  long ties = 0, compared = 0;
  for (const Light& pt : {Light::point({0.3, 0.2, 1.6}, 10.0), Light::sun(normalize(Vec3d{0.3, -0.2, 1}), 1.0)})
  for (int k : {1, 3, 5, 7, 9}) {  // 9: wider than the lanes, tap by tap
    ShadowMapParams p;
    p.resolution = 48;
    p.pcf_kernel = k;
    ShadowMap map = render_shadow_map(*backend, m, pt, bounds, p);
    for (int i = 0; i < 300; ++i) {
      const Vec3d x{U(rng), U(rng), i % 2 == 0 ? 0.0 : kBoxHi}, n{0, 0, 1};
      const ShadowLookup L = shadow_lookup(map.views, pt, x, n, map.params);
      if (L.face < 0) continue;
      ImageF& d = map.depth[static_cast<std::size_t>(L.face)];
      const int cx = static_cast<int>(std::floor(L.u)), cy = static_cast<int>(std::floor(L.v)), r = k / 2;
      const float near = static_cast<float>(L.z);
      const float values[8] = {near,
                               std::nextafter(near, 0.f),
                               std::nextafter(near, 1e30f),
                               0.f,
                               std::numeric_limits<float>::quiet_NaN(),
                               near * 0.5f,
                               near * 2.f,
                               std::nextafter(std::nextafter(near, 0.f), 0.f)};
      int lit = 0;
      for (int yy = cy - r; yy <= cy + r; ++yy)
        for (int xx = cx - r; xx <= cx + r; ++xx) {
          float& t = d.data[static_cast<std::size_t>(std::clamp(yy, 0, d.height - 1)) * d.width +
                            std::clamp(xx, 0, d.width - 1)];
          t = values[pick(rng)];
          ties += t == near;
        }
      for (int yy = cy - r; yy <= cy + r; ++yy)
        for (int xx = cx - r; xx <= cx + r; ++xx) {
          const double t = d.data[static_cast<std::size_t>(std::clamp(yy, 0, d.height - 1)) * d.width +
                                  std::clamp(xx, 0, d.width - 1)];
          lit += !(t > 0) || L.z <= t;
        }
      EXPECT_EQ(shadow_visibility(map, pt, x, n), static_cast<double>(lit) / (k * k)) << "kernel " << k << " point " << i;
      if (pt.type == LightType::Sun) {
        double batched = -1;
        shadow_visibility_batch(map, pt, &x, &n, 1, &batched);
        EXPECT_EQ(batched, static_cast<double>(lit) / (k * k)) << "kernel " << k << " point " << i;
      }
      ++compared;
    }
  }
  EXPECT_GT(compared, 1000);
  EXPECT_GT(ties, 2000);
}
