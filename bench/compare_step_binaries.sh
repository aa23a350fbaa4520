#!/usr/bin/env bash
# Compares two builds of bench_train_step on a machine whose speed will not hold still.
#   bench/compare_step_binaries.sh OLD NEW [ROW] [PAIRS] [-- extra bench_train_step flags]
#   ROW: colmap | 200x200 | 320x240 | sh3 (default colmap); PAIRS: default 6
# Both binaries run at the same time, one thread each, pinned to the same core, so the
# scheduler interleaves them every few milliseconds and both see the same machine; each
# reports its own process CPU time per step ("cpu ms"), which time slices do not inflate.
# On a shared VM two runs of the same binary one after the other (or side by side on two
# cores) can differ by far more than the changes being measured; this way the same binary
# against itself gives a median ratio close to 1 (docs/BENCHMARKS.md). Prints each pair and
# the median NEW / OLD ratio.
# A binary built outside this checkout needs `-- --dataset /abs/path/shared/datasets/shapes`.
set -euo pipefail
cd "$(dirname "$0")/.."
usage() { echo "usage: bench/compare_step_binaries.sh OLD NEW [ROW] [PAIRS] [-- bench flags]" >&2; exit 2; }
[ $# -ge 2 ] || usage
old=$1 new=$2
shift 2
row=colmap pairs=6
if [ $# -gt 0 ] && [ "$1" != "--" ]; then row=$1; shift; fi
if [ $# -gt 0 ] && [ "$1" != "--" ]; then pairs=$1; shift; fi
if [ $# -gt 0 ]; then [ "$1" = "--" ] || usage; shift; fi
for b in "$old" "$new"; do
  [ -x "$b" ] || { echo "compare_step_binaries.sh: '$b' is not an executable file" >&2; exit 2; }
done
case "$row" in colmap|200x200|320x240|sh3) ;; *) echo "compare_step_binaries.sh: ROW must be colmap, 200x200, 320x240 or sh3, not '$row'" >&2; exit 2 ;; esac
[[ "$pairs" =~ ^[1-9][0-9]*$ ]] || { echo "compare_step_binaries.sh: PAIRS must be a positive integer, not '$pairs'" >&2; exit 2; }
command -v taskset >/dev/null || { echo "compare_step_binaries.sh: taskset (util-linux) is needed" >&2; exit 2; }
command -v python3 >/dev/null || { echo "compare_step_binaries.sh: python3 is needed for the medians" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
core=$(( $(nproc) - 1 ))
cpu_ms() {  # the "cpu ms" column of the row's line: the 11th field after its WxH size
  awk '{ for (i = 1; i <= NF; ++i) if ($i ~ /^[0-9]+x[0-9]+$/ && i + 11 <= NF) v = $(i + 11) }
       END { if (v == "") exit 1; print v }' "$1"
}
echo "pair   old cpu ms   new cpu ms   new/old   (bench_train_step --only $row --threads 1 $*, core $core)"
for i in $(seq 1 "$pairs"); do
  # which one starts first alternates, so that neither always has the core to itself for
  # the other's start-up
  if [ $((i % 2)) -eq 1 ]; then
    OMP_NUM_THREADS=1 taskset -c "$core" "$old" --only "$row" --threads 1 "$@" >"$tmp/old" 2>&1 &
    a=$!
    OMP_NUM_THREADS=1 taskset -c "$core" "$new" --only "$row" --threads 1 "$@" >"$tmp/new" 2>&1 &
    b=$!
  else
    OMP_NUM_THREADS=1 taskset -c "$core" "$new" --only "$row" --threads 1 "$@" >"$tmp/new" 2>&1 &
    b=$!
    OMP_NUM_THREADS=1 taskset -c "$core" "$old" --only "$row" --threads 1 "$@" >"$tmp/old" 2>&1 &
    a=$!
  fi
  wait "$a" || { echo "compare_step_binaries.sh: $old failed:" >&2; tail -3 "$tmp/old" >&2; exit 1; }
  wait "$b" || { echo "compare_step_binaries.sh: $new failed:" >&2; tail -3 "$tmp/new" >&2; exit 1; }
  o=$(cpu_ms "$tmp/old") || { echo "compare_step_binaries.sh: no timing row from $old:" >&2; tail -3 "$tmp/old" >&2; exit 1; }
  n=$(cpu_ms "$tmp/new") || { echo "compare_step_binaries.sh: no timing row from $new:" >&2; tail -3 "$tmp/new" >&2; exit 1; }
  echo "$o $n" >>"$tmp/pairs"
  awk -v i="$i" -v o="$o" -v n="$n" 'BEGIN { printf "%4d %12.2f %12.2f %9.4f\n", i, o, n, n / o }'
done
python3 - "$tmp/pairs" <<'EOF'
import statistics, sys
rows = [tuple(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
r = sorted(n / o for o, n in rows)
print(f"median new/old {statistics.median(r):.4f}  (range {r[0]:.4f} .. {r[-1]:.4f}, {len(r)} pairs)")
EOF
