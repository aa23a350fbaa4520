// The densification statistic of a cropped view on the CPU session is the whole view's
// for the same pixels (crop_densify_steps.h), and an uncropped view keeps 3DGS's scales.
#include <gtest/gtest.h>

#include <memory>
#include <utility>

#include "crop_densify_steps.h"
#include "glint/backend/cpu/cpu_training_session.h"
#include "glint/backend/target_view.h"

using namespace glint;
using namespace glint::test;

TEST(TrainDensifyCrop, CropGivesTheWholeViewsStatistic) {
  static std::unique_ptr<Backend> backend = make_cpu_backend(1);
  expect_crop_gives_the_whole_views_statistic([](const TrainingSetup& setup, SplatSet initial) {
    return cpu::make_cpu_training_session(*backend, setup, std::move(initial));
  });
}

// An uncropped view keeps 3DGS's scales exactly (ordinary training is unchanged).
TEST(TrainDensifyCrop, WholeViewKeepsTheImagesScales) {
  const CropScene sc;
  const View& whole = sc.data.train[0];
  const auto s = densify_grad_scale(whole.camera, whole);
  EXPECT_EQ(s[0], 0.5f * static_cast<float>(whole.camera.width));
  EXPECT_EQ(s[1], 0.5f * static_cast<float>(whole.camera.height));
}
