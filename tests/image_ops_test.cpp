#include <gtest/gtest.h>
#include <omp.h>

#include <array>

#include "glint/core/error.h"
#include "glint/io/image_io.h"
#include "glint/io/image_ops.h"
#include "support/scene_builder.h"
#include "test_support.h"

using namespace glint;

TEST(ImageOps, HalvingAveragesTwoByTwoBlocks) {
  Image8 img = test::pattern_image(10, 6, 3, 2);
  Image8 half = resize_area(img, 5, 3);
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 5; ++x)
      for (int c = 0; c < 3; ++c) {
        int s = img.row(2 * y)[(2 * x) * 3 + c] + img.row(2 * y)[(2 * x + 1) * 3 + c] +
                img.row(2 * y + 1)[(2 * x) * 3 + c] + img.row(2 * y + 1)[(2 * x + 1) * 3 + c];
        EXPECT_NEAR(half.row(y)[x * 3 + c], s / 4.0, 0.51);
      }
}

TEST(ImageOps, NonIntegerRatioPreservesMean) {
  Image8 img = test::pattern_image(37, 23, 1, 5);
  Image8 small = resize_area(img, 15, 10);
  double a = 0, b = 0;
  for (auto v : img.data) a += v;
  for (auto v : small.data) b += v;
  EXPECT_NEAR(a / img.data.size(), b / small.data.size(), 1.0);
}

TEST(ImageOps, CompositesStraightAlphaOverBackground) {
  Image8 img;
  img.width = 2;
  img.height = 1;
  img.channels = 4;
  img.data = {255, 0, 0, 255, 0, 0, 255, 0};  // opaque red, transparent blue
  Image8 rgb = to_rgb(img, {1, 1, 1});
  EXPECT_EQ(rgb.channels, 3);
  EXPECT_EQ(rgb.data, (std::vector<std::uint8_t>{255, 0, 0, 255, 255, 255}));
  img.data = {255, 255, 255, 128, 0, 0, 0, 0};
  rgb = to_rgb(img, {0, 0, 0});
  EXPECT_EQ(rgb.data[0], 128);
}

// Every channel layout, at a size that takes the threaded path, against the formula
// a * v / 255 + (1 - a) * bg written out per value; the output's storage is reused.
TEST(ImageOps, CompositeFloatIntoMatchesTheFormula) {
  const std::array<float, 3> bg = {0.25f, 0.5f, 1.f};
  ImageF out;
  for (int ch : {1, 2, 3, 4}) {
    Image8 img = test::pattern_image(300, 230, ch, 7 + ch);
    composite_float_into(img, bg, out);
    ASSERT_EQ(out.width, 300);
    ASSERT_EQ(out.height, 230);
    ASSERT_EQ(out.channels, 3);
    const float* storage = out.data.data();
    for (int y = 0; y < img.height; y += 7)
      for (int x = 0; x < img.width; ++x) {
        const std::uint8_t* px = img.row(y) + x * ch;
        const float a = (ch == 2 || ch == 4) ? px[ch - 1] * (1.f / 255.f) : 1.f;
        for (int c = 0; c < 3; ++c)
          ASSERT_EQ(out.at(x, y, c), px[ch <= 2 ? 0 : c] * (1.f / 255.f) * a + bg[c] * (1.f - a))
              << ch << " channels, pixel " << x << "," << y;
      }
    composite_float_into(img, bg, out);
    EXPECT_EQ(out.data.data(), storage);
  }
}

TEST(ImageIo, PngRoundTrip) {
  test::TempDir dir;
  Image8 img = test::pattern_image(13, 7, 4, 1);
  test::write_file(dir.str("x.png"), encode_png(img));
  Image8 back = read_image(dir.str("x.png"));
  EXPECT_EQ(back.width, 13);
  EXPECT_EQ(back.channels, 4);
  EXPECT_EQ(back.data, img.data);
  ImageInfo info = read_image_info(dir.str("x.png"));
  EXPECT_EQ(info.height, 7);
}

// The zlib encoder: the same pixels back for every channel count, with rows of a width
// whose bytes are no multiple of the pixel size's powers, for a single row or column, and
// for images tall enough to be deflated in several bands of rows (2 and 4), whose bytes do
// not depend on the number of threads.
TEST(ImageIo, FastPngRoundTrip) {
  test::TempDir dir;
  for (int c = 1; c <= 4; ++c)
    for (auto [w, h] : {std::array<int, 2>{13, 7}, {1, 9}, {17, 1}, {64, 33}, {37, 260}, {5, 700}}) {
      const Image8 img = test::pattern_image(w, h, c, c + w);
      const std::string name = dir.str("f" + std::to_string(c) + "_" + std::to_string(w) + ".png");
      test::write_file(name, encode_png_fast(img));
      const Image8 back = read_image(name);
      EXPECT_EQ(back.width, w);
      EXPECT_EQ(back.height, h);
      EXPECT_EQ(back.channels, c);
      EXPECT_EQ(back.data, img.data) << c << " channels, " << w << " x " << h;
    }
  EXPECT_THROW(encode_png_fast(Image8{}), Error);
  const Image8 tall = test::pattern_image(301, 517, 4, 3);
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const std::string one = encode_png_fast(tall);
  omp_set_num_threads(std::max(2, threads));
  EXPECT_EQ(encode_png_fast(tall), one);
  omp_set_num_threads(threads);
}

TEST(ImageIo, TruncatedPngNamesFileAndReason) {
  // Cut inside the pixel data: the header still reads, the decode fails, and stb gives an
  // empty reason for it, so the message must supply one.
  test::TempDir dir;
  const std::string png = encode_png(test::pattern_image(64, 64, 3, 2));
  test::write_file(dir.str("cut.png"), png.substr(0, png.size() / 2));
  EXPECT_EQ(read_image_info(dir.str("cut.png")).width, 64);
  try {
    read_image(dir.str("cut.png"));
    FAIL() << "a truncated PNG decoded";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cut.png"), std::string::npos) << what;
    EXPECT_EQ(what.find("()"), std::string::npos) << what;
    EXPECT_NE(what.find("cannot decode image ("), std::string::npos) << what;
  }
}
