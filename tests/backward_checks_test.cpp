// The refusals every backend's backward makes before any work (backend/backward_checks.h),
// through the CPU backend: each wrong call is one Error naming what is wrong, and the right
// call is accepted.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "glint/backend/backend.h"
#include "glint/core/error.h"
#include "reference/scenes.h"

using namespace glint;

namespace {

std::string backward_error(Backend& b, const GaussianModel& m, const Camera& cam, const RenderSettings& rs,
                           const RenderOutput& out, const RenderGradIn& gin) {
  ModelGrad g;
  try {
    b.backward(m, cam, rs, out, gin, g);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(BackwardChecks, WrongCallsAreRefusedAndTheRightOneIsNot) {
  auto backend = make_cpu_backend(1);
  const GaussianModel m = test::random_scene(200, 3);
  const Camera cam = test::look_at(32, 24, 30, {0, -3, 0.5}, {0, 0, 0});
  RenderSettings rs;
  const RenderOutput out = backend->forward(m, cam, rs);
  const std::vector<float> d_rgb(3 * 32 * 24, 1.f), d_depth(32 * 24, 1.f);
  RenderGradIn gin;
  gin.d_rgb = d_rgb.data();
  EXPECT_EQ(backward_error(*backend, m, cam, rs, out, gin), "");

  const Camera other = test::look_at(16, 24, 30, {0, -3, 0.5}, {0, 0, 0});
  EXPECT_NE(backward_error(*backend, m, other, rs, out, gin).find("model or camera differ"), std::string::npos);
  const GaussianModel copy = m;  // same values, another model
  EXPECT_NE(backward_error(*backend, copy, cam, rs, out, gin).find("model or camera differ"), std::string::npos);

  RenderGradIn with_depth = gin;
  with_depth.d_depth = d_depth.data();
  EXPECT_NE(backward_error(*backend, m, cam, rs, out, with_depth).find("a gradient for depth"), std::string::npos);

  RenderSettings median = rs;
  median.median_depth_only = true;
  median.want_median_depth = true;
  const RenderOutput median_out = backend->forward(m, cam, median);
  EXPECT_NE(backward_error(*backend, m, cam, median, median_out, gin).find("median depth"), std::string::npos);
}
