#pragma once
// Structure-from-motion as the CLI runs it, shared by `glint sfm` and `glint train` on a
// capture without poses: the flags, a progress bar per stage, and the summary screen.
#include <CLI/CLI.hpp>
#include <atomic>
#include <string>

#include "glint/capture/sfm.h"

namespace glint::cli {

// --frames, --camera-model, --matcher, --sfm-size, --sfm-features, --redo-sfm.
void add_sfm_flags(CLI::App& cmd, capture::SfmOptions& options);

// Names of the flags above that were given on the command line (for refusing them where
// the input needs no SfM).
std::vector<std::string> sfm_flags_given(const CLI::App& cmd);

// Runs SfM of `input` into `dataset_dir` with progress on stderr (unless quiet) and the
// summary on stdout. Throws as capture::run_sfm does.
capture::SfmSummary run_sfm_with_progress(const std::string& input, const std::string& dataset_dir,
                                          const capture::SfmOptions& options, bool quiet,
                                          const std::atomic<bool>* stop);

}  // namespace glint::cli
