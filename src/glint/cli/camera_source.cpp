#include "glint/cli/camera_source.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "glint/core/error.h"
#include "glint/io/cameras_json.h"
#include "glint/io/file_bytes.h"

namespace glint::cli {

namespace {

// A cameras.json is a JSON array; transforms files are objects.
bool is_cameras_json(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec) || std::filesystem::path(path).extension() != ".json") return false;
  std::string bytes = read_file_bytes(path);
  std::size_t first = bytes.find_first_not_of(" \t\r\n");
  return first != std::string::npos && bytes[first] == '[';
}

}  // namespace

CameraSource load_cameras(const std::string& path, const std::string& split, const DatasetFlags& flags) {
  CameraSource src;
  if (is_cameras_json(path)) {
    src.cameras = read_cameras_json(path);
    for (std::size_t i = 0; i < src.cameras.size(); ++i) src.split_index.push_back(i);
    DatasetOptions o = resolve(flags);
    if (o.has_background) src.background = o.background;
    return src;
  }
  Dataset d = load_dataset(path, resolve(flags));
  src.background = d.background;
  auto take = [&](const std::vector<View>& views) {
    for (std::size_t i = 0; i < views.size(); ++i) {
      src.cameras.push_back(views[i].camera);
      src.split_index.push_back(i);
    }
  };
  if (split == "train" || split == "all") take(d.train);
  if (split == "test" || split == "all") take(d.test);
  if (split != "train" && split != "test" && split != "all")
    throw Error("--split must be train, test or all, got '" + split + "'");
  if (src.cameras.empty()) throw Error(path, "the " + split + " split has no cameras");
  return src;
}

}  // namespace glint::cli
