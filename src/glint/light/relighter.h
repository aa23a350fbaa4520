#pragma once
// Relighting a trained scene from camera views: per view, the splats give capture colour,
// coverage, depth and normals; per light, shadow maps (or transmittance maps) rendered from
// the light give visibility; de-lighting divides the capture by the splats' own ambient
// occlusion to recover albedo; shade() combines them in linear colour.
#include <memory>
#include <string>
#include <vector>

#include "glint/backend/backend.h"
#include "glint/core/camera.h"
#include "glint/light/ambient_occlusion.h"
#include "glint/light/depth_filter.h"
#include "glint/light/environment_light.h"
#include "glint/light/fringe_fill.h"
#include "glint/light/lights.h"
#include "glint/light/normal_filter.h"
#include "glint/light/normal_plane_fit.h"
#include "glint/light/shadow_map.h"
#include "glint/light/transmittance_shadow.h"

namespace glint {

enum class ShadowMode { kNone, kPcf, kTransmittance };
// kFit: planes fitted to the view's positions, guided by the splat normals
// (light/normal_plane_fit.h); kSplats: the blended splat normals; kDepth: normals of the
// filtered depth; both of the last smoothed by normal_filter.
enum class NormalSource { kFit, kSplats, kDepth };
// kFit: the positions the planes are fitted to. kPlanar: the planar depth's
// (light/plane_depth.h), on the splats' own planes; kExpected: the expected depth's (the
// blended centre depths). Shading and shadow lookups use the surface depth either way
// (RelightOptions::mixed_depth).
enum class FitDepth { kPlanar, kExpected };

struct RelightOptions {
  // The lamps' shadow maps of expected depth, as glint view's page renders them: with the
  // 2D filter's models they score up to 0.34 dB over median-depth maps. The AO maps and an
  // environment's suns keep the median depth (AoParams, EnvLightParams): within 0.04 dB
  // of expected depth there (the suns' 0.07 dB better), and a texel stops blending at its
  // median, which makes those 80 maps cheaper (docs/LIGHTING.md).
  RelightOptions() { shadow_map.depth = ShadowDepth::Expected; }
  // One depth for every kind of map: the lamps', the AO maps and an environment's suns'
  // (glint relight --shadow-depth; glint view's page has them all of expected depth).
  void set_map_depth(ShadowDepth d) { shadow_map.depth = ao.depth = environment.sun_shadow_depth = d; }
  ShadowMode shadows = ShadowMode::kPcf;
  bool delight = true;              // divide the capture by the splats' ambient occlusion
  NormalSource normals = NormalSource::kFit;
  bool filter_depth = true;         // joint bilateral filter before normals from depth
  DepthFilterParams depth_filter;
  NormalFilterParams normal_filter;  // kSplats, kDepth: smoothing of the shading normals; sigma 0 = off
  PlaneFitParams plane_fit;          // kFit
  FitDepth fit_depth = FitDepth::kPlanar;  // kFit
  ShadowMapParams shadow_map;
  TransmittanceParams transmittance;
  AoParams ao;
  // AO and the visibility of an environment's suns at a quarter of the pixels where they
  // vary slowly (light/surface_interpolation.h); enabled = false evaluates every pixel.
  SurfaceInterpolation interpolation{true};
  EnvLightParams environment;       // how environment lights are split into suns + residual
  float alpha_threshold = 0.5f;     // pixels below carry no surface for geometry
  // A pixel's surface point is at its expected depth, except where that is further than
  // this fraction of the depth from its median depth: there the pixel blends a near and a
  // far surface (a silhouette), and the expected depth lies between them, in the air, where
  // shadow and AO lookups see neither; the median depth is on the surface that covers the
  // pixel first. Elsewhere the expected depth is kept: smooth, where the median steps from
  // splat to splat. 0: the expected depth everywhere.
  float mixed_depth = 0.005f;
  // Silhouette pixels below alpha_threshold shaded with a neighbour's geometry
  // (light/fringe_fill.h); radius 0: they get the ambient light only.
  FringeFillParams fringe;
};

// What a camera view contributes, independent of the lights.
struct ViewGeometry {
  ImageF capture_linear;  // [H,W,3] straight (un-premultiplied) colour, linear
  ImageF alpha;           // [H,W,1]
  ImageF depth;           // [H,W,1] z-depth of the surface (RelightOptions::mixed_depth), 0 = none
  ImageF position;        // [H,W,3] world
  ImageF normal;          // [H,W,3] world, unit, 0 where no surface
  ImageF ao;              // [H,W,1] (1 when de-lighting is off)
  ImageF albedo;          // [H,W,3] linear
  // Per environment light announced by expect_setups: [H,W,3] residual irradiance with the
  // AO maps' visibility, gathered in the AO pass; empty when not gathered there.
  std::vector<ImageF> env_residual;
};

class Relighter {
 public:
  Relighter(const GaussianModel& model, Backend& backend, const RelightOptions& options);

  // The setups the views will be shaded under, announced before prepare(): their
  // environment lights are split once here, and each view's AO pass also gathers their
  // residual irradiance from the same lookups. Optional; without it set_setup splits them.
  void expect_setups(const std::vector<LightSetup>& setups);

  ViewGeometry prepare(const Camera& camera) const;

  // Renders the visibility maps of every light of `setup` (kept until the next call).
  // Environment lights are expanded into suns (each with its own map) and a residual whose
  // visibility comes from the ambient-occlusion maps (rendered here when de-lighting is off).
  void set_setup(const LightSetup& setup);
  // The setup as shaded: environment lights replaced by their suns.
  const LightSetup& shaded_setup() const { return setup_; }

  // Linear radiance of a prepared view under the current setup.
  ImageF relight(const ViewGeometry& view) const;

  // RGBA 8-bit, sRGB-encoded straight colour and coverage: the relight dataset's layout.
  static Image8 encode(const ImageF& linear, const ImageF& alpha);

 private:
  const GaussianModel& model_;
  Backend& backend_;
  RelightOptions options_;
  SceneBounds bounds_;
  std::unique_ptr<AoMaps> ao_maps_;
  LightSetup setup_;
  std::vector<Vec3d> ao_directions() const;
  // Environment lights split by expect_setups, by map and colour.
  struct AnnouncedEnvironment {
    const EnvironmentMap* map;
    Vec3d color;
    EnvLighting lighting;
  };
  static bool is_same_environment(const AnnouncedEnvironment& a, const Light& l);
  std::vector<AnnouncedEnvironment> announced_;
  std::vector<EnvLighting> env_residuals_;
  std::vector<int> env_announced_;  // per residual: its index in announced_, or -1
  std::vector<char> env_sun_;  // per light of setup_: a sun split from an environment
  std::vector<ShadowMap> shadow_maps_;
  std::vector<TransmittanceMap> transmittance_maps_;
};

// Bounds of the splats that matter for shadows: the sphere around the mean centre that
// holds 99% of the splats, ignoring the few floaters far away.
SceneBounds robust_bounds(const GaussianModel& model);

}  // namespace glint
