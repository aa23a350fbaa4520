#!/usr/bin/env bash
# The checks and benchmarks that need an NVIDIA GPU, as one command, with one summary table
# printed last. In order (tests first, the long training run last):
#   1. build with CUDA for the GPU found (skipped when build-gpu/ was built elsewhere and
#      this machine has no compiler: the device machine may be bare)
#   2. the GPU tests (tests/gpu/, GLINT_REQUIRE_GPU=1: a missing device fails, not skips)
#   3. compute-sanitizer memcheck and racecheck on them, where the toolkit has it
#   4. the whole suite, where it was built
#   5. bench_rasterize --backend cuda (and --backend vulkan on the same GPU), 800x800 with 300k synthetic splats: forward and
#      forward+backward, wall-clock medians of the synchronous calls and the device clock
#      over the stages
#   6. bench_train_step on lego_800 (every 8th view held out, white background) on CUDA
#      and on the CPU, the same steps: ms/step of each and their ratio
#   7. glint train lego_800, 30000 steps, --backend cuda: held-out PSNR, splats, ms/step,
#      wall time, peak device memory and the device's name from its eval.json; then
#      bench_rasterize on that trained model from the first held-out camera
#   8. glint train fox at full resolution, 7000 steps (its schedule laid out for 7000)
# Every step runs under `timeout`; together they keep within a budget of wall time
# (GLINT_GPU_CHECK_BUDGET_S, default 540 s, counted from the start, build included): each
# step's limit is its own cap or what is left of the budget after the time held back for
# the steps after it, whichever is less (the tests hold back 330 s for the benchmarks and
# the lego run, the benchmarks 240 s for the lego run). A step that fails or passes its
# own cap is a FAIL row; one with too little budget left, or stopped by the budget rather
# than its cap, a skip row that says so. Build first (the same cmake line as step 1) so
# that the script's build is a no-op. Exit status 0: no FAIL row and the GPU tests passed.
#
# Usage: scripts/gpu-check.sh [BUILD_DIR]   (default build-gpu)
# Environment:
#   GLINT_DATASETS=DIR              the shared datasets (default ../shared/datasets from the
#                                   repository); a missing dataset is a skip row
#   GLINT_GPU_CHECK_BUDGET_S=N      the wall-time budget above
#   GLINT_GPU_CHECK_SKIP_SUITE=1    leave out step 4 (the CPU suite; for trying the script)
#   GLINT_GPU_CHECK_OUT=DIR         where the runs write (default a new folder under /tmp;
#                                   kept, with each step's log)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
build="${1:-build-gpu}"
datasets="${GLINT_DATASETS:-../shared/datasets}"
budget="${GLINT_GPU_CHECK_BUDGET_S:-540}"
out="${GLINT_GPU_CHECK_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/glint-gpu-check.XXXXXX")}"
mkdir -p "$out"
lego_reserve=240             # held back for the lego training run (30000 steps in <= 3 min, + eval)
tests_reserve=$((lego_reserve + 90))  # ... and for the two benchmarks after the tests

declare -a rows=()
row() { rows+=("$(printf '| %-40s | %-6s | %s |' "$1" "$2" "$3")"); }
left() { echo $((budget - SECONDS)); }

# bounded NAME CAP RESERVE CMD...: runs CMD under timeout for min(CAP, budget left - RESERVE)
# seconds, its stdout and stderr in $out/NAME.log. Sets rc (125: not run, no time left),
# took (seconds), limit and by_budget (1 when the budget, not CAP, set the limit). A timeout
# gives rc 124.
bounded() {
  local name=$1 cap=$2 reserve=$3
  shift 3
  limit=$(($(left) - reserve)) by_budget=1 held=$reserve
  [ "$limit" -ge "$cap" ] && limit=$cap by_budget=0
  log="$out/$name.log"
  if [ "$by_budget" = 1 ] && [ "$limit" -lt 10 ]; then
    rc=125 took=0
    return
  fi
  local t0=$SECONDS
  timeout --kill-after=10 "$limit" "$@" >"$log" 2>&1
  rc=$?
  took=$((SECONDS - t0))
}
# why_failed: one line for a row from the last bounded run; verdict: FAIL or skip for it
why_failed() {
  case $rc in
    124 | 137) echo "timed out after ${limit} s$([ "$by_budget" = 1 ] && echo ", the time budget left") (log: $log)" ;;
    125) echo "out of time budget: $(left) s of ${budget} s left, ${held} s of it held back for the later steps (GLINT_GPU_CHECK_BUDGET_S)" ;;
    *)
      local last
      last=$(grep -v '^\s*$' "$log" | tail -1 | cut -c1-160)
      echo "exit $rc: ${last:-no output}"
      ;;
  esac
}
verdict() {
  if [ "$rc" -eq 125 ] || { [ "$by_budget" = 1 ] && { [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; }; }; then
    echo skip
  else
    echo FAIL
  fi
}
# not_ok LABEL: the row of a bounded run that did not succeed
not_ok() { row "$1" "$(verdict)" "$(why_failed)"; }
# json_get FILE KEY.PATH: a value of eval.json (python3, else jq, else grep for the last
# key), or n/a
json_get() {
  local v
  v=$(json_value "$@")
  echo "${v:-n/a}"
}
json_value() {
  if command -v python3 >/dev/null; then
    python3 - "$1" "$2" <<'EOF' 2>/dev/null
import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    v = v[k]
print(f"{v:.2f}" if isinstance(v, float) else v)
EOF
  elif command -v jq >/dev/null; then
    jq -r ".$2 // empty" "$1"
  else
    grep -m1 "\"${2##*.}\"" "$1" | sed 's/^[^:]*: *//; s/,$//; s/"//g'
  fi
}
# train_row LABEL EVAL_JSON: the row of a finished `glint train`
train_row() {
  local j=$2
  row "$1" ok "PSNR $(json_get "$j" test.mean_psnr) dB on $(json_get "$j" test_views) held-out views, $(json_get "$j" splats) splats, $(json_get "$j" ms_per_step) ms/step, wall $(json_get "$j" wall_time_s) s, peak device memory $(json_get "$j" peak_device_memory_mb) MB, $(json_get "$j" device)"
}

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1 |
  sed 's/^/gpu: /' || echo "gpu: nvidia-smi not found"
echo "logs and runs: $out"

# 1. build
if command -v cmake >/dev/null && { command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; }; then
  arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d '.')
  t0=$SECONDS
  if cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGLINT_CUDA=ON \
       -DCMAKE_CUDA_ARCHITECTURES="${arch:-90}" >"$out/build.log" 2>&1 &&
     cmake --build "$build" -j "$(nproc)" >>"$out/build.log" 2>&1; then
    row "build (sm_${arch:-90})" ok "$((SECONDS - t0)) s"
  else
    row "build (sm_${arch:-90})" FAIL "cmake --build $build (log: $out/build.log)"
  fi
else
  row "build" skip "no cmake or nvcc here: using $build as it came"
fi

# 2-3. GPU tests and compute-sanitizer
gpu_tests="$build/tests/glint_gpu_tests"
if [ -x "$gpu_tests" ]; then
  bounded gpu-tests 120 "$tests_reserve" env GLINT_REQUIRE_GPU=1 "$gpu_tests"
  if [ $rc -eq 0 ]; then
    row "GPU tests" ok "$(grep -m1 -E '^\[  PASSED' "$log"), ${took} s"
  elif [ $rc -eq 124 ] || [ $rc -eq 137 ] || [ $rc -eq 125 ]; then
    not_ok "GPU tests"
  else
    why=$(grep -m1 -E 'no CUDA device' "$log" || grep -m1 -E '^\[  FAILED|Failure' "$log")
    row "GPU tests" FAIL "$(echo "$why" | cut -c1-160) (log: $log)"
    tail -30 "$log"
  fi
  sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  if [ -x "$sanitizer" ]; then
    for tool in memcheck racecheck; do
      bounded "sanitizer-$tool" 150 "$tests_reserve" env GLINT_REQUIRE_GPU=1 "$sanitizer" --tool "$tool" --error-exitcode 1 "$gpu_tests"
      if [ $rc -eq 0 ]; then
        row "compute-sanitizer $tool" ok "no errors, ${took} s"
      elif [ $rc -eq 124 ] || [ $rc -eq 137 ] || [ $rc -eq 125 ]; then
        not_ok "compute-sanitizer $tool"
      else
        row "compute-sanitizer $tool" FAIL "$(grep -m1 -E 'ERROR|error|FAILED' "$log" | cut -c1-160) (log: $log)"
      fi
    done
  else
    row "compute-sanitizer" skip "not installed"
  fi
else
  row "GPU tests" FAIL "$gpu_tests not built"
fi

# 4. the whole suite
if [ -n "${GLINT_GPU_CHECK_SKIP_SUITE:-}" ]; then
  row "whole suite" skip "GLINT_GPU_CHECK_SKIP_SUITE is set"
elif [ -x "$build/tests/glint_tests" ]; then
  bounded suite 240 "$tests_reserve" "$build/tests/glint_tests"
  if [ $rc -eq 0 ]; then
    row "whole suite" ok "$(grep -m1 -E '^\[  PASSED' "$log"), ${took} s"
  elif [ $rc -eq 124 ] || [ $rc -eq 137 ] || [ $rc -eq 125 ]; then
    not_ok "whole suite"
  else
    row "whole suite" FAIL "$(grep -m1 -E '^\[  FAILED' "$log") (log: $log)"
  fi
fi

# 5. the rasterizer at 800x800 with 300k splats
bench_rasterize="$build/bench/bench_rasterize"
# raster_row LABEL: the 800x800 line of the last bench_rasterize log
raster_row() {
  local line
  line=$(grep -m1 '^800x' "$log")
  if [ $rc -eq 0 ] && [ -n "$line" ]; then
    # columns: size splats visible inst/M steps/M fwd fwd+bwd ... fwd-dev f+b-dev
    row "$1" ok "$(echo "$line" | awk '{printf "fwd %s ms, fwd+bwd %s ms wall; device clock fwd %s ms, fwd+bwd %s ms; %s splats, %s M instances", $6, $7, $12, $13, $2, $4}')"
  else
    not_ok "$1"
  fi
}
if [ -x "$bench_rasterize" ]; then
  bounded rasterize-300k 90 "$lego_reserve" "$bench_rasterize" --backend cuda --size 800 --splats 300000 --repeats 20
  raster_row "bench_rasterize cuda 800x800 300k"
  # the Vulkan backend on the same GPU through its Vulkan driver (never run yet: a failure
  # here is a row, not the end of the check)
  bounded rasterize-300k-vulkan 90 "$lego_reserve" "$bench_rasterize" --backend vulkan --size 800 --splats 300000 --repeats 20
  raster_row "bench_rasterize vulkan 800x800 300k"
else
  row "bench_rasterize cuda 800x800 300k" FAIL "$bench_rasterize not built"
fi

# 6. training steps on lego_800, CPU against CUDA
lego="$datasets/lego_800"
bench_train_step="$build/bench/bench_train_step"
step_steps=200
if [ ! -f "$lego/transforms_train.json" ]; then
  row "bench_train_step lego_800 cuda,cpu" skip "no dataset at $lego (set GLINT_DATASETS)"
elif [ ! -x "$bench_train_step" ]; then
  row "bench_train_step lego_800 cuda,cpu" FAIL "$bench_train_step not built"
else
  # CUDA first: if the CPU's part runs out of time, the CUDA figure is in the log already
  bounded train-step-lego 150 "$lego_reserve" "$bench_train_step" --only dataset --dataset "$lego" \
    --steps "$step_steps" --warmup 20 --compare cuda,cpu
  # a row: scene backend size splats inst/K steps/K ms/step ...
  step_ms() { awk -v b="$1" '$2 == b && $3 ~ /^[0-9]+x[0-9]+$/ {print $7; exit}' "$log"; }
  cuda_ms=$(step_ms cuda) cpu_ms=$(step_ms cpu)
  if [ $rc -eq 0 ] && [ -n "$cuda_ms" ] && [ -n "$cpu_ms" ]; then
    row "bench_train_step lego_800 cuda,cpu" ok "$(awk -v g="$cuda_ms" -v c="$cpu_ms" -v n="$step_steps" \
      'BEGIN {printf "steps 21-%d: cuda %.2f ms/step, cpu %.2f ms/step; cuda / cpu %.4f (%.1fx as fast)", 20 + n, g, c, g / c, c / g}')"
  elif [ -n "$cuda_ms" ]; then
    row "bench_train_step lego_800 cuda,cpu" "$(verdict)" "cuda ${cuda_ms} ms/step (steps 21-$((20 + step_steps))); the cpu part: $(why_failed)"
  else
    not_ok "bench_train_step lego_800 cuda,cpu"
  fi
fi

# 7. a full training run of lego_800 on the device, then the rasterizer on its model
glint="$build/src/glint"
if [ ! -f "$lego/transforms_train.json" ]; then
  row "glint train lego_800 30000 cuda" skip "no dataset at $lego (set GLINT_DATASETS)"
elif [ ! -x "$glint" ]; then
  row "glint train lego_800 30000 cuda" FAIL "$glint not built"
else
  bounded train-lego-30k 300 0 "$glint" train "$lego" -o "$out/lego_800" --backend cuda --steps 30000 \
    --test-every 8 --background white -q -f
  if [ $rc -eq 0 ] && [ -f "$out/lego_800/eval.json" ]; then
    train_row "glint train lego_800 30000 cuda" "$out/lego_800/eval.json"
    if [ -x "$bench_rasterize" ]; then
      bounded rasterize-lego 60 0 "$bench_rasterize" --backend cuda --model "$out/lego_800/scene.ply" \
        --dataset "$lego" --view 0 --size 800 --repeats 20
      raster_row "bench_rasterize cuda trained lego_800"
    fi
  else
    not_ok "glint train lego_800 30000 cuda"
  fi
fi

# 8. fox at full resolution, a shorter run, with what is left
fox="$datasets/fox"
if [ ! -f "$fox/transforms.json" ]; then
  row "glint train fox 7000 cuda" skip "no dataset at $fox (set GLINT_DATASETS)"
elif [ ! -x "$glint" ]; then
  row "glint train fox 7000 cuda" FAIL "$glint not built"
else
  bounded train-fox-7k 180 0 "$glint" train "$fox" -o "$out/fox" --backend cuda --steps 7000 \
    --schedule-steps 7000 --max-size 0 --test-every 8 -q -f
  if [ $rc -eq 0 ] && [ -f "$out/fox/eval.json" ]; then
    train_row "glint train fox 7000 cuda" "$out/fox/eval.json"
  else
    not_ok "glint train fox 7000 cuda"
  fi
fi

echo
echo "gpu-check: ${SECONDS} s of a ${budget} s budget; logs in $out"
echo "| check | result | detail |"
echo "|---|---|---|"
printf '%s\n' "${rows[@]}"
# success: no FAIL row, and the GPU tests ran and passed
! printf '%s\n' "${rows[@]}" | grep -q '| FAIL' && printf '%s\n' "${rows[@]}" | grep -q '^| GPU tests  *| ok'
