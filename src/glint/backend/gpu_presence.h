#pragma once
// Whether this machine has an NVIDIA GPU at all, asked of the kernel rather than of CUDA:
// a machine without one hears nothing about GPUs, while one whose GPU CUDA cannot use (no
// driver, an old driver) is told why in one line (backend_registry.cpp).
#include <string>

namespace glint {

// True when the PCI bus lists an NVIDIA display or 3D controller, or the NVIDIA driver's
// device files exist. `root` prefixes the paths read (tests point it at a fake tree).
bool nvidia_gpu_installed(const std::string& root = "");

}  // namespace glint
