#pragma once
// Helpers every test file shares: locating ../shared/datasets (skip visibly on a user's
// clone, fail under CI where it must exist), temporary folders, and running the CLI.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace glint::test {

// Path of a shared dataset; skips the calling test when ../shared is absent, except under
// CI (environment variable CI set), where a missing dataset is a failure.
#define GLINT_REQUIRE_SHARED(var, rel)                                                        \
  std::string var = std::string(GLINT_SHARED_DATASETS) + "/" + (rel);                         \
  if (!std::filesystem::exists(var)) {                                                         \
    if (std::getenv("CI")) FAIL() << "shared dataset missing under CI: " << var;               \
    GTEST_SKIP() << "shared dataset not found (" << var << "); skipping";                      \
  }

// A fresh empty folder under the system temp dir, removed when the object dies.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::filesystem::path& path() const { return path_; }
  std::string str(const std::string& rel = "") const { return (path_ / rel).string(); }

 private:
  std::filesystem::path path_;
};

struct CommandResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs the glint executable with the given argument string (shell-quoted by the caller);
// `env`: assignments put before the command ("PATH='/x'").
CommandResult run_glint(const std::string& args, const std::string& env = "");

void write_file(const std::string& path, const std::string& bytes);
std::string read_file(const std::string& path);

}  // namespace glint::test
