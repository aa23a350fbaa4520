#include "glint/cli/train_run.h"

#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "glint/backend/backend.h"
#include "glint/cli/output_dir.h"
#include "glint/cli/progress.h"
#include "glint/core/error.h"
#include "glint/io/atomic_file.h"
#include "glint/io/cameras_json.h"
#include "glint/io/image_io.h"
#include "glint/io/image_ops.h"
#include "glint/io/model_file.h"
#include "glint/train/evaluate.h"

namespace glint::cli {

namespace fs = std::filesystem;

namespace {

std::atomic<bool> g_interrupted{false};
extern "C" void on_sigint(int) { g_interrupted = true; }

double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024.0;  // kilobytes on Linux
}

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

nlohmann::json report_json(const EvalReport& r) {
  nlohmann::json views = nlohmann::json::array();
  for (const auto& v : r.views) views.push_back({{"name", v.name}, {"psnr", v.psnr}, {"ssim", v.ssim}});
  return {{"mean_psnr", r.mean_psnr}, {"mean_ssim", r.mean_ssim}, {"views", views}};
}

}  // namespace

int run_training(TrainArgs a) {
  using clock = std::chrono::steady_clock;
  const auto t_start = clock::now();
  // From the start: a Ctrl-C while loading must not be lost (shells start background jobs
  // with SIGINT ignored, and the flag is checked before the first step).
  g_interrupted = false;
  struct RestoreSignal {
    void (*old)(int);
    ~RestoreSignal() { std::signal(SIGINT, old); }
  } restore_signal{std::signal(SIGINT, on_sigint)};
  DatasetOptions dopt = resolve(a.data);
  dopt.seed = a.train.seed;
  if (a.out.empty()) a.out = (fs::path("out") / fs::path(a.dataset).lexically_normal().filename()).string();
  const std::string ckpt_path = a.resume_from.empty() ? (fs::path(a.out) / "checkpoint.glintckp").string() : a.resume_from;
  const bool resuming = a.resume || !a.resume_from.empty();
  prepare_output_dir(a.out, {"scene.ply", "eval.json"}, a.force || resuming);

  Dataset data = load_dataset(a.dataset, dopt);
  a.train.densify.white_background = data.background == std::array<float, 3>{1, 1, 1};
  // The 3DGS schedule is written for 30000 steps; --schedule-steps S keeps its proportions
  // for other run lengths: positions decay over S steps, densification (and its opacity
  // resets) stops at S/2. It does not follow --steps, so that running N steps and resuming
  // to N+M gives exactly the run of N+M steps.
  apply_preset(a);
  const long S = a.schedule_steps;
  if (a.train.lr.position_max_steps == LearningRates{}.position_max_steps) a.train.lr.position_max_steps = S;
  if (a.train.densify.densify_until == DensifyOptions{}.densify_until)
    a.train.densify.densify_until = std::min<long>(a.train.densify.densify_until, S / 2);
  if (a.train.mcmc.refine_until == McmcOptions{}.refine_until)
    a.train.mcmc.refine_until = std::min<long>(a.train.mcmc.refine_until, S * 5 / 6);
  if (!a.quiet)
    std::fprintf(stderr, "dataset: %s, %zu train / %zu test views, %dx%d, %zu initial points%s\n",
                 format_name(data.format), data.train.size(), data.test.size(), data.train[0].camera.width,
                 data.train[0].camera.height, data.points.size(), data.points_random ? " (random)" : "");

  const std::size_t budget = a.image_cache_mb << 20;
  ImageCache train_images(data, data.train, budget, a.train.random_background);
  ImageCache test_images(data, data.test, budget / 4);
  train_images.preload_if_fits();

  auto backend = make_cpu_backend();
  Trainer trainer(data, a.train, *backend, train_images);
  if (resuming) {
    trainer.restore(load_checkpoint(ckpt_path), ckpt_path);
    if (!a.quiet) std::fprintf(stderr, "resumed from %s at step %ld\n", ckpt_path.c_str(), trainer.current_step());
    if (trainer.current_step() >= a.train.steps)
      throw Error(ckpt_path, "checkpoint is at step " + std::to_string(trainer.current_step()) +
                                 ", not before --steps " + std::to_string(a.train.steps));
  }

  RenderSettings eval_rs;
  eval_rs.for_backward = false;  // rendered, never differentiated
  for (int c = 0; c < 3; ++c) eval_rs.background[c] = data.background[static_cast<std::size_t>(c)];
  eval_rs.want_alpha = false;
  eval_rs.antialiased = a.train.antialiased;
  auto eval_now = [&]() {
    eval_rs.sh_degree = trainer.active_sh_degree();
    return evaluate(trainer.model(), data.test, test_images, *backend, eval_rs);
  };
  double first_psnr = 0;
  if (!data.test.empty()) {
    first_psnr = eval_now().mean_psnr;
    if (!a.quiet) std::fprintf(stderr, "test PSNR before training: %.2f dB\n", first_psnr);
  }

  auto save_ckpt = [&] { save_checkpoint(ckpt_path, trainer.checkpoint()); };
  Progress progress("train", a.train.steps);
  const long first_step = trainer.current_step();
  double last_test_psnr = first_psnr;
  bool interrupted = false;
  StepResult r;
  const auto t_loop = clock::now();
  // A failing step throws out of here; the last good checkpoint (if any) stays as it was.
  while (trainer.current_step() < a.train.steps) {
    if (g_interrupted) {
      interrupted = true;
      break;
    }
    r = trainer.step();
    if (a.eval_every > 0 && r.step % a.eval_every == 0 && !data.test.empty()) last_test_psnr = eval_now().mean_psnr;
    if (a.save_every > 0 && r.step % a.save_every == 0) save_ckpt();
    if (!a.quiet)
      progress.update(r.step, "loss " + fmt("%.4f", r.loss) + "  splats " + std::to_string(r.splats) +
                                  (data.test.empty() ? "" : "  test " + fmt("%.2f dB", last_test_psnr)));
  }
  const double loop_s = std::chrono::duration<double>(clock::now() - t_loop).count();
  if (!a.quiet) progress.finish("loss " + fmt("%.4f", r.loss) + "  splats " + std::to_string(trainer.model().size()));

  const std::string ply = (fs::path(a.out) / "scene.ply").string();
  if (interrupted) {
    save_ckpt();
    save_model(ply, trainer.model());
    std::fprintf(stderr, "interrupted at step %ld: wrote %s and %s; continue with --resume\n", trainer.current_step(),
                 ckpt_path.c_str(), ply.c_str());
    return 130;
  }

  save_model(ply, trainer.model());
  if (a.write_splat) save_model((fs::path(a.out) / "scene.splat").string(), trainer.model());
  std::vector<Camera> cams;
  for (const auto* split : {&data.train, &data.test})
    for (const View& v : *split) cams.push_back(v.camera);
  write_cameras_json((fs::path(a.out) / "cameras.json").string(), cams);
  if (a.save_every > 0) save_ckpt();

  EvalReport final_eval;
  if (!data.test.empty()) {
    if (a.save_renders) prepare_output_dir((fs::path(a.out) / "renders").string(), {}, true);
    eval_rs.sh_degree = trainer.active_sh_degree();
    final_eval = evaluate(trainer.model(), data.test, test_images, *backend, eval_rs,
                          [&](std::size_t, const ViewScore& s, const ImageF& img) {
                            if (a.save_renders)
                              write_file_atomic((fs::path(a.out) / "renders" / (output_stem(s.name) + ".png")).string(),
                                                encode_png(to_image8(img)));
                          });
  }
  const long steps_run = trainer.current_step() - first_step;
  nlohmann::json j;
  j["dataset"] = data.root;
  j["format"] = format_name(data.format);
  j["steps"] = trainer.current_step();
  j["steps_this_run"] = steps_run;
  j["splats"] = trainer.model().size();
  j["wall_time_s"] = std::chrono::duration<double>(clock::now() - t_start).count();
  j["train_time_s"] = loop_s;
  j["ms_per_step"] = steps_run > 0 ? 1000.0 * loop_s / static_cast<double>(steps_run) : 0.0;
  j["peak_rss_mb"] = peak_rss_mb();
  j["initial_test_psnr"] = first_psnr;
  j["test_views"] = data.test.size();
  j["test"] = report_json(final_eval);
  j["options"] = nlohmann::json::parse(a.train.to_json());
  write_file_atomic((fs::path(a.out) / "eval.json").string(), j.dump(2) + "\n");

  std::printf("trained %ld steps in %s (%.1f ms/step), %zu splats, peak memory %.0f MB\n", trainer.current_step(),
              format_duration(loop_s).c_str(), j["ms_per_step"].get<double>(), trainer.model().size(), peak_rss_mb());
  if (!data.test.empty())
    std::printf("test PSNR %.2f dB (before training %.2f dB), SSIM %.4f over %zu views\n", final_eval.mean_psnr,
                first_psnr, final_eval.mean_ssim, data.test.size());
  std::printf("wrote %s/{scene.ply,cameras.json,eval.json%s%s}\n", a.out.c_str(), a.write_splat ? ",scene.splat" : "",
              a.save_renders ? ",renders/" : "");
  return 0;
}

}  // namespace glint::cli
