#include "glint/backend/target_view.h"

#include <algorithm>

#include "glint/io/image_ops.h"

namespace glint {

TargetView target_view(const TrainingSetup& setup, std::size_t view, int factor) {
  TargetView t;
  t.camera = setup.dataset->train[view].camera;
  t.image = setup.images->get(view);
  t.mask = setup.images->get_mask(view);
  if (factor > 1) {
    t.camera = t.camera.scaled_to(std::max(1, t.camera.width / factor), std::max(1, t.camera.height / factor));
    t.scaled = resize_area(*t.image, t.camera.width, t.camera.height);
    if (t.mask) t.scaled_mask = resize_area(*t.mask, t.camera.width, t.camera.height);
  }
  return t;
}

std::array<float, 2> densify_grad_scale(const Camera& render, const View& view) {
  float sx = 0.5f * static_cast<float>(render.width), sy = 0.5f * static_cast<float>(render.height);
  const bool cropped = view.full_width > 0 && view.full_height > 0 &&
                       (view.camera.width != view.full_width || view.camera.height != view.full_height);
  if (cropped) {
    sx *= static_cast<float>(view.camera.height) / static_cast<float>(view.full_height);
    sy *= static_cast<float>(view.camera.width) / static_cast<float>(view.full_width);
  }
  return {sx, sy};
}

double mask_weights(const Image8& mask, std::vector<float>& w) {
  w.resize(mask.data.size());
  double sum = 0;
  for (std::size_t p = 0; p < w.size(); ++p) {
    w[p] = mask.data[p] * (1.f / 255.f);
    sum += w[p];
  }
  return sum;
}

}  // namespace glint
