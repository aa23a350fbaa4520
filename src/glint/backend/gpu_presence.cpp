#include "glint/backend/gpu_presence.h"

#include <filesystem>
#include <fstream>

namespace glint {

namespace fs = std::filesystem;

namespace {
std::string first_word(const fs::path& p) {
  std::ifstream in(p);
  std::string w;
  in >> w;
  return w;
}
}  // namespace

bool nvidia_gpu_installed(const std::string& root) {
  std::error_code ec;
  // The driver's view: present only when its kernel module is loaded.
  if (fs::exists(root + "/dev/nvidia0", ec)) return true;
  const fs::path gpus = root + "/proc/driver/nvidia/gpus";
  if (fs::is_directory(gpus, ec) && fs::directory_iterator(gpus, ec) != fs::directory_iterator()) return true;
  // The bus's view, which needs no driver: vendor 0x10de, PCI class 0x03xxxx (display).
  const fs::path bus = root + "/sys/bus/pci/devices";
  for (fs::directory_iterator it(bus, ec), end; !ec && it != end; it.increment(ec)) {
    if (first_word(it->path() / "vendor") != "0x10de") continue;
    if (first_word(it->path() / "class").rfind("0x03", 0) == 0) return true;
  }
  return false;
}

}  // namespace glint
