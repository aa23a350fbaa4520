// PLAN/submit.sh on a real Slurm: the one-node cluster that scripts/slurm-test.sh starts
// (ctest runs it as the test slurm_cluster). A small 2x2 plan of the town survey trains as
// a job array and merges in a job that waits for it; a cell's task sent the signal that
// Slurm sends before a time limit checkpoints, requeues itself and resumes, and the merged
// model is byte-identical to an uninterrupted run's.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

#include "test_support.h"

using namespace glint::test;
namespace fs = std::filesystem;

namespace {

// Runs a shell command; returns its exit code and stdout.
int sh(const std::string& cmd, std::string* out = nullptr) {
  std::FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return -1;
  std::string text;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) text.append(buf, n);
  const int status = pclose(p);
  if (out) *out = text;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

class SlurmCluster : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::getenv("GLINT_SLURM") || !std::getenv("SLURM_CONF"))
      GTEST_SKIP() << "needs the one-node Slurm cluster of scripts/slurm-test.sh (ctest's slurm_cluster runs these)";
  }

  // The plan of a 2x2 town at a quarter of its resolution; `flags` are the cells' training flags.
  std::string partition(const std::string& town, const std::string& name, const std::string& flags) {
    const std::string plan = tmp_.str(name);
    const CommandResult r =
        run_glint("partition " + town + " -o " + plan + " --downscale 4 --cells 2x2 --slurm -- " + flags);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return plan;
  }

  // Runs submit.sh with small resources; returns the array's and the merge's job ids.
  std::pair<std::string, std::string> submit(const std::string& plan, const std::string& env = "") {
    std::string out;
    const int rc = sh("CELL_CPUS=1 CELL_MEM=1G CELL_TIME=10:00 MERGE_CPUS=1 MERGE_MEM=1G MERGE_TIME=10:00 " + env + " " +
                          plan + "/submit.sh",
                      &out);
    EXPECT_EQ(rc, 0) << out;
    std::smatch m;
    const std::regex ids("job array ([0-9]+) and the merge as job ([0-9]+)");
    EXPECT_TRUE(std::regex_search(out, m, ids)) << out;
    return m.size() == 3 ? std::pair{m[1].str(), m[2].str()} : std::pair{std::string(), std::string()};
  }

  // Waits until none of the jobs is queued or running.
  void wait_for(const std::string& jobs, double timeout_s = 240) {
    const auto t0 = std::chrono::steady_clock::now();
    std::string out;
    while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < timeout_s) {
      sh("squeue -h -j " + jobs, &out);
      if (out.find_first_not_of(" \n") == std::string::npos) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    sh("squeue -j " + jobs, &out);
    ADD_FAILURE() << "jobs " << jobs << " still queued after " << timeout_s << " s:\n" << out;
    sh("scancel " + jobs);
  }

  static std::string logs(const std::string& plan) {
    std::string all;
    for (const auto& e : fs::directory_iterator(plan + "/logs")) all += "== " + e.path().string() + "\n" + read_file(e.path().string());
    return all;
  }

  TempDir tmp_;
};

}  // namespace

TEST_F(SlurmCluster, SubmitsCellsAsAnArrayAndMergesAfterThem) {
  GLINT_REQUIRE_SHARED(town, "town");
  const std::string plan = partition(town, "plan", "--steps 60 --schedule-steps 60 --sh-degree 1");
  ASSERT_TRUE(fs::exists(plan + "/submit.sh"));
  // $GLINT_TRAIN_ARGS reaches every cell and wins over the plan's flags.
  const auto [array, merge] = submit(plan, "GLINT_TRAIN_ARGS='--steps 40'");
  ASSERT_FALSE(array.empty());
  wait_for(array + "," + merge);
  ASSERT_TRUE(fs::exists(plan + "/merged/scene.ply")) << logs(plan);
  for (int k = 0; k < 4; ++k) {
    const auto done = nlohmann::json::parse(read_file(plan + "/cells/" + std::to_string(k) + "/done.json"));
    EXPECT_EQ(done["steps"], 40) << "cell " << k;
  }
  const auto ej = nlohmann::json::parse(read_file(plan + "/merged/eval.json"));
  EXPECT_EQ(ej["test"]["views"].size(), 24u);
  EXPECT_GT(ej["splats"].get<std::size_t>(), 1000u);
  EXPECT_NE(logs(plan).find("glint cell 3"), std::string::npos);
}

TEST_F(SlurmCluster, PreemptedCellRequeuesResumesAndMergesToTheSameBytes) {
  GLINT_REQUIRE_SHARED(town, "town");
  const std::string flags = "--steps 90 --schedule-steps 90 --sh-degree 1 --save-every 10";
  const std::string plan = partition(town, "plan", flags);
  const auto [array, merge] = submit(plan);
  ASSERT_FALSE(array.empty());
  // Once cell 1 has written its first checkpoint, send its task what Slurm sends before a
  // time limit (--signal=B:USR1): to the batch shell, which hands it to glint train.
  const std::string ckpt = plan + "/cells/1/checkpoint.glintckp";
  const auto t0 = std::chrono::steady_clock::now();
  while (!fs::exists(ckpt) && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(120))
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_TRUE(fs::exists(ckpt)) << logs(plan);
  std::string out;
  // scancel may retry while the task requeues itself; its part is done once delivered.
  sh("timeout 5 scancel --batch --signal=USR1 " + array + "_1", &out);
  // The uninterrupted run meanwhile, on this machine: every cell, one after another.
  const std::string local = partition(town, "local", flags);
  const CommandResult r = run_glint("train " + local + " -q");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  wait_for(array + "," + merge);
  const std::string log1 = read_file(plan + "/logs/cell_1.log");
  EXPECT_NE(log1.find("requeueing"), std::string::npos) << log1;
  EXPECT_NE(log1.find("run 2"), std::string::npos) << log1;
  EXPECT_NE(log1.find("resuming from its checkpoint"), std::string::npos) << log1;
  // It resumed mid-run: after its first checkpoint, before its last step.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(log1, m, std::regex("resumed from \\S+ at step ([0-9]+)"))) << log1;
  const long step = std::stol(m[1].str());
  EXPECT_GT(step, 0);
  EXPECT_LT(step, 90);
  if (std::getenv("GLINT_SLURM_VERBOSE")) std::printf("%s\n", logs(plan).c_str());
  ASSERT_TRUE(fs::exists(plan + "/merged/scene.ply")) << logs(plan);
  EXPECT_TRUE(read_file(plan + "/merged/scene.ply") == read_file(local + "/merged/scene.ply"))
      << "the requeued run's merged model differs from the uninterrupted one's";
}
