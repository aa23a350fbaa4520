#pragma once
// glint train --view: the viewer's Site with the dataset's cameras, its server on a thread
// of its own (Ctrl-C stays with the training run), and the observer that publishes the
// model into it.
#include <atomic>
#include <memory>

#include "glint/cli/train_run.h"
#include "glint/io/dataset.h"
#include "glint/train/run.h"

namespace glint::cli {

class TrainLiveView {
 public:
  // Binds and starts serving (throws glint::Error when it cannot bind); prints the URL.
  TrainLiveView(const TrainArgs& a, const Dataset& data);
  ~TrainLiveView();

  RunObserver& observer();
  // After a finished run: says so and serves the final model until `stop` becomes true.
  void serve_until(const std::atomic<bool>& stop);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace glint::cli
