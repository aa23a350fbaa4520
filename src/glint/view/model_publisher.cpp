#include "glint/view/model_publisher.h"

#include <omp.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "glint/backend/backend.h"
#include "glint/view/live_model_files.h"
#include "glint/view/model_blob.h"

namespace glint::view {

namespace {

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

// The background bakes: one snapshot waiting at most, one thread, one CPU thread for the
// AO maps (its OpenMP regions are its own: training's threads and bits are untouched).
struct ModelPublisher::Baker {
  struct Snapshot {
    GaussianModel model;
    std::string status;
  };

  explicit Baker(Site& site) : site(site), backend(make_cpu_backend(1)), thread([this] { loop(); }) {}
  ~Baker() {
    {
      std::lock_guard lock(mu);
      stop = true;
      pending.reset();
    }
    cv.notify_all();
    thread.join();
  }

  void submit(const GaussianModel& m, std::string status) {
    {
      std::lock_guard lock(mu);
      pending = Snapshot{m, std::move(status)};
    }
    cv.notify_all();
  }

  void wait_idle() {
    std::unique_lock lock(mu);
    idle_cv.wait(lock, [&] { return !pending && !busy; });
  }

  void loop() {
    omp_set_num_threads(1);  // this thread's OpenMP regions (the AO bake's own loops) too
    std::unique_lock lock(mu);
    auto not_before = std::chrono::steady_clock::now();
    for (;;) {
      cv.wait(lock, [&] { return stop || pending; });
      if (stop) return;
      // the pause after the last bake (a new snapshot may replace the waiting one meanwhile)
      if (cv.wait_until(lock, not_before, [&] { return stop; })) return;
      Snapshot s = std::move(*pending);
      pending.reset();
      busy = true;
      lock.unlock();
      const auto t0 = std::chrono::steady_clock::now();
      site.publish(live_model_files(*backend, s.model), s.status);
      const auto t1 = std::chrono::steady_clock::now();
      not_before = t1 + (t1 - t0);
      lock.lock();
      busy = false;
      idle_cv.notify_all();
    }
  }

  Site& site;
  std::unique_ptr<Backend> backend;
  std::mutex mu;
  std::condition_variable cv, idle_cv;
  std::optional<Snapshot> pending;
  bool busy = false;
  bool stop = false;
  std::thread thread;  // last: starts once the rest is built
};

ModelPublisher::ModelPublisher(Site& site, double every_s, Clock clock, AoBaking ao)
    : site_(site), every_s_(every_s), clock_(clock ? std::move(clock) : Clock(steady_seconds)) {
  if (ao == AoBaking::Background) baker_ = std::make_unique<Baker>(site);
}

ModelPublisher::~ModelPublisher() = default;

void ModelPublisher::wait_published() {
  if (baker_) baker_->wait_idle();
}

bool ModelPublisher::due(bool force) const {
  return !published_any_ || force || every_s_ <= 0 || clock_() - last_s_ >= every_s_;
}

bool ModelPublisher::offer(const GaussianModel& offered, const LiveStatus& s, bool force) {
  const double now = clock_();
  if (published_any_ && !force && every_s_ > 0 && now - last_s_ < every_s_) return false;
  GaussianModel marked;
  if (antialiased_ && !offered.antialiased) {
    marked = offered;
    marked.antialiased = true;
  }
  const GaussianModel& m = antialiased_ && !offered.antialiased ? marked : offered;
  const nlohmann::json status = {{"live", true},   {"state", s.state},         {"step", s.step},
                                 {"steps", s.steps}, {"splats", m.size()},     {"loss", s.loss},
                                 {"test_psnr", s.test_psnr}};
  if (baker_) {
    baker_->submit(m, status.dump());
  } else {
    std::vector<SiteFile> files;
    files.push_back({"/api/model.bin", encode_model_blob(m), "application/octet-stream"});
    site_.publish(std::move(files), status.dump());
  }
  published_any_ = true;
  published_step_ = s.step;
  published_state_ = s.state;
  last_s_ = now;
  return true;
}

}  // namespace glint::view
