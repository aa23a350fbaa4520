#include "glint/capture/camera_choice.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "glint/core/error.h"

namespace glint::capture {

const std::vector<std::string>& supported_camera_models() {
  static const std::vector<std::string> models{"SIMPLE_PINHOLE", "PINHOLE", "SIMPLE_RADIAL", "RADIAL", "OPENCV"};
  return models;
}

CameraChoice choose_camera(const CameraGroupFacts& f, const std::string& forced) {
  CameraChoice c;
  // 35 mm equivalent focal lengths are defined on the diagonal of a 36 x 24 mm frame.
  if (f.focal_35mm > 0) c.focal_px = f.focal_35mm / std::hypot(36.0, 24.0) * std::hypot(f.width, f.height);
  if (!forced.empty()) {
    const auto& ok = supported_camera_models();
    if (std::find(ok.begin(), ok.end(), forced) == ok.end())
      throw Error("--camera-model " + forced, "not a model Glint undistorts (choose from SIMPLE_PINHOLE, PINHOLE, "
                                              "SIMPLE_RADIAL, RADIAL, OPENCV)");
    c.model = forced;
    c.reason = "--camera-model";
    return c;
  }
  const int longest = std::max(f.width, f.height);
  char why[160];
  if (f.focal_35mm > 0 && f.focal_35mm < 22) {
    // Ultra-wide lenses bend lines far more than one radial term fits.
    c.model = "OPENCV";
    std::snprintf(why, sizeof why, "EXIF: %.0f mm equivalent, wide-angle", f.focal_35mm);
  } else if (!f.video && longest >= 2000 && f.images >= 20) {
    // Many large photos pin down a second radial term; few or small ones overfit it.
    c.model = "RADIAL";
    std::snprintf(why, sizeof why, "%d photos of %dx%d%s", f.images, f.width, f.height,
                  f.focal_35mm > 0 ? ", EXIF focal length" : "");
  } else {
    c.model = "SIMPLE_RADIAL";
    std::snprintf(why, sizeof why, "%d %s of %dx%d%s", f.images, f.video ? "video frames" : "images", f.width,
                  f.height, f.focal_35mm > 0 ? ", EXIF focal length" : ", no EXIF focal length");
  }
  c.reason = why;
  return c;
}

std::string camera_params(const std::string& model, double f, int width, int height) {
  if (!(f > 0)) return "";
  char b[256];
  const double cx = 0.5 * width, cy = 0.5 * height;
  if (model == "SIMPLE_PINHOLE") {
    std::snprintf(b, sizeof b, "%.6g,%.6g,%.6g", f, cx, cy);
  } else if (model == "PINHOLE") {
    std::snprintf(b, sizeof b, "%.6g,%.6g,%.6g,%.6g", f, f, cx, cy);
  } else if (model == "SIMPLE_RADIAL") {
    std::snprintf(b, sizeof b, "%.6g,%.6g,%.6g,0", f, cx, cy);
  } else if (model == "RADIAL") {
    std::snprintf(b, sizeof b, "%.6g,%.6g,%.6g,0,0", f, cx, cy);
  } else if (model == "OPENCV") {
    std::snprintf(b, sizeof b, "%.6g,%.6g,%.6g,%.6g,0,0,0,0", f, f, cx, cy);
  } else {
    return "";
  }
  return b;
}

}  // namespace glint::capture
