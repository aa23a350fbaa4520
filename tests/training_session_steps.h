#pragma once
// A small training scene and one training step through the TrainingSession interface, as
// the Trainer runs it (ADC statistics, flattening; or the geometry regularisers): what the
// session tests run on the CPU,
// the emulated device and a real device. The scene is the bundled demo at 25x25 pixels with
// a few hundred splats, so that emulated kernels run in seconds.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "glint/backend/training_session.h"
#include "glint/io/dataset.h"
#include "glint/io/image_cache.h"
#include "glint/train/init.h"

namespace glint::test {

struct Scene {
  Dataset data;
  ImageCache images;
  explicit Scene(std::size_t points)
      : data(load_dataset(std::string(GLINT_SOURCE_DIR) + "/data/demo",
                          [] {
                            DatasetOptions o;
                            o.downscale = 8;
                            return o;
                          }())),
        images(data, data.train, std::size_t{64} << 20) {
    // every k-th point, so that the emulated blend has a few hundred splats to stage
    const std::size_t k = std::max<std::size_t>(1, data.points.size() / points);
    PointCloud few;
    for (std::size_t i = 0; i < data.points.size(); i += k) {
      few.xyz.insert(few.xyz.end(), data.points.xyz.begin() + 3 * i, data.points.xyz.begin() + 3 * i + 3);
      few.rgb.insert(few.rgb.end(), data.points.rgb.begin() + 3 * i, data.points.rgb.begin() + 3 * i + 3);
    }
    data.points = few;
  }
  TrainingSetup setup() {
    TrainingSetup s;
    s.dataset = &data;
    s.images = &images;
    return s;
  }
  // The points' splats, turned and stretched a little (a fixed pattern): from the plain
  // initialisation (isotropic, unrotated) the rotations' gradients are zero up to rounding.
  SplatSet initial() const {
    GaussianModel m = init_from_points(data.points);
    for (std::size_t i = 0; i < m.size(); ++i) {
      const float a = static_cast<float>(i);
      float q[4] = {1.f, 0.3f * std::sin(a), 0.3f * std::cos(1.3f * a), 0.2f * std::sin(0.7f * a)};
      const float norm = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
      for (int k = 0; k < 4; ++k) m.quats[4 * i + static_cast<std::size_t>(k)] = q[k] / norm;
      for (int k = 0; k < 3; ++k) m.log_scales[3 * i + static_cast<std::size_t>(k)] += 0.4f * std::sin(a + 2.f * static_cast<float>(k));
    }
    return SplatSet(std::move(m));
  }
};

struct StepOut {
  double loss = 0;
  std::size_t visible = 0;
  int adam = 0;
};

// One step as the Trainer runs it with ADC statistics, on view `view`.
inline StepOut run_step(TrainingSession& s, std::size_t view, long step, int sh_degree, bool selective) {
  StepOut o;
  const std::array<float, 3> bg = {0.1f, 0.2f, 0.3f};
  s.set_target(view, 1, bg);
  RenderSettings rs;
  for (int c = 0; c < 3; ++c) rs.background[c] = bg[static_cast<std::size_t>(c)];
  rs.sh_degree = sh_degree;
  s.set_sh_degree(sh_degree);
  s.render(rs);
  o.loss = s.photometric_loss();
  s.backward();
  o.loss += s.flatten(0.01f);
  o.visible = s.visibility();
  DensifyOptions d;
  s.accumulate_densify_stats(step, d);
  const GroupRates rates = {1e-3f, 5e-3f, 1e-3f, 5e-2f, 2.5e-3f, 1.25e-4f};
  o.adam = s.adam(rates, selective, sh_degree);
  return o;
}

// The geometry regularisers' weights (the lightable preset's, train/run_options.cpp).
struct GeometryWeights {
  float normal = 0.05f, distortion = 0.5f, flatten = 100.f;
  float normal_edge = 0.f;
};
struct GeometryStepOut {
  double photometric = 0, normal = 0, distortion = 0, total = 0;
  std::size_t visible = 0;
  int adam = 0;
};

// One step as the Trainer runs it once every geometry regulariser is on, on view `view`.
inline GeometryStepOut run_geometry_step(TrainingSession& s, const GeometryWeights& w, std::size_t view,
                                         int sh_degree) {
  GeometryStepOut r;
  const std::array<float, 3> bg = {0.1f, 0.2f, 0.3f};
  s.set_target(view, 1, bg);
  RenderSettings rs;
  for (int c = 0; c < 3; ++c) rs.background[c] = bg[static_cast<std::size_t>(c)];
  rs.sh_degree = sh_degree;
  s.set_sh_degree(sh_degree);
  rs.want_alpha = rs.want_depth = rs.want_normal = rs.want_distortion = true;
  s.render(rs);
  r.photometric = s.photometric_loss();
  r.normal = s.normal_consistency(w.normal, w.normal_edge);
  r.distortion = s.distortion(w.distortion);
  s.backward();
  r.total = r.photometric + r.normal + r.distortion + s.flatten(w.flatten);
  r.visible = s.visibility();
  const GroupRates rates = {1e-3f, 5e-3f, 1e-3f, 5e-2f, 2.5e-3f, 1.25e-4f};
  r.adam = s.adam(rates, false, sh_degree);
  return r;
}

}  // namespace glint::test
