#pragma once
// PLAN/submit.sh: the plan's cells as one Slurm job array and the merge as a job that
// waits for it, made from one template (slurm_script.cpp).
#include <string>

namespace glint::cli {

struct SlurmScriptSettings {
  std::string glint;        // the executable the jobs run unless $GLINT names another
  std::size_t cells = 0;
  std::string sbatch_args;  // --slurm-args: more sbatch options for every job, shell words
};

// The script's text. Throws glint::Error for sbatch_args that are more than shell words
// (command substitution, redirections, separators, line breaks).
std::string slurm_submit_script(const SlurmScriptSettings& settings);

}  // namespace glint::cli
