#include "glint/train/run.h"

#include <omp.h>
#include <sys/resource.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "glint/core/error.h"
#include "glint/core/thread_governor.h"
#include "glint/io/atomic_file.h"
#include "glint/io/cameras_json.h"
#include "glint/io/model_file.h"
#include "glint/train/checkpoint.h"

namespace glint {

namespace fs = std::filesystem;

namespace {

double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // kilobytes on Linux
}

nlohmann::json report_json(const EvalReport& r) {
  nlohmann::json views = nlohmann::json::array();
  for (const auto& v : r.views) {
    nlohmann::json j = {{"name", v.name}, {"psnr", v.psnr}, {"ssim", v.ssim}};
    if (v.masked) j["mask_coverage"] = v.mask_coverage;
    views.push_back(j);
  }
  nlohmann::json j = {{"mean_psnr", r.mean_psnr}, {"mean_ssim", r.mean_ssim}, {"views", views}};
  // masked views are scored on the pixels their masks keep (train/evaluate.h)
  if (r.masked_views > 0) j["masked_views"] = r.masked_views;
  j["scored_pixels"] = r.masked_views == 0 ? "all" : "unmasked only";
  return j;
}

}  // namespace

TrainingRun::TrainingRun(const Dataset& data, const RunOptions& options, const RunPaths& paths, Backend& backend)
    : data_(data),
      options_(options),
      train_(resolve_train_options(options, data)),
      paths_(paths),
      checkpoint_path_(paths.checkpoint_path.empty() ? (fs::path(paths.out) / "checkpoint.glintckp").string()
                                                     : paths.checkpoint_path),
      backend_(backend) {}

EvalReport TrainingRun::evaluate_now(const Trainer& trainer, ImageCache& test_images,
                                     const std::function<void(std::size_t, const ViewScore&, const ImageF&)>& on_view) {
  RenderSettings rs;
  rs.for_backward = false;  // rendered, never differentiated
  for (int c = 0; c < 3; ++c) rs.background[c] = data_.background[static_cast<std::size_t>(c)];
  rs.want_alpha = false;
  rs.antialiased = train_.antialiased;
  rs.sh_degree = trainer.active_sh_degree();
  return evaluate(trainer.model(), data_.test, test_images, backend_, rs, on_view);
}

RunResult TrainingRun::run(RunObserver& observer, const std::atomic<bool>& stop) {
  using clock = std::chrono::steady_clock;
  const auto t_start = clock::now();
  const std::size_t budget = options_.image_cache_mb << 20;
  ImageCache train_images(data_, data_.train, budget, train_.random_background);
  ImageCache test_images(data_, data_.test, budget / 4);
  train_images.preload_if_fits();

  Trainer trainer(data_, train_, backend_, train_images);
  if (paths_.resume) {
    trainer.restore(load_checkpoint(checkpoint_path_), checkpoint_path_);
    observer.on_resumed(checkpoint_path_, trainer.current_step());
    if (trainer.current_step() >= train_.steps)
      throw Error(checkpoint_path_, "checkpoint is at step " + std::to_string(trainer.current_step()) +
                                        ", not before --steps " + std::to_string(train_.steps));
  }

  // Evaluations between steps run at the step loop's thread count too.
  const int max_threads = options_.threads > 0 ? options_.threads : omp_get_max_threads();
  ThreadGovernor governor(options_.threads > 0 ? 1 : max_threads);
  const auto loop_threads = [&] { return options_.threads > 0 ? options_.threads : governor.threads(); };
  struct RestoreThreads {
    int n;
    ~RestoreThreads() { omp_set_num_threads(n); }
  } restore_threads{omp_get_max_threads()};
  omp_set_num_threads(loop_threads());

  RunResult res;
  res.checkpoint_path = checkpoint_path_;
  RunProgress prog;
  prog.steps = train_.steps;
  if (!data_.test.empty()) {
    const EvalReport first = evaluate_now(trainer, test_images);
    res.first_test_psnr = prog.test_psnr = first.mean_psnr;
    observer.on_eval(trainer.current_step(), first);
  }

  const auto save_ckpt = [&] {
    save_checkpoint(checkpoint_path_, trainer.checkpoint());
    observer.on_checkpoint(checkpoint_path_, trainer.current_step());
  };
  const long first_step = trainer.current_step();
  const auto t_loop = clock::now();
  const StepModel step_model = [&trainer]() -> const GaussianModel& { return trainer.model(); };
  while (trainer.current_step() < train_.steps) {
    if (stop.load()) {
      res.interrupted = true;
      break;
    }
    omp_set_num_threads(loop_threads());
    const auto t_step = clock::now();
    const StepResult r = trainer.step();
    governor.record(std::chrono::duration<double, std::milli>(clock::now() - t_step).count());
    prog.step = r.step;
    prog.loss = r.loss;
    prog.splats = r.splats;
    if (options_.eval_every > 0 && r.step % options_.eval_every == 0 && !data_.test.empty()) {
      const EvalReport e = evaluate_now(trainer, test_images);
      prog.test_psnr = e.mean_psnr;
      observer.on_eval(r.step, e);
    }
    if (options_.save_every > 0 && r.step % options_.save_every == 0) save_ckpt();
    observer.on_step(r, prog, step_model);
  }
  res.train_time_s = std::chrono::duration<double>(clock::now() - t_loop).count();
  res.steps = trainer.current_step();
  res.steps_this_run = res.steps - first_step;
  res.splats = trainer.model().size();
  res.thread_switches = governor.switches();
  res.threads_at_end = loop_threads();
  res.ms_per_step = res.steps_this_run > 0 ? 1000.0 * res.train_time_s / static_cast<double>(res.steps_this_run) : 0.0;

  const std::string ply = (fs::path(paths_.out) / "scene.ply").string();
  // The files say how the model is to be rendered (a copy only when that adds to it).
  auto save_trained = [&](const std::string& path) {
    if (!train_.antialiased) return save_model(path, trainer.model());
    GaussianModel m = trainer.model();
    m.antialiased = true;
    save_model(path, m);
  };
  if (res.interrupted) {
    save_ckpt();
    save_trained(ply);
    observer.on_finish(res);
    return res;
  }

  save_trained(ply);
  if (options_.write_splat) save_trained((fs::path(paths_.out) / "scene.splat").string());
  if (options_.write_spz) save_trained((fs::path(paths_.out) / "scene.spz").string());
  std::vector<Camera> cams;
  for (const auto* split : {&data_.train, &data_.test})
    for (const View& v : *split) cams.push_back(v.camera);
  write_cameras_json((fs::path(paths_.out) / "cameras.json").string(), cams);
  if (options_.save_every > 0 && res.steps % options_.save_every != 0) save_ckpt();  // else the loop just did

  if (!data_.test.empty())
    res.test = evaluate_now(trainer, test_images,
                            [&](std::size_t, const ViewScore& s, const ImageF& img) { observer.on_final_view(s, img); });

  nlohmann::json j;
  j["dataset"] = data_.root;
  j["format"] = format_name(data_.format);
  j["backend"] = backend_.name();
  j["device"] = backend_.device();
  if (const long long peak = backend_.peak_device_memory_bytes(); peak >= 0)
    j["peak_device_memory_mb"] = static_cast<double>(peak) / (1024.0 * 1024.0);
  j["steps"] = res.steps;
  j["steps_this_run"] = res.steps_this_run;
  j["splats"] = res.splats;
  j["wall_time_s"] = std::chrono::duration<double>(clock::now() - t_start).count();
  j["train_time_s"] = res.train_time_s;
  j["ms_per_step"] = res.ms_per_step;
  j["peak_rss_mb"] = peak_rss_mb();
  j["threads"] = {{"max", max_threads}, {"at_end", res.threads_at_end}, {"switches", res.thread_switches}};
  j["initial_test_psnr"] = res.first_test_psnr;
  j["test_views"] = data_.test.size();
  j["test"] = report_json(res.test);
  j["options"] = nlohmann::json::parse(train_.to_json());
  write_file_atomic((fs::path(paths_.out) / "eval.json").string(), j.dump(2) + "\n");
  observer.on_finish(res);
  return res;
}

double peak_memory_mb() { return peak_rss_mb(); }

}  // namespace glint
