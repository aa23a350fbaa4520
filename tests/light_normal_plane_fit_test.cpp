#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>

#include "glint/core/camera.h"
#include "glint/core/error.h"
#include "glint/core/math.h"
#include "glint/light/geometry.h"
#include "glint/light/normal_filter.h"
#include "glint/light/normal_plane_fit.h"

using namespace glint;

namespace {

// The focal length of the relight benchmark's 200 x 200 views: a pixel spans 0.36% of its
// depth, about what the rendered depths' roughness is.
Camera test_camera(int w, int h) {
  Camera c;
  c.width = w;
  c.height = h;
  c.fx = c.fy = 278;
  c.cx = w / 2.0;
  c.cy = h / 2.0;
  return c;  // at the origin, looking along +z
}

Vec3d ray(const Camera& c, int x, int y) { return {(x + 0.5 - c.cx) / c.fx, (y + 0.5 - c.cy) / c.fy, 1.0}; }

double angle_deg(const float* a, Vec3d b) {
  const double c = (a[0] * b.x + a[1] * b.y + a[2] * b.z) /
                   (std::sqrt(double(a[0]) * a[0] + double(a[1]) * a[1] + double(a[2]) * a[2]) * norm(b));
  return std::acos(std::clamp(c, -1.0, 1.0)) * 180.0 / M_PI;
}

// A view of a surface: per pixel the z-depth and the true normal from `hit` (false: no
// surface), and splat-like normals: the true normal leaned towards the camera by `lean`
// and perturbed by Gaussian noise of `noise` per component.
struct View {
  Camera cam;
  ImageF depth, position, normal, truth;
};
using Hit = std::function<bool(Vec3d ray, double& z, Vec3d& n)>;
View make_view(int w, int h, const Hit& hit, double lean, double noise, double depth_noise, unsigned seed) {
  View v{test_camera(w, h), ImageF(w, h, 1), {}, ImageF(w, h, 3), ImageF(w, h, 3)};
  std::mt19937 rng(seed);
  std::normal_distribution<double> N(0, 1);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double z;
      Vec3d n;
      const Vec3d r = ray(v.cam, x, y);
      if (!hit(r, z, n)) continue;
      const Vec3d to_eye = normalize(-1.0 * r);
      const Vec3d splat = normalize(n + lean * to_eye + noise * Vec3d{N(rng), N(rng), N(rng)});
      v.depth.at(x, y, 0) = float(z * (1 + depth_noise * N(rng)));
      for (int c = 0; c < 3; ++c) {
        v.normal.at(x, y, c) = float((&splat.x)[c]);
        v.truth.at(x, y, c) = float((&n.x)[c]);
      }
    }
  v.position = world_positions_from_depth(v.cam, v.depth);
  return v;
}

// A plane n . x = d seen from the origin (n faces the camera: d < 0).
Hit plane(Vec3d n, double d) {
  return [n = normalize(n), d](Vec3d r, double& z, Vec3d& out) {
    const double nr = dot(n, r);
    if (!(nr < 0)) return false;
    z = d / nr;
    out = n;
    return z > 0;
  };
}

// Mean angle to the truth over pixels at least `border` pixels inside the image and
// passing `keep`.
double mean_error(const ImageF& n, const View& v, int border, const std::function<bool(int, int)>& keep = {}) {
  double sum = 0;
  long count = 0;
  for (int y = border; y < n.height - border; ++y)
    for (int x = border; x < n.width - border; ++x) {
      if (!(v.depth.at(x, y, 0) > 0) || (keep && !keep(x, y))) continue;
      const float* t = &v.truth.data[(std::size_t(y) * n.width + x) * 3];
      sum += angle_deg(&n.data[(std::size_t(y) * n.width + x) * 3], Vec3d{t[0], t[1], t[2]});
      ++count;
    }
  return count ? sum / double(count) : 1e9;
}

}  // namespace

// Splat normals that lean towards the camera (as blended splat normals do) and are noisy,
// over positions whose depth is rough to 0.2%: the fit finds the plane, the smoothing of
// the splat normals keeps their lean.
TEST(LightNormalPlaneFit, FindsAPlaneThatTheSplatNormalsLeanAwayFrom) {
  const View v = make_view(64, 48, plane({0.2, -0.9, -0.4}, -1.5), 0.15, 0.08, 0.002, 1);
  const ImageF fit = fit_plane_normals(v.normal, v.depth, v.position);
  const ImageF smooth = smooth_normals(v.normal, v.depth);
  const double e_splat = mean_error(v.normal, v, 8), e_smooth = mean_error(smooth, v, 8), e_fit = mean_error(fit, v, 8);
  EXPECT_GT(e_smooth, 4.0) << "the lean survives smoothing";
  EXPECT_LT(e_fit, 1.0) << "splat " << e_splat << ", smoothed " << e_smooth;
}

// A fold between two planes 67 degrees apart, normals without lean: each side keeps its
// own plane up to two pixels from the crease.
TEST(LightNormalPlaneFit, KeepsACrease) {
  const Vec3d na = normalize(Vec3d{-0.55, 0, -0.83}), nb = normalize(Vec3d{0.55, 0, -0.83});
  const Hit a = plane(na, dot(na, Vec3d{0, 0, 2})), b = plane(nb, dot(nb, Vec3d{0, 0, 2}));
  // Both planes pass through the line x = 0, z = 2: the surface is the nearer of the two.
  const Hit fold = [&](Vec3d r, double& z, Vec3d& n) {
    double za, zb;
    Vec3d ma, mb;
    const bool ha = a(r, za, ma), hb = b(r, zb, mb);
    if (!ha && !hb) return false;
    const bool take_a = ha && (!hb || za < zb);
    z = take_a ? za : zb;
    n = take_a ? ma : mb;
    return true;
  };
  const View v = make_view(64, 48, fold, 0.0, 0.08, 0.002, 2);
  const ImageF fit = fit_plane_normals(v.normal, v.depth, v.position);
  const double away = mean_error(fit, v, 8, [](int x, int) { return std::abs(x - 32) > 2; });
  EXPECT_LT(away, 2.0);
  EXPECT_LT(mean_error(fit, v, 8), 0.5 * mean_error(v.normal, v, 8)) << "with the pixels at the crease";
}

// A sphere about 80 pixels across with leaning splat normals: curved surfaces are not
// flattened by the window, and their normals lose the lean too.
TEST(LightNormalPlaneFit, FollowsACurvedSurface) {
  const Vec3d centre{0, 0, 7};
  const Hit sphere = [&](Vec3d r, double& z, Vec3d& n) {
    // |t r - c|^2 = 1 for the nearer t; z = t since r.z = 1
    const double A = dot(r, r), B = -2 * dot(r, centre), C = dot(centre, centre) - 1;
    const double disc = B * B - 4 * A * C;
    if (disc < 0) return false;
    z = (-B - std::sqrt(disc)) / (2 * A);
    n = normalize(z * r - centre);
    return true;
  };
  const View v = make_view(96, 96, sphere, 0.15, 0.1, 0.001, 3);
  const ImageF fit = fit_plane_normals(v.normal, v.depth, v.position);
  // Well inside the disc (within 60 degrees of facing the camera).
  const auto inside = [&](int x, int y) { return v.truth.at(x, y, 2) < -0.5f; };
  const double e_fit = mean_error(fit, v, 4, inside);
  EXPECT_LT(e_fit, 3.5);
  EXPECT_LT(e_fit, 0.7 * mean_error(smooth_normals(v.normal, v.depth), v, 4, inside)) << "the lean survives smoothing";
}

TEST(LightNormalPlaneFit, OrientsLikeTheSplatNormalsAndLeavesEmptyPixelsAlone) {
  // Only a one-pixel-high strip of surface: its samples lie on a line, so any normal
  // across the line fits them; the result is the one nearest the splat normals.
  const Hit strip = [&](Vec3d r, double& z, Vec3d& n) {
    if (std::abs(r.y - 0.5 / 278) > 1e-9) return false;  // row 24 only
    n = normalize(Vec3d{0, -0.5, -1});
    z = 2;
    return true;
  };
  const View v = make_view(32, 48, strip, 0.0, 0.0, 0.0, 4);
  const ImageF fit = fit_plane_normals(v.normal, v.depth, v.position);
  for (int y = 0; y < 48; ++y)
    for (int x = 0; x < 32; ++x) {
      const float* n = &fit.data[(std::size_t(y) * 32 + x) * 3];
      if (y != 24) {
        EXPECT_TRUE(n[0] == 0 && n[1] == 0 && n[2] == 0);
        continue;
      }
      EXPECT_NEAR(std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]), 1.0, 1e-5);
      EXPECT_LT(angle_deg(n, Vec3d{0, -0.5, -1}), 1.0) << x;
    }
  // Flipped splat normals flip the result: it faces where they face.
  ImageF flipped = v.normal;
  for (float& c : flipped.data) c = -c;
  const ImageF back = fit_plane_normals(flipped, v.depth, v.position);
  EXPECT_LT(angle_deg(&back.data[(24 * 32 + 16) * 3], Vec3d{0, 0.5, 1}), 1.0);
}

TEST(LightNormalPlaneFit, RejectsMismatchedImagesAndBadParameters) {
  const View v = make_view(16, 12, plane({0, 0, -1}, -2), 0, 0, 0, 5);
  EXPECT_THROW(fit_plane_normals(v.normal, ImageF(15, 12, 1), v.position), Error);
  EXPECT_THROW(fit_plane_normals(v.normal, v.depth, ImageF(16, 12, 1)), Error);
  PlaneFitParams bad;
  bad.sigma_spatial_px = 0;
  EXPECT_THROW(fit_plane_normals(v.normal, v.depth, v.position, bad), Error);
  bad = {};
  bad.sigma_plane_rel = -1;
  EXPECT_THROW(fit_plane_normals(v.normal, v.depth, v.position, bad), Error);
}

// The lane loop against the one-pixel reference: the same bits everywhere, also at the
// image's edges, in rows whose width is no multiple of the lanes, next to holes and
// occlusion edges, with the default window and a dense one.
TEST(LightNormalPlaneFit, LanesGiveTheReferenceBits) {
  const Vec3d centre{0.1, -0.05, 3};
  const Hit scene = [&](Vec3d r, double& z, Vec3d& n) {
    const double A = dot(r, r), B = -2 * dot(r, centre), C = dot(centre, centre) - 0.25;
    const double disc = B * B - 4 * A * C;
    if (disc >= 0) {  // a sphere in front of a tilted plane
      z = (-B - std::sqrt(disc)) / (2 * A);
      n = normalize(z * r - centre);
      return true;
    }
    return plane({0.3, -0.2, -1}, -4)(r, z, n);
  };
  // 77 rows: three bands of fit_plane_normals's rows, with windows across both seams.
  View v = make_view(101, 77, scene, 0.1, 0.08, 0.002, 6);
  for (int y = 0; y < 77; ++y)  // holes: no surface in a few blocks and single pixels
    for (int x = 0; x < 101; ++x)
      if ((x > 40 && x < 47 && y > 10 && y < 20) || (x * 7 + y * 3) % 29 == 0) {
        v.depth.at(x, y, 0) = 0;
        for (int c = 0; c < 3; ++c) v.normal.at(x, y, c) = v.position.at(x, y, c) = 0;
      }
  for (int stride : {0, 1}) {
    PlaneFitParams p;
    p.stride_px = stride;
    const ImageF lanes = fit_plane_normals(v.normal, v.depth, v.position, p);
    const ImageF ref = fit_plane_normals_reference(v.normal, v.depth, v.position, p);
    ASSERT_EQ(lanes.data.size(), ref.data.size());
    long differ = 0, surface = 0;
    for (std::size_t i = 0; i < ref.data.size(); ++i) {
      differ += lanes.data[i] != ref.data[i];
      surface += ref.data[i] != 0;
    }
    EXPECT_EQ(differ, 0) << "stride " << stride;
    EXPECT_GT(surface, 3 * 101 * 77 / 2) << "most pixels are fitted";
  }
}
