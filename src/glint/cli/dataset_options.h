#pragma once
// The dataset flags every command that reads a dataset shares (info, train, eval, ...).
#include <CLI/CLI.hpp>
#include <string>

#include "glint/io/dataset.h"

namespace glint::cli {

struct DatasetFlags {
  DatasetOptions options;
  std::string background;  // "white", "black" or "R,G,B" in [0,1]
};

void add_dataset_flags(CLI::App& cmd, DatasetFlags& flags);

// Options with the background parsed; throws glint::Error for a malformed colour.
DatasetOptions resolve(const DatasetFlags& flags);

}  // namespace glint::cli
