#pragma once
// Deterministic splat models for the file-format tests.
#include <cstddef>

#include "glint/core/gaussians.h"

namespace glint::test {

// n splats at SH degree `degree` with varied, finite values; coefficients beyond the degree
// are zero (as a reader produces them).
GaussianModel random_model(std::size_t n, int degree, unsigned seed = 1);

}  // namespace glint::test
