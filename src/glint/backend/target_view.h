#pragma once
// What TrainingSession::set_target starts from, on every backend: training view `view` at
// 1/factor of its resolution (area filter, coarse-to-fine) and the camera to render it with.
#include <cstddef>
#include <memory>

#include "glint/backend/training_session.h"
#include "glint/core/camera.h"
#include "glint/core/image.h"

namespace glint {

struct TargetView {
  Camera camera;
  std::shared_ptr<const Image8> image;  // the cached full-size view
  Image8 scaled;                        // the view at 1/factor, when factor > 1
  const Image8& pixels() const { return scaled.data.empty() ? *image : scaled; }
};

TargetView target_view(const TrainingSetup& setup, std::size_t view, int factor);

}  // namespace glint
