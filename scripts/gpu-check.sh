#!/usr/bin/env bash
# The checks that need an NVIDIA GPU, as one command, with one summary table at the end:
#   1. build with CUDA for the GPU found (skipped when build-gpu/ was built elsewhere and
#      this machine has no compiler: the device machine may be bare)
#   2. the GPU tests (tests/gpu/, GLINT_REQUIRE_GPU=1: a missing device fails, not skips)
#   3. compute-sanitizer memcheck and racecheck on them, where the toolkit has it
#   4. the whole suite, where it was built
# Usage: scripts/gpu-check.sh [BUILD_DIR]   (default build-gpu)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
build="${1:-build-gpu}"
declare -a rows=()
row() { rows+=("$(printf '| %-34s | %-6s | %s |' "$1" "$2" "$3")"); }

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1 |
  sed 's/^/gpu: /' || echo "gpu: nvidia-smi not found"

if command -v cmake >/dev/null && { command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; }; then
  arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d '.')
  t0=$SECONDS
  if cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGLINT_CUDA=ON \
       -DCMAKE_CUDA_ARCHITECTURES="${arch:-90}" >/dev/null && cmake --build "$build" -j "$(nproc)" >/dev/null; then
    row "build (sm_${arch:-90})" ok "$((SECONDS - t0)) s"
  else
    row "build (sm_${arch:-90})" FAIL "cmake --build $build"
  fi
else
  row "build" skip "no cmake or nvcc here: using $build as it came"
fi

gpu_tests="$build/tests/glint_gpu_tests"
if [ -x "$gpu_tests" ]; then
  if out=$(GLINT_REQUIRE_GPU=1 "$gpu_tests" 2>&1); then
    row "GPU tests" ok "$(echo "$out" | grep -E '^\[  PASSED' | head -1)"
  else
    row "GPU tests" FAIL "$(echo "$out" | grep -E 'FAILED|Failure' | head -1)"
    echo "$out" | tail -30
  fi
  sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  if [ -x "$sanitizer" ]; then
    for tool in memcheck racecheck; do
      if GLINT_REQUIRE_GPU=1 "$sanitizer" --tool "$tool" --error-exitcode 1 "$gpu_tests" >/tmp/gpu-check-$tool.log 2>&1; then
        row "compute-sanitizer $tool" ok "no errors"
      else
        row "compute-sanitizer $tool" FAIL "$(grep -m1 -E 'ERROR|error' /tmp/gpu-check-$tool.log)"
      fi
    done
  else
    row "compute-sanitizer" skip "not installed"
  fi
else
  row "GPU tests" FAIL "$gpu_tests not built"
fi

if [ -x "$build/tests/glint_tests" ]; then
  if out=$("$build/tests/glint_tests" 2>&1); then
    row "whole suite" ok "$(echo "$out" | grep -E '^\[  PASSED' | head -1)"
  else
    row "whole suite" FAIL "$(echo "$out" | grep -E '^\[  FAILED' | head -1)"
  fi
fi

echo
echo "| check | result | detail |"
echo "|---|---|---|"
printf '%s\n' "${rows[@]}"
! printf '%s\n' "${rows[@]}" | grep -q '| FAIL'
