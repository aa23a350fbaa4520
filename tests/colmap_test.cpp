#include <gtest/gtest.h>

#include <cstring>

#include "glint/core/error.h"
#include "glint/io/colmap.h"
#include "support/scene_builder.h"
#include "test_support.h"

using namespace glint;
using namespace glint::test;

TEST(Colmap, BinaryAndTextAgree) {
  std::vector<FakeCamera> cams{{1, 1, "PINHOLE", 640, 480, {500, 510, 320, 240}},
                               {2, 4, "OPENCV", 800, 600, {600, 601, 400, 300, 0.01, -0.02, 0.001, 0.002}}};
  std::vector<FakeImage> ims{{3, {0.5, 0.5, 0.5, 0.5}, {1, 2, 3}, 2, "dir/img one.jpg"}, {7, {1, 0, 0, 0}, {0, 0, 1}, 1, "b.jpg"}};
  std::vector<FakePoint> pts{{1, 2, 3, 4, 5, 6}, {-1, -2, -3, 250, 251, 252}};
  auto cb = parse_cameras_bin(cameras_bin(cams), "c");
  auto ct = parse_cameras_txt(cameras_txt(cams), "c");
  ASSERT_EQ(cb.size(), 2u);
  ASSERT_EQ(ct.size(), 2u);
  for (auto id : {1u, 2u}) {
    EXPECT_EQ(cb[id].model, ct[id].model);
    EXPECT_EQ(cb[id].k.width, ct[id].k.width);
    EXPECT_DOUBLE_EQ(cb[id].k.fx, ct[id].k.fx);
    EXPECT_DOUBLE_EQ(cb[id].dist.p2, ct[id].dist.p2);
  }
  EXPECT_DOUBLE_EQ(cb[2].dist.k1, 0.01);
  EXPECT_DOUBLE_EQ(cb[2].k.fy, 601);
  auto ib = parse_images_bin(images_bin(ims), "i");
  auto it = parse_images_txt(images_txt(ims), "i");
  ASSERT_EQ(ib.size(), 2u);
  ASSERT_EQ(it.size(), 2u);
  EXPECT_EQ(ib[0].name, "dir/img one.jpg");
  EXPECT_EQ(it[0].name, "dir/img one.jpg");
  EXPECT_EQ(ib[1].camera_id, 1u);
  EXPECT_DOUBLE_EQ(it[0].t.z, 3);
  auto pb = parse_points3d_bin(points_bin(pts), "p");
  auto pt = parse_points3d_txt(points_txt(pts), "p");
  EXPECT_EQ(pb.xyz, pt.xyz);
  EXPECT_EQ(pb.rgb, pt.rgb);
  EXPECT_EQ(pb.rgb[3], 250);
}

TEST(Colmap, ModelsMapToLenses) {
  auto c = make_source_camera("SIMPLE_RADIAL", 100, 50, {80, 50, 25, 0.1}, "x");
  EXPECT_EQ(c.k.fx, 80);
  EXPECT_EQ(c.k.fy, 80);
  EXPECT_EQ(c.dist.k1, 0.1);
  c = make_source_camera("RADIAL", 100, 50, {80, 50, 25, 0.1, 0.2}, "x");
  EXPECT_EQ(c.dist.k2, 0.2);
  c = make_source_camera("SIMPLE_PINHOLE", 100, 50, {80, 50, 25}, "x");
  EXPECT_TRUE(c.dist.is_identity());
  c = make_source_camera("FULL_OPENCV", 100, 50, {80, 81, 50, 25, .1, .2, .01, .02, .3, .4, .5, .6}, "x");
  EXPECT_EQ(c.dist.k6, 0.6);
  EXPECT_THROW(make_source_camera("FISHEYE_X", 100, 50, {1}, "x"), Error);
  EXPECT_THROW(make_source_camera("OPENCV_FISHEYE", 100, 50, {1, 1, 1, 1, 0, 0, 0, 0}, "x"), Error);
  EXPECT_THROW(make_source_camera("PINHOLE", 100, 50, {1, 1, 1}, "x"), Error);
  EXPECT_THROW(make_source_camera("PINHOLE", 0, 50, {1, 1, 1, 1}, "x"), Error);
  EXPECT_THROW(make_source_camera("PINHOLE", 10, 50, {-1, 1, 1, 1}, "x"), Error);
}

TEST(Colmap, TruncationAtEveryByteIsAnError) {
  std::vector<FakeCamera> cams{FakeCamera{}};
  std::vector<FakeImage> ims{FakeImage{}};
  std::vector<FakePoint> pts{FakePoint{}};
  std::string c = cameras_bin(cams), i = images_bin(ims), p = points_bin(pts);
  for (std::size_t n = 0; n < c.size(); ++n) EXPECT_THROW(parse_cameras_bin(c.substr(0, n), "c"), Error) << n;
  for (std::size_t n = 0; n < i.size(); ++n) EXPECT_THROW(parse_images_bin(i.substr(0, n), "i"), Error) << n;
  for (std::size_t n = 0; n < p.size(); ++n) EXPECT_THROW(parse_points3d_bin(p.substr(0, n), "p"), Error) << n;
}

TEST(Colmap, HugeCountIsRejectedBeforeAllocating) {
  std::string s = points_bin({FakePoint{}});
  std::uint64_t huge = 1ull << 60;
  std::memcpy(s.data(), &huge, 8);
  try {
    parse_points3d_bin(s, "points3D.bin");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("points3D.bin: corrupted file"), std::string::npos) << e.what();
  }
}

TEST(Colmap, LoadsTextModelFromDisk) {
  TempDir dir;
  write_colmap_dataset(dir.str(), 5, /*text=*/true);
  ColmapModel m = read_colmap_model(dir.str("sparse/0"));
  EXPECT_FALSE(m.binary);
  EXPECT_EQ(m.images.size(), 5u);
  EXPECT_EQ(m.points.size(), 3u);
}
