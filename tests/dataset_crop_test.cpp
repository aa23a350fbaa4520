// A view cut to a window of its picture: the image it loads is that part of the whole
// view's image, and its camera projects every point to the same place less the window's
// corner; its mask is the same part of the whole view's mask.
#include <gtest/gtest.h>

#include <filesystem>

#include "glint/core/error.h"
#include "glint/io/dataset.h"
#include "glint/io/image_io.h"
#include "support/scene_builder.h"
#include "test_support.h"

using namespace glint;
using namespace glint::test;

TEST(DatasetCrop, WindowOfTheImageAndTheCamera) {
  DatasetOptions o;
  o.downscale = 4;
  const Dataset d = load_dataset(std::string(GLINT_SOURCE_DIR) + "/data/demo", o);
  const View& v = d.train.at(3);
  const Image8 whole = d.load_image(v);
  const View c = crop_view(v, 7, 5, 20, 13);
  EXPECT_EQ(c.camera.width, 20);
  EXPECT_EQ(c.camera.height, 13);
  const Image8 part = d.load_image(c);
  ASSERT_EQ(part.width, 20);
  ASSERT_EQ(part.height, 13);
  ASSERT_EQ(part.channels, whole.channels);
  for (int y = 0; y < 13; ++y)
    for (int x = 0; x < 20 * whole.channels; ++x)
      ASSERT_EQ(part.row(y)[x], whole.row(y + 5)[7 * whole.channels + x]) << x << "," << y;
  const Vec3d p = v.camera.world_to_camera(d.center);
  const Vec2d a = v.camera.project(p), b = c.camera.project(c.camera.world_to_camera(d.center));
  EXPECT_NEAR(b.x, a.x - 7, 1e-9);
  EXPECT_NEAR(b.y, a.y - 5, 1e-9);
  // A crop of the crop is the crop of the whole at the summed offset.
  const View cc = crop_view(c, 2, 3, 10, 8);
  const Image8 inner = d.load_image(cc);
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 10 * whole.channels; ++x)
      ASSERT_EQ(inner.row(y)[x], whole.row(y + 8)[9 * whole.channels + x]);
  EXPECT_THROW(crop_view(v, 0, 0, v.camera.width + 1, 4), Error);
  EXPECT_THROW(crop_view(v, -1, 0, 4, 4), Error);
  EXPECT_THROW(crop_view(v, 0, 0, 0, 4), Error);
}

TEST(DatasetCrop, MaskIsCutWithItsImage) {
  TempDir d;
  write_colmap_dataset(d.str(), 2);
  std::filesystem::create_directories(d.str("masks"));
  Image8 m{32, 24, 1, {}};
  m.data.resize(32 * 24);
  for (int y = 0; y < 24; ++y)
    for (int x = 0; x < 32; ++x) m.row(y)[x] = static_cast<std::uint8_t>(x < 8 + y / 3 ? 0 : 255);
  write_file(d.str("masks/img_0.png"), encode_png(m));
  DatasetOptions o;
  o.test_every = 0;
  const Dataset data = load_dataset(d.str(), o);
  const View& v = data.train.at(0);
  ASSERT_TRUE(v.has_mask());
  const ViewPixels whole = data.load_view(v);
  const ViewPixels part = data.load_view(crop_view(v, 5, 4, 14, 11));
  ASSERT_EQ(whole.mask.width, 32);
  ASSERT_EQ(part.mask.width, 14);
  ASSERT_EQ(part.mask.height, 11);
  ASSERT_EQ(part.image.width, 14);
  for (int y = 0; y < 11; ++y)
    for (int x = 0; x < 14; ++x) ASSERT_EQ(part.mask.row(y)[x], whole.mask.row(y + 4)[x + 5]) << x << "," << y;
}
