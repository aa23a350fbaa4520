#include "glint/partition/ground_frame.h"

#include <algorithm>
#include <cmath>

#include "glint/core/error.h"

namespace glint::partition {

namespace {

// Covariance of a set of points (divided by the count) and their mean.
Mat3d covariance(const std::vector<Vec3d>& pts, Vec3d& mean) {
  mean = {0, 0, 0};
  for (const Vec3d& p : pts) mean = mean + p;
  mean = (1.0 / static_cast<double>(pts.size())) * mean;
  Mat3d c{};
  for (const Vec3d& p : pts) {
    const Vec3d d = p - mean;
    const double e[3] = {d.x, d.y, d.z};
    for (int r = 0; r < 3; ++r)
      for (int k = 0; k < 3; ++k) c.m[r * 3 + k] += e[r] * e[k];
  }
  for (double& x : c.m) x /= static_cast<double>(pts.size());
  return c;
}

// Any unit vector perpendicular to n.
Vec3d perpendicular(Vec3d n) {
  const Vec3d a = std::abs(n.x) < 0.6 ? Vec3d{1, 0, 0} : Vec3d{0, 1, 0};
  return normalize(cross(n, a));
}

}  // namespace

void symmetric_eigen3(const Mat3d& a, double values[3], Vec3d vectors[3]) {
  double m[3][3], v[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) m[r][c] = 0.5 * (a(r, c) + a(c, r));
  for (int sweep = 0; sweep < 50; ++sweep) {
    const double off = m[0][1] * m[0][1] + m[0][2] * m[0][2] + m[1][2] * m[1][2];
    const double diag = m[0][0] * m[0][0] + m[1][1] * m[1][1] + m[2][2] * m[2][2];
    if (off <= 1e-30 * diag || off == 0) break;
    for (int p = 0; p < 2; ++p)
      for (int q = p + 1; q < 3; ++q) {
        if (m[p][q] == 0) continue;
        // The rotation that zeroes m[p][q] (the smaller of the two angles).
        const double theta = (m[q][q] - m[p][p]) / (2 * m[p][q]);
        const double t = (theta >= 0 ? 1.0 : -1.0) / (std::abs(theta) + std::sqrt(theta * theta + 1));
        const double c = 1 / std::sqrt(t * t + 1), s = t * c;
        for (int k = 0; k < 3; ++k) {  // m <- m J
          const double mkp = m[k][p], mkq = m[k][q];
          m[k][p] = c * mkp - s * mkq;
          m[k][q] = s * mkp + c * mkq;
        }
        for (int k = 0; k < 3; ++k) {  // m <- J^T m
          const double mpk = m[p][k], mqk = m[q][k];
          m[p][k] = c * mpk - s * mqk;
          m[q][k] = s * mpk + c * mqk;
        }
        for (int k = 0; k < 3; ++k) {  // v <- v J (columns are the eigenvectors)
          const double vkp = v[k][p], vkq = v[k][q];
          v[k][p] = c * vkp - s * vkq;
          v[k][q] = s * vkp + c * vkq;
        }
      }
  }
  int order[3] = {0, 1, 2};
  std::sort(order, order + 3, [&](int i, int j) { return m[i][i] < m[j][j]; });
  for (int i = 0; i < 3; ++i) {
    const int k = order[i];
    values[i] = m[k][k];
    vectors[i] = normalize(Vec3d{v[0][k], v[1][k], v[2][k]});
  }
}

GroundFrame find_ground_frame(const std::vector<CameraPose>& cameras, const PointCloud& points, bool points_random,
                              const std::string& source) {
  if (cameras.empty()) throw Error(source, "no training cameras to find the ground from");
  std::vector<Vec3d> centers;
  Vec3d mean_forward{0, 0, 0}, mean_up{0, 0, 0};
  for (const CameraPose& c : cameras) {
    centers.push_back(c.center);
    mean_forward = mean_forward + c.forward;
    mean_up = mean_up + c.up;
  }
  const double n_cams = static_cast<double>(cameras.size());
  mean_forward = (1.0 / n_cams) * mean_forward;
  mean_up = (1.0 / n_cams) * mean_up;

  std::vector<Vec3d> pts;
  pts.reserve(points.size());
  for (std::size_t i = 0; i < points.size(); ++i)
    pts.push_back({points.xyz[3 * i], points.xyz[3 * i + 1], points.xyz[3 * i + 2]});
  const bool real_points = !points_random && pts.size() >= 50;

  GroundFrame f;
  Vec3d cam_mean, pts_mean{0, 0, 0};
  double cv[3], pv[3];
  Vec3d ce[3], pe[3];
  symmetric_eigen3(covariance(centers, cam_mean), cv, ce);
  bool found = false;
  if (real_points) {
    symmetric_eigen3(covariance(pts, pts_mean), pv, pe);
    if (pv[0] < 0.25 * pv[1]) {
      f.up = pe[0];
      f.method = "points";
      found = true;
    }
  }
  if (!found && cameras.size() >= 3 && cv[1] > 1e-9 * cv[2] && cv[0] < 0.05 * cv[1]) {
    f.up = ce[0];
    f.method = "cameras";
    found = true;
  }
  if (!found && norm(mean_up) > 0.3) {
    f.up = normalize(mean_up);
    f.method = "camera up vectors";
    found = true;
  }
  if (!found)
    throw Error(source, "cannot find a ground plane: the points are not flat, the cameras neither lie on a plane "
                        "nor are held level");

  // Up points to the cameras: they look down on, or stand above, the scene.
  double side = 0;
  if (real_points) side = dot(cam_mean - pts_mean, f.up);
  if (std::abs(side) < 1e-9 * std::sqrt(cv[2] + (real_points ? pv[2] : 0.0)) || !real_points) {
    side = -dot(mean_forward, f.up);
    if (std::abs(side) < 1e-6) side = dot(mean_up, f.up);
  }
  if (side < 0) f.up = -f.up;

  // u: the cameras' longest spread on the ground.
  const Vec3d e1 = perpendicular(f.up), e2 = cross(f.up, e1);
  double sxx = 0, sxy = 0, syy = 0;
  for (const Vec3d& c : centers) {
    const Vec3d d = c - cam_mean;
    const double x = dot(d, e1), y = dot(d, e2);
    sxx += x * x;
    sxy += x * y;
    syy += y * y;
  }
  // Major axis of [[sxx, sxy], [sxy, syy]]: angle 0.5 atan2(2 sxy, sxx - syy).
  const double angle = 0.5 * std::atan2(2 * sxy, sxx - syy);
  f.u = normalize(std::cos(angle) * e1 + std::sin(angle) * e2);
  double m3 = 0, a3 = 0, spread = 0;
  for (const Vec3d& c : centers) {
    const double x = dot(c - cam_mean, f.u);
    m3 += x * x * x;
    a3 += std::abs(x * x * x);
    spread = std::max(spread, std::abs(x));
  }
  bool flip = false;
  if (std::abs(m3) > 1e-6 * a3) {
    flip = m3 < 0;
  } else {
    for (const Vec3d& c : centers) {
      const double x = dot(c - cam_mean, f.u);
      if (std::abs(x) > 1e-6 * spread) {
        flip = x > 0;  // the first camera off centre lies on the -u side
        break;
      }
    }
  }
  if (flip) f.u = -f.u;
  f.v = cross(f.up, f.u);

  // The ground's height below the cameras' mean centre.
  double ground = 0;
  if (!pts.empty()) {
    std::vector<double> h;
    h.reserve(pts.size());
    for (const Vec3d& p : pts) h.push_back(dot(p - cam_mean, f.up));
    const std::size_t k = h.size() * 2 / 100;
    std::nth_element(h.begin(), h.begin() + static_cast<long>(k), h.end());
    ground = h[k];
  } else {
    ground = 0;
    for (const Vec3d& c : centers) ground = std::min(ground, dot(c - cam_mean, f.up));
  }
  f.origin = cam_mean + ground * f.up;
  return f;
}

}  // namespace glint::partition
