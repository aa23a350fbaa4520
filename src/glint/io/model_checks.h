#pragma once
// Checks every reader and writer of splat files applies, so a model that one command wrote
// is always one that the next command can read.
#include <string>

#include "glint/core/gaussians.h"

namespace glint {

// Throws glint::Error(name, ...) unless sh_degree is 0..3 and every array has the length
// that size() implies.
void check_model_shape(const GaussianModel& m, const std::string& name);

// Throws glint::Error(name, ...) naming the first splat and parameter that is NaN or infinite.
// Only the SH coefficients the model's degree uses are checked.
void check_model_finite(const GaussianModel& m, const std::string& name);

}  // namespace glint
