#!/usr/bin/env bash
# Regenerates the scenarios of testdata/jit/ from the workloads in src/: runs a JIT runtime
# under perf, keeps the jitdump (or perf map) it wrote and perf script's text before and
# after `perf inject --jit` (or with the perf map in place). Needs root (or
# perf_event_paranoid <= 1), perf and node; the multi-threaded scenarios also java/javac 17,
# NODE18_ROOT (Debian's node 18 unpacked, see node18_scenario) and DOTNET_PYTHON (a python
# with dotnetcore2 and pythonnet from PyPI). Usage: regenerate.sh [SCENARIO...] (default all).
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

# ---- Multi-threaded runtimes (JVM 17, node 18 and 20 with worker_threads, .NET Core 3.1) ----
# Short runs at 499 Hz, so that the files stay small. Each scenario keeps perf script's text
# in both layouts: the default one (whose first number is the thread id) and $fields.

# texts DIR OUT PERF_DATA NAME [PERF-SCRIPT-OPTIONS...]: NAME.default.txt and NAME.txt
# (gzip -9 -n) of PERF_DATA, in both layouts.
texts() {
  local dir="$1" out="$2" data="$3" name="$4"; shift 4
  (cd "$dir"
   perf script -i "$data" "$@" 2>/dev/null | gzip -9 -n > "$out/perf-script.$name.default.txt.gz"
   perf script -i "$data" -F "$fields" "$@" 2>/dev/null | gzip -9 -n > "$out/perf-script.$name.txt.gz")
}

# record_in DIR COMMAND...: perf record -k mono -g at 499 Hz in DIR.
record_in() {
  local dir="$1"; shift
  (cd "$dir" && perf record -q -k mono -g -F 499 -o perf.data -- "$@" >/dev/null)
}

# map_texts NAME DIR: the perf map of the recorded process into NAME/perf.map.gz, and the
# texts without it ("raw": JIT frames [unknown]) and with it ("mapped": perf names them).
map_texts() {
  local name="$1" dir="$2" out="$here/$1" pid map
  pid=$(cd "$dir" && perf script -i perf.data -F pid 2>/dev/null | sed -n 1p | tr -d ' ')
  map="/tmp/perf-$pid.map"
  mv "$map" "$dir/perf.map"
  texts "$dir" "$out" perf.data raw
  cp "$dir/perf.map" "$map"
  texts "$dir" "$out" perf.data mapped
  rm -f "$map"
  gzip -9 -n -c "$dir/perf.map" > "$out/perf.map.gz"
  echo "$name: perf-$pid.map ($(wc -l < "$dir/perf.map") lines)," \
    "$(zcat "$out/perf-script.raw.txt.gz" | grep -c '^[^[:space:]]') samples"
}

# dump_texts NAME DIR [MORE-TEXT-NAME OPTIONS]: raw and injected texts of a jitdump run, and
# the dump shrunk by strip_jitdump.py to the loads perf inject used.
dump_texts() {
  local name="$1" dir="$2" out="$here/$1" dump
  dump=$(cd "$dir" && ls jit-*.dump)
  texts "$dir" "$out" perf.data raw
  (cd "$dir" && perf inject --jit -i perf.data -o perf.jit.data)
  texts "$dir" "$out" perf.jit.data injected
  zcat "$out/perf-script.injected.default.txt.gz" > "$dir/inj.txt"
  python3 "$here/strip_jitdump.py" "$dir/$dump" "$dir/jit.small.dump" "$dir/inj.txt"
  gzip -9 -n -c "$dir/jit.small.dump" > "$out/jit.dump.gz"
  echo "$name: $dump ($(stat -c %s "$dir/$dump") bytes, $(stat -c %s "$dir/jit.small.dump") kept)," \
    "$(zcat "$out/perf-script.raw.txt.gz" | grep -c '^[^[:space:]]') samples"
}

# JVM 17: HotSpot writes /tmp/perf-PID.map at exit; frame pointers through compiled code.
jvm_scenario() {
  local name=jvm-threads dir="$work/jvm-threads"
  mkdir -p "$dir" "$here/$name"
  javac -d "$dir" "$here/src/Threads.java"
  record_in "$dir" java -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit \
    -XX:+PreserveFramePointer -cp . Threads 800
  map_texts "$name" "$dir"
}

# node with worker_threads and --perf-prof (one jit-PID.dump for all threads). NODE is the
# node binary; NODE_WRAP a command prefix to run it with (node 18 below).
node_workers_scenario() {
  local name="$1" dir="$work/$1"; shift
  mkdir -p "$dir" "$here/$name"
  cp "$here/src/workers.js" "$dir/"
  record_in "$dir" "$@" --perf-prof --interpreted-frames-native-stack workers.js 4
  dump_texts "$name" "$dir"
  # Times relative to the first sample: no jitdump load precedes any sample.
  (cd "$dir" && perf script -i perf.data --reltime 2>/dev/null) \
    | gzip -9 -n > "$here/$name/perf-script.raw.reltime.default.txt.gz"
}

# Debian bookworm's node 18 (packages nodejs, libnode108, libc-ares2, node-acorn,
# node-cjs-module-lexer, node-undici unpacked with `apt-get download` + `dpkg -x` into
# $NODE18_ROOT, so that the machine's node is left alone). It loads builtins from
# /usr/share/nodejs, which is bind-mounted from $NODE18_ROOT in a private mount namespace
# (the empty mount point is created if missing; remove it afterwards if you like).
# V8's embedded builtins live in libnode.so.108 (a file mapping), so the texts are also kept
# with --show-mmap-events.
node18_scenario() {
  local r="$NODE18_ROOT" name=node18-workers
  mkdir -p /usr/share/nodejs
  unshare -m sh -c "mount --bind '$r/usr/share/nodejs' /usr/share/nodejs &&
    export LD_LIBRARY_PATH='$r/usr/lib/x86_64-linux-gnu' &&
    mkdir -p '$work/$name' '$here/$name' && cp '$here/src/workers.js' '$work/$name/' &&
    cd '$work/$name' && perf record -q -k mono -g -F 499 -o perf.data -- '$r/usr/bin/node' \
      --perf-prof --interpreted-frames-native-stack workers.js 4 >/dev/null"
  dump_texts "$name" "$work/$name"
  texts "$work/$name" "$here/$name" perf.data raw.mmap --show-mmap-events
}

# .NET Core 3.1 from PyPI (dotnetcore2), driven by pythonnet: $DOTNET_PYTHON is a python with
# both installed. COMPlus_PerfMapEnabled=1 makes the runtime write /tmp/perf-PID.map.
dotnet_scenario() {
  local name=dotnet-threads dir="$work/dotnet-threads"
  mkdir -p "$dir" "$here/$name"
  cp "$here/src/dotnet_work.py" "$dir/"
  DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1 COMPlus_PerfMapEnabled=1 \
    record_in "$dir" "$DOTNET_PYTHON" dotnet_work.py 0.8
  map_texts "$name" "$dir"
}

want() { [ $# -eq 0 ] || [[ " $* " == *" $scenario "* ]]; }
for scenario in node-work node-reuse node-perfmap jvm-threads node20-workers node18-workers \
    dotnet-threads; do
  want "$@" || continue
  case $scenario in
    node-work) jit_scenario node-work work.js --interpreted-frames-native-stack ;;
    node-reuse) jit_scenario node-reuse reuse.js --interpreted-frames-native-stack --expose-gc ;;
    node-perfmap) map_scenario node-perfmap work.js --interpreted-frames-native-stack ;;
    jvm-threads) jvm_scenario ;;
    node20-workers) node_workers_scenario node20-workers node ;;
    node18-workers) node18_scenario ;;
    dotnet-threads) dotnet_scenario ;;
  esac
done
{ node --version; perf --version; uname -r; java -version 2>&1 | head -n 1
  [ -n "${NODE18_ROOT:-}" ] && LD_LIBRARY_PATH="$NODE18_ROOT/usr/lib/x86_64-linux-gnu" \
    "$NODE18_ROOT/usr/bin/node" --version
  [ -n "${DOTNET_PYTHON:-}" ] && "$DOTNET_PYTHON" -c 'import dotnetcore2, os; print("dotnetcore2", os.listdir(os.path.join(os.path.dirname(dotnetcore2.__file__), "bin/shared/Microsoft.NETCore.App")))'
} > "$here/VERSIONS" || true
