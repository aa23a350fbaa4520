#include "glint/train/run_options.h"

#include <algorithm>

#include "glint/core/error.h"

namespace glint {

namespace {
constexpr float kLightableNormalWeight = 0.05f;
constexpr long kLightableNormalFrom = 1000;
constexpr float kLightableNormalEdge = 0.005f;
constexpr float kLightableFlattenWeight = 100.f;
constexpr float kLightableDistortionWeight = 0.5f;
constexpr long kLightableDistortionFrom = 1000;

// What measured best on the relight benchmark (docs/LIGHTING.md): flat splats whose
// normals agree with the rendered depth away from its edges, concentrated along each ray (depth distortion),
// with a coverage that does not lean on the background colour (random background), and the
// Mip-Splatting 2D filter, with which the splats fit the captures' soft silhouettes. The
// regularisers start later in short schedules so that the first densifications see an
// unconstrained fit.
void apply_lightable(TrainOptions& t, long schedule_steps, const std::set<std::string>& user) {
  namespace n = option_names;
  const auto free = [&](const char* name) { return !user.count(name); };
  if (free(n::kNormalWeight)) t.normal_weight = kLightableNormalWeight;
  if (free(n::kNormalFrom)) t.normal_from = std::min<long>(kLightableNormalFrom, schedule_steps / 6);
  if (free(n::kNormalEdge)) t.normal_edge = kLightableNormalEdge;
  if (free(n::kFlattenWeight)) t.flatten_weight = kLightableFlattenWeight;
  if (free(n::kDistortionWeight)) t.distortion_weight = kLightableDistortionWeight;
  if (free(n::kDistortionFrom)) t.distortion_from = std::min<long>(kLightableDistortionFrom, schedule_steps / 3);
  t.random_background = true;
  t.antialiased = true;
}
}  // namespace

const std::set<std::string>& preset_names() {
  static const std::set<std::string> names{"lightable"};
  return names;
}

TrainOptions resolve_train_options(const RunOptions& run, const Dataset& data) {
  TrainOptions t = run.train;
  t.densify.white_background = data.background == std::array<float, 3>{1, 1, 1};
  if (!run.preset.empty()) {
    if (!preset_names().count(run.preset)) throw Error("--preset " + run.preset, "unknown preset");
    apply_lightable(t, run.schedule_steps, run.user_set);
  }
  const long S = run.schedule_steps;
  if (S <= 0) throw Error("--schedule-steps", "must be positive");
  t.lr.position_max_steps = S;  // no flag of its own: it always follows the schedule
  if (!run.user_set.count(option_names::kDensifyUntil))
    t.densify.densify_until = std::min<long>(t.densify.densify_until, S / 2);
  t.mcmc.refine_until = std::min<long>(t.mcmc.refine_until, S * 5 / 6);
  return t;
}

}  // namespace glint
