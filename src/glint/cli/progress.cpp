#include "glint/cli/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>

namespace glint::cli {

std::string format_duration(double s) {
  char buf[32];
  if (!std::isfinite(s) || s < 0) return "?";
  if (s < 60) {
    std::snprintf(buf, sizeof buf, "%.1fs", s);
  } else if (s < 3600) {
    std::snprintf(buf, sizeof buf, "%dm%02ds", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%dh%02dm", static_cast<int>(s) / 3600, (static_cast<int>(s) / 60) % 60);
  }
  return buf;
}

Progress::Progress(std::string label, long total, std::FILE* out)
    : label_(std::move(label)), total_(std::max(1L, total)), out_(out), tty_(isatty(fileno(out)) != 0) {
  start_ = last_draw_ = std::chrono::steady_clock::now();
}

void Progress::update(long done, const std::string& status) {
  done_ = done;
  auto now = std::chrono::steady_clock::now();
  double since = std::chrono::duration<double>(now - last_draw_).count();
  if (drawn_ && since < (tty_ ? 0.1 : 10.0)) return;
  draw(done, status, false);
}

void Progress::finish(const std::string& status) { draw(done_ < total_ ? done_ : total_, status, true); }

void Progress::draw(long done, const std::string& status, bool final) {
  auto now = std::chrono::steady_clock::now();
  last_draw_ = now;
  drawn_ = true;
  double elapsed = std::chrono::duration<double>(now - start_).count();
  double frac = std::clamp(static_cast<double>(done) / total_, 0.0, 1.0);
  // A rate over the first instants of a stage is noise (one unit done in microseconds).
  double rate = elapsed > 0 && (elapsed > 0.25 || final) ? done / elapsed : 0;
  double eta = rate > 0 ? (total_ - done) / rate : -1;
  const int width = 24;
  int filled = static_cast<int>(frac * width);
  std::string bar(static_cast<std::size_t>(filled), '#');
  bar.resize(width, '.');
  char rate_buf[32];
  std::snprintf(rate_buf, sizeof rate_buf, rate >= 10 ? "%.0f/s" : "%.2f/s", rate);
  std::string timing = final ? "took " + format_duration(elapsed) : "ETA " + format_duration(eta);
  std::fprintf(out_, "%s%s [%s] %ld/%ld %3.0f%% %s %s%s%s", tty_ ? "\r\033[K" : "", label_.c_str(), bar.c_str(),
               done, total_, 100 * frac, rate_buf, timing.c_str(), status.empty() ? "" : "  ", status.c_str());
  if (final || !tty_) std::fputc('\n', out_);
  std::fflush(out_);
}

}  // namespace glint::cli
