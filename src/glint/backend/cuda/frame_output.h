#pragma once
// A frame's outputs as a RenderOutput: the images `settings` asks for (colour always), the
// radii and the counts, downloaded from the frame forward_frame left; and the gradients
// backward_frame left as a ModelGrad. The CUDA backend (cuda_backend.cu) and the emulated
// tests' renderer use them, so both hand out the same images and gradients.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "glint/backend/backend.h"
#include "glint/backend/cuda/cuda_namespace.h"
#include "glint/backend/cuda/device_buffer.h"
#include "glint/backend/cuda/forward_stages.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

inline void download_image(const DeviceBuffer<float>& b, int w, int h, int c, ImageF& img) {
  if (img.width != w || img.height != h || img.channels != c ||
      img.data.size() != static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * static_cast<std::size_t>(c))
    img = ImageF(w, h, c);
  download(b, img.data);
}

// out's images are reused where their sizes fit; those not asked for are emptied. Leaves
// out.saved alone.
inline void download_frame(const DeviceFrame& f, const RenderSettings& settings, RenderOutput& out) {
  const int w = f.image.width, h = f.image.height;
  if (settings.want_rgb) download_image(f.rgb, w, h, 3, out.rgb);
  else out.rgb = ImageF();
  const DeviceBuffer<float>* images[aov::kCount] = {};
  images[aov::alpha] = &f.alpha;
  images[aov::depth] = &f.depth;
  images[aov::median_depth] = &f.median;
  images[aov::normal] = &f.normal;
  images[aov::distortion] = &f.distortion;
  images[aov::count] = &f.count;
  for (int i = 0; i < aov::kCount; ++i) {
    const auto id = aov::Id(i);
    if (wants(settings, id) && images[i])
      download_image(*images[i], w, h, aov::kInfo[i].channels, image_of(out, id));
    else
      image_of(out, id) = ImageF();
  }
  download(f.radii, out.radii);
  out.num_visible = std::count_if(out.radii.begin(), out.radii.end(), [](int r) { return r > 0; });
  out.num_instances = static_cast<std::int64_t>(f.instances);
}

// Every parameter's gradient and the 2D means' of n splats; every float of every SH row.
inline void download_grads(const DeviceGrads& g, std::size_t n, ModelGrad& out) {
  out.resize(n, false);
  download(g.means, out.means);
  download(g.log_scales, out.log_scales);
  download(g.quats, out.quats);
  download(g.opacity_logits, out.opacity_logits);
  download(g.sh_dc, out.sh_dc);
  download(g.sh_rest, out.sh_rest);
  download(g.mean2d, out.mean2d);
  out.sh_rest_live = 3 * kShRestCoeffs;
}

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
