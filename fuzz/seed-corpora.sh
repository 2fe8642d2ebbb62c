#!/usr/bin/env bash
# Builds the seed corpora of the fuzz targets, fuzz/corpus/<target>/, from the repository's
# testdata/ and, when present, from the third-party files in ../shared/testdata-external/
# beside the repository (never committed; see testdata/jit/README.md). The corpora are
# generated, not committed (fuzz/.gitignore): run this once before `cargo fuzz run`.
# Existing corpus files are kept (a corpus grows while fuzzing); seeds are added.
#
#   fuzz/seed-corpora.sh [EXTERNAL_DIR]
#
# Large seeds are cut to SEED_MAX bytes (64 KiB; at a line end for text) so that libFuzzer's
# maximum input length, taken from the largest seed, stays small and executions fast. Inputs
# of the multi-input targets (llvm_merge, iprof_merge, symbolize) are control bytes and
# inputs joined by the separator of fuzz/targets.rs (PART_SEPARATOR).
set -euo pipefail
fuzz="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$fuzz")"
ext="${1:-$root/../shared/testdata-external}"
td="$root/testdata"
out="$fuzz/corpus"
SEED_MAX="${SEED_MAX:-65536}"
SEP=$'\n--pgo-merge-fuzz-part--\n'

[ -d "$ext" ] || { echo "note: no $ext: seeding from testdata/ only"; ext=""; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# seed TARGET NAME < bytes: writes one seed.
seed() {
  mkdir -p "$out/$1"
  cat >"$out/$1/$2"
}
# cut_bytes FILE: the first SEED_MAX bytes (binary formats: the readers report the cut).
cut_bytes() { head -c "$SEED_MAX" "$1"; }
# cut_lines FILE: whole lines within the first SEED_MAX bytes.
cut_lines() {
  local n
  n="$(head -c "$SEED_MAX" "$1" | wc -c)"
  if [ "$n" -lt "$SEED_MAX" ]; then cat "$1"; else head -c "$SEED_MAX" "$1" | sed '$d'; fi
}
# unz FILE: FILE, decompressed into $tmp if it is gzip; prints the path.
unz() {
  case "$1" in
    *.gz) local d="$tmp/$(echo "$1" | tr / _)"; [ -f "$d" ] || gzip -dc "$1" >"$d"; echo "$d" ;;
    *) echo "$1" ;;
  esac
}
# join CONTROL_HEX FILE...: control bytes, then each file ("-" for an empty part), joined.
join() {
  local ctl="$1"; shift
  printf '%b' "$ctl"
  local f
  for f in "$@"; do
    printf '%s' "$SEP"
    [ "$f" = - ] || cat "$f"
  done
}
ext_files() { [ -n "$ext" ] && [ -d "$ext/$1" ] && find "$ext/$1" -type f -name "$2" | sort || true; }

# ---- LLVM readers
for f in $(find "$td/profraw" -name '*.profraw' | sort) $(ext_files llvm-peer '*.profraw'); do
  seed raw "$(basename "$(dirname "$f")")-$(basename "$f")" <"$f"
done
for f in $(find "$td/profdata" -name '*.profdata' | sort) $(ext_files llvm-peer '*.profdata*'); do
  seed indexed "$(basename "$f")" <"$f"
done
for f in $(find "$td/profdata" -name '*.proftext' | sort) $(ext_files llvm-peer '*.proftext'); do
  seed text "$(basename "$f")" <"$f"
done
# Sample profiles in LLVM's binary encodings: ours, and the third-party extbinary files.
for f in $(find "$td/sample" -name '*.afdo' -not -path '*/gcov/*' | sort) \
  $(ext_files llvm-sample '*.afdo') $(ext_files llvm-sample '*.profdata'); do
  seed sample_binary "$(basename "$(dirname "$f")")-$(basename "$f")" <"$f"
done
# BOLT profiles: the recorded fdata and YAML profiles (the Rust program's gzipped ones cut to
# whole lines: the YAML reader reports where the cut leaves its structure unfinished), and a
# few small fdata profiles of the header modes and line kinds the recordings lack.
for f in $(find "$td/bolt" -name '*.fdata' -o -name '*.fdata.gz' | sort); do
  seed bolt_fdata "$(basename "$f" .gz)" < <(cut_lines "$(unz "$f")")
done
for f in $(find "$td/bolt" -name '*.yaml' -o -name '*.yaml.gz' | sort); do
  seed bolt_yaml "$(basename "$f" .gz)" < <(cut_lines "$(unz "$f")")
done
printf 'boltedcollection\n1 main 1c 1 main 1e 0 12\n1 main 1c 1 main 1e 1 3\n2 f.c 0 0 [unknown] ffff 0 1\n4 main 1a 3 [heap] 40 9\n5 g 2f 4 main 0 1\n' |
  seed bolt_fdata small-bolted-branches-memory.fdata
printf 'boltedcollection\nno_lbr cycles:u instructions:u\n1 main 203 7\n0 [unknown] 7fff0 1\n4 main 1a 3 [heap] 40 9\n' |
  seed bolt_fdata small-bolted-no-lbr.fdata
# GCC AutoFDO profiles: our create_gcov recordings, and LLVM's test file.
for f in $(find "$td/sample/gcov" -name '*.afdo' | sort) $(ext_files llvm-sample '*.gcov'); do
  seed sample_gcov "$(basename "$f")" <"$f"
done

# ---- iprof: the repository's small profile, and cut-down copies of the large third-party
# ones (the first entries of each section and the types and methods they name: still valid).
iprofs=("$td"/iprof/*.iprof)
for f in $(ext_files iprof '*.iprof'); do
  small="$tmp/small-$(basename "$f")"
  if python3 - "$f" "$small" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
keep = 25
methods, types = set(), set()
for k, v in list(d.items()):
    if isinstance(v, dict):  # the 0.2.0 layout's monitorsProfile
        types.update(r for r in v.get("records", []) if isinstance(r, int))
    if isinstance(v, list) and k not in ("types", "methods"):
        d[k] = v = v[:keep]
        for e in v:
            ctx = e.get("ctx", e.get("methodBciList", ""))
            methods.update(int(m) for m in re.findall(r"(-?\d+):-?\d+", ctx))
            types.update(r for r in e.get("records", []) if isinstance(r, int))
for m in d.get("methods", []):
    if m["id"] in methods:
        types.update(m.get("signature", []))
d["methods"] = [m for m in d.get("methods", []) if m["id"] in methods]
d["types"] = [t for t in d.get("types", []) if t["id"] in types]
json.dump(d, open(sys.argv[2], "w"), separators=(",", ":"))
PY
  then iprofs+=("$small"); fi
done
for f in "${iprofs[@]}"; do
  b="$(basename "$f")"
  seed iprof "$b" <"$f"
  seed iprof_gzip "$b" <"$f"
  gzip -9 -n -c "$f" | seed iprof_gzip "$b.gz"
done

# ---- code regions and samples
jitdumps=()
for f in "$td"/jit/*/jit.dump.gz $(ext_files jitdump '*.dump'); do
  u="$(unz "$f")"
  c="$tmp/cut-$(echo "$f" | tr / _)"
  cut_bytes "$u" >"$c"
  jitdumps+=("$c")
  seed jitdump "$(basename "$(dirname "$f")")-$(basename "${f%.gz}")" <"$c"
done
perfmaps=()
for f in "$td"/jit/node-perfmap/perf.map.gz $(ext_files perfmap '*.map'); do
  c="$tmp/cut-$(echo "$f" | tr / _)"
  cut_lines "$(unz "$f")" >"$c"
  perfmaps+=("$c")
  seed perf_map "$(basename "$(dirname "$f")")-$(basename "${f%.gz}")" <"$c"
done
# A ReadyToRun map of our own (the five header pseudo-entries, then methods).
r2r="$tmp/own.r2rmap"
printf '%s\n' 'FFFFFFFF 00 00112233445566778899AABBCCDDEEFF' 'FFFFFFFE 00 1' 'FFFFFFFD 00 2' \
  'FFFFFFFC 00 3' 'FFFFFFFB 00 1' '00001000 10 A::f()' '00001010 20 B::g(System.Int32)' \
  '00001030 00 C::h()' >"$r2r"
r2rmaps=("$r2r")
for f in $(ext_files perfmap '*.r2rmap'); do r2rmaps+=("$f"); done
for f in "${r2rmaps[@]}"; do seed r2rmap "$(basename "$f")" < <(cut_lines "$f"); done
for d in "$td"/jit/*/; do
  for f in "$d"perf-script*.txt.gz; do
    [ -f "$f" ] || continue
    cut_lines "$(unz "$f")" | seed perf_script "$(basename "$d")-$(basename "${f%.gz}")"
  done
done

# ---- symbolize: control, jitdump, perf map, r2rmap, perf script. The recorded pairs of
# testdata/jit/ (jitdump or perf map with the samples of the same run), then each source
# alone with a sample text. Each part is cut to a quarter of SEED_MAX.
SEED_MAX=$((SEED_MAX / 4))
for s in node-work node-reuse; do
  j="$tmp/sym-$s.dump"
  cut_bytes "$(unz "$td/jit/$s/jit.dump.gz")" >"$j"
  p="$tmp/script-$s"
  cut_lines "$(unz "$td/jit/$s/perf-script.raw.txt.gz")" >"$p"
  join '\x00' "$j" - - "$p" | seed symbolize "$s"
  join '\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x40\x42\x0f' "$j" - - "$p" |
    seed symbolize "$s-slack"
done
p="$tmp/script-perfmap"
cut_lines "$(unz "$td/jit/node-perfmap/perf-script.raw.txt.gz")" >"$p"
cut_lines "${perfmaps[0]}" >"$tmp/sym.map"
join '\x00' - "$tmp/sym.map" - "$p" | seed symbolize node-perfmap
for f in "${r2rmaps[@]}"; do
  cut_lines "$f" >"$tmp/sym.r2rmap"
  join '\x00\x00\x00\x00\x00\x00\x00\x00\x7f' - - "$tmp/sym.r2rmap" "$p" |
    seed symbolize "r2r-$(basename "$f")"
done
SEED_MAX=$((SEED_MAX * 4))

# ---- llvm_merge: control, up to four inputs. Pairs of one producer's raw files, of indexed
# and of text profiles, and raw with indexed; with several weights, versions and modes.
i=0
for dir in "$td"/profraw/*/; do
  mapfile -t raws < <(find "$dir" -name '*.profraw' | sort)
  for ((k = 0; k + 1 < ${#raws[@]}; k += 2)); do
    i=$((i + 1))
    join "\\x$(printf %02x $((i % 3)))\\x$(printf %02x $((i % 8)))\\x00\\x01\\x03" \
      "${raws[k]}" "${raws[k + 1]}" | seed llvm_merge "raw-$i"
  done
done
mapfile -t idx < <(find "$td/profdata" -name '*.profdata' | sort)
for ((k = 0; k < ${#idx[@]}; k++)); do
  f="${idx[k]}"
  join "\\x00\\x$(printf %02x $((k % 8)))\\x00" "$f" | seed llvm_merge "indexed-$(basename "$f")"
  t="${f%.profdata}.proftext"
  [ -f "$t" ] && join '\x02\x06\x01\x02\x81' "$f" "$t" | seed llvm_merge "both-$(basename "$t")"
done

# ---- raw_fast_path: control, a raw file, then copies of it (they take the fast path), or
# two files of one producer.
i=0
for dir in "$td"/profraw/*/; do
  mapfile -t raws < <(find "$dir" -name '*.profraw' | sort)
  for ((k = 0; k < ${#raws[@]}; k++)); do
    i=$((i + 1))
    f="${raws[k]}"
    join "\\x$(printf %02x $((i % 3)))\\x01\\x02\\x81" "$f" "$f" "$f" |
      seed raw_fast_path "$(basename "$dir")-$(basename "$f")"
    if [ $((k + 1)) -lt ${#raws[@]} ]; then
      join '\x02' "$f" "${raws[k + 1]}" | seed raw_fast_path "$(basename "$dir")-$(basename "$f")-next"
    fi
  done
done

# ---- iprof_merge: control, up to four iprof inputs (each profile with itself, plain and
# gzip, under several option sets).
k=0
for f in "${iprofs[@]}"; do
  gzip -9 -n -c "$f" >"$tmp/m.gz"
  for ctl in '\x00' '\x04' '\x0d\x02\x05\x01\x02\x03' '\x16\x00\x90\x00\x01\x80' '\x02\x01\x00\x01'; do
    k=$((k + 1))
    join "$ctl" "$f" "$tmp/m.gz" | seed iprof_merge "$(basename "$f")-$k"
  done
done

# ---- correlate: control (bit 0: debug-info mode), a raw profile, the ELF binary that wrote
# it (whole: an ELF file cut short loses its section headers, so these seeds are not cut).
cd_=$td/correlate
for pair in '\x00 exe-pie-O2 run-pie-1' '\x00 exe-nopie-O0 run-nopie-1' '\x00 m32-bin-O1 two-m32-bin-O1-1' \
  '\x01 dbg19-O1-gz dbg-dbg19-O1-gz-1' '\x01 dbg14-O0 dbg-dbg14-O0-1' '\x01 m32-dbg-O1 two-m32-dbg-O1-1' \
  '\x00 s390x-bin-O2 be-s390x-bin-O2-1' '\x01 ppc32-dbg-O1 be-ppc32-dbg-O1-1' \
  '\x00 mcdc23-bin two-mcdc23-bin-1' '\x01 mcdc23-dbg two-mcdc23-dbg-1'; do
  read -r ctl bin run <<<"$pair"
  gunzip -c "$cd_/$bin.gz" >"$tmp/bin"
  gunzip -c "$cd_/$run.profraw.gz" >"$tmp/run"
  join "$ctl" "$tmp/run" "$tmp/bin" | seed correlate "$bin"
done

for t in "$out"/*/; do
  printf '%-12s %4d seeds, %7d bytes\n' "$(basename "$t")" "$(find "$t" -type f | wc -l)" \
    "$(cat "$t"* | wc -c)"
done
