#include "glint/io/model_file.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "glint/core/error.h"
#include "glint/io/ply.h"
#include "glint/io/splat.h"

namespace glint {

ModelFormat model_format_for(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  if (ext == ".ply") return ModelFormat::Ply;
  if (ext == ".splat") return ModelFormat::Splat;
  if (ext.empty()) throw Error(path, "no file extension; expected .ply or .splat");
  throw Error(path, "unknown splat file type '" + ext + "'; expected .ply or .splat");
}

const char* model_format_name(ModelFormat f) { return f == ModelFormat::Ply ? "PLY" : ".splat"; }

GaussianModel load_model(const std::string& path) {
  return model_format_for(path) == ModelFormat::Ply ? read_ply(path) : read_splat(path);
}

void save_model(const std::string& path, const GaussianModel& m) {
  if (model_format_for(path) == ModelFormat::Ply) write_ply(path, m);
  else write_splat(path, m);
}

}  // namespace glint
