#!/bin/sh
# Records which options each llvm-profdata release lists for merge, show and overlap
# (`llvm-profdata-N SUBCOMMAND --help-hidden`): one line per option, "RELEASE SUBCOMMAND
# --name[=<kind>]", sorted. LLVM 14 lists LLVM's ~2000 global code-generation options too;
# those are the options sanstats-14 (a tool of the same build with one option of its own)
# lists outside its "Generic Options" (--help, --version, ...), and are left out. tests/integration/dropin_releases.rs compares the drop-in's
# tables with this file, and with the real tools when they are installed.
set -eu
cd "$(dirname "$0")"
names() {
  grep -oE '^ +-{1,2}[A-Za-z0-9][A-Za-z0-9_.-]*(=<[^>]*>)?' | sed 's/^ *//' | sort -u
}
sanstats-14 --help-hidden | awk '/^[^ ].*:$/ {generic = ($0 == "Generic Options:")} !generic' \
  | names > /tmp/llvm14-globals.$$
for n in 14 19 21 22 23; do
  for sub in merge show overlap; do
    if [ "$n" = 14 ]; then
      llvm-profdata-$n $sub --help-hidden | names | comm -23 - /tmp/llvm14-globals.$$
    else
      llvm-profdata-$n $sub --help-hidden | names
    fi | sed "s/^/$n $sub /"
  done
done > listings.txt
rm -f /tmp/llvm14-globals.$$
