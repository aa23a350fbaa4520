// capture/external_tool.h on small shell scripts: lines arrive as written (either line
// end), a failure is one line with the program's last words, a missing program names its
// apt package, and a raised stop flag ends a running program.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "glint/capture/external_tool.h"
#include "glint/core/error.h"
#include "test_support.h"

using namespace glint;
using namespace glint::capture;
using namespace glint::test;

namespace {
// PATH limited to a folder with one script `fake` (and the system's, for /bin/sh's tools).
struct FakeTool {
  TempDir dir;
  std::string old_path;
  explicit FakeTool(const std::string& body) {
    const std::string p = dir.str("fake");
    write_file(p, "#!/bin/sh\n" + body);
    ::chmod(p.c_str(), 0755);
    const char* path = std::getenv("PATH");
    old_path = path ? path : "";
    ::setenv("PATH", (dir.str() + ":" + old_path).c_str(), 1);
  }
  ~FakeTool() { ::setenv("PATH", old_path.c_str(), 1); }
};
const Tool kFake{"fake", "fake-package"};
}  // namespace

TEST(ExternalTool, FollowsLinesAndLogsThem) {
  FakeTool t("echo one; printf 'two\\rthree\\n'; echo four >&2; echo \"$1\"\n");
  std::vector<std::string> lines;
  ToolRun r;
  r.tool = kFake;
  r.args = {"arg with spaces"};
  r.log_path = t.dir.str("log.txt");
  r.on_line = [&](const std::string& l) { lines.push_back(l); };
  run_tool(r);
  EXPECT_EQ(lines, (std::vector<std::string>{"one", "two", "three", "four", "arg with spaces"}));
  const std::string log = read_file(r.log_path);
  EXPECT_NE(log.find("four"), std::string::npos) << log;
  EXPECT_NE(log.find("arg with spaces"), std::string::npos) << log;
}

TEST(ExternalTool, StdoutAsDataAndStderrAsLines) {
  FakeTool t("printf 'abc'; echo note >&2; printf 'def'\n");
  std::string data;
  std::vector<std::string> lines;
  ToolRun r;
  r.tool = kFake;
  r.on_stdout_data = [&](const char* d, std::size_t n) { data.append(d, n); };
  r.on_line = [&](const std::string& l) { lines.push_back(l); };
  run_tool(r);
  EXPECT_EQ(data, "abcdef");
  EXPECT_EQ(lines, (std::vector<std::string>{"note"}));
}

TEST(ExternalTool, FailureIsOneLineWithTheLastWords) {
  FakeTool t("echo working; echo 'E1205 10:11:12.345 9 db.cc:12] database is locked' >&2; echo '====='; exit 3\n");
  ToolRun r;
  r.tool = kFake;
  r.label = "fake mapper";
  r.log_path = t.dir.str("log.txt");
  try {
    run_tool(r);
    ADD_FAILURE() << "a failing program passed";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    EXPECT_NE(m.find("fake mapper failed (exit 3): database is locked"), std::string::npos) << m;
    EXPECT_NE(m.find(r.log_path), std::string::npos) << m;
  }
}

TEST(ExternalTool, MissingProgramNamesItsPackage) {
  try {
    find_tool({"glint-no-such-program", "glint-pkg"});
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("sudo apt-get install glint-pkg"), std::string::npos) << e.what();
  }
}

TEST(ExternalTool, StopFlagEndsTheProgram) {
  FakeTool t("echo started; exec sleep 30\n");
  std::atomic<bool> stop{false};
  ToolRun r;
  r.tool = kFake;
  r.stop = &stop;
  r.on_line = [&](const std::string&) { stop = true; };
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_THROW(run_tool(r), Interrupted);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10.0);
}
