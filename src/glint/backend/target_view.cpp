#include "glint/backend/target_view.h"

#include <algorithm>

#include "glint/io/image_ops.h"

namespace glint {

TargetView target_view(const TrainingSetup& setup, std::size_t view, int factor) {
  TargetView t;
  t.camera = setup.dataset->train[view].camera;
  t.image = setup.images->get(view);
  if (factor > 1) {
    t.camera = t.camera.scaled_to(std::max(1, t.camera.width / factor), std::max(1, t.camera.height / factor));
    t.scaled = resize_area(*t.image, t.camera.width, t.camera.height);
  }
  return t;
}

}  // namespace glint
