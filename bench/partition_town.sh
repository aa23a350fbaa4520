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
# ROUNDS=N (environment) trains everything N times, the whole run and the cells in turn
# (every other round cells first), and prints each round's time ratio and their median:
# on a shared machine one round's ratio moves by a tenth with what else the host runs.
# PARTITION_FLAGS goes to glint partition (e.g. "--whole-views");
# ORDER=cells-first starts with the cells;
# REUSE_WHOLE=1 keeps the whole-scene run already in OUT_DIR (one round);
# CELL_STEPS=N trains the cells with N steps (--schedule-steps N) and the whole run with
# STEPS: what fewer steps a cell costs in quality and seams (the targets ask for the same);
# TOWN=DIR trains and evaluates another copy of town, e.g. one with more held-out views
# (bench/town_test_views.sh): town's own 24 are too few to resolve the seam target.
# Last, bench_seam_profile (SEAM_PROFILE= another build's) measures the seams pixel by pixel.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/glint_partition_town}
steps=${2:-3000}
shift $(( $# > 2 ? 2 : $# ))
[ "${1:-}" = "--" ] && shift
extra=("$@")
glint=${GLINT:-$(pwd)/build/src/glint}  # GLINT: another build's glint (an A/B of two builds)
town=${TOWN:-../shared/datasets/town}
[ -x "$glint" ] || { echo "build first: cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release && ninja -C build" >&2; exit 2; }
[ -d "$town" ] || { echo "no town dataset at $town" >&2; exit 2; }
command -v python3 >/dev/null || { echo "partition_town.sh: python3 is needed to read eval.json" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "partition_town.sh: /usr/bin/time is needed (Debian package time)" >&2; exit 2; }
mkdir -p "$out"
flags=(--steps "$steps" --schedule-steps "$steps" "${extra[@]}")
cell_steps=${CELL_STEPS:-$steps}
[[ "$cell_steps" =~ ^[1-9][0-9]*$ ]] || { echo "partition_town.sh: CELL_STEPS must be a positive whole number, not '$cell_steps'" >&2; exit 2; }
cell_flags=(--steps "$cell_steps" --schedule-steps "$cell_steps" "${extra[@]}")
rounds=${ROUNDS:-1}
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "partition_town.sh: ROUNDS must be a positive whole number, not '$rounds'" >&2; exit 2; }
round=1
timed() {  # timed NAME COMMAND...: wall seconds, user+sys seconds, peak KB into $out/NAME.time
  local name=$1
  shift
  echo "== round $round/$rounds $name: $*" >&2
  /usr/bin/time -f "%e %U %S %M" -o "$out/$name.time" "$@" >"$out/$name.log" 2>&1 || {
    echo "$name failed; its output:" >&2
    tail -n 20 "$out/$name.log" >&2
    exit 1
  }
  mkdir -p "$out/round$round"
  cp "$out/$name.time" "$out/round$round/$name.time"
}
whole() { timed whole "$glint" train "$town" -o "$out/whole" "${flags[@]}" -q -f; }
cells() {
  # -f: a later round trains the cells again (training is deterministic: the same models)
  for k in 0 1 2 3; do timed "cell$k" "$glint" train "$out/plan" --cell "$k" -q -f; done
  timed merge "$glint" merge "$out/plan" -q -f
}
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'); load at start: $(cut -d' ' -f1-3 /proc/loadavg)" >"$out/machine.txt"
rm -rf "$out/plan" "$out"/round[0-9]*
# shellcheck disable=SC2086
"$glint" partition "$town" -o "$out/plan" --cells 2x2 ${PARTITION_FLAGS:-} -- "${cell_flags[@]}" >"$out/partition.txt"
# REUSE_WHOLE=1 keeps an earlier whole-scene run in OUT (to compare partition settings).
if [ "${REUSE_WHOLE:-0}" = 1 ] && [ -f "$out/whole.time" ] && [ -f "$out/whole/eval.json" ]; then
  mkdir -p "$out/round1" && cp "$out/whole.time" "$out/round1/whole.time"
  rounds=1
  cells
else
  cells_first=0
  [ "${ORDER:-whole-first}" = cells-first ] && cells_first=1
  for ((round = 1; round <= rounds; round++)); do
    if [ $(( (round - 1 + cells_first) % 2 )) = 1 ]; then cells; whole; else whole; cells; fi
  done
  round=$rounds
fi
head -8 "$out/partition.txt"
python3 - "$out" "$rounds" "$(cat "$out/machine.txt")" "$(cut -d' ' -f1-3 /proc/loadavg)" "$steps" "$cell_steps" <<'PY'
import json, statistics, sys
out, rounds, machine, load = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
steps, cell_steps = int(sys.argv[5]), int(sys.argv[6])
def timing(n, r):
    w, u, s, kb = open(f"{out}/round{r}/{n}.time").read().split()[-4:]
    return float(w), float(u) + float(s), int(kb) / 1024
def round_ratios(r):  # the longest cell + merge (wall, cpu), the mean cell + merge, the largest cell's memory
    w = timing("whole", r)
    cs = [timing(f"cell{k}", r) for k in range(4)]
    m = timing("merge", r)
    return ((max(c[0] for c in cs) + m[0]) / w[0], (max(c[1] for c in cs) + m[1]) / w[1],
            (sum(c[0] for c in cs) / 4 + m[0]) / w[0], max(c[2] for c in cs) / w[2], w, cs, m)
whole = json.load(open(f"{out}/whole/eval.json"))
merged = json.load(open(f"{out}/plan/merged/eval.json"))
border = {v["name"]: v["border"] for v in merged["test"]["views"]}
if {v["name"] for v in whole["test"]["views"]} != set(border):
    sys.exit(f"partition_town.sh: {out}/whole was evaluated on other held-out views than the merged model"
             " (another TOWN?): run without REUSE_WHOLE")
def split(views):
    b = [v["psnr"] for v in views if border[v["name"]]]
    i = [v["psnr"] for v in views if not border[v["name"]]]
    return sum(b) / len(b), len(b), sum(i) / len(i), len(i)
def sem(xs):  # standard error of the mean
    return statistics.stdev(xs) / len(xs) ** 0.5 if len(xs) > 1 else float("nan")
def diff_sem(views):  # of the border mean minus the interior mean
    b = [v for n, v in views.items() if border[n]]
    i = [v for n, v in views.items() if not border[n]]
    return (sem(b) ** 2 + sem(i) ** 2) ** 0.5
ratios = [round_ratios(r) for r in range(1, rounds + 1)]
_, _, _, _, (tw, tc, tm), cells, (mw, mc, mm) = ratios[-1]  # the table: the last round
print(f"{'run':<8} {'wall s':>8} {'cpu s':>8} {'peak MB':>8} {'splats':>8}")
print(f"{'whole':<8} {tw:8.1f} {tc:8.1f} {tm:8.0f} {whole['splats']:8d}")
for k, (w, c, m) in enumerate(cells):
    e = json.load(open(f"{out}/plan/cells/{k}/eval.json"))
    print(f"{'cell ' + str(k):<8} {w:8.1f} {c:8.1f} {m:8.0f} {e['splats']:8d}")
print(f"{'merge':<8} {mw:8.1f} {mc:8.1f} {mm:8.0f} {merged['splats']:8d}")
print()
wb, nb, wi, ni = split(whole["test"]["views"])
mb, _, mi, _ = split(merged["test"]["views"])
print(f"held-out PSNR ({len(border)} views): whole {whole['test']['mean_psnr']:.2f} dB, merged {merged['test']['mean_psnr']:.2f} dB"
      f" ({merged['test']['mean_psnr'] - whole['test']['mean_psnr']:+.2f}; target >= 0)")
mpsnr = {v["name"]: v["psnr"] for v in merged["test"]["views"]}
wpsnr = {v["name"]: v["psnr"] for v in whole["test"]["views"]}
# +- one standard error, from the spread of the views' PSNRs: the two groups are different
# views, whose difficulty differs by far more than a seam
print(f"merged: {nb} views across a border {mb:.2f} dB, {ni} within one cell {mi:.2f} dB"
      f" ({mb - mi:+.2f} +- {diff_sem(mpsnr):.2f}; target >= -0.5)")
print(f"whole:  the same views {wb:.2f} dB / {wi:.2f} dB ({wb - wi:+.2f} +- {diff_sem(wpsnr):.2f})")
# the merged model's gain over the whole run compares each view with itself, which takes
# the views' difficulty out of the spread
print(f"merged over whole on the same views: across a border {mb - wb:+.2f} dB, within one cell {mi - wi:+.2f} dB"
      f" ({(mb - wb) - (mi - wi):+.2f} +- {diff_sem({n: mpsnr[n] - wpsnr[n] for n in mpsnr}):.2f})")
if rounds == 1:
    wall, cpu, mean, mem = ratios[0][:4]
    lw = max(c[0] for c in cells)
    print(f"time: longest cell {lw:.1f} s + merge {mw:.1f} s = {lw + mw:.1f} s = {wall:.3f} x whole {tw:.1f} s (target <= 0.4);"
          f" cpu {cpu:.3f} x; the mean cell + merge {mean:.3f} x")
    print(f"memory: largest cell peak {max(c[2] for c in cells):.0f} MB = {mem:.3f} x whole {tm:.0f} MB (target <= 0.45)")
else:
    # mean x: the mean cell over the whole run (without the slowest cell's share of the noise)
    print(f"{'round':<6} {'whole s':>8} {'cells s':>28} {'merge s':>8} {'wall x':>7} {'cpu x':>6} {'mean x':>7} {'memory x':>8}")
    for r, (wall, cpu, mean, mem, w, cs, m) in enumerate(ratios, 1):
        print(f"{r:<6} {w[0]:8.1f} {' '.join(f'{c[0]:6.1f}' for c in cs):>28} {m[0]:8.1f} {wall:7.3f} {cpu:6.3f}"
              f" {mean:7.3f} {mem:8.3f}")
    wall, cpu, mean, mem = ([x[i] for x in ratios] for i in range(4))
    print(f"time: longest cell + merge over the whole run, median of {rounds} rounds: {statistics.median(wall):.3f} x wall"
          f" (rounds {min(wall):.3f}-{max(wall):.3f}; target <= 0.4), {statistics.median(cpu):.3f} x cpu;"
          f" the mean cell + merge {statistics.median(mean):.3f} x")
    print(f"memory: largest cell peak over the whole run's, largest of {rounds} rounds: {max(mem):.3f} x (target <= 0.45)")
if cell_steps != steps:
    print(f"cells trained with {cell_steps} steps, the whole run with {steps}: the targets are for the same steps")
print(f"{machine}; load when done: {load}")
PY
# the seams pixel by pixel (bench/seam_profile.cpp): the merged model against the whole run
seam_profile=${SEAM_PROFILE:-$(pwd)/build/bench/bench_seam_profile}
if [ -x "$seam_profile" ]; then
  echo
  "$seam_profile" "$out/plan" "$town" "$out/whole/scene.ply" "$out/plan/merged/scene.ply"
else
  echo "no $seam_profile: build it (ninja -C build bench_seam_profile) for the seam profile" >&2
fi
