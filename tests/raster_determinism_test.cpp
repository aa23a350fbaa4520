// Bit-identical outputs and gradients for 1, 2 and 4 threads and across repeated runs, on
// both SIMD paths.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>

#include "glint/backend/backend.h"
#include "raster_test_util.h"
#include "reference/scenes.h"

using namespace glint;
using namespace glint::test;

namespace {

struct Result {
  RenderOutput out;
  ModelGrad grad;
};

Result run(const GaussianModel& m, const Camera& cam, const RenderSettings& s, const Upstream& up, int threads) {
  auto be = make_cpu_backend(threads);
  Result r;
  r.out = be->forward(m, cam, s);
  be->backward(m, cam, s, r.out, up.in(), r.grad);
  return r;
}

bool same_bits(std::span<const float> a, std::span<const float> b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

void expect_identical(const Result& a, const Result& b, const char* what) {
  SCOPED_TRACE(what);
  EXPECT_TRUE(same_bits(a.out.rgb.data, b.out.rgb.data));
  EXPECT_TRUE(same_bits(a.out.alpha.data, b.out.alpha.data));
  EXPECT_TRUE(same_bits(a.out.depth.data, b.out.depth.data));
  EXPECT_TRUE(same_bits(a.out.median_depth.data, b.out.median_depth.data));
  EXPECT_TRUE(same_bits(a.out.normal.data, b.out.normal.data));
  EXPECT_TRUE(same_bits(a.out.count.data, b.out.count.data));
  EXPECT_TRUE(same_bits(a.out.distortion.data, b.out.distortion.data));
  EXPECT_EQ(a.out.radii, b.out.radii);
  EXPECT_TRUE(same_bits(a.grad.means, b.grad.means));
  EXPECT_TRUE(same_bits(a.grad.log_scales, b.grad.log_scales));
  EXPECT_TRUE(same_bits(a.grad.quats, b.grad.quats));
  EXPECT_TRUE(same_bits(a.grad.opacity_logits, b.grad.opacity_logits));
  EXPECT_TRUE(same_bits(a.grad.sh_dc, b.grad.sh_dc));
  EXPECT_TRUE(same_bits(a.grad.sh_rest, b.grad.sh_rest));
  EXPECT_TRUE(same_bits(a.grad.mean2d, b.grad.mean2d));
  EXPECT_TRUE(same_bits(a.grad.mean2d_abs, b.grad.mean2d_abs));
}

// A scene with every output and its upstream gradient: what the bit-for-bit checks run.
struct AllOutputsCase {
  GaussianModel m = random_scene(6000, 99);
  Camera cam = look_at(181, 122, 160, {0, -3, 0.5}, {0, 0, 0});
  RenderSettings s = all_outputs();
  Upstream up = random_upstream(cam.width, cam.height, s, 5);
  Result run_with(int threads) const { return run(m, cam, s, up, threads); }
  static RenderSettings all_outputs() {
    RenderSettings s;
    s.background[1] = 1.f;
    s.want_depth = s.want_median_depth = s.want_normal = s.want_count = s.want_distortion = true;
    s.want_mean2d_abs = true;
    return s;
  }
};

void check_path(CpuSimd simd) {
  set_cpu_simd(simd);
  const AllOutputsCase c;
  Result r1 = c.run_with(1);
  Result r2 = c.run_with(2);
  Result r4 = c.run_with(4);
  Result r4b = c.run_with(4);
  EXPECT_GT(r1.out.num_instances, 1000);
  expect_identical(r1, r2, "1 vs 2 threads");
  expect_identical(r1, r4, "1 vs 4 threads");
  expect_identical(r4, r4b, "repeat with 4 threads");
  set_cpu_simd(CpuSimd::kAuto);
}

}  // namespace

TEST(RasterDeterminism, ThreadCountsDefaultPath) { check_path(CpuSimd::kAuto); }
TEST(RasterDeterminism, ThreadCountsAvx2Path) { check_path(CpuSimd::kAvx2); }
TEST(RasterDeterminism, ThreadCountsPortablePath) { check_path(CpuSimd::kPortable); }

// The AVX-512 build is the AVX2 source with more registers and instructions to choose
// from, and every rounding step is spelled out (no automatic contraction), so the two
// must agree bit for bit: outputs and every gradient.
TEST(RasterDeterminism, Avx2AndAvx512Identical) {
  set_cpu_simd(CpuSimd::kAvx512);
  if (active_cpu_simd() != CpuSimd::kAvx512) {
    set_cpu_simd(CpuSimd::kAuto);
    std::printf("[ NOTE     ] no AVX-512 on this CPU: nothing to compare\n");
    return;
  }
  const AllOutputsCase c;
  const Result a = c.run_with(2);
  set_cpu_simd(CpuSimd::kAvx2);
  const Result b = c.run_with(2);
  set_cpu_simd(CpuSimd::kAuto);
  EXPECT_GT(a.out.num_instances, 1000);
  expect_identical(a, b, "avx512 vs avx2");
}

// Without want_mean2d_abs the backward skips the per-pixel absolute values and leaves
// mean2d_abs empty; every other output and gradient must be the same bits.
TEST(RasterDeterminism, Mean2dAbsIsOnlyAnAddition) {
  const AllOutputsCase c;
  const Result with = c.run_with(2);
  RenderSettings s = c.s;
  s.want_mean2d_abs = false;
  Result without = run(c.m, c.cam, s, c.up, 2);
  EXPECT_TRUE(without.grad.mean2d_abs.empty());
  ASSERT_EQ(with.grad.mean2d_abs.size(), c.m.size());
  EXPECT_GT(*std::max_element(with.grad.mean2d_abs.begin(), with.grad.mean2d_abs.end()), 0.f);
  without.grad.mean2d_abs = with.grad.mean2d_abs;
  expect_identical(with, without, "with and without mean2d_abs");
}

// forward_into reuses the images of the output it is given: every pixel of every output
// must still be written, whatever the buffers held, and the outputs not asked for emptied.
TEST(RasterDeterminism, ForwardIntoReusedOutputs) {
  const AllOutputsCase c;
  const Result fresh = c.run_with(2);
  auto be = make_cpu_backend(2);
  const auto poison = [](RenderOutput& o) {
    for (ImageF* img : {&o.rgb, &o.alpha, &o.depth, &o.median_depth, &o.normal, &o.count, &o.distortion})
      std::fill(img->data.begin(), img->data.end(), std::nanf(""));
  };
  const auto run_into = [&](RenderOutput& o) {
    Result r;
    be->forward_into(c.m, c.cam, c.s, o);
    be->backward(c.m, c.cam, c.s, o, c.up.in(), r.grad);
    r.out = o;
    return r;
  };
  RenderOutput o;
  expect_identical(fresh, run_into(o), "into an empty output");
  poison(o);
  expect_identical(fresh, run_into(o), "into the same sizes, every buffer overwritten with NaN");
  // another camera size with colour only: the other outputs go
  const Camera small = look_at(64, 40, 60, {0, -3, 0.5}, {0, 0, 0});
  RenderSettings plain;
  plain.want_alpha = false;
  be->forward_into(c.m, small, plain, o);
  const RenderOutput small_fresh = be->forward(c.m, small, plain);
  EXPECT_TRUE(same_bits(o.rgb.data, small_fresh.rgb.data));
  EXPECT_EQ(o.rgb.width, 64);
  EXPECT_TRUE(o.alpha.data.empty() && o.depth.data.empty() && o.normal.data.empty() && o.count.data.empty());
  poison(o);
  expect_identical(fresh, run_into(o), "back to every output after another size");
}

// A ModelGrad reused from backward to backward at falling and rising SH degrees (the
// backward skips the sh_rest entries it knows to be zero) holds what a fresh one gets.
TEST(RasterDeterminism, ReusedGradientAcrossShDegrees) {
  AllOutputsCase c;
  auto be = make_cpu_backend(2);
  ModelGrad reused;
  for (int degree : {3, 0, 1, 0, 2, 3, 0}) {
    SCOPED_TRACE("degree " + std::to_string(degree));
    c.s.sh_degree = degree;
    const Result fresh = c.run_with(2);
    Result r;
    r.out = be->forward(c.m, c.cam, c.s);
    be->backward(c.m, c.cam, c.s, r.out, c.up.in(), reused);
    r.grad = reused;
    expect_identical(fresh, r, "reused gradient");
    const int used = 3 * ((degree + 1) * (degree + 1) - 1);
    std::size_t nonzero_unused = 0, nonzero_used = 0;
    for (std::size_t i = 0; i < c.m.size(); ++i)
      for (int k = 0; k < 45; ++k) {
        const float v = reused.sh_rest[45 * i + std::size_t(k)];
        (k < used ? nonzero_used : nonzero_unused) += v != 0.f;
      }
    EXPECT_EQ(nonzero_unused, 0u);
    if (degree > 0) {
      EXPECT_GT(nonzero_used, 1000u);
    }
  }
  // written by other means: the backward writes every entry again
  std::fill(reused.sh_rest.begin(), reused.sh_rest.end(), 7.f);
  reused.sh_rest_live = 45;
  c.s.sh_degree = 0;
  be->backward(c.m, c.cam, c.s, be->forward(c.m, c.cam, c.s), c.up.in(), reused);
  EXPECT_TRUE(std::all_of(reused.sh_rest.begin(), reused.sh_rest.end(), [](float v) { return v == 0.f; }));
}

// A forward with for_backward = false skips the record slots; a backward after it must do
// that bookkeeping itself and reach the same bits as after a full forward.
TEST(RasterDeterminism, BackwardAfterARenderOnlyForward) {
  const AllOutputsCase c;
  const Result full = c.run_with(2);
  for (int threads : {1, 2, 4}) {
    auto be = make_cpu_backend(threads);
    RenderSettings s = c.s;
    s.for_backward = false;
    Result r;
    r.out = be->forward(c.m, c.cam, s);
    be->backward(c.m, c.cam, s, r.out, c.up.in(), r.grad);
    expect_identical(full, r, ("render-only forward, " + std::to_string(threads) + " threads").c_str());
  }
}

// A pooled forward state keeps what an earlier frame wrote: tile lists, group masks and
// tile stops of another length, past the point where this frame's tiles finish. Nothing of
// it may reach a later frame's outputs or gradients. (Masks left past a tile's stop would
// be harmless even if read: the backward recomputes every group it replays. What this
// catches is per-frame state a forward fails to reset, such as the compose's band counts.)
// Frame one: larger, faint splats, every instance blended, more instances than frame two.
// Frame two: nearly opaque splats, so tiles stop early; as a training forward and as a
// render-only one (whose backward redoes the record slots). Both against a fresh backend.
TEST(RasterDeterminism, PooledStateFromADifferentFrame) {
  const AllOutputsCase c;
  GaussianModel faint = c.m, opaque = c.m;
  for (float& v : opaque.log_scales) v += 2.f;  // each pixel under many splats
  for (float& v : faint.log_scales) v += 2.5f;
  std::fill(faint.opacity_logits.begin(), faint.opacity_logits.end(), -2.f);
  std::fill(opaque.opacity_logits.begin(), opaque.opacity_logits.end(), 6.f);
  const Result fresh = run(opaque, c.cam, c.s, c.up, 2);
  for (bool for_backward : {true, false}) {
    auto be = make_cpu_backend(2);
    RenderOutput first = be->forward(faint, c.cam, c.s);
    ModelGrad g;
    be->backward(faint, c.cam, c.s, first, c.up.in(), g);
    first = RenderOutput();  // its state goes back to the pool
    RenderSettings s = c.s;
    s.for_backward = for_backward;
    Result reused;
    reused.out = be->forward(opaque, c.cam, s);
    be->backward(opaque, c.cam, s, reused.out, c.up.in(), reused.grad);
    expect_identical(fresh, reused, for_backward ? "training forward" : "render-only forward");
  }
}

TEST(RasterDeterminism, PortableAndAvx2Agree) {
  // The AVX2 path fuses multiply-adds in the alpha math and the portable one does not, so
  // they round differently and a step sitting exactly at the 1/255 or transmittance
  // threshold may go either way; both must still agree to well within the reference
  // tolerance (raster_reference_test checks each path against the double renderer).
  GaussianModel m = random_scene(3000, 7);
  Camera cam = look_at(97, 75, 90, {0, -3, 0.5}, {0, 0, 0});
  RenderSettings s;
  s.want_depth = s.want_normal = s.want_distortion = true;
  Upstream up = random_upstream(cam.width, cam.height, s, 3);
  set_cpu_simd(CpuSimd::kPortable);
  Result a = run(m, cam, s, up, 2);
  set_cpu_simd(CpuSimd::kAvx2);  // falls back to portable without AVX2
  Result b = run(m, cam, s, up, 2);
  set_cpu_simd(CpuSimd::kAuto);
  EXPECT_TRUE(images_close("rgb", a.out.rgb.data, b.out.rgb.data, 2e-5));
  EXPECT_TRUE(images_close("distortion", a.out.distortion.data, b.out.distortion.data, 2e-5));
  EXPECT_TRUE(grads_close("means", a.grad.means, b.grad.means, 1e-4));
  EXPECT_TRUE(grads_close("sh_rest", a.grad.sh_rest, b.grad.sh_rest, 1e-4));
}

// Asking for the distortion changes no other output, and without an upstream gradient for
// it no gradient either.
TEST(RasterDeterminism, DistortionChangesNothingElse) {
  GaussianModel m = random_scene(3000, 11);
  Camera cam = look_at(97, 75, 90, {0, -3, 0.5}, {0, 0, 0});
  RenderSettings s;
  s.want_depth = s.want_normal = true;
  Upstream up = random_upstream(cam.width, cam.height, s, 4);
  Result a = run(m, cam, s, up, 2);
  s.want_distortion = true;
  Result b = run(m, cam, s, up, 2);
  EXPECT_TRUE(a.out.distortion.data.empty());
  EXPECT_EQ(b.out.distortion.data.size(), std::size_t(cam.width) * std::size_t(cam.height));
  b.out.distortion = ImageF();
  // == rather than bits: a zero distortion gradient may flip the sign of a zero
  auto same = [](std::span<const float> x, std::span<const float> y) { return std::ranges::equal(x, y); };
  EXPECT_TRUE(same(a.out.rgb.data, b.out.rgb.data));
  EXPECT_TRUE(same(a.out.depth.data, b.out.depth.data));
  EXPECT_TRUE(same(a.out.normal.data, b.out.normal.data));
  EXPECT_TRUE(same(a.grad.means, b.grad.means));
  EXPECT_TRUE(same(a.grad.log_scales, b.grad.log_scales));
  EXPECT_TRUE(same(a.grad.quats, b.grad.quats));
  EXPECT_TRUE(same(a.grad.opacity_logits, b.grad.opacity_logits));
  EXPECT_TRUE(same(a.grad.sh_rest, b.grad.sh_rest));
}

TEST(RasterDeterminism, SimdSelection) {
  // the test sets GLINT_CPU_SIMD itself: start without it and put back what the caller had
  const char* had = std::getenv("GLINT_CPU_SIMD");
  const std::string saved = had ? had : "";
  ASSERT_EQ(unsetenv("GLINT_CPU_SIMD"), 0);
  set_cpu_simd(CpuSimd::kPortable);
  EXPECT_EQ(active_cpu_simd(), CpuSimd::kPortable);
  set_cpu_simd(CpuSimd::kAuto);
  const CpuSimd best = active_cpu_simd();
  EXPECT_NE(best, CpuSimd::kAuto);
  // a request is a cap: never above it, never above what the CPU runs
  set_cpu_simd(CpuSimd::kAvx2);
  EXPECT_EQ(active_cpu_simd(), best == CpuSimd::kPortable ? CpuSimd::kPortable : CpuSimd::kAvx2);
  set_cpu_simd(CpuSimd::kAvx512);
  EXPECT_EQ(active_cpu_simd(), best);
  // the environment variable caps kAuto the same way
  set_cpu_simd(CpuSimd::kAuto);
  ASSERT_EQ(setenv("GLINT_CPU_SIMD", "portable", 1), 0);
  EXPECT_EQ(active_cpu_simd(), CpuSimd::kPortable);
  ASSERT_EQ(setenv("GLINT_CPU_SIMD", "avx2", 1), 0);
  EXPECT_EQ(active_cpu_simd(), best == CpuSimd::kPortable ? CpuSimd::kPortable : CpuSimd::kAvx2);
  ASSERT_EQ(setenv("GLINT_CPU_SIMD", "not-a-build", 1), 0);  // reported once on stderr, ignored
  EXPECT_EQ(active_cpu_simd(), best);
  ASSERT_EQ(unsetenv("GLINT_CPU_SIMD"), 0);
  EXPECT_EQ(active_cpu_simd(), best);
  EXPECT_STREQ(cpu_simd_name(CpuSimd::kAvx512), "avx512");
  if (had) setenv("GLINT_CPU_SIMD", saved.c_str(), 1);
}

// A backward runs the kernels its forward ran, even if the SIMD choice changes in between:
// the builds round the alpha math differently, and a backward that replayed an AVX2
// forward with the portable kernels would differ from the all-AVX2 result.
TEST(RasterDeterminism, BackwardRunsTheForwardsBuild) {
  set_cpu_simd(CpuSimd::kAuto);
  if (active_cpu_simd() == CpuSimd::kPortable) {
    std::printf("[ NOTE     ] no AVX2+FMA on this CPU: only one kernel build, nothing to mix\n");
    return;
  }
  GaussianModel m = random_scene(6000, 99);
  Camera cam = look_at(181, 122, 160, {0, -3, 0.5}, {0, 0, 0});
  RenderSettings s;
  s.want_depth = s.want_normal = true;
  Upstream up = random_upstream(cam.width, cam.height, s, 5);
  const Result all_best = run(m, cam, s, up, 2);
  auto be = make_cpu_backend(2);
  Result mixed;
  mixed.out = be->forward(m, cam, s);  // the best build
  set_cpu_simd(CpuSimd::kPortable);
  be->backward(m, cam, s, mixed.out, up.in(), mixed.grad);
  set_cpu_simd(CpuSimd::kAuto);
  expect_identical(all_best, mixed, "backward after switching to portable");
  // and the portable build really differs, so the check above can tell them apart
  set_cpu_simd(CpuSimd::kPortable);
  const Result all_portable = run(m, cam, s, up, 2);
  set_cpu_simd(CpuSimd::kAuto);
  EXPECT_FALSE(same_bits(all_best.grad.means, all_portable.grad.means));
}
