#pragma once
// What TrainingSession::set_target starts from, on every backend: training view `view` at
// 1/factor of its resolution (area filter, coarse-to-fine) and the camera to render it with.
#include <array>
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

// The factors the densification statistic (train/densify.h) multiplies a render's
// pixel-space mean2d gradients by: half the render's width and height (3DGS's NDC units).
// For a view that is a crop of a larger picture (crop_view), the statistic the whole
// picture would give for the same pixels, so that the gradient threshold keeps its
// meaning: the crop's loss is a mean over fewer pixels (times crop / whole pixels),
// measured in the whole picture's units (whole / crop width and height), which leaves
// the crop's height over the whole's on x and its width over the whole's on y.
std::array<float, 2> densify_grad_scale(const Camera& render, const View& view);

}  // namespace glint
