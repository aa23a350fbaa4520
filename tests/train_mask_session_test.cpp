// Masks through a whole training step on the CPU session (mask_session_steps.h); the CUDA
// device session's twin is cuda_masked_session_test.cpp.
#include <gtest/gtest.h>

#include <memory>

#include "glint/backend/cpu/cpu_training_session.h"
#include "mask_session_steps.h"

using namespace glint;
using namespace glint::test;

TEST(MaskedTraining, MaskedPixelsChangeNothingOnTheCpuSession) {
  static std::unique_ptr<Backend> backend = make_cpu_backend(1);
  expect_mask_hides_the_scribble(
      [](test::Scene& sc) { return cpu::make_cpu_training_session(*backend, sc.setup(), sc.initial()); }, true);
}
