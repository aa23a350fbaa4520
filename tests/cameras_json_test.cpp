#include <gtest/gtest.h>

#include "glint/core/error.h"
#include "glint/io/cameras_json.h"
#include "glint/io/dataset.h"
#include "support/scene_builder.h"
#include "test_support.h"

using namespace glint;
using namespace glint::test;

TEST(CamerasJson, RoundTripKeepsEveryCamera) {
  TempDir d;
  write_colmap_dataset(d.str("scene"), 6);
  Dataset ds = load_dataset(d.str("scene"));
  std::vector<Camera> cams;
  for (const View& v : ds.train) cams.push_back(v.camera);
  write_cameras_json(d.str("cameras.json"), cams);
  std::vector<Camera> back = read_cameras_json(d.str("cameras.json"));
  ASSERT_EQ(back.size(), cams.size());
  for (std::size_t i = 0; i < cams.size(); ++i) {
    EXPECT_EQ(back[i].name, cams[i].name);
    EXPECT_EQ(back[i].width, cams[i].width);
    EXPECT_DOUBLE_EQ(back[i].fx, cams[i].fx);
    EXPECT_DOUBLE_EQ(back[i].cy, cams[i].cy);
    for (int k = 0; k < 9; ++k) EXPECT_NEAR(back[i].R.m[k], cams[i].R.m[k], 1e-12);
    EXPECT_NEAR(back[i].t.z, cams[i].t.z, 1e-12);
  }
}

TEST(CamerasJson, GraphdecoLayoutWithoutPrincipalPoint) {
  TempDir d;
  write_file(d.str("c.json"),
             R"([{"id":0,"img_name":"r_0","width":100,"height":50,"position":[0,0,-4],)"
             R"("rotation":[[1,0,0],[0,1,0],[0,0,1]],"fy":80,"fx":80}])");
  auto cams = read_cameras_json(d.str("c.json"));
  ASSERT_EQ(cams.size(), 1u);
  EXPECT_EQ(cams[0].cx, 50);
  EXPECT_EQ(cams[0].cy, 25);
  EXPECT_NEAR(cams[0].t.z, 4, 1e-12);
  write_file(d.str("bad.json"), R"([{"width":100,"height":50,"fx":80,"fy":80,"position":[0,0],"rotation":[]}])");
  EXPECT_THROW(read_cameras_json(d.str("bad.json")), Error);
}
