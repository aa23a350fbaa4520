#pragma once
// A model that changes while it is served (a training run's): offered as often as the
// caller likes, published into a Site -- encoded, /api/model.bin replaced, the version
// bumped -- only when `every_s` seconds have passed since the last publication, or when
// forced. The encoding happens on the caller's thread at those moments only.
//
// With AoBaking::Background an offer that is due only copies the model; a thread of the
// publisher's own renders its AO maps on one CPU thread and publishes the model together
// with its per-splat AO (view/live_model_files.h), so that the page de-lights a live model
// as it does a fixed one. A snapshot offered while one bakes replaces any that waits (the
// newest wins), and after a bake that took T seconds the next starts no sooner than T
// later: the baking takes at most half of one core from training.
//
// Each publication sets the Site's status to
//   {"live": true, "state", "step", "steps", "splats", "loss", "test_psnr"}
#include <functional>
#include <memory>
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

enum class AoBaking { None, Background };

class ModelPublisher {
 public:
  using Clock = std::function<double()>;  // seconds, monotonic; default steady_clock
  // every_s <= 0: every offer is published.
  ModelPublisher(Site& site, double every_s, Clock clock = {}, AoBaking ao = AoBaking::None);
  ~ModelPublisher();  // a bake under way finishes; a snapshot still waiting is dropped

  // Returns whether it published. The first offer is always published.
  bool offer(const GaussianModel& m, const LiveStatus& s, bool force = false);
  // Every model offered from now on is marked GaussianModel::antialiased (a run trained with
  // the 2D filter: the session's model does not carry the mark).
  void mark_antialiased(bool on) { antialiased_ = on; }
  // Whether an offer now would publish (so a caller can skip fetching the model).
  bool due(bool force = false) const;

  // AoBaking::Background: waits until every snapshot offered so far is in the Site.
  void wait_published();

  // The last offer taken for publication (with AoBaking::Background it may still be baking).
  long published_step() const { return published_step_; }
  const std::string& published_state() const { return published_state_; }

 private:
  Site& site_;
  double every_s_;
  Clock clock_;
  double last_s_ = 0;
  bool published_any_ = false;
  bool antialiased_ = false;
  long published_step_ = -1;
  std::string published_state_;
  struct Baker;
  std::unique_ptr<Baker> baker_;
};

}  // namespace glint::view
