#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <span>

#include "glint/core/error.h"
#include "glint/io/pfm.h"
#include "test_support.h"

using namespace glint;

namespace {
ImageF ramp(int w, int h, int c) {
  ImageF img(w, h, c);
  for (std::size_t i = 0; i < img.data.size(); ++i) img.data[i] = 0.25f * static_cast<float>(i) - 3.f;
  return img;
}
void expect_error(const std::string& bytes, const std::string& needle) {
  try {
    decode_pfm(bytes, "x.pfm");
    ADD_FAILURE() << "no error for " << needle;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("x.pfm: "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}
}  // namespace

TEST(LightPfm, RoundTripsOneAndThreeChannelsThroughAFile) {
  test::TempDir dir;
  for (int c : {1, 3}) {
    ImageF img = ramp(5, 3, c);
    img.data[2] = std::nanf("");
    write_pfm(dir.str("a.pfm"), img);
    ImageF back = read_pfm(dir.str("a.pfm"));
    ASSERT_EQ(back.width, 5);
    ASSERT_EQ(back.height, 3);
    ASSERT_EQ(back.channels, c);
    EXPECT_EQ(std::memcmp(back.data.data(), img.data.data(), img.data.size() * 4), 0);
  }
  EXPECT_THROW(write_pfm(dir.str("b.pfm"), ImageF(2, 2, 4)), Error);
}

TEST(LightPfm, RowsAreBottomToTopOnDisk) {
  ImageF img(1, 2, 1);
  img.data = {1.f, 2.f};  // top row 1, bottom row 2
  std::string b = encode_pfm(img);
  EXPECT_EQ(b.substr(0, 12), "Pf\n1 2\n-1.0\n");
  float first;
  std::memcpy(&first, b.data() + b.size() - 8, 4);
  EXPECT_EQ(first, 2.f);
}

TEST(LightPfm, ReadsBigEndianAndOneLineHeaders) {
  std::string b = "PF 1 1 1.0\n";
  for (float v : {1.f, -2.f, 0.5f}) {
    std::uint32_t u;
    std::memcpy(&u, &v, 4);
    for (int k = 3; k >= 0; --k) b.push_back(static_cast<char>((u >> (8 * k)) & 0xff));
  }
  ImageF img = decode_pfm(b, "be.pfm");
  EXPECT_TRUE(std::ranges::equal(img.data, std::vector<float>{1.f, -2.f, 0.5f}));
}

TEST(LightPfm, RejectsBadInput) {
  std::string good = encode_pfm(ramp(4, 2, 3));
  expect_error("", "magic");
  expect_error("P6\n4 2\n255\n", "not a PFM");
  expect_error("PF\n4 x\n-1.0\n" + std::string(96, '\0'), "height");
  expect_error("PF\n-4 2\n-1.0\n" + std::string(96, '\0'), "width");
  expect_error("PF\n0 2\n-1.0\n", "out of range");
  expect_error("PF\n999999 999999\n-1.0\n", "");
  expect_error("PF\n100000 3\n-1.0\n" + std::string(8, '\0'), "out of range");
  expect_error("PF\n4 2\nabc\n" + std::string(96, '\0'), "scale");
  expect_error("PF\n4 2\n0\n" + std::string(96, '\0'), "scale");
  expect_error("PF\n4 2\n", "ends before the scale");
  expect_error("PF\n4 2\n-1.0", "no pixel data");
  expect_error(good.substr(0, good.size() - 1), "truncated");
  expect_error(good + "x", "unexpected bytes");
  EXPECT_THROW(read_pfm("/nonexistent/dir/x.pfm"), Error);
}

TEST(LightPfm, ReadsRelightGroundTruth) {
  GLINT_REQUIRE_SHARED(gt, "relight/gt");
  ImageF d = read_pfm(gt + "/depth_0.pfm");
  ASSERT_EQ(d.width, 200);
  ASSERT_EQ(d.height, 200);
  ASSERT_EQ(d.channels, 1);
  // The scene is in the middle of the frame: background corners have depth 0, the centre
  // sees the scene at about the camera distance (4.08 m).
  EXPECT_EQ(d.at(0, 0, 0), 0.f);
  EXPECT_GT(d.at(100, 100, 0), 2.5f);
  EXPECT_LT(d.at(100, 100, 0), 5.5f);
  ImageF n = read_pfm(gt + "/normal_0.pfm");
  ASSERT_EQ(n.channels, 3);
  ASSERT_EQ(n.width, 200);
  long unit = 0, covered = 0;
  for (int y = 0; y < 200; ++y)
    for (int x = 0; x < 200; ++x) {
      double l = std::sqrt(n.at(x, y, 0) * n.at(x, y, 0) + n.at(x, y, 1) * n.at(x, y, 1) + n.at(x, y, 2) * n.at(x, y, 2));
      if (d.at(x, y, 0) > 0) {
        ++covered;
        unit += std::abs(l - 1) < 1e-3;
      }
    }
  EXPECT_GT(covered, 1000);
  EXPECT_EQ(unit, covered);
  // Bottom-to-top storage handled: the ground (+Z up) fills the lower part of the image,
  // so normals there point up in world space.
  int ground_row = 0;
  for (int y = 199; y > 100; --y)
    if (d.at(100, y, 0) > 0) {
      ground_row = y - 12;  // above the disk's vertical rim (about 7 px tall here)
      break;
    }
  EXPECT_GT(n.at(100, ground_row, 2), 0.9f);
}
