// The planar depth (light/plane_depth.h) of a surfel scene lies on its true planes, where
// the expected depth of the same splats, the blend of their centres' depths, does not.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "glint/backend/backend.h"
#include "glint/core/error.h"
#include "glint/light/plane_depth.h"
#include "glint/light/relighter.h"
#include "support/light_scene.h"

using namespace glint;
using namespace glint::test;

namespace {

Camera look_at(Vec3d eye, Vec3d target, int w, int h, double f) {
  const Vec3d fwd = normalize(target - eye);
  const Vec3d right = normalize(cross(fwd, Vec3d{0, 0, 1}));
  const Vec3d down = cross(fwd, right);
  Camera c;
  c.width = w;
  c.height = h;
  c.fx = c.fy = f;
  c.cx = w / 2.0;
  c.cy = h / 2.0;
  c.R = {{right.x, right.y, right.z, down.x, down.y, down.z, fwd.x, fwd.y, fwd.z}};
  c.t = -(c.R * eye);
  return c;
}

// First surface of the ground + box scene along eye + t r, each face a rectangle grown by
// `grow` within its plane: which one (0 ground, 1..6 the box's faces, -1 none), t, and how
// far the hit is inside that face's (ungrown) border.
struct Hit {
  int face = -1;
  double t = 0, margin = 0;
};
Hit first_hit(Vec3d eye, Vec3d r, double grow = 0) {
  Hit best;
  auto consider = [&](int face, double t, double margin) {
    if (t > 1e-9 && margin >= -grow && (best.face < 0 || t < best.t)) best = {face, t, margin};
  };
  if (std::abs(r.z) > 1e-12) {
    const double t = -eye.z / r.z;
    const Vec3d p = eye + t * r;
    consider(0, t, kGroundHalf - std::max(std::abs(p.x), std::abs(p.y)));
  }
  const double lo[3] = {-kBoxHalf, -kBoxHalf, kBoxLo}, hi[3] = {kBoxHalf, kBoxHalf, kBoxHi};
  const double o[3] = {eye.x, eye.y, eye.z}, d[3] = {r.x, r.y, r.z};
  for (int k = 0; k < 3; ++k) {
    if (std::abs(d[k]) < 1e-12) continue;
    for (int side = 0; side < 2; ++side) {
      const double t = ((side ? hi[k] : lo[k]) - o[k]) / d[k];
      double margin = 1e9;
      for (int j = 0; j < 3; ++j) {
        if (j == k) continue;
        const double q = o[j] + t * d[j];
        margin = std::min(margin, std::min(q - lo[j], hi[j] - q));
      }
      consider(1 + 2 * k + side, t, margin);
    }
  }
  return best;
}

Vec3d ray_of(const Camera& cam, double x, double y) {
  return transpose(cam.R) * Vec3d{(x - cam.cx) / cam.fx, (y - cam.cy) / cam.fy, 1.0};
}

// Pixels no splat of another face reaches, with their hit. The splats reach three sigma
// (3.6 cm) past their face's border, so the ray and those of the pixels two either way
// meet the faces grown by that much first on the same face, 4 cm or more inside it.
struct Interior {
  std::size_t pixel;
  int x, y;
  Hit hit;
};
std::vector<Interior> interior_pixels(const Camera& cam) {
  const Vec3d eye = cam.center();
  std::vector<Interior> out;
  for (int y = 0; y < cam.height; ++y)
    for (int x = 0; x < cam.width; ++x) {
      const Hit h = first_hit(eye, ray_of(cam, x + 0.5, y + 0.5));
      bool interior = h.face >= 0 && h.margin >= 0.04;
      for (int dy = -2; dy <= 2 && interior; ++dy)
        for (int dx = -2; dx <= 2 && interior; ++dx) {
          const Vec3d rr = ray_of(cam, x + 0.5 + dx, y + 0.5 + dy);
          interior = first_hit(eye, rr).face == h.face && first_hit(eye, rr, 0.036).face == h.face;
        }
      if (interior) out.push_back({static_cast<std::size_t>(y) * cam.width + x, x, y, h});
    }
  return out;
}

Camera oblique_camera() { return look_at({1.5, -1.1, 1.4}, {0, 0, 0.4}, 128, 96, 110); }

// The scene seen by oblique_camera: its planar depth, and coverage, expected depth and
// blended normals.
struct View {
  PlaneDepth planar;
  RenderOutput render;
};
View render_view() {
  const GaussianModel m = ground_and_box();
  auto backend = make_cpu_backend();
  const Camera cam = oblique_camera();
  RenderSettings rs;
  rs.for_backward = false;
  rs.want_alpha = true;
  rs.want_depth = true;
  rs.want_normal = true;
  return {render_plane_depth(m, *backend, cam, 0.5f), backend->forward(m, cam, rs)};
}

}  // namespace

TEST(LightPlaneDepth, SurfelSceneDepthLiesOnItsPlanes) {
  const Camera cam = oblique_camera();
  const View v = render_view();
  const PlaneDepth& pd = v.planar;
  const RenderOutput& out = v.render;
  const Vec3d eye = cam.center();
  long pixels = 0, faces_seen[7] = {};
  double planar_max = 0, planar_sum = 0, expected_sum = 0, position_max = 0;
  for (const Interior& in : interior_pixels(cam)) {
    const std::size_t p = in.pixel;
    const Hit& h = in.hit;
    ASSERT_GT(pd.depth.data[p], 0.f) << in.x << "," << in.y;
    const double planar = std::abs(pd.depth.data[p] - h.t) / h.t;
    const double expected = std::abs(out.depth.data[p] - h.t) / h.t;
    const Vec3d q = eye + h.t * ray_of(cam, in.x + 0.5, in.y + 0.5);
    const Vec3d got{pd.position.data[3 * p], pd.position.data[3 * p + 1], pd.position.data[3 * p + 2]};
    position_max = std::max(position_max, norm(got - q));
    planar_max = std::max(planar_max, planar);
    planar_sum += planar;
    expected_sum += expected;
    ++pixels;
    ++faces_seen[h.face];
  }
  std::printf("[ plane depth ] %ld interior pixels (ground %ld, box faces seen %ld %ld %ld): relative depth error "
              "planar mean %.2e max %.2e, expected depth mean %.2e; position max %.2e m\n",
              pixels, faces_seen[0], faces_seen[2], faces_seen[3], faces_seen[6], planar_sum / pixels, planar_max,
              expected_sum / pixels, position_max);
  ASSERT_GT(pixels, 1500);
  // the ground and three faces of the box are in view
  int seen = 0;
  for (long f : faces_seen) seen += f >= 30;
  EXPECT_EQ(seen, 4);
  // Exact to rounding wherever the first face hides everything behind it; a box wall is one
  // layer of splats, and through the little transmittance it leaves between them the walls
  // behind it blend in too (up to 1.2e-3 of the depth, on the wall seen at a slant).
  EXPECT_LT(planar_sum / pixels, 1e-4);
  EXPECT_LT(planar_max, 2e-3);
  EXPECT_LT(position_max, 4e-3);
  // the blended centre depths step across each tilted splat
  EXPECT_GT(expected_sum, 100 * planar_sum);
}

// A pixel that sees no splat has no plane depth, and neither has one below the coverage
// threshold.
TEST(LightPlaneDepth, UncoveredPixelsHaveNone) {
  const View v = render_view();
  const PlaneDepth& pd = v.planar;
  const RenderOutput& out = v.render;
  long empty = 0;
  for (std::size_t p = 0; p < out.alpha.data.size(); ++p)
    if (out.alpha.data[p] < 0.5f) {
      EXPECT_EQ(pd.depth.data[p], 0.f);
      EXPECT_EQ(pd.position.data[3 * p], 0.f);
      ++empty;
    }
  EXPECT_GT(empty, 100);  // the sky above the ground's far edge
}

// Given the view's own coverage and normals (as the relighter passes them), the planar
// depth renders colour only and is the same bits; half of them given is an error.
TEST(LightPlaneDepth, TheViewsCoverageAndNormalsGiveTheSameBits) {
  const View v = render_view();
  const PlaneDepth& alone = v.planar;
  const RenderOutput& view = v.render;
  const GaussianModel m = ground_and_box();
  auto backend = make_cpu_backend();
  const Camera cam = oblique_camera();
  const PlaneDepth given = render_plane_depth(m, *backend, cam, 0.5f, &view.alpha, &view.normal);
  EXPECT_TRUE(std::ranges::equal(alone.depth.data, given.depth.data));
  EXPECT_TRUE(std::ranges::equal(alone.position.data, given.position.data));
  long planar = 0;
  for (float z : given.depth.data) planar += z > 0;
  EXPECT_GT(planar, 1000);
  EXPECT_THROW(render_plane_depth(m, *backend, cam, 0.5f, &view.alpha, nullptr), Error);
  const ImageF small(4, 4, 3);
  EXPECT_THROW(render_plane_depth(m, *backend, cam, 0.5f, &view.alpha, &small), Error);
}

// The relighter's plane-fit normals (--normals fit) from the planar depth's positions
// (--fit-depth planar, the default) are the faces' normals; from the expected depth's they
// lean with its steps.
TEST(LightPlaneDepth, PlaneFitOnPlanarDepthGivesTheFacesNormals) {
  const GaussianModel m = ground_and_box();
  auto backend = make_cpu_backend();
  const Camera cam = oblique_camera();
  const Vec3d face_normal[7] = {{0, 0, 1}, {-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}};
  double mean_deg[2] = {0, 0};
  for (int planar = 0; planar < 2; ++planar) {
    RelightOptions opt;
    opt.delight = false;
    opt.fit_depth = planar == 1 ? FitDepth::kPlanar : FitDepth::kExpected;
    Relighter relighter(m, *backend, opt);
    const ViewGeometry g = relighter.prepare(cam);
    const std::vector<Interior> px = interior_pixels(cam);
    for (const Interior& in : px) {
      const Vec3d n{g.normal.data[3 * in.pixel], g.normal.data[3 * in.pixel + 1], g.normal.data[3 * in.pixel + 2]};
      const double c = std::clamp(dot(n, face_normal[in.hit.face]) / norm(n), -1.0, 1.0);
      mean_deg[planar] += std::acos(c) * 180 / 3.14159265358979 / static_cast<double>(px.size());
    }
  }
  std::printf("[ plane depth ] plane-fit normals on interior pixels: %.3f degrees mean from the planar depth, "
              "%.3f from the expected depth\n",
              mean_deg[1], mean_deg[0]);
  EXPECT_LT(mean_deg[1], 0.05);
  EXPECT_LT(mean_deg[1], mean_deg[0]);
}
