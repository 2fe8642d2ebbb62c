#!/usr/bin/env bash
# Records the GCC AutoFDO profiles in this folder: builds src/work.c with gcc, samples it with
# `perf record -e cpu-clock` and converts the samples with AutoFDO's create_gcov (Debian
# package `autofdo` 0.19; its libraries: libgoogle-glog0v6, libgflags2.2, libprotobuf32).
#
#   work-O2.afdo     gcc -O2, 2000 Hz
#   work-O3.afdo     gcc -O3 (more inlining), 2000 Hz
#   work-O2-b.afdo   gcc -O2 again, default frequency (a second run of the same binary)
#
# Why these options: this VM has no hardware PMU and no LBR, so perf samples the cpu-clock
# software event and create_gcov must not expect branch records (--use_lbr=false): the
# profiles have body counts and inline stacks but no call targets and no head samples.
# create_gcov 0.19 cannot read DWARF 5 (it reports "mangled .debug_info section" and writes
# an empty profile), hence -gdwarf-4; -no-pie keeps the addresses it symbolises absolute.
# The profiles are samples, so every run differs: the tests never assume their content,
# they compare our reading of them with llvm-profdata's.
set -euo pipefail
cd "$(dirname "$0")"
CREATE_GCOV=${CREATE_GCOV:-create_gcov}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
record() { # out.afdo opt [perf options...]
  local out=$1 opt=$2
  shift 2
  gcc "$opt" -gdwarf-4 -no-pie src/work.c -o "$tmp/work"
  perf record -q -e cpu-clock "$@" -o "$tmp/perf.data" "$tmp/work" 2000 >/dev/null
  "$CREATE_GCOV" --binary="$tmp/work" --profile="$tmp/perf.data" --gcov="$tmp/out.afdo" \
    --use_lbr=false 2>/dev/null
  cp "$tmp/out.afdo" "$out"
}
record work-O2.afdo -O2 -F 2000
record work-O3.afdo -O3 -F 2000
record work-O2-b.afdo -O2
ls -l ./*.afdo
