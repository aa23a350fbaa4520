#pragma once
// The similarity transform (scale, rotation, translation) that best maps one set of 3D
// points onto another in the least-squares sense (Horn's closed form with unit
// quaternions), for comparing camera centres found by SfM with a dataset's own, which live
// in a frame and scale of their own.
#include <vector>

#include "glint/core/math.h"

namespace glint::test {

struct Similarity {
  double scale = 1;
  Mat3d R = identity3<double>();
  Vec3d t{0, 0, 0};
  Vec3d apply(Vec3d p) const { return scale * (R * p) + t; }
};

// Minimises sum |s R a_i + t - b_i|^2 over s > 0, rotations R and t. a and b have the same
// size, at least 3 points not all on one line.
Similarity align_similarity(const std::vector<Vec3d>& a, const std::vector<Vec3d>& b);

}  // namespace glint::test
