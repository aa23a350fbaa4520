#pragma once
// What one publication of a changing model (a run folder's, a training run's) serves: the
// model blob and the model's per-splat AO (view/splat_ao_blob.h), made together and
// published together, so that the page de-lights a live model as it does a fixed one and
// never pairs a model with another model's AO (it checks that both replies carry the same
// version).
#include <vector>

#include "glint/backend/backend.h"
#include "glint/core/gaussians.h"
#include "glint/view/site.h"

namespace glint::view {

// /api/model.bin and /api/splat_ao.bin of `m`; the AO maps are rendered with `backend`.
std::vector<SiteFile> live_model_files(Backend& backend, const GaussianModel& m);

}  // namespace glint::view
