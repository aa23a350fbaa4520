#pragma once
// Two observers of one training run (the progress bar and a live viewer): every hook goes
// to the first, then to the second.
#include "glint/train/run.h"

namespace glint {

class ObserverPair final : public RunObserver {
 public:
  ObserverPair(RunObserver& a, RunObserver& b) : a_(a), b_(b) {}
  void on_resumed(const std::string& c, long s) override { a_.on_resumed(c, s), b_.on_resumed(c, s); }
  void on_eval(long s, const EvalReport& r) override { a_.on_eval(s, r), b_.on_eval(s, r); }
  void on_step(const StepResult& r, const RunProgress& p, const StepModel& m) override {
    a_.on_step(r, p, m);
    b_.on_step(r, p, m);
  }
  void on_checkpoint(const std::string& c, long s) override { a_.on_checkpoint(c, s), b_.on_checkpoint(c, s); }
  void on_final_view(const ViewScore& s, const ImageF& i) override { a_.on_final_view(s, i), b_.on_final_view(s, i); }
  void on_finish(const RunResult& r) override { a_.on_finish(r), b_.on_finish(r); }

 private:
  RunObserver& a_;
  RunObserver& b_;
};

}  // namespace glint
