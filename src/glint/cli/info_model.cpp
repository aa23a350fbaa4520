// `glint info` on a splat file: what is in it, how big it is, and numbers that reveal a
// broken or badly trained model at a glance (huge bounds, many transparent or giant splats).
#include <cstdio>
#include <filesystem>

#include "glint/cli/commands.h"
#include "glint/core/error.h"
#include "glint/core/model_stats.h"
#include "glint/io/model_file.h"

namespace glint::cli {
namespace {

std::string human_size(std::uintmax_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, ++u;
  char buf[64];
  if (u == 0) std::snprintf(buf, sizeof buf, "%ju B", bytes);
  else std::snprintf(buf, sizeof buf, "%.1f %s (%ju bytes)", v, units[u], bytes);
  return buf;
}

void row(const char* label, const std::string& value) { std::printf("%-14s %s\n", label, value.c_str()); }

std::string fmt(const char* f, double a, double b) {
  char buf[128];
  std::snprintf(buf, sizeof buf, f, a, b);
  return buf;
}

std::string per_axis(const double lo[3], const double hi[3]) {
  std::string s;
  const char* axes[] = {"x", "y", "z"};
  for (int c = 0; c < 3; ++c) s += std::string(c ? "  " : "") + axes[c] + fmt(" [%10.4g, %10.4g]", lo[c], hi[c]);
  return s;
}

std::string summary(const ValueSummary& v) {
  return fmt("min %-10.4g mean %-10.4g", v.min, v.mean) + fmt(" median %-10.4g max %.4g", v.median, v.max);
}

}  // namespace

void print_model_info(const std::string& path) {
  const ModelFormat format = model_format_for(path);
  const GaussianModel m = load_model(path);
  const ModelStats st = compute_model_stats(m);
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);

  row("file", path);
  row("format", format == ModelFormat::Ply     ? "PLY (graphdeco)"
                : format == ModelFormat::Splat ? ".splat (antimatter15)"
                                               : ".spz (Niantic, quantised)");
  row("file size", ec ? "unknown" : human_size(size));
  row("splats", std::to_string(st.count));
  row("SH degree", std::to_string(st.sh_degree));
  row("2D filter", m.antialiased ? "yes (trained with --antialiased; rendered with it)" : "no");
  if (st.count == 0) return;
  row("bounds", per_axis(st.bounds_min, st.bounds_max));
  row("bounds 1-99%", per_axis(st.robust_min, st.robust_max));
  row("opacity", summary(st.opacity));
  char below[96];
  std::snprintf(below, sizeof below, "%zu (%.1f%%)", st.nearly_transparent,
                100.0 * static_cast<double>(st.nearly_transparent) / static_cast<double>(st.count));
  row("  below 0.005", below);
  row("largest axis", summary(st.max_scale));
  row("anisotropy", fmt("median %.4g (largest / smallest axis)", st.anisotropy_median, 0));
}

}  // namespace glint::cli
