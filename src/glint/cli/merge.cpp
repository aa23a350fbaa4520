#include <memory>

#include "glint/cli/backend_flag.h"
#include "glint/cli/commands.h"
#include "glint/cli/merge_run.h"

namespace glint::cli {

void add_merge(CLI::App& app) {
  auto a = std::make_shared<MergeArgs>();
  auto* sub = app.add_subcommand("merge", "Merge the trained cells of a plan (glint partition) into one scene.ply and evaluate it");
  sub->add_option("plan", a->plan, "Plan folder written by glint partition")->required();
  sub->add_option("-o,--output", a->out, "Output folder (default: PLAN/merged)");
  sub->add_option("--seam-steps", a->seam_steps,
                  "Steps that train the merged splats near the borders between cells on the training pixels near "
                  "them, so that the cells fit each other there (0: none)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  sub->add_flag("-f,--force", a->force, "Overwrite an earlier merge's scene.ply and eval.json");
  sub->add_flag("-q,--quiet", a->quiet, "No progress bar or table");
  add_backend_flag(*sub, a->backend);
  sub->callback([a] {
    const int code = run_merge(*a);
    if (code != 0) throw CLI::RuntimeError(code);
  });
}

}  // namespace glint::cli
