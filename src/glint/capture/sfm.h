#pragma once
// Structure-from-motion for a capture without poses: photos or a video in, a COLMAP
// dataset folder out (images/ + sparse/0, COLMAP's own files), through COLMAP's command
// line: feature extraction with one shared camera per image size, matching (exhaustive
// for a folder of photos, sequential for a video's frames), incremental mapping, and the
// largest model kept. The folder also keeps COLMAP's database and logs (colmap/) and a
// record of what produced it (glint-sfm.json), so the same images are not matched again.
#include <atomic>
#include <string>
#include <vector>

#include "glint/capture/colmap_output.h"

namespace glint::capture {

struct SfmOptions {
  std::string camera_model;     // empty: chosen per camera from EXIF and size (camera_choice.h)
  std::string matcher;          // empty: sequential for a video, exhaustive for photos up to
                                // exhaustive_up_to images, sequential beyond (completed
                                // exhaustively when it leaves images unregistered)
  long frames = 150;            // a video: about this many frames are kept
  int max_image_size = 1024;    // SIFT runs on images scaled to this longest side
  // Matching compares every feature of one image with every feature of the other on the
  // CPU: a pair's time grows with the square of this. At 1024 a phone capture of 67 frames
  // still registers every frame (docs/BENCHMARKS.md).
  int max_features = 1024;      // SIFT features kept per image
  // Exhaustive matching's pairs grow with the square of the image count, sequential's
  // (overlap plus quadratic overlap) linearly: at about 30 images they are as many.
  int exhaustive_up_to = 30;
  int sequential_overlap = 10;  // sequential matching (COLMAP's overlap): each image against
                                // those less than N places after it, and those 16, 32, 64,
                                // ... places after (quadratic overlap)
  bool redo = false;            // run again even when the folder holds this capture's result
  double min_registered = 0.5;  // fewer registered images than this fraction is an error
};

struct SfmCamera {
  std::string model;
  int width = 0, height = 0;
  double focal_px = 0;
  int images = 0;       // registered images that use it
  std::string reason;   // why this model
};

struct SfmSummary {
  std::string input, dataset;
  bool video = false;
  bool reused = false;          // an earlier run's result for the same input and options
  long video_frames = 0;        // a video: its frame count
  long images = 0;              // images given to COLMAP
  long registered = 0;          // in the model kept
  long models = 0;              // models COLMAP made
  ModelStats stats;             // of the model kept (model_analyzer)
  std::vector<SfmCamera> cameras;
  std::vector<std::string> unregistered;
  std::string matcher;          // "exhaustive", "sequential", or "sequential+exhaustive"
  std::string note;             // what Glint changed about the input, if anything
  double seconds_frames = 0, seconds_features = 0, seconds_matching = 0, seconds_mapping = 0, seconds_total = 0;
};

// What a front end hears while SfM runs.
class SfmObserver {
 public:
  virtual ~SfmObserver() = default;
  // A stage starts ("frames", "features", "matching", "mapping"); total units (0: unknown).
  virtual void stage(const std::string& name, long total) { (void)name, (void)total; }
  virtual void progress(long done, long total, const std::string& status) { (void)done, (void)total, (void)status; }
  virtual void stage_done(const std::string& status) { (void)status; }
  virtual void note(const std::string& line) { (void)line; }
  // The result, new or reused; called before run_sfm returns, and before it throws for
  // too few registered images.
  virtual void finished(const SfmSummary& summary) { (void)summary; }
};

// Runs SfM on `input` (a folder of photos or a video) into `dataset_dir`. Reuses the
// folder's result when glint-sfm.json records the same images and options (unless redo).
// A folder holding something else is never replaced. Work happens in
// `dataset_dir`.partial and is renamed into place when done. Throws glint::Error (one
// line) for bad input, a missing tool, a failed step or too few registered images (after
// writing the dataset, so it can be inspected); capture::Interrupted when `stop` is raised.
SfmSummary run_sfm(const std::string& input, const std::string& dataset_dir, const SfmOptions& options,
                   SfmObserver& observer, const std::atomic<bool>* stop = nullptr);

// The file name of the record in a dataset folder.
inline const char* kSfmRecord = "glint-sfm.json";

}  // namespace glint::capture
