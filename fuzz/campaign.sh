#!/usr/bin/env bash
# Runs a fuzzing campaign: each target in turn (one fuzz process at a time), for SECONDS
# each, on its corpus (fuzz/corpus/<target>/, see seed-corpora.sh), and prints one row of
# docs/fuzzing.md's campaign table per target. libFuzzer's output goes to
# fuzz/artifacts/logs/; a crashing input to fuzz/artifacts/<target>/ (the run of that target
# then stops: the row says so).
#
#   fuzz/campaign.sh SECONDS [TARGET...]      (default: every target)
#
# Environment: TOOLCHAIN (default nightly), SANITIZER (cargo fuzz's -s: address, the
# default, or none: about twice the executions per second, overflow checks still on),
# RSS_LIMIT_MB (default 2048), EXTRA (more libFuzzer flags).
set -uo pipefail
cd "$(dirname "$0")"
secs="${1:?usage: campaign.sh SECONDS [TARGET...]}"
shift
toolchain="${TOOLCHAIN:-nightly}"
san="${SANITIZER:-address}"
if [ $# -gt 0 ]; then targets=("$@"); else mapfile -t targets < <(cargo "+$toolchain" fuzz list); fi
mkdir -p artifacts/logs
cpu="$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //; s/  */ /g')"
machine="$(nproc) cores ($cpu), shared"
# -print_final_stats gives the totals parsed below.
cargo "+$toolchain" fuzz build -s "$san" >/dev/null 2>&1 || { echo "cargo fuzz build failed" >&2; exit 1; }
for t in "${targets[@]}"; do
  day="$(date -u +%Y-%m-%d)"
  log="artifacts/logs/$t-$(date -u +%Y%m%dT%H%M%SZ).log"
  load="$(cut -d' ' -f1 /proc/loadavg)"
  # shellcheck disable=SC2086
  cmd="cargo +$toolchain fuzz run -s $san $t -- -max_total_time=$secs -rss_limit_mb=${RSS_LIMIT_MB:-2048} -timeout=60 -print_final_stats=1 ${EXTRA:-}"
  $cmd >"$log" 2>&1
  rc=$?
  execs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)"
  rate="$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)"
  cov="$(grep -Eo 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1 | sed 's/cov: //; s/ ft: /\//')"
  crash="$(grep -o 'Test unit written to [^ ]*' "$log" | sed 's/Test unit written to //' | tail -1)"
  if [ -n "$crash" ]; then crashes="1: \`$crash\`"; elif [ "$rc" -ne 0 ]; then crashes="exit $rc, see $log"; else crashes=0; fi
  printf '| %s | %s | %s | %s | %s | %s | %s, load %s | `%s` |\n' \
    "$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" "$crashes" "$day" "$machine" "$load" \
    "${cmd/cargo +$toolchain fuzz run /}"
done
