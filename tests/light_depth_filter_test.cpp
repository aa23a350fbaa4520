#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "glint/light/depth_filter.h"
#include "glint/light/geometry.h"

using namespace glint;

namespace {
Camera test_camera(int w, int h) {
  Camera c;
  c.width = w;
  c.height = h;
  c.fx = 60;
  c.fy = 55;
  c.cx = w / 2.0 + 1.3;
  c.cy = h / 2.0 - 0.7;
  return c;
}
// z-depth of the plane n.X = d (camera space) along each pixel's ray.
ImageF plane_depth(const Camera& c, Vec3d n, double d) {
  ImageF z(c.width, c.height, 1);
  for (int y = 0; y < c.height; ++y)
    for (int x = 0; x < c.width; ++x) {
      Vec3d r{(x + 0.5 - c.cx) / c.fx, (y + 0.5 - c.cy) / c.fy, 1};
      z.at(x, y, 0) = float(d / dot(n, r));
    }
  return z;
}
}  // namespace

TEST(LightDepthFilter, TiltedPlaneGivesItsNormal) {
  Camera cam = test_camera(48, 40);
  const Vec3d n = normalize(Vec3d{0.3, -0.5, -1});  // faces the camera (n.z < 0)
  ImageF depth = plane_depth(cam, n, -2.0);         // n.X = -2: in front of the camera
  ImageF normals = normals_from_depth(cam, depth, nullptr);
  double worst = 0;
  for (int y = 0; y < cam.height; ++y)
    for (int x = 0; x < cam.width; ++x) {
      Vec3d m{normals.at(x, y, 0), normals.at(x, y, 1), normals.at(x, y, 2)};
      worst = std::max(worst, std::acos(std::min(1.0, dot(m, n))) * 180 / 3.141592653589793);
    }
  EXPECT_LT(worst, 0.05);  // float depth; the math is exact for a plane
  // World rotation: a camera rotated 90 deg about y.
  cam.R = {{0, 0, -1, 0, 1, 0, 1, 0, 0}};
  ImageF nw = world_normals_from_depth(cam, depth, nullptr);
  Vec3d w = transpose(cam.R) * n;
  EXPECT_NEAR(nw.at(10, 10, 0), w.x, 1e-3);
  EXPECT_NEAR(nw.at(10, 10, 2), w.z, 1e-3);
}

TEST(LightDepthFilter, NormalsAtADepthStepBelongToEachSide) {
  Camera cam = test_camera(40, 30);
  const Vec3d n1 = normalize(Vec3d{0.4, 0, -1}), n2 = normalize(Vec3d{-0.2, 0.3, -1});
  ImageF a = plane_depth(cam, n1, -2), b = plane_depth(cam, n2, -4);
  ImageF depth = a;
  ImageF alpha(40, 30, 1, 1.f);
  for (int y = 0; y < 30; ++y)
    for (int x = 20; x < 40; ++x) depth.at(x, y, 0) = b.at(x, y, 0);
  alpha.at(5, 5, 0) = 0;  // a hole: its neighbours fall back to one-sided differences
  ImageF nm = normals_from_depth(cam, depth, &alpha);
  EXPECT_EQ(nm.at(5, 5, 0), 0.f);
  for (int y = 1; y < 29; ++y) {
    for (int x : {4, 5, 6, 19, 20, 21}) {
      if (x == 5 && y == 5) continue;
      Vec3d want = x < 20 ? n1 : n2;
      Vec3d m{nm.at(x, y, 0), nm.at(x, y, 1), nm.at(x, y, 2)};
      EXPECT_GT(dot(m, want), 0.9999) << x << "," << y;
    }
  }
}

TEST(LightDepthFilter, BilateralKeepsTheStepAndSmoothsTheFlat) {
  const int W = 40, H = 20;
  ImageF depth(W, H, 1), guide(W, H, 3), alpha(W, H, 1, 1.f);
  std::mt19937 rng(7);
  std::normal_distribution<float> noise(0.f, 0.01f);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      const bool right = x >= W / 2;
      depth.at(x, y, 0) = (right ? 2.f : 1.f) + noise(rng);
      for (int c = 0; c < 3; ++c) guide.at(x, y, c) = right ? 0.9f : 0.1f;
    }
  alpha.at(3, 3, 0) = 0;
  depth.at(3, 3, 0) = 100;  // invalid (alpha 0): must neither change nor leak
  DepthFilterParams p;
  p.sigma_spatial_px = 2;
  p.sigma_range = 0.1f;
  ImageF f = joint_bilateral_depth(depth, guide, &alpha, p);
  EXPECT_EQ(f.at(3, 3, 0), 100.f);
  auto stddev = [&](const ImageF& img, int x0, int x1) {
    double s = 0, s2 = 0;
    int n = 0;
    for (int y = 5; y < H - 5; ++y)
      for (int x = x0; x < x1; ++x) {
        s += img.at(x, y, 0);
        s2 += img.at(x, y, 0) * img.at(x, y, 0);
        ++n;
      }
    return std::sqrt(s2 / n - (s / n) * (s / n));
  };
  EXPECT_LT(stddev(f, 5, 15), 0.4 * stddev(depth, 5, 15));
  for (int y = 0; y < H; ++y) {
    EXPECT_NEAR(f.at(W / 2 - 1, y, 0), 1.f, 0.02f);  // the step survives on both sides
    EXPECT_NEAR(f.at(W / 2, y, 0), 2.f, 0.02f);
  }
  // Without the colour edge the same filter would blur the step: the guide is what keeps it.
  ImageF flat(W, H, 3, 0.5f);
  ImageF blurred = joint_bilateral_depth(depth, flat, &alpha, p);
  EXPECT_GT(blurred.at(W / 2, H / 2, 0) - blurred.at(W / 2 - 1, H / 2, 0), 0.f);
  EXPECT_LT(blurred.at(W / 2, H / 2, 0) - blurred.at(W / 2 - 1, H / 2, 0), 0.6f);
}
