#include "glint/light/shadow_map.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "glint/core/error.h"
#include "glint/light/surface_map.h"

namespace glint {

std::vector<ShadowMap> render_shadow_maps(Backend& backend, const GaussianModel& model, const std::vector<Light>& lights,
                                          const SceneBounds& bounds, const ShadowMapParams& p) {
  return render_shadow_maps(backend, model, lights, bounds, std::vector<ShadowMapParams>(lights.size(), p));
}

std::vector<ShadowMap> render_shadow_maps(Backend& backend, const GaussianModel& model, const std::vector<Light>& lights,
                                          const SceneBounds& bounds, const std::vector<ShadowMapParams>& params) {
  if (params.size() != lights.size())
    throw Error("shadow maps: " + std::to_string(params.size()) + " parameter sets for " +
                std::to_string(lights.size()) + " lights");
  std::vector<ShadowMap> maps(lights.size());
  std::vector<Camera> faces;
  for (std::size_t l = 0; l < lights.size(); ++l) {
    if (params[l].depth != params.front().depth) throw Error("shadow maps: one batch has one depth definition");
    maps[l].params = params[l];
    maps[l].views = make_light_map_views(lights[l], bounds, maps[l].params, "shadow map");
    if (maps[l].views.kind == LightViewKind::Perspective) {  // a spot: texels of a cube face's solid angle
      maps[l].params.resolution =
          spot_map_resolution(params[l].resolution, lights[l].cone_angle, light_map_guard_px(params[l]));
      maps[l].views = make_light_map_views(lights[l], bounds, maps[l].params, "shadow map");
    }
    faces.insert(faces.end(), maps[l].views.faces.begin(), maps[l].views.faces.end());
  }
  const ShadowDepth depth = params.empty() ? ShadowDepth::Median : params.front().depth;
  RenderSettings s;
  s.for_backward = false;  // rendered, never differentiated
  s.sh_degree = 0;         // only coverage and depth are read: no view-dependent colour to evaluate
  s.want_rgb = false;      // nor colour at all
  s.want_alpha = depth == ShadowDepth::Expected;
  s.want_depth = depth == ShadowDepth::Expected;
  s.want_median_depth = depth == ShadowDepth::Median;
  s.median_depth_only = s.want_median_depth;
  // The faces go to the backend in batches whose outputs are reused from batch to batch: a
  // batch is enough to keep every thread busy, and all the faces' colour, coverage and depth
  // at once (64 AO maps, 16 environment suns) would be mostly memory touched once.
  constexpr std::size_t kBatch = 16;
  std::vector<RenderOutput> outs;
  std::vector<ImageF*> dest;
  for (ShadowMap& m : maps) {
    m.depth.resize(m.views.faces.size());
    for (ImageF& d : m.depth) dest.push_back(&d);
  }
  for (std::size_t first = 0; first < faces.size(); first += kBatch) {
    const std::vector<Camera> batch(faces.begin() + static_cast<long>(first),
                                    faces.begin() + static_cast<long>(std::min(faces.size(), first + kBatch)));
    backend.forward_views(model, batch, s, outs);
    for (std::size_t i = 0; i < batch.size(); ++i) {
      RenderOutput& out = outs[i];
      ImageF& map = *dest[first + i];
      if (depth == ShadowDepth::Median) {
        map = std::move(out.median_depth);
      } else {
        // Expected depth where the splats are mostly opaque; below half coverage the light
        // passes, consistent with the median definition's threshold.
        map = std::move(out.depth);
        for (std::size_t t = 0; t < map.data.size(); ++t)
          if (!(out.alpha.data[t] >= 0.5f)) map.data[t] = 0;
      }
    }
  }
  return maps;
}

ShadowMap render_shadow_map(Backend& backend, const GaussianModel& model, const Light& light,
                            const SceneBounds& bounds, const ShadowMapParams& p) {
  return std::move(render_shadow_maps(backend, model, {light}, bounds, p).front());
}

namespace {

// shadow_lookup for a map of one face (spot, sun and the AO maps, most of a relight's
// lookups) without its repeated transforms: a single face needs no second face test after
// the normal offset, and the offset point's camera coordinates are the point's plus the
// camera's rotation of the offset.
ShadowLookup single_face_lookup(const LightViews& views, const Light& light, Vec3d x, Vec3d n,
                                const LightMapParams& p) {
  ShadowLookup r;
  const Camera& c = views.faces[0];
  const Vec3d pc0 = c.world_to_camera(x);
  if (!(pc0.z > 0)) return r;
  const double iz0 = 1 / pc0.z;
  const double u0 = c.fx * pc0.x * iz0 + c.cx, v0 = c.fy * pc0.y * iz0 + c.cy;
  const double g = views.guard_px;
  if (u0 < g || v0 < g || u0 > c.width - g || v0 > c.height - g) return r;
  r.face = 0;
  const double texel = pc0.z / c.fx;
  double tan_t = 0;
  Vec3d pc = pc0;
  if (dot(n, n) > 0) {
    const Vec3d to_light = light.type == LightType::Sun ? light.direction : normalize(light.position - x);
    const double cs = std::clamp(dot(n, to_light), 1e-3, 1.0);
    tan_t = std::min(10.0, std::sqrt(1 - cs * cs) / cs);
    pc = pc0 + (p.normal_offset * texel) * (c.R * n);
  }
  const double iz = 1 / pc.z;
  r.u = c.fx * pc.x * iz + c.cx;
  r.v = c.fy * pc.y * iz + c.cy;
  r.z = pc.z - (p.constant_bias + p.slope_bias * tan_t) * texel;
  return r;
}

typedef double vd __attribute__((vector_size(32)));
typedef long long vm __attribute__((vector_size(32)));  // lane masks: all ones or zero

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define GLINT_LOOKUP_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define GLINT_LOOKUP_CLONES
#endif

typedef float v8f __attribute__((vector_size(32)));
typedef int v8i __attribute__((vector_size(32)));

// The lit taps of a K x K window whose texels all lie on the map of W x H texels, its
// top-left texel at (x0, y0): a texel is lit where it is empty (!(t > 0)) or not nearer
// than the lookup's depth, which zf stands for in float (pcf_threshold). A row's texels on
// the lanes of one 8-wide load (the lanes past K masked off), which may read past the
// window's row but not past the map: the last rows, where it would, are copied first.
template <int K>
__attribute__((always_inline)) inline int pcf_lit_inside(const float* px, int W, int H, int x0, int y0, float zf) {
  static_assert(K >= 1 && K <= 8);
  v8i lane_in{};
  for (int l = 0; l < K; ++l) lane_in[l] = -1;
  v8i acc{};
  const v8f z = {zf, zf, zf, zf, zf, zf, zf, zf}, zero{};
  const std::size_t end = static_cast<std::size_t>(W) * static_cast<std::size_t>(H);
  for (int yy = 0; yy < K; ++yy) {
    const std::size_t at = static_cast<std::size_t>(y0 + yy) * W + x0;
    v8f t{};
    if (at + 8 <= end) std::memcpy(&t, px + at, sizeof t);  // a constant size: one load
    else std::memcpy(&t, px + at, K * sizeof(float));
    acc += (~(t > zero) | (t >= z)) & lane_in;  // -1 per lit tap
  }
  int lit = 0;
  for (int l = 0; l < K; ++l) lit -= acc[l];
  return lit;
}

// The float f with f >= z exactly when a float t satisfies double(t) >= z: the smallest
// float not below z (z rounded to float, one step up where that fell below it; NaN stays
// NaN, which no t satisfies, as in double).
__attribute__((always_inline)) inline float pcf_threshold(double z) {
  float f = static_cast<float>(z);
  if (static_cast<double>(f) < z) {  // f is finite here, and +0 rather than -0
    std::uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    bits = f >= 0 ? bits + 1 : bits - 1;
    std::memcpy(&f, &bits, sizeof bits);
  }
  return f;
}

// Fraction of the k x k texels around (u, v) nearer than z (or empty); the window clamped
// to the face.
__attribute__((always_inline)) inline double pcf_window(const ImageF& d, double u, double v, double z, int k) {
  const int r = k / 2;
  const int cx = static_cast<int>(std::floor(u)), cy = static_cast<int>(std::floor(v));
  const float* px = d.data.data();
  const int W = d.width, H = d.height;
  const double taps = (2 * r + 1) * (2 * r + 1);
  const bool inside = cx - r >= 0 && cy - r >= 0 && cx + r < W && cy + r < H;
  // Windows up to 7 texels wide on vector lanes (a row fits one 8-wide load); wider ones,
  // and windows cut by the face's edge, tap by tap below.
  if (inside) {
    const int x0 = cx - r, y0 = cy - r;
    switch (2 * r + 1) {
      case 1: return pcf_lit_inside<1>(px, W, H, x0, y0, pcf_threshold(z)) / taps;
      case 3: return pcf_lit_inside<3>(px, W, H, x0, y0, pcf_threshold(z)) / taps;
      case 5: return pcf_lit_inside<5>(px, W, H, x0, y0, pcf_threshold(z)) / taps;
      case 7: return pcf_lit_inside<7>(px, W, H, x0, y0, pcf_threshold(z)) / taps;
      default: break;
    }
  }
  int lit = 0;
  if (inside) {
    // Both tests evaluated and or-ed rather than short-circuited: whether a texel is empty
    // changes from tap to tap at silhouettes, a branch the CPU mispredicts.
    for (int yy = cy - r; yy <= cy + r; ++yy) {
      const float* row = px + static_cast<std::size_t>(yy) * W;
      for (int xx = cx - r; xx <= cx + r; ++xx) {
        const float t = row[xx];
        lit += static_cast<int>(!(t > 0)) | static_cast<int>(z <= t);
      }
    }
  } else {
    for (int dy = -r; dy <= r; ++dy)
      for (int dx = -r; dx <= r; ++dx) {
        const float occ = px[static_cast<std::size_t>(std::clamp(cy + dy, 0, H - 1)) * W + std::clamp(cx + dx, 0, W - 1)];
        lit += (!(occ > 0) || z <= occ) ? 1 : 0;
      }
  }
  return static_cast<double>(lit) / taps;
}

double depth_pcf(const ImageF& d, double u, double v, double z, int k) { return pcf_window(d, u, v, z, k); }

// pcf_window of a map for up to four lookups (1 where ok[l] is false), compiled for the
// vector units the machine has.
GLINT_LOOKUP_CLONES void pcf4(const ImageF& d, const double* u, const double* v, const double* z, const long long* ok,
                              int k, int count, double* out) {
  for (int l = 0; l < count; ++l) out[l] = ok[l] ? pcf_window(d, u[l], v[l], z[l], k) : 1;
}

// single_face_lookup of a sun's map for four points at once (x, n: four each), one per
// lane, each with the scalar code's operations in its order (the file builds without
// contraction, so every copy gives the same bits). ok[l] is false where the point is
// outside the face (lit); the PCF taps stay scalar.
GLINT_LOOKUP_CLONES void sun_lookup4(const Camera& c, double guard, const LightMapParams& p, Vec3d to_light,
                                     const Vec3d* x, const Vec3d* n, double* u_out, double* v_out, double* z_out,
                                     long long* ok) {
  const vd X = {x[0].x, x[1].x, x[2].x, x[3].x}, Y = {x[0].y, x[1].y, x[2].y, x[3].y},
           Z = {x[0].z, x[1].z, x[2].z, x[3].z};
  const vd NX = {n[0].x, n[1].x, n[2].x, n[3].x}, NY = {n[0].y, n[1].y, n[2].y, n[3].y},
           NZ = {n[0].z, n[1].z, n[2].z, n[3].z};
  const double* R = c.R.m;
  const vd pcx = R[0] * X + R[1] * Y + R[2] * Z + c.t.x;
  const vd pcy = R[3] * X + R[4] * Y + R[5] * Z + c.t.y;
  const vd pcz = R[6] * X + R[7] * Y + R[8] * Z + c.t.z;
  const vd one = {1, 1, 1, 1}, zero = {0, 0, 0, 0};
  const vd iz0 = one / pcz;
  const vd u0 = c.fx * pcx * iz0 + c.cx, v0 = c.fy * pcy * iz0 + c.cy;
  const double umax = c.width - guard, vmax = c.height - guard;
  const vm inside = (pcz > zero) & ~((u0 < guard) | (v0 < guard) | (u0 > umax) | (v0 > vmax));
  const vd texel = pcz / c.fx;
  const vm has_n = (NX * NX + NY * NY + NZ * NZ) > zero;
  const vd cs0 = NX * to_light.x + NY * to_light.y + NZ * to_light.z;
  const vd lo = {1e-3, 1e-3, 1e-3, 1e-3}, ten = {10, 10, 10, 10};
  const vd cs = cs0 < lo ? lo : (one < cs0 ? one : cs0);  // std::clamp
  vd root = one - cs * cs;
  for (int l = 0; l < 4; ++l) root[l] = std::sqrt(root[l]);
  const vd q = root / cs;
  const vd tan_t = has_n ? (q < ten ? q : ten) : zero;  // std::min(10.0, q)
  const vd off = p.normal_offset * texel;
  const vd rx = R[0] * NX + R[1] * NY + R[2] * NZ, ry = R[3] * NX + R[4] * NY + R[5] * NZ,
           rz = R[6] * NX + R[7] * NY + R[8] * NZ;
  const vd qx = has_n ? pcx + off * rx : pcx, qy = has_n ? pcy + off * ry : pcy, qz = has_n ? pcz + off * rz : pcz;
  const vd iz = one / qz;
  const vd u = c.fx * qx * iz + c.cx, v = c.fy * qy * iz + c.cy;
  const vd z = qz - (p.constant_bias + p.slope_bias * tan_t) * texel;
  for (int l = 0; l < 4; ++l) {
    u_out[l] = u[l];
    v_out[l] = v[l];
    z_out[l] = z[l];
    ok[l] = inside[l];
  }
}

}  // namespace

void shadow_visibility_batch(const ShadowMap& m, const Light& light, const Vec3d* x, const Vec3d* n, int count,
                             double* out) {
  if (m.views.faces.size() != 1 || light.type != LightType::Sun) {
    for (int i = 0; i < count; ++i) out[i] = shadow_visibility(m, light, x[i], n[i]);
    return;
  }
  const Camera& c = m.views.faces[0];
  const double g = m.views.guard_px;
  for (int b = 0; b < count; b += 4) {
    const int k = std::min(4, count - b);
    Vec3d xs[4], ns[4];
    for (int l = 0; l < 4; ++l) {  // a last group of fewer points repeats its first
      xs[l] = x[b + (l < k ? l : 0)];
      ns[l] = n[b + (l < k ? l : 0)];
    }
    double u[4], v[4], z[4];
    long long ok[4];
    sun_lookup4(c, g, m.params, light.direction, xs, ns, u, v, z, ok);
    pcf4(m.depth[0], u, v, z, ok, m.params.pcf_kernel, k, out + b);
  }
}

double shadow_visibility(const ShadowMap& m, const Light& light, Vec3d x, Vec3d n) {
  const ShadowLookup L = m.views.faces.size() == 1 ? single_face_lookup(m.views, light, x, n, m.params)
                                                   : shadow_lookup(m.views, light, x, n, m.params);
  if (L.face < 0) return 1;
  return depth_pcf(m.depth[L.face], L.u, L.v, L.z, m.params.pcf_kernel);
}

ImageF shadow_visibility_image(const ShadowMap& m, const Light& light, const ImageF& pos, const ImageF& nrm) {
  return map_surface_pixels(pos, nrm, "shadow visibility",
                            [&](Vec3d x, Vec3d n) { return shadow_visibility(m, light, x, n); });
}

ImageF shadow_visibility_image(const ShadowMap& m, const Light& light, const SurfaceInterpolationPlan& plan,
                               int width, int height) {
  ImageF out(width, height, 1, 1.f);
  using Point = SurfaceInterpolationPlan::Point;
  const ImageF &pos = plan.positions(), &nrm = plan.normals();
  const bool sun = light.type == LightType::Sun;
  auto faces_away = [&](long i) {
    const Vec3f nf = load3(nrm.data.data(), i);
    Vec3d l = light.direction;
    if (!sun) {
      const Vec3f x = load3(pos.data.data(), i);
      l = light.position - Vec3d{x.x, x.y, x.z};
    }
    return !(nf.x * l.x + nf.y * l.y + nf.z * l.z > 0);
  };
  plan.run_batched({{&out, false}}, [&](const Point* pts, int count) {
    Vec3d xs[SurfaceInterpolationPlan::kBatch], ns[SurfaceInterpolationPlan::kBatch];
    double vis[SurfaceInterpolationPlan::kBatch];
    for (int k = 0; k < count; ++k) {
      xs[k] = pts[k].x;
      ns[k] = pts[k].n;
    }
    shadow_visibility_batch(m, light, xs, ns, count, vis);
    for (int k = 0; k < count; ++k) out.data[static_cast<std::size_t>(pts[k].i)] = static_cast<float>(vis[k]);
  }, faces_away);
  return out;
}

}  // namespace glint
