#pragma once
// Splat files by name: the extension (.ply / .splat / .spz, any case) picks the format.
#include <string>

#include "glint/core/gaussians.h"

namespace glint {

enum class ModelFormat { Ply, Splat, Spz };

// The format for a path's extension; throws glint::Error(path, ...) for any other extension.
ModelFormat model_format_for(const std::string& path);
// "PLY", ".splat" or ".spz", for messages.
const char* model_format_name(ModelFormat f);

GaussianModel load_model(const std::string& path);
// Writes atomically: the target is replaced only once the whole file has been written.
void save_model(const std::string& path, const GaussianModel& m);

}  // namespace glint
