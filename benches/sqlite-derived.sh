#!/usr/bin/env bash
# sqlite-derived.sh - make the indexed and text forms of the "sqlite" benchmark inputs: each raw
# profile made by sqlite-workload.sh becomes its own indexed profile (`llvm-profdata-22 merge`)
# and its own text profile (`llvm-profdata-22 merge --text`), so that merging 198 per-run
# .profdata or .proftext files of one program can be compared with llvm-profdata.
#
#   bash benches/sqlite-derived.sh [RAW] [INDEXED] [TEXT]
#
# Defaults: RAW=/tmp/pgo-merge-bench/sqlite, INDEXED=/tmp/pgo-merge-bench/sqlite-indexed,
# TEXT=/tmp/pgo-merge-bench/sqlite-text. LLVM_PROFDATA picks the tool (default
# llvm-profdata-22). Files keep their raw names with the extension changed, so a sorted list of
# each directory is in the same order as the raw one.
set -euo pipefail
export LC_ALL=C
RAW=${1:-/tmp/pgo-merge-bench/sqlite}
IDX=${2:-/tmp/pgo-merge-bench/sqlite-indexed}
TXT=${3:-/tmp/pgo-merge-bench/sqlite-text}
LLVM_PROFDATA=${LLVM_PROFDATA:-llvm-profdata-22}
die() { echo "sqlite-derived.sh: $*" >&2; exit 1; }
command -v "$LLVM_PROFDATA" >/dev/null || die "$LLVM_PROFDATA not found"
ls "$RAW"/*.profraw >/dev/null 2>&1 || die "no raw profiles in $RAW (run benches/sqlite-workload.sh)"
mkdir -p "$IDX" "$TXT"
rm -f "$IDX"/*.profdata "$TXT"/*.proftext
for f in "$RAW"/*.profraw; do
  b=$(basename "$f" .profraw)
  "$LLVM_PROFDATA" merge --num-threads=1 -o "$IDX/$b.profdata" "$f"
  "$LLVM_PROFDATA" merge --num-threads=1 --text -o "$TXT/$b.proftext" "$f"
done
echo "== $(ls "$IDX"/*.profdata | wc -l) indexed profiles, $(du -sh "$IDX" | cut -f1) in $IDX"
echo "== $(ls "$TXT"/*.proftext | wc -l) text profiles, $(du -sh "$TXT" | cut -f1) in $TXT"
