#pragma once
// A plan on disk: PLAN/plan.json (cells, bounds, views, counts, the source dataset and
// every setting) and the folders the cells' runs write into.
#include <string>

#include "glint/partition/plan.h"

namespace glint::partition {

// PLAN/plan.json for a plan folder (or the path itself when it names a .json file).
std::string plan_json_path(const std::string& plan);
// Whether `path` is a plan: a folder holding plan.json, or a plan .json file.
bool is_plan(const std::string& path);
// The folder of a plan given as a folder or as its plan.json.
std::string plan_folder(const std::string& plan);

// Writes plan.json atomically.
void save_plan(const std::string& plan_dir, const Plan& plan);

// Reads and checks a plan: every field present and of its type, cells numbered 0..n-1 with
// none missing, rectangles finite and non-empty, the cores tiling the bounds (no gap, no
// overlap), view indices in range and unrepeated. Throws glint::Error naming plan.json and,
// where it applies, the cell.
Plan load_plan(const std::string& plan);

// Checks that `data` is the dataset the plan was made for (its counts of views and
// points); throws glint::Error naming plan.json.
void check_plan_dataset(const std::string& plan, const Plan& p, const Dataset& data);

// PLAN/cells/K: where `glint train PLAN --cell K` writes by default.
std::string cell_folder(const std::string& plan_dir, std::size_t cell);

}  // namespace glint::partition
