# The bundled two-hart system-mode capture (tests/data/sysmode), without
# QEMU: its QEMU log replays (rvtrace capture --replay-log) to exactly the
# bundled stream; each hart's stream passes `rvtrace check --ecall trap`
# against the bundled ELF; the traps are exactly those the program printed.
# With QEMU and the plugin, a fresh capture of the bundled ELF must give
# the same stream (regenerate with tests/data/sysmode/make.sh if the format
# or the capture changes on purpose).
#   bundled.sh SYSMODE_CHECK
source "$(dirname "$0")/lib.sh"
syscheck=${1:?usage: bundled.sh SYSMODE_CHECK}
need xz
data=$RVT_SRC/tests/data/sysmode
xz -dc "$data/smp64.xz" >"$WORK/smp64"
xz -dc "$data/smp64-2.ing.xz" >"$WORK/bundled.ing"
xz -dc "$data/smp64-2.log.xz" >"$WORK/smp64-2.log"

"$RVT_BIN" capture --system --replay-log "$WORK/smp64-2.log" -o "$WORK/r.ing" || fail "the bundled log does not replay"
cmp "$WORK/bundled.ing" "$WORK/r.ing" || fail "the replayed log differs from the bundled stream"
for h in 0 1; do
    check "$WORK/smp64" "$WORK/r.ing.hart$h"
    n[$h]=$(sed -n 's/.* records, \([0-9]*\) instructions, all consistent.*/\1/p' "$WORK/check.txt")
done
# The two-hart stream checked whole: each hart follows its own flow, with
# the counts its own stream gives.
check "$WORK/smp64" "$WORK/r.ing"
for h in 0 1; do
    grep -q "^  hart $h: [0-9]* records, ${n[$h]} instructions\$" "$WORK/check.txt" ||
        fail "check of the two-hart stream: hart $h is not ${n[$h]} instructions: $(grep "hart $h" "$WORK/check.txt")"
done
# One encoder traces one flow: the two harts interleaved are refused, not
# encoded as if hart 1 continued hart 0 (dbg's Change Hart: one flow that
# moves from hart to hart, not two that run at once); one hart is encoded.
"$RVT_BIN" encode --format ntrace --elf "$WORK/smp64" --input "$WORK/r.ing" -o "$WORK/x.bin" 2>"$WORK/err" &&
    fail "ntrace encode of two harts interleaved succeeded"
grep -q "is hart 1's, after hart 0's: a trace of this family holds one hart" "$WORK/err" ||
    fail "ntrace encode of two harts: $(cat "$WORK/err")"
"$RVT_BIN" encode --format dbg --elf "$WORK/smp64" --input "$WORK/r.ing" -o "$WORK/x.bin" 2>"$WORK/err" &&
    fail "dbg encode of two harts interleaved succeeded"
grep -q "is hart 0's, after hart 1's: harts that run at once, interleaved, are not one flow" "$WORK/err" ||
    fail "dbg encode of two harts: $(cat "$WORK/err")"
"$RVT_BIN" verify --format dbg --ecall trap --elf "$WORK/smp64" --input "$WORK/r.ing" --hart 1 >"$WORK/v.txt" ||
    fail "dbg verify of hart 1: $(tail -1 "$WORK/v.txt")"
"$syscheck" "$data/smp64-2.serial" "$WORK/bundled.ing" "$WORK/r.ing.hart0" "$WORK/r.ing.hart1" >"$WORK/sc.txt" ||
    { cat "$WORK/sc.txt"; fail "the bundled capture's traps differ from the program's"; }
cat "$WORK/sc.txt"
funnel_roundtrip "$WORK/smp64" "$WORK/r.ing" 2

if command -v qemu-system-riscv64 >/dev/null && [ -f "$(dirname "$RVT_BIN")/librvtrace-qemu.so" ]; then
    chmod +x "$WORK/smp64"
    "$RVT_BIN" capture --system -q --loader "$WORK/smp64" --smp 2 -o "$WORK/fresh.ing" --timeout 300 ||
        fail "capturing the bundled program failed"
    cmp "$WORK/bundled.ing" "$WORK/fresh.ing" ||
        fail "a fresh capture differs from tests/data/sysmode/smp64-2.ing.xz (regenerate with tests/data/sysmode/make.sh if intended)"
    echo "bundled capture: replays, checks, and a fresh capture reproduces it exactly"
else
    echo "bundled capture: replays and checks (re-capture not tried: no qemu-system-riscv64 or plugin)"
fi
