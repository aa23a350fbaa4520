// --backend on every command that renders: the CPU by name, auto, and a backend this build
// or machine lacks as one line and exit 2, before any work is done. Both build kinds: asked
// for by name, cuda without a device says that no device was found (a CUDA build) or that
// the build has no CUDA; auto falls back to the CPU silently on a machine without an
// NVIDIA GPU (every CI machine), and with one line where a GPU is installed that CUDA
// cannot use.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "glint/backend/backend_registry.h"
#include "glint/backend/gpu_presence.h"
#include "glint/core/error.h"
#include "test_support.h"

using namespace glint;
using namespace glint::test;

namespace {
const std::string kDemo = std::string(GLINT_SOURCE_DIR) + "/data/demo";
constexpr bool kCudaBuild = GLINT_TEST_CUDA_BUILD;
// What an unavailable cuda is said to be in this build.
const char* const kNoCuda = kCudaBuild ? "no CUDA device was found" : "built without CUDA";
}

TEST(BackendCli, UnavailableBackendIsOneLineAndExitTwo) {
  if (backend_available("cuda")) GTEST_SKIP() << "this build and machine have CUDA";
  TempDir d;
  for (const std::string& cmd :
       {"train '" + kDemo + "' -o '" + d.str("t") + "' --steps 2", "eval missing.ply '" + kDemo + "'",
        "render missing.ply '" + kDemo + "' -o '" + d.str("r") + "'",
        "relight missing.ply --cameras '" + kDemo + "' --lights '" + kDemo + "/lights.json' -o '" + d.str("l") + "'",
        "demo -o '" + d.str("demo") + "'"}) {
    CommandResult r = run_glint(cmd + " --backend cuda");
    EXPECT_EQ(r.exit_code, 2) << cmd;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << cmd << ": " << r.err;
    EXPECT_NE(r.err.find(kNoCuda), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("built without CUDA") != std::string::npos, !kCudaBuild) << r.err;
  }
  CommandResult r = run_glint("train '" + kDemo + "' --backend metal");
  EXPECT_EQ(r.exit_code, 2);
}

TEST(BackendCli, TrainOnTheCpuByNameRecordsItAndKeepsAnExplicitZeroWeight) {
  TempDir d;
  // --normal-weight 0 is the default value; given on the command line it still wins over
  // the preset's 0.05.
  CommandResult r = run_glint("train '" + kDemo + "' -o '" + d.str("out") +
                              "' --steps 3 --downscale 4 -q --backend cpu --preset lightable --normal-weight 0");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(read_file(d.str("out/eval.json")));
  EXPECT_EQ(j["backend"], "cpu");
  const std::string device = j["device"].get<std::string>();
  EXPECT_NE(device.find(" kernels, "), std::string::npos) << device;
  EXPECT_FALSE(j.contains("peak_device_memory_mb")) << "the CPU has no device memory of its own";
  EXPECT_EQ(j["options"]["geometry"][0].get<double>(), 0.0);   // normal weight
  EXPECT_GT(j["options"]["geometry"][2].get<double>(), 0.0);   // flattening from the preset
  EXPECT_TRUE(j["options"]["random_background"].get<bool>());
}

TEST(BackendCli, AutoFallsBackToTheCpuSilentlyWithoutAGpu) {
  if (backend_available("cuda")) GTEST_SKIP() << "this build and machine have CUDA";
  // A note only where there is a GPU to say something about.
  const bool noted_expected = nvidia_gpu_installed();
  // eval opens its backend before it reads the model: the note (if any), then the error
  for (const std::string& flag : {std::string(" --backend auto"), std::string()}) {
    CommandResult r = run_glint("eval missing.ply '" + kDemo + "'" + flag);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    const auto lines = std::count(r.err.begin(), r.err.end(), '\n');
    const bool noted = r.err.find("falling back to the CPU") != std::string::npos;
    EXPECT_EQ(noted, noted_expected) << r.err;
    EXPECT_EQ(lines, noted_expected ? 2 : 1) << r.err;
    EXPECT_EQ(r.err.find("CUDA") != std::string::npos || r.err.find("GPU") != std::string::npos, noted_expected)
        << r.err;
    if (noted_expected) {
      EXPECT_EQ(r.err.rfind("glint: --backend auto: an NVIDIA GPU is installed but ", 0), 0u) << r.err;
      EXPECT_LT(r.err.find("falling back"), r.err.find('\n')) << "the note is one line: " << r.err;
    }
    EXPECT_NE(r.err.find("missing.ply"), std::string::npos) << r.err;
  }
}

TEST(BackendRegistry, CudaWithoutADeviceOrBuild) {
  if (backend_available("cuda")) GTEST_SKIP() << "this build and machine have CUDA";
  std::string why;
  EXPECT_FALSE(backend_available("cuda", &why));
  EXPECT_NE(why.find(kNoCuda), std::string::npos) << why;
  BackendChoice c = make_backend("auto");
  ASSERT_TRUE(c.backend);
  EXPECT_STREQ(c.backend->name(), "cpu");
  EXPECT_EQ(c.fallback_note.empty(), !nvidia_gpu_installed()) << c.fallback_note;
  EXPECT_EQ(c.fallback_note.find('\n'), std::string::npos);
  try {
    make_backend("cuda");
    ADD_FAILURE() << "make_backend(cuda) succeeded without a device";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(kNoCuda), std::string::npos) << e.what();
  }
}

TEST(GpuPresence, ReadsThePciBusAndTheDriversFiles) {
  TempDir d;
  const auto device = [&](const std::string& slot, const std::string& vendor, const std::string& cls) {
    const std::string dir = d.str("sys/bus/pci/devices/" + slot);
    std::filesystem::create_directories(dir);
    write_file(dir + "/vendor", vendor + "\n");
    write_file(dir + "/class", cls + "\n");
  };
  EXPECT_FALSE(nvidia_gpu_installed(d.str()));                  // nothing at all
  device("0000:00:01.0", "0x8086", "0x030000");                 // an Intel display
  device("0000:00:02.0", "0x10de", "0x0c0330");                 // an NVIDIA USB controller
  EXPECT_FALSE(nvidia_gpu_installed(d.str()));
  device("0000:41:00.0", "0x10de", "0x030200");                 // an NVIDIA 3D controller
  EXPECT_TRUE(nvidia_gpu_installed(d.str()));
  TempDir driver;
  std::filesystem::create_directories(driver.path() / "proc/driver/nvidia/gpus/0000:41:00.0");
  EXPECT_TRUE(nvidia_gpu_installed(driver.str()));
}

TEST(VersionCli, NamesTheBackendsAndCpuKernels) {
  CommandResult r = run_glint("--version");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind(std::string("glint ") + GLINT_VERSION + "\n", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("backends: cpu\n"), std::string::npos) << r.out;
  if (kCudaBuild) {
    EXPECT_NE(r.out.find("\n  cuda: device code for CUDA architectures "), std::string::npos) << r.out;
  } else {
    EXPECT_NE(r.out.find("\n  cuda: not built"), std::string::npos) << r.out;
  }
#if defined(GLINT_WITH_VULKAN)
  EXPECT_NE(r.out.find("\n  vulkan: SPIR-V for Vulkan 1.1; "), std::string::npos) << r.out;
#else
  EXPECT_NE(r.out.find("\n  vulkan: not built"), std::string::npos) << r.out;
#endif
  EXPECT_NE(r.out.find(std::string("this CPU runs ") + cpu_simd_name(active_cpu_simd())), std::string::npos) << r.out;
  EXPECT_TRUE(r.err.empty()) << r.err;
}
