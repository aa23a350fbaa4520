#include <gtest/gtest.h>

#include "glint/core/error.h"
#include "glint/io/point_cloud_ply.h"
#include "test_support.h"

using namespace glint;
using namespace glint::test;

TEST(PointCloudPly, AsciiWithColoursAndExtras) {
  TempDir d;
  write_file(d.str("p.ply"),
             "ply\nformat ascii 1.0\ncomment made by hand\nelement vertex 2\nproperty float x\nproperty float y\n"
             "property float z\nproperty float nx\nproperty uchar red\nproperty uchar green\nproperty uchar blue\n"
             "element face 1\nproperty list uchar int vertex_indices\nend_header\n"
             "1 2 3 0 10 20 30\n-1 -2 -3 0 255 0 7\n3 0 1 1\n");
  PointCloud pc = read_point_cloud_ply(d.str("p.ply"));
  ASSERT_EQ(pc.size(), 2u);
  EXPECT_EQ(pc.xyz, (std::vector<float>{1, 2, 3, -1, -2, -3}));
  EXPECT_EQ(pc.rgb, (std::vector<std::uint8_t>{10, 20, 30, 255, 0, 7}));
}

TEST(PointCloudPly, GreyWithoutColourAndErrors) {
  TempDir d;
  write_file(d.str("p.ply"), "ply\nformat ascii 1.0\nelement vertex 1\nproperty double x\nproperty double y\n"
                             "property double z\nend_header\n0.5 0.25 1\n");
  PointCloud pc = read_point_cloud_ply(d.str("p.ply"));
  EXPECT_EQ(pc.rgb, (std::vector<std::uint8_t>{128, 128, 128}));
  write_file(d.str("q.ply"), "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nend_header\n1 2\n");
  EXPECT_THROW(read_point_cloud_ply(d.str("q.ply")), Error);
  write_file(d.str("r.ply"), "ply\nformat binary_little_endian 1.0\nelement vertex 5\nproperty float x\n"
                             "property float y\nproperty float z\nend_header\n\x01\x02");
  EXPECT_THROW(read_point_cloud_ply(d.str("r.ply")), Error);
}

TEST(PointCloudPly, SharedShapesPoints) {
  GLINT_REQUIRE_SHARED(path, "relight/capture/points3d.ply");
  PointCloud pc = read_point_cloud_ply(path);
  EXPECT_EQ(pc.size(), 5000u);
}
