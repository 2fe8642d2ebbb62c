#!/usr/bin/env bash
# Regenerates testdata/jit/node-*/ from the workloads in src/: runs node under perf, keeps the
# jitdump (or perf map) the runtime wrote and perf script's text before and after
# `perf inject --jit`. Needs root (or perf_event_paranoid <= 1), perf and node.
# Used by tests/integration/jitdump.rs; see testdata/README.md ("JIT code") for what each
# file is. The test suite itself never runs perf or node.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
fields=comm,pid,tid,time,ip,sym,dso
work="$(mktemp -d /tmp/pgo-merge-jit.XXXXXX)"
trap 'rm -rf "$work"' EXIT

# record SCENARIO SCRIPT NODE-FLAGS...: perf record -k mono (jitdump timestamps are
# CLOCK_MONOTONIC; perf inject --jit refuses other clocks) with call graphs (frame pointers:
# V8 keeps them) at 1999 Hz.
record() {
  local name="$1" script="$2"; shift 2
  local out="$here/$name" dir="$work/$name"
  mkdir -p "$dir" "$out"
  cp "$here/src/$script" "$dir/"
  (cd "$dir" && perf record -q -k mono -g -F 1999 -o perf.data -- node "$@" "$script" >/dev/null)
}

# jitdump scenarios: the dump, then perf script raw (JIT frames are [unknown]) and injected.
jit_scenario() {
  local name="$1" script="$2"; shift 2
  record "$name" "$script" --perf-prof "$@"
  local out="$here/$name" dir="$work/$name"
  (cd "$dir"
   dump=$(ls jit-*.dump)
   perf script -i perf.data -F "$fields" > raw.txt 2>/dev/null
   perf script -i perf.data > raw.default.txt 2>/dev/null
   perf inject --jit -i perf.data -o perf.jit.data
   perf script -i perf.jit.data -F "$fields" > injected.txt 2>/dev/null
   perf script -i perf.jit.data > injected.default.txt 2>/dev/null
   gzip -9 -n -c "$dump" > "$out/jit.dump.gz"
   for t in raw raw.default injected injected.default; do
     gzip -9 -n -c "$t.txt" > "$out/perf-script.$t.txt.gz"
   done
   echo "$name: $dump ($(stat -c %s "$dump") bytes), $(grep -c '^[^[:space:]]' raw.txt) samples")
}

# perf-map scenario: node writes /tmp/perf-PID.map (no jitdump). perf script reads that map
# at report time, so the "raw" text is made with the map moved away and the "mapped" text
# with it in place.
map_scenario() {
  local name="$1" script="$2"; shift 2
  record "$name" "$script" --perf-basic-prof "$@"
  local out="$here/$name" dir="$work/$name"
  (cd "$dir"
   perf script -i perf.data -F pid > pids.txt 2>/dev/null
   read -r pid < pids.txt
   map="/tmp/perf-$pid.map"
   mv "$map" perf.map
   perf script -i perf.data -F "$fields" > raw.txt 2>/dev/null
   cp perf.map "$map"
   perf script -i perf.data -F "$fields" > mapped.txt 2>/dev/null
   rm -f "$map"
   gzip -9 -n -c perf.map > "$out/perf.map.gz"
   gzip -9 -n -c raw.txt > "$out/perf-script.raw.txt.gz"
   gzip -9 -n -c mapped.txt > "$out/perf-script.mapped.txt.gz"
   echo "$name: perf-$pid.map ($(wc -l < perf.map) lines), $(grep -c '^[^[:space:]]' raw.txt) samples")
}

jit_scenario node-work work.js --interpreted-frames-native-stack
jit_scenario node-reuse reuse.js --interpreted-frames-native-stack --expose-gc
map_scenario node-perfmap work.js --interpreted-frames-native-stack
{ node --version; perf --version; uname -r; } > "$here/VERSIONS"
