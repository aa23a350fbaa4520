#pragma once
// graphdeco-style Gaussian PLY, the format every splat viewer reads.
#include <string>

#include "glint/core/gaussians.h"

namespace glint {

// The header comment that marks a model trained with the Mip-Splatting 2D filter.
inline constexpr const char* kPlyAntialiasedComment = "glint antialiased";

// Reads a splat PLY: binary little/big endian or ASCII, any scalar property type, SH degree
// 0..3 (from the number of f_rest_* properties), extra or reordered properties, comments and
// other elements. A comment line "glint antialiased" sets GaussianModel::antialiased. Bad
// input throws glint::Error(path, problem).
GaussianModel read_ply(const std::string& path);

// The same, parsing bytes already in memory; `name` stands for the file in error messages.
GaussianModel read_ply_bytes(const std::string& data, const std::string& name);

// The exact file write_ply writes: binary_little_endian, LF, one vertex element of float
// properties x y z nx ny nz f_dc_0..2 f_rest_* opacity scale_0..2 rot_0..3 for the model's
// SH degree, and the comment line "glint antialiased" for a model trained with the 2D filter
// (readers skip comments). Throws glint::Error(name, ...) for a malformed or non-finite model.
std::string write_ply_bytes(const GaussianModel& m, const std::string& name = "model");

// Writes write_ply_bytes(m) to `path` atomically.
void write_ply(const std::string& path, const GaussianModel& m);

}  // namespace glint
