// The relighter renders a model as its file says it was trained: with the 2D filter for a
// model marked antialiased (GaussianModel::antialiased), in the view and in every map.
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

TEST(LightRelighter, AntialiasedModelIsRenderedWithTheFilter) {
  GaussianModel m = ground_and_box();
  auto backend = make_cpu_backend();
  const Camera cam = overhead();
  const ImageF plain = coverage(m, *backend, cam, false), filtered = coverage(m, *backend, cam, true);
  ASSERT_NE(plain.data, filtered.data);  // the splats are small enough on screen for it to matter
  RelightOptions opt;
  opt.ao.directions = 8;
  EXPECT_EQ(Relighter(m, *backend, opt).prepare(cam).alpha.data, plain.data);
  m.antialiased = true;
  Relighter marked(m, *backend, opt);
  EXPECT_EQ(marked.prepare(cam).alpha.data, filtered.data);
  // the maps too: a sun straight above sees the box as the filtered overhead view does
  LightSetup noon;
  noon.name = "noon";
  noon.lights.push_back(Light::sun({0, 0, 1}, 3));
  marked.set_setup(noon);
  GaussianModel unmarked = m;
  unmarked.antialiased = false;
  RelightOptions forced = opt;
  forced.antialiased = true;
  Relighter by_flag(unmarked, *backend, forced);
  by_flag.set_setup(noon);
  const ViewGeometry g = marked.prepare(cam), h = by_flag.prepare(cam);
  EXPECT_EQ(g.ao.data, h.ao.data);
  EXPECT_EQ(marked.relight(g).data, by_flag.relight(h).data);
  Relighter off(unmarked, *backend, opt);
  off.set_setup(noon);
  EXPECT_NE(off.relight(off.prepare(cam)).data, marked.relight(g).data);
}
