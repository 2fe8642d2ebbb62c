#!/usr/bin/env bash
# regenerate.sh - make the binary and extbinary forms of the hand-written sample profiles in
# this directory with the real llvm-profdata, and (optionally) real AutoFDO / pseudo-probe
# profiles of src/work.c with perf + llvm-profgen-19.
#
#   ./regenerate.sh            the binary/extbinary forms (llvm22/, llvm19/) - deterministic
#   ./regenerate.sh --real     also re-record the real profiles (real-*.prof.txt and
#                              real-*.profgen.extbinary.afdo); these depend on timing and change
#                              on every run
#
# Inputs (written by hand for these tests, no third-party content):
#   flat.prof.txt               flat: discriminators, call targets, nested inlined call sites
#                               (two levels, two callees at one site), `.__uniq.` names, a zero
#                               function
#   flat-second.prof.txt        a second flat profile to merge with flat (u64::MAX counts)
#   fs-discriminators.prof.txt  flow-sensitive discriminators (up to 2^32-1)
#   cs.prof.txt                 context-sensitive `[a:1 @ b:2.1 @ c]` with `!Attributes`
#   cs-probe.prof.txt           context-sensitive, probe-based: `!CFGChecksum` + `!Attributes`
#   probe.prof.txt              probe-based, flat, with inlinees carrying their own checksums
#   preinlined.prof.txt         `!Attributes: 2` (pre-inlined) without contexts
#   vtables.prof.txt            LLVM 22's `vtables` lines at every depth, some at locations
#                               without a body line
#   prof-sym-list.txt           a symbol list for `--prof-sym-list` (text cannot carry one)
#
# Outputs: llvm22/<input>.<variant>.afdo for every input and variant below, written by
# llvm-profdata-22; llvm19/<input>.<variant>.afdo only where llvm-profdata-19 writes other bytes
# (or has the variant and 22 does not). Variants:
#   binary        merge --sample --binary
#   extbinary     merge --sample --extbinary
#   md5           --extbinary --use-md5 (fixed-length MD5 name table: the only MD5 table
#                 llvm-profdata 19-23 write; the older ULEB128 MD5 table cannot be made by them)
#   compress      --extbinary --compress-all-sections
#   md5-compress  --extbinary --use-md5 --compress-all-sections
#   partial       --extbinary --gen-partial-profile
#   symlist       --extbinary --prof-sym-list=prof-sym-list.txt
#   symlist-compress  the same, compressed
#   split         --extbinary --split-layout (llvm-profdata-22 only; 19 has no such option)
#   vtables       --extbinary --extbinary-write-vtable-type-prof (22 only): vtable type counts
#                 after every body (vtables.prof.txt has them; other inputs get empty lists)
#
# Real profiles (--real): perf in this VM has no hardware events and no LBR, so llvm-profgen's
# normal LBR modes cannot be used. llvm-profgen-19 has `--leading-ip-only`, which builds a
# profile from the sampled instruction pointers alone; its perf-script type check still wants
# an LBR-looking record on each sample line, so a dummy `0x0/0x0/P/-/-/0` entry is appended
# (ignored in that mode). That gives real AutoFDO (-fdebug-info-for-profiling) and real
# pseudo-probe (-fpseudo-probe-for-profiling) profiles. Context-sensitive (CSSPGO) profiles
# need LBR for the hybrid unwinder: with `perf record -g` stacks and a fabricated LBR the
# unwinder finds no sample inside the binary ("100% of samples have leaf external frame"), so
# none are made here; the context-sensitive inputs are the hand-written ones.
set -euo pipefail
shopt -s nullglob
export LC_ALL=C
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$HERE"
P22=${LLVM_PROFDATA_22:-llvm-profdata-22}
P19=${LLVM_PROFDATA_19:-llvm-profdata-19}

if [ "${1:-}" = --real ]; then
  WORK=$(mktemp -d)
  trap 'rm -rf "$WORK"' EXIT
  clang-19 -O2 -g -fdebug-info-for-profiling -o "$WORK/work-dwarf" src/work.c
  clang-19 -O2 -g -fdebug-info-for-profiling -fpseudo-probe-for-profiling \
    -o "$WORK/work-probe" src/work.c
  for kind in dwarf probe; do
    perf record -q -e cpu-clock -c 100000 -o "$WORK/$kind.data" "$WORK/work-$kind" 2000000 \
      >/dev/null
    perf script -i "$WORK/$kind.data" --show-mmap-events -F ip 2>/dev/null |
      awk '/PERF_RECORD/ {print; next} {print $0 " 0x0/0x0/P/-/-/0"}' >"$WORK/$kind.script"
    name=real-autofdo; [ $kind = probe ] && name=real-probe
    llvm-profgen-19 --perfscript "$WORK/$kind.script" --binary "$WORK/work-$kind" \
      --leading-ip-only --format=text --output "$name.prof.txt"
    # profgen's own extbinary writer, with a real profile symbol list of the binary
    llvm-profgen-19 --perfscript "$WORK/$kind.script" --binary "$WORK/work-$kind" \
      --leading-ip-only --populate-profile-symbol-list --output "$name.profgen.extbinary.afdo"
  done
fi

variants() { # <llvm-profdata> <version>
  local tool=$1 ver=$2
  echo "binary --binary"
  echo "extbinary --extbinary"
  echo "md5 --extbinary --use-md5"
  echo "compress --extbinary --compress-all-sections"
  echo "md5-compress --extbinary --use-md5 --compress-all-sections"
  echo "partial --extbinary --gen-partial-profile"
  echo "symlist --extbinary --prof-sym-list=prof-sym-list.txt"
  echo "symlist-compress --extbinary --prof-sym-list=prof-sym-list.txt --compress-all-sections"
  [ "$ver" = 22 ] && echo "split --extbinary --split-layout"
  [ "$ver" = 22 ] && echo "vtables --extbinary --extbinary-write-vtable-type-prof"
  return 0
}

rm -rf llvm22 llvm19
mkdir -p llvm22 llvm19
ERR=$(mktemp)
# Combinations a version refuses are listed in llvmNN/REFUSED with its message.
for input in *.prof.txt; do
  base=${input%.prof.txt}
  while read -r variant args; do
    # shellcheck disable=SC2086
    if ! "$P22" merge --sample $args "$input" -o "llvm22/$base.$variant.afdo" 2>"$ERR"; then
      echo "$base.$variant: $(head -1 "$ERR")" >>llvm22/REFUSED
      rm -f "llvm22/$base.$variant.afdo"
    fi
  done < <(variants "$P22" 22)
  while read -r variant args; do
    # shellcheck disable=SC2086
    if ! "$P19" merge --sample $args "$input" -o "llvm19/$base.$variant.afdo" 2>"$ERR"; then
      echo "$base.$variant: $(head -1 "$ERR")" >>llvm19/REFUSED
      rm -f "llvm19/$base.$variant.afdo"
      continue
    fi
    if [ -f "llvm22/$base.$variant.afdo" ] &&
      cmp -s "llvm19/$base.$variant.afdo" "llvm22/$base.$variant.afdo"; then
      rm "llvm19/$base.$variant.afdo"
    fi
  done < <(variants "$P19" 19)
done
# Every output should read back with both versions; those that do not (llvm-profdata-22
# writes `--split-layout` files of context-sensitive profiles that it cannot read itself) are
# listed in UNREADABLE with the reader's message.
rm -f UNREADABLE
for f in llvm22/*.afdo llvm19/*.afdo real-*.afdo; do
  for p in "$P22" "$P19"; do
    if ! "$p" show --sample "$f" >/dev/null 2>"$ERR"; then
      echo "$f by $(basename "$p"): $(head -1 "$ERR")" >>UNREADABLE
    fi
  done
done
rm -f "$ERR"
echo "regenerate.sh: $(ls llvm22 | wc -l) files in llvm22/, $(ls llvm19 | wc -l) in llvm19/"
