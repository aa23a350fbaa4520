#include "glint/light/ambient_occlusion.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "glint/core/error.h"
#include "glint/light/surface_map.h"
#include "glint/light/color.h"
#include "glint/light/environment_light.h"

namespace glint {

std::vector<Vec3d> fibonacci_directions(int count, bool hemi, Vec3d up) {
  if (count < 1) throw Error("AO: direction count must be >= 1");
  up = normalize(up);
  // Frame with `up` as the lattice's z axis.
  const Vec3d a = std::abs(up.x) < 0.9 ? Vec3d{1, 0, 0} : Vec3d{0, 1, 0};
  const Vec3d ex = normalize(cross(a, up)), ey = cross(up, ex);
  const int n = hemi ? 2 * count : count;
  const double golden = std::numbers::pi * (3 - std::sqrt(5.0));
  std::vector<Vec3d> out;
  for (int i = 0; i < n && static_cast<int>(out.size()) < count; ++i) {
    const double z = 1 - (2 * i + 1.0) / n;  // from the top down: the upper half comes first
    if (hemi && z < 0) break;
    const double r = std::sqrt(std::max(0.0, 1 - z * z)), phi = golden * i;
    out.push_back(r * std::cos(phi) * ex + r * std::sin(phi) * ey + z * up);
  }
  return out;
}

AoMaps render_ao_maps(Backend& backend, const GaussianModel& model, const SceneBounds& bounds, const AoParams& p) {
  AoMaps ao;
  ShadowMapParams sp;
  sp.resolution = p.resolution;
  sp.pcf_kernel = p.pcf_kernel;
  sp.constant_bias = p.constant_bias;
  sp.slope_bias = p.slope_bias;
  sp.normal_offset = p.normal_offset;
  sp.depth = p.depth;
  for (const Vec3d& d : fibonacci_directions(p.directions, p.hemisphere_only, p.up)) ao.directions.push_back(Light::sun(d, 1));
  ao.maps = render_shadow_maps(backend, model, ao.directions, bounds, sp);
  return ao;
}

namespace {

// Residuals gathered per pass over the directions (more take further passes).
constexpr std::size_t kMaxResiduals = 4;

// AO at x, and the residual sums of each environment of `env` (n_env of them) into sums.
double ao_with_residuals(const AoMaps& m, Vec3d x, Vec3d n, const EnvLighting* const* env, std::size_t n_env,
                         ResidualSums* sums) {
  double sv = 0, sw = 0;
  for (std::size_t k = 0; k < m.maps.size(); ++k) {
    const double w = dot(n, m.directions[k].direction);
    if (w <= 0) continue;
    sw += w;
    const double v = shadow_visibility(m.maps[k], m.directions[k], x, n);
    sv += w * v;
    for (std::size_t e = 0; e < n_env; ++e)
      if (const Vec3d we = ResidualSums::weight(*env[e], k, w); !ResidualSums::is_zero(we)) sums[e].add(we, v);
  }
  return sw > 0 ? sv / sw : 1.0;
}

}  // namespace

double ambient_occlusion(const AoMaps& m, Vec3d x, Vec3d n) { return ao_with_residuals(m, x, n, nullptr, 0, nullptr); }

ImageF ambient_occlusion_image(const AoMaps& m, const ImageF& pos, const ImageF& nrm) {
  return ambient_occlusion_and_residuals(m, {}, pos, nrm).ao;
}

AoAndResiduals ambient_occlusion_and_residuals(const AoMaps& m, const std::vector<const EnvLighting*>& env,
                                               const ImageF& pos, const ImageF& nrm) {
  return ambient_occlusion_and_residuals(m, env, SurfaceInterpolationPlan(pos, nrm, ImageF(), {}, "AO"), pos.width,
                                         pos.height);
}

AoAndResiduals ambient_occlusion_and_residuals(const AoMaps& m, const std::vector<const EnvLighting*>& env,
                                               const SurfaceInterpolationPlan& plan, int width, int height) {
  for (const EnvLighting* e : env)
    if (e->residual_weights.size() != m.maps.size())
      throw Error("environment residual: " + std::to_string(m.maps.size()) + " AO maps for " +
                  std::to_string(e->residual_weights.size()) + " residual directions");
  AoAndResiduals out;
  out.ao = ImageF(width, height, 1, 1.f);
  for (std::size_t e = 0; e < env.size(); ++e) out.residual_irradiance.emplace_back(width, height, 3, 0.f);
  // ao_with_residuals for a batch of pixels, the maps in the outer loop: 64 maps do not
  // fit a core's cache, one map's texels under a batch of neighbouring pixels do. Each
  // pixel still adds its directions in their order, so the sums are the same.
  using Point = SurfaceInterpolationPlan::Point;
  auto evaluate = [&](const Point* pts, int count) {
    std::vector<double> sv(static_cast<std::size_t>(count)), sw(static_cast<std::size_t>(count));
    std::vector<ResidualSums> sums(static_cast<std::size_t>(count) * kMaxResiduals);
    std::vector<int> which(static_cast<std::size_t>(count));
    std::vector<double> ws(static_cast<std::size_t>(count)), vis(static_cast<std::size_t>(count));
    std::vector<Vec3d> xs(static_cast<std::size_t>(count)), ns(static_cast<std::size_t>(count));
    std::size_t e0 = 0;
    do {  // once without residuals; with many, a pass per kMaxResiduals of them
      const std::size_t ne = std::min(kMaxResiduals, env.size() - e0);
      std::fill(sv.begin(), sv.end(), 0.0);
      std::fill(sw.begin(), sw.end(), 0.0);
      std::fill(sums.begin(), sums.end(), ResidualSums{});
      for (std::size_t k = 0; k < m.maps.size(); ++k) {
        // The batch's pixels facing direction k, looked up together.
        int facing = 0;
        for (int p = 0; p < count; ++p) {
          const double w = dot(pts[p].n, m.directions[k].direction);
          if (w <= 0) continue;
          which[facing] = p;
          ws[facing] = w;
          xs[facing] = pts[p].x;
          ns[facing] = pts[p].n;
          ++facing;
        }
        shadow_visibility_batch(m.maps[k], m.directions[k], xs.data(), ns.data(), facing, vis.data());
        for (int f = 0; f < facing; ++f) {
          const int p = which[f];
          const double w = ws[f], v = vis[f];
          sw[p] += w;
          sv[p] += w * v;
          ResidualSums* s = sums.data() + static_cast<std::size_t>(p) * kMaxResiduals;
          for (std::size_t e = 0; e < ne; ++e)
            if (const Vec3d we = ResidualSums::weight(*env[e0 + e], k, w); !ResidualSums::is_zero(we)) s[e].add(we, v);
        }
      }
      for (int p = 0; p < count; ++p) {
        const long i = pts[p].i;
        out.ao.data[static_cast<std::size_t>(i)] = static_cast<float>(sw[p] > 0 ? sv[p] / sw[p] : 1.0);
        for (std::size_t e = 0; e < ne; ++e)
          store3(out.residual_irradiance[e0 + e].data.data(), i,
                 sums[static_cast<std::size_t>(p) * kMaxResiduals + e].visibility());
      }
      e0 += ne;
    } while (e0 < env.size());
  };
  // The residuals' images hold their weighted visibility while the plan runs, a value in
  // [0,1] interpolated like the AO: the irradiance E_res(n) varies with the normal as well,
  // so between neighbours of different normals it would rarely agree, and an interpolated
  // pixel takes E_res of its own normal. Then every surface pixel's E_res(n) times it.
  std::vector<InterpolatedOutput> outputs{{&out.ao, false}};
  for (ImageF& E : out.residual_irradiance) outputs.push_back({&E, false});
  plan.run_batched(outputs, evaluate);
  if (env.empty()) return out;
  const ImageF& nrm = plan.normals();
  const long np = static_cast<long>(width) * height;
#pragma omp parallel for schedule(static)
  for (long i = 0; i < np; ++i) {
    const Vec3f nf = load3(nrm.data.data(), i);
    if (!(nf.x * nf.x + nf.y * nf.y + nf.z * nf.z > 0)) continue;
    const Vec3d n = normalize(Vec3d{nf.x, nf.y, nf.z});
    for (std::size_t e = 0; e < env.size(); ++e) {
      float* v = out.residual_irradiance[e].data.data();
      const Vec3d E = env[e]->residual_irradiance(n, load3(v, i));
      store3(v, i, Vec3f{static_cast<float>(E.x), static_cast<float>(E.y), static_cast<float>(E.z)});
    }
  }
  return out;
}

ImageF delight(const ImageF& cap, const ImageF& ao, float min_ao) {
  if (ao.channels != 1 || ao.width != cap.width || ao.height != cap.height)
    throw Error("delight: AO must be [H,W,1] of the capture's size");
  // Every value is written below, on every thread: no copy of the capture first.
  ImageF out = ImageF::uninitialized(cap.width, cap.height, cap.channels);
  const int cc = colour_channels(cap.channels);
  const long n = static_cast<long>(cap.width) * cap.height;
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) {
    const float a = std::max(ao.data[i], min_ao);
    for (int c = 0; c < cap.channels; ++c) {
      const float v = cap.data[i * cap.channels + c];
      out.data[i * cap.channels + c] = c < cc ? std::clamp(v / a, 0.f, 1.f) : v;
    }
  }
  return out;
}

}  // namespace glint
