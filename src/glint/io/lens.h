#pragma once
// Lens models of the source cameras (COLMAP / OpenCV conventions) and their undistortion
// to the ideal pinhole that the rest of Glint works with.
#include <string>

#include "glint/core/image.h"
#include "glint/core/math.h"

namespace glint {

// OpenCV's rational + tangential model on normalised coordinates; all zero = no distortion.
struct Distortion {
  double k1 = 0, k2 = 0, k3 = 0, k4 = 0, k5 = 0, k6 = 0, p1 = 0, p2 = 0;

  bool is_identity() const;
  Vec2d distort(Vec2d xy) const;
  // Inverse of distort by fixed-point iteration; `ok` false where it does not converge.
  Vec2d undistort(Vec2d xy, bool* ok = nullptr) const;
};

struct Intrinsics {
  int width = 0, height = 0;
  double fx = 0, fy = 0, cx = 0, cy = 0;
};

// A camera as a dataset describes it: intrinsics plus distortion; `model` is its name in
// the dataset (e.g. "OPENCV") for reports.
struct SourceCamera {
  std::string model = "PINHOLE";
  Intrinsics k;
  Distortion dist;
};

// The pinhole camera of the same size whose every pixel sees through the source image
// (no black borders): the largest rectangle inside the undistorted image outline.
// Throws glint::Error (naming `what`) when the distortion cannot be inverted.
Intrinsics undistorted_intrinsics(const SourceCamera& src, const std::string& what);

// Resamples `image` (taken with `src`) into the pinhole camera `dst` by bilinear lookup.
Image8 undistort_image(const Image8& image, const SourceCamera& src, const Intrinsics& dst);

}  // namespace glint
