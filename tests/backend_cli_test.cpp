// --backend on every command that renders: the CPU by name, auto, and a backend this build
// or machine lacks as one line and exit 2, before any work is done.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "glint/backend/backend_registry.h"
#include "test_support.h"

using namespace glint;
using namespace glint::test;

namespace {
const std::string kDemo = std::string(GLINT_SOURCE_DIR) + "/data/demo";
}

TEST(BackendCli, UnavailableBackendIsOneLineAndExitTwo) {
  if (backend_available("cuda")) GTEST_SKIP() << "this build and machine have CUDA";
  TempDir d;
  for (const std::string& cmd :
       {"train '" + kDemo + "' -o '" + d.str("t") + "' --steps 2", "eval missing.ply '" + kDemo + "'",
        "render missing.ply '" + kDemo + "' -o '" + d.str("r") + "'",
        "relight missing.ply --cameras '" + kDemo + "' --lights '" + kDemo + "/lights.json' -o '" + d.str("l") + "'",
        "demo -o '" + d.str("demo") + "'"}) {
    CommandResult r = run_glint(cmd + " --backend cuda");
    EXPECT_EQ(r.exit_code, 2) << cmd;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << cmd << ": " << r.err;
    EXPECT_NE(r.err.find("built without CUDA"), std::string::npos) << r.err;
  }
  CommandResult r = run_glint("train '" + kDemo + "' --backend metal");
  EXPECT_EQ(r.exit_code, 2);
}

TEST(BackendCli, TrainOnTheCpuByNameRecordsItAndKeepsAnExplicitZeroWeight) {
  TempDir d;
  // --normal-weight 0 is the default value; given on the command line it still wins over
  // the preset's 0.05.
  CommandResult r = run_glint("train '" + kDemo + "' -o '" + d.str("out") +
                              "' --steps 3 --downscale 4 -q --backend cpu --preset lightable --normal-weight 0");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(read_file(d.str("out/eval.json")));
  EXPECT_EQ(j["backend"], "cpu");
  EXPECT_EQ(j["options"]["geometry"][0].get<double>(), 0.0);   // normal weight
  EXPECT_GT(j["options"]["geometry"][2].get<double>(), 0.0);   // flattening from the preset
  EXPECT_TRUE(j["options"]["random_background"].get<bool>());
}
