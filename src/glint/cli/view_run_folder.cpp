#include "glint/cli/view_run_folder.h"

#include <omp.h>
#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "glint/core/error.h"
#include "glint/io/model_checks.h"
#include "glint/io/model_file.h"
#include "glint/train/checkpoint.h"
#include "glint/view/live_model_files.h"

namespace glint::cli {

namespace fs = std::filesystem;

namespace {

struct Candidate {
  std::string path;
  fs::file_time_type mtime;
};

// The newest of the run's model files; path empty when it has none.
Candidate newest_model_file(const std::string& folder) {
  Candidate best;
  for (const char* name : {"checkpoint.glintckp", "scene.ply"}) {  // on equal times scene.ply
    const fs::path p = fs::path(folder) / name;
    std::error_code ec;
    const auto t = fs::last_write_time(p, ec);
    if (ec || !fs::is_regular_file(p, ec)) continue;
    if (best.path.empty() || t >= best.mtime) best = {p.string(), t};
  }
  return best;
}

RunFolderModel load_candidate(const Candidate& c) {
  RunFolderModel m;
  m.path = c.path;
  m.mtime = c.mtime;
  m.model = fs::path(c.path).extension() == ".glintckp" ? checkpoint_model(load_checkpoint(c.path)) : load_model(c.path);
  check_model_finite(m.model, c.path);
  if (m.model.size() == 0) throw Error(c.path, "has no splats to view");
  return m;
}

void publish(view::Site& site, Backend& backend, const RunFolderModel& m) {
  site.publish(view::live_model_files(backend, m.model), run_folder_status(m));
}

}  // namespace

RunFolderModel load_run_folder_model(const std::string& folder) {
  const Candidate c = newest_model_file(folder);
  if (c.path.empty()) throw Error(folder, "is a folder without scene.ply or checkpoint.glintckp (not a glint train output)");
  return load_candidate(c);
}

std::string run_folder_status(const RunFolderModel& m) {
  return nlohmann::json{{"live", true},
                        {"state", "watching"},
                        {"file", fs::path(m.path).filename().string()},
                        {"splats", m.model.size()}}
      .dump();
}

RunFolderWatcher::RunFolderWatcher(view::Site& site, std::string folder, RunFolderModel first, double every_s)
    : site_(site), folder_(std::move(folder)), mtime_(first.mtime), path_(first.path), every_s_(every_s) {
  // The first model's AO with every thread, as a fixed model's at load; a reload's on this
  // watcher's one thread, so that a training run writing the folder keeps the other cores.
  publish(site_, *make_cpu_backend(), first);
  backend_ = make_cpu_backend(1);
  // Ctrl-C belongs to the server's sigwait, never to this thread: it starts with the stop
  // signals blocked (inherited from this thread's mask for the moment it is created).
  sigset_t stop, old;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, &old);
  thread_ = std::thread([this] { loop(); });
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

RunFolderWatcher::~RunFolderWatcher() {
  stop_ = true;
  thread_.join();
}

void RunFolderWatcher::loop() {
  omp_set_num_threads(1);  // a reload's AO bake on this thread alone (the backend's is one thread too)
  const auto period = std::chrono::duration<double>(every_s_);
  auto next = std::chrono::steady_clock::now() + period;
  while (!stop_) {
    if (std::chrono::steady_clock::now() < next) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      continue;
    }
    next += period;
    const Candidate c = newest_model_file(folder_);
    if (c.path.empty() || (c.path == path_ && c.mtime == mtime_)) continue;
    try {
      const RunFolderModel m = load_candidate(c);
      publish(site_, *backend_, m);
      std::fprintf(stderr, "glint view: reloaded %s (%zu splats)\n", m.path.c_str(), m.model.size());
      ++reloads_;
    } catch (const std::exception& e) {  // keep serving the last good model
      std::fprintf(stderr, "glint view: not reloaded: %s\n", e.what());
    }
    path_ = c.path;  // a bad file is reported once, not at every poll
    mtime_ = c.mtime;
  }
}

}  // namespace glint::cli
