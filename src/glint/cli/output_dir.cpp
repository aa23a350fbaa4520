#include "glint/cli/output_dir.h"

#include <filesystem>

#include "glint/core/error.h"

namespace glint::cli {

namespace fs = std::filesystem;

void prepare_output_dir(const std::string& dir, const std::vector<std::string>& files, bool force) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) throw Error(dir, "output path exists and is not a folder");
  fs::create_directories(dir, ec);
  if (ec) throw Error(dir, "cannot create output folder: " + ec.message());
  if (force) return;
  for (const auto& f : files)
    if (fs::exists(fs::path(dir) / f, ec))
      throw Error((fs::path(dir) / f).string(), "already exists; pass --force to overwrite");
}

std::string output_stem(const std::string& name) {
  std::string stem = fs::path(name).stem().string();
  for (char& c : stem)
    if (c == '/' || c == '\\' || c == ':') c = '_';
  return stem.empty() ? "camera" : stem;
}

}  // namespace glint::cli
