#include <gtest/gtest.h>

#include <cmath>

#include "glint/core/error.h"
#include "glint/io/lens.h"

using namespace glint;

namespace {

// A smooth scene in normalised (undistorted) camera coordinates.
double scene(Vec2d n) { return 127.5 + 100 * std::sin(3 * n.x) * std::cos(2 * n.y); }

SourceCamera fox_like() {
  SourceCamera s;
  s.model = "OPENCV";
  s.k = {216, 384, 275.1, 274.9, 110.9, 193.1};
  s.dist.k1 = 0.0578421;
  s.dist.k2 = -0.0805099;
  s.dist.p1 = -0.000980296;
  s.dist.p2 = 0.00015575;
  return s;
}

}  // namespace

TEST(Lens, UndistortInvertsDistort) {
  Distortion d;
  d.k1 = -0.2;
  d.k2 = 0.05;
  d.p1 = 0.001;
  d.p2 = -0.002;
  d.k3 = 0.01;
  for (double x = -0.6; x <= 0.6; x += 0.1)
    for (double y = -0.4; y <= 0.4; y += 0.1) {
      bool ok = false;
      Vec2d back = d.undistort(d.distort({x, y}), &ok);
      ASSERT_TRUE(ok);
      EXPECT_NEAR(back.x, x, 1e-9);
      EXPECT_NEAR(back.y, y, 1e-9);
    }
}

// The image a distorted lens takes of `scene`, then undistorted, must match the scene as
// an ideal pinhole with the new intrinsics sees it: a direct projection of each pixel's ray.
TEST(Lens, UndistortedImageMatchesDirectProjection) {
  for (SourceCamera src : {fox_like(), [] {
         SourceCamera s = fox_like();
         s.dist = {};
         s.dist.k1 = -0.25;  // strong barrel
         s.dist.k2 = 0.06;
         return s;
       }()}) {
    Image8 taken;
    taken.width = src.k.width;
    taken.height = src.k.height;
    taken.channels = 1;
    taken.data.resize(static_cast<std::size_t>(taken.width) * taken.height);
    for (int y = 0; y < taken.height; ++y)
      for (int x = 0; x < taken.width; ++x) {
        Vec2d n = src.dist.undistort({(x + 0.5 - src.k.cx) / src.k.fx, (y + 0.5 - src.k.cy) / src.k.fy});
        taken.row(y)[x] = static_cast<std::uint8_t>(std::lround(scene(n)));
      }
    Intrinsics dst = undistorted_intrinsics(src, "test");
    EXPECT_EQ(dst.width, src.k.width);
    EXPECT_EQ(dst.height, src.k.height);
    Image8 out = undistort_image(taken, src, dst);
    double max_err = 0;
    for (int y = 0; y < dst.height; ++y)
      for (int x = 0; x < dst.width; ++x) {
        Vec2d n{(x + 0.5 - dst.cx) / dst.fx, (y + 0.5 - dst.cy) / dst.fy};
        max_err = std::max(max_err, std::abs(out.row(y)[x] - scene(n)));
      }
    EXPECT_LT(max_err, 3.0);  // bilinear interpolation + 8-bit rounding
  }
}

TEST(Lens, EveryUndistortedPixelSeesTheSourceImage) {
  SourceCamera src = fox_like();
  src.dist.k1 = -0.15;  // strong barrel that still has an inverse over the whole frame
  src.dist.k2 = 0;
  Intrinsics dst = undistorted_intrinsics(src, "test");
  for (int y = 0; y <= dst.height; y += 4)
    for (int x = 0; x <= dst.width; x += 4) {
      if (y != 0 && y != dst.height && x != 0 && x != dst.width) continue;  // the border is enough
      Vec2d d = src.dist.distort({(x - dst.cx) / dst.fx, (y - dst.cy) / dst.fy});
      double u = d.x * src.k.fx + src.k.cx, v = d.y * src.k.fy + src.k.cy;
      EXPECT_GE(u, -1e-6);
      EXPECT_LE(u, src.k.width + 1e-6);
      EXPECT_GE(v, -1e-6);
      EXPECT_LE(v, src.k.height + 1e-6);
    }
}

TEST(Lens, FoldingModelIsRejected) {
  SourceCamera src = fox_like();
  src.dist.k1 = -0.3;  // folds over itself before the image corners
  EXPECT_THROW(undistorted_intrinsics(src, "test"), Error);
}

TEST(Lens, PinholeIsUnchanged) {
  SourceCamera src;
  src.k = {100, 80, 90, 91, 50, 40};
  Intrinsics dst = undistorted_intrinsics(src, "x");
  EXPECT_EQ(dst.fx, 90);
  EXPECT_EQ(dst.cy, 40);
}
