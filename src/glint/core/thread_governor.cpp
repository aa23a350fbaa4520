#include "glint/core/thread_governor.h"

#include <algorithm>

namespace glint {

ThreadGovernor::ThreadGovernor(int max_threads) : ThreadGovernor(max_threads, Params{}) {}

ThreadGovernor::ThreadGovernor(int max_threads, const Params& params)
    : max_(std::max(1, max_threads)),
      p_(params),
      current_(1),
      next_probe_(params.first_probe + params.window),
      period_(params.min_period) {}

double ThreadGovernor::median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void ThreadGovernor::record(double step_ms) {
  ++steps_;
  if (max_ == 1 || steps_ <= p_.first_probe) return;
  const auto w = static_cast<std::size_t>(p_.window);
  if (probing_) {
    probe_.push_back(step_ms);
    if (probe_.size() == w || step_ms > p_.abort * median(recent_)) decide();
    return;
  }
  recent_.push_back(step_ms);
  if (recent_.size() > w) recent_.erase(recent_.begin());
  if (recent_.size() < w) return;
  // The machine got slower for the current count (a job started): ask again now.
  if (reference_ms_ > 0 && median(recent_) > p_.drift * reference_ms_) next_probe_ = steps_;
  if (steps_ >= next_probe_) {
    probing_ = true;
    probe_.clear();
  }
}

void ThreadGovernor::decide() {
  const double here = median(recent_), there = median(probe_);
  probing_ = false;
  if (there < p_.win_margin * here) {
    current_ = other();
    ++switches_;
    reference_ms_ = there;
    recent_ = probe_;
    period_ = p_.min_period;
  } else {
    reference_ms_ = here;
    period_ = std::min(p_.max_period, period_ * 4);
  }
  next_probe_ = steps_ + period_;
}

}  // namespace glint
