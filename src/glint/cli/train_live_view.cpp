#include "glint/cli/train_live_view.h"

#include <chrono>
#include <cstdio>
#include <thread>

#include "glint/core/error.h"
#include "glint/train/run_options.h"
#include "glint/view/light_setups_json.h"
#include "glint/view/model_publisher.h"
#include "glint/view/scene_json.h"
#include "glint/view/server.h"

namespace glint::cli {

namespace {

// The run's hooks, turned into offers to the publisher: every step is offered (published
// every few seconds, each model with its per-splat AO baked off the training thread), the
// last step always, and an interrupted run's last model once more with its state.
class LiveObserver final : public RunObserver {
 public:
  LiveObserver(view::Site& site, double every_s, bool antialiased)
      : pub_(site, every_s, {}, view::AoBaking::Background) {
    pub_.mark_antialiased(antialiased);
  }

  void wait_published() { pub_.wait_published(); }

  void on_step(const StepResult&, const RunProgress& p, const StepModel& model) override {
    if (!last_model_) last_model_ = model;
    last_ = p;
    const bool last_step = p.step >= p.steps;
    // the model is fetched (from a device, for the CUDA session) only when it is published
    if (pub_.due(last_step)) pub_.offer(model(), status(p, last_step ? "done" : "training"), last_step);
  }
  void on_finish(const RunResult& r) override {
    if (!last_model_) return;  // no step ran
    const char* state = r.interrupted ? "interrupted" : "done";
    if (pub_.published_step() != last_.step || pub_.published_state() != state)
      pub_.offer(last_model_(), status(last_, state), true);
  }

 private:
  static view::LiveStatus status(const RunProgress& p, const char* state) {
    return {state, p.step, p.steps, p.loss, p.test_psnr};
  }
  view::ModelPublisher pub_;
  RunProgress last_;
  // The model the last step left. Every hook runs inside TrainingRun::run, where the
  // trainer that owns it lives, so it is still valid in on_finish.
  StepModel last_model_;
};

}  // namespace

struct TrainLiveView::Impl {
  view::Site site;
  std::unique_ptr<view::Server> server;
  std::unique_ptr<LiveObserver> publisher;
};

TrainLiveView::TrainLiveView(const TrainArgs& a, const Dataset& data) : impl_(std::make_unique<Impl>()) {
  std::vector<Camera> cams;
  std::vector<std::string> splits;
  for (const View& v : data.train) cams.push_back(v.camera), splits.push_back("train");
  for (const View& v : data.test) cams.push_back(v.camera), splits.push_back("test");
  view::Site& site = impl_->site;
  site.add("/api/cameras.json", view::cameras_to_json(cams, splits, data.background), "application/json");
  site.add("/api/lights.json", "null", "application/json");
  site.add("/api/light_setups.json", view::light_setups_to_json({}), "application/json");  // no lights: unlit
  site.add("/favicon.ico", "", "image/x-icon");
  // Until the first step the page waits: version 0 and a status that says a run is coming.
  site.publish({}, "{\"live\": true, \"state\": \"starting\"}");
  impl_->publisher =
      std::make_unique<LiveObserver>(site, a.view_every_s, resolve_train_options(a.run, data).antialiased);
  try {
    impl_->server = std::make_unique<view::Server>(site, view::ServeOptions{a.view_host, a.view_port});
  } catch (const Error& e) {  // the server's message names --port / --host
    throw Error(std::string("--view-host ") + a.view_host + " --view-port " + std::to_string(a.view_port) + ": " +
                e.what());
  }
  impl_->server->start_background();
  // Also with --quiet: the address is what --view is for.
  std::fprintf(stderr, "live view: %s (the model every %g s while training)\n", impl_->server->url().c_str(),
               a.view_every_s);
}

TrainLiveView::~TrainLiveView() = default;

RunObserver& TrainLiveView::observer() { return *impl_->publisher; }

void TrainLiveView::serve_until(const std::atomic<bool>& stop) {
  impl_->publisher->wait_published();  // the final model is in the Site before it is announced
  std::fprintf(stderr, "live view: training done; serving the final model at %s until Ctrl-C\n",
               impl_->server->url().c_str());
  while (!stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  impl_->server->stop();
  std::fprintf(stderr, "live view: stopped\n");
}

}  // namespace glint::cli
