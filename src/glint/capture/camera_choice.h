#pragma once
// Which COLMAP camera model a group of images (one shared camera) gets, and the focal
// length prior it starts from, decided from what the files say: the EXIF focal length in
// 35 mm terms when there is one, else the image size and how many images share the camera.
#include <string>
#include <vector>

namespace glint::capture {

struct CameraGroupFacts {
  int width = 0, height = 0;
  int images = 0;
  bool video = false;
  double focal_35mm = 0;  // EXIF FocalLengthIn35mmFilm shared by the group (0: none)
};

struct CameraChoice {
  std::string model;   // a COLMAP model name Glint's loader undistorts
  double focal_px = 0; // prior from EXIF (0: COLMAP's own default)
  std::string reason;  // a few words for the summary
};

// The models Glint trains on after undistortion (also the --camera-model choices).
const std::vector<std::string>& supported_camera_models();

// `forced`: the --camera-model value, or empty to choose.
CameraChoice choose_camera(const CameraGroupFacts& facts, const std::string& forced);

// COLMAP's --ImageReader.camera_params for the model with focal f and the principal point
// at the centre (distortion zero), or empty when f is 0.
std::string camera_params(const std::string& model, double focal_px, int width, int height);

}  // namespace glint::capture
