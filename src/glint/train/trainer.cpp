#include "glint/train/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <nlohmann/json.hpp>
#include <numeric>

#include "glint/core/error.h"
#include "glint/io/image_ops.h"

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
  // Only when on: checkpoints written before the distortion term existed still resume.
  if (distortion_weight > 0) j["distortion"] = {distortion_weight, distortion_from};
  return j.dump();
}

Trainer::Trainer(const Dataset& dataset, const TrainOptions& options, Backend& backend, ImageCache& cache)
    : dataset_(dataset),
      options_(options),
      backend_(backend),
      cache_(cache),
      set_(init_from_points(dataset.points, options.init)),
      rng_(options.seed) {
  if (dataset.train.empty()) throw Error(dataset.root, "no training views");
  means_lr_ = position_lr_schedule(options_.lr, dataset.radius);
  strategy_ = make_strategy(options_, dataset.radius);
  fill_ssim_targets();
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
  set_ = std::move(ckp.splats);
  rng_ = ckp.rng;
  step_ = ckp.step;
  checked_ = false;
}

TrainCheckpoint Trainer::checkpoint() const { return TrainCheckpoint{step_, set_, rng_, options_.to_json()}; }

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
  const auto fail = [&](int g) {
    throw Error("step " + std::to_string(step) + ": parameter tensor '" + kParamGroupNames[static_cast<std::size_t>(g)] +
                "' has non-finite values");
  };
  if (adam_bad >= 0) fail(adam_bad);
  // Adam checked every value it wrote; the rest are as the last check left them unless
  // something else changed the set.
  if (!all && checked_) return;
  for (int g = 0; g < kNumParamGroups; ++g) {
    const std::vector<float>& p = set_.param(g);
    // x * 0 is 0 for finite x and NaN for inf/NaN, so the sum is finite iff every value
    // is: one vectorised pass, no branch per value, and the order of the sum cannot change
    // the answer, so threads take blocks.
    const float* d = p.data();
    const long n = static_cast<long>(p.size());
    float sum = 0.f;
#pragma omp parallel for schedule(static) reduction(+ : sum) if (n >= (1L << 18))
    for (long b = 0; b < n; b += 8192) {
      float acc[8] = {};
      const long e = std::min(n, b + 8192), e8 = b + (e - b) / 8 * 8;
      for (long i = b; i < e8; i += 8)
        for (int k = 0; k < 8; ++k) acc[k] += d[i + k] * 0.f;
      for (long i = e8; i < e; ++i) acc[0] += d[i] * 0.f;
      for (int k = 0; k < 8; ++k) sum += acc[k];
    }
    if (!(sum == 0.f)) fail(g);
  }
  checked_ = true;
}

namespace {
double ms_since(std::chrono::steady_clock::time_point& t) {
  const auto now = std::chrono::steady_clock::now();
  const double ms = std::chrono::duration<double, std::milli>(now - t).count();
  t = now;
  return ms;
}
}  // namespace

void Trainer::fill_ssim_targets() {
  // (with lambda 0 the loss takes no SSIM; over a random background the target changes
  // every step)
  if (options_.random_background || options_.loss.lambda_dssim == 0.f) return;
  const std::size_t n = dataset_.train.size();
  ssim_stats_.assign(n, {});
  const std::size_t budget = options_.ssim_cache_mb << 20;
  std::size_t kept = 0, bytes = 0;  // views 0..kept-1 get their blurs while the budget lasts
  for (; kept < n; ++kept) {
    const Camera& cam = dataset_.train[kept].camera;
    const std::size_t need = 2 * 3 * sizeof(float) * static_cast<std::size_t>(cam.width) * cam.height;
    if (bytes + need > budget) break;
    bytes += need;
  }
  // One view per thread (the blur of one small image does not pay for splitting it). A
  // view's image that fails to load stops the run here, the first such view in view order
  // named, whichever thread met it first.
  std::vector<std::exception_ptr> errors(kept);
#pragma omp parallel for schedule(dynamic, 1)
  for (long i = 0; i < static_cast<long>(kept); ++i) {
    const auto v = static_cast<std::size_t>(i);
    try {
      const std::shared_ptr<const Image8> image = cache_.get(v);
      ImageF target;
      composite_float_into(*image, dataset_.background, target);
      fill_ssim_target_stats(target.data.data(), target.width, target.height, target.channels, ssim_stats_[v]);
    } catch (...) {
      errors[v] = std::current_exception();
    }
  }
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

SsimTargetStats<float>* Trainer::ssim_stats_for(std::size_t view, bool fixed_target, const ImageF& target) {
  if (!fixed_target || view >= ssim_stats_.size()) return nullptr;
  SsimTargetStats<float>& st = ssim_stats_[view];
  return st.filled_for(target.width, target.height, target.channels) ? &st : nullptr;
}

StepResult Trainer::step() {
  StepResult res;
  auto clock = std::chrono::steady_clock::now();
  const long step = step_ + 1;
  const View& view = dataset_.train[view_for_step(step)];
  const std::size_t view_index = static_cast<std::size_t>(&view - dataset_.train.data());
  std::shared_ptr<const Image8> image = cache_.get(view_index);

  // Coarse-to-fine: render and compare at 1/4, then 1/2 resolution early on.
  Camera cam = view.camera;
  int factor = 1;
  if (options_.coarse_to_fine > 0 && step <= options_.coarse_to_fine) factor = step <= options_.coarse_to_fine / 2 ? 4 : 2;
  const Image8* src = image.get();
  Image8 small;
  if (factor > 1) {
    int w = std::max(1, cam.width / factor), h = std::max(1, cam.height / factor);
    double sx = static_cast<double>(w) / cam.width, sy = static_cast<double>(h) / cam.height;
    cam.width = w;
    cam.height = h;
    cam.fx *= sx;
    cam.fy *= sy;
    cam.cx *= sx;
    cam.cy *= sy;
    small = resize_area(*image, w, h);
    src = &small;
  }

  std::array<float, 3> bg = dataset_.background;
  if (options_.random_background)
    for (float& c : bg) c = static_cast<float>(rng_.uniform());
  ImageF& target = target_;
  composite_float_into(*src, bg, target);

  RenderSettings rs;
  for (int c = 0; c < 3; ++c) rs.background[c] = bg[static_cast<std::size_t>(c)];
  rs.sh_degree = sh_degree_at(step, options_.sh_degree_every, options_.max_sh_degree);
  // The model carries the degree in use, so files written from it keep those coefficients.
  set_.model.sh_degree = rs.sh_degree;
  const bool geometry = options_.normal_weight > 0 && step >= options_.normal_from;
  rs.want_alpha = geometry;
  rs.want_depth = geometry;
  rs.want_normal = geometry;
  const bool distortion = options_.distortion_weight > 0 && step >= options_.distortion_from;
  rs.want_distortion = distortion;  // rendered (and its state kept) only when it is used
  rs.antialiased = options_.antialiased;
  RenderOutput& out = out_;  // reused from step to step
  backend_.forward_into(set_.model, cam, rs, out);
  res.ms_forward = ms_since(clock);

  ImageF& d_rgb = d_rgb_;
  SsimTargetStats<float>* kept = ssim_stats_for(view_index, factor == 1 && !options_.random_background, target);
  LossValue loss = photometric_loss(out.rgb, target, &d_rgb, options_.loss, kept);
  res.ms_loss = ms_since(clock);
  double total = loss.total;
  RenderGradIn gin;
  gin.d_rgb = d_rgb.data.data();
  NormalConsistency nc;
  if (geometry) {
    nc = normal_consistency(cam, out.normal, out.depth, out.alpha, options_.normal_weight);
    total += nc.loss;
    gin.d_normal = nc.d_normal.data.data();
    gin.d_depth = nc.d_depth.data.data();
  }
  DistortionLoss dl;
  if (distortion) {
    dl = distortion_loss(out.distortion, options_.distortion_weight);
    total += dl.loss;
    gin.d_distortion = dl.d_distortion.data.data();
  }
  backend_.backward(set_.model, cam, rs, out, gin, grad_);
  if (options_.flatten_weight > 0 && step >= options_.flatten_from)
    total += flatten_loss(set_.model, options_.flatten_weight, grad_.log_scales.data());

  res.ms_backward = ms_since(clock);

  const std::size_t n = set_.size();
  std::vector<float>& radii = radii_;
  std::vector<std::uint8_t>& visible = visible_;
  radii.resize(n);
  visible.resize(n);
  std::size_t num_visible = 0;
  for (std::size_t i = 0; i < n; ++i) {
    radii[i] = static_cast<float>(out.radii[i]);
    visible[i] = out.radii[i] > 0;
    num_visible += visible[i];
  }
  total += strategy_->after_backward(set_, BackwardView{step, grad_, radii, cam.width, cam.height});
  res.ms_stats = ms_since(clock);

  const float means_lr = static_cast<float>(means_lr_(step));
  GroupRates rates = {means_lr,
                      static_cast<float>(options_.lr.log_scales),
                      static_cast<float>(options_.lr.quats),
                      static_cast<float>(options_.lr.opacity_logits),
                      static_cast<float>(options_.lr.sh_dc),
                      static_cast<float>(options_.lr.sh_rest)};
  GroupGrads grads = {grad_.means.data(),          grad_.log_scales.data(), grad_.quats.data(),
                      grad_.opacity_logits.data(), grad_.sh_dc.data(),      grad_.sh_rest.data()};
  // the degree rises with the step only, so this step's is the highest any step has used
  const int adam_bad = set_.adam_step(grads, rates, options_.selective_adam ? visible.data() : nullptr, rs.sh_degree);
  res.ms_optimizer = ms_since(clock);

  const bool changed = strategy_->after_adam(set_, step, means_lr, rng_);  // something besides Adam wrote parameters
  step_ = step;
  check_finite(step, total, adam_bad, changed);
  res.ms_densify = ms_since(clock);
  res.step = step;
  res.loss = total;
  res.splats = set_.size();
  res.visible = num_visible;
  // out_ keeps its images for the next step; its forward state goes back to the backend's
  // pool, where test-view renders between steps take it instead of allocating another
  out_.saved.reset();
  return res;
}

}  // namespace glint
