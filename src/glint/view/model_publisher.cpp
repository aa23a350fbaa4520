#include "glint/view/model_publisher.h"

#include <chrono>
#include <nlohmann/json.hpp>

#include "glint/view/model_blob.h"

namespace glint::view {

namespace {

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

ModelPublisher::ModelPublisher(Site& site, double every_s, Clock clock)
    : site_(site), every_s_(every_s), clock_(clock ? std::move(clock) : Clock(steady_seconds)) {}

bool ModelPublisher::due(bool force) const {
  return !published_any_ || force || every_s_ <= 0 || clock_() - last_s_ >= every_s_;
}

bool ModelPublisher::offer(const GaussianModel& m, const LiveStatus& s, bool force) {
  const double now = clock_();
  if (published_any_ && !force && every_s_ > 0 && now - last_s_ < every_s_) return false;
  const nlohmann::json status = {{"live", true},   {"state", s.state},         {"step", s.step},
                                 {"steps", s.steps}, {"splats", m.size()},     {"loss", s.loss},
                                 {"test_psnr", s.test_psnr}};
  std::vector<SiteFile> files;
  files.push_back({"/api/model.bin", encode_model_blob(m), "application/octet-stream"});
  site_.publish(std::move(files), status.dump());
  published_any_ = true;
  published_step_ = s.step;
  published_state_ = s.state;
  last_s_ = now;
  return true;
}

}  // namespace glint::view
