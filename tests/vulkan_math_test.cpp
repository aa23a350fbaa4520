// The GLSL copy of render/'s math (backend/vulkan/shaders/render_math.glsl) against render/
// itself, function by function, on randomized inputs, on both CPU drivers: projection, the
// normal, SH colour and its VJP, the projection VJP, the quaternion VJP, the blend step's
// functions (exp, power, alpha, dalpha, moments, distortion) and the tile tests. Each runs
// in math_check.comp; a drift of the copy fails here. Values may differ by rounding (the
// drivers' exp, log, sqrt and division, and multiply-adds they may fuse): within 2e-5 of
// the value's scale; decisions (kept, clamped, tiles hit) must agree but for a few cases
// within rounding of their thresholds. Also train/'s copies the training shaders run
// (train_math.glsl, and geometry_math.glsl: normal consistency in float against the C++'s
// double).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <random>
#include <vector>

#include "glint/backend/vulkan/context.h"
#include "glint/backend/vulkan/dispatch.h"
#include "glint/backend/vulkan/shader_interfaces.h"
#include "glint/render/blend.h"
#include "glint/render/project.h"
#include "glint/render/sh.h"
#include "glint/render/tile.h"
#include "glint/train/adam_value.h"
#include "glint/train/normal_consistency_math.h"
#include "glint/train/ssim_math.h"
#include "reference/scenes.h"
#include "vulkan_test_support.h"

using namespace glint;

namespace {

constexpr std::uint32_t kCases = 3000;

class VulkanMath : public test::VulkanStreamTest {
 protected:
  // Runs function `fn` of math_check.comp on the inputs (in_stride floats a case).
  std::vector<float> run(std::uint32_t fn, const std::vector<float>& in, std::uint32_t in_stride,
                         std::uint32_t out_stride) {
    const std::uint32_t n = static_cast<std::uint32_t>(in.size() / in_stride);
    vk::Array<float> a, b;
    a.resize(*device, in.size());
    b.resize(*device, std::size_t(n) * out_stride);
    stream->upload(a.buffer(), 0, in.data(), in.size() * 4);
    const vk::MathCheckPush push{n, fn, in_stride, out_stride};
    vk::dispatch<vk::shaders::MathCheck>(*stream, stream->groups_for(n, 64), push, vk::in(a), vk::out(b));
    std::vector<float> out(std::size_t(n) * out_stride);
    stream->download(b.buffer(), 0, out.data(), out.size() * 4);
    stream->finish();
    return out;
  }
};

// Per output column: values within tol of max(|want|, the column's scale / 1e3), discrete
// columns exactly; at most `allowed` cases may differ (threshold flips).
struct Compare {
  std::size_t cases = 0, bad = 0;
  std::string worst;
  void value(float got, float want, float scale, float tol, const char* what) {
    const float lim = tol * std::max(std::fabs(want), scale);
    if (!(std::fabs(got - want) <= lim) && !(std::isnan(got) && std::isnan(want))) {
      if (bad++ < 3) worst += std::string(what) + ": " + std::to_string(got) + " vs " + std::to_string(want) + "; ";
    }
  }
};

void push_view(std::vector<float>& v, const render::ViewT<float>& w) {
  for (float x : w.R) v.push_back(x);
  for (float x : w.t) v.push_back(x);
  for (float x : w.campos) v.push_back(x);
  for (float x : {w.fx, w.fy, w.cx, w.cy, w.lim_x_neg, w.lim_x_pos, w.lim_y_neg, w.lim_y_pos, w.near_plane})
    v.push_back(x);
  v.push_back(float(w.width));
  v.push_back(float(w.height));
}

struct SplatCase {
  render::ViewT<float> view;
  Vec3f mean, ls;
  Quatf q;
  float logit;
  bool aa;
};

std::vector<SplatCase> splat_cases(unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> U(0, 1);
  std::vector<SplatCase> cases;
  const GaussianModel m = test::random_scene(int(kCases), seed);
  for (std::uint32_t i = 0; i < kCases; ++i) {
    const double a = U(rng) * 6.283;
    const Camera cam = test::look_at(40 + int(U(rng) * 90), 30 + int(U(rng) * 60), 60 + U(rng) * 60,
                                     {3 * std::cos(a), 3 * std::sin(a), 0.2 + U(rng)}, {0, 0, 0});
    SplatCase c;
    c.view = render::make_view<float>(cam, 0.01);
    c.mean = load3(m.means.data(), i);
    c.ls = load3(m.log_scales.data(), i);
    c.q = load_quat(m.quats.data(), i);
    c.logit = m.opacity_logits[i];
    c.aa = i % 3 == 0;
    cases.push_back(c);
  }
  return cases;
}

}  // namespace

TEST_P(VulkanMath, ProjectionAndNormalMatchRender) {
  const std::vector<SplatCase> cases = splat_cases(11);
  std::vector<float> in;
  for (const SplatCase& c : cases) {
    push_view(in, c.view);
    for (float x : {c.mean.x, c.mean.y, c.mean.z, c.ls.x, c.ls.y, c.ls.z, c.q.w, c.q.x, c.q.y, c.q.z, c.logit,
                    c.aa ? 1.f : 0.f})
      in.push_back(x);
  }
  const std::vector<float> proj = run(0, in, 38, 14), normal = run(4, in, 38, 3);
  Compare cmp, keep;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const SplatCase& c = cases[i];
    render::Projected<float> p{};
    const bool k = render::project_splat(c.view, c.mean, c.ls, c.q, c.logit, c.aa, p);
    const float* o = &proj[14 * i];
    keep.value(o[0], k ? 1.f : 0.f, 0.f, 0.f, "kept");
    if (k && o[0] != 0.f) {
      ++kept;
      const float want[13] = {p.mx, p.my, p.conic[0], p.conic[1], p.conic[2], p.cov[0], p.cov[1], p.cov[2], p.depth,
                              p.opacity, p.power_cut, p.ext_x, p.ext_y};
      const float scales[13] = {1, 1, std::fabs(p.conic[0]) + std::fabs(p.conic[2]), std::fabs(p.conic[0]) + std::fabs(p.conic[2]),
                                std::fabs(p.conic[0]) + std::fabs(p.conic[2]), p.cov[0] + p.cov[2], p.cov[0] + p.cov[2],
                                p.cov[0] + p.cov[2], 1, 0.01f, 0.01f, 0.1f, 0.1f};
      // the conic inverts the 2D covariance: its rounding grows with the covariance's condition
      const float kappa = (p.cov[0] * p.cov[2] + p.cov[1] * p.cov[1]) / (p.cov[0] * p.cov[2] - p.cov[1] * p.cov[1]);
      const char* names[13] = {"mx", "my", "conic A", "conic B", "conic C", "cov a", "cov b", "cov c", "depth",
                               "opacity", "power_cut", "ext_x", "ext_y"};
      // and the antialiasing compensation takes the undilated covariance's determinant, whose
      // rounding grows with its condition (thin splats): the opacity, cut and extents follow it
      const float a0 = p.cov[0] - 0.3f, c0 = p.cov[2] - 0.3f, b0 = p.cov[1];
      const float kappa0 = c.aa ? std::fabs((a0 * c0 + b0 * b0) / (a0 * c0 - b0 * b0)) : 1.f;
      for (int j = 0; j < 13; ++j)
        cmp.value(o[1 + j], want[j], scales[j], (j >= 2 && j <= 4 ? kappa : j >= 9 ? kappa0 : 1.f) * 2e-5f, names[j]);
    }
    const Vec3f n = render::splat_normal(c.view, c.mean, c.ls, c.q);
    cmp.value(normal[3 * i], n.x, 1, 2e-5f, "normal x");
    cmp.value(normal[3 * i + 1], n.y, 1, 2e-5f, "normal y");
    cmp.value(normal[3 * i + 2], n.z, 1, 2e-5f, "normal z");
  }
  EXPECT_GT(kept, cases.size() / 4);
  EXPECT_LE(keep.bad, 3u) << keep.worst;
  EXPECT_EQ(cmp.bad, 0u) << cmp.worst;
}

TEST_P(VulkanMath, ProjectionVjpMatchesRender) {
  const std::vector<SplatCase> cases = splat_cases(12);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> U(-1, 1);
  std::vector<float> in;
  std::vector<render::ProjectedGrad<float>> grads;
  std::vector<bool> use;
  for (const SplatCase& c : cases) {
    render::Projected<float> p{};
    use.push_back(render::project_splat(c.view, c.mean, c.ls, c.q, c.logit, c.aa, p));
    push_view(in, c.view);
    for (float x : {c.mean.x, c.mean.y, c.mean.z, c.ls.x, c.ls.y, c.ls.z, c.q.w, c.q.x, c.q.y, c.q.z, c.logit,
                    c.aa ? 1.f : 0.f})
      in.push_back(x);
    render::ProjectedGrad<float> g{{U(rng), U(rng)}, {U(rng), U(rng), U(rng)}, U(rng), U(rng), {U(rng), U(rng), U(rng)}};
    for (float x : {g.mean2d[0], g.mean2d[1], g.conic[0], g.conic[1], g.conic[2], g.opacity, g.depth, g.normal[0],
                    g.normal[1], g.normal[2]})
      in.push_back(x);
    grads.push_back(g);
  }
  const std::vector<float> out = run(3, in, 48, 11);
  Compare cmp;
  std::size_t used = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (!use[i]) continue;  // the VJP is defined for kept splats
    ++used;
    const SplatCase& c = cases[i];
    render::SplatGeomGrad<float> s{};
    render::project_splat_vjp(c.view, c.mean, c.ls, c.q, c.logit, c.aa, grads[i], s);
    const float want[11] = {s.mean.x, s.mean.y, s.mean.z, s.log_scale.x, s.log_scale.y, s.log_scale.z,
                            s.quat.w, s.quat.x,  s.quat.y,  s.quat.z,      s.opacity_logit};
    float scale = 0;
    for (float w : want) scale = std::max(scale, std::fabs(w));
    for (int j = 0; j < 11; ++j) cmp.value(out[11 * i + j], want[j], scale, 1e-4f, "vjp");
  }
  EXPECT_GT(used, cases.size() / 4);
  EXPECT_LE(cmp.bad, used / 500 + 2) << cmp.worst;
}

TEST_P(VulkanMath, ShColourAndItsVjpMatchRender) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> U(-1, 1);
  std::vector<float> col_in, vjp_in;
  struct Case {
    int deg;
    Vec3f mean, dir, dcol;
    float campos[3], dc[3], rest[45];
  };
  std::vector<Case> cases(kCases);
  for (std::uint32_t i = 0; i < kCases; ++i) {
    Case& c = cases[i];
    c.deg = int(i % 4);
    c.mean = {U(rng), U(rng), U(rng)};
    for (float& x : c.campos) x = 3 * U(rng);
    c.dir = render::view_dir(c.mean, c.campos);
    for (float& x : c.dc) x = 1.5f * U(rng);
    for (float& x : c.rest) x = 0.3f * U(rng);
    c.dcol = {U(rng), U(rng), U(rng)};
    col_in.push_back(float(c.deg));
    for (float x : {c.dir.x, c.dir.y, c.dir.z}) col_in.push_back(x);
    for (float x : c.dc) col_in.push_back(x);
    for (float x : c.rest) col_in.push_back(x);
    vjp_in.push_back(float(c.deg));
    for (float x : {c.mean.x, c.mean.y, c.mean.z}) vjp_in.push_back(x);
    for (float x : c.campos) vjp_in.push_back(x);
    for (float x : c.dc) vjp_in.push_back(x);
    for (float x : c.rest) vjp_in.push_back(x);
    for (float x : {c.dcol.x, c.dcol.y, c.dcol.z}) vjp_in.push_back(x);
  }
  const std::vector<float> col = run(1, col_in, 52, 4), vjp = run(2, vjp_in, 58, 51);
  Compare cmp, clamp;
  for (std::uint32_t i = 0; i < kCases; ++i) {
    const Case& c = cases[i];
    unsigned clamped = 0;
    const Vec3f rgb = render::sh_color(c.deg, c.dir, c.dc, c.rest, &clamped);
    cmp.value(col[4 * i], rgb.x, 1, 2e-5f, "r");
    cmp.value(col[4 * i + 1], rgb.y, 1, 2e-5f, "g");
    cmp.value(col[4 * i + 2], rgb.z, 1, 2e-5f, "b");
    clamp.value(col[4 * i + 3], float(clamped), 0, 0, "clamped");
    float d_dc[3], d_rest[45];
    Vec3f d_mean{0, 0, 0};
    render::sh_color_vjp(c.deg, c.mean, c.campos, c.dc, c.rest, c.dcol, d_dc, d_rest, d_mean);
    for (int k = 0; k < 3; ++k) cmp.value(vjp[51 * i + k], d_dc[k], 1, 2e-5f, "d_dc");
    for (int k = 0; k < 45; ++k) cmp.value(vjp[51 * i + 3 + k], d_rest[k], 1, 2e-5f, "d_rest");
    cmp.value(vjp[51 * i + 48], d_mean.x, 1, 1e-4f, "d_mean");
    cmp.value(vjp[51 * i + 49], d_mean.y, 1, 1e-4f, "d_mean");
    cmp.value(vjp[51 * i + 50], d_mean.z, 1, 1e-4f, "d_mean");
  }
  EXPECT_LE(clamp.bad, 2u) << clamp.worst;
  EXPECT_LE(cmp.bad, 2u) << cmp.worst;
}

TEST_P(VulkanMath, BlendStepAndQuaternionVjpMatchRender) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> U(-1, 1);
  std::vector<float> in, qin;
  for (std::uint32_t i = 0; i < kCases; ++i) {
    const float row[26] = {-30 * (U(rng) + 1),          // x for exp
                           2 + 2 * U(rng), U(rng), 2 + 2 * U(rng), 3 * U(rng), 3 * U(rng),  // A B C dx dy
                           0.5f + 0.5f * U(rng), 4.5f + 0.5f * U(rng),                      // opacity, power_cut
                           U(rng), 0.5f + 0.5f * U(rng), U(rng), 1 + U(rng) * 0.5f,         // c t after inv
                           U(rng), std::fabs(U(rng)),                                        // g G
                           U(rng), U(rng), U(rng), U(rng), U(rng), U(rng),                   // moments before
                           std::fabs(U(rng)), U(rng), std::fabs(U(rng)), U(rng), std::fabs(U(rng)), U(rng)};
    in.insert(in.end(), row, row + 26);
    for (int k = 0; k < 13; ++k) qin.push_back(U(rng));
  }
  const std::vector<float> out = run(5, in, 26, 21), qout = run(7, qin, 13, 4);
  Compare cmp, flags;
  for (std::uint32_t i = 0; i < kCases; ++i) {
    const float* r = &in[26 * i];
    const float* o = &out[21 * i];
    cmp.value(o[0], render::fast_exp(r[0]), 0, 1e-6f, "fast_exp");
    const float power = render::splat_power(r[1], r[2], r[3], r[4], r[5]);
    cmp.value(o[1], power, 1, 1e-6f, "power");
    float G = 0;
    bool clamped = false;
    const float a = render::blend_alpha(r[6], r[1], r[7], G, clamped);
    flags.value(o[2] > 0 ? 1.f : 0.f, a > 0 ? 1.f : 0.f, 0, 0, "alpha skipped");
    cmp.value(o[2], a, 0, 1e-6f, "alpha");
    cmp.value(o[3], G, 0, 1e-6f, "G");
    flags.value(o[4], clamped ? 1.f : 0.f, 0, 0, "clamped");
    cmp.value(o[5], render::blend_dalpha_channel(r[8], r[9], r[10], r[11]), 1, 1e-6f, "dalpha");
    render::AlphaMoments<float> m{r[14], r[15], r[16], r[17], r[18], r[19]};
    render::blend_alpha_moments_add(r[12], r[13], r[4], r[5], m);
    const float mv[6] = {m.p, m.px, m.py, m.pxx, m.pxy, m.pyy};
    for (int k = 0; k < 6; ++k) cmp.value(o[6 + k], mv[k], 1, 1e-6f, "moments");
    float d[6];
    render::blend_alpha_moments_grad(m, r[6], r[1], r[2], r[3], d[0], d[1], d[2], d[3], d[4], d[5]);
    for (int k = 0; k < 6; ++k) cmp.value(o[12 + k], d[k], 1, 1e-5f, "moments grad");
    cmp.value(o[18], render::distortion_half_step(r[20], r[21], r[22], r[23]), 1, 1e-6f, "distortion half step");
    cmp.value(o[19], render::distortion_dw(r[21], r[22], r[23], r[24], r[25]), 1, 1e-6f, "distortion dw");
    cmp.value(o[20], render::distortion_dz(r[20], r[22], r[24]), 1, 1e-6f, "distortion dz");
    const float G9[9] = {qin[13 * i + 4], qin[13 * i + 5], qin[13 * i + 6], qin[13 * i + 7], qin[13 * i + 8],
                         qin[13 * i + 9], qin[13 * i + 10], qin[13 * i + 11], qin[13 * i + 12]};
    const Quatf q{qin[13 * i], qin[13 * i + 1], qin[13 * i + 2], qin[13 * i + 3]};
    const Quatf g = render::quat_to_rotmat_vjp(q, G9);
    float qs = std::fabs(g.w) + std::fabs(g.x) + std::fabs(g.y) + std::fabs(g.z);
    cmp.value(qout[4 * i], g.w, qs, 1e-4f, "quat vjp");
    cmp.value(qout[4 * i + 1], g.x, qs, 1e-4f, "quat vjp");
    cmp.value(qout[4 * i + 2], g.y, qs, 1e-4f, "quat vjp");
    cmp.value(qout[4 * i + 3], g.z, qs, 1e-4f, "quat vjp");
  }
  EXPECT_LE(flags.bad, 2u) << flags.worst;
  EXPECT_LE(cmp.bad, 2u) << cmp.worst;
}

TEST_P(VulkanMath, TileTestsMatchRender) {
  const std::vector<SplatCase> cases = splat_cases(13);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> U(0, 1);
  std::vector<float> in;
  std::vector<std::array<float, 14>> rows;
  for (const SplatCase& c : cases) {
    render::Projected<float> p{};
    if (!render::project_splat(c.view, c.mean, c.ls, c.q, c.logit, c.aa, p)) continue;
    const float x0 = p.mx + 10 * (U(rng) - 0.5f) * p.ext_x, y0 = p.my + 10 * (U(rng) - 0.5f) * p.ext_y;
    const std::array<float, 14> r = {p.mx, p.my, p.conic[0], p.conic[1], p.conic[2], p.power_cut, p.ext_x, p.ext_y,
                                     float(c.view.width), float(c.view.height), x0, x0 + 16 * U(rng), y0,
                                     y0 + 16 * U(rng)};
    rows.push_back(r);
    in.insert(in.end(), r.begin(), r.end());
  }
  const std::vector<float> out = run(6, in, 14, 6);
  Compare cmp;
  std::size_t hits = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const render::PixelRect pr = render::splat_pixel_rect(r[0], r[1], r[6], r[7], int(r[8]), int(r[9]));
    cmp.value(out[6 * i], float(pr.x0), 0, 0, "rect");
    cmp.value(out[6 * i + 1], float(pr.y0), 0, 0, "rect");
    cmp.value(out[6 * i + 2], float(pr.x1), 0, 0, "rect");
    cmp.value(out[6 * i + 3], float(pr.y1), 0, 0, "rect");
    // the tiles the CPU's tile test finds, counted as the CUDA and Vulkan project stages do
    std::uint32_t tiles = 0;
    if (pr.x0 <= pr.x1 && pr.y0 <= pr.y1) {
      const render::RectTestPrep prep = render::rect_test_prep(r[2], r[3], r[4], r[5]);
      for (int ty = pr.y0 / 16; ty <= pr.y1 / 16; ++ty)
        for (int tx = pr.x0 / 16; tx <= pr.x1 / 16; ++tx) {
          float px0, px1, py0, py1;
          render::tile_centre_span(tx, pr.x0, pr.x1, px0, px1);
          render::tile_centre_span(ty, pr.y0, pr.y1, py0, py1);
          tiles += render::ellipse_hits_rect(prep, r[0], r[1], px0, px1, py0, py1);
        }
    }
    cmp.value(out[6 * i + 4], float(tiles), 0, 0, "tiles");
    const bool hit = render::ellipse_hits_rect(r[0], r[1], r[2], r[3], r[4], r[5], r[10], r[11], r[12], r[13]);
    hits += hit;
    cmp.value(out[6 * i + 5], hit ? 1.f : 0.f, 0, 0, "hit");
  }
  EXPECT_GT(rows.size(), cases.size() / 4);
  EXPECT_GT(hits, rows.size() / 10);
  EXPECT_LE(cmp.bad, rows.size() / 1000 + 1) << cmp.worst;
}

// train_math.glsl (the training shaders' copies of train/'s per-value math): the SSIM
// window sum (fused, as the CPU blur's FMA path), one value of the SSIM map with its
// derivatives, the SSIM gradient value, the L1 sign, and Adam's update, which is `precise`
// and must give train/adam_value.h's bits.
TEST_P(VulkanMath, TrainMathMatchesTrain) {
  std::mt19937 rng(808);
  std::uniform_real_distribution<float> U(0.f, 1.f);
  const auto win = ssim_window_weights<float>();
  std::vector<float> in;
  for (std::uint32_t c = 0; c < kCases; ++c) {
    for (float w : win) in.push_back(w);
    for (int k = 0; k < 11; ++k) in.push_back(U(rng));
    const float m1 = U(rng), m2 = U(rng), v1 = 0.1f * U(rng), v2 = 0.1f * U(rng);
    const float cov = (2.f * U(rng) - 1.f) * std::sqrt(v1 * v2);
    in.insert(in.end(), {m1, m2, m1 * m1 + v1, m2 * m2 + v2, m1 * m2 + cov});
    in.insert(in.end(), {1.f / 3000.f, 2 * U(rng) - 1, 2 * U(rng) - 1, 2 * U(rng) - 1, U(rng), U(rng)});
    const float t = std::floor(1.f + 999.f * U(rng)), lr = std::pow(10.f, -4.f + 2.f * U(rng));
    const float g = (2 * U(rng) - 1) * std::pow(10.f, -6.f * U(rng));
    in.insert(in.end(), {4 * U(rng) - 2, g, 0.2f * U(rng) - 0.1f, 0.01f * U(rng) * U(rng)});
    in.insert(in.end(), {0.9f, 0.1f, 0.999f, 1.f - 0.999f,
                         static_cast<float>(std::sqrt(1.0 - std::pow(0.999, double(t)))), 1e-15f,
                         static_cast<float>(lr / (1.0 - std::pow(0.9, double(t))))});
    in.push_back(c % 5 == 0 ? 0.f : 2 * U(rng) - 1);
  }
  const std::vector<float> out = run(8, in, 45, 11);
  Compare cmp;
  std::size_t adam_bits = 0;
  const auto fused = [](float a, float b, float c) { return std::fma(a, b, c); };
  for (std::uint32_t c = 0; c < kCases; ++c) {
    const float* i = &in[std::size_t(c) * 45];
    const float* o = &out[std::size_t(c) * 11];
    cmp.value(o[0], ssim_window_sum(i, i + 11, fused), 1e-3f, 1e-6f, "window sum");
    float dm = 0, d11 = 0, d12 = 0;
    const float v = ssim_map_value<true>(i[22], i[23], i[24], i[25], i[26], float(kSsimC1), float(kSsimC2), &dm,
                                         &d11, &d12);
    cmp.value(o[1], v, 1e-3f, 1e-5f, "ssim");
    {  // d_mu1 sums two products of differences: its scale is that of the terms, not the sum
      const float m1 = i[22], m2 = i[23];
      const float A1 = 2 * m1 * m2 + float(kSsimC1), A2 = 2 * (i[26] - m1 * m2) + float(kSsimC2);
      const float B1 = m1 * m1 + m2 * m2 + float(kSsimC1), B2 = i[24] - m1 * m1 + i[25] - m2 * m2 + float(kSsimC2);
      const float terms = (2 * std::fabs(m2) * (std::fabs(A1) + std::fabs(A2)) +
                           2 * std::fabs(m1 * v) * (std::fabs(B1) + std::fabs(B2))) / (B1 * B2);
      cmp.value(o[2], dm, std::max(1e-2f, terms), 1e-5f, "d_mu1");
    }
    cmp.value(o[3], d11, 1e-2f, 1e-5f, "d_e11");
    cmp.value(o[4], d12, 1e-2f, 1e-5f, "d_e12");
    cmp.value(o[5], ssim_grad_value(i[27], i[28], i[29], i[30], i[31], i[32]), 1e-7f, 1e-5f, "ssim grad");
    float pp = i[33], m = i[35], vv = i[36];
    const AdamConsts k{i[37], i[38], i[39], i[40], i[41], i[42], i[43]};
    const unsigned bad = adam_value(pp, i[34], m, vv, k);
    if (o[6] != pp || o[7] != m || o[8] != vv || o[9] != float(bad)) ++adam_bits;
    cmp.value(o[10], l1_sign(i[44]), 0.f, 0.f, "l1 sign");
  }
  EXPECT_EQ(cmp.bad, 0u) << cmp.worst;
  EXPECT_EQ(adam_bits, 0u) << "Adam updates that differ from train/adam_value.h's bits";
}

// geometry_math.glsl (normal consistency's per-pixel math, in float) against
// train/normal_consistency_math.h (double) on the same float inputs: pixels of random cameras
// whose five depths lie on a random plane, off it by a little (near the edge test's
// threshold, or within 1% of the edge test's threshold) or by a depth step; rendered normals near the plane's, random, or zero. The
// pixel tests (covered, in front) agree exactly; the edge test but for cases within rounding
// of eps; the term within 1e-5; the gradients within 1e-4 of their scales (dL/dN: 1 / |N|;
// the depth gradients: |dx| |ray| / |dx x dy|, what they are made of).
TEST_P(VulkanMath, NormalConsistencyMatchesTrain) {
  std::mt19937 rng(4242);
  std::uniform_real_distribution<double> U(0, 1);
  struct Case {
    NcCamera cam;
    int x, y;
    double z[5];  // the pixel, right, left, down, up (as floats)
    Vec3d N;
    double eps, alpha;
  };
  std::vector<Case> cases;
  std::vector<float> in;
  for (std::uint32_t c = 0; c < kCases; ++c) {
    const double a = U(rng) * 6.283;
    const int w = 30 + int(U(rng) * 900), h = 20 + int(U(rng) * 700);
    const Camera cam = test::look_at(w, h, (0.5 + U(rng)) * w, {3 * std::cos(a), 3 * std::sin(a), 0.2 + U(rng)},
                                     {0, 0, 0}, w * (0.3 + 0.4 * U(rng)), h * (0.3 + 0.4 * U(rng)));
    Case k;
    k.cam = {cam.R, static_cast<float>(cam.fx), static_cast<float>(cam.fy), static_cast<float>(cam.cx),
             static_cast<float>(cam.cy)};
    for (int j = 0; j < 9; ++j) k.cam.R.m[j] = static_cast<float>(cam.R.m[j]);
    k.x = 1 + int(U(rng) * (w - 2));
    k.y = 1 + int(U(rng) * (h - 2));
    // a plane through the pixel's point at depth z0, its normal turned at most ~80 degrees from
    // the camera's axis; depth along the ray through (x', y') is (n . P0) / (n . r)
    const double z0 = 0.5 + 9.5 * U(rng);
    const Vec3d n = normalize(Vec3d{U(rng) - 0.5, U(rng) - 0.5, -(0.2 + U(rng))});
    const Vec3d P0 = z0 * nc_pixel_ray(k.cam, k.x, k.y);
    const int dxs[5] = {0, 1, -1, 0, 0}, dys[5] = {0, 0, 0, 1, -1};
    const int kind = int(c % 4);  // on the plane, a little off it, a step, a degenerate normal
    for (int j = 0; j < 5; ++j) {
      double z = dot(n, P0) / dot(n, nc_pixel_ray(k.cam, k.x + dxs[j], k.y + dys[j]));
      if (kind == 1 && c % 8 != 1 && j > 0) z *= 1 + (U(rng) - 0.5) * std::pow(10.0, -6 + 4.5 * U(rng));
      if (kind == 2 && j == 1 + int(U(rng) * 4)) z *= 1.1 + U(rng);
      k.z[j] = static_cast<float>(z);
    }
    if (c % 13 == 0) k.z[0] = -k.z[0];  // behind the camera: not ok
    const Vec3d nw = transpose(cam.R) * n;  // the depth normal, towards the camera, in the world
    if (kind == 3 && c % 8 == 3) {
      k.N = {0, 0, 0};
    } else if (U(rng) < 0.3) {
      k.N = {U(rng) - 0.5, U(rng) - 0.5, U(rng) - 0.5};
    } else {
      k.N = (0.2 + U(rng)) * (nw + 0.1 * U(rng) * Vec3d{U(rng) - 0.5, U(rng) - 0.5, U(rng) - 0.5});
    }
    for (double* v : {&k.N.x, &k.N.y, &k.N.z}) *v = static_cast<float>(*v);
    k.eps = c % 5 == 0 ? 0.0 : static_cast<float>(std::pow(10.0, -4 + 3 * U(rng)));
    if (kind == 1 && c % 8 == 1) {
      // the edge test's threshold: the right neighbour moved so that z (1/z_r + 1/z_l - 2/z)
      // is within 1% of +-eps (float's rounding moves it by about 1e-7)
      k.eps = static_cast<float>(std::pow(10.0, -2 + U(rng)));
      const double t = (U(rng) < 0.5 ? -1 : 1) * k.eps * (1 + 0.02 * (U(rng) - 0.5));
      const double z = k.z[0], zl = k.z[2];
      k.z[1] = static_cast<float>(z / (2 + t - z / zl));
    }
    k.alpha = static_cast<float>(U(rng));
    for (int j = 0; j < 9; ++j) in.push_back(static_cast<float>(k.cam.R.m[j]));
    for (double v : {k.cam.fx, k.cam.fy, k.cam.cx, k.cam.cy}) in.push_back(static_cast<float>(v));
    in.push_back(float(k.x));
    in.push_back(float(k.y));
    for (double v : k.z) in.push_back(static_cast<float>(v));
    for (double v : {k.N.x, k.N.y, k.N.z, k.eps, k.alpha, 0.5}) in.push_back(static_cast<float>(v));
    cases.push_back(k);
  }
  const std::vector<float> out = run(9, in, 26, 11);
  Compare ok, edge, kept, cmp;
  std::size_t edges = 0, pixels = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& k = cases[i];
    const float* o = &out[11 * i];
    ok.value(o[0], normal_consistency_ok(float(k.alpha), float(k.z[0]), 0.5f) ? 1.f : 0.f, 0, 0, "ok");
    if (!(k.z[0] > 0)) continue;  // the edge test and the pixel's math are for pixels in front
    const bool e = normal_consistency_edge(k.z[0], k.z[1], k.z[2], k.z[3], k.z[4], k.eps);
    edges += e;
    edge.value(o[1], e ? 1.f : 0.f, 0, 0, "edge");
    NcPixel px{};
    const bool kk = normal_consistency_pixel(k.cam, k.x, k.y, k.z[1], k.z[2], k.z[3], k.z[4], k.N, px);
    kept.value(o[2], kk ? 1.f : 0.f, 0, 0, "kept");
    if (!kk || o[2] == 0.f) continue;
    ++pixels;
    cmp.value(o[3], float(px.term), 1, 1e-5f, "term");
    const double nl = norm(k.N);
    cmp.value(o[4], float(px.g_N.x), float(1 / nl), 1e-4f, "g_N x");
    cmp.value(o[5], float(px.g_N.y), float(1 / nl), 1e-4f, "g_N y");
    cmp.value(o[6], float(px.g_N.z), float(1 / nl), 1e-4f, "g_N z");
    const Vec3d rr = nc_pixel_ray(k.cam, k.x + 1, k.y), rl = nc_pixel_ray(k.cam, k.x - 1, k.y);
    const Vec3d rd = nc_pixel_ray(k.cam, k.x, k.y + 1), ru = nc_pixel_ray(k.cam, k.x, k.y - 1);
    const Vec3d dx = k.z[1] * rr - k.z[2] * rl, dy = k.z[3] * rd - k.z[4] * ru;
    const double cl = norm(cross(dx, dy));
    const double ray = std::max(std::max(norm(rr), norm(rl)), std::max(norm(rd), norm(ru)));
    const float scale = float(std::max(norm(dx), norm(dy)) * ray / cl);
    for (int j = 0; j < 4; ++j) cmp.value(o[7 + j], float(px.g_depth[j]), scale, 1e-4f, "g_depth");
  }
  EXPECT_EQ(ok.bad, 0u) << ok.worst;
  EXPECT_GT(edges, kCases / 10);
  EXPECT_LE(edge.bad, kCases / 1000 + 1) << edge.worst;
  EXPECT_LE(kept.bad, 2u) << kept.worst;
  EXPECT_GT(pixels, kCases / 2);
  EXPECT_EQ(cmp.bad, 0u) << cmp.worst;
}

GLINT_VULKAN_DRIVERS(VulkanMath);
