#pragma once
// Deterministic splat models for tests, and a bitwise comparison of two models.
#include <cstddef>

#include "glint/core/gaussians.h"

namespace glint::test {

// n splats at SH degree `degree` with varied, finite values; coefficients beyond the degree
// are zero (as a reader produces them).
GaussianModel random_model(std::size_t n, int degree, unsigned seed = 1);

// Every array equal bit for bit (gtest expectations).
void expect_same_model(const GaussianModel& a, const GaussianModel& b);

// `back` is `m` after a trip through the .splat format: same positions, SH degree 0, colour
// and opacity within half an 8-bit step, log-scales within float rounding, and the unit
// quaternion within one 8-bit step when `check_rotation`.
void expect_splat_quantised(const GaussianModel& m, const GaussianModel& back, bool check_rotation);

}  // namespace glint::test
