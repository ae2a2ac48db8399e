#!/usr/bin/env bash
# The cost of the analysis on a decode: `rvtrace decode --output profile`
# (the call tree, per-instruction counts, coverage and the flat profile, all
# computed, then the profile written) against `--output count` on the same
# trace, for N-Trace HTM and E-Trace, on the 16 M-instruction bzip2 capture
# bench/run.sh makes (made here if missing).  Reports host instructions
# (valgrind callgrind, load-independent) and the best of 7 wall times (the
# outputs in turn, so load changes hit them alike); the target is at most 2x.
#   bench/analysis.sh [WORKDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
work=${1:-$top/build/bench-work}
mkdir -p "$work"
cmake -S . -B build/bench -DCMAKE_BUILD_TYPE=Release -DRVT_BUILD_TESTS=OFF >/dev/null
cmake --build build/bench -j2 >/dev/null
RV=$top/build/bench/tools/rvtrace
if [ ! -f "$work/bzip2.ing" ]; then
    bzip2=$(bash tests/programs/build-real.sh --quiet --cache "${RVT_REAL_CACHE:-$work/real}" | awk -F'\t' '$1=="bzip2"{print $2}')
    cp "$bzip2" "$work/bzip2"
    bash tests/programs/gen-text.sh 35000 >"$work/input.txt"
    "$RV" capture -q -o "$work/bzip2.ing" --stdout "$work/out.bz2" -- "$work/bzip2" -9 -c "$work/input.txt"
fi
command -v valgrind >/dev/null || { echo "bench/analysis.sh: valgrind not installed (scripts/deps.sh)" >&2; exit 1; }
best_of() { # N, command...: the shortest wall time of N runs
    local n=$1 best= t0 t1 d
    shift
    for _ in $(seq "$n"); do
        t0=$(date +%s.%N); "$@" >/dev/null; t1=$(date +%s.%N)
        d=$(echo "$t1 - $t0" | bc -l)
        if [ -z "$best" ] || [ "$(echo "$d < $best" | bc -l)" = 1 ]; then best=$d; fi
    done
    echo "$best"
}
irefs() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
          sed -n 's/.*I *refs: *\([0-9,]*\).*/\1/p' | tr -d ,; }
echo "| family | output | instructions | host instructions | per decoded instruction | vs count | wall s (best of 7, interleaved) | vs count |"
echo "|---|---|---|---|---|---|---|---|"
for spec in "ntrace HTM|--format ntrace --ntrace-mode htm --callstack 8 --repeat 2" "etrace|--format etrace"; do
    label=${spec%%|*}
    opts=${spec#*|}
    # shellcheck disable=SC2086
    "$RV" encode --elf "$work/bzip2" --input "$work/bzip2.ing" -o "$work/an.bin" $opts
    # shellcheck disable=SC2086
    insns=$("$RV" decode --elf "$work/bzip2" "$work/an.bin" --output count $opts | sed -n 's/^instructions *//p')
    # Wall times: the three outputs in turn, 7 rounds, the best of each, so
    # that a change of load hits them alike.
    declare -A best=()
    for _ in 1 2 3 4 5 6 7; do
        for out in count profile calltree; do
            t0=$(date +%s.%N)
            # shellcheck disable=SC2086
            "$RV" decode -q --elf "$work/bzip2" "$work/an.bin" --output $out -o /dev/null $opts
            t1=$(date +%s.%N)
            d=$(echo "$t1 - $t0" | bc -l)
            if [ -z "${best[$out]:-}" ] || [ "$(echo "$d < ${best[$out]}" | bc -l)" = 1 ]; then best[$out]=$d; fi
        done
    done
    base_ir= base_t=
    for out in count profile calltree; do
        # shellcheck disable=SC2086
        ir=$(irefs "$RV" decode -q --elf "$work/bzip2" "$work/an.bin" --output $out -o /dev/null $opts)
        t=${best[$out]}
        [ -n "$base_ir" ] || { base_ir=$ir; base_t=$t; }
        printf '| %s | %s | %s | %s | %.1f | %.2f× | %.3f | %.2f× |\n' "$label" "$out" "$insns" "$ir" \
            "$(echo "$ir / $insns" | bc -l)" "$(echo "$ir / $base_ir" | bc -l)" "$t" "$(echo "$t / $base_t" | bc -l)"
    done
done
# The whole report (every view written, HTML included) from the ingress and from an E-Trace decode.
"$RV" encode --elf "$work/bzip2" --input "$work/bzip2.ing" -o "$work/an.bin" --format etrace
t=$(best_of 3 "$RV" report -q --elf "$work/bzip2" --format etrace "$work/an.bin" -o "$work/an-report")
echo
echo "rvtrace report (E-Trace decode, every file written): best of 3 $(printf %.3f "$t") s; files:"
echo
echo '```'
(cd "$work/an-report" && ls -l | awk 'NR>1{printf "%10d  %s\n", $5, $9}')
echo '```'
