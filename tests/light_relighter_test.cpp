// The relighter renders a model as its file says it was trained: with the 2D filter for a
// model marked antialiased (GaussianModel::antialiased), in the view and in every map,
// through the backend, which applies the mark to every render.
#include <gtest/gtest.h>

#include "glint/backend/backend.h"
#include "glint/light/relighter.h"
#include "support/light_scene.h"

using namespace glint;
using namespace glint::test;

namespace {

Camera overhead() {
  Camera c;
  c.width = 48;
  c.height = 48;
  c.fx = c.fy = 30;
  c.cx = c.cy = 24;
  c.R = {{1, 0, 0, 0, -1, 0, 0, 0, -1}};  // looking down -z
  c.t = -(c.R * Vec3d{0, 0, 3});
  return c;
}

// The coverage of one render of `m`.
ImageF coverage(const GaussianModel& m, Backend& backend, const Camera& cam, bool antialiased) {
  RenderSettings rs;
  rs.for_backward = false;
  rs.want_alpha = true;
  rs.antialiased = antialiased;
  return backend.forward(m, cam, rs).alpha;
}

}  // namespace

// The mechanism is the backend's: a marked model renders as the filter asked for explicitly.
TEST(LightRelighter, MarkedModelRendersWithTheFilterOnEveryBackendCall) {
  GaussianModel m = ground_and_box();
  auto backend = make_cpu_backend();
  const Camera cam = overhead();
  const ImageF plain = coverage(m, *backend, cam, false), filtered = coverage(m, *backend, cam, true);
  ASSERT_NE(plain.data, filtered.data);  // the splats are small enough on screen for it to matter
  m.antialiased = true;
  EXPECT_EQ(coverage(m, *backend, cam, false).data, filtered.data);
  EXPECT_EQ(coverage(m, *backend, cam, true).data, filtered.data);
}

TEST(LightRelighter, AntialiasedModelIsRenderedWithTheFilter) {
  GaussianModel m = ground_and_box();
  auto backend = make_cpu_backend();
  const Camera cam = overhead();
  const ImageF plain = coverage(m, *backend, cam, false), filtered = coverage(m, *backend, cam, true);
  RelightOptions opt;
  opt.ao.directions = 8;
  EXPECT_EQ(Relighter(m, *backend, opt).prepare(cam).alpha.data, plain.data);
  GaussianModel marked = m;
  marked.antialiased = true;
  EXPECT_EQ(Relighter(marked, *backend, opt).prepare(cam).alpha.data, filtered.data);
  // the maps too: a sun's shadow map and the AO maps of the marked model are not the plain ones
  const Light sun = Light::sun({0.3, 0.2, 1}, 3);
  ShadowMapParams sp;
  sp.resolution = 192;
  const SceneBounds b = bounds_of_points(m.means);
  EXPECT_NE(render_shadow_maps(*backend, marked, {sun}, b, sp).front().depth.front().data,
            render_shadow_maps(*backend, m, {sun}, b, sp).front().depth.front().data);
  AoParams ap;
  ap.directions = 4;
  EXPECT_NE(render_ao_maps(*backend, marked, b, ap).maps.front().depth.front().data,
            render_ao_maps(*backend, m, b, ap).maps.front().depth.front().data);
}

// Seen from above, the box's silhouette pixels blend its top (z = 0.8) with the ground
// (z = 0): their expected depth lies between, in the air; the relighter puts them on the
// surface that covers them first, at the median depth.
TEST(LightRelighter, SilhouettePixelsAreShadedOnASurfaceNotBetweenTwo) {
  const GaussianModel m = ground_and_box();
  auto backend = make_cpu_backend();
  Camera cam = overhead();
  cam.cx = cam.cy = 24.5;  // the box's edges across the middle of pixels
  RelightOptions opt;
  opt.ao.directions = 4;
  const auto in_the_air = [&](const RelightOptions& o) {
    const ViewGeometry g = Relighter(m, *backend, o).prepare(cam);
    int n = 0, surface = 0;
    for (std::size_t p = 0; p < g.depth.data.size(); ++p) {
      if (!(g.depth.data[p] > 0)) continue;
      ++surface;
      const float z = g.position.data[3 * p + 2];
      n += z > 0.05f && z < kBoxHi - 0.05f;
    }
    EXPECT_GT(surface, 400);
    return n;
  };
  EXPECT_EQ(in_the_air(opt), 0);
  RelightOptions expected = opt;
  expected.mixed_depth = 0;
  EXPECT_GT(in_the_air(expected), 10);
}
