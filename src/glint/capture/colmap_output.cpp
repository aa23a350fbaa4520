#include "glint/capture/colmap_output.h"

#include <cstdio>
#include <cstring>

namespace glint::capture {

namespace {

// The text after the first occurrence of `key`, or nullptr.
const char* after(const std::string& line, const char* key) {
  const auto at = line.find(key);
  return at == std::string::npos ? nullptr : line.c_str() + at + std::strlen(key);
}

}  // namespace

std::optional<Count> parse_extracted(const std::string& line) {
  const char* p = after(line, "Processed file [");
  long i = 0, n = 0;
  if (!p || std::sscanf(p, "%ld/%ld]", &i, &n) != 2 || n <= 0 || i < 0 || i > n) return std::nullopt;
  return Count{i, n};
}

std::optional<Count> parse_matched(const std::string& line) {
  if (const char* p = after(line, "Matching block [")) {
    long a = 0, na = 0, b = 0, nb = 0;
    if (std::sscanf(p, "%ld/%ld, %ld/%ld]", &a, &na, &b, &nb) != 4 || na <= 0 || nb <= 0 || a < 1 || a > na ||
        b < 1 || b > nb)
      return std::nullopt;
    return Count{(a - 1) * nb + b, na * nb};
  }
  if (const char* p = after(line, "Matching image [")) {
    long i = 0, n = 0;
    if (std::sscanf(p, "%ld/%ld]", &i, &n) != 2 || n <= 0 || i < 1 || i > n) return std::nullopt;
    return Count{i, n};
  }
  return std::nullopt;
}

std::optional<long> parse_registered(const std::string& line) {
  if (after(line, "Initializing with image pair #")) return 2;
  const char* p = after(line, "Registering image #");
  if (!p) return std::nullopt;
  const char* open = std::strchr(p, '(');
  long k = 0;
  if (!open || std::sscanf(open, "(%ld)", &k) != 1 || k < 0) return std::nullopt;
  return k;
}

bool starts_new_model(const std::string& line) { return line.find("Finding good initial image pair") != std::string::npos; }

bool parse_model_stat(const std::string& line, ModelStats& s) {
  struct IntKey {
    const char* key;
    long* value;
  };
  // "Registered images:" before "Images:", which it contains.
  for (const IntKey& k : {IntKey{"Registered images:", &s.registered}, IntKey{"Cameras:", &s.cameras},
                          IntKey{"Points:", &s.points}, IntKey{"Observations:", &s.observations}}) {
    if (const char* p = after(line, k.key)) return std::sscanf(p, "%ld", k.value) == 1;
  }
  if (line.find("Registered") == std::string::npos)
    if (const char* p = after(line, "Images:")) return std::sscanf(p, "%ld", &s.images) == 1;
  if (const char* p = after(line, "Mean track length:")) return std::sscanf(p, "%lf", &s.mean_track_length) == 1;
  if (const char* p = after(line, "Mean reprojection error:"))
    return std::sscanf(p, "%lf", &s.mean_reprojection_px) == 1;
  return false;
}

}  // namespace glint::capture
