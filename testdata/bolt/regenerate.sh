#!/bin/sh
# Records the BOLT profiles in this directory (needs clang-19, bolt-19 and perf):
#   prog            prog.c built with clang-19 -O2 -no-pie -Wl,--emit-relocs (gzipped: prog.gz)
#   runN.fdata      llvm-bolt-19 -instrument profiles of five runs with different inputs
#   runN.yaml       the same profiles as YAML (llvm-bolt-19 -data runN.fdata -w runN.yaml)
#   nolbrN.fdata    perf2bolt -nl profiles of cpu-clock samples (no LBR on the machine),
#   nolbrN.yaml     and two of them as YAML (-profile-format=yaml)
#   rust/rustN.fdata.gz, rust/rustN.yaml.gz
#                   rust/prog.rs built with rustc -O -C link-args=-Wl,--emit-relocs, three
#                   instrumented runs (the binary is not kept: 7 MB)
# Debian's bolt-19 looks for its runtime under /usr/lib (hence the relative path below),
# and its perf2bolt-19 link runs as llvm-bolt (hence llvm-bolt-19 -aggregate-only).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
clang-19 -O2 -fno-pie -no-pie -Wl,--emit-relocs "$here/prog.c" -o prog
llvm-bolt-19 prog -instrument -runtime-instrumentation-lib=llvm-19/lib/libbolt_rt_instr.a \
  -instrumentation-file="$work/p" -instrumentation-file-append-pid -o prog.inst >/dev/null
n=0
for a in "mixed 2000" "collatz 500" "primes 3000" "other 800" "mixed 50"; do
  n=$((n + 1))
  # shellcheck disable=SC2086
  ./prog.inst $a >/dev/null
  mv p.*.fdata "run$n.fdata"
  llvm-bolt-19 prog -o /dev/null -data "run$n.fdata" -w "run$n.yaml" >/dev/null 2>&1
done
for i in 1 2 3; do
  perf record -q -e cpu-clock:u -o perf$i.data -- ./prog mixed $((100000 * i)) >/dev/null 2>&1
  llvm-bolt-19 prog -aggregate-only -nl -p perf$i.data -o "nolbr$i.fdata" >/dev/null 2>&1
  if [ "$i" -le 2 ]; then
    llvm-bolt-19 prog -aggregate-only -nl -p perf$i.data -profile-format=yaml \
      -o "nolbr$i.yaml" >/dev/null 2>&1
  fi
done
rustc -O -C link-args=-Wl,--emit-relocs "$here/rust/prog.rs" -o rprog
llvm-bolt-19 rprog -instrument -runtime-instrumentation-lib=llvm-19/lib/libbolt_rt_instr.a \
  -instrumentation-file="$work/r" -instrumentation-file-append-pid -o rprog.inst >/dev/null
n=0
for a in 100 2000 50; do
  n=$((n + 1))
  ./rprog.inst $a >/dev/null
  mv r.*.fdata "rust$n.fdata"
  llvm-bolt-19 rprog -o /dev/null -data "rust$n.fdata" -w "rust$n.yaml" >/dev/null 2>&1
  gzip -9n <"rust$n.fdata" >"$here/rust/rust$n.fdata.gz"
  gzip -9n <"rust$n.yaml" >"$here/rust/rust$n.yaml.gz"
done
gzip -9n <prog >"$here/prog.gz"
cp run*.fdata run*.yaml nolbr*.fdata nolbr*.yaml "$here/"
