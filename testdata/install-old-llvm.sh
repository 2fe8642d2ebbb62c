#!/usr/bin/env bash
# Installs the Debian compilers that write raw profile versions bookworm cannot produce, for
# testdata/regenerate.sh and for tests that want the matching llvm-profdata:
#   bullseye root (PGO_BULLSEYE_ROOT, default /opt/pgo-merge-bullseye): clang-9 and clang-11
#       (raw v5; clang-9 is the old 8-word header variant), llvm-profdata-9 and -11
#   trixie root   (PGO_TRIXIE_ROOT, default /opt/pgo-merge-trixie): clang-18 (raw v9),
#       llvm-profdata-18
# and puts wrappers on PATH (same scheme as .ci/install-llvm-sid.sh):
#   /usr/local/bin/llvm-profdata-{9,11,18}   run directly through the root's own loader
#   /usr/local/bin/clang{,++}-{9,11,18}      run inside the chroot; /tmp and $PWD are
#                                            bind-mounted at the same path
# Debian's own builds are used, not third-party binaries. Idempotent; needs root.
# Only the wrappers for versions the host does not have are written, so nothing in /usr/bin is
# shadowed (bookworm has clang 13, 14, 19 natively).
set -euo pipefail

MIRROR=${PGO_OLD_MIRROR:-http://deb.debian.org/debian}
# PGO_OLD_WITH_CLANG=0 installs only llvm-profdata (what the tests need), not the compilers.
WITH_CLANG=${PGO_OLD_WITH_CLANG:-1}
BULLSEYE=${PGO_BULLSEYE_ROOT:-/opt/pgo-merge-bullseye}
TRIXIE=${PGO_TRIXIE_ROOT:-/opt/pgo-merge-trixie}

if ! command -v debootstrap >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
fi

# setup_root RELEASE ROOT PACKAGES...
setup_root() {
  local release=$1 root=$2; shift 2
  if [ ! -x "$root/usr/bin/apt-get" ]; then
    echo "== debootstrap $release into $root"
    debootstrap --variant=minbase "$release" "$root" "$MIRROR" >/dev/null
  fi
  local missing=""
  for p in "$@"; do
    chroot "$root" dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
  done
  if [ -n "$missing" ]; then
    echo "== installing in $release:$missing"
    chroot "$root" apt-get -o Acquire::Check-Valid-Until=false update -qq >/dev/null
    chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      --no-install-recommends $missing >/dev/null
  fi
}

# wrappers ROOT VERSION...
wrappers() {
  local root=$1; shift
  # the root's own dynamic loader (in bullseye /lib64/ld-linux-x86-64.so.2 is an absolute
  # symlink, so use the one in /lib/x86_64-linux-gnu, whose link target is relative)
  local ld="$root/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"
  [ -e "$ld" ] || ld="$root/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"
  local libpath="$root/usr/lib/x86_64-linux-gnu:$root/lib/x86_64-linux-gnu"
  for v in "$@"; do
    cat > "/usr/local/bin/llvm-profdata-$v" <<WRAP
#!/bin/sh
# Debian's llvm-profdata-$v from $root, run with that root's own loader and libraries
# (see testdata/install-old-llvm.sh in pgo-merge).
exec "$ld" --library-path "$libpath:$root/usr/lib/llvm-$v/lib" "$root/usr/lib/llvm-$v/bin/llvm-profdata" "\$@"
WRAP
    chmod +x "/usr/local/bin/llvm-profdata-$v"
    [ "$WITH_CLANG" = 1 ] || continue
    for tool in clang clang++; do
      cat > "/usr/local/bin/$tool-$v" <<WRAP
#!/bin/sh
# Debian's $tool-$v inside the chroot $root (see testdata/install-old-llvm.sh in pgo-merge).
# Paths under /tmp and the current directory are bind-mounted at the same place so that file
# arguments work unchanged. Binaries it builds should be run inside the chroot as well.
set -e
for d in /tmp "\$PWD"; do
  mkdir -p "$root\$d"
  mountpoint -q "$root\$d" || mount --bind "\$d" "$root\$d"
done
exec chroot "$root" /bin/sh -c 'cd "\$0" && exec "\$@"' "\$PWD" /usr/bin/$tool-$v "\$@"
WRAP
      chmod +x "/usr/local/bin/$tool-$v"
    done
  done
}

if [ "$WITH_CLANG" = 1 ]; then
  setup_root bullseye "$BULLSEYE" clang-9 clang-11 llvm-9 llvm-11 libc6-dev gcc gcc-multilib binutils
  setup_root trixie "$TRIXIE" clang-18 llvm-18 libclang-rt-18-dev libc6-dev gcc gcc-multilib binutils
else
  setup_root bullseye "$BULLSEYE" llvm-9 llvm-11
  setup_root trixie "$TRIXIE" llvm-18
fi
wrappers "$BULLSEYE" 9 11
wrappers "$TRIXIE" 18
for v in 9 11 18; do
  printf 'llvm-profdata-%s: ' "$v"; "/usr/local/bin/llvm-profdata-$v" merge --version 2>&1 | grep -m1 'LLVM version'
done
