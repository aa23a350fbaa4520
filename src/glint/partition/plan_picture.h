#pragma once
// PLAN/plan.png: the plan from above, in the ground frame (u to the right, v up). The
// sparse points shaded by height, each cell's core tinted and outlined in its colour with
// its number, its expanded rectangle dashed, and the training cameras as dots in the
// colour of the cell they stand in, with a tick where they look.
#include "glint/core/image.h"
#include "glint/io/dataset.h"
#include "glint/partition/plan.h"

namespace glint::partition {

// At most max_side pixels on the longer side.
Image8 draw_plan(const Plan& plan, const Dataset& data, int max_side = 1200);

}  // namespace glint::partition
