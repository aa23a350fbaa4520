#!/usr/bin/env bash
# Installs dependencies, builds Glint and runs the main job on the bundled demo scene.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)"
./build/src/glint demo --force "$@"
