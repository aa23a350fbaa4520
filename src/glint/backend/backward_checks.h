#pragma once
// What every backend's backward checks of the forward state it is handed, before any work:
// that the forward can be differentiated, was made for this model and camera, and rendered
// every output a gradient is given for. One copy, so the backends refuse alike.
#include <string>

#include "glint/backend/backend.h"
#include "glint/core/camera.h"
#include "glint/core/error.h"
#include "glint/core/gaussians.h"

namespace glint {

// State: a backend's forward state, with n, model_means, width, height and settings.
template <class State>
void check_backward_call(const State& st, const GaussianModel& model, const Camera& camera, const RenderGradIn& gin) {
  if (st.settings.median_depth_only)
    throw Error("rasterizer backward: the forward stopped at the median depth (median_depth_only)");
  if (st.n != model.size() || st.model_means != model.means.data() || st.width != camera.width ||
      st.height != camera.height)
    throw Error("rasterizer backward: model or camera differ from the forward pass");
  for (int i = 0; i < aov::kCount; ++i)
    if (grad_of(gin, aov::Id(i)) && !wants(st.settings, aov::Id(i)))
      throw Error("rasterizer backward: a gradient for " + std::string(aov::kInfo[i].name) +
                  ", which the forward did not render");
}

}  // namespace glint
