#include "glint/cli/sfm_run.h"

#include <cstdio>
#include <memory>

#include "glint/capture/camera_choice.h"
#include "glint/cli/progress.h"

namespace glint::cli {

namespace {

const char* const kSfmFlags[] = {"--frames", "--camera-model", "--matcher", "--sfm-size", "--sfm-features", "--redo-sfm"};

void print_summary(const capture::SfmSummary& s) {
  if (s.reused)
    std::printf("SfM: reusing %s (made earlier from the same input and settings; --redo-sfm runs it again)\n",
                s.dataset.c_str());
  std::printf("SfM: %ld of %ld %s registered%s, %ld points, mean reprojection error %.2f px, mean track length %.1f\n",
              s.registered, s.images, s.video ? "frames" : "images",
              s.models > 1 ? (" (largest of " + std::to_string(s.models) + " models)").c_str() : "", s.stats.points,
              s.stats.mean_reprojection_px, s.stats.mean_track_length);
  for (std::size_t i = 0; i < s.cameras.size(); ++i) {
    const capture::SfmCamera& c = s.cameras[i];
    std::printf("  camera %zu: %s %dx%d, focal %.0f px, %d %s%s\n", i + 1, c.model.c_str(), c.width, c.height,
                c.focal_px, c.images, c.images == 1 ? "image" : "images",
                c.reason.empty() ? "" : (" (" + c.reason + ")").c_str());
  }
  if (!s.note.empty()) std::printf("  %s\n", s.note.c_str());
  if (!s.unregistered.empty()) {
    std::string list;
    const std::size_t shown = std::min<std::size_t>(s.unregistered.size(), 5);
    for (std::size_t i = 0; i < shown; ++i) list += (i ? ", " : "") + s.unregistered[i];
    if (s.unregistered.size() > shown) list += " (+" + std::to_string(s.unregistered.size() - shown) + " more)";
    std::printf("  not registered: %s\n", list.c_str());
  }
  std::string times;
  if (s.video) times += "frames " + format_duration(s.seconds_frames) + ", ";
  times += "features " + format_duration(s.seconds_features) + ", matching (" + s.matcher + ") " +
           format_duration(s.seconds_matching) + ", mapping " + format_duration(s.seconds_mapping) + ", total " +
           format_duration(s.seconds_total);
  std::printf("  %s%s\n", s.reused ? "took then: " : "time: ", times.c_str());
  std::printf("  dataset: %s (images/, sparse/0; COLMAP's database and logs in colmap/)\n", s.dataset.c_str());
  std::fflush(stdout);
}

// A progress bar per stage; a stage whose total is not known yet shows once it is.
class SfmProgressBar final : public capture::SfmObserver {
 public:
  explicit SfmProgressBar(bool quiet) : quiet_(quiet) {}
  void stage(const std::string& name, long total) override {
    total_ = total;
    // The bar's clock starts with the stage, even when its size is known only later.
    if (!quiet_) bar_ = std::make_unique<Progress>("sfm " + name, std::max(1L, total));
  }
  void progress(long done, long total, const std::string& status) override {
    if (!bar_) return;
    if (total != total_) {
      total_ = total;
      bar_->set_total(total);
    }
    if (total_ > 0) bar_->update(done, status);
  }
  void stage_done(const std::string& status) override {
    if (!bar_) return;
    if (total_ <= 0) bar_->update(1);  // a stage that never said its size: finished is all
    bar_->finish(status);
    bar_.reset();
  }
  void note(const std::string& line) override {
    if (!quiet_) std::fprintf(stderr, "sfm: %s\n", line.c_str());
  }
  void finished(const capture::SfmSummary& s) override { print_summary(s); }

 private:
  bool quiet_;
  long total_ = 0;
  std::unique_ptr<Progress> bar_;
};

}  // namespace

void add_sfm_flags(CLI::App& cmd, capture::SfmOptions& o) {
  auto* g = "Structure from motion (photos or a video without poses)";
  cmd.add_option("--frames", o.frames, "A video: keep about this many frames, the sharpest of each window")
      ->check(CLI::PositiveNumber)->capture_default_str()->group(g);
  cmd.add_option("--camera-model", o.camera_model,
                 "COLMAP camera model shared by the images (default: chosen from EXIF and image size)")
      ->check(CLI::IsMember(capture::supported_camera_models()))->group(g);
  cmd.add_option("--matcher", o.matcher,
                 "exhaustive (every pair) or sequential (each image with those less than " +
                     std::to_string(o.sequential_overlap) +
                     " places after it in name order, and those 16, 32, 64, ... places after); default: exhaustive for up to " +
                     std::to_string(o.exhaustive_up_to) + " photos, sequential for more (a phone names its photos "
                     "in capture order) and for a video's frames")
      ->check(CLI::IsMember({"exhaustive", "sequential"}))->group(g);
  cmd.add_option("--sfm-size", o.max_image_size, "Longest image side SfM's feature detector works at")
      ->check(CLI::Range(100, 10000))->capture_default_str()->group(g);
  cmd.add_option("--sfm-features", o.max_features, "SIFT features per image")
      ->check(CLI::Range(100, 100000))->capture_default_str()->group(g);
  cmd.add_flag("--redo-sfm", o.redo, "Run SfM again even when the output holds a result for the same input")->group(g);
}

std::vector<std::string> sfm_flags_given(const CLI::App& cmd) {
  std::vector<std::string> given;
  for (const char* f : kSfmFlags) {
    const CLI::Option* o = cmd.get_option_no_throw(f);
    if (o && o->count() > 0) given.push_back(f);
  }
  return given;
}

capture::SfmSummary run_sfm_with_progress(const std::string& input, const std::string& dataset_dir,
                                          const capture::SfmOptions& options, bool quiet,
                                          const std::atomic<bool>* stop) {
  SfmProgressBar bar(quiet);
  return capture::run_sfm(input, dataset_dir, options, bar, stop);
}

}  // namespace glint::cli
