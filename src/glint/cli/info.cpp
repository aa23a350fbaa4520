#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "glint/backend/backend_registry.h"
#include "glint/cli/commands.h"
#include "glint/cli/dataset_options.h"
#include "glint/core/error.h"

namespace glint::cli {

namespace {

struct Range {
  double lo = 1e300, hi = -1e300;
  void add(double v) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  std::string str(const char* fmt = "%.2f") const {
    char a[64], b[64];
    std::snprintf(a, sizeof a, fmt, lo);
    std::snprintf(b, sizeof b, fmt, hi);
    return lo == hi ? std::string(a) : std::string(a) + " .. " + b;
  }
};

bool is_model_file(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext == ".ply" || ext == ".splat" || ext == ".spz";
}

nlohmann::json dataset_summary(const Dataset& d) {
  std::map<std::string, int> models, sizes;
  Range fx, fy, cx, cy;
  for (const auto* split : {&d.train, &d.test})
    for (const View& v : *split) {
      const Camera& c = v.camera;
      std::string m = v.source.lens.model;
      if (v.undistort) m += " (undistorted to PINHOLE)";
      models[m]++;
      sizes[std::to_string(c.width) + "x" + std::to_string(c.height)]++;
      fx.add(c.fx);
      fy.add(c.fy);
      cx.add(c.cx);
      cy.add(c.cy);
    }
  nlohmann::json j;
  j["path"] = d.root;
  j["format"] = format_name(d.format);
  j["train"] = d.train.size();
  j["test"] = d.test.size();
  j["val"] = d.val_count;
  j["resolutions"] = sizes;
  j["camera_models"] = models;
  j["fx"] = {fx.lo, fx.hi};
  j["fy"] = {fy.lo, fy.hi};
  j["cx"] = {cx.lo, cx.hi};
  j["cy"] = {cy.lo, cy.hi};
  j["points"] = d.points.size();
  j["points_random"] = d.points_random;
  j["center"] = {d.center.x, d.center.y, d.center.z};
  j["radius"] = d.radius;
  j["background"] = d.background;
  j["masked_views"] = d.masked_views();
  if (!d.masks.empty()) j["masks"] = d.masks;
  return j;
}

void print_dataset(const Dataset& d, const nlohmann::json& j) {
  std::printf("dataset      %s\n", d.root.c_str());
  std::printf("format       %s\n", format_name(d.format));
  std::printf("cameras      %zu train, %zu test", d.train.size(), d.test.size());
  if (d.val_count) std::printf(", %d val (unused)", d.val_count);
  std::printf("\n");
  std::string sizes;
  for (auto& [k, v] : j["resolutions"].items()) sizes += (sizes.empty() ? "" : ", ") + k + " (" + std::to_string(v.get<int>()) + ")";
  std::printf("resolution   %s\n", sizes.c_str());
  std::string models;
  for (auto& [k, v] : j["camera_models"].items()) models += (models.empty() ? "" : ", ") + k + " (" + std::to_string(v.get<int>()) + ")";
  std::printf("camera model %s\n", models.c_str());
  auto range = [&](const char* key) {
    Range r{j[key][0].get<double>(), j[key][1].get<double>()};
    return r.str();
  };
  std::printf("intrinsics   fx %s  fy %s  cx %s  cy %s (px)\n", range("fx").c_str(), range("fy").c_str(),
              range("cx").c_str(), range("cy").c_str());
  if (d.points_random)
    std::printf("points       none in the dataset; %zu random points sampled where the cameras look\n", d.points.size());
  else
    std::printf("points       %zu sparse points\n", d.points.size());
  std::printf("scene        centre (%.4f, %.4f, %.4f), radius %.4f\n", d.center.x, d.center.y, d.center.z, d.radius);
  std::printf("background   (%.3g, %.3g, %.3g)\n", d.background[0], d.background[1], d.background[2]);
  if (!d.masks.empty())
    std::printf("masks        %zu of %zu views (%s)\n", d.masked_views(), d.train.size() + d.test.size(),
                d.masks == "alpha" ? "the images' alpha" : d.masks.c_str());
}

// Every backend's devices on this machine, and what --backend auto takes.
void print_devices(bool json) {
  std::string auto_choice;
  const std::vector<DeviceEntry> devices = backend_devices(&auto_choice);
  if (json) {
    nlohmann::json j;
    j["auto"] = auto_choice;
    for (const DeviceEntry& d : devices)
      j["devices"].push_back({{"backend", d.backend}, {"index", d.index}, {"name", d.name}, {"detail", d.detail},
                              {"usable", d.usable}, {"note", d.note}});
    std::printf("%s\n", j.dump(2).c_str());
    return;
  }
  for (const DeviceEntry& d : devices) {
    std::string head = d.backend;
    if (d.index >= 0 && d.backend == "vulkan") head += " --device " + std::to_string(d.index);
    std::printf("%-20s %s", head.c_str(), d.name.empty() ? "-" : d.name.c_str());
    if (!d.detail.empty()) std::printf(" (%s)", d.detail.c_str());
    if (!d.note.empty()) std::printf("%s%s", d.name.empty() ? " " : "; ", d.note.c_str());
    std::printf("\n");
  }
  std::printf("--backend auto takes %s\n", auto_choice.c_str());
}

}  // namespace

void add_info(CLI::App& app) {
  struct Args {
    std::string path;
    bool json = false;
    bool devices = false;
    DatasetFlags flags;
  };
  auto args = std::make_shared<Args>();
  auto* sub = app.add_subcommand("info", "Summarise a dataset folder or a splat file (.ply / .splat / .spz)");
  sub->add_option("path", args->path, "Dataset folder, transforms .json, or splat file");
  sub->add_flag("--json", args->json, "Print the dataset summary (or the devices) as JSON");
  sub->add_flag("--devices", args->devices,
                "List the devices each backend can use here (CPU, CUDA, Vulkan with --device numbers) and what "
                "--backend auto takes");
  add_dataset_flags(*sub, args->flags);
  sub->callback([args] {
    if (args->devices) {
      print_devices(args->json);
      return;
    }
    if (args->path.empty()) throw CLI::RequiredError("path");
    std::error_code ec;
    if (is_model_file(args->path) && !std::filesystem::is_directory(args->path, ec)) {
      print_model_info(args->path);
      return;
    }
    Dataset d = load_dataset(args->path, resolve(args->flags));
    nlohmann::json j = dataset_summary(d);
    if (args->json)
      std::printf("%s\n", j.dump(2).c_str());
    else
      print_dataset(d, j);
  });
}

}  // namespace glint::cli
