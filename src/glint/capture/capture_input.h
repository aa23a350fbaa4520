#pragma once
// What a user hands to `glint sfm` or `glint train` when it is not a posed dataset: a
// folder of photos, or a video file.
#include <string>
#include <vector>

namespace glint::capture {

enum class CaptureKind { kPhotos, kVideo };

struct CaptureInput {
  CaptureKind kind = CaptureKind::kPhotos;
  std::string path;                 // the photos' folder (perhaps INPUT/images), or the video file
  std::vector<std::string> images;  // photos: file names in that folder, sorted
  std::vector<std::string> skipped; // photos: files that are not JPEG or PNG (e.g. .heic)
};

// True when `path` is a photo folder without poses or a video file rather than a dataset
// (a folder with transforms*.json or a COLMAP model, or a .json file).
bool is_capture(const std::string& path);

// Reads what `path` is. A missing path, or a folder with no JPEG or PNG images (neither in
// it nor in its images/ subfolder), throws glint::Error naming it.
CaptureInput open_capture(const std::string& path);

// True for the file extensions treated as videos (.mp4, .mov, ...; any case).
bool has_video_extension(const std::string& path);

}  // namespace glint::capture
