// The thread governor on synthetic step times (an idle machine, a busy one, a load that
// comes and goes), and the reason it may switch at all: a training run whose thread count
// changes every step trains the same bits as one on a fixed count.
#include <gtest/gtest.h>

#include <omp.h>

#include <functional>

#include "glint/backend/backend.h"
#include "glint/core/thread_governor.h"
#include "glint/io/dataset.h"
#include "glint/io/image_cache.h"
#include "glint/train/trainer.h"
#include "model_fixture.h"

using namespace glint;

namespace {

// Runs `steps` steps whose time is ms(step, threads); returns the steps run on 1 thread.
long steps_on_one(ThreadGovernor& g, long steps, const std::function<double(long, int)>& ms, long from = 0) {
  long one = 0;
  for (long s = from; s < from + steps; ++s) {
    const int t = g.threads();
    one += t == 1;
    g.record(ms(s, t));
  }
  return one;
}

double idle(long, int t) { return t == 1 ? 1.7 : 1.0; }
double busy(long, int t) { return t == 1 ? 3.0 : 12.0; }
// one busy process beside the run: all cores still faster per step, but by less
double mild(long, int t) { return t == 1 ? 1.7 : 1.4; }

}  // namespace

TEST(ThreadGovernor, IdleMachineSettlesOnEveryCore) {
  ThreadGovernor g(2);
  const long one = steps_on_one(g, 10000, idle);
  EXPECT_EQ(g.threads(), 2);
  EXPECT_LT(one, 30) << "steps spent on one thread";  // the start and a few lost probes
}

TEST(ThreadGovernor, BusyMachineStaysOnOneThread) {
  ThreadGovernor g(2);
  const long one = steps_on_one(g, 10000, busy);
  EXPECT_EQ(g.threads(), 1);
  EXPECT_GT(one, 10000 - 10) << "probes on two threads";  // each lost probe costs one step
  EXPECT_EQ(g.switches(), 0);
}

TEST(ThreadGovernor, SmallGainIsStillTaken) {
  ThreadGovernor g(2);
  steps_on_one(g, 1000, mild);
  EXPECT_EQ(g.threads(), 2);
}

TEST(ThreadGovernor, FollowsALoadThatComesAndGoes) {
  ThreadGovernor g(2);
  steps_on_one(g, 3000, idle);
  ASSERT_EQ(g.threads(), 2);
  // A job starts: the current count's steps get slower by far more than a third.
  steps_on_one(g, 20, busy, 3000);
  EXPECT_EQ(g.threads(), 1);
  // It ends: a periodic probe finds the cores again within the longest period.
  steps_on_one(g, 6400 + 50, idle, 3020);
  EXPECT_EQ(g.threads(), 2);
}

TEST(ThreadGovernor, OneCoreNeverProbes) {
  ThreadGovernor g(1);
  for (int i = 0; i < 1000; ++i) {
    ASSERT_EQ(g.threads(), 1);
    g.record(1.0);
  }
  EXPECT_EQ(g.switches(), 0);
}

TEST(ThreadGovernor, ChangingThreadsEveryStepTrainsTheSameBits) {
  DatasetOptions o;
  o.downscale = 4;
  const Dataset data = load_dataset(std::string(GLINT_SOURCE_DIR) + "/data/demo", o);
  TrainOptions t;
  t.steps = 30;
  t.densify.densify_from = 10;
  t.densify.densify_every = 10;
  t.densify.grad_threshold = 1e-5f;
  const auto train = [&](const std::function<int(long)>& threads) {
    ImageCache images(data, data.train, std::size_t{64} << 20);
    std::unique_ptr<Backend> backend = make_cpu_backend();  // follows omp_set_num_threads
    Trainer trainer(data, t, *backend, images);
    const int before = omp_get_max_threads();
    for (long s = 1; s <= t.steps; ++s) {
      omp_set_num_threads(threads(s));
      trainer.step();
    }
    omp_set_num_threads(before);
    return trainer.model();
  };
  const GaussianModel fixed = train([](long) { return 2; });
  const GaussianModel alternating = train([](long s) { return s % 2 ? 1 : 3; });
  glint::test::expect_same_model(fixed, alternating);
}
