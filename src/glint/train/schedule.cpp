#include "glint/train/schedule.h"

#include <algorithm>
#include <cmath>

namespace glint {

double ExpLrSchedule::operator()(long step) const {
  if (step < 0 || (lr_init == 0 && lr_final == 0)) return 0.0;
  double delay_rate = 1.0;
  if (delay_steps > 0) {
    double u = std::clamp(static_cast<double>(step) / static_cast<double>(delay_steps), 0.0, 1.0);
    delay_rate = delay_mult + (1.0 - delay_mult) * std::sin(0.5 * 3.141592653589793 * u);
  }
  double t = max_steps > 0 ? std::clamp(static_cast<double>(step) / static_cast<double>(max_steps), 0.0, 1.0) : 1.0;
  return delay_rate * std::exp(std::log(lr_init) * (1.0 - t) + std::log(lr_final) * t);
}

ExpLrSchedule position_lr_schedule(const LearningRates& lr, double extent) {
  ExpLrSchedule s;
  s.lr_init = lr.means_init * extent;
  s.lr_final = lr.means_final * extent;
  s.delay_mult = lr.means_delay_mult;  // inert while delay_steps = 0, as in 3DGS
  s.max_steps = lr.position_max_steps;
  return s;
}

int sh_degree_at(long step, long every, int max_degree) {
  if (every <= 0 || step <= 0) return every <= 0 ? max_degree : 0;
  return static_cast<int>(std::min<long>(max_degree, step / every));
}

}  // namespace glint
