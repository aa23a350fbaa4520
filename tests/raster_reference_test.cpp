// Optimised CPU rasterizer vs the double-precision reference on random scenes with the hard
// cases (behind the camera, straddling the near plane, huge, degenerate, zero quaternions),
// image sizes that are not multiples of 16, and an empty model.
#include <gtest/gtest.h>

#include <algorithm>

#include "glint/backend/backend.h"
#include "glint/core/error.h"
#include "glint/render/project.h"
#include "glint/render/tile.h"
#include "glint/render/view.h"
#include "raster_test_util.h"
#include "reference/reference_renderer.h"
#include "reference/scenes.h"

using namespace glint;
using namespace glint::test;

namespace {

struct Case {
  const char* name;
  int n, width, height;
  bool antialiased;
  int sh_degree;
  CpuSimd simd;
  bool only_distortion = false;  // rgb + distortion: the kernel instance without the other outputs
  int min_big_tiles = 0;         // some splat's tile range must have at least this many tiles
};

RenderSettings all_outputs(bool aa) {
  RenderSettings s;
  s.background[0] = 0.2f;
  s.background[1] = 0.5f;
  s.background[2] = 0.9f;
  s.want_alpha = s.want_depth = s.want_median_depth = s.want_normal = s.want_count = s.want_distortion = true;
  s.want_mean2d_abs = true;
  s.antialiased = aa;
  return s;
}

// The most tiles any splat's bounding box spans (the range the backend tests tile by tile).
int most_tiles(const GaussianModel& m, const Camera& cam, const RenderSettings& s) {
  const render::ViewT<float> view = render::make_view<float>(cam, s.near_plane);
  const int TS = render::kTileSize;
  int most = 0;
  for (std::size_t i = 0; i < m.size(); ++i) {
    render::Projected<float> pr;
    if (!render::project_splat(view, load3(m.means.data(), long(i)), load3(m.log_scales.data(), long(i)),
                               load_quat(m.quats.data(), long(i)), m.opacity_logits[i], s.antialiased, pr))
      continue;
    const render::PixelRect r = render::splat_pixel_rect(pr.mx, pr.my, pr.ext_x, pr.ext_y, cam.width, cam.height);
    if (r.x0 <= r.x1 && r.y0 <= r.y1) most = std::max(most, (r.x1 / TS - r.x0 / TS + 1) * (r.y1 / TS - r.y0 / TS + 1));
  }
  return most;
}

void compare_case(const Case& c) {
  SCOPED_TRACE(c.name);
  set_cpu_simd(c.simd);
  GaussianModel m = random_scene(c.n, 1234 + c.n + c.width);
  m.sh_degree = c.sh_degree;
  Camera cam = look_at(c.width, c.height, 0.9 * c.width, {0, -3, 0.5}, {0, 0, 0}, c.width * 0.47, c.height * 0.55);
  RenderSettings s = all_outputs(c.antialiased);
  if (c.only_distortion) {
    s.want_alpha = s.want_depth = s.want_median_depth = s.want_normal = s.want_count = false;
    s.want_distortion = true;
  }
  auto be = make_cpu_backend(2);
  RenderOutput out = be->forward(m, cam, s);
  if (c.min_big_tiles > 0) {
    EXPECT_GE(most_tiles(m, cam, s), c.min_big_tiles);
  }
  ref::ModelD md = ref::ModelD::from(m);
  ref::Images ri = ref::render(md, cam, s);
  // A handful of pixel values may differ where float and double fall on different sides
  // of a cut rule (alpha 1/255, transmittance 1e-4 or 0.5); allow 0.05% of them.
  const std::size_t P = std::size_t(c.width) * c.height, slack = P / 2000 + 1;
  EXPECT_TRUE(images_close("rgb", out.rgb.data, ri.rgb, 1e-4, 3 * slack));
  if (!c.only_distortion) {
    EXPECT_TRUE(images_close("alpha", out.alpha.data, ri.alpha, 1e-4, slack));
    EXPECT_TRUE(images_close("depth", out.depth.data, ri.depth, 1e-4 * 4, slack));
    EXPECT_TRUE(images_close("median", out.median_depth.data, ri.median, 1e-4 * 4, slack));
    EXPECT_TRUE(images_close("normal", out.normal.data, ri.normal, 1e-4, 3 * slack));
    EXPECT_TRUE(images_close("count", out.count.data, ri.count, 0.5, slack));
  }
  // the distortion is a sum of products of weights and depth gaps (~4 here): same tolerance
  // as depth
  EXPECT_TRUE(images_close("distortion", out.distortion.data, ri.distortion, 1e-4 * 4, slack));
  double dmax = 0;
  for (double v : ri.distortion) dmax = std::max(dmax, v);
  EXPECT_GT(dmax, 0.05);  // the scene has pixels where splats at different depths overlap

  Upstream up = random_upstream(c.width, c.height, s, 77);
  ModelGrad g;
  be->backward(m, cam, s, out, up.in(), g);
  ref::GradD rg = ref::backward(md, cam, s, up.ref());
  const std::size_t gslack = P / 2000 + 1;
  // A pixel whose transmittance falls on different sides of 0.5 in float and in double
  // hands its median-depth gradient to a different splat: the means of two splats change.
  EXPECT_TRUE(grads_close("means", g.means, rg.means, 1e-3, 6 * gslack));
  EXPECT_TRUE(grads_close("log_scales", g.log_scales, rg.log_scales, 1e-3, 3 * gslack));
  EXPECT_TRUE(grads_close("quats", g.quats, rg.quats, 1e-3, 4 * gslack));
  EXPECT_TRUE(grads_close("opacity", g.opacity_logits, rg.opacity_logits, 1e-3, gslack));
  EXPECT_TRUE(grads_close("sh_dc", g.sh_dc, rg.sh_dc, 1e-3, 3 * gslack));
  EXPECT_TRUE(grads_close("sh_rest", g.sh_rest, rg.sh_rest, 1e-3, 45 * gslack));
  EXPECT_TRUE(grads_close("mean2d", g.mean2d, rg.mean2d, 1e-3, 2 * gslack));
  EXPECT_TRUE(grads_close("mean2d_abs", g.mean2d_abs, rg.mean2d_abs, 1e-3, gslack));
  set_cpu_simd(CpuSimd::kAuto);
}

}  // namespace

TEST(RasterReference, RandomSceneAllOutputs) { compare_case({"2000 splats 77x53", 2000, 77, 53, false, 3, CpuSimd::kAuto}); }
TEST(RasterReference, RandomSceneAntialiased) { compare_case({"1500 splats AA", 1500, 61, 45, true, 2, CpuSimd::kAuto}); }
// On a CPU with AVX-512 the default is that build; the AVX2 build is checked here too.
TEST(RasterReference, RandomSceneAvx2Path) {
  compare_case({"2000 splats 77x53 avx2", 2000, 77, 53, false, 3, CpuSimd::kAvx2});
}
TEST(RasterReference, RandomScenePortablePath) {
  compare_case({"1500 splats portable", 1500, 50, 37, false, 1, CpuSimd::kPortable});
}
TEST(RasterReference, DistortionWithoutDepth) {
  compare_case({"1500 splats distortion only", 1500, 61, 45, false, 3, CpuSimd::kAuto, true});
}
TEST(RasterReference, DistortionWithoutDepthPortable) {
  compare_case({"1500 splats distortion only portable", 1500, 50, 37, true, 3, CpuSimd::kPortable, true});
}
TEST(RasterReference, LargerImageSmallSh) { compare_case({"3000 splats 130x97", 3000, 130, 97, false, 0, CpuSimd::kAuto}); }
// 11x9 tiles: the scene's huge splats span more than 64 tiles, which projection counts and
// the tile lists list one tile at a time (for_each_tile) instead of through a bit mask.
TEST(RasterReference, SplatsOverMoreThan64Tiles) {
  compare_case({"1200 splats 170x130", 1200, 170, 130, false, 1, CpuSimd::kAuto, false, 65});
}
TEST(RasterReference, SplatsOverMoreThan64TilesPortable) {
  compare_case({"1200 splats 170x130 portable", 1200, 170, 130, false, 1, CpuSimd::kPortable, false, 65});
}

TEST(RasterReference, EmptyModel) {
  GaussianModel m;
  Camera cam = look_at(33, 17, 30, {0, -3, 0}, {0, 0, 0});
  RenderSettings s = all_outputs(false);
  auto be = make_cpu_backend(2);
  RenderOutput out = be->forward(m, cam, s);
  ASSERT_EQ(out.rgb.data.size(), 33u * 17u * 3u);
  for (int y = 0; y < 17; ++y)
    for (int x = 0; x < 33; ++x)
      for (int c = 0; c < 3; ++c) EXPECT_EQ(out.rgb.at(x, y, c), s.background[c]);
  for (float v : out.alpha.data) EXPECT_EQ(v, 0.f);
  for (float v : out.depth.data) EXPECT_EQ(v, 0.f);
  for (float v : out.distortion.data) EXPECT_EQ(v, 0.f);
  Upstream up = random_upstream(33, 17, s, 1);
  ModelGrad g;
  be->backward(m, cam, s, out, up.in(), g);
  EXPECT_TRUE(g.means.empty());
  EXPECT_EQ(out.num_visible, 0);
}

TEST(RasterReference, RejectsGradientForMissingOutput) {
  GaussianModel m = random_scene(10, 3);
  Camera cam = look_at(20, 20, 20, {0, -3, 0}, {0, 0, 0});
  RenderSettings s;
  auto be = make_cpu_backend(1);
  RenderOutput out = be->forward(m, cam, s);
  std::vector<float> d(400, 1.f);
  RenderGradIn gi;
  gi.d_depth = d.data();
  ModelGrad g;
  EXPECT_THROW(be->backward(m, cam, s, out, gi, g), Error);
  EXPECT_TRUE(out.depth.data.empty());
  EXPECT_TRUE(out.normal.data.empty());
  EXPECT_TRUE(out.distortion.data.empty());
  gi.d_depth = nullptr;
  gi.d_distortion = d.data();
  EXPECT_THROW(be->backward(m, cam, s, out, gi, g), Error);
}
