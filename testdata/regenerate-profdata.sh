#!/usr/bin/env bash
# Makes testdata/profdata/: indexed (.profdata) and text (.proftext) profiles written by the
# real llvm-profdata 14, 19, 22 and 23 from the raw profiles in testdata/profraw/. The tests
# read them back and compare with what llvm-profdata shows (issue: indexed and text inputs).
# Needs llvm-profdata-14, -19, -22 and -23 on PATH (see .ci/run and .ci/install-llvm-sid.sh).
set -euo pipefail
cd "$(dirname "$0")"
out=profdata
rm -rf "$out"
mkdir -p "$out"

# name | llvm-profdata versions | raw inputs (relative to profraw/)
while IFS='|' read -r name tools inputs; do
  [ -n "$name" ] || continue
  for t in $tools; do
    files=""
    for i in $inputs; do files="$files profraw/$i"; done
    llvm-profdata-$t merge --num-threads=1 -o "$out/$name-llvm$t.profdata" $files
    llvm-profdata-$t merge --num-threads=1 --text -o "$out/$name-llvm$t.proftext" $files
  done
done <<'LIST'
clang22-ir|19 22|clang22/ir-basic-run1.profraw clang22/ir-basic-run2.profraw
clang22-ir-m32|22|clang22/ir-basic-m32-run1.profraw clang22/ir-basic-m32-run2.profraw
clang22-vtable|19 22|clang22/vtable-run1.profraw clang22/vtable-run2.profraw
clang22-temporal|19 22|clang22/temporal-run1.profraw clang22/temporal-run2.profraw
clang22-cs|19 22|clang22/cs-basic.profraw clang22/ir-basic-run1.profraw
clang22-mcdc|19 22|clang22/mcdc.profraw
clang22-fe|19 22|clang22/fe-basic.profraw
clang22-coverage|19 22|clang22/entry-coverage.profraw
clang22-block-coverage|22|clang22/block-coverage.profraw
clang22-entry-first|22|clang22/entry-first.profraw
clang22-loop-entries|22|clang22/loop-entries.profraw
clang22-exe-shlib|22|clang22/exe-and-shlib.profraw
clang19-ir|19 22|clang19/ir-basic-run1.profraw clang19/ir-basic-run2.profraw clang19/merge-pool.profraw
clang19-two-tu|19|clang19/two-tu.profraw
rustc-ir|19 22|rustc/ir-run1.profraw rustc/ir-run2.profraw
rustc-coverage|22|rustc/coverage.profraw
clang14-ir|14|clang14/ir-basic-run1.profraw clang14/ir-basic-run2.profraw
clang14-fe|14|clang14/fe-basic.profraw
clang14-cs|14|clang14/cs-basic.profraw clang14/ir-basic-run1.profraw
clang14-exe-shlib|14|clang14/exe-and-shlib.profraw
clang23-ir|23|clang23/ir-basic-run1.profraw clang23/ir-basic-run2.profraw
clang23-mcdc|23|clang23/mcdc.profraw
LIST

# Version-11 files as `--write-prev-version` writes them (LLVM 19 and 22).
llvm-profdata-22 merge --write-prev-version -o "$out/clang22-ir-prev-llvm22.profdata" profraw/clang22/ir-basic-run1.profraw profraw/clang22/ir-basic-run2.profraw
llvm-profdata-19 merge --write-prev-version -o "$out/clang22-mcdc-prev-llvm19.profdata" profraw/clang22/mcdc.profraw
# A temporal profile whose traces were sampled (reservoir 2 of 6 traces).
llvm-profdata-22 merge --num-threads=1 --temporal-profile-trace-reservoir-size=2 -o "$out/clang22-temporal-sampled-llvm22.profdata" \
  profraw/clang22/temporal-run1.profraw profraw/clang22/temporal-run2.profraw profraw/clang22/temporal-run1.profraw \
  profraw/clang22/temporal-run2.profraw profraw/clang22/temporal-run1.profraw profraw/clang22/temporal-run2.profraw
ls -l "$out" | awk 'NR>1 {n++; s+=$5} END {print n " files, " s " bytes"}'
