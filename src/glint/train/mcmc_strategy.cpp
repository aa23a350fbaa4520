// 3DGS-MCMC as a DensifyStrategy: its opacity and scale regulariser after every backward,
// position noise and the scheduled relocation and growth after Adam (mcmc.h).
#include "glint/train/mcmc.h"
#include "glint/train/strategy.h"
#include "glint/train/trainer.h"

namespace glint {
namespace {

class McmcStrategy final : public DensifyStrategy {
 public:
  explicit McmcStrategy(const McmcOptions& o) : options_(o) {}
  const char* name() const override { return "mcmc"; }
  double after_backward(TrainingSession& s, long) override { return s.mcmc_regularizer(options_); }
  bool after_adam(TrainingSession& s, long step, float means_lr, Rng& rng) override {
    s.mcmc_noise(means_lr, options_, rng);
    s.mcmc_refine(step, options_, rng);
    return true;  // the noise moves every splat
  }

 private:
  McmcOptions options_;
};

}  // namespace

std::unique_ptr<DensifyStrategy> make_mcmc_strategy(const McmcOptions& o) { return std::make_unique<McmcStrategy>(o); }

}  // namespace glint
