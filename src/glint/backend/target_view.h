#pragma once
// What TrainingSession::set_target starts from, on every backend: training view `view` at
// 1/factor of its resolution (area filter, coarse-to-fine) and the camera to render it with.
#include <cstddef>
#include <memory>
#include <vector>

#include "glint/backend/training_session.h"
#include "glint/core/camera.h"
#include "glint/core/image.h"

namespace glint {

struct TargetView {
  Camera camera;
  std::shared_ptr<const Image8> image;  // the cached full-size view
  Image8 scaled;                        // the view at 1/factor, when factor > 1
  std::shared_ptr<const Image8> mask;   // the view's mask (one channel), or null
  Image8 scaled_mask;                   // the mask at 1/factor, when factor > 1
  const Image8& pixels() const { return scaled.data.empty() ? *image : scaled; }
  const Image8* mask_pixels() const { return !mask ? nullptr : scaled_mask.data.empty() ? mask.get() : &scaled_mask; }
};

// A mask's loss weights (masks, train/loss.h): each value / 255 into w ([h * w]); returns
// their sum, in double, in pixel order.
double mask_weights(const Image8& mask, std::vector<float>& w);

TargetView target_view(const TrainingSetup& setup, std::size_t view, int factor);

}  // namespace glint
