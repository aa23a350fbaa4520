#include "glint/capture/video_frames.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "glint/capture/external_tool.h"
#include "glint/capture/frame_choice.h"
#include "glint/core/error.h"
#include "glint/io/image_io.h"

namespace glint::capture {

namespace fs = std::filesystem;

namespace {

// Runs a tool on the video and turns its failure into "<video>: not a readable video".
void run_on_video(const std::string& video, ToolRun run) {
  find_tool(run.tool);  // a missing tool is its own error
  std::vector<std::string> lines;
  auto user = run.on_line;
  run.on_line = [&](const std::string& l) {
    lines.push_back(l);
    if (user) user(l);
  };
  try {
    run_tool(run);
  } catch (const Interrupted&) {
    throw;
  } catch (const Error&) {
    throw Error(video, "not a readable video (" + run.tool.program + ": " + last_meaningful_line(lines) + ")");
  }
}

// Splits ffmpeg's PGM stream ("P5 W H 255\n" + W*H bytes, frame after frame) into frames.
class PgmStream {
 public:
  template <class F>
  void feed(const char* data, std::size_t n, F&& on_frame) {
    buf_.append(data, n);
    for (;;) {
      if (need_header_) {
        // Four whitespace-separated tokens, the last followed by one whitespace byte.
        std::size_t pos = 0;
        long v[4] = {0, 0, 0, 0};
        int tokens = 0;
        std::string magic;
        while (tokens < 4) {
          while (pos < buf_.size() && std::isspace(static_cast<unsigned char>(buf_[pos]))) ++pos;
          const std::size_t start = pos;
          while (pos < buf_.size() && !std::isspace(static_cast<unsigned char>(buf_[pos]))) ++pos;
          if (pos >= buf_.size()) return;  // wait for more bytes
          const std::string tok = buf_.substr(start, pos - start);
          if (tokens == 0) {
            if (tok != "P5") throw Error("ffmpeg: unexpected frame data (not PGM)");
          } else {
            v[tokens] = std::strtol(tok.c_str(), nullptr, 10);
          }
          ++tokens;
        }
        if (v[1] <= 0 || v[2] <= 0 || v[3] != 255 || v[1] > 1 << 15 || v[2] > 1 << 15)
          throw Error("ffmpeg: unexpected frame header");
        w_ = static_cast<int>(v[1]);
        h_ = static_cast<int>(v[2]);
        buf_.erase(0, pos + 1);
        need_header_ = false;
      }
      const std::size_t size = static_cast<std::size_t>(w_) * static_cast<std::size_t>(h_);
      if (buf_.size() < size) return;
      on_frame(reinterpret_cast<const std::uint8_t*>(buf_.data()), w_, h_);
      buf_.erase(0, size);
      need_header_ = true;
    }
  }

 private:
  std::string buf_;
  bool need_header_ = true;
  int w_ = 0, h_ = 0;
};

}  // namespace

VideoProbe probe_video(const std::string& video, const std::string& log_path) {
  VideoProbe p;
  double fps = 0;
  ToolRun run;
  run.tool = kFfprobe;
  run.label = "ffprobe";
  run.log_path = log_path;
  run.args = {"-v", "error", "-select_streams", "v:0", "-show_entries",
              "stream=width,height,nb_frames,avg_frame_rate,duration", "-of", "default=noprint_wrappers=1", video};
  run.on_line = [&](const std::string& l) {
    const auto eq = l.find('=');
    if (eq == std::string::npos) return;
    const std::string k = l.substr(0, eq), v = l.substr(eq + 1);
    if (k == "width") p.width = std::atoi(v.c_str());
    if (k == "height") p.height = std::atoi(v.c_str());
    if (k == "nb_frames") p.frames_estimate = std::atol(v.c_str());
    if (k == "duration") p.duration_s = std::atof(v.c_str());
    if (k == "avg_frame_rate") {
      long num = 0, den = 0;
      if (std::sscanf(v.c_str(), "%ld/%ld", &num, &den) == 2 && den > 0) fps = static_cast<double>(num) / den;
    }
  };
  run_on_video(video, run);
  if (p.width <= 0 || p.height <= 0) throw Error(video, "not a readable video (ffprobe finds no video stream in it)");
  if (p.frames_estimate <= 0 && p.duration_s > 0 && fps > 0) p.frames_estimate = std::lround(p.duration_s * fps);
  return p;
}

FrameSelection extract_sharpest_frames(const std::string& video, const std::string& out_dir, long frames,
                                       const std::string& log_path, const FrameProgress& progress,
                                       const std::atomic<bool>* stop) {
  const VideoProbe probe = probe_video(video, log_path);
  FrameSelection sel;

  // Pass 1: every frame, grey and at most 640 pixels on its longest side (blur shows at
  // that size, and the pass stays a fraction of a full decode's memory traffic).
  std::vector<double> scores;
  PgmStream pgm;
  ToolRun score;
  score.tool = kFfmpeg;
  score.label = "ffmpeg (scoring frames)";
  score.log_path = log_path;
  score.stop = stop;
  score.args = {"-nostdin", "-v", "error", "-i", video, "-map", "0:v:0", "-vf",
                "scale='if(gte(iw,ih),min(640,iw),-2)':'if(gte(iw,ih),-2,min(640,ih))',format=gray",
                "-fps_mode", "passthrough", "-f", "image2pipe", "-c:v", "pgm", "-"};
  score.on_stdout_data = [&](const char* d, std::size_t n) {
    pgm.feed(d, n, [&](const std::uint8_t* g, int w, int h) {
      scores.push_back(laplacian_variance(g, w, h));
      if (progress) progress("frames", static_cast<long>(scores.size()), std::max<long>(probe.frames_estimate, static_cast<long>(scores.size())));
    });
  };
  run_on_video(video, score);
  if (scores.empty()) throw Error(video, "not a readable video (ffmpeg decoded no frames)");
  sel.frames_read = static_cast<long>(scores.size());
  sel.kept = sharpest_per_window(scores, frames);
  for (long i : sel.kept) sel.kept_sharpness.push_back(scores[static_cast<std::size_t>(i)]);

  // Pass 2: the kept frames at full size. select's n counts decoded frames as pass 1 did.
  std::string expr;
  for (long i : sel.kept) expr += (expr.empty() ? "" : "+") + std::string("eq(n\\,") + std::to_string(i) + ")";
  fs::create_directories(out_dir);
  const std::string pattern = (fs::path(out_dir) / "glint_extract_%06d.jpg").string();
  long written = 0;
  ToolRun extract;
  extract.tool = kFfmpeg;
  extract.label = "ffmpeg (writing frames)";
  extract.log_path = log_path;
  extract.stop = stop;
  extract.args = {"-nostdin", "-v", "error", "-nostats", "-progress", "pipe:1", "-i", video, "-map", "0:v:0",
                  "-vf", "select='" + expr + "'", "-fps_mode", "passthrough", "-q:v", "2", "-start_number", "0",
                  pattern};
  extract.on_line = [&](const std::string& l) {
    if (l.rfind("frame=", 0) == 0) {
      written = std::atol(l.c_str() + 6);
      if (progress) progress("writing frames", written, static_cast<long>(sel.kept.size()));
    }
  };
  run_on_video(video, extract);
  for (std::size_t k = 0; k < sel.kept.size(); ++k) {
    char from[64], to[64];
    std::snprintf(from, sizeof from, "glint_extract_%06zu.jpg", k);
    std::snprintf(to, sizeof to, "frame_%06ld.jpg", sel.kept[k]);
    const fs::path src = fs::path(out_dir) / from;
    std::error_code ec;
    if (!fs::exists(src, ec))
      throw Error(video, "ffmpeg wrote " + std::to_string(k) + " of the " + std::to_string(sel.kept.size()) +
                             " chosen frames; its output is in " + log_path);
    fs::rename(src, fs::path(out_dir) / to);
    sel.names.push_back(to);
  }
  const ImageInfo info = read_image_info((fs::path(out_dir) / sel.names[0]).string());
  sel.width = info.width;
  sel.height = info.height;
  return sel;
}

}  // namespace glint::capture
