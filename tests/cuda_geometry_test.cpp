// The CUDA backend's geometry outputs run on the host against the emulator (backend/cuda/
// emulation.h), through the very stage code the device runs (forward_stages.h,
// geometry_loss_stages.h): expected and median depth, normals, distortion and count against
// the double-precision reference and the CPU backend (with the tolerances the CPU backend is
// held to, tests/raster_reference_test.cpp), the median_depth_only early stop, their
// gradients against the reference, finite differences and the CPU backend, run-to-run bit
// equality, the geometry regularisers' values and gradients against the CPU's, and the
// relighter's shadow maps rendered through the emulated stages against the CPU backend's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <span>
#include <vector>

#include "glint/backend/backend.h"
#include "glint/backend/cuda/device_outputs.h"
#include "glint/backend/cuda/device_training_session.h"
#include "glint/backend/cuda/forward_stages.h"
#include "glint/backend/cuda/frame_output.h"
#include "glint/backend/cuda/geometry_loss_stages.h"
#include "glint/core/error.h"
#include "glint/light/shadow_map.h"
#include "glint/train/geometry_loss.h"
#include "raster_test_util.h"
#include "reference/reference_renderer.h"
#include "reference/scenes.h"

using namespace glint;
using namespace glint::cuda;

namespace {

template <class T>
std::vector<T> fetch(const DeviceBuffer<T>& b) {
  std::vector<T> v;
  download(b, v);
  return v;
}

// The model in (emulated) device memory.
struct DeviceCopy {
  DeviceBuffer<float> means, log_scales, quats, opacity, sh_dc, sh_rest;
  explicit DeviceCopy(const GaussianModel& m) {
    upload(means, m.means);
    upload(log_scales, m.log_scales);
    upload(quats, m.quats);
    upload(opacity, m.opacity_logits);
    upload(sh_dc, m.sh_dc);
    upload(sh_rest, m.sh_rest);
  }
  SplatGeometry geometry() const {
    return {means.cspan(), log_scales.cspan(), quats.cspan(), opacity.cspan(), sh_dc.cspan(), sh_rest.cspan()};
  }
};

void emulated_forward(const GaussianModel& m, const DeviceCopy& d, const Camera& cam, const RenderSettings& rs,
                      DeviceFrame& f) {
  const int degree = rs.sh_degree >= 0 ? rs.sh_degree : m.sh_degree;
  forward_frame(render::make_view<float>(cam, rs.near_plane), d.geometry(), degree, rs.antialiased, rs.background, f,
                device_aov_flags(rs), rs.median_depth_only);
}

// The backward for the upstream gradients `up`, downloaded as a ModelGrad.
ModelGrad emulated_backward(const DeviceCopy& d, DeviceFrame& f, const test::Upstream& up) {
  DeviceBuffer<float> rgb, alpha, depth, median, normal, distortion;
  const auto span = [](DeviceBuffer<float>& b, const std::vector<float>& v) {
    if (v.empty()) return DeviceSpan<const float>{};
    upload(b, v);
    return b.cspan();
  };
  BlendGradIn in{span(rgb, up.rgb), span(alpha, up.alpha)};
  in.d_depth = span(depth, up.depth);
  in.d_median = span(median, up.median);
  in.d_normal = span(normal, up.normal);
  in.d_distortion = span(distortion, up.distortion);
  if (in.d_rgb.size == 0) {  // the backward takes d_rgb always; zero here
    rgb.resize(f.rgb.size());
    clear(rgb);
    in.d_rgb = rgb.cspan();
  }
  DeviceGrads g;
  backward_frame(d.geometry(), f, in, g);
  ModelGrad out;
  download_grads(g, d.opacity.size(), out);
  return out;
}

RenderSettings geometry_outputs() {
  RenderSettings s;
  s.background[0] = 0.2f;
  s.background[1] = 0.5f;
  s.background[2] = 0.9f;
  s.want_alpha = s.want_depth = s.want_median_depth = s.want_normal = s.want_count = s.want_distortion = true;
  return s;
}

Camera off_centre_camera(int w, int h) {
  return test::look_at(w, h, 0.9 * w, {0, -3, 0.5}, {0, 0, 0}, w * 0.47, h * 0.55);
}

GaussianModel degree3_scene(int n, std::uint64_t seed) {
  GaussianModel m = test::random_scene(n, seed);
  m.sh_degree = 3;
  return m;
}

// A few overlapping splats of a few pixels each, well inside a small image (the finite
// differences' scene).
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

TEST(CudaGeometryForward, EmulatedOutputsMatchTheReferenceAndTheCpuBackend) {
  const int W = 61, H = 45;
  const GaussianModel m = degree3_scene(1500, 4321);
  const Camera cam = off_centre_camera(W, H);
  RenderSettings rs = geometry_outputs();
  rs.for_backward = false;
  const DeviceCopy d(m);
  DeviceFrame f;
  emulated_forward(m, d, cam, rs, f);
  const ref::Images ri = ref::render(ref::ModelD::from(m), cam, rs);
  const RenderOutput cpu = make_cpu_backend(1)->forward(m, cam, rs);
  const std::size_t slack = static_cast<std::size_t>(W * H) / 2000 + 1;
  const std::vector<float> rgb = fetch(f.rgb), alpha = fetch(f.alpha), depth = fetch(f.depth),
                           median = fetch(f.median), normal = fetch(f.normal), count = fetch(f.count),
                           distortion = fetch(f.distortion);
  EXPECT_TRUE(test::images_close("rgb", rgb, ri.rgb, 1e-4, 3 * slack));
  EXPECT_TRUE(test::images_close("alpha", alpha, ri.alpha, 1e-4, slack));
  EXPECT_TRUE(test::images_close("depth", depth, ri.depth, 1e-4 * 4, slack));
  EXPECT_TRUE(test::images_close("median", median, ri.median, 1e-4 * 4, slack));
  EXPECT_TRUE(test::images_close("normal", normal, ri.normal, 1e-4, 3 * slack));
  EXPECT_TRUE(test::images_close("count", count, ri.count, 0.5, slack));
  EXPECT_TRUE(test::images_close("distortion", distortion, ri.distortion, 1e-4 * 4, slack));
  EXPECT_TRUE(test::images_close("depth vs cpu", depth, cpu.depth.data, 1e-4 * 4, slack));
  EXPECT_TRUE(test::images_close("median vs cpu", median, cpu.median_depth.data, 1e-4 * 4, slack));
  EXPECT_TRUE(test::images_close("normal vs cpu", normal, cpu.normal.data, 1e-4, 3 * slack));
  EXPECT_TRUE(test::images_close("count vs cpu", count, cpu.count.data, 0.5, slack));
  EXPECT_TRUE(test::images_close("distortion vs cpu", distortion, cpu.distortion.data, 1e-4 * 4, slack));
  double dmax = 0, zmax = 0;
  for (double v : ri.distortion) dmax = std::max(dmax, v);
  for (double v : ri.median) zmax = std::max(zmax, v);
  EXPECT_EQ(key_mismatches(f), 0u);  // the two walks over each splat's tiles agree
  EXPECT_GT(dmax, 0.05);  // splats at different depths overlap
  EXPECT_GT(zmax, 1.0);   // the median is found somewhere
  // colour and alpha do not depend on which other outputs are drawn
  RenderSettings plain = rs;
  plain.want_depth = plain.want_median_depth = plain.want_normal = plain.want_count = plain.want_distortion = false;
  DeviceFrame g;
  emulated_forward(m, d, cam, plain, g);
  EXPECT_EQ(fetch(g.rgb), rgb);
  EXPECT_EQ(fetch(g.alpha), alpha);
}

// Shadow and occlusion maps' renders: median depth only, SH degree 0, stopping at the median.
TEST(CudaGeometryForward, MedianDepthOnlyStopsAsTheCpuBackendDoes) {
  const int W = 61, H = 45;
  const GaussianModel m = degree3_scene(1500, 99);
  const Camera cam = off_centre_camera(W, H);
  RenderSettings rs;
  rs.sh_degree = 0;
  rs.want_alpha = false;
  rs.want_median_depth = true;
  rs.median_depth_only = true;
  rs.for_backward = false;
  const DeviceCopy d(m);
  DeviceFrame f;
  emulated_forward(m, d, cam, rs, f);
  const RenderOutput cpu = make_cpu_backend(1)->forward(m, cam, rs);
  const std::size_t slack = static_cast<std::size_t>(W * H) / 2000 + 1;
  const std::vector<float> median = fetch(f.median), alpha = fetch(f.alpha);
  EXPECT_TRUE(test::images_close("median vs cpu", median, cpu.median_depth.data, 1e-4 * 4, slack));
  // the full render's median is the same; its coverage is not (the stop leaves it partial)
  RenderSettings full = rs;
  full.median_depth_only = false;
  DeviceFrame g;
  emulated_forward(m, d, cam, full, g);
  EXPECT_EQ(fetch(g.median), median);
  const std::vector<float> full_alpha = fetch(g.alpha);
  std::size_t partial = 0;
  for (std::size_t i = 0; i < alpha.size(); ++i) partial += alpha[i] < full_alpha[i] - 1e-3f;
  EXPECT_GT(partial, 10u);
}

// Every output's gradient at once against the reference's and the CPU backend's (the CPU
// backend's tolerances), and the same bits on a second run.
TEST(CudaGeometryBackward, EmulatedGradientsMatchTheReferenceAndTheCpuBackend) {
  const int W = 45, H = 35;
  const GaussianModel m = degree3_scene(800, 2468);
  const Camera cam = off_centre_camera(W, H);
  RenderSettings rs = geometry_outputs();
  rs.want_count = false;
  const test::Upstream up = test::random_upstream(W, H, rs, 91);
  const DeviceCopy d(m);
  DeviceFrame f;
  emulated_forward(m, d, cam, rs, f);
  const ModelGrad g = emulated_backward(d, f, up);
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
  // a second forward and backward: the same bits
  DeviceFrame f2;
  emulated_forward(m, d, cam, rs, f2);
  const ModelGrad again = emulated_backward(d, f2, up);
  EXPECT_EQ(g.means, again.means);
  EXPECT_EQ(g.log_scales, again.log_scales);
  EXPECT_EQ(g.quats, again.quats);
  EXPECT_EQ(g.opacity_logits, again.opacity_logits);
  EXPECT_EQ(fetch(f.distortion), fetch(f2.distortion));
}

namespace {

struct FdCase {
  const char* name;
  bool depth, median, normal, distortion;
};

// Central differences of the double-precision reference forward (a linear loss on the
// outputs) against the emulated backward, and the CPU backend's backward against it too.
void check_fd(const FdCase& c, unsigned seed) {
  SCOPED_TRACE(c.name);
  const GaussianModel m = few_splats(seed);
  const Camera cam = test::look_at(26, 19, 28, {0.3, -3, 0.4}, {0, 0, 0});
  RenderSettings s;
  s.background[0] = 0.3f;
  s.want_alpha = false;
  s.want_depth = c.depth;
  s.want_median_depth = c.median;
  s.want_normal = c.normal;
  s.want_distortion = c.distortion;
  const test::Upstream up = test::random_upstream(cam.width, cam.height, s, seed + 11, false);
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
  const DeviceCopy d(m);
  DeviceFrame f;
  emulated_forward(m, d, cam, s, f);
  const ModelGrad g = emulated_backward(d, f, up);
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
  EXPECT_GT(mag, 1e-3);  // the loss depends on the parameters
  auto cpu_backend = make_cpu_backend(1);
  const RenderOutput out = cpu_backend->forward(m, cam, s);
  ModelGrad cg;
  cpu_backend->backward(m, cam, s, out, up.in(), cg);
  EXPECT_TRUE(test::grads_close("means vs cpu", g.means, cg.means, 1e-3));
  EXPECT_TRUE(test::grads_close("quats vs cpu", g.quats, cg.quats, 1e-3));
  EXPECT_TRUE(test::grads_close("opacity vs cpu", g.opacity_logits, cg.opacity_logits, 1e-3));
}

}  // namespace

TEST(CudaGeometryGradcheck, ExpectedDepth) { check_fd({"depth", true, false, false, false}, 3); }
TEST(CudaGeometryGradcheck, MedianDepth) { check_fd({"median", false, true, false, false}, 4); }
TEST(CudaGeometryGradcheck, Normal) { check_fd({"normal", false, false, true, false}, 5); }
TEST(CudaGeometryGradcheck, Distortion) { check_fd({"distortion", false, false, false, true}, 10); }
TEST(CudaGeometryGradcheck, AllGeometryOutputs) { check_fd({"all", true, true, true, true}, 6); }

// The regularisers on the device against train/geometry_loss.h on the same images: the
// same per-pixel math and the same order of each pixel's gradient sums give the same
// gradients' bits; the losses are sums in another order.
TEST(CudaGeometryLoss, RegularisersMatchTheCpuLosses) {
  const int W = 45, H = 35;
  const GaussianModel m = degree3_scene(1500, 777);
  const Camera cam = off_centre_camera(W, H);
  const RenderSettings rs = geometry_outputs();
  const DeviceCopy d(m);
  DeviceFrame f;
  emulated_forward(m, d, cam, rs, f);
  ImageF normal(W, H, 3), depth(W, H, 1), alpha(W, H, 1), distortion(W, H, 1);
  download(f.normal, normal.data);
  download(f.depth, depth.data);
  download(f.alpha, alpha.data);
  download(f.distortion, distortion.data);
  GeometryLossBuffers b;
  const NormalConsistency cpu_nc = normal_consistency(cam, normal, depth, alpha, 0.05f);
  const DeviceNormalConsistency nc = device_normal_consistency(cam, f, 0.05f, b);
  EXPECT_EQ(nc.pixels, cpu_nc.pixels);
  EXPECT_GT(nc.pixels, 20);
  EXPECT_NEAR(nc.loss, cpu_nc.loss, 1e-12 + 1e-9 * std::fabs(cpu_nc.loss));
  EXPECT_GT(nc.loss, 0.0);
  ASSERT_TRUE(nc.has_gradient);
  EXPECT_TRUE(std::ranges::equal(fetch(b.d_normal), cpu_nc.d_normal.data));
  EXPECT_TRUE(std::ranges::equal(fetch(b.d_depth), cpu_nc.d_depth.data));
  const DistortionLoss cpu_dl = distortion_loss(distortion, 0.5f);
  const double dl = device_distortion_loss(f, 0.5f, b);
  EXPECT_NEAR(dl, cpu_dl.loss, 1e-12 + 1e-9 * std::fabs(cpu_dl.loss));
  EXPECT_GT(dl, 0.0);
  EXPECT_TRUE(std::ranges::equal(fetch(b.d_distortion), cpu_dl.d_distortion.data));
  // nothing takes part: no gradient
  const DeviceNormalConsistency none = device_normal_consistency(cam, f, 0.05f, b, 2.f);
  EXPECT_EQ(none.pixels, 0);
  EXPECT_FALSE(none.has_gradient);
  EXPECT_EQ(none.loss, 0.0);
}

// --normal-edge on the device: the same skips (normal_consistency_edge on the same depths)
// and the same divisor as the CPU loss.
TEST(CudaGeometryLoss, NormalEdgeMatchesTheCpuLoss) {
  const int W = 45, H = 35;
  const GaussianModel m = degree3_scene(1500, 777);
  const Camera cam = off_centre_camera(W, H);
  const DeviceCopy d(m);
  DeviceFrame f;
  emulated_forward(m, d, cam, geometry_outputs(), f);
  ImageF normal(W, H, 3), depth(W, H, 1), alpha(W, H, 1);
  download(f.normal, normal.data);
  download(f.depth, depth.data);
  download(f.alpha, alpha.data);
  const float eps = 0.02f;
  const NormalConsistency cpu_off = normal_consistency(cam, normal, depth, alpha, 0.05f);
  const NormalConsistency cpu_nc = normal_consistency(cam, normal, depth, alpha, 0.05f, 0.5f, eps);
  // Some pixels of this render are skipped, not all.
  long skipped = 0, kept = 0;
  for (std::size_t p = 0; p < depth.data.size(); ++p) {
    const bool off_grad = cpu_off.d_normal.data[3 * p] != 0.f, on_grad = cpu_nc.d_normal.data[3 * p] != 0.f;
    skipped += off_grad && !on_grad;
    kept += on_grad;
  }
  EXPECT_GT(skipped, 0);
  EXPECT_GT(kept, 20);
  GeometryLossBuffers b;
  const DeviceNormalConsistency nc = device_normal_consistency(cam, f, 0.05f, b, 0.5f, eps);
  EXPECT_EQ(nc.pixels, cpu_nc.pixels);
  EXPECT_EQ(nc.pixels, cpu_off.pixels);
  EXPECT_NEAR(nc.loss, cpu_nc.loss, 1e-12 + 1e-9 * std::fabs(cpu_nc.loss));
  EXPECT_LT(nc.loss, cpu_off.loss);
  ASSERT_TRUE(nc.has_gradient);
  EXPECT_TRUE(std::ranges::equal(fetch(b.d_normal), cpu_nc.d_normal.data));
  EXPECT_TRUE(std::ranges::equal(fetch(b.d_depth), cpu_nc.d_depth.data));
}

namespace {

// Renders through the emulated device stages and hands out the frame as the CUDA backend
// does (frame_output.h): what relighting's maps see of the device renderer.
class EmulatedDeviceRenderer final : public Backend {
 public:
  const char* name() const override { return "cuda-emulated"; }
  void forward_into(const GaussianModel& m, const Camera& c, const RenderSettings& s, RenderOutput& out) override {
    const DeviceCopy d(m);
    emulated_forward(m, d, c, s, frame_);
    download_frame(frame_, s, out);
    out.saved.reset();
  }
  void backward(const GaussianModel&, const Camera&, const RenderSettings&, const RenderOutput&, const RenderGradIn&,
                ModelGrad&) override {
    throw Error("EmulatedDeviceRenderer: forward only");
  }
  std::unique_ptr<TrainingSession> start_training(const TrainingSetup& setup, SplatSet initial) override {
    return make_device_training_session(setup, std::move(initial));
  }

 private:
  DeviceFrame frame_;
};

}  // namespace

// Shadow maps are batches of SH degree 0 renders of the median depth that stop at the
// median (or of expected depth and alpha): a point light's cube and a sun's map, through
// the emulated device stages, against the CPU backend's maps.
TEST(CudaGeometryForward, ShadowMapsMatchTheCpuBackends) {
  const GaussianModel m = degree3_scene(1200, 55);
  const SceneBounds bounds = bounds_of_points(m.means);
  const std::vector<Light> lights = {Light::point({0.3, -2.5, 1.5}, 10), Light::sun({0.4, -0.3, 0.8}, 3)};
  EmulatedDeviceRenderer device;
  auto cpu = make_cpu_backend(1);
  for (const ShadowDepth kind : {ShadowDepth::Median, ShadowDepth::Expected}) {
    SCOPED_TRACE(kind == ShadowDepth::Median ? "median" : "expected");
    ShadowMapParams p;
    p.resolution = 40;
    p.depth = kind;
    const std::vector<ShadowMap> a = render_shadow_maps(device, m, lights, bounds, p);
    const std::vector<ShadowMap> b = render_shadow_maps(*cpu, m, lights, bounds, p);
    ASSERT_EQ(a.size(), b.size());
    std::size_t covered = 0;
    for (std::size_t l = 0; l < a.size(); ++l) {
      ASSERT_EQ(a[l].depth.size(), b[l].depth.size());
      for (std::size_t f = 0; f < a[l].depth.size(); ++f) {
        const auto& da = a[l].depth[f].data;
        const std::size_t slack = da.size() / 2000 + 1;
        // the sun's camera stands far away (sun_distance_factor): float depths there carry
        // rounding in proportion
        float zmax = 0.f;
        for (float v : b[l].depth[f].data) zmax = std::max(zmax, v);
        EXPECT_TRUE(test::images_close("light " + std::to_string(l) + " face " + std::to_string(f), da,
                                       b[l].depth[f].data, 4e-4 + 1e-5 * zmax, slack));
        for (float v : da) covered += v > 0.f;
      }
    }
    EXPECT_GT(covered, 100u);  // the maps see the splats
  }
}
