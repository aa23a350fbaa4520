// Backend::forward_views: many views in one call (the light maps' renders). The CPU
// backend gives whole views to its threads; each view must be the same bits as a forward
// of it alone, and the outputs keep no state for a backward.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "glint/backend/backend.h"
#include "glint/core/error.h"
#include "glint/light/light_views.h"
#include "support/light_scene.h"

using namespace glint;
using namespace glint::test;

namespace {

bool same_bits(const ImageF& a, const ImageF& b) {
  return a.width == b.width && a.height == b.height && a.channels == b.channels &&
         std::memcmp(a.data.data(), b.data.data(), a.data.size() * sizeof(float)) == 0;
}

std::vector<Camera> ring_of_cameras(int count) {
  std::vector<Camera> cams;
  for (int k = 0; k < count; ++k) {
    const double a = 0.7 * k;
    const Vec3d eye{2.5 * std::cos(a), 2.5 * std::sin(a), 1.2 + 0.1 * k};
    cams.push_back(look_camera(eye, Vec3d{0, 0, 0.3} - eye, 48 + 8 * k, 60));
  }
  return cams;
}

}  // namespace

TEST(BackendForwardViews, EachViewIsTheBitsOfItsOwnForward) {
  const GaussianModel m = ground_and_box();
  const std::vector<Camera> cams = ring_of_cameras(5);  // sizes differ: threads finish out of order
  RenderSettings s;
  s.for_backward = false;
  s.want_median_depth = s.want_depth = true;
  for (int threads : {1, 2, 3}) {
    SCOPED_TRACE(threads);
    auto be = make_cpu_backend(threads);
    std::vector<RenderOutput> outs(1);  // a stale entry is replaced
    be->forward_views(m, cams, s, outs);
    ASSERT_EQ(outs.size(), cams.size());
    for (std::size_t i = 0; i < cams.size(); ++i) {
      const RenderOutput one = be->forward(m, cams[i], s);
      EXPECT_TRUE(same_bits(outs[i].rgb, one.rgb));
      EXPECT_TRUE(same_bits(outs[i].alpha, one.alpha));
      EXPECT_TRUE(same_bits(outs[i].median_depth, one.median_depth));
      EXPECT_TRUE(same_bits(outs[i].depth, one.depth));
      EXPECT_EQ(outs[i].radii, one.radii);
      EXPECT_EQ(outs[i].num_instances, one.num_instances);
      EXPECT_FALSE(outs[i].saved) << "a batch render keeps no forward state";
    }
    double covered = 0;
    for (float a : outs.back().alpha.data) covered += a;
    EXPECT_GT(covered, 10.0) << "the views see the scene";
  }
}

TEST(BackendForwardViews, ABadCameraIsAnErrorNamingIt) {
  const GaussianModel m = ground_and_box();
  std::vector<Camera> cams = ring_of_cameras(3);
  cams[1].name = "broken";
  cams[1].fx = 0;
  auto be = make_cpu_backend(2);
  std::vector<RenderOutput> outs;
  try {
    be->forward_views(m, cams, RenderSettings{}, outs);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("broken"), std::string::npos) << e.what();
  }
}
