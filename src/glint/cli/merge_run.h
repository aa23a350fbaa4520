#pragma once
// `glint merge PLAN` as a function, shared with `glint train PLAN` (which merges after its
// last cell): checks that every cell has finished, merges their owned splats into one
// scene.ply, and evaluates it on the dataset's held-out views, seams apart.
#include <string>

#include "glint/backend/backend.h"
#include "glint/partition/plan.h"

namespace glint::cli {

struct MergeArgs {
  std::string plan;
  std::string out;  // default PLAN/merged
  std::string backend = "auto";
  long seam_steps = 300;  // the seam polish's steps (partition/seam_polish.h); 0: none
  bool force = false;
  bool quiet = false;
};

// Returns the exit code. Throws glint::Error (naming the cell) for a plan whose cells are
// not all complete, before anything is written.
int run_merge(MergeArgs args, Backend* backend = nullptr);

// The dataset options a plan was made with (its stored dataset flags).
DatasetOptions plan_dataset_options(const partition::Plan& plan);

}  // namespace glint::cli
