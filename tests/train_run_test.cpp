// The training run as a library: presets decided by what the user set, the schedule's
// scaling, the observer's view of a run, interruption into a resumable checkpoint, and
// the strategies and backends chosen by name.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>

#include "glint/backend/backend_registry.h"
#include "glint/core/error.h"
#include "glint/io/model_file.h"
#include "glint/train/run.h"
#include "glint/train/strategy.h"
#include "model_fixture.h"
#include "test_support.h"

using namespace glint;
using namespace glint::test;

namespace {

const std::string kDemo = std::string(GLINT_SOURCE_DIR) + "/data/demo";

Dataset small_demo() {
  DatasetOptions o;
  o.downscale = 4;
  return load_dataset(kDemo, o);
}

Dataset black_dataset() {
  Dataset d;
  d.background = {0, 0, 0};
  return d;
}

struct Recorder final : RunObserver {
  std::vector<long> evals, steps, checkpoints;
  int finishes = 0, final_views = 0;
  std::size_t last_model_size = 0;
  std::atomic<bool>* stop_at_step = nullptr;
  long stop_step = 0;
  void on_eval(long step, const EvalReport&) override { evals.push_back(step); }
  void on_step(const StepResult& r, const RunProgress& p, const StepModel& m) override {
    EXPECT_EQ(r.step, p.step);
    steps.push_back(r.step);
    last_model_size = m().size();
    if (stop_at_step && r.step == stop_step) *stop_at_step = true;
  }
  void on_checkpoint(const std::string&, long step) override { checkpoints.push_back(step); }
  void on_final_view(const ViewScore&, const ImageF& img) override {
    EXPECT_GT(img.width, 0);
    ++final_views;
  }
  void on_finish(const RunResult&) override { ++finishes; }
};

}  // namespace

TEST(RunOptions, PresetFillsOnlyWhatTheUserDidNotSet) {
  RunOptions run;
  run.preset = "lightable";
  run.schedule_steps = 6000;
  TrainOptions t = resolve_train_options(run, black_dataset());
  EXPECT_GT(t.normal_weight, 0.f);
  EXPECT_GT(t.flatten_weight, 0.f);
  EXPECT_GT(t.distortion_weight, 0.f);
  EXPECT_EQ(t.normal_from, 1000);  // min(1000, 6000 / 6)
  EXPECT_GT(t.normal_edge, 0.f);
  EXPECT_TRUE(t.random_background);

  // A user who sets a weight to its default value (0: off) keeps it off: the preset is
  // decided by whether the flag was given, not by the value.
  run.train.normal_weight = 0.f;
  run.user_set = {option_names::kNormalWeight, option_names::kNormalFrom};
  run.train.normal_from = 7000;
  t = resolve_train_options(run, black_dataset());
  EXPECT_EQ(t.normal_weight, 0.f);
  EXPECT_EQ(t.normal_from, 7000);
  EXPECT_GT(t.flatten_weight, 0.f);

  run.preset = "shiny";
  EXPECT_THROW(resolve_train_options(run, black_dataset()), Error);
}

TEST(RunOptions, ScheduleScalesUnlessTheUserSetIt) {
  RunOptions run;
  run.schedule_steps = 2000;
  TrainOptions t = resolve_train_options(run, black_dataset());
  EXPECT_EQ(t.lr.position_max_steps, 2000);
  EXPECT_EQ(t.densify.densify_until, 1000);
  EXPECT_EQ(t.mcmc.refine_until, 2000 * 5 / 6);
  EXPECT_FALSE(t.densify.white_background);
  // The user asked for densification to 15000 (the default value): it is kept.
  run.user_set = {option_names::kDensifyUntil};
  t = resolve_train_options(run, black_dataset());
  EXPECT_EQ(t.densify.densify_until, 15000);
  // 3DGS's extra opacity reset follows the dataset's background.
  Dataset white;
  white.background = {1, 1, 1};
  EXPECT_TRUE(resolve_train_options(run, white).densify.white_background);
}

TEST(Strategy, ChosenByTheOptions) {
  TrainOptions o;
  EXPECT_STREQ(make_strategy(o, 1.0)->name(), "adc");
  o.strategy = Strategy::kMcmc;
  EXPECT_STREQ(make_strategy(o, 1.0)->name(), "mcmc");
}

TEST(BackendRegistry, NamesAndAvailability) {
  EXPECT_STREQ(make_backend("cpu").backend->name(), "cpu");
  BackendChoice a = make_backend("auto");
  ASSERT_TRUE(a.backend);
  std::string why;
  EXPECT_FALSE(backend_available("metal", &why));
  EXPECT_THROW(make_backend("metal"), Error);
  if (!backend_available("cuda", &why)) {
    EXPECT_FALSE(why.empty());
    EXPECT_THROW(make_backend("cuda"), Error);
    EXPECT_STREQ(a.backend->name(), "cpu");
  }
}

TEST(TrainingRun, ReportsToItsObserverAndWritesItsFiles) {
  TempDir dir;
  Dataset data = small_demo();
  RunOptions o;
  o.train.steps = 12;
  o.eval_every = 5;
  o.save_every = 6;
  o.schedule_steps = 12;
  o.write_spz = true;
  std::unique_ptr<Backend> backend = make_cpu_backend();
  RunPaths paths;
  paths.out = dir.str("");
  TrainingRun run(data, o, paths, *backend);
  Recorder rec;
  std::atomic<bool> stop{false};
  const RunResult r = run.run(rec, stop);
  EXPECT_FALSE(r.interrupted);
  EXPECT_EQ(r.steps, 12);
  EXPECT_EQ(rec.steps.size(), 12u);
  EXPECT_EQ(rec.evals, (std::vector<long>{0, 5, 10}));
  EXPECT_EQ(rec.checkpoints, (std::vector<long>{6, 12}));  // every 6 (the last also ends the run)
  EXPECT_EQ(rec.final_views, static_cast<int>(data.test.size()));
  EXPECT_EQ(rec.finishes, 1);
  EXPECT_EQ(rec.last_model_size, r.splats);
  for (const char* f : {"scene.ply", "cameras.json", "eval.json", "checkpoint.glintckp"})
    EXPECT_TRUE(std::filesystem::exists(dir.str(f))) << f;
  EXPECT_EQ(load_model(dir.str("scene.ply")).size(), r.splats);
  EXPECT_EQ(load_model(dir.str("scene.spz")).size(), r.splats);
}

TEST(TrainingRun, StopFlagLeavesAResumableCheckpoint) {
  Dataset data = small_demo();
  RunOptions o;
  o.train.steps = 20;
  o.schedule_steps = 20;
  std::unique_ptr<Backend> backend = make_cpu_backend();

  TempDir whole_dir;
  RunPaths whole;
  whole.out = whole_dir.str("");
  Recorder rw;
  std::atomic<bool> never{false};
  TrainingRun(data, o, whole, *backend).run(rw, never);

  TempDir dir;
  RunPaths paths;
  paths.out = dir.str("");
  Recorder rec;
  std::atomic<bool> stop{false};
  rec.stop_at_step = &stop;
  rec.stop_step = 7;
  const RunResult r = TrainingRun(data, o, paths, *backend).run(rec, stop);
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.steps, 7);
  EXPECT_TRUE(std::filesystem::exists(r.checkpoint_path));
  EXPECT_FALSE(std::filesystem::exists(dir.str("eval.json")));

  paths.resume = true;
  Recorder rr;
  std::atomic<bool> go{false};
  const RunResult resumed = TrainingRun(data, o, paths, *backend).run(rr, go);
  EXPECT_EQ(resumed.steps, 20);
  EXPECT_EQ(resumed.steps_this_run, 13);
  EXPECT_EQ(rr.steps.front(), 8);
  expect_same_model(load_model(dir.str("scene.ply")), load_model(whole_dir.str("scene.ply")));
}
