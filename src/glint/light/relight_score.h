#pragma once
// The relight benchmark's scoring, matching datasets/relight/tools/score_relight.py:
// both images are composited onto the background in the sRGB-encoded domain
// (code/255 * alpha + bg * (1 - alpha)), PSNR = 10 log10(1 / MSE) over all W*H*3 values;
// the masked PSNR uses only pixels with GT alpha > 0.5. Accumulated in double.
// Plus the geometry check: the angle between predicted and GT world normals.
#include <optional>
#include <string>
#include <vector>

#include "glint/core/image.h"

namespace glint {

// Interleaved [H,W,3] values in [0,1] (values code/255 composited onto `bg`); grey
// images become RGB. With `alpha_out`, also the [H,W] alpha (1 where the image has none).
std::vector<double> composite_srgb(const Image8& img, double bg, std::vector<double>* alpha_out = nullptr);

// PSNR of two composited images of equal size; `mask` (per pixel, may be null) selects
// pixels. +infinity when identical; NaN when the mask selects nothing.
double psnr(const std::vector<double>& a, const std::vector<double>& b, const std::vector<unsigned char>* mask = nullptr);

struct RelitViewScore {
  double psnr = 0;
  double psnr_masked = 0;  // GT alpha > 0.5
};
// Throws glint::Error when the sizes differ.
RelitViewScore score_view(const Image8& pred, const Image8& gt, double bg = 0.0);

struct SetupScore {
  std::string setup;
  std::vector<double> per_view;            // PSNR per test view
  double psnr = 0, psnr_masked = 0;        // means over views
  std::optional<double> psnr_vs_noshadow;  // against relit/<setup>_noshadow when present
};
struct RelightScore {
  std::vector<SetupScore> setups;
  double mean_psnr = 0;
};

// Scores PRED/<setup>/r_<i>.png against DATASET/relit/<setup>/r_<i>.png for every test view
// (count from capture/transforms_test.json) of the given setups (empty: all setups of
// relit/lights.json, in file order). Throws glint::Error naming a missing prediction.
// 16-bit PNGs are read as 8-bit (the reference script reads them at full precision).
RelightScore score_relight(const std::string& dataset, const std::string& pred_dir,
                           const std::vector<std::string>& setups = {}, double bg = 0.0);
std::string relight_score_json(const RelightScore& score);  // the layout of scores.json

struct NormalError {
  double mean_deg = 0, median_deg = 0;
  long pixels = 0;   // evaluated pixels
  long missing = 0;  // evaluable pixels where the prediction is zero (not in the mean)
};
// Angle between `pred` and `gt` ([H,W,3] world normals; neither needs to be unit) on
// pixels whose whole (2*border+1)^2 neighbourhood has mask == 255 (border 1: 3x3), so
// silhouettes and the filter-mixed GT normals next to them are left out.
NormalError normal_angle_error(const ImageF& pred, const ImageF& gt, const Image8& mask, int border = 1);

}  // namespace glint
