# Damaged QEMU logs never give a stream that looks right: the bundled log
# (tests/data/sysmode) with a trap line, a block's privilege, the plugin
# header or an execution count removed or changed, or cut short, must fail
# with a message naming the log line; and thousands of random mutations
# must end with status 0 or 1 (never a crash or a hang; run this under the
# sanitizer build too).  A replay that succeeds must still check.
#   log-errors.sh
source "$(dirname "$0")/lib.sh"
need xz
data=$RVT_SRC/tests/data/sysmode
xz -dc "$data/smp64.xz" >"$WORK/smp64"
xz -dc "$data/smp64-2.log.xz" >"$WORK/good.log"
log=$WORK/good.log

replay() { "$RVT_BIN" capture --system -q --replay-log "$1" -o "$WORK/out.ing"; }

# expect_bad NAME PATTERN: the damaged log $WORK/NAME fails with PATTERN.
expect_bad() {
    expect_fail 1 "$2" replay "$WORK/$1"
    [ ! -e "$WORK/out.ing" ] || fail "$1: a failed replay left its output"
    echo "$1: $(head -c 200 "$WORK/stderr")"
}

grep -v '^riscv_cpu_do_interrupt' "$log" >"$WORK/no-traps.log"
expect_bad no-traps.log 'log line [0-9]+: hart [01]: .*(not explained|no placement|began executing twice)'
awk '/^riscv_cpu_do_interrupt/ && !done { done = 1; next } { print }' "$log" >"$WORK/one-trap-less.log"
expect_bad one-trap-less.log 'log line [0-9]+: hart [01]'
awk '/^riscv_cpu_do_interrupt/ && !done { print; done = 1 } { print }' "$log" >"$WORK/trap-twice.log"
expect_bad trap-twice.log 'log line [0-9]+: hart [01]: .*(no placement|fits more than one)'
awk '/^riscv_cpu_do_interrupt/ && ++n == 3 { sub(/epc:0x[0-9a-f]*/, "epc:0x0000000080000002") } { print }' "$log" >"$WORK/trap-epc.log"
expect_bad trap-epc.log 'log line [0-9]+: hart [01]'
grep -v '^Priv: ' "$log" >"$WORK/no-priv.log"
expect_bad no-priv.log 'log line [0-9]+: .*(Priv line|in_asm)'
grep -v '^@H ' "$log" >"$WORK/no-header.log"
expect_bad no-header.log 'before the plugin header'
awk '/^X1 / && NF == 2 && ++n == 5 { $0 = $0 " 1" } { print }' "$log" >"$WORK/count.log"
expect_bad count.log 'log line [0-9]+: hart 1'
grep -v '^@E1 ' "$log" >"$WORK/no-end.log"
expect_bad no-end.log "final count"
sed 's/^@H rvtrace-qemu 1 /@H rvtrace-qemu 2 /' "$log" >"$WORK/version.log"
expect_bad version.log 'plugin log version 2'
for cut in 100 5000 333333 1000000 $(( $(stat -c %s "$log") - 1 )); do
    head -c "$cut" "$log" >"$WORK/cut-$cut.log"
    expect_bad "cut-$cut.log" 'log line [0-9]+|ends'
done

# Random damage: replace one byte of a line with another, drop or repeat a
# line, for many seeds; only the exit status is judged, plus `check` when a
# replay succeeds.
lines=$(wc -l <"$log")
ok=0 bad=0
for seed in $(seq 1 ${RVT_MUTATIONS:-300}); do
    awk -v seed="$seed" -v lines="$lines" 'BEGIN { srand(seed); target = int(rand() * lines) + 1; kind = int(rand() * 3);
                                                    chars = "0123456789abcdefxX@ :,\n"; }
        NR == target && kind == 0 { next }
        NR == target && kind == 1 { print; print; next }
        NR == target && kind == 2 && length($0) > 0 { p = int(rand() * length($0)) + 1;
                                                      c = substr(chars, int(rand() * length(chars)) + 1, 1);
                                                      $0 = substr($0, 1, p - 1) c substr($0, p + 1) }
        { print }' "$log" >"$WORK/m.log"
    rc=0
    timeout 60 "$RVT_BIN" capture --system -q --replay-log "$WORK/m.log" -o "$WORK/m.ing" 2>"$WORK/m.err" || rc=$?
    case $rc in
    0)
        ok=$((ok + 1))
        for h in 0 1; do
            "$RVT_BIN" check --ecall trap --elf "$WORK/smp64" --input "$WORK/m.ing.hart$h" >/dev/null ||
                fail "seed $seed: a replay that succeeded does not check (hart $h)"
        done
        ;;
    1) bad=$((bad + 1)); grep -q 'rvtrace capture: ' "$WORK/m.err" || fail "seed $seed: failed without a message" ;;
    *) fail "seed $seed: exit status $rc (crash or hang): $(cat "$WORK/m.err")" ;;
    esac
done
echo "random damage: $ok replays still consistent, $bad rejected"
