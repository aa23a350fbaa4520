#pragma once
// How many threads the next step of a long loop (training) should use, measured rather
// than assumed. On an idle machine every core is fastest; on a busy one (a build, another
// job) a thread that loses its core stalls every parallel region at its barrier while the
// other threads spin there, and all cores can be many times slower than one. The governor
// starts on one thread, runs short probe windows at the other count, compares the median
// step times of adjacent windows and keeps the faster. A probe step much slower than the
// current median ends its probe at once, and a lost probe quadruples the wait before the
// next, so a probe costs about one step either way; a step time that worsens by a third
// probes again at once.
//
// Only the thread count changes, never the work: the CPU backend, SSIM, Adam and the
// density control give the same bits for every thread count.
#include <cstddef>
#include <vector>

namespace glint {

class ThreadGovernor {
 public:
  struct Params {
    int window = 4;            // steps a median is taken over
    long first_probe = 1;      // steps before the first window starts (warm-up)
    long min_period = 50;      // steps between a decision and the next probe ...
    long max_period = 6400;    // ... times 4 after every probe that lost, up to this
    double win_margin = 0.95;  // a probe wins when its median is below this x the other's
    double abort = 1.25;       // a probe step above this x the current median loses at once
    double drift = 1.33;       // current median above this x the last decision's: probe now
  };
  // Chooses between 1 and max_threads (>= 1; 1 disables the probes).
  explicit ThreadGovernor(int max_threads);
  ThreadGovernor(int max_threads, const Params& params);

  int threads() const { return probing_ ? other() : current_; }
  // The wall time of the step just run at threads().
  void record(double step_ms);

  int max_threads() const { return max_; }
  long switches() const { return switches_; }

 private:
  int other() const { return current_ == max_ ? 1 : max_; }
  static double median(std::vector<double> v);
  void decide();

  int max_;
  Params p_;
  int current_;
  bool probing_ = false;
  long steps_ = 0, next_probe_;
  long period_;
  double reference_ms_ = 0;  // the winning window's median at the last decision (0: none yet)
  long switches_ = 0;
  std::vector<double> recent_;  // the last `window` steps at current_
  std::vector<double> probe_;   // the probe window's steps
};

}  // namespace glint
