#!/usr/bin/env bash
# The emulated CUDA suite with contraction (tests/CMakeLists.txt, glint_contracted_tests)
# compiles some files with -ffp-contract=fast: a shared (weak) symbol that such a file
# defines with fused multiply-adds in it would be code whose rounding differs from an
# uncontracted copy of the same name, and the linker may keep either one. So every such
# function must lie in the contracted build's own namespaces (emulated_contracted,
# hd_contracted, and helpers_contracted for the test helpers), where only that binary's
# files define names, and no uncontracted file of that binary may define it too.
# Usage: scripts/check-contracted-objects.sh [BUILD_DIR]   (default build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
db="$build/compile_commands.json"
dirs=("$build/tests/contracted/CMakeFiles/glint_cuda_contracted.dir"
  "$build/tests/contracted/CMakeFiles/glint_contracted_tests.dir")
if [ ! -f "$db" ] || [ ! -d "${dirs[0]}" ] || [ ! -d "${dirs[1]}" ]; then
  echo "check-contracted-objects: no contracted build under $build (build glint_contracted_tests first)" >&2
  exit 1
fi
# the objects of the two targets, split by their compile command's -ffp-contract
fast=() slow=()
while read -r kind obj; do
  if [ "$kind" = fast ]; then fast+=("$obj"); else slow+=("$obj"); fi
done < <(python3 - "$db" "${dirs[@]}" <<'EOF'
import json, os, sys
db, dirs = sys.argv[1], sys.argv[2:]
fast = set()
for e in json.load(open(db)):
    cmd = e.get("command", "")
    if "-ffp-contract=fast" in cmd and " -o " in cmd:
        out = cmd.split(" -o ", 1)[1].split()[0]
        fast.add(os.path.normpath(os.path.join(e["directory"], out)))
for d in dirs:
    for root, _, files in os.walk(d):
        for f in sorted(files):
            if f.endswith(".o"):
                path = os.path.join(root, f)
                print("fast" if os.path.normpath(os.path.abspath(path)) in fast else "slow", path)
EOF
)
if [ ${#fast[@]} -eq 0 ]; then
  echo "check-contracted-objects: no object of $build is compiled with -ffp-contract=fast" >&2
  exit 1
fi
# weak (W, V) and unique (u) definitions of an object, mangled
weak() { nm --defined-only "$1" | awk '$2 ~ /^[WVu]$/ {print $3}' | sort -u; }
# the functions of an object whose code holds a fused multiply-add
fused() {
  objdump -d --no-show-raw-insn "$1" | awk '
    /^[0-9a-f]+ <.*>:$/ { name = $2; sub(/^</, "", name); sub(/>:$/, "", name); next }
    name != "" && $0 ~ /[[:space:]]vfn?m(add|sub)(add|sub)?[0-9][0-9][0-9][sp][sd][[:space:]]/ { print name }' | sort -u
}
# the build really contracts: its rasterizer and loss hold fused multiply-adds
if [ -z "$(for o in "${fast[@]}"; do fused "$o"; done | head -1)" ]; then
  echo "check-contracted-objects: no fused multiply-add in ${fast[*]}: the build did not contract" >&2
  exit 1
fi
slow_weak=$(for o in "${slow[@]}"; do weak "$o"; done | sort -u)
status=0
for o in "${fast[@]}"; do
  bad=$(comm -12 <(weak "$o") <(fused "$o") | while IFS= read -r sym; do
    name=$(echo "$sym" | c++filt)
    if ! echo "$name" | grep -q -E '(^|[ :<(])(emulated|hd|helpers)_contracted::'; then
      echo "  outside the contracted namespaces: $name"
    elif echo "$slow_weak" | grep -qxF "$sym"; then
      echo "  also defined uncontracted: $name"
    fi
  done)
  if [ -n "$bad" ]; then
    echo "check-contracted-objects: $o shares contracted code:" >&2
    echo "$bad" >&2
    status=1
  fi
done
[ $status -eq 0 ] && echo "check-contracted-objects: ${#fast[@]} contracted objects share no fused code with uncontracted ones"
exit $status
