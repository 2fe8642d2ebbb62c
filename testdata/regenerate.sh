#!/usr/bin/env bash
# regenerate.sh - rebuild testdata/profraw/<producer>/*.profraw from testdata/src with real
# compilers, verify every file with real llvm-profdata, and rewrite the generated part of
# testdata/README.md (between the BEGIN/END GENERATED markers).
#
# Needs root (chroot, bind mounts). Prerequisites, installed on demand:
#   host (bookworm):  clang-13, clang-14, clang-19, llvm-13/14/19 (llvm-profdata), gcc-multilib,
#                     libclang-rt-14-dev/19-dev; rustc stable and `rustup run nightly rustc`
#   /opt/pgo-merge-sid       clang-22/23  (../.ci/install-llvm-sid.sh, PGO_SID_WITH_CLANG=1)
#                            + gcc-multilib (installed here if missing, for -m32)
#   /opt/pgo-merge-bullseye  clang-9, clang-11  (./install-old-llvm.sh)
#   /opt/pgo-merge-trixie    clang-18           (./install-old-llvm.sh)
# Binaries built inside a root are also run inside it (they need its libc). Each root gets
# /tmp bind-mounted onto its own /tmp (left mounted, like the sid wrappers do); all work
# happens in a fresh directory under /tmp that is removed at the end (PGO_KEEP_WORK=1 keeps it).
#
# PGO_PRODUCERS="clang19 rustc" regenerates only those producers and leaves README.md alone
# (its table is rebuilt only by a full run). Idempotent: each regenerated producer directory is
# emptied first; profraw/third-party/ is never touched.
set -euo pipefail
unset LLVM_PROFILE_FILE CFLAGS CXXFLAGS LDFLAGS RUSTFLAGS || true
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(dirname "$HERE")
SRC=$HERE/src
OUT=$HERE/profraw
README=$HERE/README.md
SID=${PGO_SID_ROOT:-/opt/pgo-merge-sid}
BULLSEYE=${PGO_BULLSEYE_ROOT:-/opt/pgo-merge-bullseye}
TRIXIE=${PGO_TRIXIE_ROOT:-/opt/pgo-merge-trixie}
ALL_PRODUCERS="clang9 clang11 clang13 clang14 clang18 clang19 clang22 clang23 rustc rustc-nightly"
PRODUCERS=${PGO_PRODUCERS:-$ALL_PRODUCERS}
T0=$(date +%s)

die() { echo "regenerate.sh: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "must run as root (chroot, mount)"

# ---------------------------------------------------------------------------------------------
# 1. Tool chains
# ---------------------------------------------------------------------------------------------
need_host=""
for t in clang-13 clang-14 clang-19 llvm-profdata-13 llvm-profdata-14 llvm-profdata-19; do
  command -v "$t" >/dev/null || need_host=1
done
[ -e /usr/lib/llvm-19/lib/clang/19/lib/linux/libclang_rt.profile-i386.a ] || need_host=1
[ -e /usr/include/x86_64-linux-gnu/gnu/stubs-32.h ] || [ -e /usr/include/i386-linux-gnu/gnu/stubs-32.h ] || need_host=1
if [ -n "$need_host" ]; then
  echo "== installing host compilers"
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    clang-13 clang-14 clang-19 llvm-13 llvm-14 llvm-19 libclang-rt-14-dev libclang-rt-19-dev \
    gcc-multilib >/dev/null
fi
if [ ! -x "$SID/usr/bin/clang-22" ] || [ ! -x "$SID/usr/bin/clang-23" ] \
   || ! command -v llvm-profdata-22 >/dev/null || ! command -v llvm-profdata-23 >/dev/null; then
  PGO_SID_WITH_CLANG=1 bash "$REPO/.ci/install-llvm-sid.sh"
fi
if ! chroot "$SID" dpkg -s gcc-multilib >/dev/null 2>&1; then
  echo "== installing gcc-multilib in $SID (for -m32)"
  chroot "$SID" apt-get -o Acquire::Check-Valid-Until=false update -qq >/dev/null
  chroot "$SID" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    --no-install-recommends gcc-multilib >/dev/null
fi
if [ ! -x "$BULLSEYE/usr/bin/clang-9" ] || [ ! -x "$BULLSEYE/usr/bin/clang-11" ] \
   || [ ! -x "$TRIXIE/usr/bin/clang-18" ] || ! command -v llvm-profdata-9 >/dev/null \
   || ! command -v llvm-profdata-11 >/dev/null || ! command -v llvm-profdata-18 >/dev/null; then
  PGO_BULLSEYE_ROOT=$BULLSEYE PGO_TRIXIE_ROOT=$TRIXIE bash "$HERE/install-old-llvm.sh"
fi
for root in "$SID" "$BULLSEYE" "$TRIXIE"; do
  mkdir -p "$root/tmp"
  mountpoint -q "$root/tmp" || mount --bind /tmp "$root/tmp"
done
command -v rustc >/dev/null || die "rustc not found"
rustup run nightly rustc -vV >/dev/null 2>&1 || die "no nightly toolchain (rustup toolchain install nightly)"

# producer -> environment. P_ROOT empty = host.
declare -A P_ROOT P_CC P_CXX P_PD P_MAJOR
def() { P_ROOT[$1]=$2; P_CC[$1]=$3; P_CXX[$1]=$4; P_PD[$1]=$5; P_MAJOR[$1]=$6; }
def clang9  "$BULLSEYE" clang-9  clang++-9  llvm-profdata-9  9
def clang11 "$BULLSEYE" clang-11 clang++-11 llvm-profdata-11 11
def clang13 ""          clang-13 clang++-13 llvm-profdata-13 13
def clang14 ""          clang-14 clang++-14 llvm-profdata-14 14
def clang18 "$TRIXIE"   clang-18 clang++-18 llvm-profdata-18 18
def clang19 ""          clang-19 clang++-19 llvm-profdata-19 19
def clang22 "$SID"      clang-22 clang++-22 llvm-profdata-22 22
def clang23 "$SID"      clang-23 clang++-23 llvm-profdata-23 23
def rustc         "" rustc                    - llvm-profdata-22 22
def rustc-nightly "" "rustup run nightly rustc" - llvm-profdata-22 22

WORK=$(mktemp -d /tmp/pgo-merge-regen.XXXXXX)
chmod 755 "$WORK"
cleanup() { if [ "${PGO_KEEP_WORK:-0}" = 1 ]; then echo "work dir kept: $WORK"; else rm -rf "$WORK"; fi; }
trap cleanup EXIT
MANIFEST=$WORK/manifest.tsv     # producer, file, commands (\x1f separated), purpose
SKIPS=$WORK/skips.tsv           # producer, scenario, reason
: >"$MANIFEST"; : >"$SKIPS"

# ---------------------------------------------------------------------------------------------
# 2. Helpers
# ---------------------------------------------------------------------------------------------
# quote one word for display (readable shell quoting)
q() {
  if [[ $1 =~ ^[A-Za-z0-9_./=:,+%@-]+$ ]]; then printf '%s' "$1"
  else printf "'%s'" "${1//\'/\'\\\'\'}"; fi
}
qcmd() { local out="" w; for w in "$@"; do out+="$(q "$w") "; done; printf '%s' "${out% }"; }

P=""; D=""; CMDLOG=()
# x CMD...: run CMD for producer $P in directory $D (inside the producer's root if it has
# one), append the command to CMDLOG. Aborts the script on failure.
x() {
  CMDLOG+=("$(qcmd "$@")")
  local rc=0
  echo "\$ $(qcmd "$@")" >>"$D/log"
  if [ -n "${P_ROOT[$P]}" ]; then
    chroot "${P_ROOT[$P]}" /bin/sh -c 'cd "$0" && exec "$@"' "$D" "$@" >>"$D/log" 2>&1 || rc=$?
  else
    (cd "$D" && "$@") >>"$D/log" 2>&1 || rc=$?
  fi
  if [ $rc != 0 ]; then
    echo "---- $P: command failed (rc=$rc) in $D: $(qcmd "$@")" >&2
    tail -n 30 "$D/log" >&2
    exit 1
  fi
}
# xq CMD...: like x, but not part of the recorded commands (checks only); output in $D/check.out
xq() {
  local rc=0
  if [ -n "${P_ROOT[$P]}" ]; then
    chroot "${P_ROOT[$P]}" /bin/sh -c 'cd "$0" && exec "$@"' "$D" "$@" >"$D/check.out" 2>&1 || rc=$?
  else
    (cd "$D" && "$@") >"$D/check.out" 2>&1 || rc=$?
  fi
  if [ $rc != 0 ]; then
    echo "---- $P: check failed (rc=$rc) in $D: $(qcmd "$@")" >&2; cat "$D/check.out" >&2; exit 1
  fi
}
# cc / cxx ARGS...: the producer's C / C++ compiler (words of P_CC split on purpose)
cc()  { local c; read -r -a c <<<"${P_CC[$P]}"; x "${c[@]}" "$@"; }
cxx() { x "${P_CXX[$P]}" "$@"; }
run() { local f=$1; shift; x env "LLVM_PROFILE_FILE=$f" "$@"; }
# scenario NAME SOURCES...: fresh directory with copies of the sources, empty command log
scenario() {
  local name=$1; shift
  D=$WORK/$P/$name; mkdir -p "$D"; : >"$D/log"; CMDLOG=()
  local s; for s in "$@"; do cp "$SRC/$s" "$D/"; done
}
mark() { MARK=${#CMDLOG[@]}; }
rewind() { CMDLOG=("${CMDLOG[@]:0:$MARK}"); }
# emit FILE NAME PURPOSE: copy $D/FILE to profraw/$P/NAME.profraw and record its commands
emit() {
  local file=$1 name=$2 purpose=$3
  [ -s "$D/$file" ] || { echo "---- $P/$name: $file missing or empty" >&2; tail -n 20 "$D/log" >&2; exit 1; }
  cp "$D/$file" "$OUT/$P/$name.profraw"
  local IFS=$'\x1f'
  printf '%s\t%s\t%s\t%s\n' "$P" "$P/$name.profraw" "${CMDLOG[*]}" "$purpose" >>"$MANIFEST"
}
skip() { printf '%s\t%s\t%s\n' "$P" "$1" "$2" >>"$SKIPS"; }
ge() { [ "${P_MAJOR[$P]}" -ge "$1" ]; }

RUN1=(10 alpha)
RUN2=(37 hello-world 2024 ouija)

# ---------------------------------------------------------------------------------------------
# 3. Scenarios for a clang producer
# ---------------------------------------------------------------------------------------------
clang_scenarios() {
  local m32 sfx
  for m32 in "" -m32; do
    sfx=${m32:+-m32}
    scenario "ir-basic$sfx" basic.c
    cc -O2 -fprofile-generate $m32 basic.c -o basic; mark
    run "ir-basic$sfx-run1.profraw" ./basic "${RUN1[@]}"
    emit "ir-basic$sfx-run1.profraw" "ir-basic$sfx-run1" "IR PGO${m32:+, 32-bit}: counters, indirect-call targets (4 targets at one site) and memcpy/memset size value profiles; run 1 of 2"
    rewind
    run "ir-basic$sfx-run2.profraw" ./basic "${RUN2[@]}"
    emit "ir-basic$sfx-run2.profraw" "ir-basic$sfx-run2" "same binary as ir-basic$sfx-run1, other arguments (other counts, targets and sizes): merge partner for run1"

    scenario "fe-basic$sfx" basic.c
    cc -fprofile-instr-generate -fcoverage-mapping $m32 basic.c -o basic-fe
    run "fe-basic$sfx.profraw" ./basic-fe "${RUN1[@]}"
    emit "fe-basic$sfx.profraw" "fe-basic$sfx" "front-end instrumentation (clang coverage)${m32:+, 32-bit}: no IR flag, ':'-prefixed local names, FunctionPointer 0, no value profiles"
  done

  if ge 18; then
    for m32 in "" -m32; do
      sfx=${m32:+-m32}
      scenario "mcdc$sfx" mcdc.c
      cc -fprofile-instr-generate -fcoverage-mapping -fcoverage-mcdc $m32 mcdc.c -o mcdc
      run "mcdc$sfx.profraw" ./mcdc 0x5b3d
      emit "mcdc$sfx.profraw" "mcdc$sfx" "MC/DC${m32:+, 32-bit}: bitmap bytes (NumBitmapBytes, BitmapPtr/BitmapDelta, PaddingBytesAfterBitmapBytes) for 3 decisions"
    done
  else
    skip mcdc "clang < 18 rejects -fcoverage-mcdc (unknown argument); MC/DC bitmaps came with raw v9"
    skip mcdc-m32 "as mcdc"
  fi

  scenario cs-basic basic.c
  cc -O2 -fprofile-generate basic.c -o basic
  run ir.profraw ./basic "${RUN1[@]}"
  x "${P_PD[$P]}" merge -o ir.profdata ir.profraw
  cc -O2 -fprofile-use=ir.profdata -fcs-profile-generate basic.c -o basic-cs
  run cs-basic.profraw ./basic-cs "${RUN1[@]}"
  emit cs-basic.profraw cs-basic "context-sensitive IR PGO (CSIR flag; every FuncHash has bit 60 set)"

  if ge 18; then
    scenario temporal basic.c
    cc -O2 -fprofile-generate -mllvm -pgo-temporal-instrumentation basic.c -o basic-temporal; mark
    run temporal-run1.profraw ./basic-temporal "${RUN1[@]}"
    emit temporal-run1.profraw temporal-run1 "temporal profiling (TEMPORAL flag): first counter of each function is a timestamp; run 1"
    rewind
    run temporal-run2.profraw ./basic-temporal "${RUN2[@]}"
    emit temporal-run2.profraw temporal-run2 "temporal profiling, run 2 (a second trace for merging)"
  else
    skip temporal-run1 "clang < 18 here rejects -mllvm -pgo-temporal-instrumentation (unknown command line argument)"
    skip temporal-run2 "as temporal-run1"
  fi

  if ge 19; then
    local vt=(-fno-rtti -fno-exceptions -nostdinc++ -nostdlib++)
    for m32 in "" -m32; do
      sfx=${m32:+-m32}
      scenario "vtable$sfx" vtable.cpp
      cxx -O2 -fprofile-generate -mllvm -enable-vtable-value-profiling "${vt[@]}" $m32 vtable.cpp -o vtable; mark
      if [ -z "$m32" ]; then
        run vtable-run1.profraw ./vtable cstcsch 3
        emit vtable-run1.profraw vtable-run1 "C++ vtable value profiling: vtable records + vtable names (incl. an anonymous-namespace class), value kind 2 sites next to indirect-call sites; run 1"
        rewind
        run vtable-run2.profraw ./vtable ttshhcst 7
        emit vtable-run2.profraw vtable-run2 "vtable value profiling, run 2 (other type mix)"
      else
        run vtable-m32.profraw ./vtable cstcsch 3
        emit vtable-m32.profraw vtable-m32 "vtable value profiling, 32-bit (16-byte vtable records)"
      fi
    done
  else
    skip vtable-run1 "clang < 19 rejects -mllvm -enable-vtable-value-profiling; vtable sections came with raw v10"
    skip vtable-run2 "as vtable-run1"; skip vtable-m32 "as vtable-run1"
  fi

  if ge 14; then
    scenario entry-coverage basic.c
    cc -O2 -fprofile-generate -mllvm -pgo-function-entry-coverage basic.c -o basic-entry
    run entry-coverage.profraw ./basic-entry "${RUN1[@]}"
    emit entry-coverage.profraw entry-coverage "function entry coverage (BYTE_COVERAGE + FUNCTION_ENTRY_ONLY): one 1-byte counter per function, 0 = covered"
  else
    skip entry-coverage "clang < 14 rejects -mllvm -pgo-function-entry-coverage"
  fi

  if ge 18; then
    scenario block-coverage basic.c
    cc -O2 -fprofile-generate -mllvm -pgo-block-coverage basic.c -o basic-block
    run block-coverage.profraw ./basic-block "${RUN1[@]}"
    emit block-coverage.profraw block-coverage "block coverage (BYTE_COVERAGE): 1-byte counters, counter bytes not a multiple of 8"
  else
    skip block-coverage "clang < 18 here rejects -mllvm -pgo-block-coverage"
  fi

  if ge 11; then
    scenario entry-first basic.c
    cc -O2 -fprofile-generate -mllvm -pgo-instrument-entry basic.c -o basic-ef
    run entry-first.profraw ./basic-ef "${RUN1[@]}"
    emit entry-first.profraw entry-first "IR PGO with INSTR_ENTRY (entry-first) flag: counter 0 of each function is its entry count"
  else
    skip entry-first "clang 9 rejects -mllvm -pgo-instrument-entry"
  fi

  if ge 22; then
    scenario loop-entries basic.c
    cc -O2 -fprofile-generate -mllvm -pgo-instrument-loop-entries basic.c -o basic-le
    run loop-entries.profraw ./basic-le "${RUN1[@]}"
    emit loop-entries.profraw loop-entries "IR PGO with INSTR_LOOP_ENTRIES flag (bit 55)"
  else
    skip loop-entries "clang < 20 rejects -mllvm -pgo-instrument-loop-entries (18, 19 checked)"
  fi

  scenario uncompressed-names basic.c
  cc -O2 -fprofile-generate -mllvm -enable-name-compression=false basic.c -o basic-un
  run uncompressed-names.profraw ./basic-un "${RUN1[@]}"
  emit uncompressed-names.profraw uncompressed-names "IR PGO with uncompressed names section (chunk compressed length 0)"

  scenario two-tu tu_a.c tu_b.c
  cc -O2 -fprofile-generate tu_a.c tu_b.c -o two-tu
  run two-tu.profraw ./two-tu 9
  emit two-tu.profraw two-tu "two translation units, each with a static 'helper': file-prefixed local names, two name chunks"

  scenario exe-and-shlib shlib.c shlib_main.c
  cc -O2 -fprofile-generate -fPIC -shared shlib.c -o libshlib.so
  cc -O2 -fprofile-generate shlib_main.c -o shlib_main -L. -lshlib -Wl,-rpath,. # ($ORIGIN needs /proc, absent in the chroots)
  run exe-and-shlib.profraw ./shlib_main 13
  local bid=""; ge 13 && bid=" (each with its own build ID)"
  emit exe-and-shlib.profraw exe-and-shlib "executable + instrumented shared library writing to one file: two complete profiles back to back$bid; the library's indirect call targets a function of the executable (unresolvable name)"

  scenario merge-pool basic.c
  cc -O2 -fprofile-generate basic.c -o basic
  run 'merge-%m.profraw' ./basic "${RUN1[@]}"
  run 'merge-%m.profraw' ./basic "${RUN2[@]}"
  run 'merge-%m.profraw' ./basic 5
  local pool=("$D"/merge-*.profraw)
  [ ${#pool[@]} = 1 ] || { echo "---- $P/merge-pool: expected one pool file, got ${pool[*]}" >&2; exit 1; }
  emit "$(basename "${pool[0]}")" merge-pool "in-place merge by the runtime (%m pool file, 3 runs of ir-basic's binary): counters summed; with a PIE binary (ASLR) the indirect-call targets recorded by the first two runs no longer match the FunctionPointers of the last run and resolve to no name"

  local dic=""
  if [ "${P_MAJOR[$P]}" = 14 ]; then dic="-mllvm -debug-info-correlate"
  elif ge 18; then dic="-mllvm -profile-correlate=debug-info"; fi
  if [ -n "$dic" ]; then
    scenario debuginfo-correlate basic.c
    # -disable-vp: value profiling + debug-info correlation crashes clang 14..23 (segfault in
    # the instrprof pass / instruction selection), so value profiling is switched off
    cc -O2 -g -fprofile-generate -mllvm -disable-vp $dic basic.c -o basic-dic
    run debuginfo-correlate.profraw ./basic-dic "${RUN1[@]}"
    # check that the counters do correlate with the binary's debug info (the binary is not kept)
    xq "${P_PD[$P]}" show --debug-info=basic-dic --all-functions --counts debuginfo-correlate.profraw
    local nfun
    nfun=$(grep -c '^  [^ ].*:$' "$D/check.out" || true)
    [ "$nfun" -gt 0 ] || nfun=$(sed -n 's/^Found \([0-9]*\) functions.*/\1/p' "$D/check.out" | head -n1)
    emit debuginfo-correlate.profraw debuginfo-correlate "debug-info correlation (DBG_CORRELATE flag): NumData = 0, NamesSize = 0, counters only; names need the binary (not kept; \`${P_PD[$P]} show --debug-info=basic-dic\` found ${nfun:-?} functions at generation time); value profiling disabled"
  else
    skip debuginfo-correlate "no -debug-info-correlate / -profile-correlate before LLVM 14"
  fi
}

# ---------------------------------------------------------------------------------------------
# 4. Scenarios for a rustc producer
# ---------------------------------------------------------------------------------------------
rust_scenarios() {
  scenario ir rust/pgo.rs
  cc -O -Cprofile-generate=pgo-data pgo.rs -o pgo; mark
  run ir-run1.profraw ./pgo 5
  emit ir-run1.profraw ir-run1 "rustc IR PGO: '<cgu>;<mangled>' local names, dyn-trait indirect calls, generic instantiations; run 1"
  rewind
  run ir-run2.profraw ./pgo 9 circle rect tri rect dot
  emit ir-run2.profraw ir-run2 "rustc IR PGO, run 2 (other arguments)"

  scenario coverage rust/pgo.rs
  cc -Cinstrument-coverage pgo.rs -o pgo-cov
  run coverage.profraw ./pgo-cov 5 circle x
  emit coverage.profraw coverage "rustc -Cinstrument-coverage: front-end style profile, v0-mangled names, no value profiles"
}

# ---------------------------------------------------------------------------------------------
# 5. Build and run
# ---------------------------------------------------------------------------------------------
mkdir -p "$OUT"
declare -A P_VERSION
for P in $ALL_PRODUCERS; do
  case $P in
    rustc*) P_VERSION[$P]=$(${P_CC[$P]} -vV | awk '/^release:/{r=$2} /^LLVM version:/{l=$3} END{printf "rustc %s (LLVM %s)", r, l}') ;;
    *) if [ -n "${P_ROOT[$P]}" ]; then
         P_VERSION[$P]=$(chroot "${P_ROOT[$P]}" "${P_CC[$P]}" --version 2>/dev/null | head -n1)
       else P_VERSION[$P]=$("${P_CC[$P]}" --version | head -n1); fi ;;
  esac
  P_VERSION[$P]=${P_VERSION[$P]% }
done

for P in $PRODUCERS; do
  [ -n "${P_CC[$P]:-}" ] || die "unknown producer $P"
  echo "== $P: ${P_VERSION[$P]}"
  rm -rf "${OUT:?}/$P"; mkdir -p "$OUT/$P" "$WORK/$P"
  t=$(date +%s)
  case $P in
    rustc*) rust_scenarios ;;
    *) clang_scenarios ;;
  esac
  echo "   $(ls "$OUT/$P" | wc -l) files, $(( $(date +%s) - t )) s"
done

# ---------------------------------------------------------------------------------------------
# 6. Verify every file with every llvm-profdata we have and rewrite the README table
# ---------------------------------------------------------------------------------------------
READERS="9 11 13 14 18 19 22 23"
SHOW=(show --all-functions --counts --ic-targets --memop-sizes)
u64() { od -An -v -tx8 -j "$2" -N 8 "$1" | tr -d ' '; }
profiles() { od -An -v -tx8 -w8 "$1" | tr -d ' ' | grep -cE '^(ff6c70726f667281|ff6c70726f665281)$' || true; }
own_reader() {
  case $1 in
    third-party/llvm-*) local v=${1#third-party/llvm-}; echo "${v%%/*}" ;;
    *) local p=${1%%/*}; echo "${P_PD[$p]#llvm-profdata-}" ;;
  esac
}

TABLE=$WORK/table.md
FAIL=0
{
  echo "| file | bytes | bits | raw ver | version word (bytes 8..16) | profiles | functions | producer | commands (cwd = scenario dir; in the producer's root) | purpose | read OK by llvm-profdata |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
} >"$TABLE"

while IFS= read -r f; do
  rel=${f#"$OUT"/}
  line=$(awk -F'\t' -v f="$rel" '$2 == f' "$MANIFEST" | head -n1)
  producer=$(printf '%s' "$line" | cut -f1)
  cmds=$(printf '%s' "$line" | cut -f3 | sed 's/\x1f/`<br>`/g')
  purpose=$(printf '%s' "$line" | cut -f4)
  if [ -z "$line" ]; then
    case $rel in
      third-party/*) producer=third-party; cmds="see *Third-party files*"; purpose="see *Third-party files*" ;;
      *) producer=${rel%%/*}; cmds="(not regenerated in this run)"; purpose="" ;;
    esac
  fi
  size=$(stat -c %s "$f")
  magic=$(u64 "$f" 0)
  case $magic in ff6c70726f667281) bits=64 ;; ff6c70726f665281) bits=32 ;; *) bits="?" ;; esac
  vw=$(u64 "$f" 8)
  rawv=$((16#${vw:8:8}))
  ok=""
  own=$(own_reader "$rel")
  for r in $READERS; do
    if "llvm-profdata-$r" "${SHOW[@]}" "$f" >"$WORK/show.out" 2>"$WORK/show.err"; then
      ok+="${ok:+, }$r"
      if [ -s "$WORK/show.err" ]; then
        ok+=" (stderr)"
        echo "   note: llvm-profdata-$r prints on stderr for $rel: $(head -n1 "$WORK/show.err")"
      fi
    elif grep -q 'debug info for correlation is required' "$WORK/show.err"; then
      ok+="${ok:+, }$r (only with --debug-info=BINARY)"
    elif [ "$r" = "$own" ]; then
      echo "!! $rel: its own llvm-profdata-$r fails: $(head -n2 "$WORK/show.err" | tr '\n' ' ')"
      [ "$producer" = third-party ] || FAIL=1
    fi
  done
  # stronger check with the file's own reader: it must show at least one function record
  # (CS records are only shown with --showcs; correlation-mode files have none without the binary)
  hi=$((16#${vw:0:2}))
  cs=(); [ $((hi & 2)) = 0 ] || cs=(--showcs)
  nfunc=$("llvm-profdata-$own" show --all-functions "${cs[@]}" "$f" 2>/dev/null | grep -c '^ *Hash:' || true)
  if [ "$nfunc" = 0 ] && [ $((hi & 8)) = 0 ]; then
    echo "!! $rel: llvm-profdata-$own shows no function"; [ "$producer" = third-party ] || FAIL=1
  fi
  [ $((hi & 8)) = 0 ] || nfunc="0 (correlation)"
  pname=${P_VERSION[$producer]:-}
  printf '| `%s` | %s | %s | %s | `0x%s` | %s | %s | %s%s | `%s` | %s | %s |\n' \
    "profraw/$rel" "$size" "$bits" "$rawv" "$vw" "$(profiles "$f")" "$nfunc" "$producer" \
    "${pname:+ (${pname})}" "$cmds" "$purpose" "${ok:-none}" >>"$TABLE"
done < <(find "$OUT" -name '*.profraw' | sort -V)

{
  echo
  echo "### Scenarios not produced"
  echo
  echo "| producer | scenario | why |"
  echo "|---|---|---|"
  awk -F'\t' '{printf "| %s | %s | %s |\n", $1, $2, $3}' "$SKIPS"
  echo
  echo "### Producers"
  echo
  echo "| producer | version (\`--version\` first line / \`rustc -vV\`) | where it runs | own llvm-profdata |"
  echo "|---|---|---|---|"
  for p in $ALL_PRODUCERS; do
    printf '| %s | %s | %s | %s |\n' "$p" "${P_VERSION[$p]}" "${P_ROOT[$p]:-host (bookworm)}" "${P_PD[$p]}"
  done
} >>"$TABLE"

if [ "$PRODUCERS" != "$ALL_PRODUCERS" ]; then
  echo "== partial run (PGO_PRODUCERS): README.md not rewritten; table left in $TABLE"
  PGO_KEEP_WORK=1
elif [ -f "$README" ] && grep -q '<!-- BEGIN GENERATED -->' "$README"; then
  awk -v tbl="$TABLE" '
    /<!-- BEGIN GENERATED -->/ { print; while ((getline l < tbl) > 0) print l; skip = 1; next }
    /<!-- END GENERATED -->/ { skip = 0 }
    !skip { print }' "$README" >"$WORK/README.new"
  cp "$WORK/README.new" "$README"
else
  { echo; echo '<!-- BEGIN GENERATED -->'; cat "$TABLE"; echo '<!-- END GENERATED -->'; } >>"$README"
fi

echo "== $(find "$OUT" -name '*.profraw' | wc -l) files, $(du -sb "$OUT" | cut -f1) bytes in profraw/, $(( $(date +%s) - T0 )) s"
[ $FAIL = 0 ] || die "some files are not read by their own llvm-profdata (see above)"
