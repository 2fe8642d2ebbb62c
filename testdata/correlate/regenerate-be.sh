#!/usr/bin/env bash
# Makes the big-endian lightweight recordings of this directory: prog.c and shape.c built
# by clang-19 for s390x (64-bit, big-endian) and 32-bit PowerPC (big-endian) on an x86-64
# host, run under qemu-user.
#   s390x-bin-O2        -profile-correlate=binary, -O2, PIE
#   s390x-dbg-O1        -profile-correlate=debug-info, -O1, DWARF 5
#   s390x-full-O2       the same program as s390x-bin-O2 built with ordinary (not
#                       lightweight) -fprofile-generate: its raw profiles hold their own data
#                       records and names, so any llvm-profdata reads them on any host. They
#                       are the reference for what the lightweight build counted.
#   ppc32-bin-O2, ppc32-dbg-O1, ppc32-full-O2
#                       the same three for 32-bit PowerPC, non-PIE (qemu-ppc crashes on
#                       lld's 32-bit PowerPC PIEs, with or without profiling)
#   be-*-{1,2}.profraw  two runs of each (the same arguments for every build)
#
# Needs (Debian bookworm, as root):
#   dpkg --add-architecture s390x && apt-get update
#   apt-get install qemu-user-static libc6-dev-s390x-cross libgcc-12-dev-s390x-cross
#   apt-get download libclang-rt-19-dev:s390x   (only libclang_rt.profile is used; it is
#                                                unpacked into a private resource directory)
#   apt-get install libc6-dev-powerpc-cross libgcc-12-dev-powerpc-cross
# Debian has no 32-bit PowerPC profile runtime: it is compiled here from compiler-rt's
# lib/profile of Debian's llvm-toolchain-19 source package (set LLVM_SRC to an unpacked
# copy, or have a deb-src line for bookworm so that `apt-get source` fetches it, 160 MB).
# and clang-19 with lld-19. CI does not run this script: the tests read the recordings.
set -euo pipefail
cd "$(dirname "$0")"
CC=${CC:-clang-19}
QEMU=${QEMU:-qemu-s390x-static}
SYSROOT=${SYSROOT:-/usr/s390x-linux-gnu}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A resource directory of clang-19's headers and the s390x profile runtime.
res="$work/res"
mkdir -p "$res/lib/s390x-unknown-linux-gnu" "$work/deb"
ln -s "$("$CC" -print-resource-dir)/include" "$res/include"
(cd "$work/deb" && apt-get download libclang-rt-19-dev:s390x >/dev/null 2>&1)
dpkg -x "$work"/deb/*.deb "$work/deb/x"
find "$work/deb/x" -name 'libclang_rt.profile-s390x.a' \
  -exec cp {} "$res/lib/s390x-unknown-linux-gnu/libclang_rt.profile.a" \;
t=(--target=s390x-linux-gnu -resource-dir="$res" -fuse-ld=lld -Wl,--build-id
  -fprofile-generate -mllvm -disable-vp=true)
"$CC" "${t[@]}" -O2 -mllvm -profile-correlate=binary prog.c shape.c -o "$work/s390x-bin-O2"
"$CC" "${t[@]}" -O2 prog.c shape.c -o "$work/s390x-full-O2"
"$CC" "${t[@]}" -g -O1 -mllvm -profile-correlate=debug-info prog.c shape.c \
  -o "$work/s390x-dbg-O1"
out="$work/out"
mkdir -p "$out"
for b in s390x-bin-O2 s390x-full-O2 s390x-dbg-O1; do
  LLVM_PROFILE_FILE="$out/be-$b-1.profraw" "$QEMU" -L "$SYSROOT" "$work/$b" 20 all >/dev/null
  LLVM_PROFILE_FILE="$out/be-$b-2.profraw" "$QEMU" -L "$SYSROOT" "$work/$b" 9 words >/dev/null
done

# 32-bit PowerPC: the profile runtime from source, then the same builds.
if [ -z "${LLVM_SRC:-}" ]; then
  (cd "$work" && apt-get source --download-only llvm-toolchain-19 >/dev/null 2>&1)
  tar -xJf "$work"/llvm-toolchain-19_*.orig.tar.xz -C "$work" --wildcards \
    '*/compiler-rt/lib/profile/*' '*/compiler-rt/include/profile/*'
  LLVM_SRC=$(echo "$work"/llvm-toolchain-19_*/)
fi
rt="$LLVM_SRC/compiler-rt"
ppc="$work/ppc"
mkdir -p "$ppc/obj" "$ppc/lib/powerpc-unknown-linux-gnu"
ln -s "$("$CC" -print-resource-dir)/include" "$ppc/include"
for f in "$rt"/lib/profile/*.c "$rt"/lib/profile/InstrProfilingRuntime.cpp; do
  case $f in *Windows* | *Darwin* | *AIX* | *Fuchsia*) continue ;; esac
  extra=()
  [[ $f == *.cpp ]] && extra=(-nostdinc++ -fno-exceptions -fno-rtti)
  "$CC" --target=powerpc-linux-gnu -O2 -fPIC -I"$rt/include" -I"$rt/lib/profile" \
    -DCOMPILER_RT_HAS_ATOMICS=1 -DCOMPILER_RT_HAS_FCNTL_LCK=1 -DCOMPILER_RT_HAS_UNAME=1 \
    "${extra[@]}" -c "$f" -o "$ppc/obj/$(basename "$f").o"
done
llvm-ar-19 rcs "$ppc/lib/powerpc-unknown-linux-gnu/libclang_rt.profile.a" "$ppc"/obj/*.o
# -B/-L: the PowerPC C library's start files, not the host's 32-bit x86 ones in lib32.
p=(--target=powerpc-linux-gnu -resource-dir="$ppc" -B/usr/powerpc-linux-gnu/lib
  -L/usr/powerpc-linux-gnu/lib -fuse-ld=lld -Wl,--build-id -fno-pie -no-pie
  -fprofile-generate -mllvm -disable-vp=true)
"$CC" "${p[@]}" -O2 -mllvm -profile-correlate=binary prog.c shape.c -o "$work/ppc32-bin-O2"
"$CC" "${p[@]}" -O2 prog.c shape.c -o "$work/ppc32-full-O2"
"$CC" "${p[@]}" -g -O1 -mllvm -profile-correlate=debug-info prog.c shape.c \
  -o "$work/ppc32-dbg-O1"
for b in ppc32-bin-O2 ppc32-full-O2 ppc32-dbg-O1; do
  LLVM_PROFILE_FILE="$out/be-$b-1.profraw" qemu-ppc-static -L /usr/powerpc-linux-gnu \
    "$work/$b" 20 all >/dev/null
  LLVM_PROFILE_FILE="$out/be-$b-2.profraw" qemu-ppc-static -L /usr/powerpc-linux-gnu \
    "$work/$b" 9 words >/dev/null
done
# Of the reference builds the tests need only the raw profiles.
for b in s390x-bin-O2 s390x-dbg-O1 ppc32-bin-O2 ppc32-dbg-O1; do
  cp "$work/$b" "$out/$b"
done
rm -f ./be-*.gz ./s390x-*.gz ./ppc32-*.gz
for f in "$out"/*; do
  gzip -9n <"$f" >"$(basename "$f").gz"
done
ls -l ./be-*.gz ./s390x-*.gz ./ppc32-*.gz
