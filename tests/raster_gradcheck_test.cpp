// Finite-difference checks of every gradient: central differences of the double-precision
// reference forward (a linear loss on each output) against the reference backward (which
// runs the render/ VJPs in double), and the optimised float backward against both.
#include <gtest/gtest.h>

#include <random>

#include "glint/backend/backend.h"
#include "raster_test_util.h"
#include "reference/reference_renderer.h"
#include "reference/scenes.h"

using namespace glint;
using namespace glint::test;

namespace {

// A few overlapping splats of a few pixels each, well inside a small image.
// With `edge`, two more large splats sit outside the 1.3x guard band (left and above), so
// their projection Jacobian is clamped, yet they reach into the image.
GaussianModel tiny_scene(unsigned seed, bool edge = false, int n = 6) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> U(0, 1);
  auto u = [&](double a, double b) { return a + (b - a) * U(rng); };
  GaussianModel m;
  m.sh_degree = 3;
  m.resize(std::size_t(n));
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < 3; ++k) {
      m.means[3 * i + k] = float(u(-0.5, 0.5));
      m.log_scales[3 * i + k] = float(u(-1.9, -1.0));
      m.sh_dc[3 * i + k] = float(u(-1, 1.5));
    }
    for (int k = 0; k < 4; ++k) m.quats[4 * i + k] = float(u(-1.5, 1.5));  // not normalised
    m.opacity_logits[i] = float(u(-1.5, 2.5));
    for (int k = 0; k < 45; ++k) m.sh_rest[45 * i + k] = float(u(-0.3, 0.3));
  }
  if (edge) {
    m.resize(std::size_t(n + 2));
    const float pos[2][3] = {{-2.6f, 0.2f, 0.3f}, {0.4f, 0.3f, 2.3f}};
    for (int j = 0; j < 2; ++j) {
      const std::size_t i = std::size_t(n + j);
      for (int k = 0; k < 3; ++k) {
        m.means[3 * i + std::size_t(k)] = pos[j][k];
        m.log_scales[3 * i + std::size_t(k)] = float(u(-0.4, 0.0));
        m.sh_dc[3 * i + std::size_t(k)] = float(u(-1, 1.5));
      }
      for (int k = 0; k < 4; ++k) m.quats[4 * i + std::size_t(k)] = float(u(-1.5, 1.5));
      m.opacity_logits[i] = float(u(0, 2));
      for (int k = 0; k < 45; ++k) m.sh_rest[45 * i + std::size_t(k)] = float(u(-0.3, 0.3));
    }
  }
  return m;
}

struct Loss {
  const char* name;
  bool rgb, alpha, depth, median, normal, aa;
  int sh_degree = 3;
  bool edge = false;
  bool distortion = false;
};

void check(const Loss& L, unsigned seed) {
  SCOPED_TRACE(L.name);
  GaussianModel m = tiny_scene(seed, L.edge);
  m.sh_degree = L.sh_degree;
  Camera cam = look_at(26, 19, 28, {0.3, -3, 0.4}, {0, 0, 0});
  RenderSettings s;
  s.background[0] = 0.3f, s.background[1] = 0.1f, s.background[2] = 0.7f;
  s.want_alpha = L.alpha;
  s.want_depth = L.depth;
  s.want_median_depth = L.median;
  s.want_normal = L.normal;
  s.want_distortion = L.distortion;
  s.want_mean2d_abs = true;
  s.antialiased = L.aa;
  Upstream up = random_upstream(cam.width, cam.height, s, seed + 11, L.rgb);
  ref::GradInD gi = up.ref();

  ref::ModelD md = ref::ModelD::from(m);
  ref::GradD rg = ref::backward(md, cam, s, gi);

  // finite differences, parameter by parameter
  ref::ModelD pert = md;
  std::vector<double*> ps = pert.params();
  std::vector<double> fd(ps.size());
  const double h = 1e-6;
  for (std::size_t k = 0; k < ps.size(); ++k) {
    const double x0 = *ps[k];
    *ps[k] = x0 + h;
    const double lp = ref::linear_loss(ref::render(pert, cam, s), gi);
    *ps[k] = x0 - h;
    const double lm = ref::linear_loss(ref::render(pert, cam, s), gi);
    *ps[k] = x0;
    fd[k] = (lp - lm) / (2 * h);
  }
  const std::size_t n = m.size();
  auto slice = [&](std::size_t off, std::size_t len) {
    return std::vector<double>(fd.begin() + long(off), fd.begin() + long(off + len));
  };
  std::size_t off = 0;
  const double tol = 1e-5;
  EXPECT_TRUE(grads_close("means vs FD", rg.means, slice(off, 3 * n), tol));
  off += 3 * n;
  EXPECT_TRUE(grads_close("log_scales vs FD", rg.log_scales, slice(off, 3 * n), tol));
  off += 3 * n;
  EXPECT_TRUE(grads_close("quats vs FD", rg.quats, slice(off, 4 * n), tol));
  off += 4 * n;
  EXPECT_TRUE(grads_close("opacity vs FD", rg.opacity_logits, slice(off, n), tol));
  off += n;
  EXPECT_TRUE(grads_close("sh_dc vs FD", rg.sh_dc, slice(off, 3 * n), tol));
  off += 3 * n;
  EXPECT_TRUE(grads_close("sh_rest vs FD", rg.sh_rest, slice(off, 45 * n), tol));

  // the loss must actually depend on the parameters
  double mag = 0;
  for (double v : fd) mag = std::max(mag, std::fabs(v));
  EXPECT_GT(mag, 1e-3);

  // optimised float backward vs reference
  auto be = make_cpu_backend(2);
  RenderOutput out = be->forward(m, cam, s);
  ModelGrad g;
  be->backward(m, cam, s, out, up.in(), g);
  EXPECT_TRUE(grads_close("cpu means", g.means, rg.means, 1e-3));
  EXPECT_TRUE(grads_close("cpu log_scales", g.log_scales, rg.log_scales, 1e-3));
  EXPECT_TRUE(grads_close("cpu quats", g.quats, rg.quats, 1e-3));
  EXPECT_TRUE(grads_close("cpu opacity", g.opacity_logits, rg.opacity_logits, 1e-3));
  EXPECT_TRUE(grads_close("cpu sh_dc", g.sh_dc, rg.sh_dc, 1e-3));
  EXPECT_TRUE(grads_close("cpu sh_rest", g.sh_rest, rg.sh_rest, 1e-3));
  EXPECT_TRUE(grads_close("cpu mean2d", g.mean2d, rg.mean2d, 1e-3));
  EXPECT_TRUE(grads_close("cpu mean2d_abs", g.mean2d_abs, rg.mean2d_abs, 1e-3));
  if (L.sh_degree < 3) {
    for (std::size_t i = 0; i < n; ++i)
      for (int k = (L.sh_degree + 1) * (L.sh_degree + 1) - 1; k < 15; ++k)
        for (int c = 0; c < 3; ++c) EXPECT_EQ(g.sh_rest[(i * 15 + std::size_t(k)) * 3 + std::size_t(c)], 0.f);
  }
  if (L.edge) {  // the guard-band splats must be seen
    EXPECT_GT(out.radii[n - 2], 0);
    EXPECT_GT(out.radii[n - 1], 0);
  }
}

}  // namespace

TEST(RasterGradcheck, Rgb) { check({"rgb", true, false, false, false, false, false}, 1); }
TEST(RasterGradcheck, Alpha) { check({"alpha", false, true, false, false, false, false}, 2); }
TEST(RasterGradcheck, ExpectedDepth) { check({"depth", false, false, true, false, false, false}, 3); }
TEST(RasterGradcheck, MedianDepth) { check({"median", false, false, false, true, false, false}, 4); }
TEST(RasterGradcheck, Normal) { check({"normal", false, false, false, false, true, false}, 5); }
TEST(RasterGradcheck, AllOutputsAntialiased) { check({"all+aa", true, true, true, true, true, true}, 6); }
TEST(RasterGradcheck, RgbShDegree1) { check({"rgb deg1", true, false, false, false, false, false, 1}, 7); }
TEST(RasterGradcheck, GuardBandClampedJacobian) {
  check({"guard band", true, true, true, false, true, false, 3, true}, 9);
}
// The distortion alone, with every other output (its kernel instance then also runs the
// expected depth's accumulators), and with splats in the guard band.
TEST(RasterGradcheck, Distortion) {
  check({"distortion", false, false, false, false, false, false, 3, false, true}, 10);
}
TEST(RasterGradcheck, DistortionWithAllOutputsAntialiased) {
  check({"distortion+all+aa", true, true, true, true, true, true, 3, false, true}, 11);
}
TEST(RasterGradcheck, DistortionGuardBand) {
  check({"distortion guard band", false, true, false, false, false, false, 3, true, true}, 12);
}
TEST(RasterGradcheck, RgbAntialiasedOtherSeed) { check({"rgb aa", true, true, false, false, false, true}, 8); }
