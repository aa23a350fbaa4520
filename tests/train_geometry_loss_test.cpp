#include <gtest/gtest.h>

#include <random>

#include "glint/train/geometry_loss.h"

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
  const float h = 1e-3f;
  for (std::size_t i = 0; i < normal.data.size(); i += 5) {
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
