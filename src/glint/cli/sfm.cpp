#include <atomic>
#include <csignal>
#include <cstdio>
#include <memory>

#include "glint/capture/external_tool.h"
#include "glint/cli/commands.h"
#include "glint/cli/sfm_run.h"

namespace glint::cli {

namespace {
std::atomic<bool> g_stop{false};
extern "C" void on_sigint_sfm(int) { g_stop = true; }

struct SfmArgs {
  std::string input, out;
  capture::SfmOptions options;
  bool quiet = false;
};
}  // namespace

void add_sfm(CLI::App& app) {
  auto a = std::make_shared<SfmArgs>();
  auto* sub = app.add_subcommand(
      "sfm", "Poses for photos or a video without them (COLMAP): writes a dataset folder glint train takes");
  sub->add_option("input", a->input, "Folder of photos (JPEG/PNG), or a video file (.mp4, .mov, ...)")->required();
  sub->add_option("-o,--output", a->out, "Dataset folder to write (images/, sparse/0, colmap/)")->required();
  sub->add_flag("-q,--quiet", a->quiet, "No progress bars");
  add_sfm_flags(*sub, a->options);
  sub->callback([a] {
    g_stop = false;
    struct RestoreSignal {
      void (*old)(int);
      ~RestoreSignal() { std::signal(SIGINT, old); }
    } restore{std::signal(SIGINT, on_sigint_sfm)};
    try {
      run_sfm_with_progress(a->input, a->out, a->options, a->quiet, &g_stop);
    } catch (const capture::Interrupted&) {
      std::fprintf(stderr, "interrupted: nothing kept (%s.partial is removed by the next run)\n", a->out.c_str());
      throw CLI::RuntimeError(130);
    }
    std::printf("train on it with: glint train %s\n", a->out.c_str());
  });
}

}  // namespace glint::cli
