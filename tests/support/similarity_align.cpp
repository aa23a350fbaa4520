#include "support/similarity_align.h"

#include <cmath>
#include <stdexcept>

namespace glint::test {

namespace {

// Eigen decomposition of a symmetric 4x4 matrix by cyclic Jacobi rotations; returns the
// eigenvector of the largest eigenvalue.
void largest_eigenvector(double A[4][4], double out[4]) {
  double V[4][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}};
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0;
    for (int p = 0; p < 4; ++p)
      for (int q = p + 1; q < 4; ++q) off += A[p][q] * A[p][q];
    if (off < 1e-30) break;
    for (int p = 0; p < 4; ++p)
      for (int q = p + 1; q < 4; ++q) {
        if (std::abs(A[p][q]) < 1e-300) continue;
        const double theta = (A[q][q] - A[p][p]) / (2 * A[p][q]);
        const double t = (theta >= 0 ? 1.0 : -1.0) / (std::abs(theta) + std::sqrt(theta * theta + 1));
        const double c = 1 / std::sqrt(t * t + 1), s = t * c;
        for (int k = 0; k < 4; ++k) {  // A = J^T A J, columns then rows
          const double akp = A[k][p], akq = A[k][q];
          A[k][p] = c * akp - s * akq;
          A[k][q] = s * akp + c * akq;
        }
        for (int k = 0; k < 4; ++k) {
          const double apk = A[p][k], aqk = A[q][k];
          A[p][k] = c * apk - s * aqk;
          A[q][k] = s * apk + c * aqk;
        }
        for (int k = 0; k < 4; ++k) {
          const double vkp = V[k][p], vkq = V[k][q];
          V[k][p] = c * vkp - s * vkq;
          V[k][q] = s * vkp + c * vkq;
        }
      }
  }
  int best = 0;
  for (int i = 1; i < 4; ++i)
    if (A[i][i] > A[best][best]) best = i;
  for (int k = 0; k < 4; ++k) out[k] = V[k][best];
}

}  // namespace

Similarity align_similarity(const std::vector<Vec3d>& a, const std::vector<Vec3d>& b) {
  if (a.size() != b.size() || a.size() < 3) throw std::invalid_argument("align_similarity: need 3+ point pairs");
  const double n = static_cast<double>(a.size());
  Vec3d ma{0, 0, 0}, mb{0, 0, 0};
  for (std::size_t i = 0; i < a.size(); ++i) {
    ma = ma + a[i];
    mb = mb + b[i];
  }
  ma = (1 / n) * ma;
  mb = (1 / n) * mb;
  double S[3][3] = {};  // sum of (a - ma)(b - mb)^T
  double saa = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const Vec3d p = a[i] - ma, q = b[i] - mb;
    const double pv[3] = {p.x, p.y, p.z}, qv[3] = {q.x, q.y, q.z};
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) S[r][c] += pv[r] * qv[c];
    saa += dot(p, p);
  }
  const double xx = S[0][0], xy = S[0][1], xz = S[0][2], yx = S[1][0], yy = S[1][1], yz = S[1][2], zx = S[2][0],
               zy = S[2][1], zz = S[2][2];
  double N[4][4] = {{xx + yy + zz, yz - zy, zx - xz, xy - yx},
                    {yz - zy, xx - yy - zz, xy + yx, zx + xz},
                    {zx - xz, xy + yx, -xx + yy - zz, yz + zy},
                    {xy - yx, zx + xz, yz + zy, -xx - yy + zz}};
  double q[4];
  largest_eigenvector(N, q);
  Similarity s;
  s.R = quat_to_rotmat(Quatd{q[0], q[1], q[2], q[3]});
  double sab = 0;  // sum of (b - mb) . R (a - ma)
  for (std::size_t i = 0; i < a.size(); ++i) sab += dot(b[i] - mb, s.R * (a[i] - ma));
  s.scale = saa > 0 ? sab / saa : 1;
  s.t = mb - s.scale * (s.R * ma);
  return s;
}

}  // namespace glint::test
