#include "glint/train/strategy.h"

#include "glint/train/trainer.h"

namespace glint {

std::unique_ptr<DensifyStrategy> make_strategy(const TrainOptions& options, double scene_radius) {
  switch (options.strategy) {
    case Strategy::kMcmc:
      return make_mcmc_strategy(options.mcmc);
    case Strategy::kAdc:
      break;
  }
  return make_adc_strategy(options.densify, scene_radius);
}

}  // namespace glint
