#include "glint/cli/train_plan.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "glint/cli/backend_flag.h"
#include "glint/cli/given_flags.h"
#include "glint/cli/merge_run.h"
#include "glint/cli/progress.h"
#include "glint/core/error.h"
#include "glint/partition/cell_dataset.h"
#include "glint/partition/plan_file.h"

namespace glint::cli {

namespace fs = std::filesystem;
using namespace glint::partition;

namespace {

std::string normalized_json(const std::string& text) { return nlohmann::json::parse(text).dump(); }

class PlanTrainer {
 public:
  PlanTrainer(const std::string& plan_arg, const Plan& plan, TrainArgs args, Backend& backend)
      : plan_arg_(plan_arg), dir_(plan_folder(plan_arg)), plan_(plan), args_(std::move(args)), backend_(backend) {}

  // 0 trained or already done, 130 interrupted (checkpoint written).
  int train(std::size_t k, const std::string& out) {
    const std::string folder = out.empty() ? cell_folder(dir_, k) : out;
    const Dataset& full = full_dataset();
    Dataset cell = cell_dataset(full, plan_, k);
    const std::string fingerprint = cell_fingerprint(plan_, k);
    const std::string options = normalized_json(resolve_train_options(args_.run, cell).to_json());
    const std::string label = "cell " + std::to_string(k) + " of " + std::to_string(plan_.cells.size());

    skipped_ = false;
    if (const auto rec = read_cell_record(folder); rec && !args_.force) {
      if (rec->fingerprint != fingerprint)
        throw Error(cell_record_path(folder), label + " was trained for another plan; --force trains it again");
      if (normalized_json(rec->options) != options)
        throw Error(cell_record_path(folder), label + " was trained with other options; --force trains it again");
      if (!args_.quiet) std::fprintf(stderr, "%s: already trained (%s)\n", label.c_str(), cell_record_path(folder).c_str());
      skipped_ = true;
      return 0;
    }
    TrainArgs a = args_;
    a.out = folder;
    const std::string checkpoint = (fs::path(folder) / "checkpoint.glintckp").string();
    const bool explicit_resume = a.resume || !a.resume_from.empty();
    if (!a.force && !explicit_resume && fs::exists(checkpoint)) a.resume = true;
    // A folder without done.json holds no finished result: an unfinished run's files are
    // replaced (or continued from its checkpoint).
    a.force = true;
    fs::create_directories(folder);
    remove_cell_record(folder);
    if (!a.quiet) {
      double pixels = 0, full = 0;
      for (const View& v : cell.train) {
        pixels += static_cast<double>(v.camera.width) * v.camera.height;
        full += v.full_width ? static_cast<double>(v.full_width) * v.full_height : static_cast<double>(v.camera.width) * v.camera.height;
      }
      std::fprintf(stderr, "%s: %zu training / %zu test views (%.0f %% of their pixels), %zu initial points -> %s%s\n",
                   label.c_str(), cell.train.size(), cell.test.size(), 100 * pixels / full, cell.points.size(),
                   folder.c_str(), a.resume && !explicit_resume ? " (resuming from its checkpoint)" : "");
    }
    TrainingHooks hooks;
    hooks.backend = &backend_;
    hooks.load = [&cell](const DatasetOptions&) { return std::move(cell); };
    hooks.on_finished = [&](const RunResult& r, const TrainingRun& run) {
      CellRecord rec;
      rec.cell = k;
      rec.fingerprint = fingerprint;
      rec.steps = r.steps;
      rec.splats = r.splats;
      rec.options = run.train_options().to_json();
      write_cell_record(folder, rec);
    };
    return run_training(a, hooks);
  }

  // Whether the last train() found its cell already trained.
  bool skipped() const { return skipped_; }

  const Dataset& full_dataset() {
    if (!full_) {
      DatasetOptions o = resolve(args_.data);
      o.seed = args_.run.train.seed;
      full_ = load_dataset(plan_.dataset, o);
      check_plan_dataset(plan_arg_, plan_, *full_);
    }
    return *full_;
  }

 private:
  std::string plan_arg_, dir_;
  const Plan& plan_;
  TrainArgs args_;
  Backend& backend_;
  std::optional<Dataset> full_;
  bool skipped_ = false;
};

}  // namespace

int run_plan_training(const CLI::App& cmd, const TrainArgs& given, long cell) {
  const Plan plan = load_plan(given.dataset);
  std::vector<std::string> tokens = plan.dataset_args;
  tokens.insert(tokens.end(), plan.train_args.begin(), plan.train_args.end());
  const std::vector<std::string> cmdline = given_flag_tokens(cmd, {"cell", "output"});
  tokens.insert(tokens.end(), cmdline.begin(), cmdline.end());
  TrainArgs a;
  const auto parsed = parse_flag_tokens([&](CLI::App& app) { add_train_flags(app, a); }, tokens,
                                        plan_json_path(given.dataset) + ": training flags");
  note_user_set(*parsed, a);
  a.dataset = plan.dataset;
  const std::size_t n = plan.cells.size();
  if (cell >= 0 && static_cast<std::size_t>(cell) >= n)
    throw Error("--cell " + std::to_string(cell) + ": the plan has " + std::to_string(n) + " cells (0-" +
                std::to_string(n - 1) + ")");
  if (cell < 0 && a.view) throw Error("--view watches one run: give --cell K with it");
  if (cell < 0 && (a.resume || !a.resume_from.empty()))
    throw Error("--resume: cells resume from their checkpoints by themselves; give --cell K to name one");
  auto backend = open_backend(a.backend, a.quiet);  // before anything is loaded or written
  PlanTrainer trainer(given.dataset, plan, a, *backend);

  if (cell >= 0) return trainer.train(static_cast<std::size_t>(cell), given.out);

  // Across the cells: time so far and, from the cells this run trained, an estimate of the
  // rest (each cell's own bar knows only its own steps).
  const auto start = std::chrono::steady_clock::now();
  std::size_t trained = 0;
  double training = 0;  // seconds, the cells trained by this run
  for (std::size_t k = 0; k < n; ++k) {
    const auto cell_start = std::chrono::steady_clock::now();
    const int code = trainer.train(k, "");
    if (code == 130) {
      std::fprintf(stderr, "stopped in cell %zu of %zu; run glint train %s again to continue\n", k, n,
                   given.dataset.c_str());
      return code;
    }
    if (code != 0) return code;
    if (trainer.skipped()) continue;  // a cell already trained says nothing about the others' time
    const auto now = std::chrono::steady_clock::now();
    ++trained;
    training += std::chrono::duration<double>(now - cell_start).count();
    const std::size_t left = n - 1 - k;
    if (!a.quiet && left > 0)
      std::fprintf(stderr, "cells: %zu of %zu done, %s so far; about %s for the %zu left\n", k + 1, n,
                   format_duration(std::chrono::duration<double>(now - start).count()).c_str(),
                   format_duration(training / static_cast<double>(trained) * static_cast<double>(left)).c_str(), left);
  }
  if (!a.quiet) std::fprintf(stderr, "all %zu cells trained; merging\n", n);
  MergeArgs m;
  m.plan = given.dataset;
  m.out = given.out;
  m.backend = a.backend;
  m.force = true;  // the merge of these cells, made again
  m.quiet = a.quiet;
  return run_merge(m, backend.get());
}

}  // namespace glint::cli
