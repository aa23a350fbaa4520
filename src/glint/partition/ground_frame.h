#pragma once
// The ground of a capture as a frame of its own: an origin on the ground, two axes along
// it and the normal pointing up, towards the cameras. Found from the data, whatever the
// dataset's world axes (a COLMAP model is rarely gravity-aligned), so that cells are
// rectangles on the ground.
#include <string>
#include <vector>

#include "glint/core/math.h"
#include "glint/io/colmap.h"

namespace glint::partition {

struct GroundFrame {
  Vec3d origin{0, 0, 0};  // on the ground, below the cameras' mean centre
  Vec3d u{1, 0, 0};       // along the ground: the cameras' longest spread
  Vec3d v{0, 1, 0};       // along the ground: up x u
  Vec3d up{0, 0, 1};      // the ground's normal, on the cameras' side
  std::string method;     // what the normal came from: "points", "cameras" or "camera up vectors"

  // (u, v, height above the ground) of a world point, and back.
  Vec3d to_local(Vec3d p) const {
    const Vec3d d = p - origin;
    return {dot(d, u), dot(d, v), dot(d, up)};
  }
  Vec3d to_world(Vec3d l) const { return origin + l.x * u + l.y * v + l.z * up; }
};

// One camera as the ground finder sees it: where it is and where it looks.
struct CameraPose {
  Vec3d center;
  Vec3d forward;  // viewing direction (camera +z) in world coordinates
  Vec3d up;       // the image's up direction (camera -y) in world coordinates
};

// Finds the ground of a capture from its training cameras and sparse points:
// - the normal: the direction of least spread of the sparse points when they are flat
//   (real points only, not ones sampled at random), else of the camera centres when those
//   lie on a plane (a survey flown at one height), else the mean of the cameras' image-up
//   directions (people and drones hold cameras level);
// - its sign: towards the cameras (from the points' centre, or against the mean viewing
//   direction without real points);
// - u: the longest spread of the camera centres on the ground, signed so that the
//   cameras' third moment along it is positive (ties broken by the first camera that is
//   off centre), so that the frame follows the data under any rigid motion;
// - the ground's height: the 2nd percentile of the real points' heights (outliers below
//   the ground ignored), else the lowest camera's.
// Throws glint::Error(`source`, ...) when no direction is usable.
GroundFrame find_ground_frame(const std::vector<CameraPose>& cameras, const PointCloud& points, bool points_random,
                              const std::string& source);

// Eigenvalues (ascending) and unit eigenvectors of a symmetric 3x3 matrix (Jacobi sweeps).
void symmetric_eigen3(const Mat3d& a, double values[3], Vec3d vectors[3]);

}  // namespace glint::partition
