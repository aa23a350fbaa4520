#include "glint/train/fine_tune.h"

#include <algorithm>
#include <stdexcept>

#include "glint/io/image_cache.h"

namespace glint {

GaussianModel fine_tune(const GaussianModel& model, const Dataset& data, TrainOptions options, long steps,
                        Backend& backend, const std::function<void(long)>& on_step) {
  if (steps <= 0 || model.size() == 0) return model;
  options.strategy = Strategy::kAdc;
  options.densify.densify_until = 0;  // no statistics, densification, pruning or resets
  options.steps = std::max(options.steps, steps);
  ImageCache cache(data, data.train, std::size_t{1} << 30);
  cache.preload_if_fits();
  Trainer trainer(data, options, backend, cache, SplatSet(model), options.steps - steps);
  for (long s = 1; s <= steps; ++s) {
    trainer.step();
    if (on_step) on_step(s);
  }
  GaussianModel out = trainer.model();
  if (out.size() != model.size()) throw std::logic_error("fine_tune: the model's rows changed");
  out.antialiased = model.antialiased;
  return out;
}

}  // namespace glint
