#include "glint/backend/vulkan/device_training_session.h"

#include <algorithm>
#include <array>
#include <utility>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "glint/backend/target_view.h"
#include "glint/backend/vulkan/context.h"
#include "glint/backend/vulkan/forward_stages.h"
#include "glint/backend/vulkan/geometry_loss_stages.h"
#include "glint/backend/vulkan/shader_interfaces.h"
#include "glint/core/error.h"
#include "glint/render/view.h"
#include "glint/train/mcmc_edits.h"
#include "glint/train/mcmc_noise.h"
#include "glint/train/ssim_math.h"

namespace glint::vk {
namespace {

namespace sh = shaders;

// splat_step.comp's modes (the push constants' slot)
constexpr std::uint32_t kVisibility = 0, kDensifyStats = 1, kFlatten = 2, kMcmc = 3;
// status words: [g] group g left a non-finite value
constexpr std::size_t kStatus = kNumParamGroups;

std::uint32_t aov_flags_of(const RenderSettings& s) {
  std::uint32_t f = 0;
  for (int i = 0; i < aov::kCount; ++i)
    if (wants(s, aov::Id(i))) f |= aov::kernel_flag(aov::Id(i));
  return f;
}

// An 8-bit image as uint words, 4 bytes a word (the shaders unpack them: 8-bit storage is
// optional in Vulkan).
void pack_bytes(const std::vector<std::uint8_t>& bytes, std::vector<std::uint32_t>& words) {
  words.assign((bytes.size() + 3) / 4, 0u);
  if (!bytes.empty()) std::memcpy(words.data(), bytes.data(), bytes.size());
}

class VulkanTrainingSession final : public TrainingSession {
 public:
  VulkanTrainingSession(std::shared_ptr<Device> device, const TrainingSetup& setup, SplatSet initial)
      : device_(std::move(device)), s_(*device_), setup_(setup) {
    upload_images();
    load(std::move(initial));
  }

  void load(SplatSet set) override {
    host_ = std::move(set);
    upload_state();
    host_current_ = true;
    checked_ = false;
    rendered_ = false;
  }
  const SplatSet& state() override {
    if (!host_current_) download_state();
    host_current_ = true;
    return host_;
  }
  std::size_t size() const override { return model_.n; }
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

 private:
  Array<float>& param(int g) {
    switch (g) {
      case kMeans: return model_.means;
      case kLogScales: return model_.log_scales;
      case kQuats: return model_.quats;
      case kOpacity: return model_.opacity;
      case kShDc: return model_.sh_dc;
      default: return model_.sh_rest;
    }
  }
  Array<float>& grad(int g) {
    switch (g) {
      case kMeans: return grads_.means;
      case kLogScales: return grads_.log_scales;
      case kQuats: return grads_.quats;
      case kOpacity: return grads_.opacity;
      case kShDc: return grads_.sh_dc;
      default: return grads_.sh_rest;
    }
  }
  void upload_images();
  // Applies MCMC's refinement to the device arrays (train/mcmc_edits.h's order).
  void apply_row_edits(const McmcEdits& e);
  // Rebuilds the device arrays as ADC left `light` (densify): its rows name their source rows
  // in sh_dc and mark the originals in sh_dc's first moments.
  void rebuild_rows(const SplatSet& light, bool opacity_moments_zero);
  // The arrays ADC reads and rewrites whole, each beside its host copy in `light`.
  template <class Set>
  std::array<std::pair<Array<float>*, decltype(&std::declval<Set&>().model.means)>, 7> adc_arrays(Set& light) {
    return {{{&model_.means, &light.model.means},
             {&model_.log_scales, &light.model.log_scales},
             {&model_.quats, &light.model.quats},
             {&model_.opacity, &light.model.opacity_logits},
             {&grad_accum_, &light.grad_accum},
             {&grad_count_, &light.grad_count},
             {&max_radii_, &light.max_radii}}};
  }
  void check_mask(const Image8& mask, int width, int height, std::size_t view) const;
  void upload_state();
  void download_state();
  // Records the fixed-order block sums of values[0, n) (partial sums `which`); sum_of reads
  // them after the stream's finish.
  void record_sum(const Array<float>& values, std::size_t n, int which);
  double sum_of(int which) const;
  // One splat_step dispatch over every chunk of splats.
  void splat_step(std::uint32_t mode, const SplatStepPush& base);
  void clear_status();
  std::array<std::uint32_t, kStatus> read_status();  // records the download and finishes

  std::shared_ptr<Device> device_;
  Stream s_;
  TrainingSetup setup_;
  std::size_t view_ = 0;  // the step's training view
  SplatSet host_;             // the scalars always; the arrays as of the last load, state or round trip
  bool host_current_ = true;  // host_'s arrays equal the device's
  bool checked_ = false;      // a full finiteness check has read the parameters since they were loaded
  DeviceModel model_;
  std::array<Array<float>, kNumParamGroups> m_, v_;
  Array<float> grad_accum_, grad_count_, max_radii_;
  // the training views as decoded (8-bit, packed), when they fit the budget, with their masks
  // (empty for a view without one) and each mask's weight sum (the CPU's mask_weights)
  std::vector<Array<std::uint32_t>> images_, masks_;
  std::vector<double> mask_sums_;
  std::vector<std::array<int, 3>> image_dims_;
  std::vector<std::uint32_t> packed_;
  std::vector<float> host_weights_;
  Array<std::uint32_t> staging_, mask_staging_;
  // a masked step (train/loss.h): the pixels' weights (the target is multiplied by them),
  // their sum, and the weighted render
  bool masked_ = false;
  double weight_sum_ = 0;
  Array<float> weight_, weighted_;
  // the step's state
  Camera camera_;
  int target_w_ = 0, target_h_ = 0;
  Array<float> target_;
  RenderSettings settings_;
  bool rendered_ = false;
  DeviceFrame frame_;
  DeviceGrads grads_;
  Array<float> derivs_, ssim_map_, abs_diff_;
  std::array<BlockSums, 2> sums_;
  GeometryLossBuffers geometry_;
  Array<float> visible_, terms_, terms2_;
  std::vector<float> normals_host_;  // MCMC's noise: the step's normals
  Array<float> edit_values_, zeros_;  // MCMC's refinement: the new values, a row of zeros
  Array<float> normals_;
  Array<std::uint32_t> status_;
  std::array<std::uint32_t, kStatus> status_host_{};
  Array<float> none_f_;
  Array<std::int32_t> none_i_;
  bool nc_grad_ = false, distortion_grad_ = false;
};

void VulkanTrainingSession::upload_images() {
  const std::vector<View>& views = setup_.dataset->train;
  std::size_t bytes = 0;
  for (const View& v : views)
    bytes += (4 + (v.has_mask() ? 1 : 0)) * static_cast<std::size_t>(v.camera.width) *
             static_cast<std::size_t>(v.camera.height);
  if (bytes > (setup_.device_images_mb << 20)) return;  // streamed: set_target uploads the step's view
  images_.resize(views.size());
  masks_.resize(views.size());
  mask_sums_.assign(views.size(), 0.0);
  image_dims_.resize(views.size());
  for (std::size_t i = 0; i < views.size(); ++i) {
    const std::shared_ptr<const Image8> img = setup_.images->get(i);
    pack_bytes(img->data, packed_);
    images_[i].resize(*device_, packed_.size());
    s_.upload(images_[i].buffer(), 0, packed_.data(), packed_.size() * 4);
    s_.finish();  // the staging memory is the stream's until then
    image_dims_[i] = {img->width, img->height, img->channels};
    if (const std::shared_ptr<const Image8> mask = setup_.images->get_mask(i)) {
      check_mask(*mask, img->width, img->height, i);
      mask_sums_[i] = mask_weights(*mask, host_weights_);
      pack_bytes(mask->data, packed_);
      masks_[i].resize(*device_, packed_.size());
      s_.upload(masks_[i].buffer(), 0, packed_.data(), packed_.size() * 4);
      s_.finish();
    }
  }
}

void VulkanTrainingSession::check_mask(const Image8& mask, int width, int height, std::size_t view) const {
  if (mask.width != width || mask.height != height || mask.channels != 1)
    throw Error("Vulkan training: the mask of view '" + setup_.dataset->train[view].camera.name + "' is " +
                std::to_string(mask.width) + "x" + std::to_string(mask.height) + "x" + std::to_string(mask.channels) +
                ", not its image's " + std::to_string(width) + "x" + std::to_string(height) + "x1");
}

void VulkanTrainingSession::upload_state() {
  Device& d = *device_;
  model_.upload(s_, host_.model);
  const auto up = [&](Array<float>& a, const std::vector<float>& v) {
    a.resize(d, v.size());
    if (!v.empty()) s_.upload(a.buffer(), 0, v.data(), v.size() * sizeof(float));
  };
  for (int g = 0; g < kNumParamGroups; ++g) {
    const AdamMoments& mom = host_.adam.groups()[static_cast<std::size_t>(g)];
    up(m_[static_cast<std::size_t>(g)], mom.m);
    up(v_[static_cast<std::size_t>(g)], mom.v);
  }
  up(grad_accum_, host_.grad_accum);
  up(grad_count_, host_.grad_count);
  up(max_radii_, host_.max_radii);
  none_f_.resize(d, 4);
  none_i_.resize(d, 4);
  status_.resize(d, kStatus);
  s_.finish();
}

void VulkanTrainingSession::download_state() {
  const auto down = [&](const Array<float>& a, std::vector<float>& v) {
    v.resize(a.size());  // the device's refinement may have added rows
    if (!v.empty()) s_.download(a.buffer(), 0, v.data(), v.size() * sizeof(float));
  };
  down(model_.means, host_.model.means);
  down(model_.log_scales, host_.model.log_scales);
  down(model_.quats, host_.model.quats);
  down(model_.opacity, host_.model.opacity_logits);
  down(model_.sh_dc, host_.model.sh_dc);
  down(model_.sh_rest, host_.model.sh_rest);
  for (int g = 0; g < kNumParamGroups; ++g) {
    AdamMoments& mom = host_.adam.groups()[static_cast<std::size_t>(g)];
    down(m_[static_cast<std::size_t>(g)], mom.m);
    down(v_[static_cast<std::size_t>(g)], mom.v);
  }
  down(grad_accum_, host_.grad_accum);
  down(grad_count_, host_.grad_count);
  down(max_radii_, host_.max_radii);
  s_.finish();
}

Camera VulkanTrainingSession::set_target(std::size_t view, int factor, const std::array<float, 3>& bg) {
  if (view >= setup_.dataset->train.size()) throw Error("Vulkan training: no training view " + std::to_string(view));
  view_ = view;
  Camera cam = setup_.dataset->train[view].camera;
  const Array<std::uint32_t>* src = nullptr;
  const Array<std::uint32_t>* mask = nullptr;
  std::array<int, 3> dims{};
  if (factor <= 1 && view < images_.size()) {
    src = &images_[view];
    dims = image_dims_[view];
    if (masks_[view].size() > 0) {
      mask = &masks_[view];
      weight_sum_ = mask_sums_[view];
    }
  } else {  // downscaled (coarse-to-fine) or streamed: the view as the CPU session builds it goes up
    const TargetView t = target_view(setup_, view, factor);
    const Image8& img = t.pixels();
    cam = t.camera;
    pack_bytes(img.data, packed_);
    staging_.resize(*device_, packed_.size());
    s_.upload(staging_.buffer(), 0, packed_.data(), packed_.size() * 4);
    src = &staging_;
    dims = {img.width, img.height, img.channels};
    if (const Image8* m = t.mask_pixels()) {  // and its mask, downscaled as the CPU session's
      check_mask(*m, img.width, img.height, view);
      weight_sum_ = mask_weights(*m, host_weights_);
      pack_bytes(m->data, packed_);
      mask_staging_.resize(*device_, packed_.size());
      s_.upload(mask_staging_.buffer(), 0, packed_.data(), packed_.size() * 4);
      mask = &mask_staging_;
    }
  }
  target_w_ = dims[0];
  target_h_ = dims[1];
  const std::size_t pixels = static_cast<std::size_t>(dims[0]) * static_cast<std::size_t>(dims[1]);
  if (pixels >= (std::size_t(1) << 31) / 3)
    throw Error("Vulkan backend", std::to_string(pixels) + " pixels in a target, more than the 715827882 it indexes");
  target_.resize(*device_, 3 * pixels);
  TargetPush push{};
  push.width = dims[0];
  push.height = dims[1];
  push.channels = dims[2];
  push.count = static_cast<std::uint32_t>(pixels);
  for (int c = 0; c < 3; ++c) push.background[c] = bg[static_cast<std::size_t>(c)];
  dispatch<sh::TrainTarget>(s_, s_.groups_for(pixels, 256), push, in(*src), out(target_, 0, 3 * pixels));
  // a masked view: its weights, and the target multiplied by them once (train/loss.h)
  masked_ = mask != nullptr;
  if (masked_) {
    weight_.resize(*device_, pixels);
    dispatch<sh::MaskWeights>(s_, s_.groups_for(pixels, 256), push, in(*mask), out(weight_, 0, pixels),
                              out(target_, 0, 3 * pixels));
  }
  camera_ = cam;
  return cam;
}

void VulkanTrainingSession::render(const RenderSettings& settings) {
  if (settings.want_mean2d_abs)
    throw Error("Vulkan training", "the device renderer does not draw mean2d_abs (AbsGS's statistic)");
  if (camera_.width <= 0 || camera_.height <= 0 || !(camera_.fx > 0) || !(camera_.fy > 0))
    throw Error("rasterizer: camera '" + camera_.name + "' has no valid size or focal length");
  settings_ = settings;
  settings_.antialiased = settings.antialiased || host_.model.antialiased;
  const int degree =
      std::clamp(settings.sh_degree >= 0 ? settings.sh_degree : host_.model.sh_degree, 0, kMaxShDegree);
  forward_frame(s_, model_, render::make_view<float>(camera_, settings.near_plane), degree, settings_.antialiased,
                settings.background, frame_, aov_flags_of(settings), settings.median_depth_only);
  download_frame_status(s_, frame_);
  s_.finish();
  check_frame_status(*device_, frame_, "blend");
  rendered_ = true;
  nc_grad_ = distortion_grad_ = false;
}

void VulkanTrainingSession::record_sum(const Array<float>& values, std::size_t n, int which) {
  sums_[static_cast<std::size_t>(which)].record(s_, values, n);
}

double VulkanTrainingSession::sum_of(int which) const { return sums_[static_cast<std::size_t>(which)].total(); }

double VulkanTrainingSession::photometric_loss() {
  if (!rendered_) throw Error("Vulkan training: photometric_loss before render");
  if (target_w_ != camera_.width || target_h_ != camera_.height)
    throw Error("Vulkan training: the target's size differs from the camera's");
  const int w = camera_.width, h = camera_.height;
  const std::size_t count = 3 * static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
  const float lambda = setup_.loss.lambda_dssim;
  Device& d = *device_;
  grads_.d_rgb.resize(d, count);
  abs_diff_.resize(d, count);
  if (masked_ && !(weight_sum_ > 0)) {  // every pixel masked: nothing to compare (train/loss.cpp)
    s_.fill(grads_.d_rgb.buffer(), 0, count * sizeof(float), 0);
    s_.finish();
    return lambda * (1.0 - (lambda != 0.f ? 1.0 : 0.0));
  }
  // masked: the loss of the weighted render against the weighted target, over the weighted count
  const double counted = masked_ ? 3.0 * weight_sum_ : static_cast<double>(count);
  LossPush p{};
  p.width = w;
  p.height = h;
  p.channels = 3;
  p.l1_scale = (1.f - lambda) / static_cast<float>(counted);
  p.lambda = lambda;
  p.inv_count = static_cast<float>(1.0 / counted);
  p.c1 = static_cast<float>(kSsimC1);
  p.c2 = static_cast<float>(kSsimC2);
  const auto win = ssim_window_weights<float>();
  for (int k = 0; k < kSsimWindow; ++k) p.window[k] = win[static_cast<std::size_t>(k)];
  p.count = static_cast<std::uint32_t>(count);
  p.with_grad = 1;
  p.tiles_x = static_cast<std::uint32_t>((w + 15) / 16);
  p.weighted = masked_ ? 1u : 0u;
  const std::size_t pixels = count / 3;
  const In<float> weight = masked_ ? in(weight_, 0, pixels) : in(none_f_);
  In<float> render = in(frame_.rgb, 0, count);
  const In<float> target = in(target_, 0, count);
  if (masked_) {
    weighted_.resize(d, count);
    dispatch<sh::ApplyWeights>(s_, s_.groups_for(count, 256), p, render, weight, out(weighted_, 0, count));
    render = in(weighted_, 0, count);
  }
  if (lambda == 0.f) {
    dispatch<sh::LossL1>(s_, s_.groups_for(count, 256), p, render, target, out(grads_.d_rgb, 0, count),
                         out(abs_diff_, 0, count), weight);
  } else {
    derivs_.resize(d, 3 * count);
    ssim_map_.resize(d, count);
    const std::size_t tiles = std::size_t(p.tiles_x) * static_cast<std::size_t>((h + 15) / 16);
    const Groups g = s_.groups_for(tiles * 256, 256);
    dispatch<sh::SsimForward>(s_, g, p, render, target, out(derivs_, 0, 3 * count), out(ssim_map_, 0, count),
                              out(abs_diff_, 0, count), weight);
    dispatch<sh::SsimBackward>(s_, g, p, in(derivs_, 0, 3 * count), render, target, out(grads_.d_rgb, 0, count),
                               weight);
    record_sum(ssim_map_, count, 0);
  }
  record_sum(abs_diff_, count, 1);
  s_.finish();
  // photometric_loss (train/loss.cpp)'s combination of the two means
  const double n = counted;
  const double l1 = sum_of(1) / n, ssim = lambda != 0.f ? sum_of(0) / n : 0.0;
  return (1.0 - lambda) * l1 + lambda * (1.0 - ssim);
}

double VulkanTrainingSession::normal_consistency(float weight, float edge_eps) {
  if (!rendered_ || (frame_.flags & GLINT_AOV_DEPTH) == 0 || (frame_.flags & GLINT_AOV_NORMAL) == 0)
    throw Error("Vulkan training: normal consistency needs a render with depth and normals");
  const DeviceNormalConsistency r = device_normal_consistency(
      s_, camera_, frame_.normal, frame_.depth, frame_.alpha, weight, 0.5f, edge_eps, geometry_, grads_.d_normal,
      grads_.d_depth);
  nc_grad_ = r.has_gradient;
  return r.loss;
}

double VulkanTrainingSession::distortion(float weight) {
  if (!rendered_ || (frame_.flags & GLINT_AOV_DISTORTION) == 0)
    throw Error("Vulkan training: the distortion loss needs a render with the distortion");
  const std::size_t px = static_cast<std::size_t>(camera_.width) * static_cast<std::size_t>(camera_.height);
  const double loss = device_distortion_loss(s_, frame_.distortion, px, weight, geometry_, grads_.d_distortion);
  distortion_grad_ = px > 0;
  return loss;
}

void VulkanTrainingSession::backward() {
  if (!rendered_) throw Error("Vulkan training: backward before render");
  if (settings_.median_depth_only) throw Error("Vulkan training: a median_depth_only render has no backward");
  if (grads_.d_rgb.size() != 3 * static_cast<std::size_t>(camera_.width) * static_cast<std::size_t>(camera_.height))
    throw Error("Vulkan training: backward before photometric_loss");
  grads_.grad_flags = 0;
  if (nc_grad_) grads_.grad_flags |= GLINT_GRAD_NORMAL | GLINT_GRAD_DEPTH;
  if (distortion_grad_) grads_.grad_flags |= GLINT_GRAD_DISTORTION;
  backward_frame(s_, model_, frame_, grads_);
  download_frame_status(s_, frame_);
  s_.finish();
  check_frame_status(*device_, frame_, "blend backward");
}

void VulkanTrainingSession::splat_step(std::uint32_t mode, const SplatStepPush& base) {
  const std::size_t n = model_.n;
  const std::size_t chunk = splat_chunk(*device_);
  const bool stats = mode == kDensifyStats, vis = mode == kVisibility;
  const bool uses_scales = mode == kFlatten || mode == kMcmc;
  for (std::size_t first = 0; first < n; first += chunk) {
    const std::size_t c = std::min(chunk, n - first);
    SplatStepPush p = base;
    p.count = static_cast<std::uint32_t>(c);
    p.slot = mode;
    const auto opt_in = [&](const Array<float>& a, bool on, std::size_t width) {
      return on ? in(a, width * first, width * c) : in(none_f_);
    };
    const auto opt_out = [&](Array<float>& a, bool on, std::size_t width) {
      return on ? out(a, width * first, width * c) : out(none_f_);
    };
    dispatch<sh::SplatStep>(
        s_, s_.groups_for(c, 256), p, (vis || stats) ? in(frame_.radii, first, c) : in(none_i_),
        opt_in(grads_.mean2d, stats, 2), opt_in(model_.log_scales, uses_scales, 3),
        opt_in(model_.opacity, mode == kMcmc, 1), opt_out(visible_, vis, 1), opt_out(grad_accum_, stats, 1),
        opt_out(grad_count_, stats, 1), opt_out(max_radii_, stats, 1), opt_out(grads_.log_scales, uses_scales, 3),
        opt_out(grads_.opacity, mode == kMcmc, 1), opt_out(terms_, uses_scales, 1),
        opt_out(terms2_, mode == kMcmc, 1));
  }
}

double VulkanTrainingSession::flatten(float weight) {
  const std::size_t n = model_.n;
  if (n == 0 || weight == 0) return 0;
  if (grads_.log_scales.size() != 3 * n) throw Error("Vulkan training: flatten before backward");
  const double scale = weight / static_cast<double>(n);
  terms_.resize(*device_, n);
  SplatStepPush p{};
  p.scale = static_cast<float>(scale);
  splat_step(kFlatten, p);
  record_sum(terms_, n, 0);
  s_.finish();
  return scale * sum_of(0);
}

std::size_t VulkanTrainingSession::visibility() {
  const std::size_t n = model_.n;
  visible_.resize(*device_, n);
  if (n == 0) return 0;
  splat_step(kVisibility, SplatStepPush{});
  record_sum(visible_, n, 0);
  s_.finish();
  return static_cast<std::size_t>(sum_of(0));
}

void VulkanTrainingSession::clear_status() { s_.fill(status_.buffer(), 0, kStatus * 4, 0); }

std::array<std::uint32_t, kStatus> VulkanTrainingSession::read_status() {
  s_.download(status_.buffer(), 0, status_host_.data(), kStatus * 4);
  s_.finish();
  return status_host_;
}

int VulkanTrainingSession::adam(const GroupRates& rates, bool selective, int sh_degree) {
  const std::size_t n = model_.n;
  const AdamOptions& o = host_.adam.options();
  const int deg = std::clamp(sh_degree, 0, kMaxShDegree);
  if (selective && visible_.size() != n) throw Error("Vulkan training: selective adam before visibility");
  host_current_ = false;
  clear_status();
  const std::size_t chunk = splat_chunk(*device_);
  for (int g = 0; g < kNumParamGroups; ++g) {
    const auto gi = static_cast<std::size_t>(g);
    AdamMoments& mom = host_.adam.groups()[gi];
    // train/adam.cpp's prepare(): the group's step advances, its bias corrections in double
    mom.step += 1;
    const double t = static_cast<double>(mom.step);
    AdamPush p{};
    p.b1 = o.beta1;
    p.a1 = 1.f - o.beta1;
    p.b2 = o.beta2;
    p.a2 = 1.f - o.beta2;
    p.bc2_sqrt = static_cast<float>(std::sqrt(1.0 - std::pow(static_cast<double>(o.beta2), t)));
    p.eps = o.eps;
    p.step_size = static_cast<float>(rates[gi] / (1.0 - std::pow(static_cast<double>(o.beta1), t)));
    const auto width = static_cast<std::uint32_t>(kParamGroupWidths[gi]);
    p.width = width;
    p.used_width = g == kShRest ? static_cast<std::uint32_t>(3 * ((deg + 1) * (deg + 1) - 1)) : width;
    p.selective = selective ? 1u : 0u;
    p.group = static_cast<std::uint32_t>(g);
    if (grad(g).size() != n * width) throw Error("Vulkan training: adam before backward");
    for (std::size_t first = 0; first < n; first += chunk) {
      const std::size_t c = std::min(chunk, n - first);
      p.count = static_cast<std::uint32_t>(c * width);
      const std::size_t at = first * width, len = c * width;
      dispatch<sh::AdamStep>(s_, s_.groups_for(len, 256), p, out(param(g), at, len), in(grad(g), at, len),
                             out(m_[gi], at, len), out(v_[gi], at, len),
                             selective ? in(visible_, first, c) : in(none_f_), out(status_));
    }
  }
  const auto bad = read_status();
  for (int g = 0; g < kNumParamGroups; ++g)
    if (bad[static_cast<std::size_t>(g)] != 0) return g;
  return -1;
}

void VulkanTrainingSession::accumulate_densify_stats(long step, const DensifyOptions& o) {
  if (step >= o.densify_until || model_.n == 0) return;
  if (grads_.mean2d.size() != 2 * model_.n) throw Error("Vulkan training: densification statistics before backward");
  host_current_ = false;
  SplatStepPush p{};
  const auto [sx, sy] = densify_grad_scale(camera_, setup_.dataset->train[view_]);
  p.sx = sx;
  p.sy = sy;
  splat_step(kDensifyStats, p);
  s_.finish();
}

DensifyReport VulkanTrainingSession::densify(long step, double extent, const DensifyOptions& o, Rng& rng) {
  // the steps densify_step (train/densify.cpp) acts on; every other step leaves the set alone
  const bool acts = step < o.densify_until &&
                    ((step > o.densify_from && o.densify_every > 0 && step % o.densify_every == 0) ||
                     (o.opacity_reset_every > 0 && step % o.opacity_reset_every == 0) ||
                     (o.white_background && step == o.densify_from));
  if (!acts) return {};
  // densify_step itself (its decisions, draws and new values: the CPU's bits) on a light copy
  // of the set: the arrays it reads and writes come down (14 floats a splat), each row tagged
  // with its index in sh_dc and marked as an original in one of its moments, which copies and
  // removals carry along. The result names every final row's source row and whether it is
  // an original (keeping its moments); its means, scales, rotations, opacities and statistics
  // go up, and the device gathers the SH and the moments.
  const std::size_t n = model_.n;
  GaussianModel m;
  m.resize(n);
  m.sh_degree = host_.model.sh_degree;
  SplatSet light(std::move(m));
  for (const auto& [a, v] : adc_arrays(light))
    if (!v->empty()) s_.download(a->buffer(), 0, v->data(), v->size() * sizeof(float));
  s_.finish();
  std::vector<float>& original = light.adam.groups()[kShDc].m;
  for (std::size_t i = 0; i < n; ++i) {  // two floats of at most 2^18: exact for 2^30 rows
    light.model.sh_dc[3 * i] = static_cast<float>(i >> 12);
    light.model.sh_dc[3 * i + 1] = static_cast<float>(i & 4095u);
    original[3 * i] = 1.f;
  }
  const DensifyReport rep = densify_step(light, step, extent, o, rng);
  rebuild_rows(light, rep.opacity_reset);
  return rep;
}

void VulkanTrainingSession::rebuild_rows(const SplatSet& light, bool opacity_moments_zero) {
  Device& d = *device_;
  const std::size_t n = light.size();
  host_current_ = false;
  std::vector<std::uint32_t> source(n);
  std::vector<std::uint8_t> original(n);
  for (std::size_t j = 0; j < n; ++j) {
    source[j] = (static_cast<std::uint32_t>(light.model.sh_dc[3 * j]) << 12) |
                static_cast<std::uint32_t>(light.model.sh_dc[3 * j + 1]);
    original[j] = light.adam.groups()[kShDc].m[3 * j] != 0.f;
  }
  // rows j (all, or the originals) of a new array from rows source[j] of the old one, runs of
  // consecutive rows in one range each; the other rows zero
  std::vector<Array<float>> retired;  // read by the stream until its finish
  const auto gather = [&](Array<float>& a, std::size_t w, bool originals_only) {
    Array<float> fresh;
    fresh.resize(d, n * w);
    if (originals_only) s_.fill(fresh.buffer(), 0, std::max<std::size_t>(n * w, 1) * sizeof(float), 0);
    std::vector<VkBufferCopy> r;
    const VkDeviceSize row = w * sizeof(float);
    for (std::size_t j = 0; j < n; ++j) {
      if (originals_only && !original[j]) continue;
      if (!r.empty() && r.back().dstOffset + r.back().size == j * row &&
          r.back().srcOffset + r.back().size == source[j] * row)
        r.back().size += row;
      else
        r.push_back({source[j] * row, j * row, row});
    }
    s_.copy_regions(a.buffer(), fresh.buffer(), r);
    retired.push_back(std::move(a));
    a = std::move(fresh);
  };
  gather(model_.sh_dc, 3, false);
  gather(model_.sh_rest, 3 * static_cast<std::size_t>(kShRestCoeffs), false);
  for (int g = 0; g < kNumParamGroups; ++g) {
    const auto gi = static_cast<std::size_t>(g);
    const auto w = static_cast<std::size_t>(kParamGroupWidths[gi]);
    if (g == kOpacity && opacity_moments_zero) {
      m_[gi].resize(d, n * w);
      v_[gi].resize(d, n * w);
      s_.fill(m_[gi].buffer(), 0, std::max<std::size_t>(n, 1) * sizeof(float), 0);
      s_.fill(v_[gi].buffer(), 0, std::max<std::size_t>(n, 1) * sizeof(float), 0);
      continue;
    }
    gather(m_[gi], w, true);
    gather(v_[gi], w, true);
  }
  for (const auto& [a, v] : adc_arrays(light)) {
    a->resize(d, v->size());
    if (!v->empty()) s_.upload(a->buffer(), 0, v->data(), v->size() * sizeof(float));
  }
  model_.n = n;
  s_.finish();
}

double VulkanTrainingSession::mcmc_regularizer(const McmcOptions& o) {
  const std::size_t n = model_.n;
  if (n == 0) return 0.0;
  if (grads_.opacity.size() != n) throw Error("Vulkan training: the MCMC regulariser before backward");
  terms_.resize(*device_, n);
  terms2_.resize(*device_, n);
  SplatStepPush p{};
  p.scale = o.opacity_reg / static_cast<float>(n);
  p.scale2 = o.scale_reg / static_cast<float>(3 * n);
  splat_step(kMcmc, p);
  record_sum(terms_, n, 0);
  record_sum(terms2_, n, 1);
  s_.finish();
  return o.opacity_reg * sum_of(0) / static_cast<double>(n) + o.scale_reg * sum_of(1) / static_cast<double>(3 * n);
}

void VulkanTrainingSession::mcmc_noise(float means_lr, const McmcOptions& o, Rng& rng) {
  // mcmc_add_noise's one draw and its per-splat normals here (the CPU's bits: Box-Muller in
  // double), 3 floats a splat up; the noise itself on the device (mcmc_noise.comp)
  const std::uint64_t seed = rng.next_u64();
  const std::size_t n = model_.n;
  if (n == 0) return;
  host_current_ = false;
  normals_host_.resize(3 * n);
#pragma omp parallel for schedule(static) if (n >= 4096)
  for (long i = 0; i < static_cast<long>(n); ++i)
    mcmc_noise_normals(seed, static_cast<std::size_t>(i), normals_host_.data() + 3 * i);
  normals_.resize(*device_, 3 * n);
  s_.upload(normals_.buffer(), 0, normals_host_.data(), 3 * n * sizeof(float));
  NoisePush p{};
  p.scale = o.noise_lr * means_lr;
  p.k = o.noise_k;
  p.t = o.noise_t;
  const std::size_t chunk = splat_chunk(*device_);
  for (std::size_t first = 0; first < n; first += chunk) {
    const std::size_t c = std::min(chunk, n - first);
    p.count = static_cast<std::uint32_t>(c);
    dispatch<sh::McmcNoise>(s_, s_.groups_for(c, 256), p, in(model_.log_scales, 3 * first, 3 * c),
                            in(model_.quats, 4 * first, 4 * c), in(model_.opacity, first, c),
                            in(normals_, 3 * first, 3 * c), out(model_.means, 3 * first, 3 * c));
  }
  s_.finish();  // the upload's staging memory is the stream's until then
}

McmcReport VulkanTrainingSession::mcmc_refine(long step, const McmcOptions& o, Rng& rng) {
  // the steps mcmc_step (train/mcmc.cpp) acts on
  if (!(step < o.refine_until && step > o.refine_from && o.refine_every > 0 && step % o.refine_every == 0)) return {};
  // The decisions and new values on the host from the opacities and scales alone (16 bytes a
  // splat down; mcmc_step's code and draws), the row edits on the device (train/mcmc_edits.h)
  const std::size_t n = model_.n;
  std::vector<float> logits(n), log_scales(3 * n);
  if (n > 0) {
    s_.download(model_.opacity.buffer(), 0, logits.data(), n * sizeof(float));
    s_.download(model_.log_scales.buffer(), 0, log_scales.data(), 3 * n * sizeof(float));
    s_.finish();
  }
  const McmcEdits e = mcmc_step_edits(logits, log_scales, step, o, rng);
  apply_row_edits(e);
  return e.report;
}

void VulkanTrainingSession::apply_row_edits(const McmcEdits& e) {
  Device& d = *device_;
  const std::size_t n = model_.n, m = e.append_from.size();
  host_current_ = false;
  const auto rows = [](const std::vector<std::uint32_t>& from, const std::vector<std::uint32_t>& to, std::size_t w,
                       std::size_t to_first = 0) {
    std::vector<VkBufferCopy> r(to.empty() ? from.size() : to.size());
    const VkDeviceSize row = w * sizeof(float);
    for (std::size_t k = 0; k < r.size(); ++k)
      r[k] = {from[k] * row, (to.empty() ? to_first + k : to[k]) * row, row};
    return r;
  };
  // 1. every parameter of the relocated rows
  for (int g = 0; g < kNumParamGroups; ++g) {
    const auto w = static_cast<std::size_t>(kParamGroupWidths[static_cast<std::size_t>(g)]);
    s_.copy_regions(param(g).buffer(), param(g).buffer(), rows(e.copy_from, e.copy_to, w));
  }
  // 2. the new opacities and scales, uploaded side by side and copied to their rows
  const std::size_t sets = e.set_rows.size();
  if (sets > 0) {
    edit_values_.resize(d, 4 * sets);
    s_.upload(edit_values_.buffer(), 0, e.set_logit.data(), sets * sizeof(float));
    s_.upload(edit_values_.buffer(), sets * sizeof(float), e.set_log_scale.data(), 3 * sets * sizeof(float));
    std::vector<VkBufferCopy> to_opacity(sets), to_scales(sets);
    for (std::size_t k = 0; k < sets; ++k) {
      to_opacity[k] = {k * sizeof(float), e.set_rows[k] * sizeof(float), sizeof(float)};
      to_scales[k] = {(sets + 3 * k) * sizeof(float), 3 * e.set_rows[k] * sizeof(float), 3 * sizeof(float)};
    }
    s_.copy_regions(edit_values_.buffer(), model_.opacity.buffer(), to_opacity);
    s_.copy_regions(edit_values_.buffer(), model_.log_scales.buffer(), to_scales);
  }
  // 3. Adam's moments of the edited rows, from a row of zeros
  if (!e.zero_rows.empty()) {
    zeros_.resize(d, 3 * kShRestCoeffs);
    s_.fill(zeros_.buffer(), 0, zeros_.bytes(), 0);
    for (int g = 0; g < kNumParamGroups; ++g) {
      const auto w = static_cast<std::size_t>(kParamGroupWidths[static_cast<std::size_t>(g)]);
      std::vector<VkBufferCopy> r(e.zero_rows.size());
      for (std::size_t k = 0; k < r.size(); ++k) r[k] = {0, e.zero_rows[k] * w * sizeof(float), w * sizeof(float)};
      s_.copy_regions(zeros_.buffer(), m_[static_cast<std::size_t>(g)].buffer(), r);
      s_.copy_regions(zeros_.buffer(), v_[static_cast<std::size_t>(g)].buffer(), r);
    }
  }
  // 4. the appended rows: every array into a larger one, the parameters' new rows copied from
  // their sources, the rest zero
  std::vector<Array<float>> retired;  // read by the stream until its finish
  if (m > 0) {
    const auto grow = [&](Array<float>& a, std::size_t w, const std::vector<std::uint32_t>* parents) {
      Array<float> bigger;
      bigger.resize(d, (n + m) * w);
      s_.copy(a.buffer(), 0, bigger.buffer(), 0, n * w * sizeof(float));
      if (parents)
        s_.copy_regions(bigger.buffer(), bigger.buffer(), rows(*parents, {}, w, n));
      else
        s_.fill(bigger.buffer(), n * w * sizeof(float), m * w * sizeof(float), 0);
      retired.push_back(std::move(a));
      a = std::move(bigger);
    };
    for (int g = 0; g < kNumParamGroups; ++g) {
      const auto gi = static_cast<std::size_t>(g);
      const auto w = static_cast<std::size_t>(kParamGroupWidths[gi]);
      grow(param(g), w, &e.append_from);
      grow(m_[gi], w, nullptr);
      grow(v_[gi], w, nullptr);
    }
    grow(grad_accum_, 1, nullptr);
    grow(grad_count_, 1, nullptr);
    grow(max_radii_, 1, nullptr);
    model_.n = n + m;
  }
  s_.finish();
}

int VulkanTrainingSession::first_non_finite_group(bool all) {
  // Adam flagged every value it wrote; the rest are as the last check left them unless
  // something else changed the set.
  if (!all && checked_) return -1;
  clear_status();
  for (int g = 0; g < kNumParamGroups; ++g) {
    Array<float>& a = param(g);
    const std::size_t width = static_cast<std::size_t>(kParamGroupWidths[static_cast<std::size_t>(g)]);
    const std::size_t chunk = splat_chunk(*device_) * width;
    for (std::size_t first = 0; first < a.size(); first += chunk) {
      const std::size_t c = std::min(chunk, a.size() - first);
      SplatStepPush p{};
      p.count = static_cast<std::uint32_t>(c);
      p.slot = static_cast<std::uint32_t>(g);
      dispatch<sh::NonFinite>(s_, s_.groups_for(c, 256), p, in(a, first, c), out(status_));
    }
  }
  const auto bad = read_status();
  for (int g = 0; g < kNumParamGroups; ++g)
    if (bad[static_cast<std::size_t>(g)] != 0) return g;
  checked_ = true;
  return -1;
}

}  // namespace

std::unique_ptr<TrainingSession> make_device_training_session(std::shared_ptr<Device> device,
                                                              const TrainingSetup& setup, SplatSet initial) {
  return std::make_unique<VulkanTrainingSession>(std::move(device), setup, std::move(initial));
}

bool is_device_training_session(const TrainingSession& session) {
  return dynamic_cast<const VulkanTrainingSession*>(&session) != nullptr;
}

}  // namespace glint::vk
