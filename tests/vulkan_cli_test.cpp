// The Vulkan backend through the CLI: glint info --devices lists the CPU drivers and says
// auto takes the CPU backend (a CPU Vulkan driver is never auto's choice); glint train
// --backend vulkan --device N trains on the named driver and eval.json (train's and
// eval's) names the backend, the device and its driver with the driver's version; and
// without any Vulkan driver (the loader pointed at a missing one) --backend vulkan is one
// line and exit 2 on every command while auto says nothing of Vulkan.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "glint/backend/vulkan/context.h"
#include "test_support.h"
#include "vulkan_test_support.h"

using namespace glint;
using namespace glint::test;

namespace {
const std::string kDemo = std::string(GLINT_SOURCE_DIR) + "/data/demo";
class VulkanCli : public VulkanTest {};
}  // namespace

TEST_P(VulkanCli, InfoListsTheDriverAndTrainNamesIt) {
  CommandResult info = run_glint("info --devices --json");
  ASSERT_EQ(info.exit_code, 0) << info.err;
  const nlohmann::json j = nlohmann::json::parse(info.out);
  EXPECT_EQ(j["auto"].get<std::string>().rfind("cpu:", 0), 0u) << j["auto"];
  bool listed = false;
  for (const auto& d : j["devices"])
    if (d["backend"] == "vulkan" && d["index"] == device_index && d["usable"].get<bool>()) {
      listed = true;
      EXPECT_NE(d["detail"].get<std::string>().find(", driver version "), std::string::npos) << d["detail"];
    }
  EXPECT_TRUE(listed) << info.out;
  // training through the CLI once (SwiftShader runs the same backend code, slower)
  if (driver() != "lavapipe") return;
  TempDir t;
  CommandResult r = run_glint("train '" + kDemo + "' -o '" + t.str("out") + "' --steps 3 --downscale 8 -q --backend vulkan --device " +
                              std::to_string(device_index));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json e = nlohmann::json::parse(read_file(t.str("out/eval.json")));
  EXPECT_EQ(e["backend"], "vulkan");
  const std::string device = e["device"].get<std::string>();
  EXPECT_NE(device.find(driver() == "lavapipe" ? "llvmpipe" : "SwiftShader"), std::string::npos) << device;
  EXPECT_NE(device.find("Vulkan 1."), std::string::npos) << device;
  // the driver with its version, as the device reports it (lavapipe: "llvmpipe, Mesa ...")
  EXPECT_NE(device.find("llvmpipe, Mesa "), std::string::npos) << device;
  std::string why;
  for (const vk::DeviceInfo& i : vk::list_devices(&why)) {
    if (i.index == device_index) {
      EXPECT_NE(device.find(", driver version " + i.driver_version + ", Vulkan 1."), std::string::npos) << device;
    }
  }
  // and glint eval's JSON names the same
  CommandResult ev = run_glint("eval '" + t.str("out/scene.ply") + "' '" + kDemo + "' --json - --backend vulkan --device " +
                               std::to_string(device_index));
  ASSERT_EQ(ev.exit_code, 0) << ev.err;
  const nlohmann::json ej = nlohmann::json::parse(ev.out);
  EXPECT_EQ(ej["backend"], "vulkan");
  EXPECT_EQ(ej["device"], e["device"]);
}

// Driver versions as their vendors pack them: NVIDIA's 10.8.8.6 bits, everyone else's (on
// Linux) the Vulkan API version's.
TEST(VulkanDriverVersion, DecodedAsTheVendorPacksIt) {
  EXPECT_EQ(vk::driver_version_string(0x10DE, (535u << 22) | (104u << 14) | (5u << 6) | 3u), "535.104.5.3");
  EXPECT_EQ(vk::driver_version_string(0x1002, VK_MAKE_API_VERSION(0, 2, 0, 279)), "2.0.279");
  EXPECT_EQ(vk::driver_version_string(0x10005, VK_MAKE_API_VERSION(0, 22, 3, 6)), "22.3.6");
}

TEST(VulkanCliNoDriver, VulkanIsOneLineAndExitTwoAndAutoIsSilent) {
  TempDir d;
  const std::string no_driver = "VK_ICD_FILENAMES=/nonexistent/icd.json VK_DRIVER_FILES=/nonexistent/icd.json ";
  for (const std::string& cmd :
       {"train '" + kDemo + "' -o '" + d.str("t") + "' --steps 2", "eval missing.ply '" + kDemo + "'",
        "render missing.ply '" + kDemo + "' -o '" + d.str("r") + "'",
        "relight missing.ply --cameras '" + kDemo + "' --lights '" + kDemo + "/lights.json' -o '" + d.str("l") + "'"}) {
    CommandResult r = run_glint(cmd + " --backend vulkan", no_driver);
    EXPECT_EQ(r.exit_code, 2) << cmd;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << cmd << ": " << r.err;
    EXPECT_NE(r.err.find("--backend vulkan: no Vulkan device was found"), std::string::npos) << r.err;
  }
  CommandResult a = run_glint("train '" + kDemo + "' -o '" + d.str("a") + "' --steps 2 --downscale 8 -q", no_driver);
  EXPECT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(a.err.find("ulkan"), std::string::npos) << a.err;  // (a CUDA build says it fell back from CUDA)
  CommandResult bad = run_glint("render missing.ply '" + kDemo + "' -o '" + d.str("r") + "' --backend cpu --device 0");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--device picks a Vulkan device"), std::string::npos) << bad.err;
}

GLINT_VULKAN_DRIVERS(VulkanCli);
