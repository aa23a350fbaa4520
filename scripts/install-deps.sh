#!/usr/bin/env bash
# Installs every Debian package that building and testing Glint needs.
# Idempotent: packages already present are skipped, so re-running is cheap.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  binutils                          # nm, for scripts/check-isa-objects.sh
  clang libclang-rt-14-dev          # libFuzzer + ASan/UBSan builds
  libcli11-dev nlohmann-json3-dev libstb-dev
  zlib1g-dev                        # glint relight's PNG writer (encode_png_fast)
  libopenexr-dev                    # OpenEXR environment maps (io/exr.h)
  libgtest-dev libgmock-dev libbenchmark-dev
  libomp-dev libnanoflann-dev
  libcpp-httplib-dev                # glint view's local HTTP server (header-only use)
  chromium                          # browser tests of the viewer page (tests/browser/); its SwiftShader Vulkan driver
  libvulkan-dev glslc spirv-tools libspirv-cross-c-shared-dev  # the Vulkan backend: headers, GLSL -> SPIR-V, spirv-val, reflection
  libvulkan1 mesa-vulkan-drivers vulkan-validationlayers       # its tests: the loader, lavapipe, the Khronos validation layer
  libhwy-dev                        # bench_simd_alpha only: compiler vectors vs Google Highway
  python3-numpy python3-pil         # the relight dataset's own scorer, run by a test
  slurm-wlm munge                   # the one-node Slurm cluster of the submit.sh tests (scripts/slurm-test.sh)
)

# node and npm run the browser tests; a machine that has them from elsewhere keeps them.
command -v node >/dev/null || packages+=(nodejs)
command -v npm >/dev/null || packages+=(npm)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
