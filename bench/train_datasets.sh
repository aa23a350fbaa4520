#!/usr/bin/env bash
# Trains Glint on every shared dataset with one fixed, documented setting each and prints a
# table: test PSNR before -> after, SSIM, steps, splats, time per step, wall time, peak
# memory (from each run's eval.json). The figures go to docs/BENCHMARKS.md.
#   bench/train_datasets.sh [OUT_DIR] [STEPS]      (defaults: /tmp/glint_datasets, 2000)
# Large captures are downscaled so each run takes minutes on 2 cores:
# lego_800 /2 (400x400), statue /2 (500x330), fox /4 (270x480, undistorted).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/glint_datasets}
steps=${2:-2000}
glint=./build/src/glint
data=../shared/datasets
[ -x "$glint" ] || { echo "build first: cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release && ninja -C build" >&2; exit 2; }
[ -d "$data" ] || { echo "no shared datasets at $data" >&2; exit 2; }
command -v python3 >/dev/null || { echo "train_datasets.sh: python3 is needed to read eval.json" >&2; exit 2; }

runs=(
  "shapes|$data/shapes|"
  "shapes_colmap|$data/shapes_colmap|"
  "relight_capture|$data/relight/capture|"
  "lego_800|$data/lego_800|--downscale 2"
  "statue|$data/statue|--downscale 2"
  "fox|$data/fox|--downscale 4"
)
mkdir -p "$out"
for r in "${runs[@]}"; do
  IFS='|' read -r name path flags <<<"$r"
  echo "== $name: glint train $path --steps $steps --schedule-steps $steps $flags" >&2
  # shellcheck disable=SC2086
  "$glint" train "$path" -o "$out/$name" --steps "$steps" --schedule-steps "$steps" $flags -q -f
done
printf '%-16s %-10s %8s %8s %7s %6s %8s %8s %9s %8s\n' dataset size before after ssim steps splats ms/step wall_s peak_MB
for r in "${runs[@]}"; do
  IFS='|' read -r name path flags <<<"$r"
  python3 - "$out/$name/eval.json" "$out/$name/cameras.json" "$name" <<'EOF'
import json, sys
e = json.load(open(sys.argv[1]))
cams = json.load(open(sys.argv[2]))
size = f"{cams[0]['width']}x{cams[0]['height']}" if cams else "?"
print(f"{sys.argv[3]:<16} {size:<10} {e['initial_test_psnr']:8.2f} {e['test']['mean_psnr']:8.2f} "
      f"{e['test']['mean_ssim']:7.4f} {e['steps']:6d} {e['splats']:8d} {e['ms_per_step']:8.1f} "
      f"{e['wall_time_s']:9.1f} {e['peak_rss_mb']:8.1f}")
EOF
done
