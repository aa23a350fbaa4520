// The render-output table (backend/render_outputs.h) and what it drives: the settings'
// flags, the images a forward makes, the kernel flags, the backward's gradient checks and
// `glint render --aov`.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "glint/backend/backend.h"
#include "glint/core/error.h"
#include "glint/io/cameras_json.h"
#include "glint/io/pfm.h"
#include "glint/io/ply.h"
#include "support/light_scene.h"
#include "test_support.h"

using namespace glint;
using namespace glint::test;

namespace {

Camera top_camera(int size = 64) {  // 4 m above the origin, looking straight down
  Camera c;
  c.name = "top";
  c.width = c.height = size;
  c.fx = c.fy = 80;
  c.cx = c.cy = size / 2.0;
  c.R = {{1, 0, 0, 0, -1, 0, 0, 0, -1}};
  c.t = -(c.R * Vec3d{0.1, -0.05, 4});
  return c;
}

RenderSettings nothing_but_rgb() {
  RenderSettings s;
  for (int i = 0; i < aov::kCount; ++i) set_want(s, aov::Id(i), false);
  return s;
}

bool same_bits(const ImageF& a, const ImageF& b) {
  return a.width == b.width && a.height == b.height && a.channels == b.channels &&
         std::memcmp(a.data.data(), b.data.data(), a.data.size() * sizeof(float)) == 0;
}

}  // namespace

TEST(RenderOutputs, TableRowsAreDistinctAndTheirKernelBitsFitTheTables) {
  std::set<std::string> names;
  unsigned bits = 0;
  for (int i = 0; i < aov::kCount; ++i) {
    const aov::Info& o = aov::kInfo[i];
    EXPECT_TRUE(names.insert(o.name).second) << o.name;
    EXPECT_NE(std::string(o.name), "rgb");
    EXPECT_GT(o.channels, 0) << o.name;
    EXPECT_GE(o.saved_words, 0) << o.name;
    EXPECT_GT(std::strlen(o.meaning), 10u) << o.name;
    const unsigned f = aov::kernel_flag(aov::Id(i));
    if (o.from_blend) {
      EXPECT_EQ(f & (f - 1), 0u) << o.name << ": one bit";
      EXPECT_EQ(bits & f, 0u) << o.name << ": a bit of its own";
      bits |= f;
    } else {
      EXPECT_EQ(f, 0u) << o.name;
    }
    // the backward's kernel builds tell apart exactly the blend outputs with a gradient
    EXPECT_EQ((f & aov::kBackwardKernelFlags) != 0, o.from_blend && o.has_gradient) << o.name;
  }
  EXPECT_EQ(bits, aov::kForwardKernelFlags);
}

TEST(RenderOutputs, RenderHelpListsEveryRow) {
  CommandResult r = run_glint("render --help");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const aov::Info& o : aov::kInfo) EXPECT_NE(r.out.find(o.name), std::string::npos) << o.name;
  EXPECT_NE(r.out.find("depth_normal"), std::string::npos);
}

TEST(RenderOutputs, SettingsFlagsFollowTheTableDefaults) {
  RenderSettings s;
  for (int i = 0; i < aov::kCount; ++i) EXPECT_EQ(wants(s, aov::Id(i)), aov::kInfo[i].on_by_default) << aov::kInfo[i].name;
  set_want(s, aov::distortion, true);
  EXPECT_TRUE(s.want_distortion);
  RenderGradIn g;
  const float x = 1.f;
  for (int i = 0; i < aov::kCount; ++i) {
    EXPECT_EQ(set_grad(g, aov::Id(i), &x), aov::kInfo[i].has_gradient) << aov::kInfo[i].name;
    EXPECT_EQ(grad_of(g, aov::Id(i)), aov::kInfo[i].has_gradient ? &x : nullptr) << aov::kInfo[i].name;
  }
}

// Each output wanted alone gives an image of the table's shape, the others stay empty, and
// its values are bit for bit those of a render that wants everything: flags select work,
// they do not change it.
TEST(RenderOutputs, EachOutputAloneHasTheTablesShapeAndTheValuesOfAFullRender) {
  const GaussianModel m = ground_and_box();
  const Camera cam = top_camera();
  auto be = make_cpu_backend(2);
  RenderSettings all = nothing_but_rgb();
  for (int i = 0; i < aov::kCount; ++i) set_want(all, aov::Id(i), true);
  const RenderOutput full = be->forward(m, cam, all);
  for (int i = 0; i < aov::kCount; ++i) {
    const aov::Id id = aov::Id(i);
    SCOPED_TRACE(aov::kInfo[i].name);
    RenderSettings s = nothing_but_rgb();
    set_want(s, id, true);
    const RenderOutput o = be->forward(m, cam, s);
    ASSERT_EQ(image_of(o, id).width, cam.width);
    ASSERT_EQ(image_of(o, id).height, cam.height);
    ASSERT_EQ(image_of(o, id).channels, aov::kInfo[i].channels);
    EXPECT_TRUE(same_bits(image_of(o, id), image_of(full, id)));
    EXPECT_TRUE(same_bits(o.rgb, full.rgb));
    for (int j = 0; j < aov::kCount; ++j) {
      if (j == i) continue;
      EXPECT_TRUE(image_of(o, aov::Id(j)).data.empty()) << aov::kInfo[j].name;
    }
    double sum = 0;
    for (float v : image_of(o, id).data) sum += std::abs(v);
    EXPECT_GT(sum, 0.0) << "the scene covers the view, so every output has non-zero pixels";
  }
}

TEST(RenderOutputs, BackwardRefusesTheGradientOfAnOutputTheForwardDidNotRender) {
  const GaussianModel m = ground_and_box();
  const Camera cam = top_camera(32);
  auto be = make_cpu_backend(1);
  const RenderSettings s = nothing_but_rgb();
  const RenderOutput o = be->forward(m, cam, s);
  const std::vector<float> d_rgb(std::size_t(cam.width) * std::size_t(cam.height) * 3, 0.1f);
  const std::vector<float> d_any(std::size_t(cam.width) * std::size_t(cam.height) * 3, 0.1f);
  ModelGrad grad;
  RenderGradIn ok;
  ok.d_rgb = d_rgb.data();
  EXPECT_NO_THROW(be->backward(m, cam, s, o, ok, grad));
  for (int i = 0; i < aov::kCount; ++i) {
    if (!aov::kInfo[i].has_gradient) continue;
    SCOPED_TRACE(aov::kInfo[i].name);
    RenderGradIn g = ok;
    set_grad(g, aov::Id(i), d_any.data());
    try {
      be->backward(m, cam, s, o, g, grad);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(aov::kInfo[i].name), std::string::npos) << e.what();
    }
  }
}

// An output no test of its own renders through the command line: the table alone gives it
// its --aov name and files.
TEST(RenderOutputs, RenderAovCountWritesWholeSplatCounts) {
  TempDir d;
  write_ply(d.str("scene.ply"), ground_and_box());
  write_cameras_json(d.str("cameras.json"), {top_camera()});
  CommandResult r = run_glint("render '" + d.str("scene.ply") + "' '" + d.str("cameras.json") + "' -o '" +
                              d.str("out") + "' --aov count");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(d.str("out/top_count.png")));
  EXPECT_FALSE(std::filesystem::exists(d.str("out/top.png")));
  const ImageF count = read_pfm(d.str("out/top_count.pfm"));
  ASSERT_EQ(count.channels, 1);
  float hi = 0;
  for (float v : count.data) {
    EXPECT_EQ(v, std::floor(v));
    EXPECT_GE(v, 0.f);
    hi = std::max(hi, v);
  }
  EXPECT_GE(hi, 2.f) << "the box over the ground blends several splats into a pixel";
}

// Without the colour (want_rgb = false) rgb is empty and every other output keeps its
// bits, the coverage included (composed from the same transmittance); with a median-only
// map's settings as well.
TEST(RenderOutputs, WithoutColourTheOtherOutputsKeepTheirBits) {
  const GaussianModel m = ground_and_box();
  const Camera cam = top_camera();
  auto be = make_cpu_backend(2);
  RenderSettings s = nothing_but_rgb();
  s.want_alpha = s.want_depth = s.want_median_depth = s.want_normal = true;
  const RenderOutput with = be->forward(m, cam, s);
  s.want_rgb = false;
  const RenderOutput without = be->forward(m, cam, s);
  ASSERT_FALSE(with.rgb.data.empty());
  EXPECT_TRUE(without.rgb.data.empty());
  EXPECT_TRUE(same_bits(with.alpha, without.alpha));
  EXPECT_TRUE(same_bits(with.depth, without.depth));
  EXPECT_TRUE(same_bits(with.median_depth, without.median_depth));
  EXPECT_TRUE(same_bits(with.normal, without.normal));
  RenderSettings map = nothing_but_rgb();
  map.want_median_depth = map.median_depth_only = true;
  const RenderOutput coloured = be->forward(m, cam, map);
  map.want_rgb = false;
  std::vector<RenderOutput> outs;
  be->forward_views(m, {cam, cam}, map, outs);
  ASSERT_EQ(outs.size(), 2u);
  for (const RenderOutput& o : outs) {
    EXPECT_TRUE(o.rgb.data.empty());
    EXPECT_TRUE(same_bits(o.median_depth, coloured.median_depth));
  }
}

// median_depth_only lets the blend stop a pixel at its median step: the median depth keeps
// its bits, the colour and alpha behind it are left partial, and no backward is possible.
TEST(RenderOutputs, MedianDepthOnlyKeepsTheMedianAndStopsEarly) {
  const GaussianModel m = ground_and_box();
  const Camera cam = top_camera();
  auto be = make_cpu_backend(2);
  RenderSettings s = nothing_but_rgb();
  s.want_median_depth = true;
  const RenderOutput full = be->forward(m, cam, s);
  s.median_depth_only = true;
  const RenderOutput early = be->forward(m, cam, s);
  EXPECT_TRUE(same_bits(early.median_depth, full.median_depth));
  EXPECT_FALSE(same_bits(early.rgb, full.rgb)) << "pixels stopped before their last splats";
  double median_sum = 0;
  for (float z : full.median_depth.data) median_sum += z;
  EXPECT_GT(median_sum, 0.0);
  RenderGradIn gin;
  std::vector<float> d_rgb(early.rgb.data.size(), 1.f);
  gin.d_rgb = d_rgb.data();
  ModelGrad grad;
  EXPECT_THROW(be->backward(m, cam, s, early, gin, grad), Error);
}
