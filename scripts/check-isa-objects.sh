#!/usr/bin/env bash
# The AVX2 and AVX-512 builds of the CPU kernels (raster_avx2.cpp, raster_avx512.cpp) must
# not define a shared (weak) symbol outside their renamed namespaces: an inline function or
# template instantiated there and not inlined would be code for that instruction set under
# the same name as the portable copy, and the linker may keep either, so a CPU without it
# could run it (render/isa.h).
# Usage: scripts/check-isa-objects.sh [BUILD_DIR]   (default build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
status=0
for isa in avx2 avx512; do
  obj=$(find "$build/src" -name "raster_$isa.cpp.o" | head -n 1)
  if [ -z "$obj" ]; then
    echo "check-isa-objects: no raster_$isa.cpp.o under $build/src (build first)" >&2
    exit 1
  fi
  # nm: W/V = weak (COMDAT) definitions, u = unique global; keep those not in the ISA's namespaces
  shared=$(nm -C --defined-only "$obj" | awk '$2 ~ /^[WVu]$/' | grep -v -E "(^| |::)($isa|lanes_$isa)::" || true)
  if [ -n "$shared" ]; then
    echo "check-isa-objects: $obj defines shared symbols outside the $isa namespaces:" >&2
    echo "$shared" >&2
    status=1
  else
    echo "check-isa-objects: $obj shares no code with the portable build"
  fi
done
exit $status
