// Where the relighting error comes from: relights the relight dataset's test views with
// parts of Glint's per-view geometry replaced by the dataset's ground truth (gt/normal,
// gt/albedo, gt/mask, gt/depth, or normals computed from gt/depth) and prints the relit
// PSNR of each variant. The gt/ files are for diagnosis only; nothing here feeds back into
// training or `glint relight`.
// Every setup of relit/lights.json and, when present, relit/lights_extra.json (spot, env).
// Writes each variant's relit views and its shading normals (normal_<i>.pfm) under --out.
//   bench_relight_ablation MODEL.ply RELIGHT_ROOT [--out DIR] [--shadows pcf|none|transmittance]
//                          [--variants "NAME;NAME;..."] [--ao-directions N] [--ao-res TEXELS]
//                          [--shadow-bias TEXELS] [--shadow-depth median|expected]
//                          [--shadow-res N] [--slope-bias T] [--normal-offset T] [--pcf N]
//                          [--ao-bias T] [--ao-slope-bias T] [--ao-normal-offset T] [--ao-pcf N]
//                          [--fit-px PX] [--fit-angle DEG] [--fit-plane REL] [--fit-planarity Q] [--mixed-depth REL]
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "glint/backend/backend.h"
#include "glint/io/atomic_file.h"
#include "glint/io/dataset.h"
#include "glint/io/image_io.h"
#include "glint/io/model_file.h"
#include "glint/io/pfm.h"
#include "glint/light/color.h"
#include "glint/light/depth_filter.h"
#include "glint/light/geometry.h"
#include "glint/light/normal_filter.h"
#include "glint/light/relight_score.h"
#include "glint/light/relighter.h"

using namespace glint;
namespace fs = std::filesystem;

namespace {

struct Gt {
  ImageF normal, albedo, alpha, position;
  ImageF depth_normal;  // geometric normals of the true surface (gt/depth), not Blender's shading normals
  Image8 mask;
};

Gt load_gt(const std::string& root, std::size_t i, const Camera& cam) {
  const std::string s = std::to_string(i);
  Gt g;
  g.normal = read_pfm(root + "/gt/normal_" + s + ".pfm");
  ImageF depth = read_pfm(root + "/gt/depth_" + s + ".pfm");
  g.position = world_positions_from_depth(cam, depth);
  Image8 alb = read_image(root + "/gt/albedo_" + s + ".png");
  Image8 mask = read_image(root + "/gt/mask_" + s + ".png");
  g.mask = mask;
  const std::size_t np = std::size_t(cam.width) * std::size_t(cam.height);
  g.albedo = ImageF(cam.width, cam.height, 3);
  g.alpha = ImageF(cam.width, cam.height, 1);
  for (std::size_t p = 0; p < np; ++p) {
    for (int c = 0; c < 3; ++c)
      g.albedo.data[3 * p + c] = srgb_to_linear(alb.data[p * std::size_t(alb.channels) + std::size_t(c)] / 255.f);
    g.alpha.data[p] = mask.data[p * std::size_t(mask.channels)] / 255.f;
  }
  g.depth_normal = world_normals_from_depth(cam, depth, &g.alpha);
  return g;
}

struct Variant {
  const char* name;
  bool normal, albedo, alpha, position;
  float smooth_sigma = -1;  // >= 0: relight with the smoothed splat normals (--normals splats), this sigma
  float gt_normal_beyond_deg = 0;  // > 0: GT normals only where Glint's are further off than this
  bool depth_normal = false;       // normals from gt/depth: perfect geometry, geometric normals
};

// GT normals where the angle to Glint's exceeds `deg`: what fixing only the gross normal
// errors (such as the smooth-shaded cone's, docs/LIGHTING.md) would gain.
void replace_gross_normals(ImageF& mine, const ImageF& gt, float deg) {
  const float cmin = std::cos(deg * 3.14159265f / 180.f);
  for (std::size_t p = 0; p + 2 < mine.data.size(); p += 3) {
    const float* a = &mine.data[p];
    const float* b = &gt.data[p];
    const float la = std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]), lb = std::sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
    if (!(la > 0) || !(lb > 0)) continue;
    if ((a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) / (la * lb) < cmin)
      for (int c = 0; c < 3; ++c) mine.data[p + std::size_t(c)] = b[c] / lb;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: %s MODEL.ply RELIGHT_ROOT [--out DIR] [--shadows pcf|none|transmittance] "
                 "[--variants \"NAME;NAME;...\"] [--ao-directions N] [--ao-res TEXELS] [--shadow-bias TEXELS] "
                 "[--shadow-depth median|expected] [--shadow-res N] [--slope-bias T] [--normal-offset T] [--pcf N] "
                 "[--ao-bias T] [--ao-slope-bias T] [--ao-normal-offset T] [--ao-pcf N] [--fit-px PX] [--fit-angle DEG] "
                 "[--fit-plane REL] [--fit-planarity Q] [--mixed-depth REL]\n",
                 argv[0]);
    return 2;
  }
  const std::string root = argv[2];
  std::string out = "relight_ablation";
  RelightOptions opt;
  std::string only;  // variant names separated by ";" (names hold commas); empty: all
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--out") out = v;
    if (k == "--variants") only = ";" + v + ";";
    if (k == "--ao-directions") opt.ao.directions = std::stoi(v);
    if (k == "--ao-res") opt.ao.resolution = std::stoi(v);
    if (k == "--shadow-bias") opt.shadow_map.constant_bias = std::stod(v);
    if (k == "--ao-bias") opt.ao.constant_bias = std::stod(v);
    if (k == "--ao-slope-bias") opt.ao.slope_bias = std::stod(v);
    if (k == "--ao-normal-offset") opt.ao.normal_offset = std::stod(v);
    if (k == "--ao-pcf") opt.ao.pcf_kernel = std::stoi(v);
    if (k == "--shadow-res") opt.shadow_map.resolution = std::stoi(v);
    if (k == "--pcf") opt.shadow_map.pcf_kernel = std::stoi(v);
    if (k == "--slope-bias") opt.shadow_map.slope_bias = std::stod(v);
    if (k == "--normal-offset") opt.shadow_map.normal_offset = std::stod(v);
    if (k == "--fit-px") opt.plane_fit.sigma_spatial_px = std::stof(v);
    if (k == "--fit-angle") opt.plane_fit.sigma_angle_deg = std::stof(v);
    if (k == "--fit-plane") opt.plane_fit.sigma_plane_rel = std::stof(v);
    if (k == "--fit-planarity") opt.plane_fit.planarity = std::stof(v);
    if (k == "--mixed-depth") opt.mixed_depth = std::stof(v);
    if (k == "--shadow-depth") opt.set_map_depth(v == "expected" ? ShadowDepth::Expected : ShadowDepth::Median);
    if (k == "--shadows")
      opt.shadows = v == "none" ? ShadowMode::kNone : v == "transmittance" ? ShadowMode::kTransmittance : ShadowMode::kPcf;
  }
  GaussianModel model = load_model(argv[1]);
  Dataset data = load_dataset(root + "/capture");
  std::vector<std::string> light_files{root + "/relit/lights.json"};
  if (fs::exists(root + "/relit/lights_extra.json")) light_files.push_back(root + "/relit/lights_extra.json");
  std::vector<LightSetup> setups = read_lights_files(light_files);
  auto backend = make_cpu_backend();
  Relighter relighter(model, *backend, opt);
  std::vector<ViewGeometry> mine;
  std::vector<Gt> gts;
  for (std::size_t v = 0; v < data.test.size(); ++v) {
    mine.push_back(relighter.prepare(data.test[v].camera));
    gts.push_back(load_gt(root, v, data.test[v].camera));
  }
  const Variant variants[] = {
      {"glint", false, false, false, false},        {"gt normal", true, false, false, false},
      {"gt albedo", false, true, false, false},     {"gt alpha", false, false, true, false},
      {"gt position", false, false, false, true},   {"gt normal+albedo", true, true, false, false},
      {"gt all but shadows", true, true, true, true},
      {"splats, no filter", false, false, false, false, 0.f},
      {"splats, filter 2 px", false, false, false, false, 2.f},
      {"gt normal if > 20 deg", false, false, false, false, -1.f, 20.f},
      {"gt normal if > 10 deg", false, false, false, false, -1.f, 10.f},
      {"gt normal if > 5 deg", false, false, false, false, -1.f, 5.f},
      {"gt normal if > 3 deg", false, false, false, false, -1.f, 3.f},
      {"gt depth normals", false, false, false, false, -1.f, 0.f, true},
      {"gt all, depth normals", false, true, true, true, -1.f, 0.f, true},
  };
  std::printf("%-20s", "variant");
  for (const auto& s : setups) std::printf(" %8s", s.name.c_str());
  std::printf(" %8s %8s\n", "mean", "normal");
  for (const Variant& var : variants) {
    if (!only.empty() && only.find(";" + std::string(var.name) + ";") == std::string::npos) continue;
    const std::string dir = out + "/" + std::string(var.name);
    double sum = 0;
    std::printf("%-20s", var.name);
    std::vector<ViewGeometry> geo;
    double nsum = 0;
    long npx = 0;
    RelightOptions vopt = opt;
    if (var.smooth_sigma >= 0) {
      vopt.normals = NormalSource::kSplats;
      vopt.normal_filter.sigma_spatial_px = var.smooth_sigma;
    }
    // Only variants with other options need their own relighter (it renders the AO maps).
    std::optional<Relighter> own;
    if (var.smooth_sigma >= 0) own.emplace(model, *backend, vopt);
    Relighter& rl = own ? *own : relighter;
    for (std::size_t v = 0; v < mine.size(); ++v) {
      ViewGeometry g = var.smooth_sigma >= 0 ? rl.prepare(data.test[v].camera) : mine[v];
      const Gt& t = gts[v];
      if (var.normal) g.normal = t.normal;
      if (var.depth_normal) g.normal = t.depth_normal;
      if (var.gt_normal_beyond_deg > 0) replace_gross_normals(g.normal, t.normal, var.gt_normal_beyond_deg);
      if (var.albedo) g.albedo = t.albedo;
      if (var.alpha) g.alpha = t.alpha;
      if (var.position) g.position = t.position;
      // The replaced images' own silhouette pixels get the relighter's fill too.
      if (vopt.fringe.radius_px > 0) fill_fringe_geometry(g.alpha, g.depth, g.position, g.normal, vopt.fringe);
      const NormalError ne = normal_angle_error(g.normal, t.normal, t.mask);
      nsum += ne.mean_deg * double(ne.pixels);
      npx += ne.pixels;
      geo.push_back(std::move(g));
    }
    fs::create_directories(dir);
    for (std::size_t v = 0; v < geo.size(); ++v) write_pfm(dir + "/normal_" + std::to_string(v) + ".pfm", geo[v].normal);
    for (const LightSetup& s : setups) {
      rl.set_setup(s);
      fs::create_directories(dir + "/" + s.name);
      for (std::size_t v = 0; v < geo.size(); ++v) {
        const ViewGeometry& g = geo[v];
        write_file_atomic(dir + "/" + s.name + "/r_" + std::to_string(v) + ".png",
                          encode_png(Relighter::encode(rl.relight(g), g.alpha)));
      }
      const double p = score_relight(root, dir, {s.name}).mean_psnr;
      sum += p;
      std::printf(" %8.2f", p);
    }
    std::printf(" %8.2f %8.2f\n", sum / double(setups.size()), nsum / double(std::max(1L, npx)));
    std::fflush(stdout);
  }
  return 0;
}
