#pragma once
// Builds small datasets on disk for tests: COLMAP binary/text models and transforms.json
// files with generated images, so every loader path and every broken-file case can be
// exercised without the shared datasets.
#include <cstdint>
#include <string>
#include <vector>

#include "glint/core/image.h"
#include "glint/core/math.h"

namespace glint::test {

struct FakeCamera {
  std::uint32_t id = 1;
  int model_id = 1;  // PINHOLE
  std::string model = "PINHOLE";
  std::uint64_t width = 32, height = 24;
  std::vector<double> params{30, 30, 16, 12};
};

struct FakeImage {
  std::uint32_t id = 1;
  Quatd q{1, 0, 0, 0};
  Vec3d t{0, 0, 4};
  std::uint32_t camera_id = 1;
  std::string name = "a.png";
};

struct FakePoint {
  double x = 0, y = 0, z = 0;
  std::uint8_t r = 200, g = 100, b = 50;
};

std::string cameras_bin(const std::vector<FakeCamera>& cams);
std::string images_bin(const std::vector<FakeImage>& ims);
std::string points_bin(const std::vector<FakePoint>& pts);
std::string cameras_txt(const std::vector<FakeCamera>& cams);
std::string images_txt(const std::vector<FakeImage>& ims);
std::string points_txt(const std::vector<FakePoint>& pts);

// A smooth colour pattern, distinct per image index.
Image8 pattern_image(int width, int height, int channels, int index);

// Writes a complete COLMAP binary dataset (sparse/0 + images/) with `n` cameras on a
// circle looking at the origin; returns the per-image fakes it used.
std::vector<FakeImage> write_colmap_dataset(const std::string& root, int n, bool text = false);

// A nerfstudio transforms.json dataset with `n` frames (OpenGL c2w) and its images.
void write_transforms_dataset(const std::string& root, int n);

}  // namespace glint::test
