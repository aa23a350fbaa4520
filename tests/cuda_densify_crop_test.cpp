// The densification statistic of a cropped view on the CUDA device session (emulated) is
// the whole view's for the same pixels, as on the CPU session (crop_densify_steps.h).
#include <gtest/gtest.h>

#include <utility>

#include "crop_densify_steps.h"
#include "glint/backend/cuda/device_training_session.h"

using namespace glint;
using namespace glint::test;

TEST(CudaDensifyCrop, CropGivesTheWholeViewsStatistic) {
  expect_crop_gives_the_whole_views_statistic([](const TrainingSetup& setup, SplatSet initial) {
    return cuda::make_device_training_session(setup, std::move(initial));
  });
}
