#pragma once
// Where `render`-like commands get their cameras: a dataset split, or a cameras.json
// written by `glint train` (or graphdeco's trainer).
#include <array>
#include <string>
#include <vector>

#include "glint/cli/dataset_options.h"
#include "glint/core/camera.h"

namespace glint::cli {

struct CameraSource {
  std::vector<Camera> cameras;
  std::array<float, 3> background{0, 0, 0};  // the dataset's, or black for cameras.json
  std::vector<std::size_t> split_index;        // index of each camera in its split
};

// `split` is train, test or all (ignored for cameras.json).
CameraSource load_cameras(const std::string& path, const std::string& split, const DatasetFlags& flags);

}  // namespace glint::cli
