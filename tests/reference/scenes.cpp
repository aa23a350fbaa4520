#include "reference/scenes.h"

#include <cmath>
#include <random>

namespace glint::test {

Camera look_at(int width, int height, double focal, Vec3d eye, Vec3d target, double cx, double cy) {
  Camera c;
  c.name = "test";
  c.width = width;
  c.height = height;
  c.fx = c.fy = focal;
  c.cx = cx >= 0 ? cx : width / 2.0;
  c.cy = cy >= 0 ? cy : height / 2.0;
  Vec3d f = normalize(target - eye);
  Vec3d r = normalize(cross(f, Vec3d{0, 0, 1}));
  Vec3d d = cross(f, r);
  c.R = {{r.x, r.y, r.z, d.x, d.y, d.z, f.x, f.y, f.z}};
  c.t = -(c.R * eye);
  return c;
}

GaussianModel random_scene(int n, std::uint64_t seed, const SceneOptions& opt) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> U(0, 1);
  auto u = [&](double a, double b) { return a + (b - a) * U(rng); };
  GaussianModel m;
  m.sh_degree = opt.sh_degree;
  m.resize(std::size_t(n));
  Vec3d fwd = normalize(Vec3d{0, 0, 0} - opt.eye);
  for (int i = 0; i < n; ++i) {
    Vec3d p;
    do p = {u(-1, 1), u(-1, 1), u(-1, 1)};
    while (dot(p, p) > 1);
    p = opt.radius * p;
    double ls[3] = {u(opt.log_scale_min, opt.log_scale_max), u(opt.log_scale_min, opt.log_scale_max),
                    u(opt.log_scale_min, opt.log_scale_max)};
    double q[4] = {u(-1, 1), u(-1, 1), u(-1, 1), u(-1, 1)};
    double logit = u(-5, 4);
    if (opt.hard_cases) {
      int kind = int(rng() % 40);
      if (kind == 0) {  // behind the camera
        p = opt.eye - u(0.1, 2) * fwd + Vec3d{u(-0.3, 0.3), u(-0.3, 0.3), u(-0.3, 0.3)};
      } else if (kind == 1) {  // centre just in front of / behind the near plane, large
        p = opt.eye + u(-0.02, 0.2) * fwd + Vec3d{u(-0.05, 0.05), u(-0.05, 0.05), u(-0.05, 0.05)};
        for (double& l : ls) l = u(-2.5, -1.0);
        logit = u(-6, -3.5);
      } else if (kind == 2) {  // huge
        for (double& l : ls) l = u(-0.5, 1.0);
        logit = u(-6, -4);
      } else if (kind == 3) {  // degenerate: one axis collapsed
        ls[rng() % 3] = -14;
      } else if (kind == 4) {  // zero quaternion
        q[0] = q[1] = q[2] = q[3] = 0;
      } else if (kind == 5) {  // thin and long
        ls[0] = u(-1.5, -0.5);
        ls[1] = ls[2] = u(-7, -5);
      }
    }
    const double pv[3] = {p.x, p.y, p.z};
    for (int k = 0; k < 3; ++k) {
      m.means[3 * i + k] = float(pv[k]);
      m.log_scales[3 * i + k] = float(ls[k]);
      m.sh_dc[3 * i + k] = float(u(-1.5, 1.5));
    }
    for (int k = 0; k < 4; ++k) m.quats[4 * i + k] = float(q[k]);
    m.opacity_logits[i] = float(logit);
    for (int k = 0; k < 45; ++k) m.sh_rest[45 * i + k] = float(u(-opt.sh_rest_scale, opt.sh_rest_scale));
  }
  return m;
}

}  // namespace glint::test
