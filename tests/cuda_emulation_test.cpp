// The CUDA backend's kernels run on the host against the emulator (backend/cuda/
// emulation.h): first the emulator itself (blocks, threads, __shared__, __syncthreads,
// threads that return early, atomics) and the faults it must expose (a missing barrier, a
// read of shared memory before any write, an elementwise thread reading a neighbour's
// output: each planted in a kernel, caught in reverse and shuffled order, and missed by
// the forgiving index order without poison, which shows the test can tell), then the
// project stage's kernel against the CPU backend, which runs the same render/ math: the
// radii and the tile counts agree (exactly without contraction; in the build with it,
// tests/contracted, within tests/device_tolerances.h's margins).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

#include "glint/backend/backend.h"
#include "glint/backend/cuda/kernels/blend_backward_kernel.h"
#include "glint/backend/cuda/kernels/blend_kernel.h"
#include "glint/backend/cuda/kernels/project_kernel.h"
#include "glint/backend/cuda/kernels/tile_list_kernels.h"
#include "glint/backend/cuda/launch.h"
#include "device_tolerances.h"
#include "raster_test_util.h"
#include "reference/reference_renderer.h"
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

// Planted fault 1, a missing barrier: every thread reads the shared value its lower
// neighbour wrote. In index order the neighbour has always run first.
GLINT_KERNEL void neighbour_sum_kernel(DeviceSpan<const float> in, std::uint32_t with_barrier, DeviceSpan<float> out) {
  __shared__ float v[64];
  const std::uint32_t t = threadIdx.x;
  v[t] = in[t];
  if (with_barrier != 0) __syncthreads();  // block-uniform
  out[t] = v[t] + (t > 0 ? v[t - 1] : 0.f);
}

// Planted fault 2, shared memory read before it is written: threads past n write nothing,
// then thread 0 sums all 64 slots (write_all: they write zero, the correct kernel).
GLINT_KERNEL void partial_sum_kernel(DeviceSpan<const float> in, std::uint32_t write_all, DeviceSpan<float> out) {
  __shared__ float v[64];
  const std::uint32_t t = threadIdx.x;
  if (t < in.size) v[t] = in[t];
  else if (write_all != 0) v[t] = 0.f;
  __syncthreads();
  if (t == 0) {
    float s = 0.f;
    for (std::uint32_t k = 0; k < 64; ++k) s += v[k];
    out[0] = s;
  }
}

// Planted fault 3, an elementwise kernel that reads its neighbour's output (correct: it
// recomputes the neighbour's value from the input).
GLINT_KERNEL void running_pair_kernel(DeviceSpan<const float> in, std::uint32_t read_output, DeviceSpan<float> doubled,
                                      DeviceSpan<float> pair) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= in.size) return;
  doubled[i] = 2.f * in[i];
  const float before = i == 0 ? 0.f : (read_output != 0 ? doubled[i - 1] : 2.f * in[i - 1]);
  pair[i] = doubled[i] + before;
}

// The bits of a shared double that no thread wrote.
GLINT_KERNEL void unwritten_shared_kernel(DeviceSpan<std::uint64_t> out) {
  __shared__ double v[2];
  if (threadIdx.x == 0) std::memcpy(&out.data[0], &v[1], 8);
}

namespace emu = glint::cuda_emu;
emu::Options forgiving() { return {emu::ThreadOrder::kIndex, 0, false}; }
emu::Options hardened(emu::ThreadOrder order, std::uint64_t seed = 7) { return {order, seed, true}; }

// How many of the values differ from `want` (NaN counts as different).
std::size_t wrong(const std::vector<float>& got, const std::vector<float>& want) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < got.size(); ++i) n += !(got[i] == want[i]);
  return n;
}

std::vector<float> run_neighbour_sum(std::uint32_t with_barrier) {
  std::vector<float> in(64), out(64, -1.f);
  std::iota(in.begin(), in.end(), 1.f);
  launch(neighbour_sum_kernel, LaunchShape{dim3(1), dim3(64)}, DeviceSpan<const float>{in.data(), 64}, with_barrier,
         DeviceSpan<float>{out.data(), 64});
  return out;
}
std::vector<float> neighbour_sum_want() {
  std::vector<float> want(64);
  for (std::uint32_t t = 0; t < 64; ++t) want[t] = static_cast<float>(t + 1) + static_cast<float>(t);
  return want;
}

float run_partial_sum(std::uint32_t write_all) {
  std::vector<float> in(40, 1.5f);
  float out = -1.f;
  launch(partial_sum_kernel, LaunchShape{dim3(1), dim3(64)}, DeviceSpan<const float>{in.data(), 40}, write_all,
         DeviceSpan<float>{&out, 1});
  return out;
}

std::vector<float> run_running_pair(std::uint32_t read_output) {
  const std::uint32_t n = 1000;
  std::vector<float> in(n), doubled(n, -7.f), pair(n, -7.f);
  std::iota(in.begin(), in.end(), 0.f);
  launch(running_pair_kernel, shape_for(n, 64), DeviceSpan<const float>{in.data(), n}, read_output,
         DeviceSpan<float>{doubled.data(), n}, DeviceSpan<float>{pair.data(), n});
  return pair;
}
std::vector<float> running_pair_want() {
  std::vector<float> want(1000);
  for (std::uint32_t i = 0; i < 1000; ++i) want[i] = 2.f * static_cast<float>(i) + (i == 0 ? 0.f : 2.f * static_cast<float>(i - 1));
  return want;
}

SplatGeometry geometry_of(const GaussianModel& m) {
  const auto n = static_cast<std::uint32_t>(m.size());
  return {{m.means.data(), 3 * n},        {m.log_scales.data(), 3 * n}, {m.quats.data(), 4 * n},
          {m.opacity_logits.data(), n}, {m.sh_dc.data(), 3 * n},      {m.sh_rest.data(), 45 * n}};
}

struct EmulatedFrame {
  std::vector<float> rgb, alpha;
  std::size_t instances = 0;
  // what the backward reads
  std::vector<ProjectedSplat> splats;
  std::vector<std::uint64_t> offsets, written;
  std::vector<std::uint32_t> sorted_splat, sorted_slot, ranges, last;
  std::uint32_t key_mismatch = 0;
  std::vector<float> t_final;
  BlendImage img{};
  std::uint32_t tiles = 0;
};

// The forward's stages as the CUDA backend runs them, kernels emulated; the prefix sum and
// the stable sort of the keys (CUB's on the device) are the standard library's here.
EmulatedFrame emulated_forward(const GaussianModel& m, const Camera& cam, const RenderSettings& rs) {
  const auto n = static_cast<std::uint32_t>(m.size());
  std::vector<ProjectedSplat> splats(n);
  launch(project_kernel, shape_for(n, 64), render::make_view<float>(cam, rs.near_plane), geometry_of(m),
         std::int32_t{m.sh_degree}, std::uint32_t{rs.antialiased}, DeviceSpan<ProjectedSplat>{splats.data(), n});
  std::vector<std::uint64_t> counts(n + 1), offsets(n + 1, 0);
  launch(tile_counts_kernel, shape_for(n + 1, 64), DeviceSpan<const ProjectedSplat>{splats.data(), n},
         DeviceSpan<std::uint64_t>{counts.data(), n + 1});
  std::exclusive_scan(counts.begin(), counts.end(), offsets.begin(), std::uint64_t{0});
  const auto instances = static_cast<std::uint32_t>(offsets[n]);
  std::vector<std::uint64_t> keys(instances);
  std::vector<std::uint32_t> values(instances);
  EmulatedFrame f;
  const DeviceSpan<const ProjectedSplat> splat_span{splats.data(), n};  // stays valid: moved, not copied, below
  f.written.assign(n, 0);
  launch(tile_keys_kernel, shape_for(n, 64), splat_span, DeviceSpan<const std::uint64_t>{offsets.data(), n + 1},
         std::int32_t{cam.width}, std::int32_t{cam.height}, DeviceSpan<std::uint64_t>{keys.data(), instances},
         DeviceSpan<std::uint32_t>{values.data(), instances}, DeviceSpan<std::uint64_t>{f.written.data(), n},
         DeviceSpan<std::uint32_t>{&f.key_mismatch, 1});
  std::vector<std::uint32_t> order(instances);
  launch(iota_kernel, shape_for(instances, 64), DeviceSpan<std::uint32_t>{order.data(), instances});
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
  std::vector<std::uint64_t> sorted_keys(instances);
  for (std::uint32_t i = 0; i < instances; ++i) sorted_keys[i] = keys[order[i]];
  f.sorted_slot = order;  // each sorted instance's splat-major slot (its place before the sort)
  std::vector<std::uint32_t>& sorted_splat = f.sorted_splat;
  sorted_splat.resize(instances);
  launch(gather_splats_kernel, shape_for(instances, 64), DeviceSpan<const std::uint32_t>{values.data(), instances},
         DeviceSpan<const std::uint32_t>{order.data(), instances}, DeviceSpan<std::uint32_t>{sorted_splat.data(), instances});
  const int TS = render::kTileSize, tiles_x = (cam.width + TS - 1) / TS, tiles_y = (cam.height + TS - 1) / TS;
  const auto tiles = static_cast<std::uint32_t>(tiles_x * tiles_y);
  std::vector<std::uint32_t>& ranges = f.ranges;
  ranges.assign(2 * tiles, 0);
  launch(tile_ranges_kernel, shape_for(instances, 64), DeviceSpan<const std::uint64_t>{sorted_keys.data(), instances},
         DeviceSpan<std::uint32_t>{ranges.data(), 2 * tiles});
  f.instances = instances;
  const auto pixels = static_cast<std::uint32_t>(cam.width * cam.height);
  f.rgb.assign(3 * pixels, -1.f);
  f.alpha.assign(pixels, -1.f);
  f.t_final.assign(pixels, -1.f);
  f.last.assign(pixels, 0);
  BlendImage img{cam.width, cam.height, tiles_x, {rs.background[0], rs.background[1], rs.background[2]}};
  launch(blend_kernel, LaunchShape{dim3(tiles), dim3(kBlendThreads)}, splat_span,
         DeviceSpan<const std::uint32_t>{sorted_splat.data(), instances},
         DeviceSpan<const std::uint32_t>{ranges.data(), 2 * tiles}, img, DeviceSpan<float>{f.rgb.data(), 3 * pixels},
         DeviceSpan<float>{f.alpha.data(), pixels}, DeviceSpan<float>{f.t_final.data(), pixels},
         DeviceSpan<std::uint32_t>{f.last.data(), pixels}, BlendAovs{});
  f.splats = std::move(splats);
  f.offsets = std::move(offsets);
  f.img = img;
  f.tiles = tiles;
  return f;
}

// The backward's stages emulated: blend backward per tile into per-instance records, then
// the per-splat sums and VJPs.
ModelGrad emulated_backward(const GaussianModel& m, const Camera& cam, const RenderSettings& rs,
                            const EmulatedFrame& f, const std::vector<float>& d_rgb, const std::vector<float>& d_alpha) {
  const auto n = static_cast<std::uint32_t>(m.size());
  const auto inst = static_cast<std::uint32_t>(f.instances);
  const auto pixels = static_cast<std::uint32_t>(cam.width * cam.height);
  std::vector<float> records(kColourRecordFloats * inst, 0.f);
  launch(blend_backward_kernel, LaunchShape{dim3(f.tiles), dim3(kBlendThreads)},
         DeviceSpan<const ProjectedSplat>{f.splats.data(), n}, DeviceSpan<const std::uint32_t>{f.sorted_splat.data(), inst},
         DeviceSpan<const std::uint32_t>{f.sorted_slot.data(), inst},
         DeviceSpan<const std::uint32_t>{f.ranges.data(), 2 * f.tiles}, f.img,
         DeviceSpan<const float>{f.t_final.data(), pixels}, DeviceSpan<const std::uint32_t>{f.last.data(), pixels},
         BlendAovs{}, BlendGradIn{{d_rgb.data(), 3 * pixels}, {d_alpha.data(), static_cast<std::uint32_t>(d_alpha.size())}},
         DeviceSpan<float>{records.data(), kColourRecordFloats * inst});
  ModelGrad g;
  g.resize(n, false);
  const SplatGrads out{{g.means.data(), 3 * n},        {g.log_scales.data(), 3 * n}, {g.quats.data(), 4 * n},
                       {g.opacity_logits.data(), n}, {g.sh_dc.data(), 3 * n},      {g.sh_rest.data(), 45 * n},
                       {g.mean2d.data(), 2 * n}};
  launch(splat_backward_kernel, shape_for(n, 64), render::make_view<float>(cam, rs.near_plane), geometry_of(m),
         std::int32_t{m.sh_degree}, std::uint32_t{rs.antialiased}, DeviceSpan<const ProjectedSplat>{f.splats.data(), n},
         DeviceSpan<const std::uint64_t>{f.offsets.data(), n + 1}, DeviceSpan<const std::uint64_t>{f.written.data(), n},
         DeviceSpan<const float>{records.data(), kColourRecordFloats * inst},
         std::uint32_t{kColourRecordFloats}, out);
  return g;
}

// The reference tests' scene and camera (tests/raster_reference_test.cpp): SH degree 3,
// the hard cases included, the principal point off centre.
GaussianModel degree3_scene(int n, std::uint64_t seed) {
  GaussianModel m = test::random_scene(n, seed);
  m.sh_degree = 3;
  return m;
}
Camera off_centre_camera(int w, int h) {
  return test::look_at(w, h, 0.9 * w, {0, -3, 0.5}, {0, 0, 0}, w * 0.47, h * 0.55);
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
  launch(early_exit_kernel, LaunchShape{dim3(2), dim3(64)}, std::uint32_t{100}, DeviceSpan<std::uint32_t>{&counter, 1});
  EXPECT_EQ(counter, 100u);
}

TEST(CudaEmulation, PoisonIsANanAsFloatAndDouble) {
  std::uint64_t bits = 0;
  launch(unwritten_shared_kernel, LaunchShape{dim3(1), dim3(32)}, DeviceSpan<std::uint64_t>{&bits, 1});
  EXPECT_EQ(bits, emu::kSharedPoison);
  double d = 0;
  float f[2] = {0.f, 0.f};
  std::memcpy(&d, &bits, 8);
  std::memcpy(f, &bits, 8);
  EXPECT_TRUE(std::isnan(d) && std::isnan(f[0]) && std::isnan(f[1]));
  EXPECT_EQ(bits >> 51 & 1, 0u) << "a signalling NaN as double";
  EXPECT_EQ(bits >> 22 & 1, 0u) << "a signalling NaN as the float at the 8-byte boundary";
}

TEST(CudaEmulation, CatchesAMissingBarrier) {
  const std::vector<float> want = neighbour_sum_want();
  for (const auto order : {emu::ThreadOrder::kReverse, emu::ThreadOrder::kShuffled}) {
    const emu::ScopedOptions scope(hardened(order));
    EXPECT_GT(wrong(run_neighbour_sum(0), want), 10u) << "without the barrier";
    EXPECT_EQ(wrong(run_neighbour_sum(1), want), 0u) << "with it";
  }
  const emu::ScopedOptions scope(forgiving());
  EXPECT_EQ(wrong(run_neighbour_sum(0), want), 0u) << "index order hides the fault";
}

TEST(CudaEmulation, CatchesASharedReadBeforeAnyWrite) {
  for (const auto order : {emu::ThreadOrder::kIndex, emu::ThreadOrder::kReverse, emu::ThreadOrder::kShuffled}) {
    const emu::ScopedOptions scope(hardened(order));
    EXPECT_TRUE(std::isnan(run_partial_sum(0))) << "the unwritten slots read the poison";
    EXPECT_EQ(run_partial_sum(1), 60.f);
  }
  // Without the poison the slots keep what the last block left there (here the zeros the
  // correct kernel wrote), and the fault passes.
  const emu::ScopedOptions scope(forgiving());
  EXPECT_EQ(run_partial_sum(1), 60.f);
  EXPECT_EQ(run_partial_sum(0), 60.f);
}

TEST(CudaEmulation, CatchesAnElementwiseThreadReadingItsNeighbour) {
  const std::vector<float> want = running_pair_want();
  for (const auto order : {emu::ThreadOrder::kReverse, emu::ThreadOrder::kShuffled}) {
    const emu::ScopedOptions scope(hardened(order));
    EXPECT_GT(wrong(run_running_pair(1), want), 100u) << "reading the neighbour's output";
    EXPECT_EQ(wrong(run_running_pair(0), want), 0u) << "recomputing it";
  }
  const emu::ScopedOptions scope(forgiving());
  EXPECT_EQ(wrong(run_running_pair(1), want), 0u) << "index order hides the fault";
}

// Shuffled orders come from the seed: the same seed the same order (a failure reproduces),
// another seed another.
TEST(CudaEmulation, ShuffledOrderFollowsTheSeed) {
  const auto failures = [](std::uint64_t seed) {
    const emu::ScopedOptions scope(hardened(emu::ThreadOrder::kShuffled, seed));
    const std::vector<float> got = run_running_pair(1), want = running_pair_want();
    std::vector<std::uint8_t> bad(got.size());
    for (std::size_t i = 0; i < got.size(); ++i) bad[i] = !(got[i] == want[i]);
    return bad;
  };
  EXPECT_EQ(failures(1), failures(1));
  EXPECT_NE(failures(1), failures(2));
}

// The blend's exponential (render/blend.h), compiled here as the rasterizer is (with
// contraction in tests/contracted), over the range the blend uses: within its polynomial's
// 1e-7, its last roundings and the rounding of x log2(e) (6e-8 |x|, relative) of exp.
TEST(CudaProjectKernel, FastExpStaysAccurate) {
  double worst = 0;
  for (int k = 0; k <= 200000; ++k) {
    const float x = -30.f + 30.f * static_cast<float>(k) / 200000.f;
    const double want = std::exp(static_cast<double>(x));
    const double err = std::fabs(static_cast<double>(render::fast_exp(x)) - want) / want;
    worst = std::max(worst, err / (3e-7 + 8e-8 * std::fabs(static_cast<double>(x))));
  }
  EXPECT_LT(worst, 1.0);
}

TEST(CudaProjectKernel, RadiiAndTileCountsMatchTheCpuBackend) {
  const GaussianModel m = test::random_scene(700, 5);  // with the hard cases: behind, huge, degenerate
  const Camera cam = test::look_at(181, 122, 160, {0, -3, 0.5}, {0, 0, 0});
  RenderSettings rs;
  rs.for_backward = false;
  const RenderOutput cpu = make_cpu_backend(1)->forward(m, cam, rs);

  const auto n = static_cast<std::uint32_t>(m.size());
  std::vector<ProjectedSplat> out(n);
  launch(project_kernel, shape_for(n, 64), render::make_view<float>(cam, rs.near_plane), geometry_of(m),
         std::int32_t{m.sh_degree}, std::uint32_t{0}, DeviceSpan<ProjectedSplat>{out.data(), n});
  std::size_t drawn = 0, radii_off = 0;
  std::int64_t instances = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    radii_off += out[i].radius != cpu.radii[i];
    EXPECT_LE(std::abs(out[i].radius - cpu.radii[i]), 1) << "splat " << i;
    drawn += out[i].radius > 0;
    instances += out[i].tiles;
  }
  // the CPU's exactly without contraction (device_tolerances.h)
  EXPECT_LE(radii_off, test::count_margin(n));
  EXPECT_LE(test::count_gap(static_cast<std::int64_t>(drawn), cpu.num_visible), std::int64_t(test::count_margin(n)));
  EXPECT_LE(test::count_gap(instances, cpu.num_instances), test::instance_margin(cpu.num_instances));
  EXPECT_GT(drawn, n / 4);
  EXPECT_LT(drawn, n);  // the hard cases are culled
}

// The whole emulated forward against the double-precision reference, with the tolerances
// the CPU backend is held to (tests/raster_reference_test.cpp), and against the CPU backend.
TEST(CudaForward, EmulatedColourAndAlphaMatchTheReference) {
  const int W = 61, H = 45;
  const GaussianModel m = degree3_scene(1500, 4321);
  const Camera cam = off_centre_camera(W, H);
  RenderSettings rs;
  rs.background[0] = 0.2f;
  rs.background[2] = 1.f;
  rs.for_backward = false;
  const EmulatedFrame f = emulated_forward(m, cam, rs);
  const ref::Images ri = ref::render(ref::ModelD::from(m), cam, rs);
  const std::size_t slack = static_cast<std::size_t>(W * H) / 2000 + 1;
  EXPECT_TRUE(test::images_close("rgb", f.rgb, ri.rgb, 1e-4, 3 * slack));
  EXPECT_TRUE(test::images_close("alpha", f.alpha, ri.alpha, 1e-4, slack));
  const RenderOutput cpu = make_cpu_backend(1)->forward(m, cam, rs);
  EXPECT_TRUE(test::images_close("rgb vs cpu", f.rgb, cpu.rgb.data, 1e-4, 3 * slack));
  EXPECT_LE(test::count_gap(static_cast<std::int64_t>(f.instances), cpu.num_instances),
            test::instance_margin(cpu.num_instances));
  EXPECT_EQ(f.key_mismatch, 0u) << "the two walks over each splat's tiles agree";
  const float covered = *std::max_element(f.alpha.begin(), f.alpha.end());
  EXPECT_GT(covered, 0.5f);  // the scene is in view
}

// The emulated backward against the double-precision reference's gradients (with the
// tolerances the CPU backend's backward is held to), and deterministic: a second run gives
// the same bits.
TEST(CudaBackward, EmulatedGradientsMatchTheReference) {
  const int W = 45, H = 35;
  const GaussianModel m = degree3_scene(800, 2468);
  const Camera cam = off_centre_camera(W, H);
  RenderSettings rs;
  rs.background[0] = 0.3f;
  rs.want_alpha = true;
  const test::Upstream up = test::random_upstream(W, H, rs, 91);
  const EmulatedFrame f = emulated_forward(m, cam, rs);
  const ModelGrad g = emulated_backward(m, cam, rs, f, up.rgb, up.alpha);
  const ref::GradD rg = ref::backward(ref::ModelD::from(m), cam, rs, up.ref());
  const std::size_t gslack = static_cast<std::size_t>(W * H) / 2000 + 1;
  EXPECT_TRUE(test::grads_close("means", g.means, rg.means, 1e-3, 6 * gslack));
  EXPECT_TRUE(test::grads_close("log_scales", g.log_scales, rg.log_scales, 1e-3, 3 * gslack));
  EXPECT_TRUE(test::grads_close("quats", g.quats, rg.quats, 1e-3, 4 * gslack));
  EXPECT_TRUE(test::grads_close("opacity", g.opacity_logits, rg.opacity_logits, 1e-3, gslack));
  EXPECT_TRUE(test::grads_close("sh_dc", g.sh_dc, rg.sh_dc, 1e-3, 3 * gslack));
  EXPECT_TRUE(test::grads_close("sh_rest", g.sh_rest, rg.sh_rest, 1e-3, 45 * gslack));
  EXPECT_TRUE(test::grads_close("mean2d", g.mean2d, rg.mean2d, 1e-3, 2 * gslack));
  double gmax = 0;
  for (float v : g.opacity_logits) gmax = std::max(gmax, std::fabs(double(v)));
  EXPECT_GT(gmax, 1e-3);  // gradients reach the splats
  const ModelGrad again = emulated_backward(m, cam, rs, f, up.rgb, up.alpha);
  EXPECT_EQ(g.means, again.means);
  EXPECT_EQ(g.sh_rest, again.sh_rest);
}

// The key kernel writes each splat's keys inside its own slots whatever the count said:
// a splat given one slot too few drops its last hit, one given two too many fills them with
// kNoTileKey, which the ranges leave out; both are counted, and no other splat's keys move.
TEST(CudaTileKeys, WritesStayInsideEachSplatsSlots) {
  const GaussianModel m = test::random_scene(300, 17);
  const Camera cam = test::look_at(90, 70, 80, {0, -3, 0.5}, {0, 0, 0});
  const auto n = static_cast<std::uint32_t>(m.size());
  std::vector<ProjectedSplat> splats(n);
  launch(project_kernel, shape_for(n, 64), render::make_view<float>(cam, 0.01f), geometry_of(m), std::int32_t{0},
         std::uint32_t{0}, DeviceSpan<ProjectedSplat>{splats.data(), n});
  std::vector<std::uint64_t> counts(n + 1, 0);
  for (std::uint32_t i = 0; i < n; ++i) counts[i] = splats[i].tiles;
  // a: a splat of several tiles gets one slot less; b: another gets two more
  std::uint32_t a = n, b = n;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (a == n && counts[i] >= 2) a = i;
    else if (a != n && b == n && counts[i] >= 1) b = i;
  }
  ASSERT_LT(b, n);
  const auto keys_of = [&](const std::vector<std::uint64_t>& c, std::uint32_t& mismatch,
                           std::vector<std::uint64_t>& written, std::vector<std::uint64_t>& offsets) {
    offsets.assign(n + 1, 0);
    std::exclusive_scan(c.begin(), c.end(), offsets.begin(), std::uint64_t{0});
    const std::uint64_t total = offsets[n];
    std::vector<std::uint64_t> keys(total + 8, 0x1234);  // 8 canaries past the end
    std::vector<std::uint32_t> values(total + 8, 0xabcd);
    written.assign(n, 99);
    mismatch = 0;
    launch(tile_keys_kernel, shape_for(n, 64), DeviceSpan<const ProjectedSplat>{splats.data(), n},
           DeviceSpan<const std::uint64_t>{offsets.data(), n + 1}, std::int32_t{cam.width}, std::int32_t{cam.height},
           DeviceSpan<std::uint64_t>{keys.data(), total}, DeviceSpan<std::uint32_t>{values.data(), total},
           DeviceSpan<std::uint64_t>{written.data(), n}, DeviceSpan<std::uint32_t>{&mismatch, 1});
    for (int k = 0; k < 8; ++k) {
      EXPECT_EQ(keys[total + static_cast<std::size_t>(k)], 0x1234u);
      EXPECT_EQ(values[total + static_cast<std::size_t>(k)], 0xabcdu);
    }
    keys.resize(total);
    return keys;
  };
  std::uint32_t ok_mismatch = 0, bad_mismatch = 0;
  std::vector<std::uint64_t> ok_written, ok_offsets, bad_written, bad_offsets;
  const std::vector<std::uint64_t> ok = keys_of(counts, ok_mismatch, ok_written, ok_offsets);
  std::vector<std::uint64_t> wrong_counts = counts;
  wrong_counts[a] -= 1;
  wrong_counts[b] += 2;
  const std::vector<std::uint64_t> bad = keys_of(wrong_counts, bad_mismatch, bad_written, bad_offsets);
  EXPECT_EQ(ok_mismatch, 0u);
  EXPECT_EQ(bad_mismatch, 3u);
  for (std::uint32_t i = 0; i < n; ++i) {
    EXPECT_EQ(ok_written[i], counts[i]);
    const std::uint64_t want = i == a ? counts[i] - 1 : counts[i];
    ASSERT_EQ(bad_written[i], want) << "splat " << i;
    for (std::uint64_t k = 0; k < want; ++k) ASSERT_EQ(bad[bad_offsets[i] + k], ok[ok_offsets[i] + k]) << "splat " << i;
    for (std::uint64_t k = want; k < wrong_counts[i]; ++k) EXPECT_EQ(bad[bad_offsets[i] + k], kNoTileKey);
  }
  // the filled slots sort last and lie in no tile's range
  std::vector<std::uint64_t> sorted = bad;
  std::stable_sort(sorted.begin(), sorted.end());
  const int tiles_x = (cam.width + 15) / 16, tiles_y = (cam.height + 15) / 16;
  const auto tiles = static_cast<std::uint32_t>(tiles_x * tiles_y);
  std::vector<std::uint32_t> ranges(2 * tiles, 0);
  launch(tile_ranges_kernel, shape_for(sorted.size(), 64), DeviceSpan<const std::uint64_t>{sorted.data(), sorted.size()},
         DeviceSpan<std::uint32_t>{ranges.data(), 2 * tiles});
  std::uint64_t in_ranges = 0;
  for (std::uint32_t t = 0; t < tiles; ++t) in_ranges += ranges[2 * t + 1] - ranges[2 * t];
  EXPECT_EQ(in_ranges, sorted.size() - 2);
}
