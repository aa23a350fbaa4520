#!/usr/bin/env bash
# The viewer page's tests in headless Chromium (tests/browser/, node's built-in runner):
# installs the npm packages pinned by tests/browser/package-lock.json (npm ci, only when
# the lockfile changed) and runs them against BUILD/src/glint.
# Usage: scripts/browser-tests.sh [BUILD]   (default: build)
# Without node, npm or /usr/bin/chromium they are skipped with a message, and fail under CI.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}

missing=""
for tool in node npm; do command -v "$tool" >/dev/null || missing="$missing $tool"; done
[ -x "${CHROMIUM:-/usr/bin/chromium}" ] || missing="$missing chromium"
if [ -n "$missing" ]; then
  if [ -n "${CI:-}" ]; then
    echo "browser tests: missing$missing (scripts/install-deps.sh installs them)" >&2
    exit 1
  fi
  echo "== browser tests SKIPPED: missing$missing (scripts/install-deps.sh installs them)"
  exit 0
fi

cd tests/browser
# node_modules/.glint-lock is the lockfile the installed packages came from.
if ! cmp -s package-lock.json node_modules/.glint-lock 2>/dev/null; then
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json node_modules/.glint-lock
fi
# Files run one at a time on a machine of two cores or fewer (node --test runs cores - 1).
GLINT_EXE="$OLDPWD/$build/src/glint" node --test ./*.test.js
