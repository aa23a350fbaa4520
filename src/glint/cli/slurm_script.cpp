#include "glint/cli/slurm_script.h"

#include "glint/core/error.h"

namespace glint::cli {

namespace {

// The template: @GLINT@, @CELLS@ and @SBATCH_ARGS@ are filled in. The resources at the
// top are the user's to edit (or to set in the environment).
constexpr const char* kTemplate = R"SCRIPT(#!/usr/bin/env bash
# Submits the cells of the Glint plan in this folder to Slurm: one job array (a task per
# cell: glint train PLAN --cell K) and a merge job (glint merge PLAN, into PLAN/merged/)
# that starts once every cell has succeeded. Written by glint partition --slurm.
#
#   ./submit.sh                    # from any folder; PLAN is the folder of this script
#
# Environment:
#   GLINT             the glint executable the jobs run (default: the one that wrote this)
#   GLINT_TRAIN_ARGS  more `glint train` flags for every cell, e.g. "--steps 30000 --backend cuda"
#   GLINT_MERGE_ARGS  more `glint merge` flags, e.g. "--backend cpu"
#
# Time limits and preemption: a cell's task asks Slurm for SIGUSR1 SIGNAL_BEFORE seconds
# before its time limit; glint train then writes a checkpoint and exits, and the task
# requeues itself and resumes from that checkpoint when it runs again. SIGTERM (a
# preemption, scancel) also ends training with a checkpoint; the task is not requeued by
# this script then. A cell that finished is not trained again.
set -euo pipefail

# ---- resources: edit here, or set them in the environment ----
CELL_TIME=${CELL_TIME:-24:00:00}   # time limit of each cell's task
CELL_CPUS=${CELL_CPUS:-8}          # CPU cores of each cell's task
CELL_MEM=${CELL_MEM:-32G}          # memory of each cell's task
CELL_GRES=${CELL_GRES:-}           # e.g. gpu:1 for --backend cuda
SIGNAL_BEFORE=${SIGNAL_BEFORE:-300}  # seconds before the time limit to checkpoint and requeue
MERGE_TIME=${MERGE_TIME:-2:00:00}
MERGE_CPUS=${MERGE_CPUS:-4}
MERGE_MEM=${MERGE_MEM:-32G}
SBATCH_ARGS=(@SBATCH_ARGS@)  # more sbatch options for every job (glint partition --slurm-args)
# ----

CELLS=@CELLS@
GLINT=${GLINT:-@GLINT@}

run_cell() {
  local plan=$1 cell=${SLURM_ARRAY_TASK_ID:?run by sbatch --array}
  export OMP_NUM_THREADS=${SLURM_CPUS_PER_TASK:-${OMP_NUM_THREADS:-}}
  [ -n "$OMP_NUM_THREADS" ] || unset OMP_NUM_THREADS
  local pid="" rc=0 requeue=0
  trap 'requeue=1; [ -z "$pid" ] || kill -USR1 "$pid" 2>/dev/null || true' USR1
  trap '[ -z "$pid" ] || kill -TERM "$pid" 2>/dev/null || true' TERM
  echo "glint cell $cell of $plan on $(hostname), run $((${SLURM_RESTART_COUNT:-0} + 1))"
  # shellcheck disable=SC2086  # GLINT_TRAIN_ARGS is a list of flags
  "$GLINT" train "$plan" --cell "$cell" ${GLINT_TRAIN_ARGS:-} &
  pid=$!
  wait "$pid" || rc=$?
  # A trap ends `wait` early: wait again until glint itself has exited.
  while kill -0 "$pid" 2>/dev/null; do
    rc=0
    wait "$pid" || rc=$?
  done
  if [ "$requeue" = 1 ] && [ "$rc" = 130 ]; then
    echo "glint cell $cell: checkpoint written before the time limit; requeueing"
    if scontrol requeue "${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}"; then
      sleep 300 & wait $! || true  # Slurm ends this run now; it starts again later
    fi
  fi
  exit "$rc"
}

run_merge() {
  # shellcheck disable=SC2086  # GLINT_MERGE_ARGS is a list of flags
  exec "$GLINT" merge "$1" --force ${GLINT_MERGE_ARGS:-}
}

submit() {
  local plan
  plan=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  command -v sbatch >/dev/null || {
    echo "submit.sh: sbatch not found; run this on a Slurm login node, or train here: $GLINT train $plan" >&2
    exit 1
  }
  [ -x "$GLINT" ] || command -v "$GLINT" >/dev/null || { echo "submit.sh: glint not found at $GLINT (set GLINT)" >&2; exit 1; }
  mkdir -p "$plan/logs"
  local cell_args=(--job-name=glint-cells "--array=0-$((CELLS - 1))" --requeue "--signal=B:USR1@$SIGNAL_BEFORE"
    "--time=$CELL_TIME" "--cpus-per-task=$CELL_CPUS" "--mem=$CELL_MEM" --open-mode=append
    "--output=$plan/logs/cell_%a.log")
  [ -z "$CELL_GRES" ] || cell_args+=("--gres=$CELL_GRES")
  local array merge
  array=$(sbatch --parsable "${cell_args[@]}" "${SBATCH_ARGS[@]}" "$plan/submit.sh" cell "$plan")
  array=${array%%;*}
  merge=$(sbatch --parsable --job-name=glint-merge "--dependency=afterok:$array" --kill-on-invalid-dep=yes \
    "--time=$MERGE_TIME" "--cpus-per-task=$MERGE_CPUS" "--mem=$MERGE_MEM" "--output=$plan/logs/merge.log" \
    "${SBATCH_ARGS[@]}" "$plan/submit.sh" merge "$plan")
  merge=${merge%%;*}
  echo "submitted $CELLS cells as job array $array and the merge as job $merge (after every cell succeeds)"
  echo "logs: $plan/logs/; the merged model: $plan/merged/scene.ply"
}

case "${1:-}" in
  "") submit ;;
  cell) run_cell "$2" ;;
  merge) run_merge "$2" ;;
  *) echo "usage: $0   (submits the plan's cells and merge to Slurm)" >&2; exit 2 ;;
esac
)SCRIPT";

void replace_all(std::string& s, const std::string& key, const std::string& value) {
  for (std::size_t p = s.find(key); p != std::string::npos; p = s.find(key, p + value.size())) s.replace(p, key.size(), value);
}

// Single-quoted for the shell.
std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

std::string slurm_submit_script(const SlurmScriptSettings& s) {
  for (char c : s.sbatch_args)
    if (c == '\n' || c == '\r' || c == ';' || c == '&' || c == '|' || c == '`' || c == '$' || c == '<' || c == '>' ||
        c == '(' || c == ')' || c == '\\')
      throw Error(std::string("--slurm-args: only sbatch options (shell words, quotes allowed), not '") + c + "'");
  std::string text = kTemplate;
  replace_all(text, "@SBATCH_ARGS@", s.sbatch_args);
  replace_all(text, "@CELLS@", std::to_string(s.cells));
  replace_all(text, "@GLINT@", quoted(s.glint));
  return text;
}

}  // namespace glint::cli
