// Compiled by nvcc in CI (scripts/test.sh) but never run: proves that the per-element math
// in src/glint/render/ builds as device code, so a CUDA backend can launch the very
// functions the CPU backend uses. One thread per splat projects it,
// evaluates its colour and runs one blend step forward and backward, with the VJPs.
#include "glint/render/blend.h"
#include "glint/render/project.h"
#include "glint/render/sh.h"
#include "glint/render/tile.h"
#include "glint/render/view.h"

using namespace glint;
using namespace glint::render;

__global__ void render_math_kernel(ViewT<float> view, const float* means, const float* log_scales, const float* quats,
                                   const float* opacity, const float* dc, const float* rest, const float* campos,
                                   int n, float* out, float* grads) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Vec3f mean = load3(means, i), ls = load3(log_scales, i);
  const Quatf q = load_quat(quats, i);
  Projected<float> p;
  if (!project_splat(view, mean, ls, q, opacity[i], false, p)) return;
  const Vec3f colour = sh_color(3, normalize(mean - Vec3f{campos[0], campos[1], campos[2]}), dc + 3 * i, rest + 45 * i);
  float G = 0.f;
  bool clamped = false;
  const float a = blend_alpha(0.5f, 0.7f, 9.f, G, clamped);
  float c0 = 0.f, c1 = 0.f;
  tile_centre_span(1, 3, 40, c0, c1);
  const bool hit = ellipse_hits_rect(1.f, 2.f, 0.5f, 0.1f, 0.5f, 9.f, c0, c1, 0.f, 16.f);
  float lo = 0.f, hi = 0.f;
  const RowSpanPrep sp = ellipse_row_span_prep(0.5f, 0.1f, 0.5f, 9.f);
  if (!ellipse_row_span_at(sp, 1.f, 0.f, lo, hi)) lo = hi = 0.f;
  store3(out, i, Vec3f{colour.x * a, colour.y + lo, colour.z + (hit ? hi : 0.f)});
  AlphaMoments<float> mom{0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
  blend_alpha_moments_add(clamped ? 0.f : 1.f, G, 1.f, 1.f, mom);
  blend_alpha_moments_add(0.5f, G, -1.f, 2.f, mom, [](float x, float y, float z) { return fmaf(x, y, z); });
  float d_op, d_mx, d_my, d_A, d_B, d_C;
  blend_alpha_moments_grad(mom, 0.5f, 0.5f, 0.1f, 0.5f, d_op, d_mx, d_my, d_A, d_B, d_C);
  float d_dc[3] = {0, 0, 0}, d_rest[45] = {0};
  Vec3f d_mean{0, 0, 0};
  sh_color_vjp(3, mean, campos, dc + 3 * i, rest + 45 * i, Vec3f{d_op, d_mx, d_my}, d_dc, d_rest, d_mean);
  ProjectedGrad<float> pg{};
  SplatGeomGrad<float> sg{};
  project_splat_vjp(view, mean, ls, q, opacity[i], false, pg, sg);
  const float dist = distortion_half_step(a, p.depth, 0.3f, 0.9f);
  const float d_w = distortion_dw(p.depth, 0.3f, 0.9f, 0.2f, 0.8f), d_z = distortion_dz(a, 0.3f, 0.2f);
  grads[i] = d_dc[0] + d_rest[0] + d_mean.x + d_A + d_B + d_C + dist + d_w + d_z;
}
