#include "glint/cli/merge_run.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "glint/cli/backend_flag.h"
#include "glint/cli/dataset_options.h"
#include "glint/cli/given_flags.h"
#include "glint/cli/output_dir.h"
#include "glint/cli/progress.h"
#include "glint/cli/train_run.h"
#include "glint/core/error.h"
#include "glint/io/atomic_file.h"
#include "glint/io/model_file.h"
#include "glint/partition/cell_dataset.h"
#include "glint/partition/merge.h"
#include "glint/partition/plan_file.h"
#include "glint/partition/seam_polish.h"
#include "glint/train/evaluate.h"
#include "glint/train/run.h"
#include "glint/train/run_options.h"

namespace glint::cli {

namespace fs = std::filesystem;
using namespace glint::partition;

DatasetOptions plan_dataset_options(const Plan& plan) {
  DatasetFlags flags;
  parse_flag_tokens([&](CLI::App& app) { add_dataset_flags(app, flags); }, plan.dataset_args, "plan dataset_args");
  return resolve(flags);
}

namespace {

// The cells' training options as the plan stores them (its training flags), resolved
// against the whole dataset: the seam polish runs the end of their schedule.
TrainOptions plan_train_options(const std::string& plan_arg, const Plan& plan, const Dataset& data) {
  TrainArgs t;
  const auto parsed = parse_flag_tokens([&](CLI::App& app) { add_train_flags(app, t); }, plan.train_args,
                                        plan_json_path(plan_arg) + ": training flags");
  note_user_set(*parsed, t);
  return resolve_train_options(t.run, data);
}

struct Score {
  std::size_t views = 0;
  double psnr = 0, ssim = 0;
  void add(const ViewScore& v) {
    ++views;
    psnr += v.psnr;
    ssim += v.ssim;
  }
  nlohmann::json json() const {
    return {{"views", views}, {"mean_psnr", views ? psnr / views : 0.0}, {"mean_ssim", views ? ssim / views : 0.0}};
  }
};

}  // namespace

int run_merge(MergeArgs a, Backend* backend_in) {
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  const std::string dir = plan_folder(a.plan);
  const Plan plan = load_plan(a.plan);
  std::unique_ptr<Backend> own_backend;
  if (!backend_in) own_backend = open_backend(a.backend, a.quiet);
  Backend& backend = backend_in ? *backend_in : *own_backend;
  if (a.out.empty()) a.out = (fs::path(dir) / "merged").string();

  // Every cell finished, for this plan, before anything is read at length or written.
  std::vector<CellRecord> records;
  for (std::size_t k = 0; k < plan.cells.size(); ++k) {
    const std::string folder = cell_folder(dir, k);
    const auto rec = read_cell_record(folder);
    if (!rec)
      throw Error(folder, "cell " + std::to_string(k) + " has not finished training (no done.json); run glint train " +
                              a.plan + " --cell " + std::to_string(k));
    if (rec->fingerprint != cell_fingerprint(plan, k) || rec->cell != k)
      throw Error(cell_record_path(folder), "cell " + std::to_string(k) +
                                                " was trained for another plan; train it again (glint train " + a.plan +
                                                " --cell " + std::to_string(k) + " --force)");
    records.push_back(*rec);
  }
  for (std::size_t k = 1; k < records.size(); ++k)
    if (records[k].options != records[0].options && !a.quiet)
      std::fprintf(stderr, "glint merge: note: cell %zu was trained with other options than cell 0 (their done.json)\n", k);
  prepare_output_dir(a.out, {"scene.ply", "eval.json"}, a.force);

  Dataset data = load_dataset(plan.dataset, plan_dataset_options(plan));
  check_plan_dataset(a.plan, plan, data);

  CellMerger merger(plan);
  std::vector<std::size_t> trained(plan.cells.size());
  for (std::size_t k = 0; k < plan.cells.size(); ++k) {
    const std::string ply = (fs::path(cell_folder(dir, k)) / "scene.ply").string();
    if (!fs::exists(ply)) throw Error(ply, "cell " + std::to_string(k) + ": missing; train the cell again");
    GaussianModel m = load_model(ply);
    if (m.size() != records[k].splats)
      throw Error(ply, "cell " + std::to_string(k) + ": holds " + std::to_string(m.size()) + " splats, its done.json " +
                           std::to_string(records[k].splats) + ": changed after training; train the cell again");
    trained[k] = m.size();
    try {
      merger.add(k, m);
    } catch (const Error& e) {
      throw Error(ply, e.what());
    }
  }
  GaussianModel merged = merger.take();
  const double merge_s = std::chrono::duration<double>(clock::now() - t0).count();
  SeamPolishReport polish;
  double polish_s = 0;
  if (a.seam_steps > 0) {
    const auto p0 = clock::now();
    const TrainOptions options = plan_train_options(a.plan, plan, data);
    Progress progress("seams", a.seam_steps);
    merged = polish_seams(plan, merged, data, options, a.seam_steps, backend, &polish, [&](long s) {
      if (!a.quiet) progress.update(s);
    });
    if (!a.quiet) progress.finish();
    polish_s = std::chrono::duration<double>(clock::now() - p0).count();
    if (!a.quiet)
      std::printf("seam polish: %ld steps on the border strips of %zu training views: %zu splats trained, %zu kept "
                  "trained (%.1f s)\n",
                  polish.steps, polish.views, polish.splats_trained, polish.splats_changed, polish_s);
  }
  const std::string out_ply = (fs::path(a.out) / "scene.ply").string();
  save_model(out_ply, merged);

  nlohmann::json j;
  j["plan"] = fs::absolute(plan_json_path(a.plan)).lexically_normal().string();
  j["dataset"] = plan.dataset;
  j["splats"] = merged.size();
  j["sh_degree"] = merged.sh_degree;
  for (std::size_t k = 0; k < plan.cells.size(); ++k)
    j["cells"].push_back({{"cell", k}, {"splats_trained", trained[k]}, {"splats_kept", merger.kept(k)},
                          {"steps", records[k].steps}});
  if (!a.quiet) {
    std::printf("cell  splats trained  kept (core)\n");
    for (std::size_t k = 0; k < plan.cells.size(); ++k) std::printf("%4zu  %14zu  %11zu\n", k, trained[k], merger.kept(k));
    std::printf("merged: %zu splats -> %s\n", merged.size(), out_ply.c_str());
  }

  if (!data.test.empty()) {
    ImageCache images(data, data.test, std::size_t{1} << 30);
    RenderSettings rs;
    rs.for_backward = false;
    for (int c = 0; c < 3; ++c) rs.background[c] = data.background[static_cast<std::size_t>(c)];
    rs.want_alpha = false;
    rs.antialiased = merged.antialiased;
    Progress progress("eval", static_cast<long>(data.test.size()));
    const EvalReport r = evaluate(merged, data.test, images, backend, rs, [&](std::size_t i, const ViewScore&, const ImageF&) {
      if (!a.quiet) progress.update(static_cast<long>(i + 1));
    });
    if (!a.quiet) progress.finish();
    Score border, interior;
    nlohmann::json views = nlohmann::json::array();
    for (std::size_t i = 0; i < r.views.size(); ++i) {
      const bool across = looks_across_border(plan, data.test[i].camera);
      (across ? border : interior).add(r.views[i]);
      views.push_back({{"name", r.views[i].name}, {"psnr", r.views[i].psnr}, {"ssim", r.views[i].ssim}, {"border", across}});
    }
    j["test"] = {{"mean_psnr", r.mean_psnr}, {"mean_ssim", r.mean_ssim}, {"views", views}};
    j["border_views"] = border.json();
    j["interior_views"] = interior.json();
    j["test_views"] = data.test.size();
    if (!a.quiet) {
      std::printf("test PSNR %.2f dB, SSIM %.4f over %zu views\n", r.mean_psnr, r.mean_ssim, r.views.size());
      std::printf("  views across a cell border: %.2f dB over %zu; within one cell: %.2f dB over %zu\n",
                  border.views ? border.psnr / border.views : 0.0, border.views,
                  interior.views ? interior.psnr / interior.views : 0.0, interior.views);
    }
  }
  j["seam_polish"] = {{"steps", polish.steps},
                      {"views", polish.views},
                      {"splats_trained", polish.splats_trained},
                      {"splats_changed", polish.splats_changed},
                      {"time_s", polish_s}};
  j["backend"] = backend.name();
  j["merge_time_s"] = merge_s;
  j["wall_time_s"] = std::chrono::duration<double>(clock::now() - t0).count();
  j["peak_rss_mb"] = peak_memory_mb();
  write_file_atomic((fs::path(a.out) / "eval.json").string(), j.dump(2) + "\n");
  if (!a.quiet) std::printf("wrote %s/{scene.ply,eval.json}\n", a.out.c_str());
  return 0;
}

}  // namespace glint::cli
