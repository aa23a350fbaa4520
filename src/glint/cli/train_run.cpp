#include "glint/cli/train_run.h"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "glint/capture/capture_input.h"
#include "glint/capture/external_tool.h"
#include "glint/cli/backend_flag.h"
#include "glint/cli/output_dir.h"
#include "glint/cli/progress.h"
#include "glint/cli/sfm_run.h"
#include "glint/core/error.h"
#include "glint/cli/train_live_view.h"
#include "glint/io/atomic_file.h"
#include "glint/io/image_io.h"
#include "glint/io/image_ops.h"
#include "glint/train/observer_pair.h"
#include "glint/train/run.h"

namespace glint::cli {

namespace fs = std::filesystem;

namespace {

std::atomic<bool> g_interrupted{false};
extern "C" void on_sigint(int) { g_interrupted = true; }

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

// The terminal's view of a run: a progress bar with the loss, the splat count and the
// latest test PSNR; the final test renders as PNGs on request.
class CliObserver final : public RunObserver {
 public:
  CliObserver(const TrainArgs& a, const Dataset& data, long steps)
      : a_(a), has_test_(!data.test.empty()), progress_("train", steps) {}

  void on_resumed(const std::string& path, long step) override {
    if (!a_.quiet) std::fprintf(stderr, "resumed from %s at step %ld\n", path.c_str(), step);
  }
  void on_eval(long step, const EvalReport& r) override {
    if (started_) return;  // later evaluations show in the progress line
    started_ = true;
    if (!a_.quiet) std::fprintf(stderr, "test PSNR before training (step %ld): %.2f dB\n", step, r.mean_psnr);
  }
  void on_step(const StepResult& r, const RunProgress& p, const StepModel&) override {
    last_loss_ = r.loss;
    if (!a_.quiet)
      progress_.update(r.step, "loss " + fmt("%.4f", r.loss) + "  splats " + std::to_string(r.splats) +
                                   (has_test_ ? "  test " + fmt("%.2f dB", p.test_psnr) : ""));
  }
  void on_final_view(const ViewScore& s, const ImageF& img) override {
    if (a_.save_renders)
      write_file_atomic((fs::path(a_.out) / "renders" / (output_stem(s.name) + ".png")).string(),
                        encode_png(to_image8(img)));
  }
  void on_finish(const RunResult& r) override {
    if (!a_.quiet) progress_.finish("loss " + fmt("%.4f", last_loss_) + "  splats " + std::to_string(r.splats));
  }

 private:
  const TrainArgs& a_;
  bool has_test_;
  Progress progress_;
  bool started_ = false;
  double last_loss_ = 0;
};

// The training images' size: one size, or (a partition cell's crops, a capture from
// several cameras) the range.
std::string view_sizes(const std::vector<View>& views) {
  int w0 = views[0].camera.width, h0 = views[0].camera.height, w1 = w0, h1 = h0;
  bool cropped = false, mixed = false;
  for (const View& v : views) {
    mixed |= v.camera.width != w0 || v.camera.height != h0;
    cropped |= v.full_width != 0 && (v.full_width != v.camera.width || v.full_height != v.camera.height);
    w1 = std::max(w1, v.full_width ? v.full_width : v.camera.width);
    h1 = std::max(h1, v.full_height ? v.full_height : v.camera.height);
  }
  if (cropped) return "crops of views up to " + std::to_string(w1) + "x" + std::to_string(h1);
  if (mixed) return "sizes up to " + std::to_string(w1) + "x" + std::to_string(h1);
  return std::to_string(w0) + "x" + std::to_string(h0);
}

// out/<name>: the dataset folder's name, or a video's name without its extension.
std::string default_output(const std::string& input) {
  fs::path p = fs::path(input).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  std::error_code ec;
  const std::string name = fs::is_regular_file(p, ec) && p.extension() != ".json" ? p.stem().string() : p.filename().string();
  return (fs::path("out") / (name.empty() || name == "." ? "run" : name)).string();
}

}  // namespace

int run_training(TrainArgs a, const TrainingHooks& hooks) {
  // From the start: a Ctrl-C while loading must not be lost (shells start background jobs
  // with SIGINT ignored, and the flag is checked before the first step). SIGTERM and
  // SIGUSR1 come from schedulers (Slurm's --signal before a time limit, preemption).
  g_interrupted = false;
  struct RestoreSignal {
    int sig;
    void (*old)(int);
    ~RestoreSignal() { std::signal(sig, old); }
  } restore_int{SIGINT, std::signal(SIGINT, on_sigint)}, restore_term{SIGTERM, std::signal(SIGTERM, on_sigint)},
      restore_usr1{SIGUSR1, std::signal(SIGUSR1, on_sigint)};
  std::unique_ptr<Backend> own_backend;
  if (!hooks.backend) own_backend = open_backend(a.backend, a.quiet);  // before anything is created or loaded
  Backend* backend = hooks.backend ? hooks.backend : own_backend.get();
  DatasetOptions dopt = resolve(a.data);
  dopt.seed = a.run.train.seed;
  if (a.out.empty()) a.out = default_output(a.dataset);
  const bool capture = capture::is_capture(a.dataset);
  if (!capture && !a.sfm_flags.empty())
    throw Error(a.sfm_flags[0], "applies to photos or a video without poses; " + a.dataset + " already has poses");
  RunPaths paths;
  paths.out = a.out;
  paths.checkpoint_path = a.resume_from;
  paths.resume = a.resume || !a.resume_from.empty();
  prepare_output_dir(a.out, {"scene.ply", "eval.json"}, a.force || paths.resume);

  if (capture) {
    // Poses first: SfM into <out>/sfm (reused when it holds this capture's result), then
    // training on that dataset like any other.
    const std::string sfm_dir = (fs::path(a.out) / "sfm").string();
    try {
      run_sfm_with_progress(a.dataset, sfm_dir, a.sfm, a.quiet, &g_interrupted);
    } catch (const capture::Interrupted&) {
      std::fprintf(stderr, "interrupted during SfM: nothing kept\n");
      return 130;
    }
    a.dataset = sfm_dir;
  }
  Dataset data = hooks.load ? hooks.load(dopt) : load_dataset(a.dataset, dopt);
  TrainingRun run(data, a.run, paths, *backend);
  if (!a.quiet) {
    std::fprintf(stderr, "dataset: %s, %zu train / %zu test views, %s, %zu initial points%s\n",
                 format_name(data.format), data.train.size(), data.test.size(), view_sizes(data.train).c_str(),
                 data.points.size(), data.points_random ? " (random)" : "");
    if (!data.masks.empty())
      std::fprintf(stderr, "masks: %zu of %zu views (%s); masked pixels add nothing to the loss or the test scores\n",
                   data.masked_views(), data.train.size() + data.test.size(),
                   data.masks == "alpha" ? "the images' alpha" : data.masks.c_str());
  }
  if (a.save_renders && !data.test.empty()) prepare_output_dir((fs::path(a.out) / "renders").string(), {}, true);

  // After the dataset has loaded, so that a bad dataset never serves.
  std::unique_ptr<TrainLiveView> live;
  if (a.view) live = std::make_unique<TrainLiveView>(a, data);
  CliObserver cli_observer(a, data, run.train_options().steps);
  std::unique_ptr<ObserverPair> both;
  if (live) both = std::make_unique<ObserverPair>(cli_observer, live->observer());
  RunObserver& observer = both ? static_cast<RunObserver&>(*both) : cli_observer;
  const RunResult r = run.run(observer, g_interrupted);
  const std::string ply = (fs::path(a.out) / "scene.ply").string();
  if (r.interrupted) {
    std::fprintf(stderr, "interrupted at step %ld: wrote %s and %s; continue with --resume\n", r.steps,
                 r.checkpoint_path.c_str(), ply.c_str());
    return 130;
  }
  std::printf("trained %ld steps in %s (%.1f ms/step), %zu splats, peak memory %.0f MB\n", r.steps,
              format_duration(r.train_time_s).c_str(), r.ms_per_step, r.splats, peak_memory_mb());
  if (!data.test.empty())
    std::printf("test PSNR %.2f dB (before training %.2f dB), SSIM %.4f over %zu views%s\n", r.test.mean_psnr,
                r.first_test_psnr, r.test.mean_ssim, data.test.size(),
                r.test.masked_views > 0 ? " (unmasked pixels only)" : "");
  if (hooks.on_finished) hooks.on_finished(r, run);
  std::printf("wrote %s/{scene.ply,cameras.json,eval.json%s%s%s}\n", a.out.c_str(),
              a.run.write_splat ? ",scene.splat" : "", a.run.write_spz ? ",scene.spz" : "", a.save_renders ? ",renders/" : "");
  if (live) {
    std::fflush(stdout);
    live->serve_until(g_interrupted);
  }
  return 0;
}

}  // namespace glint::cli
