#pragma once
// fine_tune's checks on any backend (train_fine_tune_test.cpp on the CPU,
// vulkan_fine_tune_test.cpp on both CPU Vulkan drivers): a small scene of random splats
// and one splat outside every view.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>

#include "glint/io/dataset.h"
#include "glint/io/image_cache.h"
#include "glint/train/evaluate.h"
#include "glint/train/fine_tune.h"
#include "support/scene_builder.h"
#include "test_support.h"

namespace glint::test {


struct FineTuneScene {
  TempDir dir;
  Dataset data;
  GaussianModel model;
  std::size_t unseen = 0;  // the row of a splat outside every view
  FineTuneScene() {
    write_colmap_dataset(dir.str(), 4);
    DatasetOptions o;
    o.test_every = 0;
    data = load_dataset(dir.str(), o);
    // random splats around the origin, which every camera looks at
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> pos(-0.6f, 0.6f), col(-1.f, 1.f);
    const std::size_t n = 300;
    model.sh_degree = 3;
    model.resize(n + 1);
    for (std::size_t i = 0; i <= n; ++i) {
      for (int c = 0; c < 3; ++c) {
        model.means[3 * i + c] = pos(rng);
        model.log_scales[3 * i + c] = std::log(0.06f);
        model.sh_dc[3 * i + c] = col(rng);
      }
      model.quats[4 * i] = 1.f;
      model.opacity_logits[i] = 0.f;
    }
    std::fill(model.sh_rest.begin(), model.sh_rest.end(), 0.f);
    // the last splat far out on whichever axis no camera sees
    unseen = n;
    auto backend = make_cpu_backend(1);
    for (const Vec3d far : {Vec3d{0, 80, 0}, Vec3d{0, -80, 0}, Vec3d{80, 0, 0}, Vec3d{-80, 0, 0}, Vec3d{0, 0, 80},
                            Vec3d{0, 0, -80}}) {
      GaussianModel one = model;
      one.resize(0);
      one.resize(1);
      one.means = {float(far.x), float(far.y), float(far.z)};
      one.log_scales = {-2.f, -2.f, -2.f};
      one.quats = {1.f, 0.f, 0.f, 0.f};
      bool seen = false;
      for (const View& v : data.train) seen = seen || backend->forward(one, v.camera, RenderSettings{}).radii[0] > 0;
      if (seen) continue;
      for (int c = 0; c < 3; ++c) model.means[3 * n + c] = one.means[static_cast<std::size_t>(c)];
      return;
    }
    ADD_FAILURE() << "no place outside every view";
  }
  TrainOptions options(long steps) const {
    TrainOptions t;
    t.steps = steps;
    t.sh_degree_every = 1;
    return t;
  }
  double train_psnr(const GaussianModel& m, Backend& backend) const {
    ImageCache cache(data, data.train, std::size_t{1} << 24);
    RenderSettings rs;
    rs.for_backward = false;
    for (int c = 0; c < 3; ++c) rs.background[c] = data.background[static_cast<std::size_t>(c)];
    return evaluate(m, data.train, cache, backend, rs).mean_psnr;
  }
};

inline void expect_row_equal(const GaussianModel& a, const GaussianModel& b, std::size_t row) {
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(a.means[3 * row + c], b.means[3 * row + c]);
    EXPECT_EQ(a.log_scales[3 * row + c], b.log_scales[3 * row + c]);
    EXPECT_EQ(a.sh_dc[3 * row + c], b.sh_dc[3 * row + c]);
  }
  for (int c = 0; c < 4; ++c) EXPECT_EQ(a.quats[4 * row + c], b.quats[4 * row + c]);
  EXPECT_EQ(a.opacity_logits[row], b.opacity_logits[row]);
}

// The last 100 steps of a 1000-step schedule on `backend` (small learning rates, a small
// gain): the rows are kept, the splat no view sees is bit-identical, the fit improves.
// Returns the training views' PSNR after.
inline double expect_fine_tune_keeps_rows_and_fits(Backend& backend) {
  const FineTuneScene sc;
  EXPECT_EQ(fine_tune(sc.model, sc.data, sc.options(100), 0, backend).means, sc.model.means);  // no steps
  long heard = 0;
  const GaussianModel tuned = fine_tune(sc.model, sc.data, sc.options(1000), 100, backend, [&](long s) {
    EXPECT_EQ(s, heard + 1);
    heard = s;
  });
  EXPECT_EQ(heard, 100);
  EXPECT_EQ(tuned.size(), sc.model.size());  // no densification or pruning
  if (tuned.size() != sc.model.size()) return 0;
  EXPECT_NE(tuned.means, sc.model.means);
  expect_row_equal(tuned, sc.model, sc.unseen);
  auto cpu = make_cpu_backend(1);  // the same evaluation whichever backend trained
  const double after = sc.train_psnr(tuned, *cpu);
  EXPECT_GT(after, sc.train_psnr(sc.model, *cpu) + 0.2);
  return after;
}

// Views masked whole (a mask made in memory, at the camera's size) change nothing.
inline void expect_fully_masked_views_change_nothing(Backend& backend) {
  FineTuneScene sc;
  Image8 zero;
  zero.width = sc.data.train[0].camera.width;
  zero.height = sc.data.train[0].camera.height;
  zero.channels = 1;
  zero.data.assign(static_cast<std::size_t>(zero.width) * static_cast<std::size_t>(zero.height), 0);
  for (View& v : sc.data.train) v.mask_in_memory = std::make_shared<const Image8>(zero);
  const GaussianModel tuned = fine_tune(sc.model, sc.data, sc.options(100), 10, backend);
  for (std::size_t row = 0; row < sc.model.size(); ++row) expect_row_equal(tuned, sc.model, row);
}

}  // namespace glint::test
