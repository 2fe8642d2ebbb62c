#!/usr/bin/env bash
# ripgrep-workload.sh - make the "ripgrep" benchmark inputs of issue 16: a mid-size Rust
# program (ripgrep, ~13k instrumented functions, ~1.7 MB per raw profile) built the way
# `cargo pgo build` builds it (RUSTFLAGS=-Cprofile-generate), run RUNS times (default 24) on
# varied searches over a source tree, giving RUNS raw profiles of one binary.
#
#   bash benches/ripgrep-workload.sh [OUT]        # OUT defaults to /tmp/pgo-merge-bench/ripgrep
#   RUNS=24 RG_VERSION=14.1.1 CORPUS=~/.cargo/registry/src bash benches/ripgrep-workload.sh
#
# Where ripgrep comes from: crates.io, with `cargo install --locked` (nothing of it is
# committed). The raw profile version is the one of the LLVM inside the rustc that builds it
# (rustc 1.95 carries LLVM 22: raw version 10, which llvm-profdata-22 reads).
#
# The corpus is a directory of source files; the default is cargo's registry sources
# (~/.cargo/registry/src, a few hundred MB of Rust), which every machine that builds this
# project has. The searches are deterministic: run i uses search i of a fixed list (modes:
# literals, regexes, case-insensitive, word, count, files-with-matches, multiline, globs,
# type filters, context lines, replacement, JSON output, PCRE-free fallbacks), so the counters
# differ between runs and the same command makes the same files again (up to counters that
# depend on thread scheduling: ripgrep searches in parallel).
set -euo pipefail
unset LLVM_PROFILE_FILE || true
export LC_ALL=C

OUT=${1:-/tmp/pgo-merge-bench/ripgrep}
RUNS=${RUNS:-24}
RG_VERSION=${RG_VERSION:-14.1.1}
WORK=${WORK:-/tmp/pgo-merge-bench/ripgrep-build}
CORPUS=${CORPUS:-$HOME/.cargo/registry/src}
mkdir -p "$OUT" "$WORK"
OUT=$(cd "$OUT" && pwd)
WORK=$(cd "$WORK" && pwd)
die() { echo "ripgrep-workload.sh: $*" >&2; exit 1; }
[ -d "$CORPUS" ] || die "no corpus directory $CORPUS (set CORPUS=DIR)"

# 1. Instrumented ripgrep ---------------------------------------------------------------------
BIN=$WORK/bin/rg
if [ ! -x "$BIN" ] || [ "$(cat "$WORK/VERSION" 2>/dev/null)" != "$RG_VERSION" ]; then
  echo "== building ripgrep $RG_VERSION with -Cprofile-generate (several minutes)"
  # -Cprofile-generate is what `cargo pgo build` passes; the profile directory is overridden
  # per run by LLVM_PROFILE_FILE below.
  RUSTFLAGS="-Cprofile-generate=$WORK/pgo" CARGO_TARGET_DIR=$WORK/target \
    nice cargo install --quiet --locked --force --root "$WORK" "ripgrep@$RG_VERSION" \
    || die "cargo install ripgrep@$RG_VERSION failed"
  echo "$RG_VERSION" >"$WORK/VERSION"
fi

# 2. Searches ---------------------------------------------------------------------------------
# One search per line; run i uses line ((i - 1) mod count) + 1, with the run number available
# as $i for variation. Arguments are word-split (no quoting inside a line beyond what bash does).
searches() {
  local i=$1
  case $(( (i - 1) % 24 )) in
    0) echo "fn main" ;;
    1) echo "-i unsafe" ;;
    2) echo "-w impl.*Iterator" ;;
    3) echo "-c TODO" ;;
    4) echo "-l -e unwrap\(\) -e expect\(" ;;
    5) echo "-n -C2 panic!" ;;
    6) echo "--type rust -e struct\s+[A-Z]\w+<" ;;
    7) echo "-g *.toml -e ^version\s*=" ;;
    8) echo "--json -m 3 Result<" ;;
    9) echo "-U -e fn\s+\w+\(\s*\n" ;;
    10) echo "-F -e .unwrap() -e .clone()" ;;
    11) echo "-o -e [0-9]+\.[0-9]+\.[0-9]+" ;;
    12) echo "-r \$1 -e fn\s+(\w+) -m 2" ;;
    13) echo "-v -c -e ^\s*//" ;;
    14) echo "--files-without-match -e #\[test\]" ;;
    15) echo "-S Error" ;;
    16) echo "-t md -i -e license" ;;
    17) echo "--count-matches -e \bmatch\b" ;;
    18) echo "-x -e \s*\}" ;;
    19) echo "--stats -q -e a{3,}" ;;
    20) echo "-e [\p{Greek}]+" ;;
    21) echo "--sort path -l -e #!\[no_std\]" ;;
    22) echo "-B1 -A1 -e unreachable!" ;;
    23) echo "--vimgrep -e const\s+[A-Z_]{$(( 4 + i % 5 )),}" ;;
  esac
}

echo "== running $RUNS searches over $CORPUS into $OUT"
rm -f "$OUT"/*.profraw
for i in $(seq 1 "$RUNS"); do
  f=$(printf '%s/rg-%02d.profraw' "$OUT" "$i")
  # Word splitting of the search line is intended; globbing is not.
  set -f
  # shellcheck disable=SC2046
  (cd "$CORPUS" && LLVM_PROFILE_FILE=$f "$BIN" --no-config $(searches "$i") . >/dev/null 2>&1) || true
  set +f
  [ -s "$f" ] || die "no profile written for run $i ($(searches "$i"))"
done
n=$(ls "$OUT"/*.profraw | wc -l)
echo "== $n raw profiles, $(du -sh "$OUT" | cut -f1) in $OUT"
