#include "glint/train/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <nlohmann/json.hpp>
#include <numeric>

#include "glint/core/error.h"

namespace glint {

std::string TrainOptions::to_json() const {
  nlohmann::json j;
  j["steps"] = steps;  // informational: a resumed run may extend the step count
  j["seed"] = seed;
  j["strategy"] = strategy == Strategy::kAdc ? "adc" : "mcmc";
  j["lambda_dssim"] = loss.lambda_dssim;
  j["lr"] = {lr.means_init, lr.means_final, lr.position_max_steps, lr.log_scales, lr.quats, lr.opacity_logits,
             lr.sh_dc, lr.sh_rest};
  const DensifyOptions& d = densify;
  j["densify"] = {d.densify_from, d.densify_until, d.densify_every, d.grad_threshold, d.percent_dense,
                  d.split_count, d.split_scale_divisor, d.min_opacity, d.max_screen_radius, d.max_world_scale,
                  d.opacity_reset_every, d.opacity_reset_value, d.white_background};
  const McmcOptions& m = mcmc;
  j["mcmc"] = {m.refine_from, m.refine_until, m.refine_every, m.min_opacity, m.growth, m.max_splats,
               m.noise_lr, m.noise_k, m.noise_t, m.opacity_reg, m.scale_reg};
  j["sh"] = {sh_degree_every, max_sh_degree};
  j["selective_adam"] = selective_adam;
  j["random_background"] = random_background;
  j["antialiased"] = antialiased;
  j["coarse_to_fine"] = coarse_to_fine;
  j["geometry"] = {normal_weight, normal_from, flatten_weight, flatten_from};
  // Only when on, like the distortion: checkpoints written without the edge test resume.
  if (normal_edge != 0) j["normal_edge"] = normal_edge;
  // Only when on: checkpoints written before the distortion term existed still resume.
  if (distortion_weight > 0) j["distortion"] = {distortion_weight, distortion_from};
  return j.dump();
}

namespace {
TrainingSetup setup_of(const Dataset& dataset, const TrainOptions& o, ImageCache& cache) {
  if (dataset.train.empty()) throw Error(dataset.root, "no training views");
  TrainingSetup s;
  s.dataset = &dataset;
  s.images = &cache;
  s.loss = o.loss;
  s.random_background = o.random_background;
  s.ssim_cache_mb = o.ssim_cache_mb;
  return s;
}

double ms_since(std::chrono::steady_clock::time_point& t) {
  const auto now = std::chrono::steady_clock::now();
  const double ms = std::chrono::duration<double, std::milli>(now - t).count();
  t = now;
  return ms;
}
}  // namespace

Trainer::Trainer(const Dataset& dataset, const TrainOptions& options, Backend& backend, ImageCache& cache)
    : Trainer(dataset, options, backend, cache, SplatSet(init_from_points(dataset.points, options.init)), 0) {}

Trainer::Trainer(const Dataset& dataset, const TrainOptions& options, Backend& backend, ImageCache& cache,
                 SplatSet initial, long start_step)
    : dataset_(dataset),
      options_(options),
      session_(backend.start_training(setup_of(dataset, options, cache), std::move(initial))),
      rng_(options.seed),
      step_(start_step) {
  means_lr_ = position_lr_schedule(options_.lr, dataset.radius);
  strategy_ = make_strategy(options_, dataset.radius);
}

void Trainer::restore(TrainCheckpoint ckp, const std::string& what) {
  nlohmann::json saved = nlohmann::json::parse(ckp.options_json, nullptr, false);
  nlohmann::json now = nlohmann::json::parse(options_.to_json());
  if (saved.is_discarded()) throw Error(what, "checkpoint options are not valid JSON");
  saved.erase("steps");
  now.erase("steps");
  if (saved != now)
    throw Error(what, "checkpoint was written with different training options; resume with the same flags "
                      "(saved: " + saved.dump() + ")");
  session_->load(std::move(ckp.splats));
  rng_ = ckp.rng;
  step_ = ckp.step;
}

TrainCheckpoint Trainer::checkpoint() const {
  return TrainCheckpoint{step_, session_->state(), rng_, options_.to_json()};
}

int Trainer::active_sh_degree() const {
  return sh_degree_at(std::max(1L, step_), options_.sh_degree_every, options_.max_sh_degree);
}

// The view of each step: a fresh permutation of the training views every epoch, drawn from
// (seed, epoch) alone so that it needs no state in the checkpoint.
std::size_t Trainer::view_for_step(long step) const {
  const std::size_t n = dataset_.train.size();
  const std::uint64_t epoch = static_cast<std::uint64_t>(step - 1) / n;
  const std::size_t pos = static_cast<std::size_t>(step - 1) % n;
  Rng r(options_.seed * 0x9E3779B97F4A7C15ull + epoch + 1);
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  for (std::size_t i = n; i > 1; --i) std::swap(order[i - 1], order[r.below(i)]);
  return order[pos];
}

void Trainer::check_finite(long step, double loss, int adam_bad, bool all) {
  if (!std::isfinite(loss)) throw Error("step " + std::to_string(step) + ": the loss is not finite");
  const int bad = adam_bad >= 0 ? adam_bad : session_->first_non_finite_group(all);
  if (bad >= 0)
    throw Error("step " + std::to_string(step) + ": parameter tensor '" +
                kParamGroupNames[static_cast<std::size_t>(bad)] + "' has non-finite values");
}

StepResult Trainer::step() {
  StepResult res;
  auto clock = std::chrono::steady_clock::now();
  const long step = step_ + 1;
  TrainingSession& s = *session_;

  // Coarse-to-fine: render and compare at 1/4, then 1/2 resolution early on.
  int factor = 1;
  if (options_.coarse_to_fine > 0 && step <= options_.coarse_to_fine) factor = step <= options_.coarse_to_fine / 2 ? 4 : 2;
  std::array<float, 3> bg = dataset_.background;
  if (options_.random_background)
    for (float& c : bg) c = static_cast<float>(rng_.uniform());
  s.set_target(view_for_step(step), factor, bg);

  RenderSettings rs;
  for (int c = 0; c < 3; ++c) rs.background[c] = bg[static_cast<std::size_t>(c)];
  rs.sh_degree = sh_degree_at(step, options_.sh_degree_every, options_.max_sh_degree);
  // The model carries the degree in use, so files written from it keep those coefficients.
  s.set_sh_degree(rs.sh_degree);
  const bool geometry = options_.normal_weight > 0 && step >= options_.normal_from;
  rs.want_alpha = geometry;
  rs.want_depth = geometry;
  rs.want_normal = geometry;
  const bool distortion = options_.distortion_weight > 0 && step >= options_.distortion_from;
  rs.want_distortion = distortion;  // rendered (and its state kept) only when it is used
  rs.antialiased = options_.antialiased;
  s.render(rs);
  res.ms_forward = ms_since(clock);

  double total = s.photometric_loss();
  res.ms_loss = ms_since(clock);
  if (geometry) total += s.normal_consistency(options_.normal_weight, options_.normal_edge);
  if (distortion) total += s.distortion(options_.distortion_weight);
  s.backward();
  if (options_.flatten_weight > 0 && step >= options_.flatten_from) total += s.flatten(options_.flatten_weight);
  res.ms_backward = ms_since(clock);

  const std::size_t num_visible = s.visibility();
  total += strategy_->after_backward(s, step);
  res.ms_stats = ms_since(clock);

  const float means_lr = static_cast<float>(means_lr_(step));
  GroupRates rates = {means_lr,
                      static_cast<float>(options_.lr.log_scales),
                      static_cast<float>(options_.lr.quats),
                      static_cast<float>(options_.lr.opacity_logits),
                      static_cast<float>(options_.lr.sh_dc),
                      static_cast<float>(options_.lr.sh_rest)};
  // the degree rises with the step only, so this step's is the highest any step has used
  const int adam_bad = s.adam(rates, options_.selective_adam, rs.sh_degree);
  res.ms_optimizer = ms_since(clock);

  const bool changed = strategy_->after_adam(s, step, means_lr, rng_);  // something besides Adam wrote parameters
  step_ = step;
  check_finite(step, total, adam_bad, changed);
  res.ms_densify = ms_since(clock);
  res.step = step;
  res.loss = total;
  res.splats = s.size();
  res.visible = num_visible;
  return res;
}

}  // namespace glint
