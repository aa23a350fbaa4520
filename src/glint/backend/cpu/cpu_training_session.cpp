#include "glint/backend/cpu/cpu_training_session.h"

#include <algorithm>
#include <cmath>
#include <exception>

#include "glint/core/error.h"
#include "glint/backend/target_view.h"
#include "glint/io/image_ops.h"
#include "glint/train/geometry_loss.h"
#include "glint/train/ssim.h"

namespace glint::cpu {
namespace {

class CpuTrainingSession final : public TrainingSession {
 public:
  CpuTrainingSession(Backend& rasterizer, const TrainingSetup& setup, SplatSet initial)
      : rasterizer_(rasterizer), setup_(setup), set_(std::move(initial)) {
    fill_ssim_targets();
  }

  void load(SplatSet set) override {
    set_ = std::move(set);
    checked_ = false;
  }
  const SplatSet& state() override { return set_; }
  std::size_t size() const override { return set_.size(); }
  void set_sh_degree(int degree) override { set_.model.sh_degree = degree; }

  Camera set_target(std::size_t view, int factor, const std::array<float, 3>& bg) override {
    view_ = view;
    const TargetView t = target_view(setup_, view, factor);
    composite_float_into(t.pixels(), bg, target_);
    // a masked view's target is multiplied by its weights once here (train/loss.h)
    masked_ = t.mask_pixels() != nullptr;
    if (masked_) {
      weights_.sum = mask_weights(*t.mask_pixels(), weight_values_);
      weights_.w = weight_values_.data();
      apply_weights(target_, weights_.w);
    }
    fixed_target_ = factor == 1 && !setup_.random_background;
    camera_ = t.camera;
    return t.camera;
  }

  void render(const RenderSettings& settings) override {
    settings_ = settings;
    rasterizer_.forward_into(set_.model, camera_, settings_, out_);  // reuses out_'s images
    gin_ = RenderGradIn{};
  }

  double photometric_loss() override {
    const LossValue loss = glint::photometric_loss(out_.rgb, target_, &d_rgb_, setup_.loss, kept_ssim_stats(),
                                                   masked_ ? &weights_ : nullptr);
    gin_.d_rgb = d_rgb_.data.data();
    return loss.total;
  }
  double normal_consistency(float weight, float edge_eps) override {
    nc_ = glint::normal_consistency(camera_, out_.normal, out_.depth, out_.alpha, weight, 0.5f, edge_eps);
    gin_.d_normal = nc_.d_normal.data.data();
    gin_.d_depth = nc_.d_depth.data.data();
    return nc_.loss;
  }
  double distortion(float weight) override {
    dl_ = distortion_loss(out_.distortion, weight);
    gin_.d_distortion = dl_.d_distortion.data.data();
    return dl_.loss;
  }
  void backward() override { rasterizer_.backward(set_.model, camera_, settings_, out_, gin_, grad_); }
  double flatten(float weight) override { return flatten_loss(set_.model, weight, grad_.log_scales.data()); }

  std::size_t visibility() override {
    const std::size_t n = set_.size();
    radii_.resize(n);
    visible_.resize(n);
    std::size_t count = 0;
    for (std::size_t i = 0; i < n; ++i) {
      radii_[i] = static_cast<float>(out_.radii[i]);
      visible_[i] = out_.radii[i] > 0;
      count += visible_[i];
    }
    // the render's images stay for the next step; its forward state goes back to the
    // rasterizer's pool, where renders between steps take it instead of allocating another
    out_.saved.reset();
    return count;
  }

  int adam(const GroupRates& rates, bool selective, int sh_degree) override {
    GroupGrads grads = {grad_.means.data(),          grad_.log_scales.data(), grad_.quats.data(),
                        grad_.opacity_logits.data(), grad_.sh_dc.data(),      grad_.sh_rest.data()};
    return set_.adam_step(grads, rates, selective ? visible_.data() : nullptr, sh_degree);
  }

  void accumulate_densify_stats(long step, const DensifyOptions& o) override {
    const auto [sx, sy] = densify_grad_scale(camera_, setup_.dataset->train[view_]);
    glint::accumulate_densify_stats_scaled(set_, step, o, grad_.mean2d, radii_, sx, sy);
  }
  DensifyReport densify(long step, double extent, const DensifyOptions& o, Rng& rng) override {
    return densify_step(set_, step, extent, o, rng);
  }
  double mcmc_regularizer(const McmcOptions& o) override {
    return glint::mcmc_regularizer(set_.model, o, grad_.opacity_logits.data(), grad_.log_scales.data());
  }
  void mcmc_noise(float means_lr, const McmcOptions& o, Rng& rng) override { mcmc_add_noise(set_, means_lr, o, rng); }
  McmcReport mcmc_refine(long step, const McmcOptions& o, Rng& rng) override { return mcmc_step(set_, step, o, rng); }

  int first_non_finite_group(bool all) override;

 private:
  void fill_ssim_targets();
  // The view's kept SSIM blurs for this step's target, or null (the target is downscaled
  // or over a random background, or the view is past the budget).
  SsimTargetStats<float>* kept_ssim_stats() {
    if (!fixed_target_ || view_ >= ssim_stats_.size()) return nullptr;
    SsimTargetStats<float>& st = ssim_stats_[view_];
    return st.filled_for(target_.width, target_.height, target_.channels) ? &st : nullptr;
  }

  Backend& rasterizer_;
  TrainingSetup setup_;
  SplatSet set_;
  bool checked_ = false;  // a full finiteness check has read the parameters since they were loaded
  // the step's scratch, kept across steps (no allocation in the steady state)
  std::size_t view_ = 0;
  bool fixed_target_ = false;
  Camera camera_;
  ImageF target_;  // the step's image over its background (times its weights when masked)
  bool masked_ = false;
  std::vector<float> weight_values_;  // the step's mask as loss weights
  LossWeights weights_;
  RenderSettings settings_;
  RenderOutput out_;
  RenderGradIn gin_;
  ImageF d_rgb_;
  NormalConsistency nc_;
  DistortionLoss dl_;
  ModelGrad grad_;
  std::vector<float> radii_;
  std::vector<std::uint8_t> visible_;
  // per training view: its target's SSIM blurs at full resolution over the dataset's
  // background, for the first views that fit in ssim_cache_mb
  std::vector<SsimTargetStats<float>> ssim_stats_;
};

int CpuTrainingSession::first_non_finite_group(bool all) {
  // Adam checked every value it wrote; the rest are as the last check left them unless
  // something else changed the set.
  if (!all && checked_) return -1;
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
    if (!(sum == 0.f)) return g;
  }
  checked_ = true;
  return -1;
}

void CpuTrainingSession::fill_ssim_targets() {
  // Blurs every kept view's target at the start, in parallel over views: steps then cost
  // the same from the first, and a broken image stops the run at once. (With lambda 0 the
  // loss takes no SSIM; over a random background the target changes every step.)
  if (setup_.random_background || setup_.loss.lambda_dssim == 0.f) return;
  const Dataset& data = *setup_.dataset;
  const std::size_t n = data.train.size();
  ssim_stats_.assign(n, {});
  const std::size_t budget = setup_.ssim_cache_mb << 20;
  std::size_t kept = 0, bytes = 0;  // views 0..kept-1 get their blurs while the budget lasts
  for (; kept < n; ++kept) {
    const Camera& cam = data.train[kept].camera;
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
      const std::shared_ptr<const Image8> image = setup_.images->get(v);
      ImageF target;
      composite_float_into(*image, data.background, target);
      if (const std::shared_ptr<const Image8> mask = setup_.images->get_mask(v)) {  // as set_target weights it
        std::vector<float> w;
        mask_weights(*mask, w);
        apply_weights(target, w.data());
      }
      fill_ssim_target_stats(target.data.data(), target.width, target.height, target.channels, ssim_stats_[v]);
    } catch (...) {
      errors[v] = std::current_exception();
    }
  }
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace

std::unique_ptr<TrainingSession> make_cpu_training_session(Backend& rasterizer, const TrainingSetup& setup,
                                                           SplatSet initial) {
  return std::make_unique<CpuTrainingSession>(rasterizer, setup, std::move(initial));
}

}  // namespace glint::cpu
