#pragma once
// PSNR and SSIM of a model against a split's images (renders clamped to [0,1], compared
// with the images composited on the dataset background, as 3DGS evaluates). A view with a
// mask is scored on the pixels its mask keeps (psnr_masked, ssim_masked: train/metrics.h).
#include <functional>
#include <string>
#include <vector>

#include "glint/backend/backend.h"
#include "glint/io/dataset.h"
#include "glint/io/image_cache.h"

namespace glint {

struct ViewScore {
  std::string name;
  double psnr = 0, ssim = 0;
  double render_ms = 0;
  bool masked = false;
  double mask_coverage = 1;  // the mask's mean weight (1 without a mask)
};

struct EvalReport {
  std::vector<ViewScore> views;
  double mean_psnr = 0, mean_ssim = 0;
  std::size_t masked_views = 0;  // views scored on their masks' pixels only
};

// on_view (optional) sees each view's index, score and clamped render as it is done.
EvalReport evaluate(const GaussianModel& model, const std::vector<View>& views, ImageCache& images, Backend& backend,
                    const RenderSettings& settings,
                    const std::function<void(std::size_t, const ViewScore&, const ImageF&)>& on_view = {});

}  // namespace glint
