#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "glint/cli/commands.h"
#include "glint/cli/dataset_options.h"
#include "glint/cli/given_flags.h"
#include "glint/cli/slurm_script.h"
#include "glint/cli/train_run.h"
#include "glint/core/error.h"
#include "glint/io/atomic_file.h"
#include "glint/io/image_io.h"
#include "glint/partition/cell_dataset.h"
#include "glint/partition/plan_file.h"
#include "glint/partition/plan_picture.h"

namespace glint::cli {

namespace fs = std::filesystem;
using namespace glint::partition;

namespace {

struct PartitionArgs {
  std::string dataset, out, cells = "2x2", slurm_args;
  long cell_views = 0;
  double expand = 0.2, visibility = 0.25, crop_margin = 0;
  bool slurm = false, force = false, whole_views = false;
  DatasetFlags data;
  std::vector<std::string> train_flags;
};

// Training flags a plan stores for every cell; these belong to one run, not to all.
void check_stored_train_flags(const std::vector<std::string>& flags) {
  TrainArgs scratch;
  const auto app = parse_flag_tokens([&](CLI::App& a) { add_train_flags(a, scratch); }, flags, "training flags after --");
  for (const char* name : {"resume", "resume-from", "force", "view", "output"}) {
    const CLI::Option* o = app->get_option_no_throw(std::string("--") + name);
    if (o && o->count() > 0)
      throw Error(std::string("training flags after --: --") + name +
                  " belongs to one run, not to every cell; give it to glint train PLAN");
  }
}

void print_plan(const Plan& p, const Dataset& data, const std::string& dir) {
  std::printf("%s (%s): %zu training / %zu test views, %zu %spoints\n", p.dataset.c_str(), format_name(data.format),
              p.train_views, p.test_views, p.points, data.points_random ? "random " : "");
  std::printf("ground found from the %s; up (%.3f, %.3f, %.3f); %d x %d cells, expanded by %g, visibility %g\n",
              p.frame.method.c_str(), p.frame.up.x, p.frame.up.y, p.frame.up.z, p.shape.strips, p.shape.cells_per_strip,
              p.settings.expand, p.settings.visibility);
  std::printf("%4s  %-23s %-23s %7s %6s %5s %7s %8s %8s\n", "cell", "core u", "core v", "cameras", "train", "test",
              "pixels", "points", "top");
  double all_pixels = 0;
  for (const View& v : data.train) all_pixels += static_cast<double>(v.camera.width) * v.camera.height;
  std::size_t unlisted = 0;
  for (std::size_t k = 0; k < p.cells.size(); ++k) {
    const Cell& c = p.cells[k];
    char u[64], v[64];
    // A cut a rounding away from the origin prints as 0.00, not -0.00.
    const auto at = [](double x) { return std::abs(x) < 5e-3 ? 0.0 : x; };
    std::snprintf(u, sizeof u, "%9.2f .. %9.2f", at(c.core.u0), at(c.core.u1));
    std::snprintf(v, sizeof v, "%9.2f .. %9.2f", at(c.core.v0), at(c.core.v1));
    // What the cell's run will train on: the views whose crop is empty (a camera in the
    // margin looking away from the core) are listed in the plan but train nothing.
    const Dataset cd = cell_dataset(data, p, k);
    double pixels = 0;
    for (const View& view : cd.train) pixels += static_cast<double>(view.camera.width) * view.camera.height;
    unlisted += c.train_views.size() - cd.train.size();
    std::printf("%4zu  %-23s %-23s %7zu %6zu %5zu %6.1f%% %8zu %8.2f\n", k, u, v, c.cameras_in_core, cd.train.size(),
                cd.test.size(), 100 * pixels / all_pixels, c.points, c.top);
  }
  std::printf("(cameras: training cameras standing in the core; train/test: the views the cell trains and tests on");
  if (unlisted > 0)
    std::printf(" (plan.json lists %zu more training views, over all cells, that show nothing of their cell's core)", unlisted);
  std::printf("; pixels: the share of the dataset's training pixels the cell trains on (its views, cropped); points: "
              "initial points in the expanded rectangle; top: the cell's box height above the ground, in the dataset's "
              "units)\n");
  std::printf("next: glint train %s              # every cell here, one after another, then glint merge\n", dir.c_str());
  std::printf("      glint train %s --cell K     # one cell (e.g. one per machine), then glint merge %s\n", dir.c_str(),
              dir.c_str());
}

}  // namespace

void add_partition(CLI::App& app) {
  auto a = std::make_shared<PartitionArgs>();
  auto* sub = app.add_subcommand(
      "partition",
      "Split a large capture on its ground into cells that train as separate runs (glint train PLAN) and merge "
      "(glint merge PLAN); flags after -- are training flags for every cell");
  sub->add_option("dataset", a->dataset, "Dataset folder or transforms .json")->required();
  sub->add_option("train-flags", a->train_flags, "Training flags stored in the plan for every cell (after --)");
  sub->add_option("-o,--output", a->out, "Plan folder to write (plan.json, plan.png, submit.sh)")->required();
  auto* cells = sub->add_option("--cells", a->cells, "Cells as MxN: M strips along the ground's long axis, N cells in each")
                    ->capture_default_str();
  sub->add_option("--cell-views", a->cell_views, "Instead of --cells: as many cells as give about K training cameras each")
      ->check(CLI::PositiveNumber)
      ->excludes(cells);
  sub->add_option("--expand", a->expand,
                  "Each side of a cell's core rectangle moves out by this share of its extent (the cell trains on "
                  "the points and cameras there)")
      ->check(CLI::Range(0.0, 10.0))
      ->capture_default_str();
  sub->add_option("--visibility", a->visibility,
                  "A view outside the expanded rectangle trains a cell when the cell's box (ground to its highest "
                  "point) covers this share of the image")
      ->check(CLI::Range(0.001, 1.0))
      ->capture_default_str();
  sub->add_flag("--whole-views", a->whole_views,
               "Cells train on their views' whole images (default: on the part of each that shows the cell)");
  sub->add_option("--crop-margin", a->crop_margin,
                  "The crops span the core and this share of the margin around it (0: the core, 1: the expanded "
                  "rectangle)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  sub->add_flag("--slurm", a->slurm, "Also write PLAN/submit.sh, which submits the cells as a Slurm job array and the merge");
  sub->add_option("--slurm-args", a->slurm_args, "More sbatch options for every job of submit.sh, e.g. \"--partition=gpu\"");
  sub->add_flag("-f,--force", a->force, "Replace a plan already in the folder");
  add_dataset_flags(*sub, a->data);
  sub->callback([a, sub] {
    check_stored_train_flags(a->train_flags);
    const std::string dir = a->out;
    const std::string json = plan_json_path(dir);
    if (fs::exists(json) && !a->force) throw Error(json, "a plan is already here; pass --force to replace it");
    if (fs::exists(fs::path(dir) / "cells"))
      throw Error((fs::path(dir) / "cells").string(),
                  "holds cells trained for the plan here; choose another folder (or remove it to start over)");

    PlanSettings settings;
    settings.shape = parse_grid_shape(a->cells);
    settings.cell_views = static_cast<std::size_t>(a->cell_views);
    settings.expand = a->expand;
    settings.visibility = a->visibility;
    settings.crop_views = !a->whole_views;
    settings.crop_margin = a->crop_margin;
    std::string slurm_text;
    if (a->slurm) slurm_submit_script({"glint", 2, a->slurm_args});  // checks --slurm-args before any work

    Dataset data = load_dataset(a->dataset, resolve(a->data));
    Plan plan = make_plan(data, settings);
    plan.dataset = fs::absolute(a->dataset).lexically_normal().string();
    plan.dataset_args = given_flag_tokens(*sub, {"output", "cells", "cell-views", "expand", "visibility", "slurm",
                                                  "slurm-args", "force", "whole-views", "crop-margin"});
    plan.train_args = a->train_flags;
    if (a->slurm) {
      std::error_code ec;
      const fs::path self = fs::read_symlink("/proc/self/exe", ec);
      slurm_text = slurm_submit_script({ec ? std::string("glint") : self.string(), plan.cells.size(), a->slurm_args});
    }
    fs::create_directories(dir);
    save_plan(dir, plan);
    write_file_atomic((fs::path(dir) / "plan.png").string(), encode_png(draw_plan(plan, data)));
    if (a->slurm) {
      const std::string script = (fs::path(dir) / "submit.sh").string();
      write_file_atomic(script, slurm_text);
      fs::permissions(script, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec, fs::perm_options::add);
    }
    print_plan(plan, data, dir);
    if (a->slurm) std::printf("      %s/submit.sh                # on a Slurm cluster\n", dir.c_str());
    std::printf("wrote %s/{plan.json,plan.png%s}\n", dir.c_str(), a->slurm ? ",submit.sh" : "");
  });
}

}  // namespace glint::cli
