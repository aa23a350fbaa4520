#pragma once
// A progress bar for long work: fraction, rate, ETA and a caller-supplied status text.
// On a terminal it redraws one line at most ten times a second; into a file or pipe it
// writes a plain line every ten seconds so logs stay readable.
#include <chrono>
#include <cstdio>
#include <string>

namespace glint::cli {

class Progress {
 public:
  Progress(std::string label, long total, std::FILE* out = stderr);
  // Reports that `done` of `total` units are finished; `status` is appended (e.g. loss).
  void update(long done, const std::string& status = "");
  // For work whose size becomes known (or changes) after it started.
  void set_total(long total) { total_ = total < 1 ? 1 : total; }
  // Draws the final state and ends the line.
  void finish(const std::string& status = "");

 private:
  void draw(long done, const std::string& status, bool final);

  std::string label_;
  long total_;
  std::FILE* out_;
  bool tty_;
  std::chrono::steady_clock::time_point start_, last_draw_;
  bool drawn_ = false;
  long done_ = 0;
};

// "1h02m", "3m05s", "12.3s"
std::string format_duration(double seconds);

}  // namespace glint::cli
