// fine_tune on the CPU backend (fine_tune_steps.h): more steps for a finished model, with
// its rows kept. A splat no view sees stays exactly as it was, fully masked views change
// nothing, and the steps fit the model to its views.
#include <gtest/gtest.h>

#include "fine_tune_steps.h"

using namespace glint;
using namespace glint::test;

TEST(FineTune, KeepsTheRowsFitsTheViewsAndLeavesUnseenSplats) {
  auto backend = make_cpu_backend(1);
  expect_fine_tune_keeps_rows_and_fits(*backend);
}

TEST(FineTune, FullyMaskedViewsChangeNothing) {
  auto backend = make_cpu_backend(1);
  expect_fully_masked_views_change_nothing(*backend);
}
