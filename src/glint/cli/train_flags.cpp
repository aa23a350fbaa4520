#include <cmath>
#include <map>

#include "glint/cli/backend_flag.h"
#include "glint/cli/train_run.h"

namespace glint::cli {

// Memory budgets in MB: 0 to 2^30 (a negative value would otherwise wrap to a huge one).
const auto kMegabytes = CLI::Range(std::size_t{0}, std::size_t{1} << 30);

// A non-negative finite number (CLI::NonNegativeNumber lets nan and inf through).
const CLI::Validator kFiniteNonNegative(
    [](std::string& s) {
      double v = 0;
      if (!CLI::detail::lexical_cast(s, v) || !std::isfinite(v) || v < 0) return "must be a finite number >= 0, not " + s;
      return std::string();
    },
    "FINITE>=0");

void add_train_flags(CLI::App& cmd, TrainArgs& a) {
  TrainOptions& t = a.run.train;
  auto* g = "Training";
  cmd.add_option("--preset", a.run.preset,
                 "lightable: settings measured best for relighting (normal consistency, flattening, depth "
                 "distortion, random background); explicit regulariser flags still win")
      ->check(CLI::IsMember(preset_names()))
      ->group(g);
  cmd.add_option("--steps", t.steps, "Training steps")->check(CLI::PositiveNumber)->group(g);
  cmd.add_option("--schedule-steps", a.run.schedule_steps,
                 "Run length the schedule is laid out for: position lr decays over it, densification stops "
                 "at half of it (3DGS: 30000). Set it to --steps for short runs")
      ->check(CLI::PositiveNumber)->capture_default_str()->group(g);
  cmd.add_option("--seed", t.seed, "Seed of every random choice (same seed, same result)")->group(g);
  static std::map<std::string, Strategy> strategies{{"adc", Strategy::kAdc}, {"mcmc", Strategy::kMcmc}};
  cmd.add_option("--strategy", t.strategy, "Densification: adc (3DGS clone/split/prune) or mcmc (3DGS-MCMC)")
      ->transform(CLI::CheckedTransformer(strategies, CLI::ignore_case))
      ->group(g);
  cmd.add_option("--max-splats", t.mcmc.max_splats, "Hard splat budget of --strategy mcmc")->group(g);
  cmd.add_option("--sh-degree", t.max_sh_degree, "Highest SH degree")->check(CLI::Range(0, 3))->group(g);
  cmd.add_option("--sh-degree-every", t.sh_degree_every, "Steps between SH degree increases")
      ->check(CLI::PositiveNumber)->group(g);
  cmd.add_option("--lambda-dssim", t.loss.lambda_dssim, "Weight of 1-SSIM in the loss")->check(CLI::Range(0.0, 1.0))->group(g);
  cmd.add_flag("--selective-adam", t.selective_adam, "Update only the splats seen in each step")->group(g);
  cmd.add_flag("--random-background", t.random_background, "Random background colour behind every training render")->group(g);
  cmd.add_flag("--antialiased", t.antialiased, "Mip-Splatting 2D filter")->group(g);
  cmd.add_option("--coarse-to-fine", t.coarse_to_fine,
                 "Train the first N steps at reduced resolution (1/4, then 1/2 after N/2)")->group(g);
  cmd.add_option("--init-opacity", t.init.opacity, "Opacity of the initial splats")->check(CLI::Range(0.001, 0.999))->group(g);

  auto* geo = "Geometry regularisers (for relighting)";
  cmd.add_option("--normal-weight", t.normal_weight, "Weight of normal consistency (splat normals vs depth normals)")
      ->check(CLI::NonNegativeNumber)->group(geo);
  cmd.add_option("--normal-from", t.normal_from, "First step of normal consistency")->group(geo);
  cmd.add_option("--normal-edge", t.normal_edge,
                 "Normal consistency skips pixels on a depth edge: where |1/z(+1) + 1/z(-1) - 2/z| > EPS/z "
                 "along x or y (0: off)")
      ->check(kFiniteNonNegative)->group(geo);
  cmd.add_option("--flatten-weight", t.flatten_weight, "Weight of the flattening loss (mean smallest scale)")
      ->check(CLI::NonNegativeNumber)->group(geo);
  cmd.add_option("--flatten-from", t.flatten_from, "First step of the flattening loss")->group(geo);
  cmd.add_option("--distortion-weight", t.distortion_weight,
                 "Weight of the depth distortion (mean over pixels of sum_ij w_i w_j |z_i - z_j|, z in scene "
                 "units)")
      ->check(CLI::NonNegativeNumber)->group(geo);
  cmd.add_option("--distortion-from", t.distortion_from, "First step of the depth distortion")->group(geo);

  auto* lr = "Learning rates";
  cmd.add_option("--lr-means", t.lr.means_init, "Position lr at the start (x scene radius)")->group(lr);
  cmd.add_option("--lr-means-final", t.lr.means_final, "Position lr at the end (x scene radius)")->group(lr);
  cmd.add_option("--lr-scales", t.lr.log_scales, "Log-scale lr")->group(lr);
  cmd.add_option("--lr-quats", t.lr.quats, "Rotation lr")->group(lr);
  cmd.add_option("--lr-opacity", t.lr.opacity_logits, "Opacity lr")->group(lr);
  cmd.add_option("--lr-sh-dc", t.lr.sh_dc, "SH DC lr")->group(lr);
  cmd.add_option("--lr-sh-rest", t.lr.sh_rest, "SH rest lr")->group(lr);

  auto* d = "Densification (adc)";
  cmd.add_option("--densify-from", t.densify.densify_from, "First step of densification")->group(d);
  cmd.add_option("--densify-until", t.densify.densify_until, "Last step of densification")->group(d);
  cmd.add_option("--densify-every", t.densify.densify_every, "Steps between densifications")->check(CLI::PositiveNumber)->group(d);
  cmd.add_option("--densify-grad", t.densify.grad_threshold, "View-space gradient threshold")->group(d);
  cmd.add_option("--percent-dense", t.densify.percent_dense, "Clone/split boundary (fraction of scene radius)")->group(d);
  cmd.add_option("--min-opacity", t.densify.min_opacity, "Prune splats below this opacity")->group(d);
  cmd.add_option("--opacity-reset-every", t.densify.opacity_reset_every, "Steps between opacity resets")
      ->check(CLI::PositiveNumber)->group(d);

  auto* o = "Output";
  cmd.add_option("--eval-every", a.run.eval_every, "Test PSNR every N steps (0: start and end only)")->group(o);
  cmd.add_option("--save-every", a.run.save_every, "Write a checkpoint every N steps")->group(o);
  cmd.add_flag("--resume", a.resume, "Continue from <output>/checkpoint.glintckp")->group(o);
  cmd.add_option("--resume-from", a.resume_from, "Continue from this checkpoint file")->group(o);
  cmd.add_flag("--save-renders", a.save_renders, "Write the test renders as PNG to <output>/renders")->group(o);
  cmd.add_flag("--splat", a.run.write_splat, "Also write scene.splat")->group(o);
  cmd.add_flag("--spz", a.run.write_spz, "Also write scene.spz (Niantic's compressed format, about a tenth of the PLY)")
      ->group(o);
  cmd.add_flag("-f,--force", a.force, "Overwrite results already in the output folder")->group(o);
  cmd.add_option("--image-cache-mb", a.run.image_cache_mb, "Memory for decoded training images")
      ->check(kMegabytes)->group(o);
  cmd.add_option("--ssim-cache-mb", t.ssim_cache_mb,
                 "Memory for the training images' SSIM blurs, kept across steps (0: recompute each step; "
                 "the result is the same either way)")
      ->check(kMegabytes)->capture_default_str()->group(o);
  cmd.add_flag("-q,--quiet", a.quiet, "No progress bar")->group(o);
  cmd.add_option("--threads", a.run.threads,
                 "CPU threads (0: every core, or OMP_NUM_THREADS, and one when that measures faster on a busy "
                 "machine; the result is the same for every count)")
      ->check(CLI::NonNegativeNumber)->capture_default_str()->group(o);
  auto* v = "Live view";
  cmd.add_flag("--view", a.view,
               "Serve the model to the glint view page while it trains (refreshed every --view-every "
               "seconds); after the last step it keeps serving the final model until Ctrl-C")->group(v);
  cmd.add_option("--view-port", a.view_port, "Port of --view (0: any free port, printed)")
      ->check(CLI::Range(0, 65535))->capture_default_str()->group(v);
  cmd.add_option("--view-host", a.view_host, "Address --view binds (default 127.0.0.1: this machine only)")
      ->capture_default_str()->group(v);
  cmd.add_option("--view-every", a.view_every_s, "Seconds of training between two snapshots of --view")
      ->check(CLI::PositiveNumber)->capture_default_str()->group(v);
  add_backend_flag(cmd, a.backend);
  add_dataset_flags(cmd, a.data);
}

void note_user_set(const CLI::App& cmd, TrainArgs& a) {
  namespace n = option_names;
  for (const char* name : {n::kNormalWeight, n::kNormalFrom, n::kNormalEdge, n::kFlattenWeight, n::kDistortionWeight,
                           n::kDistortionFrom, n::kRandomBackground, n::kDensifyUntil}) {
    const CLI::Option* o = cmd.get_option_no_throw(std::string("--") + name);
    if (o && o->count() > 0) a.run.user_set.insert(name);
  }
}

}  // namespace glint::cli
