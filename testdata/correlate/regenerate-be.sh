#!/usr/bin/env bash
# Makes the big-endian lightweight recordings of this directory: prog.c and shape.c built
# by clang-19 for s390x (64-bit, big-endian) on an x86-64 host, run under qemu-user.
#   s390x-bin-O2        -profile-correlate=binary, -O2, PIE
#   s390x-dbg-O1        -profile-correlate=debug-info, -O1, DWARF 5
#   s390x-full-O2       the same program as s390x-bin-O2 built with ordinary (not
#                       lightweight) -fprofile-generate: its raw profiles hold their own data
#                       records and names, so any llvm-profdata reads them on any host. They
#                       are the reference for what the lightweight build counted.
#   be-*-{1,2}.profraw  two runs of each (the same arguments for every build)
#
# Needs (Debian bookworm, as root):
#   dpkg --add-architecture s390x && apt-get update
#   apt-get install qemu-user-static libc6-dev-s390x-cross libgcc-12-dev-s390x-cross
#   apt-get download libclang-rt-19-dev:s390x   (only libclang_rt.profile is used; it is
#                                                unpacked into a private resource directory)
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
# Of the reference build the tests need only the raw profiles.
for b in s390x-bin-O2 s390x-dbg-O1; do
  cp "$work/$b" "$out/$b"
done
rm -f ./be-*.gz ./s390x-*.gz
for f in "$out"/*; do
  gzip -9n <"$f" >"$(basename "$f").gz"
done
ls -l ./be-*.gz ./s390x-*.gz
