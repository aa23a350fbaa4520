#pragma once
// Shared helpers of the rasterizer tests: comparisons and upstream gradients.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "glint/backend/backend.h"
#include "reference/reference_renderer.h"

// A test file built with FMA contraction (tests/CMakeLists.txt, glint_contracted_tests)
// names these helpers helpers_contracted, so that the linker never hands its copies, whose
// arithmetic is fused, to the files built without (scripts/check-contracted-objects.sh).
#ifndef GLINT_TEST_HELPERS_NS
#define GLINT_TEST_HELPERS_NS helpers
#endif

namespace glint::test {
inline namespace GLINT_TEST_HELPERS_NS {

// Outputs: |a - b| <= tol everywhere, except at most `max_bad` values (boundary flips of
// the cut/skip/stop rules between float and double). Reports the worst.
template <class A, class B>
::testing::AssertionResult images_close(const std::string& what, const A& a, const B& b, double tol,
                                        std::size_t max_bad = 0) {
  if (a.size() != b.size())
    return ::testing::AssertionFailure() << what << ": size " << a.size() << " vs " << b.size();
  std::size_t bad = 0, worst = 0;
  double wd = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    double d = std::fabs(double(a[i]) - double(b[i]));
    if (!(d <= tol)) ++bad;
    if (!(d <= wd)) wd = d, worst = i;
  }
  if (bad > max_bad)
    return ::testing::AssertionFailure() << what << ": " << bad << " values off by more than " << tol
                                         << ", worst at " << worst << ": " << a[worst] << " vs " << b[worst];
  return ::testing::AssertionSuccess();
}

// Gradients: |a - b| <= tol * max(|b|, scale) with scale = max |b| over the array (the
// gradient's own scale), allowing `max_bad` outliers.
template <class A, class B>
::testing::AssertionResult grads_close(const std::string& what, const A& a, const B& b, double tol,
                                       std::size_t max_bad = 0) {
  if (a.size() != b.size())
    return ::testing::AssertionFailure() << what << ": size " << a.size() << " vs " << b.size();
  double scale = 0;
  for (auto v : b) scale = std::max(scale, std::fabs(double(v)));
  std::size_t bad = 0, worst = 0;
  double wr = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    double d = std::fabs(double(a[i]) - double(b[i]));
    double lim = tol * std::max(std::fabs(double(b[i])), scale) + 1e-30;
    if (!(d <= lim)) ++bad;
    if (!(d / lim <= wr)) wr = d / lim, worst = i;
  }
  if (bad > max_bad)
    return ::testing::AssertionFailure() << what << ": " << bad << " of " << a.size()
                                         << " entries off (scale " << scale << "), worst at " << worst << ": "
                                         << a[worst] << " vs " << b[worst] << " (" << wr << "x tolerance)";
  return ::testing::AssertionSuccess();
}

// Random upstream gradients for the outputs the settings ask for.
struct Upstream {
  std::vector<float> rgb, alpha, depth, median, normal, distortion;
  RenderGradIn in() const {
    RenderGradIn g;
    g.d_rgb = rgb.empty() ? nullptr : rgb.data();
    g.d_alpha = alpha.empty() ? nullptr : alpha.data();
    g.d_depth = depth.empty() ? nullptr : depth.data();
    g.d_median_depth = median.empty() ? nullptr : median.data();
    g.d_normal = normal.empty() ? nullptr : normal.data();
    g.d_distortion = distortion.empty() ? nullptr : distortion.data();
    return g;
  }
  ref::GradInD ref() const {
    auto cp = [](const std::vector<float>& v) { return std::vector<double>(v.begin(), v.end()); };
    return {cp(rgb), cp(alpha), cp(depth), cp(median), cp(normal), cp(distortion)};
  }
};

inline Upstream random_upstream(int W, int H, const RenderSettings& s, unsigned seed, bool rgb = true) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> U(-1, 1);
  auto fill = [&](std::vector<float>& v, std::size_t n) {
    v.resize(n);
    for (auto& x : v) x = U(rng);
  };
  const std::size_t P = std::size_t(W) * H;
  Upstream u;
  if (rgb) fill(u.rgb, 3 * P);
  if (s.want_alpha) fill(u.alpha, P);
  if (s.want_depth) fill(u.depth, P);
  if (s.want_median_depth) fill(u.median, P);
  if (s.want_normal) fill(u.normal, 3 * P);
  if (s.want_distortion) fill(u.distortion, P);
  return u;
}

}  // namespace GLINT_TEST_HELPERS_NS
}  // namespace glint::test
