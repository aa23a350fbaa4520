// Compiler vectorisation or Google Highway for the tile kernels? Times the hottest part of
// the CPU rasterizer: the alpha pass over eight-pixel lane groups (offset, Gaussian
// exponent, exp, alpha clamp, candidate test), on one thread, three ways:
//   gcc-vector  the kernel's own alpha_v (GCC vector extensions, raster_kernels_impl.h)
//   hwy         the same math in Highway ops with Highway's Exp (hwy/contrib/math)
//   hwy+poly    Highway ops with the kernel's exp polynomial (codegen alone, same math)
// Built with -march=haswell (AVX2+FMA, 8 float lanes, both sides), only where libhwy-dev
// is installed.
//   bench_simd_alpha [--groups N] [--repeats R]
#include <array>

#define GLINT_CPU_ISA bench_simd
#define GLINT_RENDER_NS bench_simd
#define GLINT_LANES_NS lanes_bench_simd
#include "glint/backend/cpu/raster_kernels_impl.h"

#include <hwy/highway.h>
#include <hwy/contrib/math/math-inl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace hn = hwy::HWY_NAMESPACE;
using glint::cpu::SplatPacked;

namespace {

struct Group {
  std::uint32_t splat;
  float px0, dy;  // the 4x2 lane block's first pixel centre; dy of its upper row
};

struct Sums {
  double alpha = 0;
  long candidates = 0;
};

// Splats and groups shaped like the 800x800 / 300k benchmark scene: conics of 1-6 px
// Gaussians, opacities across the range, offsets inside the 3-sigma box.
void make_scene(int ngroups, std::vector<SplatPacked>& splats, std::vector<Group>& groups) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> U(0.f, 1.f);
  splats.resize(4096);
  for (SplatPacked& s : splats) {
    const float s1 = 1.f + 5.f * U(rng), s2 = s1 * (0.2f + 0.8f * U(rng)), th = 6.2832f * U(rng);
    const float c = std::cos(th), sn = std::sin(th);
    const float a = c * c * s1 * s1 + sn * sn * s2 * s2, b = c * sn * (s1 * s1 - s2 * s2),
                d = sn * sn * s1 * s1 + c * c * s2 * s2, det = a * d - b * b;
    s = SplatPacked{};
    s.A = d / det;
    s.B = -b / det;
    s.C = a / det;
    s.mx = 8.f + 16.f * U(rng);
    s.my = 8.f + 16.f * U(rng);
    s.opacity = 0.05f + 0.94f * U(rng);
    s.power_cut = std::min(4.5f, std::log(255.f * s.opacity));
    s.ext_x = 3.f * s1;
  }
  groups.resize(std::size_t(ngroups));
  for (Group& g : groups) {
    g.splat = std::uint32_t(rng() % splats.size());
    const SplatPacked& s = splats[g.splat];
    g.px0 = std::floor(s.mx - s.ext_x * U(rng) * 1.2f) + 0.5f;
    g.dy = (2.f * U(rng) - 1.f) * s.ext_x;
  }
}

Sums run_gcc_vector(const std::vector<SplatPacked>& splats, const std::vector<Group>& groups) {
  using namespace glint::cpu::bench_simd;
  using namespace glint::cpu;
  vf acc = bc(0.f);
  long cand = 0;
  for (const Group& g : groups) {
    const SplatPacked& s = splats[g.splat];
    const vf dy = bc(g.dy) + vf{0.f, 0.f, 0.f, 0.f, 1.f, 1.f, 1.f, 1.f};
    const AlphaV a = alpha_v(splat_lanes(s), group_px(g.px0), rows_for_dy(s, dy));
    acc += a.cand ? a.al : bc(0.f);
    cand += __builtin_popcount(unsigned(lane_bits(a.cand)));
  }
  Sums s;
  for (int l = 0; l < 8; ++l) s.alpha += acc[l];
  s.candidates = cand;
  return s;
}

// The kernel's exp polynomial (render::fast_exp) in Highway ops.
template <class D, class V>
V poly_exp(D d, V x) {
  const hn::RebindToSigned<D> di;
  x = hn::Max(x, hn::Set(d, -87.f));
  const V magic = hn::Set(d, 12582912.f);
  const V t = hn::Mul(x, hn::Set(d, 1.44269504088896341f));
  const V n = hn::Sub(hn::Add(t, magic), magic);
  const V f = hn::Sub(t, n);
  V y = hn::MulAdd(hn::Set(d, glint::render::kExp2C5), f, hn::Set(d, glint::render::kExp2C4));
  y = hn::MulAdd(y, f, hn::Set(d, glint::render::kExp2C3));
  y = hn::MulAdd(y, f, hn::Set(d, glint::render::kExp2C2));
  y = hn::MulAdd(y, f, hn::Set(d, glint::render::kExp2C1));
  y = hn::MulAdd(y, f, hn::Set(d, glint::render::kExp2C0));
  const auto e = hn::ShiftLeft<23>(hn::Add(hn::ConvertTo(di, n), hn::Set(di, 127)));
  return hn::Mul(y, hn::BitCast(d, e));
}

template <bool kHighwayExp>
Sums run_hwy(const std::vector<SplatPacked>& splats, const std::vector<Group>& groups) {
  const hn::FixedTag<float, 8> d;
  using V = hn::Vec<decltype(d)>;
  alignas(32) const float col_init[8] = {0.f, 1.f, 2.f, 3.f, 0.f, 1.f, 2.f, 3.f};
  alignas(32) const float row_init[8] = {0.f, 0.f, 0.f, 0.f, 1.f, 1.f, 1.f, 1.f};
  const V col = hn::Load(d, col_init), row = hn::Load(d, row_init);
  V acc = hn::Zero(d);
  long cand = 0;
  for (const Group& g : groups) {
    const SplatPacked& s = splats[g.splat];
    const V dx = hn::Sub(hn::Add(hn::Set(d, g.px0), col), hn::Set(d, s.mx));
    const V dy = hn::Add(hn::Set(d, g.dy), row);
    const V power = hn::MulAdd(hn::MulAdd(hn::Set(d, 0.5f * s.A), dx, hn::Mul(hn::Set(d, s.B), dy)), dx,
                               hn::Mul(hn::Mul(hn::Set(d, 0.5f * s.C), dy), dy));
    V G;
    if constexpr (kHighwayExp)
      G = hn::Exp(d, hn::Neg(power));
    else
      G = poly_exp(d, hn::Neg(power));
    const V raw = hn::Mul(hn::Set(d, s.opacity), G);
    const auto clamped = hn::Gt(raw, hn::Set(d, 0.99f));
    const V al = hn::IfThenElse(clamped, hn::Set(d, 0.99f), raw);
    const auto ok = hn::And(hn::Le(power, hn::Set(d, s.power_cut)), hn::Ge(al, hn::Set(d, 1.f / 255.f)));
    acc = hn::Add(acc, hn::IfThenElseZero(ok, al));
    cand += long(hn::CountTrue(d, ok));
  }
  Sums s;
  s.alpha = hn::GetLane(hn::SumOfLanes(d, acc));
  s.candidates = cand;
  return s;
}

template <class F>
double median_ms(int repeats, F&& f, Sums& out) {
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    const auto a = std::chrono::steady_clock::now();
    out = f();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int ngroups = 4000000, repeats = 9;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    if (k == "--groups") ngroups = std::max(1, std::atoi(argv[i + 1]));
    else if (k == "--repeats") repeats = std::max(1, std::atoi(argv[i + 1]));
    else {
      std::fprintf(stderr, "usage: %s [--groups N] [--repeats R]\n", argv[0]);
      return 2;
    }
  }
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
    std::fprintf(stderr, "bench_simd_alpha: this CPU has no AVX2+FMA, which both variants are built for\n");
    return 1;
  }
  std::vector<SplatPacked> splats;
  std::vector<Group> groups;
  make_scene(ngroups, splats, groups);
  std::printf("alpha pass, %d lane groups (8 pixels each), 1 thread, median of %d runs\n", ngroups, repeats);
  std::printf("%-12s %10s %12s %16s %14s\n", "variant", "ms", "ns/group", "sum of alpha", "candidates");
  Sums s;
  double ms = median_ms(repeats, [&] { return run_gcc_vector(splats, groups); }, s);
  std::printf("%-12s %10.2f %12.3f %16.6f %14ld\n", "gcc-vector", ms, ms * 1e6 / ngroups, s.alpha, s.candidates);
  ms = median_ms(repeats, [&] { return run_hwy<true>(splats, groups); }, s);
  std::printf("%-12s %10.2f %12.3f %16.6f %14ld\n", "hwy", ms, ms * 1e6 / ngroups, s.alpha, s.candidates);
  ms = median_ms(repeats, [&] { return run_hwy<false>(splats, groups); }, s);
  std::printf("%-12s %10.2f %12.3f %16.6f %14ld\n", "hwy+poly", ms, ms * 1e6 / ngroups, s.alpha, s.candidates);
  return 0;
}
