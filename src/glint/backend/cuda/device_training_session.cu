#include "glint/backend/cuda/device_training_session.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "glint/backend/cuda/device_buffer.h"
#include "glint/backend/cuda/device_model.h"
#include "glint/backend/cuda/device_outputs.h"
#include "glint/backend/cuda/forward_stages.h"
#include "glint/backend/cuda/geometry_loss_stages.h"
#include "glint/backend/cuda/kernels/adam_kernel.h"
#include "glint/backend/cuda/kernels/regularizer_kernels.h"
#include "glint/backend/cuda/kernels/statistics_kernels.h"
#include "glint/backend/cuda/launch.h"
#include "glint/backend/cuda/loss_stage.h"
#include "glint/backend/cuda/loss_stages.h"
#include "glint/backend/cuda/kernels/counter_rng.h"
#include "glint/backend/cuda/refine_stages.h"
#include "glint/backend/cuda/target_stage.h"
#include "glint/backend/cuda/train_stages.h"
#include "glint/core/error.h"
#include "glint/backend/target_view.h"
#include "glint/render/view.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {
namespace {

// The counters one step reads back: [0] the drawn splats, [1 + g] group g's non-finite values.
constexpr std::size_t kCounters = 1 + kNumParamGroups;

class DeviceTrainingSession final : public TrainingSession {
 public:
  DeviceTrainingSession(const TrainingSetup& setup, SplatSet initial, const DeviceSessionOptions& options)
      : setup_(setup), options_(options) {
    upload_images();
    load(std::move(initial));
    counters_.resize(kCounters);
  }

  void load(SplatSet set) override {
    host_ = std::move(set);
    dev_.upload_from(host_);
    host_current_ = true;
    checked_ = false;
    rendered_ = false;
  }
  const SplatSet& state() override {
    if (!host_current_) dev_.download_into(host_);
    host_current_ = true;
    return host_;
  }
  std::size_t size() const override { return dev_.n; }
  void set_sh_degree(int degree) override { host_.model.sh_degree = degree; }

  Camera set_target(std::size_t view, int factor, const std::array<float, 3>& bg) override;
  void render(const RenderSettings& settings) override;
  double photometric_loss() override;
  double normal_consistency(float weight, float edge_eps) override;
  double distortion(float weight) override;
  void backward() override;
  double flatten(float weight) override;
  std::size_t visibility() override;
  int adam(const GroupRates& rates, bool selective, int sh_degree) override;
  void accumulate_densify_stats(long step, const DensifyOptions& options) override;
  DensifyReport densify(long step, double extent, const DensifyOptions& options, Rng& rng) override;
  double mcmc_regularizer(const McmcOptions& options) override;
  void mcmc_noise(float means_lr, const McmcOptions& options, Rng& rng) override;
  McmcReport mcmc_refine(long step, const McmcOptions& options, Rng& rng) override;
  int first_non_finite_group(bool all) override;
  std::size_t round_trips() const { return round_trips_; }

 private:
  void upload_images();
  // The step's gradient of group g, as the rasterizer's backward left it.
  DeviceBuffer<float>& grad(int g) {
    switch (g) {
      case kMeans: return grads_.means;
      case kLogScales: return grads_.log_scales;
      case kQuats: return grads_.quats;
      case kOpacity: return grads_.opacity_logits;
      case kShDc: return grads_.sh_dc;
      default: return grads_.sh_rest;
    }
  }
  // sum of `terms` in a fixed order (one double comes back)
  double sum(DeviceSpan<const double> terms) {
    sum_partials_.resize(2 * std::size_t(loss_sum_blocks(terms.size)));
    sums_.resize(2);
    clear(sums_);
    sum_into(terms, sum_partials_.span(), sums_.span(), 0);
    return download_value(sums_.data());
  }
  // The arrays to the host, train/'s CPU code on them, the arrays back (a row edit).
  template <class F>
  auto on_host(F&& f) {
    state();
    auto result = f(host_);
    dev_.upload_from(host_);
    ++round_trips_;
    return result;
  }

  TrainingSetup setup_;
  DeviceSessionOptions options_;
  std::size_t view_ = 0;  // the step's training view
  std::size_t round_trips_ = 0;
  SplatSet host_;  // the scalars always; the arrays as of the last load, state or round trip
  bool host_current_ = true;  // host_'s arrays equal the device's (no kernel wrote them since)
  DeviceModel dev_;
  DeviceModel spare_;  // the rows a refinement builds, swapped with dev_
  RefineScratch refine_;
  bool checked_ = false;  // a full finiteness check has read the parameters since they were loaded
  // the training views as decoded (8-bit), when they fit the budget; else streamed per step
  std::vector<DeviceBuffer<std::uint8_t>> images_;
  std::vector<std::array<int, 3>> image_dims_;  // width, height, channels
  DeviceBuffer<std::uint8_t> staging_;           // a streamed or downscaled view
  // the training views' masks (one channel, 8-bit; empty for a view without one), uploaded
  // with the images; and the step's, streamed or downscaled
  std::vector<DeviceBuffer<std::uint8_t>> masks_;
  DeviceBuffer<std::uint8_t> mask_staging_;
  // the step's loss weights when its view has a mask (train/loss.h), and their sum
  bool masked_ = false;
  DeviceBuffer<float> weight_;
  double weight_sum_ = 0;
  // the step's device state, kept across steps (grown, never shrunk)
  Camera camera_;
  int target_w_ = 0, target_h_ = 0;
  DeviceBuffer<float> target_;
  RenderSettings settings_;
  bool rendered_ = false;
  DeviceFrame frame_;
  DeviceGrads grads_;
  DeviceBuffer<float> d_rgb_;
  LossBuffers loss_;
  GeometryLossBuffers geometry_;
  bool nc_grad_ = false, distortion_grad_ = false;  // the step's geometry losses have gradients for the backward
  DeviceBuffer<std::uint8_t> visible_;
  DeviceBuffer<std::uint32_t> counters_;
  DeviceBuffer<double> terms_, terms2_, sum_partials_, sums_;
};

void DeviceTrainingSession::upload_images() {
  const std::vector<View>& views = setup_.dataset->train;
  std::size_t bytes = 0;
  for (const View& v : views)
    bytes += (4 + (v.has_mask() ? 1 : 0)) * static_cast<std::size_t>(v.camera.width) *
             static_cast<std::size_t>(v.camera.height);
  if (bytes > (setup_.device_images_mb << 20)) return;  // streamed: set_target uploads the step's view
  images_.resize(views.size());
  masks_.resize(views.size());
  image_dims_.resize(views.size());
  for (std::size_t i = 0; i < views.size(); ++i) {
    const std::shared_ptr<const Image8> img = setup_.images->get(i);
    upload(images_[i], img->data);
    image_dims_[i] = {img->width, img->height, img->channels};
    if (const std::shared_ptr<const Image8> mask = setup_.images->get_mask(i)) upload(masks_[i], mask->data);
  }
}

Camera DeviceTrainingSession::set_target(std::size_t view, int factor, const std::array<float, 3>& bg) {
  view_ = view;
  Camera cam = setup_.dataset->train[view].camera;
  DeviceSpan<const std::uint8_t> src, mask;
  std::array<int, 3> dims{};
  if (view < images_.size()) {
    src = images_[view].cspan();
    mask = masks_[view].cspan();
    dims = image_dims_[view];
    if (factor > 1) {  // coarse-to-fine: area downscaled on the device, as target_view does on the host
      cam = cam.scaled_to(std::max(1, cam.width / factor), std::max(1, cam.height / factor));
      const std::array<int, 3> full = dims;
      dims = {cam.width, cam.height, full[2]};
      staging_.resize(static_cast<std::size_t>(dims[0]) * static_cast<std::size_t>(dims[1]) *
                      static_cast<std::size_t>(dims[2]));
      if (dims[0] != full[0] || dims[1] != full[1]) {
        device_area_downscale(src, full[0], full[1], full[2], dims[0], dims[1], staging_.span());
        src = staging_.cspan();
        if (mask.size > 0) {
          mask_staging_.resize(static_cast<std::size_t>(dims[0]) * static_cast<std::size_t>(dims[1]));
          device_area_downscale(mask, full[0], full[1], 1, dims[0], dims[1], mask_staging_.span());
          mask = mask_staging_.cspan();
        }
      }
    }
  } else {  // streamed: the view (downscaled on the host as the CPU session does) goes up
    const TargetView t = target_view(setup_, view, factor);
    const Image8& img = t.pixels();
    cam = t.camera;
    upload(staging_, img.data);
    src = staging_.cspan();
    dims = {img.width, img.height, img.channels};
    if (const Image8* m = t.mask_pixels()) {
      upload(mask_staging_, m->data);
      mask = mask_staging_.cspan();
    }
  }
  target_w_ = dims[0];
  target_h_ = dims[1];
  target_.resize(3 * static_cast<std::size_t>(dims[0]) * static_cast<std::size_t>(dims[1]));
  device_target(src, dims[0], dims[1], dims[2], bg, target_.span());
  // a masked view: its weights, and the target multiplied by them (train/loss.h)
  masked_ = mask.size > 0;
  if (masked_) {
    weight_.resize(static_cast<std::size_t>(dims[0]) * static_cast<std::size_t>(dims[1]));
    weight_sum_ = device_mask_weights(mask, weight_.span(), target_.span(), 3, loss_);
  }
  camera_ = cam;
  return cam;
}

void DeviceTrainingSession::render(const RenderSettings& settings) {
  if (const char* what = missing_device_output(settings))
    throw Error("CUDA training", std::string("the device renderer does not draw ") + what);
  if (camera_.width <= 0 || camera_.height <= 0 || !(camera_.fx > 0) || !(camera_.fy > 0))
    throw Error("rasterizer: camera '" + camera_.name + "' has no valid size or focal length");
  settings_ = settings;
  const int degree =
      std::clamp(settings.sh_degree >= 0 ? settings.sh_degree : host_.model.sh_degree, 0, kMaxShDegree);
  forward_frame(render::make_view<float>(camera_, settings.near_plane), dev_.geometry(), degree, settings.antialiased,
                settings.background, frame_, device_aov_flags(settings), settings.median_depth_only);
  rendered_ = true;
  nc_grad_ = distortion_grad_ = false;
}

double DeviceTrainingSession::photometric_loss() {
  if (!rendered_) throw Error("CUDA training: photometric_loss before render");
  d_rgb_.resize(frame_.rgb.size());
  if (target_w_ != camera_.width || target_h_ != camera_.height)
    throw Error("CUDA training: the target's size differs from the camera's");
  const LossValue v = device_photometric_loss(frame_.rgb.cspan(), target_.cspan(), camera_.width, camera_.height, 3,
                                              setup_.loss.lambda_dssim, d_rgb_.span(), loss_,
                                              masked_ ? weight_.cspan() : DeviceSpan<const float>{}, weight_sum_);
  return v.total;
}

double DeviceTrainingSession::normal_consistency(float weight, float edge_eps) {
  if (!rendered_ || (frame_.aovs.flags & kAovDepth) == 0 || (frame_.aovs.flags & kAovNormal) == 0)
    throw Error("CUDA training: normal consistency needs a render with depth and normals");
  const DeviceNormalConsistency r = device_normal_consistency(camera_, frame_, weight, geometry_, 0.5f, edge_eps);
  nc_grad_ = r.has_gradient;
  return r.loss;
}

double DeviceTrainingSession::distortion(float weight) {
  if (!rendered_ || (frame_.aovs.flags & kAovDistortion) == 0)
    throw Error("CUDA training: the distortion loss needs a render with the distortion");
  const double loss = device_distortion_loss(frame_, weight, geometry_);
  distortion_grad_ = frame_.distortion.size() > 0;
  return loss;
}

void DeviceTrainingSession::backward() {
  if (!rendered_) throw Error("CUDA training: backward before render");
  if (settings_.median_depth_only) throw Error("CUDA training: a median_depth_only render has no backward");
  BlendGradIn in{d_rgb_.cspan(), DeviceSpan<const float>{}};
  if (nc_grad_) {
    in.d_normal = geometry_.d_normal.cspan();
    in.d_depth = geometry_.d_depth.cspan();
  }
  if (distortion_grad_) in.d_distortion = geometry_.d_distortion.cspan();
  backward_frame(dev_.geometry(), frame_, in, grads_);
}

double DeviceTrainingSession::flatten(float weight) {
  const std::size_t n = dev_.n;
  if (n == 0 || weight == 0) return 0;
  const double scale = weight / static_cast<double>(n);
  terms_.resize(n);
  launch(flatten_kernel, shape_for(n), dev_.params[kLogScales].cspan(), scale, grads_.log_scales.span(), terms_.span());
  check_launches("flatten");
  return scale * sum(terms_.cspan());
}

std::size_t DeviceTrainingSession::visibility() {
  const std::size_t n = dev_.n;
  visible_.resize(n);
  clear(counters_.data(), 1);
  launch(visibility_kernel, shape_for(n), frame_.radii.cspan(), visible_.span(), counters_.span());
  check_launches("visibility");
  return download_value(counters_.data());
}

int DeviceTrainingSession::adam(const GroupRates& rates, bool selective, int sh_degree) {
  const std::size_t n = dev_.n;
  const AdamOptions& o = host_.adam.options();
  const int deg = std::clamp(sh_degree, 0, kMaxShDegree);
  if (selective && visible_.size() != n) throw Error("CUDA training: selective adam before visibility");
  host_current_ = false;
  clear(counters_.data() + 1, kNumParamGroups);
  for (int g = 0; g < kNumParamGroups; ++g) {
    const auto gi = static_cast<std::size_t>(g);
    AdamMoments& mom = host_.adam.groups()[gi];
    // train/adam.cpp's prepare(): the group's step advances, its bias corrections in double
    mom.step += 1;
    const double t = static_cast<double>(mom.step);
    const AdamConsts c{o.beta1,
                       1.f - o.beta1,
                       o.beta2,
                       1.f - o.beta2,
                       static_cast<float>(std::sqrt(1.0 - std::pow(static_cast<double>(o.beta2), t))),
                       o.eps,
                       static_cast<float>(rates[gi] / (1.0 - std::pow(static_cast<double>(o.beta1), t)))};
    const auto width = static_cast<std::uint32_t>(kParamGroupWidths[gi]);
    const std::uint32_t used = g == kShRest ? static_cast<std::uint32_t>(3 * ((deg + 1) * (deg + 1) - 1)) : width;
    if (grad(g).size() != n * width) throw Error("CUDA training: adam before backward");
    const AdamGroupSpans spans{dev_.params[gi].span(), grad(g).cspan(), dev_.m[gi].span(), dev_.v[gi].span(), width,
                               used};
    adam_group(spans, c, selective ? visible_.cspan() : DeviceSpan<const std::uint8_t>{},
               DeviceSpan<std::uint32_t>{counters_.data() + 1 + g, 1});
  }
  check_launches("adam");
  std::array<std::uint32_t, kNumParamGroups> bad{};
  download(counters_.data() + 1, kNumParamGroups, bad.data());
  for (int g = 0; g < kNumParamGroups; ++g)
    if (bad[static_cast<std::size_t>(g)] != 0) return g;
  return -1;
}

void DeviceTrainingSession::accumulate_densify_stats(long step, const DensifyOptions& o) {
  if (step >= o.densify_until) return;
  host_current_ = false;
  const auto [sx, sy] = densify_grad_scale(camera_, setup_.dataset->train[view_]);
  launch(densify_stats_kernel, shape_for(dev_.n), grads_.mean2d.cspan(), frame_.radii.cspan(), sx, sy,
         DensifyStatsSpans{dev_.grad_accum.span(), dev_.grad_count.span(), dev_.max_radii.span()});
  check_launches("densify statistics");
}

DensifyReport DeviceTrainingSession::densify(long step, double extent, const DensifyOptions& o, Rng& rng) {
  // The steps densify_step (train/densify.cpp) acts on; every other step leaves the set
  // alone, and no arrays need to cross.
  const bool acts = step < o.densify_until &&
                    ((step > o.densify_from && o.densify_every > 0 && step % o.densify_every == 0) ||
                     (o.opacity_reset_every > 0 && step % o.opacity_reset_every == 0) ||
                     (o.white_background && step == o.densify_from));
  if (!acts) return {};
  if (options_.refine_on_host) return on_host([&](SplatSet& s) { return densify_step(s, step, extent, o, rng); });
  // densify_step's order: clone/split/prune, then the opacity reset
  host_current_ = false;
  DensifyReport rep;
  if (step > o.densify_from && o.densify_every > 0 && step % o.densify_every == 0)
    rep = device_densify_and_prune(dev_, spare_, extent, o, step > o.opacity_reset_every, step, rng, refine_);
  if ((o.opacity_reset_every > 0 && step % o.opacity_reset_every == 0) ||
      (o.white_background && step == o.densify_from)) {
    device_reset_opacity(dev_, o.opacity_reset_value);
    rep.opacity_reset = true;
  }
  return rep;
}

double DeviceTrainingSession::mcmc_regularizer(const McmcOptions& o) {
  const std::size_t n = dev_.n;
  if (n == 0) return 0.0;
  terms_.resize(n);
  terms2_.resize(n);
  const float go = o.opacity_reg / static_cast<float>(n), gs = o.scale_reg / static_cast<float>(3 * n);
  const McmcRegSpans r{dev_.params[kOpacity].cspan(), dev_.params[kLogScales].cspan(), grads_.opacity_logits.span(),
                       grads_.log_scales.span(),      terms_.span(),                   terms2_.span()};
  launch(mcmc_regularizer_kernel, shape_for(n), r, go, gs);
  check_launches("mcmc regulariser");
  const double sum_o = sum(terms_.cspan()), sum_s = sum(terms2_.cspan());
  return o.opacity_reg * sum_o / static_cast<double>(n) + o.scale_reg * sum_s / static_cast<double>(3 * n);
}

void DeviceTrainingSession::mcmc_noise(float means_lr, const McmcOptions& o, Rng& rng) {
  if (options_.refine_on_host) {
    on_host([&](SplatSet& s) {
      mcmc_add_noise(s, means_lr, o, rng);
      return 0;
    });
    return;
  }
  host_current_ = false;
  device_mcmc_noise(dev_, means_lr, o, counter_key(rng.next_u64(), 0));
}

McmcReport DeviceTrainingSession::mcmc_refine(long step, const McmcOptions& o, Rng& rng) {
  // the steps mcmc_step (train/mcmc.cpp) acts on
  if (!(step < o.refine_until && step > o.refine_from && o.refine_every > 0 && step % o.refine_every == 0)) return {};
  if (options_.refine_on_host) return on_host([&](SplatSet& s) { return mcmc_step(s, step, o, rng); });
  host_current_ = false;
  McmcReport rep;
  rep.refined = true;
  rep.relocated = device_relocate_dead(dev_, o, counter_key(rng.next_u64(), step), refine_);
  rep.added = device_grow(dev_, spare_, o, counter_key(rng.next_u64(), step), refine_);
  return rep;
}

int DeviceTrainingSession::first_non_finite_group(bool all) {
  // Adam counted every value it wrote; the rest are as the last check left them unless
  // something else changed the set.
  if (!all && checked_) return -1;
  clear(counters_.data() + 1, kNumParamGroups);
  for (int g = 0; g < kNumParamGroups; ++g)
    launch(non_finite_kernel, shape_for(dev_.params[static_cast<std::size_t>(g)].size()),
           dev_.params[static_cast<std::size_t>(g)].cspan(), DeviceSpan<std::uint32_t>{counters_.data() + 1 + g, 1});
  check_launches("finiteness");
  std::array<std::uint32_t, kNumParamGroups> bad{};
  download(counters_.data() + 1, kNumParamGroups, bad.data());
  for (int g = 0; g < kNumParamGroups; ++g)
    if (bad[static_cast<std::size_t>(g)] != 0) return g;
  checked_ = true;
  return -1;
}

}  // namespace

std::unique_ptr<TrainingSession> make_device_training_session(const TrainingSetup& setup, SplatSet initial,
                                                              const DeviceSessionOptions& options) {
  return std::make_unique<DeviceTrainingSession>(setup, std::move(initial), options);
}

std::size_t model_round_trips(const TrainingSession& session) {
  const auto* s = dynamic_cast<const DeviceTrainingSession*>(&session);
  if (!s) throw Error("model_round_trips: not a device training session");
  return s->round_trips();
}

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
