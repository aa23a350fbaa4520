#include "glint/capture/capture_input.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "glint/core/error.h"
#include "glint/io/colmap.h"

namespace glint::capture {

namespace fs = std::filesystem;

namespace {

std::string lower_extension(const fs::path& p) {
  std::string e = p.extension().string();
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return e;
}

// JPEG and PNG: what both COLMAP and Glint's image reader take.
bool is_image_name(const fs::path& p) {
  const std::string e = lower_extension(p);
  return e == ".jpg" || e == ".jpeg" || e == ".png";
}

// Files that look like pictures Glint cannot read, reported rather than silently ignored.
bool is_other_picture(const fs::path& p) {
  const std::string e = lower_extension(p);
  return e == ".heic" || e == ".heif" || e == ".tif" || e == ".tiff" || e == ".webp" || e == ".dng" ||
         e == ".cr2" || e == ".nef" || e == ".arw" || e == ".bmp" || e == ".gif";
}

void list_images(const fs::path& dir, std::vector<std::string>& images, std::vector<std::string>& skipped) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    const fs::path name = it->path().filename();
    if (name.string().rfind('.', 0) == 0) continue;  // hidden files (.DS_Store, ._IMG.jpg)
    if (is_image_name(name)) {
      images.push_back(name.string());
    } else if (is_other_picture(name)) {
      skipped.push_back(name.string());
    }
  }
  std::sort(images.begin(), images.end());
  std::sort(skipped.begin(), skipped.end());
}

bool is_dataset_folder(const fs::path& p) {
  std::error_code ec;
  if (fs::exists(p / "transforms_train.json", ec) || fs::exists(p / "transforms.json", ec)) return true;
  for (const fs::path& d : {p / "sparse" / "0", p / "sparse", p})
    if (has_colmap_model(d.string())) return true;
  return false;
}

}  // namespace

bool has_video_extension(const std::string& path) {
  static const char* const kVideo[] = {".mp4", ".mov", ".m4v", ".mkv", ".avi", ".webm", ".mts", ".m2ts", ".3gp"};
  const std::string e = lower_extension(path);
  return std::any_of(std::begin(kVideo), std::end(kVideo), [&](const char* v) { return e == v; });
}

bool is_capture(const std::string& path) {
  std::error_code ec;
  const fs::path p(path);
  if (fs::is_regular_file(p, ec)) return lower_extension(p) != ".json";
  if (!fs::is_directory(p, ec) || is_dataset_folder(p)) return false;
  std::vector<std::string> images, skipped;
  list_images(p, images, skipped);
  if (images.empty() && fs::is_directory(p / "images", ec)) list_images(p / "images", images, skipped);
  return !images.empty() || !skipped.empty();
}

CaptureInput open_capture(const std::string& path) {
  std::error_code ec;
  const fs::path p(path);
  CaptureInput in;
  if (!fs::exists(p, ec)) throw Error(path, "no such file or folder");
  if (fs::is_regular_file(p, ec)) {
    if (is_image_name(p)) throw Error(path, "a single image; give the folder of photos, or a video");
    in.kind = CaptureKind::kVideo;
    in.path = path;
    return in;
  }
  if (!fs::is_directory(p, ec)) throw Error(path, "neither a folder of photos nor a video file");
  in.path = path;
  list_images(p, in.images, in.skipped);
  if (in.images.empty() && fs::is_directory(p / "images", ec)) {
    std::vector<std::string> images, skipped;
    list_images(p / "images", images, skipped);
    if (!images.empty() || !skipped.empty()) {
      in.path = (p / "images").string();
      in.images = std::move(images);
      in.skipped = std::move(skipped);
    }
  }
  if (in.images.empty()) {
    std::string why = "no images (.jpg, .jpeg, .png) in this folder";
    if (!in.skipped.empty())
      why += "; " + std::to_string(in.skipped.size()) + " file(s) of other formats (e.g. " + in.skipped[0] +
             ") need converting to JPEG first";
    throw Error(in.path, why);
  }
  return in;
}

}  // namespace glint::capture
