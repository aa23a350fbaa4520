#include "support/survey_builder.h"

#include <cmath>
#include <random>

namespace glint::test {

Camera survey_camera(Vec3d center, double yaw, double pitch, double hfov_deg) {
  Camera c;
  c.width = 320;
  c.height = 240;
  c.fx = c.fy = 0.5 * c.width / std::tan(0.5 * hfov_deg * M_PI / 180);
  c.cx = 0.5 * c.width;
  c.cy = 0.5 * c.height;
  const Vec3d f{std::cos(pitch) * std::cos(yaw), std::cos(pitch) * std::sin(yaw), -std::sin(pitch)};
  const Vec3d r = normalize(cross(f, Vec3d{0, 0, 1}));
  const Vec3d d = cross(f, r);
  c.R = {{r.x, r.y, r.z, d.x, d.y, d.z, f.x, f.y, f.z}};
  c.t = -(c.R * center);
  return c;
}

Camera straight_down_camera(Vec3d center, int w, int h, double f) {
  Camera c;
  c.width = w;
  c.height = h;
  c.fx = c.fy = f;
  c.cx = 0.5 * w;
  c.cy = 0.5 * h;
  c.R = {{1, 0, 0, 0, -1, 0, 0, 0, -1}};
  c.t = -(c.R * center);
  return c;
}

Dataset make_survey(const SurveySpec& s) {
  std::mt19937_64 rng(s.seed);
  std::uniform_real_distribution<double> unit(0, 1);
  Dataset d;
  d.root = "synthetic-survey";
  const double pitch = s.pitch_deg * M_PI / 180;
  int n = 0;
  for (int gy = 0; gy < s.grid_y; ++gy)
    for (int gx = 0; gx < s.grid_x; ++gx) {
      Vec3d c{(gx + 0.5) * s.width / s.grid_x, (gy + 0.5) * s.depth / s.grid_y, s.height};
      c.x += s.jitter * (2 * unit(rng) - 1);
      c.y += s.jitter * (2 * unit(rng) - 1);
      for (int h = 0; h < s.headings; ++h) {
        View v;
        v.camera = survey_camera(c, 0.15 + h * 2 * M_PI / s.headings, pitch, s.hfov_deg);
        v.camera.name = "train_" + std::to_string(n++);
        d.train.push_back(v);
      }
    }
  for (int i = 0; i < s.test_views; ++i) {
    View v;
    const Vec3d c{s.width * (0.05 + 0.9 * unit(rng)), s.depth * (0.05 + 0.9 * unit(rng)), s.height * (0.85 + 0.3 * unit(rng))};
    v.camera = survey_camera(c, 2 * M_PI * unit(rng), pitch, s.hfov_deg);
    v.camera.name = "test_" + std::to_string(i);
    d.test.push_back(v);
  }
  // Points: 80 % on the ground (with a 20 m margin), 20 % on buildings of 4-15 m.
  const auto add = [&](double x, double y, double z) {
    d.points.xyz.insert(d.points.xyz.end(), {static_cast<float>(x), static_cast<float>(y), static_cast<float>(z)});
    d.points.rgb.insert(d.points.rgb.end(), {128, 128, 128});
  };
  const int ground = s.points * 4 / 5;
  for (int i = 0; i < ground; ++i)
    add(-20 + (s.width + 40) * unit(rng), -20 + (s.depth + 40) * unit(rng), 0.05 * (unit(rng) - 0.5));
  for (int b = 0; b < 20; ++b) {
    const double bx = s.width * unit(rng), by = s.depth * unit(rng), bh = 4 + 11 * unit(rng), bw = 3 + 5 * unit(rng);
    for (int i = 0; i < (s.points - ground) / 20; ++i) add(bx + bw * unit(rng), by + bw * unit(rng), bh * unit(rng));
  }
  scene_extent(d);
  return d;
}

Dataset moved(const Dataset& d, const Mat3d& R, Vec3d t) {
  Dataset m = d;
  // x_new = R x + t, so a camera's world -> camera map becomes R_c R^T (x_new - t) + t_c.
  const Mat3d Rt = transpose(R);
  for (auto* split : {&m.train, &m.test})
    for (View& v : *split) {
      Camera& c = v.camera;
      const Mat3d Rc = c.R;
      c.R = Rc * Rt;
      c.t = c.t - c.R * t;
    }
  for (std::size_t i = 0; i < m.points.size(); ++i) {
    const Vec3d p{d.points.xyz[3 * i], d.points.xyz[3 * i + 1], d.points.xyz[3 * i + 2]};
    const Vec3d q = R * p + t;
    m.points.xyz[3 * i] = static_cast<float>(q.x);
    m.points.xyz[3 * i + 1] = static_cast<float>(q.y);
    m.points.xyz[3 * i + 2] = static_cast<float>(q.z);
  }
  scene_extent(m);
  return m;
}

}  // namespace glint::test
