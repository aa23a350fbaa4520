#pragma once
// What a training run is asked to do, before it is resolved against its dataset: the
// trainer's options as the user gave them, which of them the user set, a preset and the
// length the schedule is laid out for. resolve_train_options() turns that into the
// TrainOptions the trainer runs with.
#include <set>
#include <string>

#include "glint/io/dataset.h"
#include "glint/train/trainer.h"

namespace glint {

// Names of the settings a preset or the schedule scaling may change; a caller that lets a
// user set one of them lists it in RunOptions::user_set, and it is then left as given.
namespace option_names {
inline constexpr const char* kNormalWeight = "normal-weight";
inline constexpr const char* kNormalFrom = "normal-from";
inline constexpr const char* kNormalEdge = "normal-edge";
inline constexpr const char* kFlattenWeight = "flatten-weight";
inline constexpr const char* kDistortionWeight = "distortion-weight";
inline constexpr const char* kDistortionFrom = "distortion-from";
inline constexpr const char* kRandomBackground = "random-background";
inline constexpr const char* kDensifyUntil = "densify-until";
}  // namespace option_names

struct RunOptions {
  TrainOptions train;
  std::string preset;              // "" or one of preset_names()
  std::set<std::string> user_set;  // option_names the user set explicitly
  // Run length the schedule is laid out for (3DGS writes it for 30000 steps): positions
  // decay over it, densification and opacity resets stop at half of it, MCMC refinement at
  // five sixths. It does not follow train.steps, so that running N steps and resuming to
  // N+M gives exactly the run of N+M steps.
  long schedule_steps = 30000;
  long eval_every = 0;  // test PSNR every N steps (0: only at the start and the end)
  long save_every = 0;  // checkpoint every N steps (0: only when interrupted)
  std::size_t image_cache_mb = 4096;
  bool write_splat = false;  // also scene.splat
  bool write_spz = false;    // also scene.spz
  // Threads of the step loop. 0: OpenMP's count (OMP_NUM_THREADS or every core) on an idle
  // machine, fewer when measured faster (core/thread_governor.h); N > 0: always N.
  int threads = 0;
};

// Presets: "lightable", geometry measured best for relighting (docs/LIGHTING.md).
const std::set<std::string>& preset_names();

// The options the trainer runs with: the preset applied to every setting the user did not
// set, the schedule scaled to schedule_steps (again only where the user set nothing), and
// what the dataset decides (3DGS's extra opacity reset on white backgrounds). Throws
// glint::Error for an unknown preset.
TrainOptions resolve_train_options(const RunOptions& run, const Dataset& data);

}  // namespace glint
