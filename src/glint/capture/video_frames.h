#pragma once
// A video cut into training frames with ffmpeg: about N frames spread over the clip, the
// sharpest of each window (capture/frame_choice.h), written as JPEG files named after
// their frame number so that name order is time order.
#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace glint::capture {

struct VideoProbe {
  int width = 0, height = 0;   // as stored (before any rotation the player applies)
  long frames_estimate = 0;    // from the container; 0 when it does not say
  double duration_s = 0;
};

// ffprobe's view of the clip's first video stream. A file ffprobe cannot read, or one
// without a video stream, throws glint::Error "<video>: not a readable video (...)".
VideoProbe probe_video(const std::string& video, const std::string& log_path);

struct FrameSelection {
  long frames_read = 0;           // every frame of the clip
  std::vector<long> kept;         // their indices, ascending
  std::vector<double> kept_sharpness;
  std::vector<std::string> names; // file names written, one per kept frame
  int width = 0, height = 0;      // of the written frames
};

// (done, total) of a step; total is an estimate while the clip is read.
using FrameProgress = std::function<void(const char* step, long done, long total)>;

// Reads the clip once at reduced size to score every frame, then writes the chosen frames
// at full size into out_dir as frame_NNNNNN.jpg. Throws glint::Error for an unreadable
// clip, capture::Interrupted when `stop` is raised.
FrameSelection extract_sharpest_frames(const std::string& video, const std::string& out_dir, long frames,
                                       const std::string& log_path, const FrameProgress& progress,
                                       const std::atomic<bool>* stop);

}  // namespace glint::capture
