#include <gtest/gtest.h>

#include <random>

#include "glint/train/geometry_loss.h"
#include "glint/train/normal_consistency_math.h"

using namespace glint;

namespace {

Camera small_camera() {
  Camera c;
  c.width = 9;
  c.height = 7;
  c.fx = 12;
  c.fy = 11;
  c.cx = 4.3;
  c.cy = 3.6;
  c.R = quat_to_rotmat(Quatd{0.9, 0.1, -0.3, 0.2});
  c.t = {0.1, -0.2, 3};
  return c;
}

// Central differences of `loss(normal, depth)` against r's gradients: every
// `normal_stride`-th normal component and every depth.
template <class Loss>
void expect_gradients_match_finite_differences(const NormalConsistency& r, const ImageF& normal, const ImageF& depth,
                                               const Loss& loss, std::size_t normal_stride) {
  const float h = 1e-3f;
  for (std::size_t i = 0; i < normal.data.size(); i += normal_stride) {
    ImageF a = normal, b = normal;
    a.data[i] += h;
    b.data[i] -= h;
    double fd = (loss(a, depth) - loss(b, depth)) / (2 * h);
    EXPECT_NEAR(r.d_normal.data[i], fd, 2e-3 * std::max(1.0, std::abs(fd))) << "normal " << i;
  }
  for (std::size_t i = 0; i < depth.data.size(); ++i) {
    ImageF a = depth, b = depth;
    a.data[i] += h;
    b.data[i] -= h;
    double fd = (loss(normal, a) - loss(normal, b)) / (2 * h);
    EXPECT_NEAR(r.d_depth.data[i], fd, 3e-3 * std::max(1.0, std::abs(fd))) << "depth " << i;
  }
}

}  // namespace

TEST(GeometryLoss, NormalConsistencyGradientsMatchFiniteDifferences) {
  Camera cam = small_camera();
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1, 1);
  ImageF normal(cam.width, cam.height, 3), depth(cam.width, cam.height, 1), alpha(cam.width, cam.height, 1, 1.f);
  for (auto& v : normal.data) v = u(rng);
  for (int y = 0; y < cam.height; ++y)
    for (int x = 0; x < cam.width; ++x) depth.data[y * cam.width + x] = 2.0f + 0.05f * x + 0.03f * y + 0.02f * u(rng);
  alpha.data[5] = 0.1f;  // one uncovered pixel removes its neighbourhood
  NormalConsistency r = normal_consistency(cam, normal, depth, alpha, 0.7f);
  ASSERT_GT(r.pixels, 10);
  auto loss = [&](const ImageF& n, const ImageF& d) { return normal_consistency(cam, n, d, alpha, 0.7f).loss; };
  expect_gradients_match_finite_differences(r, normal, depth, loss, 5);
}

TEST(GeometryLoss, PlaneSeenWithItsOwnNormalCostsNothing) {
  Camera cam = small_camera();
  cam.R = identity3<double>();
  cam.t = {0, 0, 0};
  ImageF depth(cam.width, cam.height, 1, 2.f), alpha(cam.width, cam.height, 1, 1.f), normal(cam.width, cam.height, 3);
  for (std::size_t p = 0; p < depth.data.size(); ++p) normal.data[p * 3 + 2] = -3.f;  // facing the camera, any length
  NormalConsistency r = normal_consistency(cam, normal, depth, alpha, 1.f);
  EXPECT_GT(r.pixels, 0);
  EXPECT_NEAR(r.loss, 0.0, 1e-9);
}

TEST(GeometryLoss, FlattenPenalisesTheSmallestScale) {
  GaussianModel m;
  m.resize(2);
  m.log_scales = {0.f, -2.f, 1.f, -1.f, -1.f, -3.f};
  std::vector<float> g(6, 0.f);
  double l = flatten_loss(m, 2.f, g.data());
  EXPECT_NEAR(l, (std::exp(-2.0) + std::exp(-3.0)), 1e-6);
  EXPECT_NEAR(g[1], std::exp(-2.0), 1e-6);
  EXPECT_NEAR(g[5], std::exp(-3.0), 1e-6);
  EXPECT_EQ(g[0], 0.f);
  const float h = 1e-3f;
  GaussianModel a = m;
  a.log_scales[5] += h;
  GaussianModel b = m;
  b.log_scales[5] -= h;
  std::vector<float> tmp(6);
  double fd = (flatten_loss(a, 2.f, tmp.data()) - flatten_loss(b, 2.f, tmp.data())) / (2 * h);
  EXPECT_NEAR(g[5], fd, 1e-3);
}

TEST(GeometryLoss, DistortionIsTheWeightedMeanWithAConstantGradient) {
  ImageF d(4, 3, 1);
  for (std::size_t i = 0; i < d.data.size(); ++i) d.data[i] = 0.1f * static_cast<float>(i);
  DistortionLoss r = distortion_loss(d, 0.5f);
  EXPECT_NEAR(r.loss, 0.5 * 0.1 * (11 * 12 / 2) / 12.0, 1e-6);
  ASSERT_EQ(r.d_distortion.data.size(), 12u);
  for (float g : r.d_distortion.data) EXPECT_FLOAT_EQ(g, 0.5f / 12.f);
  EXPECT_EQ(distortion_loss(ImageF(), 1.f).loss, 0.0);
}

namespace {

// Depth of a tilted plane (slope in x and y) with a step of `step` from column `step_x` on,
// plus `noise` of uniform jitter: 1/z is near affine away from the step.
ImageF stepped_depth(const Camera& cam, int step_x, float step, float noise, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  ImageF depth(cam.width, cam.height, 1);
  for (int y = 0; y < cam.height; ++y)
    for (int x = 0; x < cam.width; ++x)
      depth.data[y * cam.width + x] = 2.0f + 0.05f * x + 0.03f * y + (x >= step_x ? step : 0.f) + noise * u(rng);
  return depth;
}

// How far pixel (x, y) is from normal_consistency_edge's threshold: the larger of its two
// second differences of 1/z over eps / z (below 1: kept, above: skipped).
double edge_ratio(const ImageF& d, int x, int y, double eps) {
  auto z = [&](int xx, int yy) { return static_cast<double>(d.data[yy * d.width + xx]); };
  const double ddx = std::abs(1 / z(x + 1, y) + 1 / z(x - 1, y) - 2 / z(x, y));
  const double ddy = std::abs(1 / z(x, y + 1) + 1 / z(x, y - 1) - 2 / z(x, y));
  return std::max(ddx, ddy) / (eps / z(x, y));
}

}  // namespace

TEST(GeometryLoss, NormalEdgeGradientsMatchFiniteDifferences) {
  Camera cam = small_camera();
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1, 1);
  ImageF normal(cam.width, cam.height, 3), alpha(cam.width, cam.height, 1, 1.f);
  for (auto& v : normal.data) v = u(rng);
  const ImageF depth = stepped_depth(cam, 5, 0.5f, 0.002f, 7);
  const float eps = 0.02f;
  // Every interior pixel far from the threshold, so that the finite differences' steps
  // below (which move a second difference of 1/z by about 2h / z^2) flip no decision; and
  // some skipped.
  int skipped = 0;
  for (int y = 1; y < cam.height - 1; ++y)
    for (int x = 1; x < cam.width - 1; ++x) {
      const double r = edge_ratio(depth, x, y, eps);
      ASSERT_TRUE(r < 0.6 || r > 1.6) << x << "," << y << ": " << r;
      skipped += r > 1;
    }
  ASSERT_EQ(skipped, 2 * (cam.height - 2));  // the two columns beside the step
  const NormalConsistency r = normal_consistency(cam, normal, depth, alpha, 0.7f, 0.5f, eps);
  EXPECT_EQ(r.pixels, (cam.width - 2) * (cam.height - 2));  // the skipped still count
  auto loss = [&](const ImageF& n, const ImageF& d) { return normal_consistency(cam, n, d, alpha, 0.7f, 0.5f, eps).loss; };
  expect_gradients_match_finite_differences(r, normal, depth, loss, 2);
}

TEST(GeometryLoss, NormalEdgeSkipsADepthStepNotATiltedPlane) {
  Camera cam = small_camera();
  cam.R = identity3<double>();
  cam.t = {0, 0, 0};
  // Two tilted planes n . X = d seen through each pixel's ray: z = d / (n . ray); the right
  // part (x >= 5) nearer.
  const NcCamera nc{cam.R, cam.fx, cam.fy, cam.cx, cam.cy};
  const Vec3d n{0.3, -0.2, -0.93};
  ImageF depth(cam.width, cam.height, 1), alpha(cam.width, cam.height, 1, 1.f), normal(cam.width, cam.height, 3);
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> u(-1, 1);
  for (auto& v : normal.data) v = u(rng);
  for (int y = 0; y < cam.height; ++y)
    for (int x = 0; x < cam.width; ++x)
      depth.data[y * cam.width + x] = static_cast<float>((x >= 5 ? -1.5 : -2.5) / dot(n, nc_pixel_ray(nc, x, y)));
  auto z = [&](int x, int y) { return static_cast<double>(depth.data[y * cam.width + x]); };
  auto edge = [&](int x, int y, double eps) {
    return normal_consistency_edge(z(x, y), z(x + 1, y), z(x - 1, y), z(x, y + 1), z(x, y - 1), eps);
  };
  EXPECT_TRUE(edge(4, 3, 0.02));   // x - 1 on the far plane, x + 1 on the near one
  EXPECT_TRUE(edge(5, 3, 0.02));
  EXPECT_FALSE(edge(3, 3, 0.02));  // tilted, but all three on one plane
  EXPECT_FALSE(edge(6, 3, 0.02));
  EXPECT_FALSE(edge(3, 3, 1e-5));  // flat to float rounding
  EXPECT_FALSE(edge(4, 3, 0.0));   // 0: off
  const NormalConsistency off = normal_consistency(cam, normal, depth, alpha, 0.7f);
  const NormalConsistency on = normal_consistency(cam, normal, depth, alpha, 0.7f, 0.5f, 0.02f);
  EXPECT_EQ(on.pixels, off.pixels);
  // The mean over every taking-part pixel of the terms of the kept ones, the slow way.
  double total = 0;
  for (int y = 1; y < cam.height - 1; ++y)
    for (int x = 1; x < cam.width - 1; ++x) {
      const std::size_t p = static_cast<std::size_t>(y * cam.width + x);
      NcPixel px;
      ASSERT_TRUE(normal_consistency_pixel(nc, x, y, z(x + 1, y), z(x - 1, y), z(x, y + 1), z(x, y - 1),
                                           {normal.data[3 * p], normal.data[3 * p + 1], normal.data[3 * p + 2]}, px));
      const bool skip = x == 4 || x == 5;
      if (!skip) total += px.term;
      for (int k = 0; k < 3; ++k) {
        if (skip) EXPECT_EQ(on.d_normal.data[3 * p + k], 0.f) << x << "," << y;
        else EXPECT_EQ(on.d_normal.data[3 * p + k], off.d_normal.data[3 * p + k]) << x << "," << y;
      }
    }
  EXPECT_NEAR(on.loss, static_cast<double>(0.7f) * total / static_cast<double>(on.pixels), 1e-12);
  EXPECT_LT(on.loss, off.loss);
}

TEST(GeometryLoss, NormalEdgeZeroIsTheLossWithoutTheTest) {
  Camera cam = small_camera();
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1, 1);
  ImageF normal(cam.width, cam.height, 3), alpha(cam.width, cam.height, 1, 1.f);
  for (auto& v : normal.data) v = u(rng);
  const ImageF depth = stepped_depth(cam, 5, 0.5f, 0.002f, 13);
  const NormalConsistency old = normal_consistency(cam, normal, depth, alpha, 0.7f);
  const NormalConsistency zero = normal_consistency(cam, normal, depth, alpha, 0.7f, 0.5f, 0.f);
  // A bound no second difference here reaches skips nothing either: the test changes the
  // kept pixels' bits in no way.
  const NormalConsistency wide = normal_consistency(cam, normal, depth, alpha, 0.7f, 0.5f, 1e6f);
  const NormalConsistency on = normal_consistency(cam, normal, depth, alpha, 0.7f, 0.5f, 0.02f);
  for (const NormalConsistency* r : {&zero, &wide}) {
    EXPECT_EQ(r->loss, old.loss);
    EXPECT_EQ(r->pixels, old.pixels);
    EXPECT_EQ(r->d_normal.data, old.d_normal.data);
    EXPECT_EQ(r->d_depth.data, old.d_depth.data);
  }
  EXPECT_NE(on.loss, old.loss);  // and the step is in this image
}
