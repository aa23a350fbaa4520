#!/usr/bin/env bash
# Builds Glint and runs every check CI runs, in order of how fast they fail:
#   1. Release build + the whole GoogleTest suite (ctest; with it the emulated CUDA suite
#      built again with nvcc's FMA contraction, tests/contracted), a check that the AVX2 and
#      AVX-512 kernel objects share no code with the portable build (check-isa-objects.sh)
#      and that the contracted objects share no fused code with uncontracted ones
#      (check-contracted-objects.sh), and the viewer page's tests in headless Chromium
#      (browser-tests.sh)
#   2. the unit tests again under AddressSanitizer + UndefinedBehaviorSanitizer
#   3. each libFuzzer target for a bounded time (FUZZ_SECONDS, default 30)
# plus, where the CUDA toolkit is installed, the CUDA backend's device code (built by
# CMake for sm_90) and an nvcc compile of the whole render/ math.
# Usage: scripts/test.sh [--quick]   (--quick: step 1 only)
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0
[ "${1:-}" = "--quick" ] && quick=1
jobs=$(nproc)

bash scripts/install-deps.sh

echo "== Release build and tests"
# sm_90 alone keeps CI's nvcc time short; a user's build compiles every supported GPU.
# scripts/demo.sh configures the same folder for the program alone: tests and benchmarks on
# again, and GLINT_CUDA and GLINT_VULKAN back to their defaults (on where their tools are found).
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DGLINT_BUILD_TESTS=ON -DGLINT_BUILD_BENCH=ON -UGLINT_CUDA -UGLINT_VULKAN >/dev/null
cmake --build build -j "$jobs"
# As many tests at a time as there are cores. A test's OpenMP threads wait passively, so
# that a thread of one test that reaches a barrier sleeps instead of spinning on the core
# the other test needs (spinning slowed two such tests down many times over).
OMP_WAIT_POLICY=passive ctest --test-dir build --output-on-failure -j "$jobs"
bash scripts/check-isa-objects.sh build
if [ -d build/tests/contracted/CMakeFiles/glint_contracted_tests.dir ]; then
  bash scripts/check-contracted-objects.sh build
fi
echo "== Browser tests of glint view (headless Chromium)"
bash scripts/browser-tests.sh build

# The per-element math must stay compilable as CUDA device code, so that a CUDA backend can
# launch the functions the CPU backend uses (docs/RASTERIZER.md, "Device-code check").
nvcc_bin=$(command -v nvcc || true)
[ -z "$nvcc_bin" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc_bin=/usr/local/cuda/bin/nvcc
if [ -n "$nvcc_bin" ]; then
  echo "== nvcc: src/glint/render/ compiles as device code"
  "$nvcc_bin" -std=c++20 -arch=sm_90 -Isrc -c tests/nvcc/render_math_kernel.cu -o build/render_math_kernel.o
else
  echo "== nvcc not found: skipping the device-code compile check of src/glint/render/"
fi
echo "== Release stage done at $SECONDS s"
[ "$quick" = 1 ] && exit 0

echo "== Sanitizer build (ASan + UBSan) and tests"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGLINT_SANITIZE=ON \
  -DGLINT_BUILD_BENCH=OFF >/dev/null
cmake --build build-asan -j "$jobs"
# The Vulkan tests run in the Release stage on both CPU drivers under the Khronos validation
# layer; under ASan the drivers' JIT-compiled shaders would run instrumented-free anyway and
# double their minutes, so they are left out here. So is the town survey's whole CLI run
# (partition, train every cell, stop, resume, merge): its code is the partition tests' and
# the training tests', which run here; instrumented, its training steps alone take minutes.
# GLINT_ASAN_EXCLUDE replaces the pattern.
# No Vulkan driver is offered to this stage: the CPU drivers keep a once-only allocation
# that their unloading at exit leaves behind, which the leak checker would report in
# every process that merely looks for a Vulkan device (glint's `auto`, --version).
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 OMP_WAIT_POLICY=passive \
  VK_ICD_FILENAMES=/nonexistent/icd.json VK_DRIVER_FILES=/nonexistent/icd.json \
  ctest --test-dir build-asan --output-on-failure -j "$jobs" \
  -E "${GLINT_ASAN_EXCLUDE:-Vulkan|PartitionCli.TownPlanTrainMergeAndRerun}"

echo "== Sanitizer stage done at $SECONDS s"
echo "== Fuzzing (${FUZZ_SECONDS:-30} s per target)"
bash scripts/fuzz.sh "${FUZZ_SECONDS:-30}"
echo "== All checks passed in $SECONDS s"
