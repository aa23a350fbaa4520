#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "glint/core/error.h"
#include "glint/core/math.h"
#include "glint/light/normal_filter.h"

using namespace glint;

namespace {

double angle_deg(const float* a, Vec3d b) {
  const double c = (a[0] * b.x + a[1] * b.y + a[2] * b.z) /
                   (std::sqrt(double(a[0]) * a[0] + double(a[1]) * a[1] + double(a[2]) * a[2]) * norm(b));
  return std::acos(std::clamp(c, -1.0, 1.0)) * 180.0 / M_PI;
}

// A fold: the left half of the image faces n_left, the right half n_right, both at depth 2,
// each normal perturbed by Gaussian noise of `noise` radians per component.
struct Fold {
  ImageF normal, depth;
  Vec3d left, right;
};
Fold make_fold(int w, int h, double noise, unsigned seed) {
  Fold f{ImageF(w, h, 3), ImageF(w, h, 1), normalize(Vec3d{-0.6, 0.1, 0.8}), normalize(Vec3d{0.6, 0.1, 0.8})};
  std::mt19937 rng(seed);
  std::normal_distribution<double> N(0, noise);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const Vec3d n = normalize((x < w / 2 ? f.left : f.right) + Vec3d{N(rng), N(rng), N(rng)});
      for (int c = 0; c < 3; ++c) f.normal.at(x, y, c) = float((&n.x)[c]);
      f.depth.at(x, y, 0) = 2.f;
    }
  return f;
}

double mean_error(const ImageF& n, const Fold& f, int skip_from_fold) {
  double sum = 0;
  long cnt = 0;
  for (int y = 0; y < n.height; ++y)
    for (int x = 0; x < n.width; ++x) {
      if (std::abs(x - n.width / 2) < skip_from_fold) continue;
      sum += angle_deg(&n.data[(std::size_t(y) * n.width + x) * 3], x < n.width / 2 ? f.left : f.right);
      ++cnt;
    }
  return sum / double(cnt);
}

}  // namespace

TEST(LightNormalFilter, RemovesNoiseAndKeepsAFold) {
  const Fold f = make_fold(40, 30, 0.08, 3);
  const ImageF out = smooth_normals(f.normal, f.depth);  // sigma 2 px, 20 degrees
  const double before = mean_error(f.normal, f, 0), after = mean_error(out, f, 0);
  EXPECT_GT(before, 5.0);
  EXPECT_LT(after, 0.4 * before) << "noise not removed";
  // the fold is 74 degrees: far outside the angle sigma, so neither side bleeds into the other
  double worst_at_fold = 0;
  for (int y = 0; y < 30; ++y)
    for (int x : {19, 20}) {
      const Vec3d want = x < 20 ? f.left : f.right;
      worst_at_fold = std::max(worst_at_fold, angle_deg(&out.data[(std::size_t(y) * 40 + x) * 3], want));
    }
  EXPECT_LT(worst_at_fold, 12.0);
  for (std::size_t p = 0; p < out.data.size() / 3; ++p) {
    const float* n = &out.data[3 * p];
    EXPECT_NEAR(n[0] * n[0] + n[1] * n[1] + n[2] * n[2], 1.f, 1e-5f);
  }
}

TEST(LightNormalFilter, DepthStepSeparatesSurfaces) {
  // same noisy normals, but the right half lies 20% further away: with the depth weight the
  // left half must not pull in the right half's normals even with a huge angle sigma
  Fold f = make_fold(40, 30, 0.0, 5);
  for (int y = 0; y < 30; ++y)
    for (int x = 20; x < 40; ++x) f.depth.at(x, y, 0) = 2.4f;
  NormalFilterParams p;
  p.sigma_angle_deg = 1000.f;
  const ImageF out = smooth_normals(f.normal, f.depth, p);
  for (int y = 0; y < 30; ++y) {
    EXPECT_LT(angle_deg(&out.data[(std::size_t(y) * 40 + 19) * 3], f.left), 0.5);
    EXPECT_LT(angle_deg(&out.data[(std::size_t(y) * 40 + 20) * 3], f.right), 0.5);
  }
}

TEST(LightNormalFilter, NoSurfaceStaysEmptyAndZeroSigmaIsIdentity) {
  Fold f = make_fold(12, 10, 0.05, 9);
  for (int c = 0; c < 3; ++c) f.normal.at(3, 4, c) = 0.f;
  f.depth.at(7, 2, 0) = 0.f;
  const ImageF out = smooth_normals(f.normal, f.depth);
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(out.at(3, 4, c), 0.f);
    EXPECT_EQ(out.at(7, 2, c), 0.f);
  }
  NormalFilterParams off;
  off.sigma_spatial_px = 0;
  EXPECT_EQ(smooth_normals(f.normal, f.depth, off).data, f.normal.data);
  EXPECT_THROW(smooth_normals(f.normal, ImageF(5, 5, 1)), Error);
}
