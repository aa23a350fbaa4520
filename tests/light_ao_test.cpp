#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>

#include "glint/backend/backend.h"
#include "glint/core/error.h"
#include "glint/light/ambient_occlusion.h"
#include "support/light_scene.h"

using namespace glint;
using namespace glint::test;

namespace {
// Reference AO of a ground point (normal +z) by cosine-weighted Monte Carlo against the
// analytic box (the ground itself cannot occlude a point on it).
double reference_ao(Vec3d g, int samples) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(0, 1);
  int vis = 0;
  for (int i = 0; i < samples; ++i) {
    const double r = std::sqrt(u(rng)), phi = 2 * 3.141592653589793 * u(rng);
    const Vec3d d{r * std::cos(phi), r * std::sin(phi), std::sqrt(std::max(0.0, 1 - r * r))};
    vis += !blocked(g, d, 1e9, 0.012);
  }
  return double(vis) / samples;
}
}  // namespace

TEST(LightAo, FibonacciDirectionsAreUnitAndBalanced) {
  auto d = fibonacci_directions(64);
  ASSERT_EQ(d.size(), 64u);
  Vec3d s{0, 0, 0};
  for (auto v : d) {
    EXPECT_NEAR(norm(v), 1, 1e-12);
    s = s + v;
  }
  EXPECT_LT(norm(s), 0.15);  // evenly spread: they almost cancel (64 unit vectors)
  auto h = fibonacci_directions(32, true, {0, 1, 0});
  ASSERT_EQ(h.size(), 32u);
  for (auto v : h) EXPECT_GE(v.y, 0);
}

TEST(LightAo, GroundAoNearTheBoxMatchesMonteCarlo) {
  GaussianModel m = ground_and_box();
  auto backend = make_cpu_backend();
  AoParams p;
  p.directions = 32;
  // Finer maps than the default, with the biases in texels that match them: this checks
  // the estimator against analytic visibility; the defaults are checked below.
  p.resolution = 192;
  p.constant_bias = 1;
  p.slope_bias = 2;
  p.pcf_kernel = 3;  // the analytic reference's visibility is hard: a narrow filter
  auto t0 = std::chrono::steady_clock::now();
  AoMaps maps = render_ao_maps(*backend, m, bounds_of_points(m.means), p);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  double worst = 0;
  for (Vec3d g : {Vec3d{0, 0, 0}, Vec3d{0.35, 0, 0}, Vec3d{0.5, 0.4, 0}, Vec3d{0.8, -0.8, 0}, Vec3d{-0.3, 0.3, 0}}) {
    // Two references: the same estimator over the same directions with analytic
    // visibility (isolates the shadow maps), and the true AO by Monte Carlo (adds the
    // quadrature error of a few dozen directions, which only more directions reduce).
    double sv = 0, sw = 0;
    for (const Light& d : maps.directions) {
      const double w = std::max(0.0, d.direction.z);
      sw += w;
      // Grown by 0.02 m: the splats' silhouette (tails of stacked wall splats) reaches
      // about that far past the box; rays grazing closer flip a whole direction.
      sv += w * !blocked(g, d.direction, 1e9, 0.02);
    }
    const double same_dirs = sv / sw, mc = reference_ao(g, 20000), got = ambient_occlusion(maps, g, {0, 0, 1});
    std::printf("[ ao ] ground (%.2f, %.2f): %.3f; same directions analytic %.3f; Monte Carlo %.3f\n", g.x, g.y, got,
                same_dirs, mc);
    worst = std::max(worst, std::abs(got - same_dirs));
    EXPECT_NEAR(got, mc, 0.15);
  }
  std::printf("[ ao ] %d directions at %d^2: %.1f ms\n", p.directions, p.resolution, ms);
  EXPECT_LT(worst, 0.05);
  // The top of the box sees the whole upper hemisphere; a wall sees the ground below it.
  EXPECT_GT(ambient_occlusion(maps, {0, 0, kBoxHi}, {0, 0, 1}), 0.95);
  const double wall = ambient_occlusion(maps, {kBoxHalf, 0, 0.55}, {1, 0, 0});
  EXPECT_LT(wall, 0.75);
  EXPECT_GT(wall, 0.35);

  // The defaults (64 directions, coarser maps with larger biases) against the same Monte
  // Carlo references.
  AoParams d;
  const AoMaps dm = render_ao_maps(*backend, m, bounds_of_points(m.means), d);
  for (Vec3d g : {Vec3d{0, 0, 0}, Vec3d{0.35, 0, 0}, Vec3d{0.5, 0.4, 0}, Vec3d{0.8, -0.8, 0}, Vec3d{-0.3, 0.3, 0}})
    EXPECT_NEAR(ambient_occlusion(dm, g, {0, 0, 1}), reference_ao(g, 20000), 0.1) << g.x << ", " << g.y;
  EXPECT_GT(ambient_occlusion(dm, {0, 0, kBoxHi}, {0, 0, 1}), 0.95);
  // Coarser maps let more of the directions grazing the wall's foot through (0.745 above at
  // 192 texels, about 0.82 here).
  const double dwall = ambient_occlusion(dm, {kBoxHalf, 0, 0.55}, {1, 0, 0});
  std::printf("[ ao ] defaults: wall %.3f\n", dwall);
  EXPECT_LT(dwall, 0.85);
  EXPECT_GT(dwall, 0.35);
}

TEST(LightAo, DelightDividesByClampedAo) {
  ImageF cap(2, 1, 4, 0.4f), ao(2, 1, 1);
  ao.data = {0.5f, 0.05f};
  ImageF alb = delight(cap, ao, 0.2f);
  EXPECT_FLOAT_EQ(alb.at(0, 0, 0), 0.8f);
  EXPECT_FLOAT_EQ(alb.at(1, 0, 1), 1.0f);  // 0.4 / 0.2 = 2, clamped
  EXPECT_FLOAT_EQ(alb.at(1, 0, 3), 0.4f);  // alpha untouched
  EXPECT_THROW(delight(cap, ImageF(3, 1, 1)), Error);
}

// The AO image is gathered a map at a time over batches of pixels: the same values as the
// one-pixel estimate, with every pixel evaluated and with the interpolation plan.
TEST(LightAo, BatchedImageEqualsThePerPixelEstimate) {
  GaussianModel m = ground_and_box();
  auto backend = make_cpu_backend();
  AoParams p;
  p.directions = 16;
  p.resolution = 64;
  const AoMaps maps = render_ao_maps(*backend, m, bounds_of_points(m.means), p);
  const int W = 61, H = 43;
  ImageF pos(W, H, 3), nrm(W, H, 3), depth(W, H, 1);
  std::mt19937 rng(7);
  std::normal_distribution<double> N(0, 0.15);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      if ((x * 5 + y * 11) % 37 == 0) continue;  // no surface
      const bool wall = x > 40;
      const Vec3d g = wall ? Vec3d{kBoxHalf, -0.4 + 0.02 * y, 0.05 + 0.02 * (x - 40)} : Vec3d{-1 + 0.04 * x, -1 + 0.04 * y, 0};
      const Vec3d n = normalize((wall ? Vec3d{1, 0, 0} : Vec3d{0, 0, 1}) + Vec3d{N(rng), N(rng), N(rng)});
      const std::size_t i = static_cast<std::size_t>(y) * W + x;
      for (int c = 0; c < 3; ++c) {
        pos.data[3 * i + c] = static_cast<float>((&g.x)[c]);
        nrm.data[3 * i + c] = static_cast<float>((&n.x)[c]);
      }
      depth.data[i] = static_cast<float>(3 + 0.001 * x);
    }
  for (bool interpolate : {false, true}) {
    SurfaceInterpolation si;
    si.enabled = interpolate;
    si.max_normal_deg = 30;
    const SurfaceInterpolationPlan plan(pos, nrm, depth, si, "AO test");
    ImageF per_pixel(W, H, 1, 1.f);
    plan.run({{&per_pixel, false}}, [&](long i, Vec3d x, Vec3d n) {
      per_pixel.data[static_cast<std::size_t>(i)] = static_cast<float>(ambient_occlusion(maps, x, n));
    });
    const ImageF batched = ambient_occlusion_and_residuals(maps, {}, plan, W, H).ao;
    long differ = 0, occluded = 0;
    for (std::size_t i = 0; i < per_pixel.data.size(); ++i) {
      differ += batched.data[i] != per_pixel.data[i];
      occluded += per_pixel.data[i] < 0.99f;
    }
    EXPECT_EQ(differ, 0) << "interpolation " << interpolate;
    EXPECT_GT(occluded, 100) << "the box occludes part of the view";
  }
}
