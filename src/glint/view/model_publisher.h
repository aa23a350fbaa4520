#pragma once
// A model that changes while it is served (a training run's): offered as often as the
// caller likes, published into a Site -- encoded, /api/model.bin replaced, the version
// bumped -- only when `every_s` seconds have passed since the last publication, or when
// forced. The encoding happens on the caller's thread at those moments only.
//
// Each publication sets the Site's status to
//   {"live": true, "state", "step", "steps", "splats", "loss", "test_psnr"}
#include <functional>
#include <string>

#include "glint/core/gaussians.h"
#include "glint/view/site.h"

namespace glint::view {

struct LiveStatus {
  std::string state = "training";  // "training", "done", "interrupted"
  long step = 0;
  long steps = 0;
  double loss = 0;
  double test_psnr = 0;
};

class ModelPublisher {
 public:
  using Clock = std::function<double()>;  // seconds, monotonic; default steady_clock
  // every_s <= 0: every offer is published.
  ModelPublisher(Site& site, double every_s, Clock clock = {});

  // Returns whether it published. The first offer is always published.
  bool offer(const GaussianModel& m, const LiveStatus& s, bool force = false);
  // Whether an offer now would publish (so a caller can skip fetching the model).
  bool due(bool force = false) const;

  long published_step() const { return published_step_; }
  const std::string& published_state() const { return published_state_; }

 private:
  Site& site_;
  double every_s_;
  Clock clock_;
  double last_s_ = 0;
  bool published_any_ = false;
  long published_step_ = -1;
  std::string published_state_;
};

}  // namespace glint::view
