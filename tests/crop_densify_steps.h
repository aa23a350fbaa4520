#pragma once
// A partition cell trains on crops of its views (partition/cell_dataset.h). The
// densification statistic a crop gives a splat must be the one the whole view gives it for
// the same pixels, or the gradient threshold means something else in every cell (the
// crop's loss is a mean over fewer pixels, and 3DGS's NDC units follow the image's size).
// One L1 step on a view and on a crop of it around a small splat, on a backend's training
// session. Used by train_densify_crop_test.cpp (CPU), cuda_densify_crop_test.cpp (CUDA,
// emulated) and vulkan_densify_crop_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <memory>
#include <string>

#include "glint/backend/backend.h"
#include "glint/backend/training_session.h"
#include "glint/io/dataset.h"
#include "glint/io/image_cache.h"
#include "glint/train/densify.h"
#include "glint/train/splat_set.h"

namespace glint::test {

// A training session started from a setup and initial splats.
using StartCropSession = std::function<std::unique_ptr<TrainingSession>(const TrainingSetup&, SplatSet)>;

// The demo at half size with two training views: 0 a whole view, 1 a window of it (about
// half its width and a third of its height, off centre) around `model`'s one splat, a few
// pixels across at the scene's centre.
struct CropScene {
  Dataset data;
  GaussianModel model;
  CropScene() {
    DatasetOptions o;
    o.downscale = 2;
    data = load_dataset(std::string(GLINT_SOURCE_DIR) + "/data/demo", o);
    // the training view that sees the scene's centre nearest its image's centre
    std::size_t best = 0;
    double best_d = 1e30;
    for (std::size_t i = 0; i < data.train.size(); ++i) {
      const Camera& c = data.train[i].camera;
      const Vec3d p = c.world_to_camera(data.center);
      if (p.z <= 0) continue;
      const Vec2d a = c.project(p);
      const double d = std::hypot(a.x - 0.5 * c.width, a.y - 0.5 * c.height);
      if (d < best_d) best_d = d, best = i;
    }
    const View whole = data.train.at(best);
    const Camera& cam = whole.camera;
    const Vec3d pc = cam.world_to_camera(data.center);
    const Vec2d at = cam.project(pc);
    const int w = cam.width / 2, h = cam.height / 3;
    const int x0 = std::clamp(static_cast<int>(at.x) - w / 3, 0, cam.width - w);
    const int y0 = std::clamp(static_cast<int>(at.y) - h / 2, 0, cam.height - h);
    data.train = {whole, crop_view(whole, x0, y0, w, h)};
    data.test.clear();

    model.resize(1);
    for (int k = 0; k < 3; ++k) {
      const auto i = static_cast<std::size_t>(k);
      model.means[i] = static_cast<float>(k == 0 ? data.center.x : k == 1 ? data.center.y : data.center.z);
      model.log_scales[i] = static_cast<float>(std::log(1.5 * pc.z / cam.fx));
      model.sh_dc[i] = 1.5f;
    }
    model.quats = {1.f, 0.f, 0.f, 0.f};
    model.opacity_logits = {0.5f};
    // well inside the window: its pixels are the whole view's
    EXPECT_GT(at.x - x0, 8.0);
    EXPECT_LT(at.x - x0, w - 8.0);
    EXPECT_GT(at.y - y0, 8.0);
    EXPECT_LT(at.y - y0, h - 8.0);
  }
};

// The statistic of the splat after one L1 step on training view `view`.
inline float statistic_after_one_step(const StartCropSession& start, const CropScene& sc, std::size_t view) {
  ImageCache images(sc.data, sc.data.train, std::size_t{16} << 20);
  TrainingSetup setup;
  setup.dataset = &sc.data;
  setup.images = &images;
  setup.loss.lambda_dssim = 0.f;  // L1 alone: a pixel's gradient does not reach past the pixel
  auto s = start(setup, SplatSet(sc.model));
  const std::array<float, 3> bg = {0.f, 0.f, 0.f};
  s->set_target(view, 1, bg);
  RenderSettings rs;
  rs.sh_degree = 0;
  s->render(rs);
  s->photometric_loss();
  s->backward();
  EXPECT_EQ(s->visibility(), 1u);
  s->accumulate_densify_stats(600, DensifyOptions{});
  const SplatSet& st = s->state();
  EXPECT_EQ(st.grad_count.at(0), 1.f);
  return st.grad_accum.at(0);
}

// The crop's statistic is the whole view's, to float rounding.
inline void expect_crop_gives_the_whole_views_statistic(const StartCropSession& start) {
  const CropScene sc;
  const float g_whole = statistic_after_one_step(start, sc, 0);
  const float g_part = statistic_after_one_step(start, sc, 1);
  ASSERT_GT(g_whole, 0.f);
  EXPECT_NEAR(g_part, g_whole, 1e-4f * g_whole);
}

}  // namespace glint::test
