#include "glint/train/evaluate.h"

#include <chrono>

#include "glint/io/image_ops.h"
#include "glint/train/metrics.h"

namespace glint {

EvalReport evaluate(const GaussianModel& model, const std::vector<View>& views, ImageCache& images, Backend& backend,
                    const RenderSettings& settings,
                    const std::function<void(std::size_t, const ViewScore&, const ImageF&)>& on_view) {
  EvalReport report;
  RenderOutput out;  // reused from view to view
  for (std::size_t i = 0; i < views.size(); ++i) {
    auto t0 = std::chrono::steady_clock::now();
    backend.forward_into(model, views[i].camera, settings, out);
    auto t1 = std::chrono::steady_clock::now();
    clamp01(out.rgb);
    ImageF target = to_float(*images.get(i));
    ViewScore s;
    s.name = views[i].camera.name;
    if (const std::shared_ptr<const Image8> mask = images.get_mask(i)) {
      s.masked = true;
      double sum = 0;
      for (std::uint8_t v : mask->data) sum += v / 255.0;
      s.mask_coverage = mask->data.empty() ? 0.0 : sum / static_cast<double>(mask->data.size());
      s.psnr = psnr_masked(out.rgb, target, *mask);
      s.ssim = ssim_masked(out.rgb, target, *mask);
      ++report.masked_views;
    } else {
      s.psnr = psnr(out.rgb, target);
      s.ssim = ssim_metric(out.rgb, target);
    }
    s.render_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    report.mean_psnr += s.psnr;
    report.mean_ssim += s.ssim;
    if (on_view) on_view(i, s, out.rgb);
    report.views.push_back(std::move(s));
  }
  if (!views.empty()) {
    report.mean_psnr /= static_cast<double>(views.size());
    report.mean_ssim /= static_cast<double>(views.size());
  }
  return report;
}

}  // namespace glint
