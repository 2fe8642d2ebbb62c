#!/usr/bin/env bash
# sample-synthetic.sh - make the "sample-synthetic" benchmark inputs: 200 sample profiles
# (extbinary, as llvm-profdata merge --sample writes by default) of one synthetic program of
# 20,000 functions, one per run (benches/gen_sample_profiles.py: Zipf-like hotness, ~60% of
# the functions per run, call targets, inlined callees up to three deep).
#
#   bash benches/sample-synthetic.sh [DIR]
#
# Default DIR=/tmp/pgo-merge-bench/sample-synthetic (~400 MB). FUNCTIONS and FILES change
# the size; LLVM_PROFDATA picks the tool that turns the text into extbinary (default
# llvm-profdata-22).
set -euo pipefail
export LC_ALL=C
OUT=${1:-/tmp/pgo-merge-bench/sample-synthetic}
FUNCTIONS=${FUNCTIONS:-20000}
FILES=${FILES:-200}
LLVM_PROFDATA=${LLVM_PROFDATA:-llvm-profdata-22}
die() { echo "sample-synthetic.sh: $*" >&2; exit 1; }
command -v "$LLVM_PROFDATA" >/dev/null || die "$LLVM_PROFDATA not found"
HERE=$(cd "$(dirname "$0")" && pwd)
TXT=$(mktemp -d)
trap 'rm -rf "$TXT"' EXIT
python3 "$HERE/gen_sample_profiles.py" --functions "$FUNCTIONS" --files "$FILES" --out "$TXT"
mkdir -p "$OUT"
rm -f "$OUT"/*.afdo
for f in "$TXT"/*.txt; do
  "$LLVM_PROFDATA" merge --sample --extbinary -o "$OUT/$(basename "$f" .txt).afdo" "$f"
done
echo "== $(ls "$OUT"/*.afdo | wc -l) sample profiles, $(du -sh "$OUT" | cut -f1) in $OUT"
