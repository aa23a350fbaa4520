#pragma once
// Masks through a whole training step on a backend's session: a view whose image differs
// only under its mask must give the same loss and the same gradients (Adam's first
// moments) bit for bit; without the mask the difference shows. The scene is the bundled
// demo at 25x25 (training_session_steps.h), its view 3 masked over a block of whole 8x8
// source pixels (so that every camera pixel is either fully masked or not at all). Used
// by train_mask_session_test.cpp (CPU), cuda_masked_session_test.cpp (CUDA, emulated,
// also in the contracted suite) and vulkan_masked_session_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <memory>
#include <random>

#include "glint/backend/backend.h"
#include "glint/backend/cpu/cpu_training_session.h"
#include "glint/io/image_io.h"
#include "test_support.h"
#include "training_session_steps.h"

namespace glint::test {

constexpr std::size_t kView = 3;
// Source pixels [64, 136) x [48, 128): camera pixels [8, 17) x [6, 16) at 1/8.
inline bool in_hole(int x, int y) { return x >= 64 && x < 136 && y >= 48 && y < 128; }

// Writes the mask of the demo's 200x200 view and a copy of its image scribbled in the hole.
struct MaskFiles {
  TempDir dir;
  std::string mask, scribbled;
  explicit MaskFiles(const std::string& image_path) {
    Image8 m;
    m.width = m.height = 200;
    m.channels = 1;
    m.data.assign(200 * 200, 255);
    for (int y = 0; y < 200; ++y)
      for (int x = 0; x < 200; ++x)
        if (in_hole(x, y)) m.data[static_cast<std::size_t>(y) * 200 + x] = 0;
    mask = dir.str("mask.png");
    write_file(mask, encode_png(m));
    Image8 img = read_image(image_path);
    std::mt19937 rng(5);
    for (int y = 0; y < img.height; ++y)
      for (int x = 0; x < img.width; ++x)
        if (in_hole(x, y))
          for (int c = 0; c < img.channels; ++c) img.row(y)[x * img.channels + c] = static_cast<std::uint8_t>(rng() % 256);
    scribbled = dir.str("scribbled.png");
    write_file(scribbled, encode_png(img));
  }
};

using MakeSession = std::function<std::unique_ptr<TrainingSession>(Scene&)>;
// A device session started from a setup and initial splats.
using StartSession = std::function<std::unique_ptr<TrainingSession>(const TrainingSetup&, SplatSet)>;

// One step on view kView of a scene whose view has `mask` (or none) and `image`.
inline SplatSet step_with(const MakeSession& make, const std::string& mask, const std::string* image, double* loss) {
  Scene sc(400);
  View& v = sc.data.train[kView];
  v.source.mask_path = mask;
  if (image) v.source.path = *image;
  auto s = make(sc);
  *loss = run_step(*s, kView, 1, 1, false).loss;
  return s->state();
}

// control: also the two steps without the mask, which must differ (once is enough: the
// scribble is the same for every backend).
inline void expect_mask_hides_the_scribble(const MakeSession& make, bool control) {
  Scene probe(400);
  MaskFiles files(probe.data.train[kView].source.path);
  double l_plain = 0, l_scribbled = 0, l_open = 0, l_open_scribbled = 0;
  const SplatSet a = step_with(make, files.mask, nullptr, &l_plain);
  const SplatSet b = step_with(make, files.mask, &files.scribbled, &l_scribbled);
  EXPECT_EQ(l_plain, l_scribbled);
  for (int g = 0; g < kNumParamGroups; ++g) {
    const auto gi = static_cast<std::size_t>(g);
    EXPECT_EQ(a.adam.groups()[gi].m, b.adam.groups()[gi].m) << kParamGroupNames[gi];
    EXPECT_EQ(a.param(g), b.param(g)) << kParamGroupNames[gi];
  }
  if (!control) return;
  // without the mask the scribble changes the step
  const SplatSet c = step_with(make, "", nullptr, &l_open);
  const SplatSet d = step_with(make, "", &files.scribbled, &l_open_scribbled);
  EXPECT_NE(l_open, l_open_scribbled);
  EXPECT_NE(c.adam.groups()[kOpacity].m, d.adam.groups()[kOpacity].m);
  EXPECT_NE(l_plain, l_open);  // the mask takes part
}

// One masked step (view kView, target at 1/factor, device images up to images_mb) on the
// CPU session and on the session `start` starts: the loss and Adam's first moments of the
// opacities within the tolerances the unmasked step is held to.
inline void expect_masked_step_matches_the_cpu(const StartSession& start, int factor, std::size_t images_mb,
                                               const std::string& mask) {
  SCOPED_TRACE(testing::Message() << "factor " << factor << ", device images " << images_mb << " MB");
  auto cpu_backend = make_cpu_backend(1);
  Scene sc(400);
  sc.data.train[kView].source.mask_path = mask;
  TrainingSetup setup = sc.setup();
  setup.device_images_mb = images_mb;
  auto cpu = cpu::make_cpu_training_session(*cpu_backend, setup, sc.initial());
  auto dev = start(setup, sc.initial());
  const std::array<float, 3> bg = {0.1f, 0.2f, 0.3f};
  double losses[2];
  TrainingSession* sessions[2] = {cpu.get(), dev.get()};
  for (int k = 0; k < 2; ++k) {
    TrainingSession& s = *sessions[k];
    s.set_target(kView, factor, bg);
    RenderSettings rs;
    for (int c = 0; c < 3; ++c) rs.background[c] = bg[static_cast<std::size_t>(c)];
    rs.sh_degree = 1;
    s.set_sh_degree(1);
    s.render(rs);
    losses[k] = s.photometric_loss();
    s.backward();
    s.visibility();
    s.adam({1e-3f, 5e-3f, 1e-3f, 5e-2f, 2.5e-3f, 1.25e-4f}, false, 1);
  }
  EXPECT_NEAR(losses[1], losses[0], 1e-5 * losses[0]);
  const std::vector<float>& ma = cpu->state().adam.groups()[kOpacity].m;
  const std::vector<float>& mb = dev->state().adam.groups()[kOpacity].m;
  double scale = 0, worst = 0;
  for (std::size_t i = 0; i < ma.size(); ++i) {
    scale = std::max(scale, std::fabs(double(ma[i])));
    worst = std::max(worst, std::fabs(double(mb[i]) - ma[i]));
  }
  EXPECT_GT(scale, 0.0);
  EXPECT_LT(worst, 1e-3 * scale);
}

}  // namespace glint::test
