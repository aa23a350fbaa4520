#include "glint/io/posed_image.h"

#include <cmath>

#include "glint/core/error.h"

namespace glint {

void pose_from_opengl_c2w(const double c2w[3][4], const std::string& what, Mat3d& R, Vec3d& t) {
  Mat3d Rc{};  // camera-to-world rotation with OpenCV camera axes: flip y and z columns
  Vec3d C{};
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 4; ++c)
      if (!std::isfinite(c2w[r][c])) throw Error(what, "non-finite value in transform_matrix");
    Rc(r, 0) = c2w[r][0];
    Rc(r, 1) = -c2w[r][1];
    Rc(r, 2) = -c2w[r][2];
  }
  C = {c2w[0][3], c2w[1][3], c2w[2][3]};
  Mat3d I = transpose(Rc) * Rc;
  double err = 0;
  for (int i = 0; i < 9; ++i) err = std::max(err, std::abs(I.m[i] - ((i % 4 == 0) ? 1.0 : 0.0)));
  double det = Rc(0, 0) * (Rc(1, 1) * Rc(2, 2) - Rc(1, 2) * Rc(2, 1)) -
               Rc(0, 1) * (Rc(1, 0) * Rc(2, 2) - Rc(1, 2) * Rc(2, 0)) +
               Rc(0, 2) * (Rc(1, 0) * Rc(2, 1) - Rc(1, 1) * Rc(2, 0));
  if (err > 1e-3 || det < 0)
    throw Error(what, "transform_matrix rotation is not a proper rotation (orthonormality error " +
                          std::to_string(err) + ")");
  // Snap to the nearest exact rotation so float32 noise in files does not become shear.
  Rc = quat_to_rotmat(rotmat_to_quat(Rc));
  R = transpose(Rc);
  t = -(R * C);
}

}  // namespace glint
