#!/usr/bin/env bash
# Builds the libFuzzer targets (ASan + UBSan) in build-fuzz/ and runs each for SECONDS
# (default 60) on a scratch copy of its seed corpus, so the committed corpus stays small.
# Crashes land in build-fuzz/artifacts/; the script exits non-zero if any target failed.
#   scripts/fuzz.sh [SECONDS]
set -euo pipefail
seconds="${1:-60}"
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build-fuzz"
jobs="${GLINT_JOBS:-2}"

CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DGLINT_FUZZ=ON -DGLINT_BUILD_TESTS=OFF -DGLINT_BUILD_BENCH=OFF >/dev/null

targets=()
for src in "$root"/fuzz/*_fuzz.cpp; do
  [ -e "$src" ] || continue
  targets+=("$(basename "$src" .cpp)")
done
[ "${#targets[@]}" -gt 0 ] || { echo "fuzz.sh: no fuzz/*_fuzz.cpp targets" >&2; exit 1; }
ninja -C "$build" -j"$jobs" "${targets[@]}"

mkdir -p "$build/artifacts"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# One target per core at a time (each fuzzer is one process on one core); each keeps its
# full SECONDS, and its output is printed whole when it ends.
fuzz_one() {
  local t="$1" name="${1%_fuzz}" scratch="$work/$1"
  mkdir -p "$scratch"
  if [ -d "$root/fuzz/corpus/$name" ]; then cp -r "$root/fuzz/corpus/$name/." "$scratch/"; fi
  local args=(-max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=10
              -print_final_stats=1 -artifact_prefix="$build/artifacts/$t-")
  if [ -f "$root/fuzz/$t.dict" ]; then args+=(-dict="$root/fuzz/$t.dict"); fi
  echo "== $t: ${seconds}s on $(ls "$scratch" | wc -l) seed files"
  "$build/fuzz/$t" "${args[@]}" "$scratch" 2>&1
}
declare -A pid_of=()
failed=()
wait_one() {  # waits for the oldest running target and reports it
  local t="$1"
  if ! wait "${pid_of[$t]}"; then failed+=("$t"); fi
  cat "$work/$t.log"
}
running=()
for t in "${targets[@]}"; do
  if [ "${#running[@]}" -ge "$jobs" ]; then
    wait_one "${running[0]}"
    running=("${running[@]:1}")
  fi
  fuzz_one "$t" > "$work/$t.log" &
  pid_of[$t]=$!
  running+=("$t")
done
for t in "${running[@]}"; do wait_one "$t"; done

if [ "${#failed[@]}" -gt 0 ]; then
  echo "fuzz.sh: FAILED: ${failed[*]} (inputs in $build/artifacts/)" >&2
  exit 1
fi
echo "fuzz.sh: all ${#targets[@]} target(s) ran ${seconds}s without findings"
