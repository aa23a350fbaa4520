#!/usr/bin/env bash
# Installs what the demo needs, builds the glint program alone and runs the main job on the
# bundled demo scene. Device code is compiled only for the GPU this machine has (none
# without one: neither CUDA nor Vulkan). Arguments go to `glint demo` (e.g. --steps 1000).
set -euo pipefail
cd "$(dirname "$0")/.."
# The Vulkan backend only where a GPU driver is there to run it (a render node, or NVIDIA's
# device): a machine without a GPU builds and hears nothing about GPUs.
gpu_flags=(-DGLINT_VULKAN=OFF)
deps=(--demo)
if compgen -G '/dev/dri/renderD*' >/dev/null || [ -e /dev/nvidia0 ]; then
  gpu_flags=(-DGLINT_VULKAN=ON)
  deps+=(--vulkan)
fi
bash scripts/install-deps.sh "${deps[@]}"

cuda_flags=(-DGLINT_CUDA=OFF)
# Compute capabilities of this machine's GPUs ("8.6" -> 86), one architecture each.
archs=""
if command -v nvidia-smi >/dev/null 2>&1; then
  archs=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | tr -d ' .' |
          grep -E '^[0-9]+$' | sort -u | paste -sd ';' || true)
fi
if [ -n "$archs" ]; then
  nvcc_bin=$(command -v nvcc || true)
  [ -z "$nvcc_bin" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc_bin=/usr/local/cuda/bin/nvcc
  if [ -n "$nvcc_bin" ]; then
    cuda_flags=(-DGLINT_CUDA=ON "-DCMAKE_CUDA_ARCHITECTURES=$archs" "-DCMAKE_CUDA_COMPILER=$nvcc_bin")
  else
    echo "demo: this machine's NVIDIA GPU needs the CUDA toolkit (nvcc) to be used; building for the CPU only"
  fi
fi

# Only the program the demo runs: no tests, benchmarks or GPU tests.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DGLINT_BUILD_TESTS=OFF -DGLINT_BUILD_BENCH=OFF \
  "${cuda_flags[@]}" "${gpu_flags[@]}" >/dev/null
cmake --build build -j "$(nproc)" --target glint
./build/src/glint demo --force "$@"
