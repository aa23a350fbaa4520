#pragma once
// The few EXIF fields of a JPEG that structure-from-motion uses to pick and seed a camera
// model: the lens's focal length, its 35 mm equivalent, the camera's make and model.
// EXIF is optional metadata: a file without it, or with a damaged block, gives an empty
// ExifInfo rather than an error (the image itself may be fine).
#include <string>

namespace glint {

struct ExifInfo {
  double focal_mm = 0;       // FocalLength; 0: not given
  double focal_35mm = 0;     // FocalLengthIn35mmFilm; 0: not given
  std::string make, model;   // Make, Model; empty: not given
  bool any() const { return focal_mm > 0 || focal_35mm > 0 || !make.empty() || !model.empty(); }
};

// Parses the EXIF block of JPEG bytes (the APP1 "Exif" segment).
ExifInfo parse_exif(const std::string& jpeg_bytes);

// Reads the head of an image file and parses its EXIF; non-JPEG files give an empty result.
// Throws glint::Error when the file cannot be read at all.
ExifInfo read_exif(const std::string& path);

}  // namespace glint
