#!/bin/sh
# Records the temporal profiles the order tests read: a generated C program of many
# functions (gen_program.py), built with clang-19's temporal instrumentation, run with
# different arguments (each run touches functions in a different order), then merged by
# llvm-profdata-19: all traces, and a reservoir of 4 of the 8 (reservoir sampling).
# Needs python3, clang-19 (with its profile runtime) and llvm-profdata-19.
set -eu
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 gen_program.py 320 28 > "$work/order_prog.c"
gzip -9n < "$work/order_prog.c" > order_prog.c.gz
(cd "$work" && clang-19 -O1 -fprofile-generate -mllvm -pgo-temporal-instrumentation \
    order_prog.c -o prog)
i=0
for args in "alpha beta gamma" "delta 12 zeta x y" "q" "one two three four five six" \
            "z y x w v u" "lorem ipsum" "7 8 9 10 11 12 13 14" "omega"; do
    i=$((i + 1))
    # shellcheck disable=SC2086 # the words are the program's arguments
    LLVM_PROFILE_FILE="$work/run$i.profraw" "$work/prog" $args > /dev/null
done
llvm-profdata-19 merge -o all.profdata "$work"/run*.profraw
llvm-profdata-19 merge --temporal-profile-trace-reservoir-size=4 -o reservoir.profdata \
    "$work"/run*.profraw
# Two raw profiles, for reading raw inputs directly and several inputs in one step.
gzip -9n < "$work/run1.profraw" > run1.profraw.gz
gzip -9n < "$work/run2.profraw" > run2.profraw.gz
