#!/usr/bin/env bash
# Decode cost that does not depend on the machine's load: host instructions
# executed by a whole `rvtrace decode --output count` run (valgrind
# callgrind's instruction count; process start, ELF load and reading the trace
# included), per decoded instruction, for every option set of
# bench/families.txt, with the ratio to the first line (N-Trace HTM, the
# baseline) from the same invocation.  Wall-clock speeds on a shared machine
# vary by tens of percent; these counts repeat to a fraction of a percent.
# Uses the build and the capture bench/run.sh made in the same WORKDIR.
#   bench/icount.sh [WORKDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
work=${1:-$top/build/bench-work}
RV=$top/build/bench/tools/rvtrace
[ -x "$RV" ] && [ -f "$work/bzip2.ing" ] || { echo "bench/icount.sh: run bench/run.sh $work first" >&2; exit 1; }
command -v valgrind >/dev/null || apt-get install -y valgrind >/dev/null

echo "| family and options | instructions | host instructions | per decoded instruction | vs baseline |"
echo "|---|---|---|---|---|"
base=
while IFS='|' read -r label opts; do
    [ -n "$label" ] || continue
    # shellcheck disable=SC2086
    "$RV" encode --elf "$work/bzip2" --input "$work/bzip2.ing" -o "$work/ic.bin" $opts
    # shellcheck disable=SC2086
    insns=$("$RV" decode --elf "$work/bzip2" "$work/ic.bin" --output count $opts | sed -n 's/^instructions *//p')
    # shellcheck disable=SC2086
    refs=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$RV" decode --elf "$work/bzip2" "$work/ic.bin" \
           --output count $opts 2>&1 >/dev/null | sed -n 's/.*I *refs: *\([0-9,]*\).*/\1/p' | tr -d ,)
    per=$(echo "$refs / $insns" | bc -l)
    [ -n "$base" ] || base=$per
    printf '| %s | %s | %s | %.1f | %.2f× |\n' "$label" "$insns" "$refs" "$per" "$(echo "$per / $base" | bc -l)"
done < "$top/bench/families.txt"
