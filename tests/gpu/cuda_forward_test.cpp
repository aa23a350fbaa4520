// The CUDA forward's and backward's stages on a real GPU against the CPU backend, with the tolerance the
// emulated run is held to. Built with GLINT_CUDA; skips (visibly) where no device is found,
// and fails in scripts/gpu-check.sh, which sets GLINT_REQUIRE_GPU.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "glint/backend/backend.h"
#include "glint/backend/cuda/forward_stages.h"
#include "device_tolerances.h"
#include "raster_test_util.h"
#include "reference/reference_renderer.h"
#include "reference/scenes.h"

using namespace glint;
using namespace glint::cuda;

namespace {

bool have_gpu() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

template <class T>
DeviceBuffer<T> upload(const std::vector<T>& v) {
  DeviceBuffer<T> b(v.size());
  b.resize(v.size());
  check(cudaMemcpy(b.data(), v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice), "upload");
  return b;
}

template <class T>
std::vector<T> download(const DeviceBuffer<T>& b) {
  std::vector<T> v(b.size());
  check(cudaMemcpy(v.data(), b.data(), v.size() * sizeof(T), cudaMemcpyDeviceToHost), "download");
  return v;
}

}  // namespace

TEST(CudaDevice, ForwardMatchesTheCpuBackend) {
  if (!have_gpu()) {
    if (std::getenv("GLINT_REQUIRE_GPU")) FAIL() << "no CUDA device, and GLINT_REQUIRE_GPU is set";
    GTEST_SKIP() << "no CUDA device on this machine";
  }
  GaussianModel m = test::random_scene(20000, 77);
  m.sh_degree = 3;
  const Camera cam = test::look_at(320, 240, 300, {0, -3, 0.5}, {0, 0, 0});
  RenderSettings rs;
  rs.for_backward = false;
  rs.background[1] = 1.f;
  const auto means = upload(m.means), scales = upload(m.log_scales), quats = upload(m.quats),
             opac = upload(m.opacity_logits), dc = upload(m.sh_dc), rest = upload(m.sh_rest);
  const SplatGeometry g{means.cspan(), scales.cspan(), quats.cspan(), opac.cspan(), dc.cspan(), rest.cspan()};
  DeviceFrame frame;
  forward_frame(render::make_view<float>(cam, rs.near_plane), g, m.sh_degree, false, rs.background, frame);
  check(cudaDeviceSynchronize(), "forward");
  const RenderOutput cpu = make_cpu_backend()->forward(m, cam, rs);
  EXPECT_LE(test::count_gap(static_cast<std::int64_t>(frame.instances), cpu.num_instances),
            test::instance_margin(cpu.num_instances));
  EXPECT_EQ(key_mismatches(frame), 0u);  // the two walks over each splat's tiles agree on the device
  const std::size_t slack = static_cast<std::size_t>(cam.width * cam.height) / 2000 + 1;
  EXPECT_TRUE(test::images_close("rgb", download(frame.rgb), cpu.rgb.data, 1e-4, 3 * slack));
  EXPECT_TRUE(test::images_close("alpha", download(frame.alpha), cpu.alpha.data, 1e-4, slack));
  // the same inputs, the same bits
  const std::vector<float> first = download(frame.rgb);
  forward_frame(render::make_view<float>(cam, rs.near_plane), g, m.sh_degree, false, rs.background, frame);
  check(cudaDeviceSynchronize(), "forward again");
  EXPECT_EQ(download(frame.rgb), first);

  // the backward against the CPU backend's, and the same bits twice
  rs.want_alpha = true;
  const RenderOutput cpu_out = make_cpu_backend()->forward(m, cam, rs);
  const test::Upstream up = test::random_upstream(cam.width, cam.height, rs, 5);
  ModelGrad cg;
  make_cpu_backend()->backward(m, cam, rs, cpu_out, up.in(), cg);
  const auto d_rgb = upload(up.rgb), d_alpha = upload(up.alpha);
  DeviceGrads dg;
  backward_frame(g, frame, BlendGradIn{d_rgb.cspan(), d_alpha.cspan()}, dg);
  check(cudaDeviceSynchronize(), "backward");
  const std::size_t gslack = static_cast<std::size_t>(cam.width * cam.height) / 2000 + 1;
  EXPECT_TRUE(test::grads_close("means", download(dg.means), cg.means, 1e-3, 6 * gslack));
  EXPECT_TRUE(test::grads_close("opacity", download(dg.opacity_logits), cg.opacity_logits, 1e-3, gslack));
  EXPECT_TRUE(test::grads_close("sh_rest", download(dg.sh_rest), cg.sh_rest, 1e-3, 45 * gslack));
  const std::vector<float> first_means = download(dg.means);
  backward_frame(g, frame, BlendGradIn{d_rgb.cspan(), d_alpha.cspan()}, dg);
  check(cudaDeviceSynchronize(), "backward again");
  EXPECT_EQ(download(dg.means), first_means);
}
