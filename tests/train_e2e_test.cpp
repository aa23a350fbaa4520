// The training loop end to end: PSNR rises far above the first render, resume is exact,
// bad states stop with a clear message, Ctrl-C leaves a resumable checkpoint.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "glint/backend/backend.h"
#include "glint/core/error.h"
#include "glint/io/dataset.h"
#include "glint/io/image_cache.h"
#include "glint/train/checkpoint.h"
#include "glint/train/trainer.h"
#include "model_fixture.h"
#include "test_support.h"

using namespace glint;
using namespace glint::test;
using glint::test::expect_same_model;

namespace {

const std::string kDemo = std::string(GLINT_SOURCE_DIR) + "/data/demo";

nlohmann::json read_eval(const TempDir& d) { return nlohmann::json::parse(read_file(d.str("out/eval.json"))); }


// The demo scene at 50x50 (downscale 4 keeps the tests fast), its images and a CPU backend.
Dataset small_demo() {
  DatasetOptions o;
  o.downscale = 4;
  return load_dataset(kDemo, o);
}
struct SmallDemo {
  Dataset data = small_demo();
  ImageCache images{data, data.train, std::size_t{256} << 20};
  std::unique_ptr<Backend> backend = make_cpu_backend();
};

// A small but complete run: densification, an opacity reset and SH degree 1 all happen.
TrainOptions quick_options(Strategy s) {
  TrainOptions o;
  o.steps = 40;
  o.seed = 7;
  o.strategy = s;
  o.densify.densify_from = 10;
  o.densify.densify_every = 10;
  o.densify.opacity_reset_every = 20;
  o.densify.grad_threshold = 1e-5f;
  o.mcmc.refine_from = 10;
  o.mcmc.refine_every = 10;
  o.mcmc.max_splats = 6000;
  o.sh_degree_every = 15;
  return o;
}

void check_exact_resume(Strategy s) {
  SmallDemo d;
  TrainOptions o = quick_options(s);

  Trainer straight(d.data, o, *d.backend, d.images);
  while (straight.current_step() < o.steps) straight.step();

  Trainer first(d.data, o, *d.backend, d.images);
  while (first.current_step() < 23) first.step();
  std::string bytes = serialize_checkpoint(first.checkpoint());
  Trainer second(d.data, o, *d.backend, d.images);
  second.restore(parse_checkpoint(bytes, "ckpt"), "ckpt");
  EXPECT_EQ(second.current_step(), 23);
  while (second.current_step() < o.steps) second.step();
  expect_same_model(straight.model(), second.model());
  EXPECT_EQ(straight.model().sh_degree, 2);  // SH degree +1 every 15 steps, capped by the schedule
}

}  // namespace

TEST(TrainE2E, ResumeIsBitIdenticalAdc) { check_exact_resume(Strategy::kAdc); }
TEST(TrainE2E, ResumeIsBitIdenticalMcmc) { check_exact_resume(Strategy::kMcmc); }

TEST(TrainE2E, KeptSsimBlursChangeNothing) {
  // The training images' SSIM blurs kept across steps (the default) or recomputed every
  // step (no budget): the same parameters bit for bit.
  SmallDemo d;
  TrainOptions o = quick_options(Strategy::kAdc);
  o.steps = 130;  // the demo's 60 views: every view comes round twice, reading its kept blurs
  Trainer kept(d.data, o, *d.backend, d.images);
  while (kept.current_step() < o.steps) kept.step();
  o.ssim_cache_mb = 0;
  Trainer none(d.data, o, *d.backend, d.images);
  while (none.current_step() < o.steps) none.step();
  expect_same_model(kept.model(), none.model());
}

TEST(TrainE2E, TruncatedTrainingImageStopsTheStartNamingTheFirst) {
  // Images decoded on demand (no budget to preload them): the trainer's start, which blurs
  // every view's SSIM target, meets the truncated files and names the first in view order.
  TempDir d;
  std::filesystem::copy(kDemo, d.path() / "demo", std::filesystem::copy_options::recursive);
  // headers intact (the dataset loads: it reads only the sizes), pixel data cut short
  for (const char* name : {"demo/train/r_2.png", "demo/train/r_7.png"})
    write_file(d.str(name), read_file(d.str(name)).substr(0, 200));
  DatasetOptions dopt;
  dopt.downscale = 4;
  const Dataset data = load_dataset(d.str("demo"), dopt);
  ImageCache images(data, data.train, 0);
  auto backend = make_cpu_backend(2);
  try {
    Trainer t(data, quick_options(Strategy::kAdc), *backend, images);
    FAIL() << "a broken training image was not reported";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("r_2.png"), std::string::npos) << what;
    EXPECT_NE(what.find("cannot decode image"), std::string::npos) << what;
  }
}

TEST(TrainE2E, ResumeRejectsOtherOptions) {
  SmallDemo d;
  TrainOptions o = quick_options(Strategy::kAdc);
  Trainer a(d.data, o, *d.backend, d.images);
  a.step();
  o.loss.lambda_dssim = 0.5f;
  Trainer b(d.data, o, *d.backend, d.images);
  EXPECT_THROW(b.restore(a.checkpoint(), "ckpt"), Error);
}

TEST(TrainE2E, DemoSceneLearns) {
  TempDir d;
  CommandResult r = run_glint("train '" + kDemo + "' -o '" + d.str("out") + "' --steps 400 --downscale 2 -q");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = read_eval(d);
  double first = j["initial_test_psnr"], last = j["test"]["mean_psnr"];
  EXPECT_GT(last, first + 5.0) << "first " << first << " last " << last;
  EXPECT_EQ(j["test"]["views"].size(), 8u);
  for (const char* f : {"scene.ply", "cameras.json", "eval.json"}) EXPECT_TRUE(std::filesystem::exists(d.str("out/") + f));
}

TEST(TrainE2E, ShapesLearns) {
  GLINT_REQUIRE_SHARED(shapes, "shapes");
  TempDir d;
  CommandResult r = run_glint("train '" + shapes + "' -o '" + d.str("out") + "' --steps 400 -q --save-renders");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = read_eval(d);
  double first = j["initial_test_psnr"], last = j["test"]["mean_psnr"];
  EXPECT_GT(last, first + 4.0) << "first " << first << " last " << last;
  EXPECT_TRUE(std::filesystem::exists(d.str("out/renders/r_0.png")));
}

TEST(TrainE2E, CliResumeMatchesStraightRun) {
  TempDir d;
  const std::string common = " --downscale 4 --seed 3 --densify-from 10 --densify-every 10 -q ";
  ASSERT_EQ(run_glint("train '" + kDemo + "' -o '" + d.str("a") + "' --steps 30" + common).exit_code, 0);
  ASSERT_EQ(run_glint("train '" + kDemo + "' -o '" + d.str("b") + "' --steps 18 --save-every 9" + common).exit_code, 0);
  CommandResult r = run_glint("train '" + kDemo + "' -o '" + d.str("b") + "' --steps 30 --resume" + common);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_file(d.str("a/scene.ply")), read_file(d.str("b/scene.ply")));
}

TEST(TrainE2E, LightablePresetSetsItsOptionsAndFlagsWin) {
  TempDir d;
  const std::string common = " --steps 2 --schedule-steps 3000 --downscale 4 -q --preset lightable";
  ASSERT_EQ(run_glint("train '" + kDemo + "' -o '" + d.str("out") + "'" + common).exit_code, 0);
  nlohmann::json o = read_eval(d)["options"];
  EXPECT_TRUE(o["random_background"].get<bool>());
  EXPECT_FLOAT_EQ(o["geometry"][0].get<float>(), 0.05f);  // normal weight
  EXPECT_EQ(o["geometry"][1].get<long>(), 500);           // from min(1000, 3000 / 6)
  EXPECT_FLOAT_EQ(o["geometry"][2].get<float>(), 100.f);  // flatten weight
  EXPECT_FLOAT_EQ(o["distortion"][0].get<float>(), 0.5f);
  EXPECT_EQ(o["distortion"][1].get<long>(), 1000);  // min(1000, 3000 / 3)
  ASSERT_EQ(run_glint("train '" + kDemo + "' -o '" + d.str("out") + "'" + common +
                      " -f --distortion-weight 0.2 --normal-weight 0.1")
                .exit_code,
            0);
  o = read_eval(d)["options"];
  EXPECT_FLOAT_EQ(o["distortion"][0].get<float>(), 0.2f);
  EXPECT_FLOAT_EQ(o["geometry"][0].get<float>(), 0.1f);
}

TEST(TrainE2E, NormalEdgeIsRecordedWhenOnAndBadValuesAreRejected) {
  TempDir d;
  const std::string common = " --steps 2 --downscale 4 -q --preset lightable";
  // The preset turns it on; off (the default without the preset, or 0 given) it is not
  // recorded, and a value given wins over the preset's.
  ASSERT_EQ(run_glint("train '" + kDemo + "' -o '" + d.str("out") + "'" + common).exit_code, 0);
  EXPECT_FLOAT_EQ(read_eval(d)["options"]["normal_edge"].get<float>(), 0.005f);
  ASSERT_EQ(run_glint("train '" + kDemo + "' -o '" + d.str("out") + "'" + common + " -f --normal-edge 0").exit_code, 0);
  EXPECT_FALSE(read_eval(d)["options"].contains("normal_edge"));
  ASSERT_EQ(run_glint("train '" + kDemo + "' -o '" + d.str("out") + "' --steps 2 --downscale 4 -q -f").exit_code, 0);
  EXPECT_FALSE(read_eval(d)["options"].contains("normal_edge"));
  ASSERT_EQ(run_glint("train '" + kDemo + "' -o '" + d.str("out") + "'" + common + " -f --normal-edge 0.02").exit_code, 0);
  EXPECT_FLOAT_EQ(read_eval(d)["options"]["normal_edge"].get<float>(), 0.02f);
  for (const char* bad : {"-0.1", "nan", "inf"}) {
    CommandResult r = run_glint("train '" + kDemo + "' -o '" + d.str("bad") + "' --steps 2 -q --normal-edge " + bad);
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_NE(r.err.find("--normal-edge"), std::string::npos) << r.err;
  }
}

TEST(TrainE2E, NegativeMemoryBudgetsAreRejected) {
  // size_t flags: "-5" must be an error, not a budget wrapped round to 2^64 - 5
  TempDir d;
  for (const char* flag : {"--ssim-cache-mb", "--image-cache-mb"}) {
    CommandResult r = run_glint("train '" + kDemo + "' -o '" + d.str("out") + "' --steps 2 -q " + flag + " -5");
    EXPECT_EQ(r.exit_code, 2) << flag;
    EXPECT_NE(r.err.find(flag), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(d.str("out")));
  }
}

TEST(TrainE2E, DemoCommandTrainsEvaluatesAndRelights) {
  TempDir d;
  CommandResult r = run_glint("demo --steps 20 -q -o '" + d.str("out") + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(read_eval(d)["options"]["random_background"].get<bool>());  // the lightable preset
  for (const char* f : {"out/scene.ply", "out/cameras.json", "out/renders/r_0.png", "out/relit/point/r_0.png",
                        "out/relit/sun/r_7.png", "out/relit/mixed/r_3.png"})
    EXPECT_TRUE(std::filesystem::exists(d.str(f))) << f;
}

TEST(TrainE2E, RefusesToOverwriteResults) {
  TempDir d;
  ASSERT_EQ(run_glint("train '" + kDemo + "' -o '" + d.str("o") + "' --steps 2 --downscale 4 -q").exit_code, 0);
  CommandResult r = run_glint("train '" + kDemo + "' -o '" + d.str("o") + "' --steps 2 --downscale 4 -q");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("already exists"), std::string::npos) << r.err;
}

TEST(TrainE2E, NonFiniteParameterStopsWithStepAndTensor) {
  TempDir d;
  CommandResult r =
      run_glint("train '" + kDemo + "' -o '" + d.str("o") + "' --steps 5 --downscale 4 -q --lr-means 1e39");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("step 1: parameter tensor 'means' has non-finite values"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(d.str("o/scene.ply")));
}

TEST(TrainE2E, InterruptWritesResumableCheckpoint) {
  TempDir d;
  // A real Ctrl-C: SIGINT to a training run in progress (bounded: it is killed after 60 s).
  write_file(d.str("run.sh"), std::string(GLINT_EXE) + " train '" + kDemo + "' -o '" + d.str("o") +
                                  "' --steps 100000 --downscale 4 -q >/dev/null 2>'" + d.str("err.txt") +
                                  "' &\npid=$!\nsleep 3\nkill -INT $pid\n"
                                  "( sleep 60; kill -KILL $pid 2>/dev/null ) >/dev/null 2>&1 &\nwatchdog=$!\nwait $pid\n"
                                  "echo $? >'" + d.str("rc.txt") + "'\nkill $watchdog 2>/dev/null\n");
  ASSERT_EQ(std::system(("bash '" + d.str("run.sh") + "'").c_str()), 0);
  EXPECT_EQ(read_file(d.str("rc.txt")), "130\n") << read_file(d.str("err.txt"));
  EXPECT_TRUE(std::filesystem::exists(d.str("o/checkpoint.glintckp")));
  EXPECT_TRUE(std::filesystem::exists(d.str("o/scene.ply")));
  TrainCheckpoint c = load_checkpoint(d.str("o/checkpoint.glintckp"));
  EXPECT_GT(c.step, 0);
}
