#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>

#include "glint/backend/backend.h"
#include "glint/cli/backend_flag.h"
#include "glint/cli/camera_source.h"
#include "glint/cli/relight_run.h"
#include "glint/cli/commands.h"
#include "glint/cli/output_dir.h"
#include "glint/cli/progress.h"
#include "glint/core/error.h"
#include "glint/io/atomic_file.h"
#include "glint/io/image_io.h"
#include "glint/io/model_file.h"
#include "glint/io/pfm.h"
#include "glint/light/relight_score.h"
#include "glint/light/relighter.h"

namespace glint::cli {

namespace fs = std::filesystem;

namespace {

// Mean normal angle error of the prepared views against the relight dataset's gt/.
void print_normal_error(const std::string& gt_root, const std::vector<ViewGeometry>& views,
                        const std::vector<std::size_t>& index) {
  double sum = 0;
  long pixels = 0;
  for (std::size_t v = 0; v < views.size(); ++v) {
    const std::string i = std::to_string(index[v]);
    std::string normal = gt_root + "/gt/normal_" + i + ".pfm", mask = gt_root + "/gt/mask_" + i + ".png";
    if (!fs::exists(normal) || !fs::exists(mask)) throw Error(normal, "ground-truth normals not found (--score expects the relight dataset root)");
    NormalError e = normal_angle_error(views[v].normal, read_pfm(normal), read_image(mask));
    std::printf("normal error  view %-3s %6.2f deg mean, %6.2f median over %ld px (%ld missing)\n", i.c_str(),
                e.mean_deg, e.median_deg, e.pixels, e.missing);
    sum += e.mean_deg * static_cast<double>(e.pixels);
    pixels += e.pixels;
  }
  if (pixels > 0) std::printf("normal error  mean %.2f deg over %ld covered pixels away from edges\n", sum / pixels, pixels);
}

}  // namespace

void add_relight(CLI::App& app) {
  auto a = std::make_shared<RelightArgs>();
  auto* sub = app.add_subcommand("relight", "Render a splat scene under new lights, with shadows");
  sub->add_option("model", a->model, "Splat file (.ply / .splat / .spz)")->required();
  sub->add_option("--cameras", a->cameras, "Dataset folder, transforms .json or cameras.json")->required();
  sub->add_option("--lights", a->lights,
                  "Light files or folders of them (docs/LIGHTING.md; the relight dataset's relit/ folder or its "
                  "lights.json / lights_extra.json work)")
      ->required()
      ->expected(1, -1);
  sub->add_option("-o,--output", a->out, "Output folder: <output>/<setup>/r_<i>.png")->required();
  sub->add_option("--split", a->split, "Dataset split whose cameras to render")->check(CLI::IsMember({"train", "test", "all"}));
  std::map<std::string, ShadowMode> shadow_modes{
      {"none", ShadowMode::kNone}, {"pcf", ShadowMode::kPcf}, {"transmittance", ShadowMode::kTransmittance}};
  sub->add_option("--shadows", a->opt.shadows, "none, pcf (shadow maps) or transmittance (soft, through the splats)")
      ->transform(CLI::CheckedTransformer(shadow_modes, CLI::ignore_case));
  std::map<std::string, NormalSource> normal_modes{
      {"fit", NormalSource::kFit}, {"splats", NormalSource::kSplats}, {"depth", NormalSource::kDepth}};
  sub->add_option("--normals", a->opt.normals,
                  "Shading normals: fit (planes fitted to the view's positions, guided by the splat normals; default), "
                  "splats (blended splat normals, smoothed by --normal-smooth) or depth (from filtered depth)")
      ->transform(CLI::CheckedTransformer(normal_modes, CLI::ignore_case));
  sub->add_flag("!--no-delight", a->opt.delight, "Keep the capture's ambient occlusion in the albedo");
  sub->add_flag("--antialiased", a->antialiased, "Mip-Splatting 2D filter (on by itself for a model whose file says it was trained with it)");
  sub->add_option("--shadow-res", a->opt.shadow_map.resolution,
                  "Shadow map resolution of the lamps (texels a side; an environment light's suns: --env-shadow-res)")
      ->check(CLI::Range(16, 8192));
  std::map<std::string, ShadowDepth> depth_kinds{{"median", ShadowDepth::Median}, {"expected", ShadowDepth::Expected}};
  CLI::Option* shadow_depth = sub->add_option("--shadow-depth", a->opt.shadow_map.depth,
                  "What a shadow-map texel holds: expected (alpha-normalised) or median (where transmittance falls below "
                  "0.5) depth. Default: expected for the lamps, median for the ambient-occlusion maps and an environment's "
                  "suns; given, it sets every map (expected: the definition glint view's page renders)")
      ->transform(CLI::CheckedTransformer(depth_kinds, CLI::ignore_case));
  sub->add_option("--pcf", a->opt.shadow_map.pcf_kernel, "PCF kernel width in texels (odd)")->check(CLI::Range(1, 15));
  CLI::Option* smooth = sub->add_option("--normal-smooth", a->opt.normal_filter.sigma_spatial_px,
                  "--normals splats or depth: edge-aware smoothing of the shading normals, Gaussian sigma in pixels (0 = off)")
      ->check(CLI::Range(0.0, 20.0));
  CLI::Option* fit_px = sub->add_option("--normal-fit-px", a->opt.plane_fit.sigma_spatial_px,
                  "--normals fit: Gaussian sigma in pixels of the window a plane is fitted over")
      ->check(CLI::Range(0.5, 20.0));
  std::map<std::string, FitDepth> fit_depths{{"planar", FitDepth::kPlanar}, {"expected", FitDepth::kExpected}};
  CLI::Option* fit_depth = sub->add_option("--fit-depth", a->opt.fit_depth,
                  "--normals fit: the positions the planes are fitted to: planar (on the splats' own planes, the blended "
                  "plane along each pixel's ray; default) or expected (the blended centre depths)")
      ->transform(CLI::CheckedTransformer(fit_depths, CLI::ignore_case));
  sub->add_option("--mixed-depth", a->opt.mixed_depth,
                  "Pixels whose expected depth is further than this fraction of the depth from their median depth (a "
                  "silhouette's blend of a near and a far surface) are shaded at the median depth, on the near surface "
                  "(0: the expected depth everywhere)")
      ->check(CLI::Range(0.0, 1.0));
  sub->add_option("--fringe-px", a->opt.fringe.radius_px,
                  "Silhouette pixels covered less than half take the geometry of the most covered surface pixel within "
                  "this many pixels, so that they are lit like it (0: ambient light only)")
      ->check(CLI::Range(0, 8));
  sub->add_option("--shadow-bias", a->opt.shadow_map.constant_bias,
                  "Constant depth bias of shadow-map lookups, in texels")->check(CLI::NonNegativeNumber);
  sub->add_option("--slope-bias", a->opt.shadow_map.slope_bias,
                  "Depth bias per unit tan(angle to the light), in texels (tan capped at 10)")->check(CLI::NonNegativeNumber);
  sub->add_option("--normal-offset", a->opt.shadow_map.normal_offset,
                  "Move lookups this many texels along the surface normal")->check(CLI::NonNegativeNumber);
  sub->add_option("--face-switch", a->opt.shadow_map.face_switch,
                  "Shadow cube maps: how far past a face's edge (tan beyond 45 degrees) a lookup may use the face that sees "
                  "the surface more head-on (0: the major axis only)")
      ->check(CLI::Range(0.0, 0.45));
  sub->add_option("--ao-directions", a->opt.ao.directions, "Directions sampled for ambient occlusion")->check(CLI::Range(1, 1024));
  sub->add_option("--ao-res", a->opt.ao.resolution, "Ambient-occlusion map resolution (texels a side)")
      ->check(CLI::Range(16, 8192));
  sub->add_option("--interpolate", a->opt.interpolation.max_spread,
                  "Ambient occlusion and an environment's sun shadows are evaluated at every other pixel of every other "
                  "row; a pixel between evaluated ones that agree within this (and share its surface) takes their mean "
                  "(0: evaluate every pixel)")
      ->check(CLI::Range(0.0, 1.0));
  sub->add_option("--planes", a->opt.transmittance.planes,
                  "Transmittance maps: depth planes per face (quantiles of the splats it sees)")
      ->check(CLI::Range(1, 256));
  sub->add_option("--env-suns", a->opt.environment.max_suns,
                  "Environment lights: brightest clusters shaded as suns with their own shadow maps")
      ->check(CLI::Range(0, 64));
  sub->add_option("--env-shadow-res", a->opt.environment.sun_shadow_resolution,
                  "Environment lights: shadow (or transmittance) map resolution of each sun split from the map")
      ->check(CLI::Range(16, 8192));
  sub->add_option("--env-cluster-deg", a->opt.environment.cluster_radius_deg,
                  "Environment lights: angular radius of a sun cluster in degrees")
      ->check(CLI::Range(0.1, 90.0));
  sub->add_option("--score", a->score, "Relight dataset root: score against relit/<setup>/ and gt/normal_*.pfm");
  sub->add_flag("--albedo", a->write_albedo,
                "Also write <output>/albedo/r_<i>.png: the albedo the views are shaded with (de-lit unless --no-delight)");
  sub->add_flag("-f,--force", a->force, "Overwrite existing files in the output folder");
  add_backend_flag(*sub, a->backend);
  add_dataset_flags(*sub, a->flags);
  sub->callback([a, smooth, fit_px, fit_depth, shadow_depth] {
    if (smooth->count() && a->opt.normals == NormalSource::kFit)
      throw Error("--normal-smooth smooths --normals splats or depth; the default normals are fit (their window: --normal-fit-px)");
    if (fit_px->count() && a->opt.normals != NormalSource::kFit)
      throw Error("--normal-fit-px is the window of --normals fit");
    if (fit_depth->count() && a->opt.normals != NormalSource::kFit)
      throw Error("--fit-depth chooses the positions of --normals fit");
    if (shadow_depth->count())  // given: every kind of map
      a->opt.set_map_depth(a->opt.shadow_map.depth);
    a->opt.interpolation.enabled = a->opt.interpolation.max_spread > 0;
    run_relight(*a);
  });
}

void run_relight(const RelightArgs& args) {
  const RelightArgs* a = &args;
    using clock = std::chrono::steady_clock;
    auto backend = open_backend(a->backend);
    GaussianModel model = load_model(a->model);
    model.antialiased = model.antialiased || a->antialiased;  // every render of it, maps included
    CameraSource src = load_cameras(a->cameras, a->split, a->flags);
    std::vector<LightSetup> setups = read_lights_files(a->lights);
    std::vector<std::string> names;
    for (const auto& s : setups)
      for (std::size_t i : src.split_index) names.push_back(output_stem(s.name) + "/r_" + std::to_string(i) + ".png");
    if (a->write_albedo) {
      for (const auto& s : setups)
        if (output_stem(s.name) == "albedo") throw Error("--albedo", "a light setup named 'albedo' would share its output folder");
      for (std::size_t i : src.split_index) names.push_back("albedo/r_" + std::to_string(i) + ".png");
    }
    prepare_output_dir(a->out, names, a->force);

    auto t0 = clock::now();
    Relighter relighter(model, *backend, a->opt);
    relighter.expect_setups(setups);
    std::vector<ViewGeometry> views;
    Progress prep("views", static_cast<long>(src.cameras.size()));
    for (const Camera& c : src.cameras) {
      views.push_back(relighter.prepare(c));
      prep.update(static_cast<long>(views.size()));
    }
    prep.finish(a->opt.delight ? "(geometry + ambient occlusion)" : "(geometry)");
    const double prep_s = std::chrono::duration<double>(clock::now() - t0).count();
    if (a->write_albedo) {
      fs::create_directories(fs::path(a->out) / "albedo");
      for (std::size_t v = 0; v < views.size(); ++v)
        write_file_atomic((fs::path(a->out) / "albedo" / ("r_" + std::to_string(src.split_index[v]) + ".png")).string(),
                          encode_png(Relighter::encode(views[v].albedo, views[v].alpha)));
    }

    for (const LightSetup& s : setups) {
      auto t1 = clock::now();
      relighter.set_setup(s);
      const double maps_s = std::chrono::duration<double>(clock::now() - t1).count();
      const std::string dir = (fs::path(a->out) / output_stem(s.name)).string();
      fs::create_directories(dir);
      auto t2 = clock::now();
      for (std::size_t v = 0; v < views.size(); ++v) {
        ImageF lin = relighter.relight(views[v]);
        // zlib's fastest level, bands of rows on every thread: stb's deflate, on one thread,
        // was a large part of a single view's time.
        write_file_atomic(dir + "/r_" + std::to_string(src.split_index[v]) + ".png",
                          encode_png_fast(Relighter::encode(lin, views[v].alpha)));
      }
      const double shade_s = std::chrono::duration<double>(clock::now() - t2).count();
      // Counted as shaded: an environment light is its suns (plus a residual).
      const std::size_t nl = relighter.shaded_setup().lights.size();
      const double lights = std::max<std::size_t>(1, nl);
      const double nv = static_cast<double>(views.size());
      std::printf("%-10s %zu light(s): visibility maps %.2f s, %zu views shaded in %.2f s (%.1f ms per light per frame, "
                  "%.1f ms per frame)\n",
                  s.name.c_str(), nl, maps_s, views.size(), shade_s, 1000.0 * (maps_s + shade_s) / (lights * nv),
                  1000.0 * (maps_s + shade_s) / nv);
    }
    std::printf("view geometry%s: %.2f s for %zu views; wrote %s/<setup>/r_<i>.png\n",
                a->opt.delight ? " and ambient occlusion" : "", prep_s, views.size(), a->out.c_str());

    if (!a->score.empty()) {
      std::vector<std::string> names_only;
      for (const auto& s : setups) names_only.push_back(output_stem(s.name));
      RelightScore score = score_relight(a->score, a->out, names_only);
      for (const SetupScore& s : score.setups) {
        std::printf("%-10s PSNR %.2f dB (masked %.2f dB)  per view:", s.setup.c_str(), s.psnr, s.psnr_masked);
        for (double p : s.per_view) std::printf(" %.2f", p);
        std::printf("\n");
      }
      std::printf("mean relit PSNR over %zu setups: %.2f dB\n", score.setups.size(), score.mean_psnr);
      write_file_atomic((fs::path(a->out) / "scores.json").string(), relight_score_json(score));
      print_normal_error(a->score, views, src.split_index);
    }
}

}  // namespace glint::cli
