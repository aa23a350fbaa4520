// Masks through a whole training step on the CUDA device session (emulated; in the
// contracted suite too, tests/contracted): the masked pixels change nothing bit for bit,
// and the masked step matches the CPU session's within the unmasked step's tolerances.
#include <gtest/gtest.h>

#include <memory>
#include <utility>

#include "glint/backend/cuda/device_training_session.h"
#include "mask_session_steps.h"

using namespace glint;
using namespace glint::test;

TEST(MaskedTraining, MaskedPixelsChangeNothingOnTheEmulatedCudaSession) {
  expect_mask_hides_the_scribble(
      [](Scene& sc) { return cuda::make_device_training_session(sc.setup(), sc.initial()); }, false);
}

// The device session's masked step against the CPU session's: the loss and the gradients
// within the tolerances the unmasked step is held to (cuda_training_session_test.cpp),
// for a coarse-to-fine target (the mask downscaled on the device) and a streamed full-size
// one (the mask uploaded with its view).
TEST(MaskedTraining, DeviceSessionMatchesTheCpuSession) {
  Scene probe(400);
  MaskFiles files(probe.data.train[kView].source.path);
  const StartSession start = [](const TrainingSetup& setup, SplatSet initial) {
    return cuda::make_device_training_session(setup, std::move(initial));
  };
  expect_masked_step_matches_the_cpu(start, 2, 4096, files.mask);
  expect_masked_step_matches_the_cpu(start, 1, 0, files.mask);
}
