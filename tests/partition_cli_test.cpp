// glint partition, glint train PLAN and glint merge on the town survey (at a quarter of
// its resolution and a few steps; stopped by SIGTERM and run again), the refusal of object-centric captures, and a plan
// folder edited or left unfinished by hand: one-line errors naming the cell, no partial
// model.
#include <gtest/gtest.h>

#include <algorithm>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>

#include "glint/io/model_file.h"
#include "glint/partition/merge.h"
#include "glint/partition/plan_file.h"
#include "glint/partition/seam_band.h"
#include "test_support.h"

using namespace glint::test;
namespace fs = std::filesystem;

namespace {

// One line on stderr, the wanted parts in it, exit code 2.
void expect_one_line_error(const CommandResult& r, const std::vector<std::string>& parts) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  std::string err = r.err;
  while (!err.empty() && err.back() == '\n') err.pop_back();
  EXPECT_EQ(err.find('\n'), std::string::npos) << r.err;
  for (const std::string& s : parts) EXPECT_NE(r.err.find(s), std::string::npos) << "'" << s << "' not in: " << r.err;
}

nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(read_file(path)); }

constexpr const char* kTrainFlags = "-- --steps 12 --schedule-steps 12 --sh-degree 1 --threads 2 --save-every 3";

}  // namespace

TEST(PartitionCli, TownPlanTrainMergeAndRerun) {
  GLINT_REQUIRE_SHARED(town, "town");
  TempDir tmp;
  const std::string plan = tmp.str("plan");
  CommandResult r = run_glint("partition " + town + " -o " + plan + " --downscale 4 --cells 2x2 " + kTrainFlags);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("next: glint train"), std::string::npos) << r.out;
  ASSERT_TRUE(fs::exists(plan + "/plan.png"));
  const nlohmann::json pj = read_json(plan + "/plan.json");
  ASSERT_EQ(pj["cells"].size(), 4u);
  EXPECT_EQ(pj["dataset_args"][0], "--downscale=4");
  std::size_t cameras = 0;
  for (const auto& c : pj["cells"]) {
    cameras += c["cameras_in_core"].get<std::size_t>();
    EXPECT_GT(c["train_views"].size(), c["cameras_in_core"].get<std::size_t>());
  }
  EXPECT_EQ(cameras, 200u);
  // The table's train and test columns: the views each cell's run will use (a listed view
  // whose crop is empty trains nothing), checked against the runs' own counts below.
  std::map<std::string, std::string> table_views;  // cell -> "N training / M test views"
  const std::regex row(R"(\n +([0-9]+) +\S+ \.\. +\S+ +\S+ \.\. +\S+ +[0-9]+ +([0-9]+) +([0-9]+) +[0-9.]+%)");
  for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), row); it != std::sregex_iterator(); ++it) {
    table_views[(*it)[1].str()] = (*it)[2].str() + " training / " + (*it)[3].str() + " test views";
    EXPECT_LE(std::stoul((*it)[2].str()), pj["cells"][std::stoul((*it)[1].str())]["train_views"].size());
  }
  ASSERT_EQ(table_views.size(), 4u) << r.out;
  EXPECT_FALSE(fs::exists(plan + "/submit.sh"));
  // A second partition into the same folder needs --force.
  expect_one_line_error(run_glint("partition " + town + " -o " + plan), {"plan.json", "--force"});

  // One cell, a flag on the command line over the plan's.
  r = run_glint("train " + plan + " --cell 1 --steps 8 -q");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_json(plan + "/cells/1/done.json")["steps"], 8);
  // Trained with other options than asked now: refused, not silently replaced.
  expect_one_line_error(run_glint("train " + plan + " --cell 1 -q"), {"cell 1", "other options", "--force"});
  // The merge refuses while cells are missing, naming the first, and writes nothing.
  expect_one_line_error(run_glint("merge " + plan), {"cell 0", "has not finished"});
  EXPECT_FALSE(fs::exists(plan + "/merged/scene.ply"));

  // A cell whose record is gone counts as unfinished: every cell trains, then the merge.
  // SIGTERM (a scheduler's stop, a pod's eviction) once cell 2 has written a checkpoint:
  // the run stops with a checkpoint; run again, it skips the finished cells and resumes
  // cell 2 from its checkpoint (bounded: killed after 120 s).
  fs::remove(plan + "/cells/1/done.json");
  const std::string ckpt2 = plan + "/cells/2/checkpoint.glintckp";
  write_file(tmp.str("stop.sh"),
             std::string(GLINT_EXE) + " train " + plan + " -q >/dev/null 2>" + tmp.str("err.txt") +
                 " &\npid=$!\n( sleep 120; kill -KILL $pid 2>/dev/null ) >/dev/null 2>&1 &\nwatchdog=$!\n"
                 "while [ ! -e " + ckpt2 + " ] && kill -0 $pid 2>/dev/null; do sleep 0.02; done\n"
                 "kill -TERM $pid\nwait $pid\necho $? >" + tmp.str("rc.txt") + "\nkill $watchdog 2>/dev/null\nexit 0\n");
  ASSERT_EQ(std::system(("bash " + tmp.str("stop.sh")).c_str()), 0);
  const std::string stop_err = read_file(tmp.str("err.txt"));
  EXPECT_EQ(read_file(tmp.str("rc.txt")), "130\n") << stop_err;
  EXPECT_NE(stop_err.find("stopped in cell 2 of 4; run glint train " + plan + " again"), std::string::npos) << stop_err;
  EXPECT_TRUE(fs::exists(plan + "/cells/1/done.json"));
  EXPECT_FALSE(fs::exists(plan + "/cells/2/done.json"));
  EXPECT_FALSE(fs::exists(plan + "/merged/scene.ply"));
  r = run_glint("train " + plan);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("cell 1 of 4: already trained"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(resuming from its checkpoint)"), std::string::npos) << r.err;
  std::smatch resumed;
  ASSERT_TRUE(std::regex_search(r.err, resumed, std::regex("cells/2/checkpoint.glintckp at step ([0-9]+)"))) << r.err;
  EXPECT_GT(std::stol(resumed[1].str()), 0);
  EXPECT_LT(std::stol(resumed[1].str()), 12);
  EXPECT_NE(r.err.find("cell 3 of 4: " + table_views["3"]), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cell 2 of 4: " + table_views["2"]), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("crops of views up to 80x60"), std::string::npos) << r.err;
  // progress across the cells, after each cell trained by this run with cells still to come
  EXPECT_TRUE(std::regex_search(r.err, std::regex("cells: 3 of 4 done, [0-9.]+s so far; about [0-9.]+s for the 1 left")))
      << r.err;
  EXPECT_EQ(r.err.find("cells: 2 of 4 done"), std::string::npos) << r.err;  // cell 1 was already trained
  EXPECT_EQ(read_json(plan + "/cells/1/done.json")["steps"], 12);
  const nlohmann::json ej = read_json(plan + "/merged/eval.json");
  std::size_t kept = 0, trained = 0;
  for (const auto& c : ej["cells"]) {
    kept += c["splats_kept"].get<std::size_t>();
    trained += c["splats_trained"].get<std::size_t>();
  }
  EXPECT_EQ(ej["splats"].get<std::size_t>(), kept);
  EXPECT_LT(kept, trained);  // the expanded margins are cut away
  EXPECT_EQ(glint::load_model(plan + "/merged/scene.ply").size(), kept);
  EXPECT_EQ(ej["test"]["views"].size(), 24u);
  EXPECT_EQ(ej["border_views"]["views"].get<std::size_t>() + ej["interior_views"]["views"].get<std::size_t>(), 24u);
  EXPECT_GT(ej["test"]["mean_psnr"].get<double>(), 10.0);
  // The merged model is an ordinary splat file: glint eval scores it as the merge did.
  r = run_glint("eval " + plan + "/merged/scene.ply " + town + " --downscale 4 --json " + tmp.str("eval.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NEAR(read_json(tmp.str("eval.json"))["mean_psnr"].get<double>(), ej["test"]["mean_psnr"].get<double>(), 1e-9);
  // The seam polish trained the splats near the borders; every other splat is as merged.
  const nlohmann::json& sp = ej["seam_polish"];
  EXPECT_EQ(sp["steps"], 300);
  EXPECT_GT(sp["views"].get<std::size_t>(), 0u);
  EXPECT_GT(sp["splats_changed"].get<std::size_t>(), 0u);
  EXPECT_LT(sp["splats_changed"].get<std::size_t>(), sp["splats_trained"].get<std::size_t>());
  r = run_glint("merge " + plan + " --seam-steps 0 -q -o " + tmp.str("unpolished"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_json(tmp.str("unpolished/eval.json"))["seam_polish"]["steps"], 0);
  {
    const glint::GaussianModel polished = glint::load_model(plan + "/merged/scene.ply");
    const glint::GaussianModel plain = glint::load_model(tmp.str("unpolished/scene.ply"));
    ASSERT_EQ(polished.size(), plain.size());
    const glint::partition::Plan p = glint::partition::load_plan(plan);
    const double keep = glint::partition::seam_widths(p).keep;
    std::size_t differ = 0;
    for (std::size_t i = 0; i < plain.size(); ++i) {
      const bool same = std::equal(plain.means.begin() + 3 * i, plain.means.begin() + 3 * i + 3, polished.means.begin() + 3 * i) &&
                        plain.sh_dc[3 * i] == polished.sh_dc[3 * i] && plain.opacity_logits[i] == polished.opacity_logits[i];
      if (same) continue;
      ++differ;
      const glint::Vec3d c{plain.means[3 * i], plain.means[3 * i + 1], plain.means[3 * i + 2]};
      EXPECT_LT(glint::partition::border_distance(p, c), keep) << "splat " << i;
    }
    EXPECT_GT(differ, 0u);
    EXPECT_LE(differ, sp["splats_changed"].get<std::size_t>());
  }

  // Run again: nothing to train, the same merge.
  const std::string before = read_file(plan + "/merged/scene.ply");
  r = run_glint("train " + plan);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("cell 2 of 4: already trained"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(plan + "/merged/scene.ply"), before);

  // A finished cell's model changed by hand; a cell's record removed; a view index edited.
  const std::string cell2 = plan + "/cells/2";
  fs::copy_file(plan + "/cells/3/scene.ply", cell2 + "/scene.ply", fs::copy_options::overwrite_existing);
  expect_one_line_error(run_glint("merge " + plan + " -f"), {"cells/2/scene.ply", "cell 2", "changed after training"});
  fs::remove(plan + "/cells/3/done.json");
  expect_one_line_error(run_glint("merge " + plan + " -o " + tmp.str("m2")), {"cell 3", "has not finished"});
  EXPECT_FALSE(fs::exists(tmp.str("m2/scene.ply")));
  nlohmann::json edited = pj;
  edited["cells"][1]["train_views"].push_back(9999);
  write_file(plan + "/plan.json", edited.dump());
  expect_one_line_error(run_glint("merge " + plan), {"plan.json", "cell 1", "9999", "out of range"});
  expect_one_line_error(run_glint("train " + plan + " --cell 0"), {"plan.json", "cell 1", "out of range"});
}

TEST(PartitionCli, RefusesObjectCentricCaptures) {
  GLINT_REQUIRE_SHARED(fox, "fox");
  GLINT_REQUIRE_SHARED(statue, "statue");
  TempDir tmp;
  for (const std::string& d : {fox, statue}) {
    const CommandResult r = run_glint("partition " + d + " -o " + tmp.str("p"));
    expect_one_line_error(r, {d, "object-centric", "glint train"});
    EXPECT_FALSE(fs::exists(tmp.str("p/plan.json")));
  }
}

TEST(PartitionCli, BadArguments) {
  GLINT_REQUIRE_SHARED(town, "town");
  TempDir tmp;
  expect_one_line_error(run_glint("partition " + town + " -o " + tmp.str("p") + " --cells 2by2"), {"--cells"});
  expect_one_line_error(run_glint("partition " + town + " -o " + tmp.str("p") + " -- --resume"), {"--resume"});
  expect_one_line_error(run_glint("partition " + town + " -o " + tmp.str("p") + " -- --stepz 3"), {"--stepz"});
  expect_one_line_error(run_glint("partition " + town + " -o " + tmp.str("p") + " --slurm --slurm-args '--x=$(id)'"),
                        {"--slurm-args"});
  expect_one_line_error(run_glint("train " + town + " --cell 1"), {"--cell", "plan"});
  EXPECT_FALSE(fs::exists(tmp.str("p/plan.json")));
}
