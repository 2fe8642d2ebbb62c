#!/usr/bin/env bash
# Installs LLVM/clang releases that Debian bookworm does not package (22 and 23) from Debian
# unstable into a private tree, and puts wrappers for them on PATH:
#   /usr/local/bin/llvm-profdata-22, llvm-profdata-23   (run directly through sid's loader)
#   /usr/local/bin/llvm-profdata-21                     (the same; PGO_SID_PROFDATA_ONLY: the
#                                                         releases of which only llvm-profdata
#                                                         is installed)
#   /usr/local/bin/merge-fdata-22, merge-fdata-23       (sid's bolt-N; the same way)
#   /usr/local/bin/llvm-bolt-22, llvm-bolt-23           (the same way; PGO_SID_WITH_BOLT=0: none
#                                                         of the BOLT tools)
#   /usr/local/bin/clang-22, clang-23                   (run inside a chroot; only needed to
#                                                         regenerate testdata)
#   /usr/local/bin/ld.bfd-sid                           (sid's GNU ld, 2.43+: the `order`
#                                                         tests link with its
#                                                         --section-ordering-file; through sid's
#                                                         loader; PGO_SID_WITH_BINUTILS=0: none)
# Why: bookworm's newest LLVM is 19; the tests compare our output with llvm-profdata 22 (index
# v13), read raw v11 files written by LLVM 23, and compare our BOLT profile merges with
# merge-fdata 22 and 23 (LLVM 20+ semantics). Debian's own builds are used, not third-party
# binaries. Idempotent; needs root (debootstrap, chroot).
set -euo pipefail

ROOT=${PGO_SID_ROOT:-/opt/pgo-merge-sid}
MIRROR=${PGO_SID_MIRROR:-http://deb.debian.org/debian}
VERSIONS=${PGO_SID_LLVM_VERSIONS:-"22 23"}
WITH_CLANG=${PGO_SID_WITH_CLANG:-0}
WITH_BOLT=${PGO_SID_WITH_BOLT:-1}
WITH_BINUTILS=${PGO_SID_WITH_BINUTILS:-1}
# Releases of which only llvm-profdata is installed (no bolt, no clang): the drop-in's
# behaviour as those releases is compared with the real tool.
PROFDATA_ONLY=${PGO_SID_PROFDATA_ONLY:-"21"}

if ! command -v debootstrap >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
fi

if [ ! -x "$ROOT/usr/bin/apt-get" ]; then
  echo "== debootstrap sid into $ROOT"
  debootstrap --variant=minbase sid "$ROOT" "$MIRROR" >/dev/null
fi

pkgs=""
for v in $VERSIONS; do
  pkgs="$pkgs llvm-$v"
  # bolt-N holds merge-fdata, llvm-bolt and perf2bolt (and pulls libbolt-N-dev, the runtimes).
  if [ "$WITH_BOLT" = 1 ]; then pkgs="$pkgs bolt-$v"; fi
  if [ "$WITH_CLANG" = 1 ]; then pkgs="$pkgs clang-$v libclang-rt-$v-dev"; fi
done
if [ "$WITH_CLANG" = 1 ]; then pkgs="$pkgs libc6-dev gcc binutils g++"; fi
# binutils-x86-64-linux-gnu alone (ld.bfd and its libraries, no gprofng): bookworm's ld is
# 2.40, and --section-ordering-file needs 2.43.
if [ "$WITH_BINUTILS" = 1 ]; then pkgs="$pkgs binutils-x86-64-linux-gnu"; fi
for v in $PROFDATA_ONLY; do pkgs="$pkgs llvm-$v"; done

echo "== installing in sid:$pkgs"
# The snapshot mirror's Release file can be past its Valid-Until date; the packages are
# still signed, so only the expiry check is relaxed.
chroot "$ROOT" apt-get -o Acquire::Check-Valid-Until=false update -qq >/dev/null
chroot "$ROOT" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $pkgs >/dev/null

libpath="$ROOT/usr/lib/x86_64-linux-gnu:$ROOT/lib/x86_64-linux-gnu"
for v in $VERSIONS $PROFDATA_ONLY; do
  cat > "/usr/local/bin/llvm-profdata-$v" <<WRAP
#!/bin/sh
# Debian sid's llvm-profdata-$v, run with sid's own loader and libraries (see .ci/install-llvm-sid.sh).
exec "$ROOT/lib64/ld-linux-x86-64.so.2" --library-path "$libpath:$ROOT/usr/lib/llvm-$v/lib" "$ROOT/usr/lib/llvm-$v/bin/llvm-profdata" "\$@"
WRAP
  chmod +x "/usr/local/bin/llvm-profdata-$v"
done
for v in $VERSIONS; do
  if [ "$WITH_BOLT" = 1 ]; then
    for tool in merge-fdata llvm-bolt; do
      cat > "/usr/local/bin/$tool-$v" <<WRAP
#!/bin/sh
# Debian sid's $tool-$v (package bolt-$v), run with sid's own loader and libraries (see
# .ci/install-llvm-sid.sh).
exec "$ROOT/lib64/ld-linux-x86-64.so.2" --library-path "$libpath:$ROOT/usr/lib/llvm-$v/lib" "$ROOT/usr/lib/llvm-$v/bin/$tool" "\$@"
WRAP
      chmod +x "/usr/local/bin/$tool-$v"
    done
  fi
  if [ "$WITH_CLANG" = 1 ]; then
    for tool in clang clang++; do
      cat > "/usr/local/bin/$tool-$v" <<WRAP
#!/bin/sh
# Debian sid's $tool-$v inside the chroot $ROOT. Paths under /tmp and the current directory
# are bind-mounted at the same place so that file arguments work unchanged.
set -e
for d in /tmp "\$PWD"; do
  mkdir -p "$ROOT\$d"
  mountpoint -q "$ROOT\$d" || mount --bind "\$d" "$ROOT\$d"
done
exec chroot "$ROOT" /bin/sh -c 'cd "\$0" && exec "\$@"' "\$PWD" /usr/bin/$tool-$v "\$@"
WRAP
      chmod +x "/usr/local/bin/$tool-$v"
    done
  fi
done
if [ "$WITH_BINUTILS" = 1 ]; then
  cat > /usr/local/bin/ld.bfd-sid <<WRAP
#!/bin/sh
# Debian sid's GNU ld (binutils 2.43+), run with sid's own loader and libraries (see
# .ci/install-llvm-sid.sh). It links for this system: its default search paths are the host's.
exec "$ROOT/lib64/ld-linux-x86-64.so.2" --library-path "$libpath" "$ROOT/usr/bin/x86_64-linux-gnu-ld.bfd" "\$@"
WRAP
  chmod +x /usr/local/bin/ld.bfd-sid
  echo "ld.bfd-sid: $(/usr/local/bin/ld.bfd-sid --version | head -1)"
fi
for v in $PROFDATA_ONLY; do
  echo "llvm-profdata-$v: $("/usr/local/bin/llvm-profdata-$v" --version | grep -m1 version)"
done
for v in $VERSIONS; do
  # The version line ("Debian LLVM version 22.1.8"), which proves the wrapper runs.
  echo "llvm-profdata-$v: $("/usr/local/bin/llvm-profdata-$v" --version | grep -m1 version)"
  if [ "$WITH_BOLT" = 1 ]; then
    echo "merge-fdata-$v: $("/usr/local/bin/merge-fdata-$v" --version | grep -m1 version)"
    echo "llvm-bolt-$v: $("/usr/local/bin/llvm-bolt-$v" --version | grep -m1 version)"
  fi
done
