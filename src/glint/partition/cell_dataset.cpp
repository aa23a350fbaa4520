#include "glint/partition/cell_dataset.h"

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "glint/core/error.h"
#include "glint/io/atomic_file.h"
#include "glint/io/json_file.h"

namespace glint::partition {

namespace fs = std::filesystem;

Dataset cell_dataset(const Dataset& full, const Plan& plan, std::size_t cell) {
  const Cell& c = plan.cells.at(cell);
  Dataset d;
  d.root = full.root;
  d.format = full.format;
  d.val_count = full.val_count;
  d.background = full.background;
  for (std::size_t i : c.train_views) d.train.push_back(full.train.at(i));
  for (std::size_t i : c.test_views) d.test.push_back(full.test.at(i));
  d.points = cell_points(plan, c, full.points);
  d.points_random = full.points_random;
  if (d.points.size() == 0)
    throw Error(full.root, "cell " + std::to_string(cell) + " has no initial points in its expanded rectangle");
  scene_extent(d);
  return d;
}

std::string cell_fingerprint(const Plan& plan, std::size_t cell) {
  const Cell& c = plan.cells.at(cell);
  std::string s = plan.dataset + '\n';
  for (const std::string& a : plan.dataset_args) s += a + '\n';
  char buf[64];
  for (const GroundRect& r : {c.core, c.expanded, plan.bounds})
    for (double x : {r.u0, r.u1, r.v0, r.v1}) {
      std::snprintf(buf, sizeof buf, "%.17g,", x);
      s += buf;
    }
  for (const auto* list : {&c.train_views, &c.test_views}) {
    s += '\n';
    for (std::size_t i : *list) s += std::to_string(i) + ',';
  }
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a 64
  for (unsigned char ch : s) {
    h ^= ch;
    h *= 1099511628211ull;
  }
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string cell_record_path(const std::string& folder) { return (fs::path(folder) / "done.json").string(); }

void write_cell_record(const std::string& folder, const CellRecord& r) {
  nlohmann::json j = {{"cell", r.cell},
                      {"fingerprint", r.fingerprint},
                      {"steps", r.steps},
                      {"splats", r.splats},
                      {"options", nlohmann::json::parse(r.options)}};
  write_file_atomic(cell_record_path(folder), j.dump(2) + "\n");
}

std::optional<CellRecord> read_cell_record(const std::string& folder) {
  const std::string path = cell_record_path(folder);
  if (!fs::exists(path)) return std::nullopt;
  const nlohmann::json j = read_json_file(path);
  CellRecord r;
  try {
    r.cell = j.at("cell").get<std::size_t>();
    r.fingerprint = j.at("fingerprint").get<std::string>();
    r.steps = j.at("steps").get<long>();
    r.splats = j.at("splats").get<std::size_t>();
    r.options = j.at("options").dump();
  } catch (const nlohmann::json::exception&) {
    throw Error(path, "damaged (expected cell, fingerprint, steps, splats and options); train the cell again");
  }
  return r;
}

void remove_cell_record(const std::string& folder) {
  std::error_code ec;
  fs::remove(cell_record_path(folder), ec);
  if (ec) throw Error(cell_record_path(folder), "cannot remove: " + ec.message());
}

}  // namespace glint::partition
