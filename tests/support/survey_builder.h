#pragma once
// Synthetic aerial surveys in memory (no images): cameras on a lawn-mower grid looking down
// at a few headings, sparse points on the ground and on block-shaped buildings, held-out
// cameras at random spots. For the partition's tests, which need poses and points only.
#include <cstdint>

#include "glint/io/dataset.h"

namespace glint::test {

struct SurveySpec {
  int grid_x = 10, grid_y = 5;  // camera positions
  double width = 80, depth = 40;  // extent of the positions (metres)
  double height = 24, pitch_deg = 50, hfov_deg = 60;
  int headings = 4;          // headings per position: 0.15 rad + k * 2 pi / headings
  double jitter = 0;         // random offset of each position, metres
  int points = 20000;        // ground points over the extent plus a 20 m margin, and buildings
  int test_views = 12;
  std::uint64_t seed = 1;
};

Dataset make_survey(const SurveySpec& spec);

// A camera at `center` looking along yaw (radians from +x, counter-clockwise about +z) and
// pitch below the horizon, 320x240 with the given horizontal field of view.
Camera survey_camera(Vec3d center, double yaw, double pitch, double hfov_deg);

// A w x h camera at `center` looking straight down (-z) with focal length f and the
// principal point in the middle: x right = world +x, y down = world -y. Pixel (x, y) sees
// the ground point center.xy + ((x + 0.5 - w / 2) / f, -(y + 0.5 - h / 2) / f) * center.z.
Camera straight_down_camera(Vec3d center, int w, int h, double f);

// The same dataset seen through a rigid motion x -> R x + t (cameras and points).
Dataset moved(const Dataset& d, const Mat3d& R, Vec3d t);

}  // namespace glint::test
