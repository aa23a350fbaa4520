#include <gtest/gtest.h>

#include <filesystem>

#include "glint/io/dataset.h"
#include "glint/io/image_cache.h"
#include "support/scene_builder.h"
#include "test_support.h"

using namespace glint;
using namespace glint::test;

namespace {

void expect_same_pose(const Camera& a, const Camera& b, double tol) {
  for (int i = 0; i < 9; ++i) EXPECT_NEAR(a.R.m[i], b.R.m[i], tol);
  Vec3d ca = a.center(), cb = b.center();
  EXPECT_NEAR(ca.x, cb.x, tol);
  EXPECT_NEAR(ca.y, cb.y, tol);
  EXPECT_NEAR(ca.z, cb.z, tol);
}

}  // namespace

TEST(Dataset, ColmapBinaryTextAndTransformsGiveTheSameCameras) {
  TempDir bin, txt, tj;
  auto fakes = write_colmap_dataset(bin.str(), 9);
  write_colmap_dataset(txt.str(), 9, true);
  write_transforms_dataset(tj.str(), 9);
  DatasetOptions o;
  o.test_every = 0;
  Dataset a = load_dataset(bin.str(), o), b = load_dataset(txt.str(), o), c = load_dataset(tj.str(), o);
  EXPECT_EQ(a.format, DatasetFormat::ColmapBinary);
  EXPECT_EQ(b.format, DatasetFormat::ColmapText);
  EXPECT_EQ(c.format, DatasetFormat::Transforms);
  ASSERT_EQ(a.train.size(), 9u);
  ASSERT_EQ(c.train.size(), 9u);
  // COLMAP sorts by name: img_0..img_8; transforms: f_0..f_8 (same index order).
  for (std::size_t i = 0; i < 9; ++i) {
    expect_same_pose(a.train[i].camera, b.train[i].camera, 1e-12);
    expect_same_pose(a.train[i].camera, c.train[i].camera, 1e-9);
  }
  EXPECT_EQ(a.points.size(), 3u);
  EXPECT_FALSE(a.points_random);
  EXPECT_TRUE(c.points_random);
  EXPECT_EQ(c.train[0].camera.fy, 31.0);
}

TEST(Dataset, EveryEighthImageIsHeldOut) {
  TempDir dir;
  write_colmap_dataset(dir.str(), 17);
  Dataset d = load_dataset(dir.str());
  EXPECT_EQ(d.test.size(), 3u);  // 0, 8, 16
  EXPECT_EQ(d.train.size(), 14u);
  EXPECT_EQ(d.test[1].camera.name, "img_16.png");  // sorted by name: img_0, img_1, img_10.. img_16 is 8th
  DatasetOptions o;
  o.test_every = 4;
  EXPECT_EQ(load_dataset(dir.str(), o).test.size(), 5u);
}

TEST(Dataset, DownscaleAndMaxSizeScaleIntrinsics) {
  TempDir dir;
  write_colmap_dataset(dir.str(), 3);
  DatasetOptions o;
  o.test_every = 0;
  o.downscale = 2;
  Dataset d = load_dataset(dir.str(), o);
  EXPECT_EQ(d.train[0].camera.width, 16);
  EXPECT_EQ(d.train[0].camera.height, 12);
  EXPECT_DOUBLE_EQ(d.train[0].camera.fx, 15);
  EXPECT_DOUBLE_EQ(d.train[0].camera.cx, 8);
  Image8 img = d.load_image(d.train[0]);
  EXPECT_EQ(img.width, 16);
  EXPECT_EQ(img.channels, 3);
  o.downscale = 1;
  o.max_size = 8;
  d = load_dataset(dir.str(), o);
  EXPECT_EQ(d.train[0].camera.width, 8);
  EXPECT_EQ(d.train[0].camera.height, 6);
}

TEST(Dataset, ImageCacheStaysWithinItsBudget) {
  TempDir dir;
  write_colmap_dataset(dir.str(), 12);
  DatasetOptions o;
  o.test_every = 0;
  Dataset d = load_dataset(dir.str(), o);
  const std::size_t one = 32 * 24 * 3;
  ImageCache small(d, d.train, 3 * one);
  EXPECT_FALSE(small.preload_if_fits());
  for (int round = 0; round < 2; ++round)
    for (std::size_t i = 0; i < d.train.size(); ++i) {
      auto img = small.get(i);
      EXPECT_EQ(img->data.size(), one);
      EXPECT_LE(small.bytes_held(), small.budget());
    }
  ImageCache big(d, d.train, 100 * one);
  EXPECT_TRUE(big.preload_if_fits());
  EXPECT_EQ(big.bytes_held(), 12 * one);
  EXPECT_EQ(*big.get(5), d.load_image(d.train[5]));
}

// The acceptance check from the foundation issue: both forms of the shapes scene give the
// same cameras within 1e-4 of the scene radius, with the same intrinsics.
TEST(SharedDatasets, ShapesBlenderAndColmapAgree) {
  GLINT_REQUIRE_SHARED(blender_dir, "shapes");
  GLINT_REQUIRE_SHARED(colmap_dir, "shapes_colmap");
  DatasetOptions o;
  o.test_every = 0;
  Dataset b = load_dataset(blender_dir, o), c = load_dataset(colmap_dir, o);
  ASSERT_EQ(b.train.size(), 50u);
  ASSERT_EQ(c.train.size(), 50u);
  const double tol = 1e-4 * b.radius;
  int matched = 0;
  for (const View& vb : b.train) {
    std::string stem = std::filesystem::path(vb.camera.name).stem().string();
    for (const View& vc : c.train) {
      if (std::filesystem::path(vc.camera.name).stem().string() != stem) continue;
      ++matched;
      expect_same_pose(vb.camera, vc.camera, tol);
      EXPECT_NEAR(vb.camera.fx, vc.camera.fx, 1e-6);
      EXPECT_NEAR(vb.camera.fy, vc.camera.fy, 1e-6);
      EXPECT_NEAR(vb.camera.cx, vc.camera.cx, 1e-6);
      EXPECT_NEAR(vb.camera.cy, vc.camera.cy, 1e-6);
      EXPECT_EQ(vb.camera.width, vc.camera.width);
    }
  }
  EXPECT_EQ(matched, 50);
}

TEST(SharedDatasets, EveryDatasetLoads) {
  GLINT_REQUIRE_SHARED(root, "");
  struct Expect {
    const char* dir;
    DatasetFormat format;
    std::size_t train, test;
    int width, height;
  };
  const Expect cases[] = {
      {"lego_400", DatasetFormat::Blender, 100, 200, 400, 400},
      {"lego_800", DatasetFormat::Blender, 87, 13, 800, 800},
      {"shapes", DatasetFormat::Blender, 50, 10, 200, 200},
      {"shapes_colmap", DatasetFormat::ColmapBinary, 43, 7, 200, 200},
      {"statue", DatasetFormat::ColmapBinary, 20, 3, 1000, 0},
      {"fox", DatasetFormat::Transforms, 58, 9, 1080, 1920},
      {"relight/capture", DatasetFormat::Blender, 60, 8, 200, 200},
  };
  for (const auto& e : cases) {
    SCOPED_TRACE(e.dir);
    Dataset d = load_dataset(root + "/" + e.dir);
    EXPECT_EQ(d.format, e.format);
    EXPECT_EQ(d.train.size(), e.train);
    EXPECT_EQ(d.test.size(), e.test);
    EXPECT_EQ(d.train[0].camera.width, e.width);
    if (e.height) {
      EXPECT_EQ(d.train[0].camera.height, e.height);
    }
    EXPECT_GT(d.points.size(), 0u);
  }
}

TEST(SharedDatasets, StatueHasPerImageHeights) {
  GLINT_REQUIRE_SHARED(dir, "statue");
  DatasetOptions o;
  o.test_every = 0;
  Dataset d = load_dataset(dir, o);
  int lo = 1 << 30, hi = 0;
  for (const View& v : d.train) {
    lo = std::min(lo, v.camera.height);
    hi = std::max(hi, v.camera.height);
  }
  EXPECT_EQ(lo, 656);
  EXPECT_EQ(hi, 662);
  EXPECT_EQ(d.points.size(), 1443u);
  Image8 img = d.load_image(d.train[0]);
  EXPECT_EQ(img.height, d.train[0].camera.height);
}

TEST(SharedDatasets, FoxIsUndistortedAndDownscaled) {
  GLINT_REQUIRE_SHARED(dir, "fox");
  DatasetOptions o;
  o.downscale = 4;
  Dataset d = load_dataset(dir, o);
  const View& v = d.train[0];
  EXPECT_TRUE(v.undistort);
  EXPECT_EQ(v.camera.width, 270);
  EXPECT_EQ(v.camera.height, 480);
  Image8 img = d.load_image(v);
  EXPECT_EQ(img.width, 270);
  EXPECT_EQ(img.height, 480);
}

TEST(SharedDatasets, BlenderPointsAndBackground) {
  GLINT_REQUIRE_SHARED(dir, "shapes");
  Dataset d = load_dataset(dir);
  EXPECT_FALSE(d.points_random);  // points3d.ply beside the json
  EXPECT_EQ(d.background[0], 1.f);
  Image8 img = d.load_image(d.train[0]);
  EXPECT_EQ(img.channels, 3);
  EXPECT_EQ(img.row(0)[0], 255);  // transparent corner composited on white
}
