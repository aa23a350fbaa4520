#!/usr/bin/env bash
# The partition's targets on the town survey: the whole scene trained as one run against
# the same scene as 2x2 cells (each with the same steps, one after another here, as four
# machines would run them side by side) and merged. Prints, from /usr/bin/time and the
# runs' eval.json files:
#   - quality: held-out PSNR of the whole-scene run and of the merged cells; the merged
#     model's views that look across a cell border against those within one cell (and
#     the same split of the whole-scene run, for reference);
#   - time: the longest cell's wall time plus the merge's, over the whole-scene run's;
#   - memory: each cell's peak resident memory over the whole-scene run's.
#   bench/partition_town.sh [OUT_DIR] [STEPS] [-- MORE TRAINING FLAGS]
#       defaults: /tmp/glint_partition_town, 3000 steps (--schedule-steps STEPS)
# PARTITION_FLAGS (environment) goes to glint partition (e.g. "--whole-views");
# ORDER=cells-first runs the cells before the whole-scene run (for interleaved repeats);
# REUSE_WHOLE=1 keeps the whole-scene run already in OUT_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/glint_partition_town}
steps=${2:-3000}
shift $(( $# > 2 ? 2 : $# ))
[ "${1:-}" = "--" ] && shift
extra=("$@")
glint=${GLINT:-$(pwd)/build/src/glint}  # GLINT: another build's glint (an A/B of two builds)
town=../shared/datasets/town
[ -x "$glint" ] || { echo "build first: cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release && ninja -C build" >&2; exit 2; }
[ -d "$town" ] || { echo "no town dataset at $town" >&2; exit 2; }
command -v python3 >/dev/null || { echo "partition_town.sh: python3 is needed to read eval.json" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "partition_town.sh: /usr/bin/time is needed (Debian package time)" >&2; exit 2; }
mkdir -p "$out"
flags=(--steps "$steps" --schedule-steps "$steps" "${extra[@]}")
timed() {  # timed NAME COMMAND...: wall seconds, user+sys seconds, peak KB into $out/NAME.time
  local name=$1
  shift
  echo "== $name: $*" >&2
  /usr/bin/time -f "%e %U %S %M" -o "$out/$name.time" "$@" >"$out/$name.log" 2>&1 || {
    echo "$name failed; its output:" >&2
    tail -n 20 "$out/$name.log" >&2
    exit 1
  }
}
whole() { timed whole "$glint" train "$town" -o "$out/whole" "${flags[@]}" -q -f; }
cells() {
  rm -rf "$out/plan"
  # shellcheck disable=SC2086
  "$glint" partition "$town" -o "$out/plan" --cells 2x2 ${PARTITION_FLAGS:-} -- "${flags[@]}" >"$out/partition.txt"
  for k in 0 1 2 3; do timed "cell$k" "$glint" train "$out/plan" --cell "$k" -q; done
  timed merge "$glint" merge "$out/plan" -q -f
}
# REUSE_WHOLE=1 keeps an earlier whole-scene run in OUT (to compare partition settings).
if [ "${REUSE_WHOLE:-0}" = 1 ] && [ -f "$out/whole.time" ] && [ -f "$out/whole/eval.json" ]; then
  cells
elif [ "${ORDER:-whole-first}" = cells-first ]; then cells; whole; else whole; cells; fi
cat "$out/partition.txt" | head -8
python3 - "$out" "$(uptime)" <<'PY'
import json, sys
out, load = sys.argv[1], sys.argv[2]
def timing(n):
    w, u, s, kb = open(f"{out}/{n}.time").read().split()[-4:]
    return float(w), float(u) + float(s), int(kb) / 1024
whole = json.load(open(f"{out}/whole/eval.json"))
merged = json.load(open(f"{out}/plan/merged/eval.json"))
border = {v["name"]: v["border"] for v in merged["test"]["views"]}
def split(views):
    b = [v["psnr"] for v in views if border[v["name"]]]
    i = [v["psnr"] for v in views if not border[v["name"]]]
    return sum(b) / len(b), len(b), sum(i) / len(i), len(i)
tw, tc, tm = timing("whole")
print(f"{'run':<8} {'wall s':>8} {'cpu s':>8} {'peak MB':>8} {'splats':>8}")
print(f"{'whole':<8} {tw:8.1f} {tc:8.1f} {tm:8.0f} {whole['splats']:8d}")
cells = []
for k in range(4):
    e = json.load(open(f"{out}/plan/cells/{k}/eval.json"))
    w, c, m = timing(f"cell{k}")
    cells.append((w, c, m))
    print(f"{'cell ' + str(k):<8} {w:8.1f} {c:8.1f} {m:8.0f} {e['splats']:8d}")
mw, mc, mm = timing("merge")
print(f"{'merge':<8} {mw:8.1f} {mc:8.1f} {mm:8.0f} {merged['splats']:8d}")
print()
wb, nb, wi, ni = split(whole["test"]["views"])
mb, _, mi, _ = split(merged["test"]["views"])
print(f"held-out PSNR ({len(border)} views): whole {whole['test']['mean_psnr']:.2f} dB, merged {merged['test']['mean_psnr']:.2f} dB"
      f" ({merged['test']['mean_psnr'] - whole['test']['mean_psnr']:+.2f}; target >= 0)")
print(f"merged: {nb} views across a border {mb:.2f} dB, {ni} within one cell {mi:.2f} dB ({mb - mi:+.2f}; target >= -0.5)")
print(f"whole:  the same views {wb:.2f} dB / {wi:.2f} dB ({wb - wi:+.2f})")
lw = max(c[0] for c in cells)
lc = max(c[1] for c in cells)
print(f"time: longest cell {lw:.1f} s + merge {mw:.1f} s = {lw + mw:.1f} s = {(lw + mw) / tw:.3f} x whole {tw:.1f} s (target <= 0.4);"
      f" cpu {(lc + mc) / tc:.3f} x")
print(f"memory: largest cell peak {max(c[2] for c in cells):.0f} MB = {max(c[2] for c in cells) / tm:.3f} x whole {tm:.0f} MB (target <= 0.45)")
print(f"load when done: {load.strip()}")
PY
