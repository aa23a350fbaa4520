// Relighting benchmark: times visibility maps and shading per light per frame for each
// shadow mode, scores against the relight dataset when given, and writes side-by-side
// pictures (ground truth | pcf | transmittance | no shadows) for docs/LIGHTING.md.
//   bench_relight MODEL.ply CAMERAS_DATASET LIGHTS.json|LIGHTS_FOLDER [--gt RELIGHT_ROOT] [--out DIR] [--views N]
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "glint/backend/backend.h"
#include "glint/io/atomic_file.h"
#include "glint/io/dataset.h"
#include "glint/io/image_io.h"
#include "glint/io/image_ops.h"
#include "glint/io/model_file.h"
#include "glint/light/relight_score.h"
#include "glint/light/relighter.h"

using namespace glint;
namespace fs = std::filesystem;

namespace {

// RGBA over black, as the scorer composites, for pictures.
Image8 over_black(const Image8& rgba) { return to_rgb(rgba, {0, 0, 0}); }

Image8 side_by_side(const std::vector<Image8>& parts) {
  Image8 out;
  out.height = parts[0].height;
  out.channels = 3;
  for (const auto& p : parts) out.width += p.width;
  out.data.resize(static_cast<std::size_t>(out.width) * out.height * 3);
  int x0 = 0;
  for (const auto& p : parts) {
    for (int y = 0; y < p.height; ++y)
      std::copy(p.row(y), p.row(y) + p.width * 3, out.row(y) + x0 * 3);
    x0 += p.width;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s MODEL.ply CAMERAS_DATASET LIGHTS.json [--gt RELIGHT_ROOT] [--out DIR] [--views N]\n", argv[0]);
    return 2;
  }
  std::string gt, out = "relight_bench";
  std::size_t max_views = 8;
  for (int i = 4; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    if (k == "--gt") gt = argv[i + 1];
    if (k == "--out") out = argv[i + 1];
    if (k == "--views") max_views = std::stoul(argv[i + 1]);
  }
  GaussianModel model = load_model(argv[1]);
  Dataset data = load_dataset(argv[2]);
  std::vector<LightSetup> setups = read_lights_files({argv[3]});
  auto backend = make_cpu_backend();
  const std::size_t nviews = std::min(max_views, data.test.size());
  std::printf("model %zu splats, %zu views of %dx%d\n", model.size(), nviews, data.test[0].camera.width,
              data.test[0].camera.height);
  std::printf("%-14s %-10s %10s %12s %14s %10s\n", "mode", "setup", "maps ms", "shade ms/fr", "ms/light/frame", "PSNR");
  struct Mode {
    const char* name;
    ShadowMode mode;
  };
  std::vector<std::vector<Image8>> pictures(setups.size());
  for (Mode m : {Mode{"pcf", ShadowMode::kPcf}, Mode{"transmittance", ShadowMode::kTransmittance},
                 Mode{"none", ShadowMode::kNone}}) {
    RelightOptions opt;
    opt.shadows = m.mode;
    Relighter relighter(model, *backend, opt);
    std::vector<ViewGeometry> views;
    for (std::size_t v = 0; v < nviews; ++v) views.push_back(relighter.prepare(data.test[v].camera));
    for (std::size_t s = 0; s < setups.size(); ++s) {
      using clock = std::chrono::steady_clock;
      auto t0 = clock::now();
      relighter.set_setup(setups[s]);
      double maps_ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
      const std::string dir = out + "/" + m.name + "/" + setups[s].name;
      fs::create_directories(dir);
      auto t1 = clock::now();
      for (std::size_t v = 0; v < nviews; ++v)
        write_file_atomic(dir + "/r_" + std::to_string(v) + ".png",
                          encode_png(Relighter::encode(relighter.relight(views[v]), views[v].alpha)));
      double shade_ms = std::chrono::duration<double, std::milli>(clock::now() - t1).count() / static_cast<double>(nviews);
      double per = (maps_ms / static_cast<double>(nviews) + shade_ms) / static_cast<double>(std::max<std::size_t>(1, setups[s].lights.size()));
      std::string psnr = "-";
      if (!gt.empty() && nviews == data.test.size()) {
        RelightScore sc = score_relight(gt, out + "/" + m.name, {setups[s].name});
        char b[32];
        std::snprintf(b, sizeof b, "%.2f", sc.mean_psnr);
        psnr = b;
      }
      std::printf("%-14s %-10s %10.1f %12.1f %14.1f %10s\n", m.name, setups[s].name.c_str(), maps_ms, shade_ms, per,
                  psnr.c_str());
      Image8 mine = over_black(read_image(dir + "/r_0.png"));
      if (pictures[s].empty() && !gt.empty())
        pictures[s].push_back(over_black(read_image(gt + "/relit/" + setups[s].name + "/r_0.png")));
      pictures[s].push_back(mine);
    }
  }
  for (std::size_t s = 0; s < setups.size(); ++s)
    write_file_atomic(out + "/compare_" + setups[s].name + ".png", encode_png(side_by_side(pictures[s])));
  std::printf("pictures: %s/compare_<setup>.png (%s pcf | transmittance | none)\n", out.c_str(),
              gt.empty() ? "" : "ground truth |");
  return 0;
}
