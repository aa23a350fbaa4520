#!/usr/bin/env bash
# The tests that need a Slurm cluster (glint_tests' SlurmCluster.*): starts a one-node
# cluster on this machine (scripts/slurm-cluster.sh), runs them against it, and stops it,
# whatever the outcome. ctest runs this as the test slurm_cluster.
# Usage: scripts/slurm-test.sh [BUILD_DIR]   (default build)
# Without slurm-wlm and munge it skips (exit 77), or fails when CI is set.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-build}" && pwd)

for tool in munged slurmctld slurmd sbatch; do
  if ! command -v "$tool" >/dev/null; then
    if [ -n "${CI:-}" ]; then
      echo "slurm-test: $tool not found under CI (scripts/install-deps.sh installs slurm-wlm and munge)" >&2
      exit 1
    fi
    echo "slurm-test: $tool not found; skipping the Slurm tests (scripts/install-deps.sh installs slurm-wlm and munge)"
    exit 77
  fi
done

dir=$(mktemp -d "${TMPDIR:-/tmp}/glint-slurm.XXXXXX")
cleanup() {
  local rc=$?
  if [ "$rc" != 0 ] && [ -d "$dir/log" ]; then
    echo "slurm-test: daemon logs (last lines):"
    tail -n 15 "$dir"/log/*.log || true
  fi
  bash "$here/slurm-cluster.sh" stop "$dir" || true
  rm -rf "$dir"
}
trap cleanup EXIT
eval "$(bash "$here/slurm-cluster.sh" start "$dir")"
GLINT_SLURM=1 "$build/tests/glint_tests" --gtest_filter='SlurmCluster.*'
