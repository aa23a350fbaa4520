#!/usr/bin/env bash
# Installs every Debian package that building and testing Glint needs.
# Idempotent: packages already present are skipped, so re-running is cheap.
# Usage: scripts/install-deps.sh [--demo [--vulkan]]
#   --demo: only what building the glint program and running `glint demo` need
#           (scripts/demo.sh), not the test, benchmark, fuzzing and browser tooling;
#   --vulkan: with --demo, also what building the Vulkan backend needs.
set -euo pipefail
demo=0 vulkan=1
for a in "$@"; do
  case "$a" in
    --demo) demo=1 vulkan=0 ;;
    --vulkan) vulkan=1 ;;
    *) echo "install-deps: unknown option $a (use --demo [--vulkan])" >&2; exit 2 ;;
  esac
done

# Building the glint program.
packages=(
  build-essential cmake ninja-build pkg-config
  libcli11-dev nlohmann-json3-dev libstb-dev
  zlib1g-dev                        # glint relight's PNG writer (encode_png_fast)
  libopenexr-dev                    # OpenEXR environment maps (io/exr.h)
  libnanoflann-dev
  libcpp-httplib-dev                # glint view's local HTTP server (header-only use)
)

if [ "$vulkan" = 1 ]; then
  packages+=(
    libvulkan-dev glslc spirv-tools libspirv-cross-c-shared-dev  # the Vulkan backend: headers, GLSL -> SPIR-V, spirv-val, reflection
    libvulkan1                        # the loader glint opens at run time
  )
fi

if [ "$demo" = 0 ]; then
  packages+=(
    binutils                          # nm, for scripts/check-isa-objects.sh
    clang libclang-rt-14-dev          # libFuzzer + ASan/UBSan builds
    libgtest-dev libgmock-dev libbenchmark-dev
    libomp-dev
    chromium                          # browser tests of the viewer page (tests/browser/); its SwiftShader Vulkan driver
    mesa-vulkan-drivers vulkan-validationlayers  # Vulkan tests: lavapipe, the Khronos validation layer
    libhwy-dev                        # bench_simd_alpha only: compiler vectors vs Google Highway
    python3-numpy python3-pil         # the relight dataset's own scorer, run by a test
    colmap ffmpeg                     # glint sfm / glint train on photos or a video (and their tests)
    slurm-wlm munge                   # the one-node Slurm cluster of the submit.sh tests (scripts/slurm-test.sh)
  )
  # node and npm run the browser tests; a machine that has them from elsewhere keeps them.
  command -v node >/dev/null || packages+=(nodejs)
  command -v npm >/dev/null || packages+=(npm)
fi

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
