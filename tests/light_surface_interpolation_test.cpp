// SurfaceInterpolationPlan (light/surface_interpolation.h): which pixels are evaluated and
// what the others get.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>

#include "glint/light/surface_interpolation.h"

using namespace glint;

namespace {

constexpr int kW = 64, kH = 48;

// A flat surface facing +z at depth z(x) with normal n(x), every pixel covered.
struct Surface {
  ImageF pos{kW, kH, 3, 0.f}, nrm{kW, kH, 3, 0.f}, depth{kW, kH, 1, 1.f};
  Surface() {
    for (int y = 0; y < kH; ++y)
      for (int x = 0; x < kW; ++x) {
        const long i = static_cast<long>(y) * kW + x;
        store3(pos.data.data(), i, Vec3f{static_cast<float>(x), static_cast<float>(y), 1.f});
        store3(nrm.data.data(), i, Vec3f{0.f, 0.f, 1.f});
      }
  }
};

// Runs f(x, y) through the plan; returns the image and counts the evaluations.
template <class F>
ImageF run(const SurfaceInterpolationPlan& plan, F f, long& evaluations) {
  ImageF out(kW, kH, 1, -1.f);
  std::atomic<long> n{0};
  plan.run({{&out, false}}, [&](long i, Vec3d p, Vec3d) {
    ++n;
    out.data[static_cast<std::size_t>(i)] = static_cast<float>(f(p.x, p.y));
  });
  evaluations = n;
  return out;
}

SurfaceInterpolation on() {
  SurfaceInterpolation p;
  p.enabled = true;
  return p;
}

}  // namespace

TEST(SurfaceInterpolation, SmoothValuesAreInterpolatedWithinTheSpread) {
  Surface s;
  const SurfaceInterpolationPlan plan(s.pos, s.nrm, s.depth, on(), "test");
  auto f = [](double x, double y) { return 0.5 + 0.2 * std::sin(x / 30) * std::cos(y / 25); };
  long n = 0;
  const ImageF got = run(plan, f, n);
  double worst = 0;
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) worst = std::max(worst, std::abs(got.data[y * kW + x] - f(x, y)));
  EXPECT_LT(worst, 0.02);
  EXPECT_GT(worst, 0.0) << "some pixels must be interpolated";
  // The even pixels plus the border ones without a neighbour on both sides.
  EXPECT_LT(n, kW * kH * 3 / 10) << n;
}

TEST(SurfaceInterpolation, StepsAndGeometryEdgesAreEvaluated) {
  Surface s;
  // A value step between x = 30 and 31, a depth step at x = 40, a normal turned by 30
  // degrees for y >= 20: every pixel must come out exact.
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) {
      const long i = static_cast<long>(y) * kW + x;
      if (x >= 40) s.depth.data[static_cast<std::size_t>(i)] = 1.5f;
      if (y >= 20) store3(s.nrm.data.data(), i, Vec3f{0.5f, 0.f, 0.8660254f});
    }
  const SurfaceInterpolationPlan plan(s.pos, s.nrm, s.depth, on(), "test");
  // Constant on either side of each edge but different across it, so only the geometry
  // tests can keep the edges from being averaged.
  auto f = [](double x, double y) { return (x <= 30 ? 0.1 : 0.6) + (x >= 40 ? 0.0 : 0.005) + (y >= 20 ? 0.01 : 0.0); };
  long n = 0;
  const ImageF got = run(plan, f, n);
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) ASSERT_NEAR(got.data[y * kW + x], f(x, y), 1e-6) << x << ", " << y;
}

TEST(SurfaceInterpolation, DisabledEvaluatesEverySurfacePixelOnce) {
  Surface s;
  store3(s.nrm.data.data(), 5, Vec3f{0.f, 0.f, 0.f});  // no surface: left alone
  const SurfaceInterpolationPlan plan(s.pos, s.nrm, s.depth, SurfaceInterpolation{}, "test");
  long n = 0;
  const ImageF got = run(plan, [](double x, double y) { return x + 100 * y; }, n);
  EXPECT_EQ(n, kW * kH - 1);
  EXPECT_EQ(got.data[5], -1.f);
  EXPECT_EQ(got.data[6], 6.f);
}

TEST(SurfaceInterpolation, ColourOutputsAgreeRelativeToTheirSize) {
  Surface s;
  const SurfaceInterpolationPlan plan(s.pos, s.nrm, s.depth, on(), "test");
  // Small values that grow by 6% from one evaluated pixel to the next: well within the
  // spread in absolute terms, beyond it relative to themselves, so every pixel is evaluated.
  ImageF E(kW, kH, 3, 0.f);
  std::atomic<long> n{0};
  plan.run({{&E, true}}, [&](long i, Vec3d p, Vec3d) {
    ++n;
    const float v = static_cast<float>(1e-3 * std::exp(0.03 * (p.x + p.y)));
    store3(E.data.data(), i, Vec3f{v, v, v});
  });
  EXPECT_EQ(n.load(), kW * kH);
}

TEST(SurfaceInterpolation, DepthOfAnotherSizeIsAnError) {
  Surface s;
  ImageF bad(kW, kH + 1, 1, 1.f);
  EXPECT_THROW(SurfaceInterpolationPlan(s.pos, s.nrm, bad, on(), "test"), Error);
}

// Skipped pixels are neither evaluated nor written, and their neighbours are evaluated
// rather than interpolated from them: every other pixel comes out exact or within the spread.
TEST(SurfaceInterpolation, SkippedPixelsAreLeftAloneAndNotInterpolatedFrom) {
  Surface s;
  for (bool interpolate : {true, false}) {
    SCOPED_TRACE(interpolate);
    const SurfaceInterpolationPlan plan(s.pos, s.nrm, s.depth, interpolate ? on() : SurfaceInterpolation{}, "test");
    auto skipped = [](long i) { return i % kW >= 20 && i % kW < 37; };  // a band of columns, odd edges
    auto f = [](double x, double y) { return 0.5 + 0.001 * x + 0.0005 * y; };  // smooth: interpolated
    ImageF out(kW, kH, 1, -1.f);
    std::atomic<long> n{0}, n_skipped{0};
    using Point = SurfaceInterpolationPlan::Point;
    plan.run_batched({{&out, false}}, [&](const Point* pts, int count) {
      for (int k = 0; k < count; ++k) {
        ++n;
        n_skipped += skipped(pts[k].i);
        out.data[static_cast<std::size_t>(pts[k].i)] = static_cast<float>(f(pts[k].x.x, pts[k].x.y));
      }
    }, skipped);
    EXPECT_EQ(n_skipped.load(), 0);
    for (int y = 0; y < kH; ++y)
      for (int x = 0; x < kW; ++x) {
        const float v = out.data[static_cast<std::size_t>(y) * kW + x];
        if (skipped(static_cast<long>(y) * kW + x)) {
          ASSERT_EQ(v, -1.f) << x << ", " << y;
          continue;
        }
        // Beside the band: evaluated, so exact (an interpolation from the band's -1 would not be).
        if (x == 19 || x == 37) {
          ASSERT_FLOAT_EQ(v, static_cast<float>(f(x, y))) << x << ", " << y;
        }
        ASSERT_NEAR(v, f(x, y), 1e-5) << x << ", " << y;
      }
    if (interpolate) EXPECT_LT(n.load(), (kW * kH - 17 * kH) / 2) << "most pixels must be interpolated";
    else EXPECT_EQ(n.load(), kW * kH - 17 * kH);
  }
}
