// Models larger than a device's storage-buffer binding range: per-splat arrays are bound a
// chunk of splats at a time (backend/vulkan/forward_stages.h). On both drivers with the range
// capped small, the split gives the unsplit bits; and on lavapipe, whose range is 128 MiB, a
// model whose SH buffer is larger than that renders and differentiates like the CPU backend.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "glint/backend/backend.h"
#include "glint/backend/vulkan/vulkan_backend.h"
#include "raster_test_util.h"
#include "reference/scenes.h"
#include "vulkan_test_support.h"

using namespace glint;

namespace {
class VulkanLargeModel : public test::VulkanTest {};
}  // namespace

TEST_P(VulkanLargeModel, SplitBindingsGiveTheUnsplitBits) {
  GaussianModel m = test::random_scene(3000, 77);
  m.sh_degree = 3;
  const Camera cam = test::look_at(32, 24, 30, {0, -3, 0.5}, {0, 0, 0});
  RenderSettings rs;
  rs.want_depth = true;
  const test::Upstream up = test::random_upstream(cam.width, cam.height, rs, 5);
  auto be = test::vulkan_backend_on(driver());
  const RenderOutput a = be->forward(m, cam, rs);
  ModelGrad ga, gb;
  be->backward(m, cam, rs, a, up.in(), ga);
  set_vulkan_binding_limit(*be, 256 << 10);  // 1408 splats a chunk: three chunks
  const RenderOutput b = be->forward(m, cam, rs);
  be->backward(m, cam, rs, b, up.in(), gb);
  set_vulkan_binding_limit(*be, ~0ull);  // the device is shared by later backends
  EXPECT_EQ(a.rgb.data, b.rgb.data);
  EXPECT_EQ(a.depth.data, b.depth.data);
  EXPECT_EQ(a.radii, b.radii);
  EXPECT_EQ(ga.means, gb.means);
  EXPECT_EQ(ga.sh_rest, gb.sh_rest);
  EXPECT_EQ(ga.quats, gb.quats);
}

TEST_P(VulkanLargeModel, AnShBufferPastLavapipesBindingRangeRendersAndDifferentiates) {
  if (driver() != "lavapipe") GTEST_SKIP() << "the 128 MiB binding range is lavapipe's";
  // 760k splats: 45 SH floats each are 137 MB, more than 128 MiB. Most sit behind the
  // camera (culled), so the frame stays cheap; every chunk still projects its splats.
  const int n = 760000;
  test::SceneOptions o;
  o.hard_cases = false;
  o.log_scale_min = -5.5;
  o.log_scale_max = -4;
  GaussianModel m = test::random_scene(n, 3, o);
  m.sh_degree = 3;
  std::mt19937 rng(1);
  for (int i = 0; i < n; ++i)
    if (rng() % 20 != 0) m.means[3 * i + 1] -= 6.f;  // behind the camera at y = -3
  ASSERT_GT(m.sh_rest.size() * sizeof(float), std::size_t(128) << 20);
  const Camera cam = test::look_at(48, 32, 45, {0, -3, 0.5}, {0, 0, 0});
  RenderSettings rs;
  auto be = test::vulkan_backend_on(driver());
  const RenderOutput o_vk = be->forward(m, cam, rs);
  auto cpu = make_cpu_backend();
  const RenderOutput o_cpu = cpu->forward(m, cam, rs);
  EXPECT_EQ(o_vk.radii, o_cpu.radii);
  EXPECT_GT(o_vk.num_visible, n / 40);
  EXPECT_TRUE(test::images_close("rgb", o_vk.rgb.data, o_cpu.rgb.data, 1e-4, 6));
  const test::Upstream up = test::random_upstream(cam.width, cam.height, rs, 8);
  ModelGrad g_vk, g_cpu;
  be->backward(m, cam, rs, o_vk, up.in(), g_vk);
  cpu->backward(m, cam, rs, o_cpu, up.in(), g_cpu);
  EXPECT_TRUE(test::grads_close("sh_rest", g_vk.sh_rest, g_cpu.sh_rest, 1e-3, 400));
  EXPECT_TRUE(test::grads_close("means", g_vk.means, g_cpu.means, 1e-3, 60));
  EXPECT_TRUE(test::grads_close("opacity", g_vk.opacity_logits, g_cpu.opacity_logits, 1e-3, 20));
  // the last splats' gradients come from the second chunk's bindings
  double tail = 0;
  for (std::size_t i = g_vk.sh_dc.size() - 3 * 1000; i < g_vk.sh_dc.size(); ++i) tail += std::fabs(g_vk.sh_dc[i]);
  EXPECT_GT(tail, 0.0);
}

GLINT_VULKAN_DRIVERS(VulkanLargeModel);
