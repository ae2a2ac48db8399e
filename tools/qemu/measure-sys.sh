#!/bin/bash
# Measure system-mode capture speed and stream size:
#   tools/qemu/measure-sys.sh [BUILD_DIR] [REPEATS]
# Builds the bare-metal programs (tests/programs/baremetal), then for each
# workload prints instructions, records, bytes per instruction, the best of
# REPEATS (default 3) capture times in million instructions per second, and
# QEMU alone (same options, no plugin, no log) for comparison.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
repeats=${2:-3}
rvtrace=$build/tools/rvtrace
[ -x "$rvtrace" ] || { echo "measure-sys.sh: $rvtrace not built" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/rvt-measure-sys.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$src/tests/programs/baremetal/build.sh" "$work/bin" >/dev/null

best() { # best wall time of REPEATS runs of a command
    local b=
    for _ in $(seq "$repeats"); do
        local t0 t1
        t0=$(date +%s.%N)
        "$@" >/dev/null </dev/null
        t1=$(date +%s.%N)
        b=$(awk -v a="$t0" -v c="$t1" -v p="$b" 'BEGIN { d = c - a; print (p == "" || d < p) ? d : p }')
    done
    echo "$b"
}

printf '%-28s %12s %10s %9s %10s %10s\n' workload insns records bytes/insn "capture" "QEMU alone"
# name program harts bios kind(loader|kernel)
while read -r name prog harts bios kind; do
    exe=$work/bin/$prog
    qemu=qemu-system-riscv64
    [[ $prog == *32 ]] && qemu=qemu-system-riscv32
    "$rvtrace" capture --system --$kind "$exe" --smp "$harts" --bios "$bios" -o "$work/c.ing" --timeout 600 >"$work/sum" </dev/null
    insns=$(sed -n 's/.*: \([0-9]*\) instructions, .*/\1/p' "$work/sum" | head -1)
    records=$(sed -n 's/.* instructions, \([0-9]*\) records.*/\1/p' "$work/sum" | head -1)
    bytes=$(stat -c %s "$work/c.ing")
    t=$(best "$rvtrace" capture --system --$kind "$exe" --smp "$harts" --bios "$bios" -o "$work/c.ing" --timeout 600 -q)
    qargs=(-M virt -smp "$harts" -bios "$bios" -icount shift=0,sleep=off -accel tcg,thread=single -no-reboot
           -nodefaults -display none -monitor none -serial stdio)
    if [ "$kind" = loader ]; then
        qargs+=(-device "loader,file=$exe,cpu-num=0")
        for i in $(seq 1 $((harts - 1))); do qargs+=(-device "loader,addr=0x80000000,cpu-num=$i"); done
    else
        qargs+=(-kernel "$exe")
    fi
    tq=$(best "$qemu" "${qargs[@]}")
    awk -v n="$name" -v i="$insns" -v r="$records" -v b="$bytes" -v t="$t" -v q="$tq" 'BEGIN {
        printf "%-28s %12d %10d %9.3f %6.1f M/s %6.0f M/s\n", n, i, r, b / i, i / t / 1e6, i / q / 1e6 }'
done <<'LIST'
traps-rv64                traps64  1 none    loader
timer-rv32                timer32  1 none    loader
smp-rv64-2harts           smp64    2 none    loader
bench-rv64-1hart          bench64  1 none    loader
bench-rv64-2harts         bench64  2 none    loader
opensbi+payload-rv64      sbi64    1 default kernel
LIST
