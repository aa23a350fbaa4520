#include <gtest/gtest.h>

#include "glint/core/math.h"

using namespace glint;

TEST(Math, QuaternionRoundTrip) {
  Quatd q{0.3, -0.5, 0.7, 0.2};
  double n = std::sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
  q = {q.w / n, q.x / n, q.y / n, q.z / n};
  Mat3d R = quat_to_rotmat(q);
  Mat3d I = R * transpose(R);
  for (int i = 0; i < 9; ++i) EXPECT_NEAR(I.m[i], (i % 4 == 0) ? 1.0 : 0.0, 1e-12);
  Quatd back = rotmat_to_quat(R);
  EXPECT_NEAR(back.w, q.w, 1e-12);
  EXPECT_NEAR(back.x, q.x, 1e-12);
  EXPECT_NEAR(back.y, q.y, 1e-12);
  EXPECT_NEAR(back.z, q.z, 1e-12);
}

TEST(Math, ZeroQuaternionIsIdentity) {
  Mat3f R = quat_to_rotmat(Quatf{0, 0, 0, 0});
  for (int i = 0; i < 9; ++i) EXPECT_EQ(R.m[i], (i % 4 == 0) ? 1.f : 0.f);
}

TEST(Math, RotationAboutZ) {
  // 90 degrees about z maps x to y.
  double h = std::sqrt(0.5);
  Mat3d R = quat_to_rotmat(Quatd{h, 0, 0, h});
  Vec3d v = R * Vec3d{1, 0, 0};
  EXPECT_NEAR(v.x, 0, 1e-12);
  EXPECT_NEAR(v.y, 1, 1e-12);
  EXPECT_NEAR(v.z, 0, 1e-12);
}
