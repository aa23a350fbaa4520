#include <gtest/gtest.h>

#include <cmath>

#include "glint/light/color.h"

using namespace glint;

TEST(LightColor, MatchesTheReadmeCurveAndInverts) {
  EXPECT_FLOAT_EQ(srgb_to_linear(0.04f), 0.04f / 12.92f);
  EXPECT_NEAR(srgb_to_linear(0.5), std::pow((0.5 + 0.055) / 1.055, 2.4), 1e-15);
  EXPECT_DOUBLE_EQ(srgb_to_linear(1.0), 1.0);
  for (int code = 0; code <= 255; ++code) {
    double c = code / 255.0;
    EXPECT_NEAR(linear_to_srgb(srgb_to_linear(c)), c, 1e-12) << code;
    EXPECT_EQ(std::lround(255 * linear_to_srgb(srgb_to_linear(float(c)))), code);
  }
  EXPECT_EQ(linear_to_srgb(-1.0), 0.0);
  EXPECT_EQ(linear_to_srgb(2.0f), linear_to_srgb(1.0f));
}

TEST(LightColor, ImageOverloadsLeaveAlphaAlone) {
  ImageF img(2, 1, 4, 0.5f);
  ImageF lin = srgb_to_linear(img);
  EXPECT_FLOAT_EQ(lin.at(1, 0, 0), srgb_to_linear(0.5f));
  EXPECT_FLOAT_EQ(lin.at(1, 0, 3), 0.5f);
  ImageF back = linear_to_srgb(lin);
  for (float v : back.data) EXPECT_NEAR(v, 0.5f, 1e-6);
  ImageF grey(1, 1, 1, 0.5f);
  EXPECT_FLOAT_EQ(srgb_to_linear(grey).data[0], srgb_to_linear(0.5f));
}
