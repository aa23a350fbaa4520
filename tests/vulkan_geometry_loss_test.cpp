// The geometry regularisers on the Vulkan device (backend/vulkan/geometry_loss_stages.h:
// nc_pixel.comp, nc_gather.comp, a fixed-order sum and a fill), on both CPU drivers under the
// validation layer: normal consistency and the distortion loss against train/geometry_loss.h
// on the same images (pixels taking part exactly; loss and gradients within float rounding
// of the CPU's double), on images with depth steps, uncovered pixels, pixels behind the
// camera and the image border, with and without --normal-edge; the same bits on a second
// run; and through the device training session, a step whose gradient is mostly the
// regularisers' against the CPU session's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "glint/backend/cpu/cpu_training_session.h"
#include "glint/backend/vulkan/context.h"
#include "glint/backend/vulkan/device_training_session.h"
#include "glint/backend/vulkan/geometry_loss_stages.h"
#include "glint/train/geometry_loss.h"
#include "glint/train/normal_consistency_math.h"
#include "raster_test_util.h"
#include "reference/scenes.h"
#include "training_session_steps.h"
#include "vulkan_test_support.h"

using namespace glint;

namespace {

class VulkanGeometryLoss : public test::VulkanStreamTest {
 protected:
  template <class V>
  void up(vk::Array<float>& a, const V& v) {
    a.resize(*device, v.size());
    stream->upload(a.buffer(), 0, v.data(), v.size() * sizeof(float));
  }
  std::vector<float> down(const vk::Array<float>& a) {
    std::vector<float> v(a.size());
    stream->download(a.buffer(), 0, v.data(), v.size() * sizeof(float));
    stream->finish();
    return v;
  }
};

// A render's geometry images made up: two gently curved surfaces meeting at a depth step
// (x = width / 2), a disc of uncovered pixels (alpha 0.2), a few pixels behind the camera,
// and rendered normals near each surface's, a little off.
struct GeometryImages {
  Camera cam;
  ImageF normal, depth, alpha, distortion;
  GeometryImages(int w, int h, unsigned seed)
      : cam(test::look_at(w, h, 0.9 * w, {0.4, -3, 0.8}, {0, 0, 0}, w * 0.47, h * 0.55)),
        normal(w, h, 3),
        depth(w, h, 1),
        alpha(w, h, 1),
        distortion(w, h, 1) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> U(0, 1);
    const NcCamera nc{cam.R, cam.fx, cam.fy, cam.cx, cam.cy};
    const Vec3d planes[2] = {normalize(Vec3d{0.3, -0.2, -1}), normalize(Vec3d{-0.5, 0.1, -1})};
    const double dist[2] = {2.5, 4.0};
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const std::size_t i = static_cast<std::size_t>(y) * w + x;
        const int side = x < w / 2 ? 0 : 1;
        const Vec3d r = nc_pixel_ray(nc, x, y);
        const Vec3d n = planes[side];
        double z = -dist[side] / dot(n, r);
        z *= 1 + 0.01 * std::sin(0.3 * x + 0.2 * y);  // curved a little: the terms are not zero
        depth.data[i] = static_cast<float>(z);
        const Vec3d nw = transpose(cam.R) * n;  // the plane's normal, towards the camera, in the world
        const Vec3d jitter{U(rng) - 0.5, U(rng) - 0.5, U(rng) - 0.5};
        const Vec3d N = (0.5 + U(rng)) * (nw + 0.3 * jitter);
        normal.data[3 * i] = static_cast<float>(N.x);
        normal.data[3 * i + 1] = static_cast<float>(N.y);
        normal.data[3 * i + 2] = static_cast<float>(N.z);
        const double cx = x - 0.3 * w, cy = y - 0.6 * h;
        alpha.data[i] = cx * cx + cy * cy < 0.02 * w * h ? 0.2f : static_cast<float>(0.6 + 0.4 * U(rng));
        if ((x * 7 + y * 3) % 97 == 0) depth.data[i] = -depth.data[i];
        distortion.data[i] = static_cast<float>(0.1 * U(rng) * U(rng));
      }
  }
};

}  // namespace

TEST_P(VulkanGeometryLoss, RegularisersMatchTheCpuOnImagesWithEdgesAndHoles) {
  const int W = 53, H = 41;
  const GeometryImages im(W, H, 17);
  vk::Array<float> normal, depth, alpha, distortion, d_normal, d_depth, d_distortion;
  up(normal, im.normal.data);
  up(depth, im.depth.data);
  up(alpha, im.alpha.data);
  up(distortion, im.distortion.data);
  vk::GeometryLossBuffers b;
  const float weight = 0.5f;
  for (const float eps : {0.f, 0.02f}) {
    SCOPED_TRACE(eps);
    const NormalConsistency cpu = normal_consistency(im.cam, im.normal, im.depth, im.alpha, weight, 0.5f, eps);
    const vk::DeviceNormalConsistency nc =
        vk::device_normal_consistency(*stream, im.cam, normal, depth, alpha, weight, 0.5f, eps, b, d_normal, d_depth);
    ASSERT_TRUE(nc.has_gradient);
    const std::vector<float> dn = down(d_normal), dd = down(d_depth);
    // the pixels taking part: every interior pixel but the disc's, the ones behind the
    // camera and their neighbours
    EXPECT_EQ(nc.pixels, cpu.pixels);
    EXPECT_GT(cpu.pixels, (W - 2) * (H - 2) * 3 / 4);
    EXPECT_LT(cpu.pixels, (W - 2) * (H - 2) * 19 / 20);
    EXPECT_NEAR(nc.loss, cpu.loss, 1e-5 * cpu.loss);
    EXPECT_GT(cpu.loss, 1e-3);
    EXPECT_TRUE(test::grads_close("d_normal", dn, cpu.d_normal.data, 1e-5));
    EXPECT_TRUE(test::grads_close("d_depth", dd, cpu.d_depth.data, 1e-5));
    // the same pixels have gradients: none where the CPU has none (holes, edges, border)
    std::size_t zero_cpu = 0, zero_mismatch = 0;
    for (std::size_t p = 0; p < dd.size(); ++p) {
      const bool cz = cpu.d_normal.data[3 * p] == 0.f && cpu.d_depth.data[p] == 0.f;
      zero_cpu += cz;
      zero_mismatch += cz != (dn[3 * p] == 0.f && dd[p] == 0.f);
    }
    EXPECT_GT(zero_cpu, std::size_t(W + H));
    EXPECT_EQ(zero_mismatch, 0u);
    if (eps > 0) {  // the step's two columns are skipped, but still counted
      const NormalConsistency off = normal_consistency(im.cam, im.normal, im.depth, im.alpha, weight, 0.5f, 0.f);
      EXPECT_EQ(cpu.pixels, off.pixels);
      long skipped = 0;
      for (std::size_t p = 0; p < dd.size(); ++p)
        skipped += off.d_normal.data[3 * p] != 0.f && cpu.d_normal.data[3 * p] == 0.f;
      EXPECT_GE(skipped, 2 * (H - 2) / 2);
      EXPECT_LT(skipped, 4 * H);
    }
    // the same bits on a second run
    vk::GeometryLossBuffers b2;
    vk::Array<float> dn2, dd2;
    const vk::DeviceNormalConsistency again =
        vk::device_normal_consistency(*stream, im.cam, normal, depth, alpha, weight, 0.5f, eps, b2, dn2, dd2);
    EXPECT_EQ(again.loss, nc.loss);
    EXPECT_EQ(down(dn2), dn);
    EXPECT_EQ(down(dd2), dd);
  }
  // nothing takes part, or no weight: no gradient
  EXPECT_FALSE(
      vk::device_normal_consistency(*stream, im.cam, normal, depth, alpha, weight, 2.f, 0.f, b, d_normal, d_depth)
          .has_gradient);
  const vk::DeviceNormalConsistency none =
      vk::device_normal_consistency(*stream, im.cam, normal, depth, alpha, 0.f, 0.5f, 0.f, b, d_normal, d_depth);
  EXPECT_FALSE(none.has_gradient);
  EXPECT_EQ(none.loss, 0.0);

  // the distortion loss: the same gradient bits, the sum in another order
  const DistortionLoss cpu_dl = distortion_loss(im.distortion, 0.5f);
  const double dl = vk::device_distortion_loss(*stream, distortion, im.distortion.data.size(), 0.5f, b, d_distortion);
  EXPECT_NEAR(dl, cpu_dl.loss, 1e-6 * cpu_dl.loss);
  EXPECT_GT(dl, 0.0);
  EXPECT_TRUE(std::ranges::equal(down(d_distortion), cpu_dl.d_distortion.data));
  EXPECT_EQ(vk::device_distortion_loss(*stream, distortion, im.distortion.data.size(), 0.5f, b, d_distortion), dl);
}

// Through the device session: a step whose gradient is mostly the regularisers' (weights
// well above the lightable preset's, no flattening) against the CPU session's step, with and
// without --normal-edge, and the same bits from a second device session.
TEST_P(VulkanGeometryLoss, SessionStepMatchesTheCpuSession) {
  test::Scene sc(400);
  auto cpu_backend = make_cpu_backend(1);
  auto vk_backend = test::vulkan_backend_on(driver());
  test::GeometryWeights w;
  w.normal = 2.f;
  w.distortion = 20.f;
  w.flatten = 0.f;
  for (const float edge : {0.f, 0.05f}) {
    SCOPED_TRACE(edge);
    w.normal_edge = edge;
    auto ref = cpu::make_cpu_training_session(*cpu_backend, sc.setup(), sc.initial());
    auto dev = vk_backend->start_training(sc.setup(), sc.initial());
    auto dev2 = vk_backend->start_training(sc.setup(), sc.initial());
    const test::GeometryStepOut a = test::run_geometry_step(*ref, w, 1, 1);
    const test::GeometryStepOut b = test::run_geometry_step(*dev, w, 1, 1);
    const test::GeometryStepOut c = test::run_geometry_step(*dev2, w, 1, 1);
    EXPECT_TRUE(vk::is_device_training_session(*dev));
    EXPECT_NEAR(b.normal, a.normal, 1e-4 * a.normal);
    EXPECT_NEAR(b.distortion, a.distortion, 1e-4 * a.distortion);
    EXPECT_GT(a.normal + a.distortion, 2 * a.photometric);  // the regularisers lead the gradient
    EXPECT_EQ(b.adam, -1);
    const SplatSet& sa = ref->state();
    const SplatSet& sb = dev->state();
    const SplatSet& sc2 = dev2->state();
    const std::size_t slack = sa.size() / 100 + 1;
    for (int g = 0; g < kNumParamGroups; ++g) {
      const auto gi = static_cast<std::size_t>(g);
      EXPECT_TRUE(test::grads_close(kParamGroupNames[gi], sb.adam.groups()[gi].m, sa.adam.groups()[gi].m, 1e-3,
                                    slack * static_cast<std::size_t>(kParamGroupWidths[gi])));
      EXPECT_EQ(sc2.adam.groups()[gi].m, sb.adam.groups()[gi].m) << kParamGroupNames[gi];
    }
    EXPECT_EQ(c.normal, b.normal);
    EXPECT_EQ(c.distortion, b.distortion);
  }
}

GLINT_VULKAN_DRIVERS(VulkanGeometryLoss);
