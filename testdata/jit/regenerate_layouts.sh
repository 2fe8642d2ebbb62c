#!/usr/bin/env bash
# Regenerates testdata/jit/layouts/ and testdata/jit/two-vms/ (perf script's text in many
# field layouts, and two JIT processes in one recording), testdata/jit/nul-map/ (a perf map
# whose lines are glued by NUL bytes) and testdata/jit/cpython313/ (the jitdump CPython 3.13
# writes). Needs root (or perf_event_paranoid <= 1), perf and node 20; CPYTHON313 names a
# CPython 3.13 interpreter for the last one. Usage:
#   regenerate_layouts.sh [layouts] [two-vms] [nul-map] [cpython313]   (default: all)
# Used by tests/integration/jit_layouts.rs; see testdata/jit/README.md. The test suite never
# runs perf, node or python.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d /tmp/pgo-merge-layouts.XXXXXX)"
trap 'rm -rf "$work"' EXIT

# The layouts perf script is asked for: NAME|OPTIONS. "-G" hides the call chains (each sample
# is then one line: its header and the sampled frame).
layouts=(
  "default|"
  "full|-F comm,pid,tid,time,ip,sym,dso"
  "nocomm|-F pid,tid,time,ip,sym,dso"
  "ipsymdso|-F ip,sym,dso"
  "tid|-F tid,time,ip,sym,dso"
  "pid|-F pid,ip,sym,dso"
  "comm|-F comm,ip,sym,dso"
  "time|-F time,ip,sym"
  "all|-F comm,pid,tid,cpu,time,period,event,ip,sym,dso,symoff"
  "ns|-F comm,tid,cpu,time,event,ip,sym,dso --ns"
  "notime|-F comm,pid,tid,period,event,ip,sym,dso"
  "period|-F comm,tid,period,ip,sym,dso"
  "misc-tod|-F comm,pid,tid,misc,tod,time,ip,sym,dso"
  "srcline|-F comm,pid,tid,time,ip,sym,dso,srcline"
  "ip|-F ip"
  "events|--show-mmap-events --show-task-events"
  "events-nocomm|-F pid,tid,time,ip,sym,dso --show-mmap-events --show-task-events"
  "inline|-G"
  "inline-full|-G -F comm,pid,tid,time,ip,sym,dso"
  "inline-nocomm|-G -F pid,tid,ip,sym,dso"
  "inline-ipsym|-G -F ip,sym"
)

# At most this many frames per call chain: keeps the files small.
max_stack=12

# shrink_map MAP TEXT.gz...: keeps only the lines of perf map MAP that cover an address of an
# [unknown] frame of the texts (a line covering no sampled address names no frame, so no
# frame perf named changes); the maps shrink from ~3,000 lines to a few dozen.
shrink_map() {
  local map="$1"; shift
  python3 - "$map" "$@" <<'PY'
import gzip, sys
addrs = set()
for t in sys.argv[2:]:
    for line in gzip.open(t, "rt", errors="replace"):
        f = line.split()
        if line.startswith("\t") and len(f) >= 2 and f[1] == "[unknown]":
            addrs.add(int(f[0], 16))
keep = []
for line in open(sys.argv[1], encoding="utf-8", errors="surrogateescape"):
    f = line.split(" ", 2)
    start, size = int(f[0], 16), int(f[1], 16)
    if any(start <= a < start + max(size, 1) for a in addrs):
        keep.append(line)
open(sys.argv[1], "w", encoding="utf-8", errors="surrogateescape").writelines(keep)
PY
}

# script DATA OUT [OPTIONS...]: perf script's text, gzip -9 -n.
script() {
  local data="$1" out="$2"; shift 2
  # shellcheck disable=SC2068
  perf script -i "$data" --max-stack "$max_stack" $@ 2>/dev/null | gzip -9 -n > "$out"
}

# node 20 with two worker_threads and --perf-basic-prof (/tmp/perf-PID.map): the text in every
# layout with the map moved away (JIT frames [unknown]), and in the default layout with it in
# place (perf's names: the expected result).
layouts_scenario() {
  local dir="$work/layouts" out="$here/layouts" pid
  mkdir -p "$dir" "$out"
  cp "$here/src/workers.js" "$dir/"
  (cd "$dir" && perf record -q -k mono -g -F 99 --sample-cpu -o perf.data -- \
     node --perf-basic-prof --interpreted-frames-native-stack workers.js 6 >/dev/null)
  pid=$(perf script -i "$dir/perf.data" -F pid 2>/dev/null | sed -n 1p | tr -d ' ')
  mv "/tmp/perf-$pid.map" "$dir/perf.map"
  for l in "${layouts[@]}"; do
    script "$dir/perf.data" "$out/raw.${l%%|*}.txt.gz" ${l#*|}
  done
  cp "$dir/perf.map" "/tmp/perf-$pid.map"
  script "$dir/perf.data" "$out/mapped.default.txt.gz"
  script "$dir/perf.data" "$out/mapped.inline.txt.gz" -G
  rm -f "/tmp/perf-$pid.map"
  shrink_map "$dir/perf.map" "$out/raw.default.txt.gz"
  gzip -9 -n -c "$dir/perf.map" > "$out/perf-$pid.map.gz"
  echo "layouts: perf-$pid.map, $(zcat "$out/raw.full.txt.gz" | grep -c '^[^[:space:]]') samples"
}

# Two node processes (each with two worker_threads, each writing its own perf map) in one
# recording: the default layout prints thread ids only, and the worker threads are named by
# no input; the fork events of --show-task-events say whose they are.
two_vms_scenario() {
  local dir="$work/two-vms" out="$here/two-vms" pids p
  mkdir -p "$dir" "$out"
  cp "$here/src/workers.js" "$dir/"
  (cd "$dir" && perf record -q -k mono -g -F 99 -o perf.data -- sh -c \
     'node --perf-basic-prof --interpreted-frames-native-stack workers.js 4 >/dev/null &
      node --perf-basic-prof --interpreted-frames-native-stack workers.js 4 >/dev/null; wait')
  pids=$(perf script -i "$dir/perf.data" -F comm,pid 2>/dev/null | awk '$1 == "node" { print $2 }' | sort -u)
  for p in $pids; do mv "/tmp/perf-$p.map" "$dir/perf-$p.map"; done
  script "$dir/perf.data" "$out/raw.default.txt.gz"
  script "$dir/perf.data" "$out/raw.tasks.txt.gz" --show-task-events
  for p in $pids; do cp "$dir/perf-$p.map" /tmp/; done
  script "$dir/perf.data" "$out/mapped.default.txt.gz"
  for p in $pids; do
    rm -f "/tmp/perf-$p.map"
    shrink_map "$dir/perf-$p.map" "$out/raw.default.txt.gz"
    gzip -9 -n -c "$dir/perf-$p.map" > "$out/perf-$p.map.gz"
  done
  echo "two-vms: processes" $pids
}

# A perf map whose entries are glued by NUL bytes, as .NET 8 writes some of them
# (`START SIZE name\0START SIZE name\n`): node's map (shrunk to the sampled lines) with every
# second line glued onto the line before it. perf ends a name at the NUL and ignores the
# rest of the line, so the glued entries name nothing; "mapped" is perf's own reading.
nul_map_scenario() {
  local dir="$work/nul-map" out="$here/nul-map" pid
  mkdir -p "$dir" "$out"
  cp "$here/src/workers.js" "$dir/"
  (cd "$dir" && perf record -q -k mono -g -F 99 -o perf.data -- \
     node --perf-basic-prof --interpreted-frames-native-stack workers.js 4 >/dev/null)
  pid=$(perf script -i "$dir/perf.data" -F pid 2>/dev/null | sed -n 1p | tr -d ' ')
  mv "/tmp/perf-$pid.map" "$dir/perf.map"
  script "$dir/perf.data" "$out/raw.txt.gz" -F comm,pid,tid,time,ip,sym,dso
  shrink_map "$dir/perf.map" "$out/raw.txt.gz"
  python3 - "$dir/perf.map" <<'PY'
import sys
lines = open(sys.argv[1], "rb").read().split(b"\n")[:-1]
out = b""
for k in range(0, len(lines), 2):
    out += b"\0".join(lines[k:k + 2]) + b"\n"
open(sys.argv[1], "wb").write(out)
PY
  cp "$dir/perf.map" "/tmp/perf-$pid.map"
  script "$dir/perf.data" "$out/mapped.txt.gz" -F comm,pid,tid,time,ip,sym,dso
  rm -f "/tmp/perf-$pid.map"
  gzip -9 -n -c "$dir/perf.map" > "$out/perf-$pid.map.gz"
  echo "nul-map: perf-$pid.map, $(wc -l < "$dir/perf.map") lines"
}

# CPython 3.13 with -X perf_jit writes /tmp/jit-PID.dump (no samples are needed: `show` reads
# it). Its UNWINDING_INFO records round mapped_size up to 16 bytes.
cpython_scenario() {
  local dir="$work/cpython313" out="$here/cpython313" dump
  mkdir -p "$dir" "$out"
  (cd "$dir" && "$CPYTHON313" -X perf_jit -c 'sum(i * i for i in range(1000))')
  dump=$(ls -t /tmp/jit-*.dump | head -n 1)
  gzip -9 -n -c "$dump" > "$out/jit.dump.gz"
  rm -f "$dump"
  echo "cpython313: $(basename "$dump")"
}

want() { [ $# -eq 0 ] || [[ " $* " == *" $scenario "* ]]; }
for scenario in layouts two-vms nul-map cpython313; do
  want "$@" || continue
  case $scenario in
    layouts) layouts_scenario ;;
    two-vms) two_vms_scenario ;;
    nul-map) nul_map_scenario ;;
    cpython313) cpython_scenario ;;
  esac
done
