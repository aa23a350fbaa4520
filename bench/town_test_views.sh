#!/usr/bin/env bash
# A copy of the town survey with N held-out views instead of its 24, for measuring the
# partition's seam target (bench/partition_town.sh, TOWN=OUT): town's 24 held-out views put a
# standard error of about 2 dB on the border-minus-interior figure the target bounds at 0.5.
#   bench/town_test_views.sh OUT [N]      (N: 200 by default; about 2.5 s a view on 2 cores)
# The held-out views are rendered with Debian's Blender by the script that made town
# (../shared/datasets/tools/make_town_scene.py, with town's scene_info.json settings); OUT
# links town's training views and points and holds the new held-out views. The first 24
# are town's own, which the script checks.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: bench/town_test_views.sh OUT [N]}
n=${2:-200}
town=$(realpath -m ../shared/datasets/town)
tools=$(realpath -m ../shared/datasets/tools)
if ! [[ "$n" =~ ^[0-9]+$ ]] || [ "$n" -lt 24 ]; then
  echo "town_test_views.sh: N must be a whole number of at least 24, not '$n'" >&2
  exit 2
fi
if [ ! -f "$town/scene_info.json" ] || [ ! -f "$tools/make_town_scene.py" ]; then
  echo "town_test_views.sh: needs ../shared/datasets/town and ../shared/datasets/tools/make_town_scene.py" >&2
  exit 2
fi
for tool in blender xvfb-run python3; do
  command -v "$tool" >/dev/null || { echo "town_test_views.sh: $tool is missing (apt-get install blender xvfb)" >&2; exit 2; }
done
[ -e "$out" ] && { echo "town_test_views.sh: $out exists; give a new folder" >&2; exit 2; }
# town's settings, as its README's command gave them
mapfile -t args < <(python3 - "$town/scene_info.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
for k in ("seed", "size", "grid", "height", "pitch", "res", "fov_deg", "engine", "samples"):
    print(f"--{k}")
    print(s[k])
PY
)
tmp=$(mktemp -d "${out%/}.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
GLINT_TOWN_TOOLS=$tools xvfb-run -a -s "-screen 0 1280x1024x24" blender -b --factory-startup \
  --python bench/town_test_views.py -- --out "$tmp/render" "${args[@]}" --n_test "$n" --threads "$(nproc)" \
  >"$tmp/blender.log" 2>&1 &
pid=$!
while kill -0 "$pid" 2>/dev/null; do  # progress from Blender's own lines
  sleep 5
  line=$(grep -a '^\[test\]' "$tmp/blender.log" | tail -n 1 || true)
  [ -n "$line" ] && printf '\r%s' "$line" >&2
done
echo >&2
wait "$pid" || { echo "town_test_views.sh: Blender failed; the end of its log:" >&2; tail -n 20 "$tmp/blender.log" >&2; exit 1; }
mkdir "$tmp/town"
for f in train transforms_train.json points3d.ply; do ln -s "$town/$f" "$tmp/town/$f"; done
mv "$tmp/render/test" "$tmp/town/test"
mv "$tmp/render/transforms_test.json" "$tmp/town/transforms_test.json"
# the first held-out cameras must be town's: a changed script would draw other ones
python3 - "$town" "$tmp/town" <<'PY'
import json, sys
a, b = (json.load(open(f"{d}/transforms_test.json"))["frames"] for d in sys.argv[1:3])
for x, y in zip(a, b):
    if x["file_path"] != y["file_path"] or any(abs(p - q) > 1e-9 for r, s in zip(x["transform_matrix"], y["transform_matrix"]) for p, q in zip(r, s)):
        sys.exit(f"town_test_views.sh: held-out view {x['file_path']} is not town's: has make_town_scene.py changed?")
PY
mv "$tmp/town" "$out"
echo "wrote $out: town's training views and points, $n held-out views (the first 24 town's own)"
echo "next: TOWN=$out bench/partition_town.sh OUT 3000"
