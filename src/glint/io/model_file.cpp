#include "glint/io/model_file.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "glint/core/error.h"
#include "glint/io/ply.h"
#include "glint/io/splat.h"
#include "glint/io/spz.h"

namespace glint {

ModelFormat model_format_for(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  if (ext == ".ply") return ModelFormat::Ply;
  if (ext == ".splat") return ModelFormat::Splat;
  if (ext == ".spz") return ModelFormat::Spz;
  if (ext.empty()) throw Error(path, "no file extension; expected .ply, .splat or .spz");
  throw Error(path, "unknown splat file type '" + ext + "'; expected .ply, .splat or .spz");
}

const char* model_format_name(ModelFormat f) {
  switch (f) {
    case ModelFormat::Ply: return "PLY";
    case ModelFormat::Splat: return ".splat";
    case ModelFormat::Spz: return ".spz";
  }
  return "?";
}

GaussianModel load_model(const std::string& path) {
  switch (model_format_for(path)) {
    case ModelFormat::Ply: return read_ply(path);
    case ModelFormat::Splat: return read_splat(path);
    case ModelFormat::Spz: return read_spz(path);
  }
  return {};
}

void save_model(const std::string& path, const GaussianModel& m) {
  switch (model_format_for(path)) {
    case ModelFormat::Ply: write_ply(path, m); break;
    case ModelFormat::Splat: write_splat(path, m); break;
    case ModelFormat::Spz: write_spz(path, m); break;
  }
}

}  // namespace glint
