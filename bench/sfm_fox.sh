#!/usr/bin/env bash
# The capture benchmark: `glint train` on the shared fox photos alone (its poses set aside),
# so Glint finds the poses with COLMAP first, against training the same steps on the
# dataset's own poses. Prints SfM's wall time per stage, images registered and both runs'
# held-out PSNR (from glint-sfm.json and each run's eval.json). Figures: docs/BENCHMARKS.md.
#   bench/sfm_fox.sh [OUT_DIR] [STEPS] [-- extra glint sfm flags, e.g. --redo-sfm]
# An SfM result already in OUT_DIR/from_photos/sfm for the same photos and settings is
# reused, and its glint-sfm.json reports the times of the run that made it.
#   (defaults: /tmp/glint_sfm_fox, 2000 steps; both runs at --downscale 4, 270x480)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/glint_sfm_fox}
steps=${2:-2000}
shift $(( $# < 2 ? $# : 2 ))
[ "${1:-}" = "--" ] && shift
glint=./build/src/glint
fox=../shared/datasets/fox
[ -x "$glint" ] || { echo "build first: cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release && ninja -C build glint" >&2; exit 2; }
[ -d "$fox/images" ] || { echo "no fox dataset at $fox" >&2; exit 2; }
command -v python3 >/dev/null || { echo "sfm_fox.sh: python3 is needed to read the JSON files" >&2; exit 2; }

mkdir -p "$out"
# The photos alone: a folder without transforms.json is a capture without poses.
rm -rf "$out/photos" && mkdir -p "$out/photos"
cp -l "$fox"/images/*.jpg "$out/photos/" 2>/dev/null || cp "$fox"/images/*.jpg "$out/photos/"

train=(--steps "$steps" --schedule-steps "$steps" --downscale 4 -q -f)
echo "== glint train $out/photos (SfM, then $steps steps) $*" >&2
"$glint" train "$out/photos" -o "$out/from_photos" "${train[@]}" "$@"
echo "== glint train $fox (the dataset's poses, $steps steps)" >&2
"$glint" train "$fox" -o "$out/from_poses" "${train[@]}"

python3 - "$out" <<'EOF'
import json, sys
out = sys.argv[1]
s = json.load(open(f"{out}/from_photos/sfm/glint-sfm.json"))["summary"]
t = s["seconds"]
print(f"SfM: {s['registered']} of {s['images']} registered, matcher {s['matcher']}, "
      f"{s['points']} points, mean reprojection error {s['mean_reprojection_error_px']:.2f} px")
print(f"SfM wall time: {t['total']:.1f} s (features {t['features']:.1f} s, matching {t['matching']:.1f} s, "
      f"mapping {t['mapping']:.1f} s)")
for name in ("from_photos", "from_poses"):
    e = json.load(open(f"{out}/{name}/eval.json"))
    print(f"{name:<12} test PSNR {e['test']['mean_psnr']:.2f} dB, SSIM {e['test']['mean_ssim']:.4f}, "
          f"{e['steps']} steps, {len(e['test']['views'])} test views, {e['splats']} splats, training {e['train_time_s']:.1f} s")
EOF
