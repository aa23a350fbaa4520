#pragma once
// glint view RUN_FOLDER: a training run's output folder (glint train -o) as a model that
// changes. The newest of its scene.ply and checkpoint.glintckp is served, and a thread
// polls their modification times and publishes the newer model when one changes (both
// are written by rename, so a changed file is always whole), each with its per-splat AO
// (view/live_model_files.h).
#include <atomic>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include "glint/backend/backend.h"
#include "glint/core/gaussians.h"
#include "glint/view/site.h"

namespace glint::cli {

struct RunFolderModel {
  std::string path;  // the file it came from
  std::filesystem::file_time_type mtime;
  GaussianModel model;
};

// The newest model of the folder; glint::Error naming the folder when it has none, or
// naming the file when that is bad.
RunFolderModel load_run_folder_model(const std::string& folder);

// The Site status of a run folder's model: {"live": true, "state": "watching", "file", "splats"}.
std::string run_folder_status(const RunFolderModel& m);

class RunFolderWatcher {
 public:
  // Publishes `first` into `site` now, then polls every `every_s` seconds.
  RunFolderWatcher(view::Site& site, std::string folder, RunFolderModel first, double every_s = 1.0);
  ~RunFolderWatcher();  // stops and joins
  long reloads() const { return reloads_; }

 private:
  void loop();

  view::Site& site_;
  std::string folder_;
  std::filesystem::file_time_type mtime_;
  std::string path_;
  double every_s_;
  std::unique_ptr<Backend> backend_;  // the reloads' AO maps
  std::atomic<bool> stop_{false};
  std::atomic<long> reloads_{0};
  std::thread thread_;
};

}  // namespace glint::cli
