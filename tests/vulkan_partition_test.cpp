// A partition cell on the Vulkan backend (lavapipe, the validation layer on): a cell
// of a small town plan trains through glint train PLAN --cell K --backend vulkan on its
// cropped views and scores on its held-out crops as the same cell trained on the CPU
// backend does, to the tolerances of a few steps on two backends. (The merge is the same
// code whichever backend trained the cells; Vulkan's evaluation has tests of its own, and
// the merge's seam polish, fine_tune, is vulkan_fine_tune_test.cpp's.)
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_support.h"
#include "vulkan_test_support.h"

using namespace glint::test;

namespace {
class VulkanPartition : public VulkanTest {};

nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(read_file(path)); }
}  // namespace

TEST_P(VulkanPartition, CellTrainsOnItsCropsAsOnTheCpu) {
  GLINT_REQUIRE_SHARED(town, "town");
  // SwiftShader runs the same backend code, several times slower: lavapipe alone here
  if (driver() != "lavapipe") return;
  TempDir t;
  const std::string plan = t.str("plan");
  CommandResult r = run_glint("partition " + town + " -o " + plan +
                              " --downscale 4 -- --steps 6 --schedule-steps 6 --sh-degree 1 --threads 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_glint("train " + plan + " --cell 2 -q --backend cpu -o " + t.str("cpu"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_glint("train " + plan + " --cell 2 --backend vulkan --device " + std::to_string(device_index),
                "GLINT_VULKAN_VALIDATION=1 ");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("Vulkan validation"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("crops of views up to 80x60"), std::string::npos) << r.err;  // cropped views, not whole ones
  const nlohmann::json c = read_json(t.str("cpu/eval.json")), v = read_json(plan + "/cells/2/eval.json");
  EXPECT_EQ(c["backend"], "cpu");
  EXPECT_EQ(v["backend"], "vulkan");
  const double before = v["initial_test_psnr"].get<double>(), after = v["test"]["mean_psnr"].get<double>();
  EXPECT_GT(after, before);  // it trained
  EXPECT_NEAR(after, c["test"]["mean_psnr"].get<double>(), 0.02);
  EXPECT_EQ(v["test"]["views"].size(), c["test"]["views"].size());
  EXPECT_EQ(v["splats"], c["splats"]);
}

GLINT_VULKAN_DRIVERS(VulkanPartition);
