// The CUDA backend's kernels run on the host against the emulator (backend/cuda/
// emulation.h): first the emulator itself (blocks, threads, __shared__, __syncthreads,
// threads that return early, atomics), then the project stage's kernel against the CPU
// backend, which runs the same render/ math: the radii and the tile counts must agree.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "glint/backend/backend.h"
#include "glint/backend/cuda/kernels/project_kernel.h"
#include "glint/backend/cuda/launch.h"
#include "reference/scenes.h"

using namespace glint;
using namespace glint::cuda;

namespace {

// Block sums by a shared-memory tree reduction: wrong without the barrier between levels.
GLINT_KERNEL void block_sum_kernel(DeviceSpan<const float> in, DeviceSpan<float> sums) {
  __shared__ float part[64];
  const std::uint32_t t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  part[t] = i < in.size ? in[i] : 0.f;
  __syncthreads();
  for (std::uint32_t stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (t < stride) part[t] += part[t + stride];
    __syncthreads();
  }
  if (t == 0) sums[blockIdx.x] = part[0];
}

// Threads past the end leave at once; the others still meet at a barrier.
GLINT_KERNEL void early_exit_kernel(std::uint32_t n, DeviceSpan<std::uint32_t> counter) {
  if (blockIdx.x * blockDim.x + threadIdx.x >= n) return;
  __syncthreads();
  atomicAdd(&counter.data[0], 1u);
}

}  // namespace

TEST(CudaEmulation, SharedMemoryAndBarriersPerBlock) {
  std::vector<float> in(200);
  std::iota(in.begin(), in.end(), 1.f);
  std::vector<float> sums(4, -1.f);
  launch(block_sum_kernel, LaunchShape{dim3(4), dim3(64)}, DeviceSpan<float>{in.data(), 200}.as_const(),
         DeviceSpan<float>{sums.data(), 4});
  for (int b = 0; b < 4; ++b) {
    double want = 0;
    for (int i = 64 * b; i < std::min(200, 64 * (b + 1)); ++i) want += in[static_cast<std::size_t>(i)];
    EXPECT_EQ(sums[static_cast<std::size_t>(b)], static_cast<float>(want)) << "block " << b;
  }
}

TEST(CudaEmulation, ThreadsThatReturnEarlyLeaveTheBarrier) {
  std::uint32_t counter = 0;
  launch(early_exit_kernel, shape_for(100, 64), std::uint32_t{100}, DeviceSpan<std::uint32_t>{&counter, 1});
  EXPECT_EQ(counter, 100u);
}

TEST(CudaProjectKernel, RadiiAndTileCountsMatchTheCpuBackend) {
  const GaussianModel m = test::random_scene(700, 5);  // with the hard cases: behind, huge, degenerate
  const Camera cam = test::look_at(181, 122, 160, {0, -3, 0.5}, {0, 0, 0});
  RenderSettings rs;
  rs.for_backward = false;
  const RenderOutput cpu = make_cpu_backend(1)->forward(m, cam, rs);

  const auto n = static_cast<std::uint32_t>(m.size());
  std::vector<ProjectedSplat> out(n);
  const SplatGeometry g{{m.means.data(), 3 * n}, {m.log_scales.data(), 3 * n}, {m.quats.data(), 4 * n},
                        {m.opacity_logits.data(), n}};
  launch(project_kernel, shape_for(n, 64), render::make_view<float>(cam, rs.near_plane), g, std::uint32_t{0},
         DeviceSpan<ProjectedSplat>{out.data(), n});
  std::size_t drawn = 0;
  std::int64_t instances = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    ASSERT_EQ(out[i].radius, cpu.radii[i]) << "splat " << i;
    drawn += out[i].radius > 0;
    instances += out[i].tiles;
  }
  EXPECT_EQ(static_cast<std::int64_t>(drawn), cpu.num_visible);
  EXPECT_EQ(instances, cpu.num_instances);  // every splat's tile count, summed
  EXPECT_GT(drawn, n / 4);
  EXPECT_LT(drawn, n);  // the hard cases are culled
}
