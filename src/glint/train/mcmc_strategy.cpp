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
  double after_backward(SplatSet& set, const BackwardView& b) override {
    return mcmc_regularizer(set.model, options_, b.grad.opacity_logits.data(), b.grad.log_scales.data());
  }
  bool after_adam(SplatSet& set, long step, float means_lr, Rng& rng) override {
    mcmc_add_noise(set, means_lr, options_, rng);
    mcmc_step(set, step, options_, rng);
    return true;  // the noise moves every splat
  }

 private:
  McmcOptions options_;
};

}  // namespace

std::unique_ptr<DensifyStrategy> make_mcmc_strategy(const McmcOptions& o) { return std::make_unique<McmcStrategy>(o); }

}  // namespace glint
