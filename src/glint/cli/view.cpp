#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>  // environ

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "glint/cli/backend_flag.h"
#include "glint/cli/camera_source.h"
#include "glint/cli/commands.h"
#include "glint/cli/view_run_folder.h"
#include "glint/core/error.h"
#include "glint/io/file_bytes.h"
#include "glint/io/model_file.h"
#include "glint/io/model_checks.h"
#include "glint/light/environment_light.h"
#include "glint/light/lights.h"
#include "glint/view/light_setups_json.h"
#include "glint/view/model_blob.h"
#include "glint/view/scene_json.h"
#include "glint/view/page_environment.h"
#include "glint/view/server.h"
#include "glint/view/splat_ao_blob.h"

namespace glint::cli {

namespace {

// A cameras.json is a JSON array (camera_source.cpp decides the same way).
bool is_camera_list(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::path(path).extension() != ".json" || std::filesystem::is_directory(path, ec)) return false;
  const std::string bytes = read_file_bytes(path);
  const std::size_t first = bytes.find_first_not_of(" \t\r\n");
  return first != std::string::npos && bytes[first] == '[';
}

// Opens the page with the desktop's opener (xdg-open, which honours $BROWSER), without
// waiting for it; -1 when it could not be started, after saying so.
pid_t open_in_browser(const std::string& url) {
  const char* argv[] = {"xdg-open", url.c_str(), nullptr};
  pid_t pid = -1;
  const int err = posix_spawnp(&pid, "xdg-open", nullptr, nullptr, const_cast<char* const*>(argv), ::environ);
  if (err != 0) {
    std::fprintf(stderr, "glint view: could not start xdg-open (%s); open %s in a browser\n", std::strerror(err),
                 url.c_str());
    return -1;
  }
  return pid;
}

}  // namespace

void add_view(CLI::App& app) {
  struct Args {
    std::string model, cameras, lights;
    view::ServeOptions serve;
    DatasetFlags flags;
    bool open = false;
  };
  auto a = std::make_shared<Args>();
  auto* sub = app.add_subcommand("view", "Serve a splat file to a live viewer page in the browser (WebGL2)");
  sub->add_option("model", a->model,
                  "Splat file (.ply / .splat / .spz), or a glint train output folder: its newest scene.ply or "
                  "checkpoint, reloaded in the page when it changes")
      ->required();
  sub->add_option("--cameras", a->cameras, "Dataset folder, transforms .json, or cameras.json: cameras to snap to");
  sub->add_option("--lights", a->lights, "lights.json (as glint relight reads it), handed to the page");
  sub->add_option("--host", a->serve.host, "Address to bind (default 127.0.0.1: this machine only)");
  sub->add_option("--port", a->serve.port, "Port (0: any free port, printed)")->check(CLI::Range(0, 65535));
  sub->add_flag("--open", a->open, "Open the page in the default browser (xdg-open) once it is served");
  add_dataset_flags(*sub, a->flags);
  sub->callback([a] {
    // Everything is read and checked before the port is bound: a bad file never serves.
    std::error_code ec;
    const bool run_folder = std::filesystem::is_directory(a->model, ec);
    RunFolderModel folder_model;
    if (run_folder) {
      folder_model = load_run_folder_model(a->model);
      const std::string cams = (std::filesystem::path(a->model) / "cameras.json").string();
      if (a->cameras.empty() && std::filesystem::is_regular_file(cams, ec)) a->cameras = cams;
    } else {
      folder_model.path = a->model;
      folder_model.model = load_model(a->model);
      check_model_finite(folder_model.model, a->model);
      if (folder_model.model.size() == 0) throw Error(a->model, "has no splats to view");
    }
    const std::size_t splats = folder_model.model.size();
    view::Site site;
    std::unique_ptr<AoMaps> ao_maps;  // a fixed model's, for its AO and environment lights
    if (!run_folder) {
      site.add("/api/model.bin", view::encode_model_blob(folder_model.model), "application/octet-stream");
      // What de-lighting needs, once per model (a run folder's watcher bakes each of its
      // models' AO as it publishes it).
      auto backend = open_backend("auto", true);
      ao_maps = std::make_unique<AoMaps>(view::render_page_ao_maps(*backend, folder_model.model));
      site.add("/api/splat_ao.bin", view::encode_splat_ao_blob(*ao_maps, folder_model.model), "application/octet-stream");
    }
    std::array<float, 3> background{0, 0, 0};
    std::vector<Camera> cameras;
    std::vector<std::string> splits;
    if (!a->cameras.empty()) {
      CameraSource src = load_cameras(a->cameras, "all", a->flags);
      // A dataset lists its train cameras, then its test cameras, each split counted from
      // 0 (names can repeat across splits); a cameras.json is one list.
      const bool dataset = !is_camera_list(a->cameras);
      bool in_test = false;
      for (std::size_t i = 0; i < src.cameras.size(); ++i) {
        if (dataset && i > 0 && src.split_index[i] == 0) in_test = true;
        splits.push_back(!dataset ? "cameras" : in_test ? "test" : "train");
      }
      cameras = std::move(src.cameras);
      background = src.background;
    }
    site.add("/api/cameras.json", view::cameras_to_json(cameras, splits, background), "application/json");
    std::string lights = "null";
    std::vector<LightSetup> setups;
    if (!a->lights.empty()) {
      lights = read_file_bytes(a->lights);
      setups = parse_lights_json(lights, a->lights);  // throws naming the file
    }
    site.add("/api/lights.json", lights, "application/json");
    // The same setups checked and in one spelling: what the page lights with.
    // Environment lights split once (the relighter's suns and residual), with the residual's
    // visibility per splat; a run folder's changing model gets none (the page skips them).
    std::vector<std::string> env_json;
    if (ao_maps) {
      std::vector<Vec3d> dirs;
      for (const Light& d : ao_maps->directions) dirs.push_back(d.direction);
      for (const LightSetup& s : setups)
        for (const Light& l : s.lights) {
          if (l.type != LightType::Environment) continue;
          LightSetup one;
          one.lights = {l};
          std::vector<EnvLighting> split;
          expand_environment_lights(one, dirs, EnvLightParams{}, split);
          const std::string url = "api/env/" + std::to_string(env_json.size()) + ".bin";
          site.add("/" + url, view::encode_env_visibility_blob(*ao_maps, split[0], folder_model.model),
                   "application/octet-stream");
          env_json.push_back(view::environment_light_json(l, split[0], url));
        }
    }
    site.add("/api/light_setups.json", view::light_setups_to_json(setups, env_json), "application/json");
    site.add("/favicon.ico", "", "image/x-icon");  // browsers ask for it; an empty answer, not a 404
    pid_t opener = -1;
    std::unique_ptr<RunFolderWatcher> watcher;
    const std::string shown = run_folder ? folder_model.path : a->model;
    if (run_folder) watcher = std::make_unique<RunFolderWatcher>(site, a->model, std::move(folder_model));
    view::serve_until_signal(site, a->serve, [&](const std::string& url) {
      std::printf("glint view: %s (%s, %zu splats, %zu cameras)%s; Ctrl-C to stop\n", url.c_str(), shown.c_str(),
                  splats, cameras.size(), run_folder ? ", reloaded when the run writes a newer model" : "");
      std::fflush(stdout);
      if (a->open) opener = open_in_browser(url);
    });
    watcher.reset();
    if (opener > 0) waitpid(opener, nullptr, WNOHANG);  // reaped if it has finished
    std::printf("glint view: stopped\n");
  });
}

}  // namespace glint::cli
