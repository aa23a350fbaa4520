// A partition cell trains on crops of its views (partition/cell_dataset.h). The
// densification statistic a crop gives a splat must be the one the whole view gives it for
// the same pixels, or the gradient threshold means something else in every cell (the
// crop's loss is a mean over fewer pixels, and 3DGS's NDC units follow the image's size).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "glint/backend/backend.h"
#include "glint/backend/cpu/cpu_training_session.h"
#include "glint/backend/target_view.h"
#include "glint/io/dataset.h"
#include "glint/io/image_cache.h"

using namespace glint;

namespace {

// The statistic of splat 0 after one L1 step on training view `view`.
float statistic_after_one_step(Backend& backend, const Dataset& data, std::size_t view, const GaussianModel& model) {
  ImageCache images(data, data.train, std::size_t{16} << 20);
  TrainingSetup setup;
  setup.dataset = &data;
  setup.images = &images;
  setup.loss.lambda_dssim = 0.f;  // L1 alone: a pixel's gradient does not reach past the pixel
  auto s = cpu::make_cpu_training_session(backend, setup, SplatSet(model));
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

}  // namespace

TEST(TrainDensifyCrop, CropGivesTheWholeViewsStatistic) {
  DatasetOptions o;
  o.downscale = 2;
  Dataset data = load_dataset(std::string(GLINT_SOURCE_DIR) + "/data/demo", o);
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
  // A window of about half the width and a third of the height around the splat, off centre.
  const int w = cam.width / 2, h = cam.height / 3;
  const int x0 = std::clamp(static_cast<int>(at.x) - w / 3, 0, cam.width - w);
  const int y0 = std::clamp(static_cast<int>(at.y) - h / 2, 0, cam.height - h);
  const View part = crop_view(whole, x0, y0, w, h);
  data.train = {whole, part};
  data.test.clear();

  // One splat a few pixels across at the scene's centre, well inside the window.
  GaussianModel m;
  m.resize(1);
  for (int k = 0; k < 3; ++k) {
    m.means[static_cast<std::size_t>(k)] = static_cast<float>(k == 0 ? data.center.x : k == 1 ? data.center.y : data.center.z);
    m.log_scales[static_cast<std::size_t>(k)] = static_cast<float>(std::log(1.5 * pc.z / cam.fx));
    m.sh_dc[static_cast<std::size_t>(k)] = 1.5f;
  }
  m.quats = {1.f, 0.f, 0.f, 0.f};
  m.opacity_logits = {0.5f};
  ASSERT_GT(at.x - x0, 8.0);
  ASSERT_LT(at.x - x0, w - 8.0);
  ASSERT_GT(at.y - y0, 8.0);
  ASSERT_LT(at.y - y0, h - 8.0);

  static std::unique_ptr<Backend> backend = make_cpu_backend(1);
  const float g_whole = statistic_after_one_step(*backend, data, 0, m);
  const float g_part = statistic_after_one_step(*backend, data, 1, m);
  ASSERT_GT(g_whole, 0.f);
  EXPECT_NEAR(g_part, g_whole, 1e-4f * g_whole);

  // An uncropped view keeps 3DGS's scales exactly (ordinary training is unchanged).
  const auto s = densify_grad_scale(cam, whole);
  EXPECT_EQ(s[0], 0.5f * static_cast<float>(cam.width));
  EXPECT_EQ(s[1], 0.5f * static_cast<float>(cam.height));
}
