#!/usr/bin/env bash
# Makes the lightweight-instrumentation recordings of this directory (clang-19, ELF x86-64):
# binaries built with -mllvm -profile-correlate=binary (data records and names stay in the
# binary) and the raw profiles their runs wrote.
#   exe-pie-O2      prog.c and shape.c, PIE at -O2: one profile per run
#   exe-nopie-O0    prog.c, non-PIE at -O0, linked with libshape.so
#   libshape.so     shape.c, a shared library with its own profile: a run of exe-nopie-O0
#                   appends the library's profile to the exe's (two profiles, two build IDs)
#   *.stripped      the same binaries stripped (no symbols; the sections stay)
#   run-*.profraw   one run each
# and with debug-info correlation (-g; records and names are read from the DWARF):
#   dbg14-O0        clang-14 -mllvm -debug-info-correlate, -O0, PIE (raw version 8)
#   dbg19-O2-dwarf4 clang-19 -mllvm -profile-correlate=debug-info, -O2, DWARF 4 (DW_OP_addr),
#                   non-PIE
#   dbg19-O1-gz     the same at -O1, DWARF 5 (DW_OP_addrx), PIE, debug sections
#                   zlib-compressed (-gz=zlib)
#   dbg-*.profraw   two runs of each
# and, with both modes:
#   cxx-bin-O2      shapes.cpp, clang++-19, binary correlation, -O2
#   cxx-dbg-O0      shapes.cpp, clang++-19, debug-info correlation, -O0
#   m32-bin-O1      prog.c and shape.c, 32-bit (-m32), binary correlation
#   m32-dbg-O1      the same, debug-info correlation, DWARF 4
#   two-*.profraw   two runs of each
# with clang-22 (raw version 10, correlated by llvm-profdata-19 and -22; Debian sid's clang-22):
#   c22-bin-O2      prog.c and shape.c, binary correlation, -O2
#   c22-dbg-O1      the same, debug-info correlation, -O1
# and with clang-23 (raw version 11, which only llvm-profdata-23 correlates; Debian sid's
# clang-23, see .ci/install-llvm-sid.sh with PGO_SID_WITH_CLANG=1):
#   c23-bin-O2      prog.c and shape.c, binary correlation, -O2
#   c23-dbg-O1      the same, debug-info correlation, -O1
# and MC/DC coverage (-fprofile-instr-generate -fcoverage-mapping -fcoverage-mcdc), both
# modes, by clang-19 (whose correlators drop the bitmaps) and clang-23 (which keeps them):
#   mcdc19-bin, mcdc19-dbg, mcdc23-bin, mcdc23-dbg
#   mcdc23-inl-bin, mcdc23-inl-dbg   mcdc.c at -O2 -g by clang-23 (inlined MC/DC functions)
#   two-*.profraw   two runs of each
# The big-endian recordings (be-*, s390x-*) are made by regenerate-be.sh.
# Value profiling is off (-disable-vp): the C++ program makes virtual calls.
# Value profiling is off: clang-19's lightweight binaries crash at run time on indirect
# calls otherwise. Binaries and profiles are committed gzipped.
set -euo pipefail
cd "$(dirname "$0")"
CC=${CC:-clang-19}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags=(-fprofile-generate -mllvm -profile-correlate=binary -mllvm -disable-vp=true -Wl,--build-id)
"$CC" "${flags[@]}" -O2 -fPIC -shared shape.c -o "$work/libshape.so"
"$CC" "${flags[@]}" -O2 -fPIE -pie prog.c shape.c -o "$work/exe-pie-O2"
"$CC" "${flags[@]}" -O0 -fno-pie -no-pie prog.c -L"$work" -lshape -o "$work/exe-nopie-O0"
for b in libshape.so exe-pie-O2 exe-nopie-O0; do
  strip -o "$work/$b.stripped" "$work/$b"
done
run() { # run NAME EXE ARGS...
  local name=$1 exe=$2
  shift 2
  LD_LIBRARY_PATH="$work" LLVM_PROFILE_FILE="$work/$name.profraw" "$work/$exe" "$@" >/dev/null
}
run run-pie-1 exe-pie-O2 30 all
run run-pie-2 exe-pie-O2 7 words
run run-nopie-1 exe-nopie-O0 25 primes
run run-nopie-2 exe-nopie-O0 11 collatz
CC14=${CC14:-clang-14}
dbg=(-fprofile-generate -mllvm -disable-vp=true -Wl,--build-id)
"$CC14" -g -O0 "${dbg[@]}" -mllvm -debug-info-correlate prog.c shape.c -o "$work/dbg14-O0"
"$CC" -gdwarf-4 -O2 -fno-pie -no-pie "${dbg[@]}" -mllvm -profile-correlate=debug-info \
  prog.c shape.c -o "$work/dbg19-O2-dwarf4"
"$CC" -g -gz=zlib -O1 "${dbg[@]}" -mllvm -profile-correlate=debug-info prog.c shape.c \
  -o "$work/dbg19-O1-gz"
for b in dbg14-O0 dbg19-O2-dwarf4 dbg19-O1-gz; do
  run "dbg-$b-1" "$b" 20 all
  run "dbg-$b-2" "$b" 9 words
done
CXX=${CXX:-clang++-19}
bin=(-fprofile-generate -mllvm -profile-correlate=binary -mllvm -disable-vp=true -Wl,--build-id)
dbgi=(-g -fprofile-generate -mllvm -profile-correlate=debug-info -mllvm -disable-vp=true -Wl,--build-id)
"$CXX" -O2 "${bin[@]}" shapes.cpp -o "$work/cxx-bin-O2"
"$CXX" -O0 "${dbgi[@]}" shapes.cpp -o "$work/cxx-dbg-O0"
"$CC" -m32 -O1 "${bin[@]}" prog.c shape.c -o "$work/m32-bin-O1"
"$CC" -m32 -O1 -gdwarf-4 "${dbgi[@]}" prog.c shape.c -o "$work/m32-dbg-O1"
for b in cxx-bin-O2 cxx-dbg-O0; do
  run "two-$b-1" "$b" 7
  run "two-$b-2" "$b" 40
done
for b in m32-bin-O1 m32-dbg-O1; do
  run "two-$b-1" "$b" 15 all
  run "two-$b-2" "$b" 6 words
done
CC22=${CC22:-clang-22}
"$CC22" -O2 "${bin[@]}" prog.c shape.c -o "$work/c22-bin-O2"
"$CC22" -O1 "${dbgi[@]}" prog.c shape.c -o "$work/c22-dbg-O1"
CC23=${CC23:-clang-23}
"$CC23" -O2 "${bin[@]}" prog.c shape.c -o "$work/c23-bin-O2"
"$CC23" -O1 "${dbgi[@]}" prog.c shape.c -o "$work/c23-dbg-O1"
mcdc=(-fprofile-instr-generate -fcoverage-mapping -fcoverage-mcdc -mllvm -disable-vp=true
  -Wl,--build-id)
for v in 19 23; do
  cc=$CC
  [ "$v" = 23 ] && cc=$CC23
  "$cc" -O1 "${mcdc[@]}" -mllvm -profile-correlate=binary prog.c shape.c -o "$work/mcdc$v-bin"
  "$cc" -O1 -g "${mcdc[@]}" -mllvm -profile-correlate=debug-info prog.c shape.c \
    -o "$work/mcdc$v-dbg"
done
for b in c22-bin-O2 c22-dbg-O1 c23-bin-O2 c23-dbg-O1 mcdc19-bin mcdc19-dbg mcdc23-bin mcdc23-dbg; do
  run "two-$b-1" "$b" 20 all
  run "two-$b-2" "$b" 9 words
done
"$CC23" -O2 -g "${mcdc[@]}" -mllvm -profile-correlate=binary mcdc.c -o "$work/mcdc23-inl-bin"
"$CC23" -O2 -g "${mcdc[@]}" -mllvm -profile-correlate=debug-info mcdc.c \
  -o "$work/mcdc23-inl-dbg"
for b in mcdc23-inl-bin mcdc23-inl-dbg; do
  run "two-$b-1" "$b" 9 || true # main returns the parity of its total
  run "two-$b-2" "$b" 4 || true
done
# Every recording of this script, not regenerate-be.sh's.
find . -maxdepth 1 -name '*.gz' ! -name 'be-*' ! -name 's390x-*' ! -name 'ppc32-*' -delete
for f in "$work"/*; do
  gzip -9n <"$f" >"$(basename "$f").gz"
done
ls -l ./*.gz
