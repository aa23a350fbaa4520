#pragma once
// The one place where Glint runs other programs (COLMAP, ffmpeg, ffprobe): how a program is
// found, started, followed line by line for progress, logged, stopped on Ctrl-C and turned
// into a one-line error. Every capture step goes through run_tool.
#include <atomic>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace glint::capture {

// A program and the Debian package that installs it (named in the error when it is missing).
struct Tool {
  std::string program;      // "colmap"
  std::string apt_package;  // "colmap"
};

const Tool kColmap{"colmap", "colmap"};
const Tool kFfmpeg{"ffmpeg", "ffmpeg"};
const Tool kFfprobe{"ffprobe", "ffmpeg"};

// The program's full path on PATH. A missing program throws glint::Error naming it and the
// apt command that installs it.
std::string find_tool(const Tool& tool);

// Thrown when the stop flag was raised while a program ran; the program has been ended.
class Interrupted : public std::runtime_error {
 public:
  Interrupted() : std::runtime_error("interrupted") {}
};

struct ToolRun {
  Tool tool;
  std::vector<std::string> args;
  // What the step is called in messages ("colmap mapper").
  std::string label;
  // Every line the program prints (stdout and stderr) is appended here; empty: not logged.
  std::string log_path;
  // Each line of output as it arrives (lines end at '\n' or '\r'), without the line end.
  std::function<void(const std::string&)> on_line;
  // When set, stdout is data, not text: its bytes go here as they arrive, and only stderr
  // is read as lines.
  std::function<void(const char* data, std::size_t size)> on_stdout_data;
  // Raised by a signal handler: the program is sent SIGTERM and run_tool throws Interrupted.
  const std::atomic<bool>* stop = nullptr;
};

// Runs the program to its end. A non-zero exit or a death by signal throws glint::Error:
// "<label> failed (exit N): <its last line of output>; full output in <log_path>".
// An exception thrown by a callback ends the program and propagates.
void run_tool(const ToolRun& run);

// A program's output shortened to one line for an error message: the last line that says
// something (COLMAP's glog prefix "E1205 10:11:12.345 file.cc:12] " removed).
std::string last_meaningful_line(const std::vector<std::string>& lines);

}  // namespace glint::capture
