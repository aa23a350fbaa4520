#pragma once
// What every dataset format reduces to before images are looked at: an image file, the
// lens that took it, and its world-to-camera pose in the OpenCV convention.
#include <string>

#include "glint/core/math.h"
#include "glint/io/lens.h"

namespace glint {

struct PosedImage {
  std::string name;  // file name as the dataset lists it
  std::string path;  // resolved path on disk
  std::string mask_path;  // the image's mask file (a dataset's own, or found in a masks folder), or empty
  int channels = 0;       // of the image file, once its header has been read
  SourceCamera lens;  // width/height 0 = not given by the dataset: taken from the image
  bool focal_from_fov = false;  // fx/fy/cx/cy still to be derived from fov_x/fov_y and the size
  double fov_x = 0, fov_y = 0;  // radians, when focal_from_fov
  Mat3d R = identity3<double>();
  Vec3d t{0, 0, 0};
};

// World-to-camera (OpenCV axes) from a camera-to-world matrix with OpenGL camera axes
// (x right, y up, looking down -z), as NeRF-style json files store it. Throws
// glint::Error naming `what` when the rotation is not a rotation or a value is not finite.
void pose_from_opengl_c2w(const double c2w[3][4], const std::string& what, Mat3d& R, Vec3d& t);

}  // namespace glint
