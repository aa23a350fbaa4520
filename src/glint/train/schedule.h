#pragma once
// Learning-rate and SH-degree schedules of 3DGS.
//
// Step convention for everything in train/: `step` is the 1-based number of the iteration
// being run (3DGS's `iteration`), so the first step is 1 and "every 1000 steps" fires at
// 1000, 2000, ...
namespace glint {

// 3DGS get_expon_lr_func: log-linear interpolation from lr_init (step 0) to lr_final
// (step >= max_steps), times an optional warm-up factor that rises from delay_mult to 1
// along a quarter sine over the first delay_steps.
struct ExpLrSchedule {
  double lr_init = 0;
  double lr_final = 0;
  long max_steps = 30000;
  long delay_steps = 0;
  double delay_mult = 1.0;
  double operator()(long step) const;
};

// Learning rates of the six parameter groups (3DGS defaults). Positions scale with the
// scene extent and decay over position_max_steps; the others are constant.
struct LearningRates {
  double means_init = 1.6e-4;   // x extent
  double means_final = 1.6e-6;  // x extent
  double means_delay_mult = 0.01;
  long position_max_steps = 30000;
  double log_scales = 5e-3;
  double quats = 1e-3;
  double opacity_logits = 5e-2;
  double sh_dc = 2.5e-3;
  double sh_rest = 2.5e-3 / 20;  // 1.25e-4
};

ExpLrSchedule position_lr_schedule(const LearningRates& lr, double extent);

// Active SH degree at a step: +1 every `every` steps, starting from 0, up to max_degree.
int sh_degree_at(long step, long every = 1000, int max_degree = 3);

}  // namespace glint
