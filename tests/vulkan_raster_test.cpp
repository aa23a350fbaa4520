// The Vulkan backend's rasterizer on both CPU Vulkan drivers, under the validation layer:
// every output against the double-precision reference and the CPU backend (the tolerances
// the CPU backend and the CUDA stages are held to), the median_depth_only stop, every
// gradient against the reference, central differences of the reference and the CPU
// backend, and two runs giving the same bits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "glint/backend/backend.h"
#include "glint/core/error.h"
#include "raster_test_util.h"
#include "reference/reference_renderer.h"
#include "reference/scenes.h"
#include "vulkan_test_support.h"

using namespace glint;

namespace {

class VulkanRaster : public test::VulkanTest {};

RenderSettings geometry_outputs() {
  RenderSettings s;
  s.background[0] = 0.2f;
  s.background[1] = 0.5f;
  s.background[2] = 0.9f;
  s.want_alpha = s.want_depth = s.want_median_depth = s.want_normal = s.want_count = s.want_distortion = true;
  return s;
}

Camera off_centre_camera(int w, int h) { return test::look_at(w, h, 0.9 * w, {0, -3, 0.5}, {0, 0, 0}, w * 0.47, h * 0.55); }

GaussianModel degree3_scene(int n, std::uint64_t seed) {
  GaussianModel m = test::random_scene(n, seed);
  m.sh_degree = 3;
  return m;
}

GaussianModel few_splats(unsigned seed, int n = 6) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> U(0, 1);
  auto u = [&](double a, double b) { return static_cast<float>(a + (b - a) * U(rng)); };
  GaussianModel m;
  m.sh_degree = 1;
  m.resize(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < m.size(); ++i) {
    for (std::size_t k = 0; k < 3; ++k) {
      m.means[3 * i + k] = u(-0.5, 0.5);
      m.log_scales[3 * i + k] = u(-1.9, -1.0);
      m.sh_dc[3 * i + k] = u(-1, 1.5);
    }
    for (std::size_t k = 0; k < 4; ++k) m.quats[4 * i + k] = u(-1.5, 1.5);
    m.opacity_logits[i] = u(-1.5, 2.5);
    for (std::size_t k = 0; k < 9; ++k) m.sh_rest[45 * i + k] = u(-0.3, 0.3);
  }
  return m;
}

}  // namespace

TEST_P(VulkanRaster, OutputsMatchTheReferenceAndTheCpuBackend) {
  const int W = 61, H = 45;
  const GaussianModel m = degree3_scene(1500, 4321);
  const Camera cam = off_centre_camera(W, H);
  RenderSettings rs = geometry_outputs();
  rs.for_backward = false;
  auto be = test::vulkan_backend_on(driver());
  const RenderOutput o = be->forward(m, cam, rs);
  const ref::Images ri = ref::render(ref::ModelD::from(m), cam, rs);
  const RenderOutput cpu = make_cpu_backend(1)->forward(m, cam, rs);
  const std::size_t slack = static_cast<std::size_t>(W * H) / 2000 + 1;
  EXPECT_TRUE(test::images_close("rgb", o.rgb.data, ri.rgb, 1e-4, 3 * slack));
  EXPECT_TRUE(test::images_close("alpha", o.alpha.data, ri.alpha, 1e-4, slack));
  EXPECT_TRUE(test::images_close("depth", o.depth.data, ri.depth, 4e-4, slack));
  EXPECT_TRUE(test::images_close("median", o.median_depth.data, ri.median, 4e-4, slack));
  EXPECT_TRUE(test::images_close("normal", o.normal.data, ri.normal, 1e-4, 3 * slack));
  EXPECT_TRUE(test::images_close("count", o.count.data, ri.count, 0.5, slack));
  EXPECT_TRUE(test::images_close("distortion", o.distortion.data, ri.distortion, 4e-4, slack));
  EXPECT_TRUE(test::images_close("rgb vs cpu", o.rgb.data, cpu.rgb.data, 1e-4, 3 * slack));
  EXPECT_TRUE(test::images_close("depth vs cpu", o.depth.data, cpu.depth.data, 4e-4, slack));
  EXPECT_TRUE(test::images_close("distortion vs cpu", o.distortion.data, cpu.distortion.data, 4e-4, slack));
  EXPECT_EQ(o.radii, cpu.radii);
  EXPECT_EQ(o.num_visible, cpu.num_visible);
  double dmax = 0, zmax = 0;
  for (double v : ri.distortion) dmax = std::max(dmax, v);
  for (double v : ri.median) zmax = std::max(zmax, v);
  EXPECT_GT(dmax, 0.05);
  EXPECT_GT(zmax, 1.0);
  // colour and alpha do not depend on which other outputs are drawn
  RenderSettings plain = rs;
  plain.want_depth = plain.want_median_depth = plain.want_normal = plain.want_count = plain.want_distortion = false;
  const RenderOutput p = be->forward(m, cam, plain);
  EXPECT_EQ(p.rgb.data, o.rgb.data);
  EXPECT_EQ(p.alpha.data, o.alpha.data);
  EXPECT_TRUE(p.depth.data.empty());
}

TEST_P(VulkanRaster, MedianDepthOnlyStopsAsTheCpuBackendDoes) {
  const int W = 61, H = 45;
  const GaussianModel m = degree3_scene(1500, 99);
  const Camera cam = off_centre_camera(W, H);
  RenderSettings rs;
  rs.sh_degree = 0;
  rs.want_alpha = false;
  rs.want_median_depth = true;
  rs.median_depth_only = true;
  rs.for_backward = false;
  auto be = test::vulkan_backend_on(driver());
  const RenderOutput o = be->forward(m, cam, rs);
  const RenderOutput cpu = make_cpu_backend(1)->forward(m, cam, rs);
  const std::size_t slack = static_cast<std::size_t>(W * H) / 2000 + 1;
  EXPECT_TRUE(test::images_close("median vs cpu", o.median_depth.data, cpu.median_depth.data, 4e-4, slack));
  RenderSettings full = rs;
  full.median_depth_only = false;
  EXPECT_EQ(be->forward(m, cam, full).median_depth.data, o.median_depth.data);
  ModelGrad g;
  EXPECT_THROW(be->backward(m, cam, rs, o, RenderGradIn{}, g), Error);
}

TEST_P(VulkanRaster, GradientsMatchTheReferenceAndTheCpuBackendAndRepeat) {
  const int W = 45, H = 35;
  const GaussianModel m = degree3_scene(800, 2468);
  const Camera cam = off_centre_camera(W, H);
  RenderSettings rs = geometry_outputs();
  rs.want_count = false;
  const test::Upstream up = test::random_upstream(W, H, rs, 91);
  auto be = test::vulkan_backend_on(driver());
  const RenderOutput o = be->forward(m, cam, rs);
  ModelGrad g;
  be->backward(m, cam, rs, o, up.in(), g);
  const ref::GradD rg = ref::backward(ref::ModelD::from(m), cam, rs, up.ref());
  auto cpu_backend = make_cpu_backend(1);
  const RenderOutput cpu_out = cpu_backend->forward(m, cam, rs);
  ModelGrad cg;
  cpu_backend->backward(m, cam, rs, cpu_out, up.in(), cg);
  const std::size_t gslack = static_cast<std::size_t>(W * H) / 2000 + 1;
  EXPECT_TRUE(test::grads_close("means", g.means, rg.means, 1e-3, 6 * gslack));
  EXPECT_TRUE(test::grads_close("log_scales", g.log_scales, rg.log_scales, 1e-3, 3 * gslack));
  EXPECT_TRUE(test::grads_close("quats", g.quats, rg.quats, 1e-3, 4 * gslack));
  EXPECT_TRUE(test::grads_close("opacity", g.opacity_logits, rg.opacity_logits, 1e-3, gslack));
  EXPECT_TRUE(test::grads_close("sh_dc", g.sh_dc, rg.sh_dc, 1e-3, 3 * gslack));
  EXPECT_TRUE(test::grads_close("sh_rest", g.sh_rest, rg.sh_rest, 1e-3, 45 * gslack));
  EXPECT_TRUE(test::grads_close("mean2d", g.mean2d, rg.mean2d, 1e-3, 2 * gslack));
  EXPECT_TRUE(test::grads_close("means vs cpu", g.means, cg.means, 1e-3, 6 * gslack));
  EXPECT_TRUE(test::grads_close("log_scales vs cpu", g.log_scales, cg.log_scales, 1e-3, 3 * gslack));
  EXPECT_TRUE(test::grads_close("quats vs cpu", g.quats, cg.quats, 1e-3, 4 * gslack));
  EXPECT_TRUE(test::grads_close("opacity vs cpu", g.opacity_logits, cg.opacity_logits, 1e-3, gslack));
  // a second forward and backward on the device: the same bits
  const RenderOutput o2 = be->forward(m, cam, rs);
  ModelGrad g2;
  be->backward(m, cam, rs, o2, up.in(), g2);
  EXPECT_EQ(o.rgb.data, o2.rgb.data);
  EXPECT_EQ(o.distortion.data, o2.distortion.data);
  EXPECT_EQ(g.means, g2.means);
  EXPECT_EQ(g.log_scales, g2.log_scales);
  EXPECT_EQ(g.quats, g2.quats);
  EXPECT_EQ(g.opacity_logits, g2.opacity_logits);
  EXPECT_EQ(g.sh_rest, g2.sh_rest);
  EXPECT_EQ(g.mean2d, g2.mean2d);
}

namespace {
struct FdCase {
  const char* name;
  bool alpha, depth, median, normal, distortion;
};
}  // namespace

// Central differences of the double-precision reference forward (a linear loss on the
// outputs) against the device's backward, for each output and all at once.
TEST_P(VulkanRaster, GradientsMatchFiniteDifferences) {
  auto be = test::vulkan_backend_on(driver());
  const FdCase cases[] = {{"colour", false, false, false, false, false}, {"alpha", true, false, false, false, false},
                          {"depth", false, true, false, false, false},  {"median", false, false, true, false, false},
                          {"normal", false, false, false, true, false}, {"distortion", false, false, false, false, true},
                          {"all", true, true, true, true, true}};
  unsigned seed = 3;
  for (const FdCase& c : cases) {
    SCOPED_TRACE(c.name);
    const GaussianModel m = few_splats(seed);
    const Camera cam = test::look_at(26, 19, 28, {0.3, -3, 0.4}, {0, 0, 0});
    RenderSettings s;
    s.background[0] = 0.3f;
    s.want_alpha = c.alpha;
    s.want_depth = c.depth;
    s.want_median_depth = c.median;
    s.want_normal = c.normal;
    s.want_distortion = c.distortion;
    const test::Upstream up = test::random_upstream(cam.width, cam.height, s, seed + 11, true);
    ++seed;
    const ref::GradInD gi = up.ref();
    ref::ModelD pert = ref::ModelD::from(m);
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
    const RenderOutput o = be->forward(m, cam, s);
    ModelGrad g;
    be->backward(m, cam, s, o, up.in(), g);
    const std::size_t n = m.size();
    auto slice = [&](std::size_t off, std::size_t len) {
      return std::vector<double>(fd.begin() + static_cast<long>(off), fd.begin() + static_cast<long>(off + len));
    };
    EXPECT_TRUE(test::grads_close("means vs FD", g.means, slice(0, 3 * n), 1e-3));
    EXPECT_TRUE(test::grads_close("log_scales vs FD", g.log_scales, slice(3 * n, 3 * n), 1e-3));
    EXPECT_TRUE(test::grads_close("quats vs FD", g.quats, slice(6 * n, 4 * n), 1e-3));
    EXPECT_TRUE(test::grads_close("opacity vs FD", g.opacity_logits, slice(10 * n, n), 1e-3));
    double mag = 0;
    for (double v : fd) mag = std::max(mag, std::fabs(v));
    EXPECT_GT(mag, 1e-3);
  }
}

GLINT_VULKAN_DRIVERS(VulkanRaster);
