// Adaptive density control as a DensifyStrategy: statistics after every backward, the
// scheduled clone / split / prune / opacity reset after Adam (densify.h).
#include "glint/train/densify.h"
#include "glint/train/strategy.h"
#include "glint/train/trainer.h"

namespace glint {
namespace {

class AdcStrategy final : public DensifyStrategy {
 public:
  AdcStrategy(const DensifyOptions& o, double extent) : options_(o), extent_(extent) {}
  const char* name() const override { return "adc"; }
  double after_backward(TrainingSession& s, long step) override {
    s.accumulate_densify_stats(step, options_);
    return 0.0;
  }
  bool after_adam(TrainingSession& s, long step, float, Rng& rng) override {
    const DensifyReport rep = s.densify(step, extent_, options_, rng);
    return rep.densified || rep.opacity_reset;
  }

 private:
  DensifyOptions options_;
  double extent_;
};

}  // namespace

std::unique_ptr<DensifyStrategy> make_adc_strategy(const DensifyOptions& o, double extent) {
  return std::make_unique<AdcStrategy>(o, extent);
}

}  // namespace glint
