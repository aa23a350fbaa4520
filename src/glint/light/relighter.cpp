#include "glint/light/relighter.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

#include "glint/io/image_ops.h"
#include "glint/light/color.h"
#include "glint/light/geometry.h"
#include "glint/light/plane_depth.h"
#include "glint/light/shade.h"

namespace glint {

SceneBounds robust_bounds(const GaussianModel& model) {
  SceneBounds b = bounds_of_points(model.means);
  const std::size_t n = model.size();
  if (n < 100) return b;
  std::vector<double> d(n);
  for (std::size_t i = 0; i < n; ++i) d[i] = norm(Vec3d{model.means[3 * i], model.means[3 * i + 1], model.means[3 * i + 2]} - b.center);
  std::size_t k = static_cast<std::size_t>(0.99 * static_cast<double>(n));
  std::nth_element(d.begin(), d.begin() + static_cast<long>(k), d.end());
  b.radius = std::min(b.radius, 1.05 * d[k]);
  return b;
}

Relighter::Relighter(const GaussianModel& model, Backend& backend, const RelightOptions& options)
    : model_(model), backend_(backend), options_(options), bounds_(robust_bounds(model)) {
  if (options_.delight) ao_maps_ = std::make_unique<AoMaps>(render_ao_maps(backend_, model_, bounds_, options_.ao));
}

ViewGeometry Relighter::prepare(const Camera& camera) const {
  RenderSettings rs;  // black background: rgb is then colour premultiplied by coverage
  rs.for_backward = false;  // rendered, never differentiated
  rs.want_alpha = true;
  rs.want_depth = true;
  rs.want_median_depth = options_.mixed_depth > 0;
  rs.want_normal = options_.normals != NormalSource::kDepth;
  RenderOutput out = backend_.forward(model_, camera, rs);
  const int w = camera.width, h = camera.height;
  const std::size_t np = static_cast<std::size_t>(w) * h;

  // The forward's state goes back to the backend now, so that the planar depth's forward
  // below reuses its buffers; and the view's images are moved or converted in place rather
  // than copied: much of a one-view relight is otherwise the first touch of fresh pages,
  // which virtual machines can make expensive.
  out.saved.reset();
  ViewGeometry g;
  g.depth = std::move(out.depth);
  // Per-pixel loops over the whole view run on every thread: the rest of the view's work
  // does, and a serial loop leaves the others waiting.
#pragma omp parallel for schedule(static)
  for (std::size_t p = 0; p < np; ++p)
    if (out.alpha.data[p] < options_.alpha_threshold) {
      g.depth.data[p] = 0.f;
    } else if (options_.mixed_depth > 0) {
      const float median = out.median_depth.data[p];
      if (median > 0 && std::fabs(g.depth.data[p] - median) > options_.mixed_depth * median) g.depth.data[p] = median;
    }
  out.median_depth = ImageF();
  if (options_.normals == NormalSource::kDepth) {
    ImageF depth = options_.filter_depth ? joint_bilateral_depth(g.depth, out.rgb, &out.alpha, options_.depth_filter) : g.depth;
    g.normal = world_normals_from_depth(camera, depth, &out.alpha, options_.alpha_threshold);
  }
  g.capture_linear = std::move(out.rgb);  // premultiplied sRGB in, straight linear out
#pragma omp parallel for schedule(static)
  for (std::size_t p = 0; p < np; ++p) {
    const float a = out.alpha.data[p];
    for (int c = 0; c < 3; ++c) {
      float& v = g.capture_linear.data[p * 3 + c];
      v = srgb_to_linear(a > 1e-4f ? std::clamp(v / a, 0.f, 1.f) : 0.f);
    }
  }
  g.position = world_positions_from_depth(camera, g.depth);
  // The planar depth reads the blended normals as rendered, before they are normalised.
  std::optional<PlaneDepth> pd;
  if (options_.normals == NormalSource::kFit && options_.fit_depth == FitDepth::kPlanar)
    pd = render_plane_depth(model_, backend_, camera, options_.alpha_threshold, &out.alpha, &out.normal);
  g.alpha = std::move(out.alpha);
  if (options_.normals != NormalSource::kDepth) {
    g.normal = std::move(out.normal);
    const Vec3d eye = camera.center();
#pragma omp parallel for schedule(static)
    for (std::size_t p = 0; p < np; ++p) {
      float* np3 = &g.normal.data[p * 3];
      Vec3d n{np3[0], np3[1], np3[2]};
      const double len = norm(n);
      if (g.depth.data[p] <= 0 || len < 1e-8) {
        np3[0] = np3[1] = np3[2] = 0.f;
        continue;
      }
      n = (1.0 / len) * n;
      Vec3d x{g.position.data[p * 3], g.position.data[p * 3 + 1], g.position.data[p * 3 + 2]};
      if (dot(n, eye - x) < 0) n = -n;  // blended normals may lean away where splats disagree
      for (int c = 0; c < 3; ++c) np3[c] = static_cast<float>((&n.x)[c]);
    }
  }
  if (pd) {
    // Where no blended plane faces the ray the pixel keeps the expected depth's position.
#pragma omp parallel for schedule(static)
    for (std::size_t p = 0; p < np; ++p)
      if (g.depth.data[p] <= 0) {
        pd->depth.data[p] = 0.f;
      } else if (pd->depth.data[p] <= 0) {
        pd->depth.data[p] = g.depth.data[p];
        for (std::size_t c = 0; c < 3; ++c) pd->position.data[3 * p + c] = g.position.data[3 * p + c];
      }
    g.normal = fit_plane_normals(g.normal, pd->depth, pd->position, options_.plane_fit);
  } else if (options_.normals == NormalSource::kFit) {
    g.normal = fit_plane_normals(g.normal, g.depth, g.position, options_.plane_fit);
  } else if (options_.normal_filter.sigma_spatial_px > 0) {
    g.normal = smooth_normals(g.normal, g.depth, options_.normal_filter);
  }
  if (options_.fringe.radius_px > 0) fill_fringe_geometry(g.alpha, g.depth, g.position, g.normal, options_.fringe);
  if (options_.delight && ao_maps_) {
    // The residuals' visibility is the AO maps' only when shadows are on (relight()).
    std::vector<const EnvLighting*> env;
    if (options_.shadows != ShadowMode::kNone)
      for (const AnnouncedEnvironment& a : announced_) env.push_back(&a.lighting);
    const SurfaceInterpolationPlan plan(g.position, g.normal, g.depth, options_.interpolation, "AO");
    AoAndResiduals ar = ambient_occlusion_and_residuals(*ao_maps_, env, plan, w, h);
    g.ao = std::move(ar.ao);
    g.env_residual = std::move(ar.residual_irradiance);
    g.albedo = delight(g.capture_linear, g.ao);
  } else {
    g.ao = ImageF(w, h, 1, 1.f);
    g.albedo = g.capture_linear;
  }
  return g;
}

bool Relighter::is_same_environment(const AnnouncedEnvironment& a, const Light& l) {
  return a.map == l.environment.get() && a.color.x == l.color.x && a.color.y == l.color.y && a.color.z == l.color.z;
}

std::vector<Vec3d> Relighter::ao_directions() const {
  if (!ao_maps_) return fibonacci_directions(options_.ao.directions, options_.ao.hemisphere_only, options_.ao.up);
  std::vector<Vec3d> d;
  for (const Light& l : ao_maps_->directions) d.push_back(l.direction);
  return d;
}

void Relighter::expect_setups(const std::vector<LightSetup>& setups) {
  announced_.clear();
  const std::vector<Vec3d> dirs = ao_directions();
  for (const LightSetup& s : setups)
    for (const Light& l : s.lights) {
      if (l.type != LightType::Environment) continue;
      const bool known = std::any_of(announced_.begin(), announced_.end(), [&](const AnnouncedEnvironment& a) {
        return is_same_environment(a, l);
      });
      if (!known) announced_.push_back({l.environment.get(), l.color, tinted_environment(l, dirs, options_.environment)});
    }
}

void Relighter::set_setup(const LightSetup& setup) {
  shadow_maps_.clear();
  transmittance_maps_.clear();
  env_residuals_.clear();
  env_announced_.clear();
  const bool has_env = std::any_of(setup.lights.begin(), setup.lights.end(),
                                   [](const Light& l) { return l.type == LightType::Environment; });
  if (has_env && !ao_maps_ && options_.shadows != ShadowMode::kNone)
    ao_maps_ = std::make_unique<AoMaps>(render_ao_maps(backend_, model_, bounds_, options_.ao));
  setup_ = setup;
  setup_.lights.clear();
  std::vector<char>& env_sun = env_sun_;
  env_sun.clear();
  for (const Light& l : setup.lights) {
    if (l.type != LightType::Environment) {
      setup_.lights.push_back(l);
      env_sun.push_back(0);
      continue;
    }
    int j = -1;
    for (std::size_t a = 0; a < announced_.size(); ++a)
      if (is_same_environment(announced_[a], l)) j = static_cast<int>(a);
    env_residuals_.push_back(j >= 0 ? announced_[static_cast<std::size_t>(j)].lighting
                                    : tinted_environment(l, ao_directions(), options_.environment));
    env_announced_.push_back(j);
    for (const Light& sun : env_residuals_.back().suns) {
      setup_.lights.push_back(sun);
      env_sun.push_back(1);
    }
  }
  const int sun_res = options_.environment.sun_shadow_resolution;
  if (options_.shadows == ShadowMode::kPcf) {
    std::vector<ShadowMapParams> params(setup_.lights.size(), options_.shadow_map);
    for (std::size_t i = 0; i < params.size(); ++i)
      if (env_sun[i]) {
        params[i].resolution = sun_res;
        params[i].depth = options_.environment.sun_shadow_depth;
      }
    shadow_maps_ = render_shadow_maps(backend_, model_, setup_.lights, bounds_, params);
  } else if (options_.shadows == ShadowMode::kTransmittance) {
    for (std::size_t i = 0; i < setup_.lights.size(); ++i) {
      TransmittanceParams tp = options_.transmittance;
      if (env_sun[i]) tp.resolution = sun_res;
      transmittance_maps_.push_back(render_transmittance_map(backend_, model_, setup_.lights[i], bounds_, tp));
    }
  }
}

ImageF Relighter::relight(const ViewGeometry& g) const {
  // The lamps' visibility images go to shade() one per lamp; an environment's residual
  // irradiance is the irradiance image, and its suns are added to it as each one's
  // visibility is made, so that sixteen suns hold one visibility image at a time.
  // Without shadows every light is visible, the environment's residual included.
  const AoMaps* res_vis = options_.shadows == ShadowMode::kNone ? nullptr : ao_maps_.get();
  ImageF env_E;
  for (std::size_t r = 0; r < env_residuals_.size(); ++r) {
    const int j = env_announced_[r];
    const bool gathered = res_vis && j >= 0 && static_cast<std::size_t>(j) < g.env_residual.size();
    ImageF E = gathered ? g.env_residual[static_cast<std::size_t>(j)]
                        : env_residual_irradiance_image(env_residuals_[r], res_vis, g.position, g.normal);
    if (env_E.data.empty()) env_E = std::move(E);
    else
      for (std::size_t i = 0; i < E.data.size(); ++i) env_E.data[i] += E.data[i];
  }
  LightSetup lamps = setup_;
  lamps.lights.clear();
  std::vector<ImageF> vis;
  // A lamp's shadow can hold features thinner than the two pixels between evaluated ones;
  // an environment's suns are soft (EnvLightParams::sun_shadow_resolution).
  const int w = g.position.width, h = g.position.height;
  std::optional<SurfaceInterpolationPlan> every, soft;
  for (std::size_t i = 0; i < setup_.lights.size(); ++i) {
    const Light& light = setup_.lights[i];
    ImageF v;
    if (options_.shadows != ShadowMode::kNone) {
      std::optional<SurfaceInterpolationPlan>& p = env_sun_[i] ? soft : every;
      if (!p) p.emplace(g.position, g.normal, g.depth, env_sun_[i] ? options_.interpolation : SurfaceInterpolation{},
                        "shadow visibility");
      v = options_.shadows == ShadowMode::kPcf ? shadow_visibility_image(shadow_maps_[i], light, *p, w, h)
                                               : transmittance_visibility_image(transmittance_maps_[i], light, *p, w, h);
    }
    if (env_sun_[i]) {
      add_irradiance(light, v.data.empty() ? nullptr : &v, g.position, g.normal, env_E);
    } else {
      lamps.lights.push_back(light);
      if (!v.data.empty()) vis.push_back(std::move(v));
    }
  }
  ShadeInputs in;
  in.albedo = &g.albedo;
  in.normal = &g.normal;
  in.position = &g.position;
  for (const ImageF& v : vis) in.visibility.push_back(&v);
  in.ambient_albedo = &g.capture_linear;
  if (!env_E.data.empty()) in.irradiance = &env_E;
  return shade(lamps, in);
}

Image8 Relighter::encode(const ImageF& linear, const ImageF& alpha) {
  // Linear RGB + coverage as one RGBA image; the sRGB curve leaves the alpha channel alone.
  // linear_to_srgb and to_image8 of the RGBA image fused into one loop on every thread
  // (to_image8's is serial), with its rounding (to_byte).
  Image8 out;
  out.width = linear.width;
  out.height = linear.height;
  out.channels = 4;
  const std::size_t np = static_cast<std::size_t>(linear.width) * linear.height;
  out.data.resize(np * 4);
#pragma omp parallel for schedule(static)
  for (std::size_t p = 0; p < np; ++p) {
    for (int c = 0; c < 3; ++c) out.data[p * 4 + c] = to_byte(linear_to_srgb(linear.data[p * 3 + c]));
    out.data[p * 4 + 3] = to_byte(alpha.data[p]);
  }
  return out;
}

}  // namespace glint
