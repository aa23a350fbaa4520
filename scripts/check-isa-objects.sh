#!/usr/bin/env bash
# The AVX2 build of the CPU kernels (raster_avx2.cpp) must not define a shared (weak)
# symbol outside its renamed namespaces: an inline function or template instantiated there
# and not inlined would be AVX2 code under the same name as the portable copy, and the
# linker may keep either, so a CPU without AVX2 could run it (render/isa.h).
# Usage: scripts/check-isa-objects.sh [BUILD_DIR]   (default build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
obj=$(find "$build/src" -name 'raster_avx2.cpp.o' | head -n 1)
if [ -z "$obj" ]; then
  echo "check-isa-objects: no raster_avx2.cpp.o under $build/src (build first)" >&2
  exit 1
fi
# nm: W/V = weak (COMDAT) definitions, u = unique global; keep those not in an AVX2 namespace
shared=$(nm -C --defined-only "$obj" | awk '$2 ~ /^[WVu]$/' | grep -v -E 'avx2::|lanes_avx2::' || true)
if [ -n "$shared" ]; then
  echo "check-isa-objects: $obj defines shared symbols outside the AVX2 namespaces:" >&2
  echo "$shared" >&2
  exit 1
fi
echo "check-isa-objects: $obj shares no code with the portable build"
