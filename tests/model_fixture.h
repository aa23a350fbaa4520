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

}  // namespace glint::test
