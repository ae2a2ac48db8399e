# Guest programs with threads, fork and signals (static riscv64 glibc):
# one stream per thread, each consistent with the ELF and together holding
# every captured instruction; a forked child is not recorded; a handled
# signal fails the capture with a clear message and leaves no stream, and
# so does a program killed by a signal.
source "$(dirname "$0")/lib.sh"
command -v riscv64-linux-gnu-gcc >/dev/null ||
    skip "riscv64-linux-gnu-gcc not installed (apt-get install gcc-riscv64-linux-gnu libc6-dev-riscv64-cross)"
guests=$RVT_SRC/tests/capture/guests
for g in threads forks signals aborts; do
    riscv64-linux-gnu-gcc -O2 -static -pthread -o "$WORK/$g" "$guests/$g.c" || fail "cannot build $g.c"
done

# check_count ELF ING: run check, print the instruction count it reports.
check_count() {
    local out
    out=$("$RVT_BIN" check --elf "$1" --input "$2") || fail "rvtrace check --elf $1 --input $2 failed"
    echo "$out" | sed -n '1s/.* \([0-9][0-9]*\) instructions.*/\1/p'
}

capture "$WORK/t.ing" --stdout "$WORK/t.out" -- "$WORK/threads"
[ -f "$WORK/t.ing.1" ] || fail "no stream t.ing.1 for the second thread"
[ ! -e "$WORK/t.ing.2" ] || fail "a third stream for a two-thread program"
n0=$(check_count "$WORK/threads" "$WORK/t.ing")
n1=$(check_count "$WORK/threads" "$WORK/t.ing.1")
[ -n "$n0" ] && [ -n "$n1" ] || fail "no instruction count from rvtrace check"
[ $((n0 + n1)) = "$CAPTURED_INSNS" ] || fail "streams hold $n0 + $n1 instructions, capture reported $CAPTURED_INSNS"
[ "$n0" -gt 300000 ] && [ "$n1" -gt 300000 ] || fail "a thread's loop is missing: $n0 and $n1 instructions"

# A later single-thread capture to the same name removes the stale thread stream.
capture "$WORK/again.ing" --stdout "$WORK/f.out" -- "$WORK/threads"
[ -f "$WORK/again.ing.1" ] || fail "no stream again.ing.1"
capture "$WORK/again.ing" --stdout "$WORK/f.out" -- "$WORK/forks"
[ ! -e "$WORK/again.ing.1" ] || fail "a stale thread stream survived a new capture to the same name"

capture "$WORK/f.ing" --stdout "$WORK/f.out" -- "$WORK/forks"
grep -q "child status 0" "$WORK/f.out" || fail "forks printed '$(cat "$WORK/f.out")'"
[ ! -e "$WORK/f.ing.1" ] || fail "the forked child wrote a stream"
nf=$(check_count "$WORK/forks" "$WORK/f.ing")
[ "$nf" = "$CAPTURED_INSNS" ] || fail "check counts $nf instructions, capture reported $CAPTURED_INSNS"

expect_fail 1 "capture of .*signals failed: .*signal" "$RVT_BIN" capture -o "$WORK/s.ing" -- "$WORK/signals"
[ ! -e "$WORK/s.ing" ] || fail "a failed capture left its stream behind"
expect_fail 1 "aborts died of signal 6; no trace written" "$RVT_BIN" capture -o "$WORK/a.ing" -- "$WORK/aborts"
[ ! -e "$WORK/a.ing" ] || fail "a capture of a killed program left its partial stream behind"
echo "guests: threads $n0 + $n1 instructions in two streams, fork parent $nf, signal refused"
