#!/usr/bin/env bash
# Trace Control Interface register files configure the same trace as the
# equivalent options (encoder mode, sync, features, source id; the RAM
# sink), the decoder reads the same file, and bad settings are refused with
# the register named.
set -u
RV=${RVT_BIN:?}; D=${RVT_TEST_DATA:?}; T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL: $*" >&2; }
E=$D/ntrace-t1/test.elf; P=$D/ntrace-t1/test-PCONLY.txt

# N-Trace: HTM, sync every 2^10 half-words, a 64 KiB SRAM sink that wraps
cat > "$T/nt.regs" <<'R'
encoder0.trTeControl = 0x1              # out of reset
encoder0.trTeControl = 0x01630067       # HTM, sync mode 3 (half-words), max 6, enabled, tracing
expect encoder0.trTeInstMode = 6
ramsink0.trRamControl = 0x1
expect trRamImpl = 0x1901               # SRAM sink, version 1.0
trRamLimitLow = 0xfffc                  # 64 KiB
ramsink0+0x020 = 0x0                    # WP = start, wrap = 0
trRamControl = 0x3                      # enabled, wrap mode
R
"$RV" encode --format ntrace --elf "$E" --input "$P" --regs "$T/nt.regs" -o "$T/r.bin" && ok || bad "ntrace --regs"
"$RV" encode --format ntrace --elf "$E" --input "$P" --ntrace-mode htm --sync-period 1024 --sink sram:65536:wrap \
    -o "$T/o.bin" && ok || bad "ntrace options"
cmp -s "$T/r.bin" "$T/o.bin" && ok || bad "ntrace: register file and options give different RAM images"
cmp -s "$T/r.bin.sink" "$T/o.bin.sink" && ok || bad "ntrace: register file and options give different sidecars"
"$RV" decode --format ntrace --elf "$E" "$T/r.bin" --regs "$T/nt.regs" | cmp -s - "$P" && ok || bad "ntrace: decode with the registers"

# BTM with SRC: encoder 0 sends SRC 5 in 3 bits
cat > "$T/btm.regs" <<'R'
encoder0.trTeControl = 0x1
encoder0.trTeInstFeatures = 0x30050000  # trTeSrcBits 3, trTeSrcID 5
encoder0.trTeControl = 0x01510037       # BTM, sync mode 1 (messages), max 5
R
"$RV" encode --format ntrace --elf "$E" --input "$P" --regs "$T/btm.regs" -o "$T/b1.bin" && ok || bad "btm --regs"
"$RV" encode --format ntrace --elf "$E" --input "$P" --ntrace-mode btm --sync-msgs 512 --src-bits 3 --src-id 5 \
    -o "$T/b2.bin" && ok || bad "btm options"
cmp -s "$T/b1.bin" "$T/b2.bin" && ok || bad "btm: register file and options differ"
"$RV" dump --format ntrace --src-bits 3 "$T/b1.bin" | head -3 | grep -q "SRC=5" && ok || bad "btm: SRC 5 not in the messages"

# E-Trace: implicit return and branch prediction, sync every 2^10 packets
cat > "$T/et.regs" <<'R'
encoder0.trTeControl = 0x1
encoder0.trTeInstFeatures = 0x18        # trTeInstEnImplicitReturn, trTeInstEnBranchPrediction
encoder0.trTeControl = 0x00610077
R
"$RV" encode --format etrace --elf "$E" --input "$P" --regs "$T/et.regs" -o "$T/e1.bin" && ok || bad "etrace --regs"
"$RV" encode --format etrace --elf "$E" --input "$P" --resync-max 6 --implicit-return 2.0 --branch-prediction \
    -o "$T/e2.bin" && ok || bad "etrace options"
cmp -s "$T/e1.bin" "$T/e2.bin" && ok || bad "etrace: register file and options differ"
"$RV" decode --format etrace --elf "$E" "$T/e1.bin" --regs "$T/et.regs" | cmp -s - "$P" && ok || bad "etrace: decode with the registers"

# refused: an encoder that is not enabled, a mode the family lacks, a bad line
printf 'encoder0.trTeControl = 0x1\n' > "$T/off.regs"
"$RV" encode --format ntrace --elf "$E" --input "$P" --regs "$T/off.regs" -o "$T/x" 2>"$T/err" && bad "disabled encoder accepted" || ok
grep -q "encoder0 is not tracing" "$T/err" && ok || bad "disabled encoder message: $(cat "$T/err")"
printf 'encoder0.trTeControl = 0x1\nencoder0.trTeControl = 0x01620067\n' > "$T/cyc.regs"   # sync mode 2: cycles
"$RV" encode --format ntrace --elf "$E" --input "$P" --regs "$T/cyc.regs" -o "$T/x" 2>"$T/err" && bad "cycle sync accepted" || ok
grep -q "trTeInstSyncMode 2" "$T/err" && ok || bad "cycle sync message: $(cat "$T/err")"
printf 'encoder0.trTeControl = 0x1\nencoder0.trNoSuchReg = 3\n' > "$T/bad.regs"
"$RV" encode --format ntrace --elf "$E" --input "$P" --regs "$T/bad.regs" -o "$T/x" 2>"$T/err" && bad "unknown register accepted" || ok
grep -q "bad.regs:2" "$T/err" && ok || bad "unknown register message: $(cat "$T/err")"
"$RV" encode --format cdl --elf "$E" --input "$P" --regs "$T/nt.regs" -o "$T/x" 2>"$T/err" && bad "cdl with TCI registers accepted" || ok
grep -q "not a Trace Control Interface encoder" "$T/err" && ok || bad "cdl message: $(cat "$T/err")"

# The funnel's registers: a register file that brings funnel0 out of reset
# must enable it, and trFunnelDisInput drops a hart's trace (reported).
xz -dc "$D/sysmode/smp64.xz" > "$T/smp64"
xz -dc "$D/sysmode/smp64-2.ing.xz" > "$T/smp.ing"
S=$T/smp64
for h in 0 1; do
    "$RV" convert --elf "$S" --input "$T/smp.ing" --hart $h --to pclist -o "$T/h$h.txt" 2>/dev/null || bad "convert hart $h"
done
fun_regs() { # $1: trFunnelDisInput, $2: last trFunnelControl value, $3: trTeControl
    cat <<R
encoder0.trTeControl = 0x1
encoder0.trTeInstFeatures = 0x10000000  # trTeSrcBits 1, trTeSrcID 0
encoder0.trTeControl = $3
encoder1.trTeControl = 0x1
encoder1.trTeInstFeatures = 0x10010000  # trTeSrcBits 1, trTeSrcID 1
encoder1.trTeControl = $3
funnel0.trFunnelControl = 0x1
funnel0.trFunnelDisInput = $1
funnel0.trFunnelControl = $2
R
}
for fmt in ntrace etrace; do
    [ $fmt = ntrace ] && tectl=0x01610067 || tectl=0x00610077  # HTM / E-Trace; sync every 2^6 messages
    fun_regs 0x0 0x3 $tectl > "$T/f0.regs"
    fun_regs 0x2 0x3 $tectl > "$T/f2.regs"
    "$RV" encode --format $fmt --ecall trap --elf "$S" --input "$T/smp.ing" --funnel --regs "$T/f0.regs" -o "$T/f0.bin" \
        2>"$T/err" && ok || bad "$fmt: funnel register file: $(cat "$T/err")"
    for h in 0 1; do
        "$RV" decode --format $fmt --ecall trap --elf "$S" "$T/f0.bin" --src-bits 1 --hart $h --output pcs 2>/dev/null |
            cmp -s - "$T/h$h.txt" && ok || bad "$fmt: funnel registers, hart $h does not round-trip"
    done
    "$RV" encode --format $fmt --ecall trap --elf "$S" --input "$T/smp.ing" --funnel --regs "$T/f2.regs" -o "$T/f2.bin" \
        2>"$T/err" && ok || bad "$fmt: funnel with input 1 disabled: $(cat "$T/err")"
    grep -q "hart 1: funnel0 input 1 is disabled (trFunnelDisInput): [1-9][0-9]* bytes" "$T/err" && ok ||
        bad "$fmt: the disabled input's loss is not reported: $(cat "$T/err")"
    "$RV" decode --format $fmt --ecall trap --elf "$S" "$T/f2.bin" --src-bits 1 --hart 0 --output pcs 2>/dev/null |
        cmp -s - "$T/h0.txt" && ok || bad "$fmt: hart 0 changed when input 1 was disabled"
    "$RV" decode --format $fmt --ecall trap --elf "$S" "$T/f2.bin" --src-bits 1 --hart 1 --output count >/dev/null \
        2>&1 && bad "$fmt: hart 1 decoded from a disabled funnel input" || ok
    [ "$(stat -c %s "$T/f2.bin")" -lt "$(stat -c %s "$T/f0.bin")" ] && ok || bad "$fmt: disabling input 1 kept its bytes"
    fun_regs 0x0 0x1 $tectl > "$T/fa.regs"
    "$RV" encode --format $fmt --ecall trap --elf "$S" --input "$T/smp.ing" --funnel --regs "$T/fa.regs" -o "$T/x" \
        2>"$T/err" && bad "$fmt: an active but disabled funnel accepted" || ok
    grep -q "funnel0 is active but not enabled (trFunnelControl = 0x[0-9a-f]*)" "$T/err" && ok ||
        bad "$fmt: disabled funnel message: $(cat "$T/err")"
done

# Every feature bit a register file can set does what it says, or reads 0.
# N-Trace implicit return: mode 1 is the spec's "simple counting", mode 3
# a stack of full addresses (they differ on a program with longjmp and
# co-routine swaps).
"$RV" gen --seed 3 --insns 50000 --elf "$T/g.elf" -o "$T/g.ing" || bad "gen"
for cs in count addr; do
    "$RV" encode --format ntrace --ntrace-mode btm --callstack 32 --callstack-mode $cs --elf "$T/g.elf" \
        --input "$T/g.ing" -o "$T/g-$cs.bin"
done
cmp -s "$T/g-count.bin" "$T/g-addr.bin" && bad "the generated program does not tell the return modes apart" || ok
for m in 1 3; do
    [ $m = 1 ] && cs=count || cs=addr
    printf 'encoder0.trTeControl = 0x1\nencoder0.trTeInstFeatures = 0x%x\nencoder0.trTeControl = 0x01610037\n' \
        $(( 1 << 3 | m << 6 )) > "$T/ir.regs"
    "$RV" encode --format ntrace --elf "$T/g.elf" --input "$T/g.ing" --regs "$T/ir.regs" -o "$T/ir1.bin" 2>"$T/err" \
        && ok || bad "ntrace implicit return mode $m: $(cat "$T/err")"
    "$RV" encode --format ntrace --elf "$T/g.elf" --input "$T/g.ing" --ntrace-mode btm --sync-msgs 1024 --callstack 32 \
        --callstack-mode $cs -o "$T/ir2.bin" && ok || bad "ntrace --callstack-mode $cs"
    cmp -s "$T/ir1.bin" "$T/ir2.bin" && ok || bad "ntrace: trTeInstImplicitReturnMode $m is not --callstack-mode $cs"
done
# trTeInstEnAllJumps is not implemented: it reads back 0, and the file says so.
printf 'encoder0.trTeControl = 0x1\nencoder0.trTeInstEnAllJumps = 1\nexpect encoder0.trTeInstEnAllJumps = 0\nencoder0.trTeControl = 0x01610037\n' \
    > "$T/aj.regs"
"$RV" encode --format ntrace --elf "$E" --input "$P" --regs "$T/aj.regs" -o "$T/aj.bin" 2>"$T/err" && ok \
    || bad "ntrace trTeInstEnAllJumps: $(cat "$T/err")"
grep -q "aj.regs:2: encoder0.trTeInstFeatures.trTeInstEnAllJumps: wrote 0x00000200, reads back 0x00000000; trTeInstEnAllJumps 1 -> 0" "$T/err" && ok \
    || bad "trTeInstEnAllJumps: no read-back note: $(cat "$T/err")"
# E-Trace trTeInstNoTrapAddr is implicit exception mode (it needs the trap vectors).
printf 'encoder0.trTeControl = 0x1\nencoder0.trTeInstFeatures = 0x2\nencoder0.trTeControl = 0x00610077\n' > "$T/nt.regs"
"$RV" encode --format etrace --elf "$E" --input "$P" --regs "$T/nt.regs" -o "$T/x" 2>"$T/err" \
    && bad "E-Trace trTeInstNoTrapAddr without trap vectors accepted" || ok
grep -q "tvec" "$T/err" && ok || bad "trTeInstNoTrapAddr: $(cat "$T/err")"
"$RV" encode --format etrace --tvec-m 0x80000000 --elf "$E" --input "$P" --regs "$T/nt.regs" -o "$T/n1.bin" && ok \
    || bad "etrace trTeInstNoTrapAddr with --tvec-m"
"$RV" encode --format etrace --tvec-m 0x80000000 --implicit-except --resync-max 6 --elf "$E" --input "$P" -o "$T/n2.bin"
cmp -s "$T/n1.bin" "$T/n2.bin" && ok || bad "etrace: trTeInstNoTrapAddr is not --implicit-except"
# E-Trace timestamps: trTsEnable puts trTsWidth bits of timestamp in each encapsulated packet.
printf 'encoder0.trTeControl = 0x1\nencoder0.trTsControl = 0x8011\nencoder0.trTeControl = 0x00610077\n' > "$T/ts.regs"
"$RV" encode --format etrace --elf "$E" --input "$P" --regs "$T/ts.regs" -o "$T/t1.bin" && ok || bad "etrace trTsEnable"
"$RV" encode --format etrace --encap-timestamp 6 --resync-max 6 --elf "$E" --input "$P" -o "$T/t2.bin"
cmp -s "$T/t1.bin" "$T/t2.bin" && ok || bad "etrace: trTsEnable (trTsWidth 48) is not --encap-timestamp 6"

# docs/sinks.md's sample register file works verbatim with the CLI's system:
# a two-hart funnel into a 64 KiB wrapping RAM, decoded back per hart.
SRC=${RVT_SRC:?}
awk '/^### Register-setting files/ {f=1} f && /^```/ {n++; next} f && n==1 {print} n==2 {exit}' \
    "$SRC/docs/sinks.md" > "$T/board.regs"
grep -q "trTeControl" "$T/board.regs" && ok || bad "no register file found in docs/sinks.md"
"$RV" encode --format ntrace --ecall trap --funnel --regs "$T/board.regs" --elf "$S" --input "$T/smp.ing" \
    -o "$T/board.bin" 2>"$T/err" && ok || bad "docs/sinks.md sample: $(cat "$T/err")"
grep -q "rvtrace: " "$T/err" && bad "docs/sinks.md sample: notes: $(cat "$T/err")" || ok
grep -q "^size = 65536" "$T/board.bin.sink" && ok || bad "docs sample: not a 64 KiB RAM"
# (hart 1 is nearly idle at the end of this capture: its last sync point,
# 2^10 of its half-words back, is older than the RAM's 64 KiB)
for h in 0 1; do
    "$RV" decode --format ntrace --ecall trap --elf "$S" "$T/board.bin" --src-bits 1 --hart $h --output pcs \
        -o "$T/bd.txt" 2>/dev/null
    n=$(wc -l < "$T/bd.txt")
    { [ $h = 1 ] || [ "$n" -gt 0 ]; } && tail -n "$n" "$T/h$h.txt" | cmp -s - "$T/bd.txt" && ok \
        || bad "docs sample: hart $h: $n, not a tail"
done
"$RV" info --format ntrace --regs "$T/board.regs" > "$T/info.txt" 2>"$T/err" && ok || bad "info --regs sample: $(cat "$T/err")"
grep -q "ramsink0 @ 0x10100000" "$T/info.txt" && ok || bad "info --regs: the moved RAM sink is not listed"

# Filter registers select what is traced, as the same --filter would.
cat > "$T/f.regs" <<'R'
encoder0.trTeControl = 0x1
trTeComp0Control = 0x1250              # P: iaddr >= PMatch, S: iaddr < SMatch, P && S
trTeComp0PMatchLow = 0x20010200
trTeComp0SMatchLow = 0x20010400
trTeFilter0Control = 0x11              # enabled, comparator unit 0
trTeInstFilters = 0x1
encoder0.trTeControl = 0x01610037
R
"$RV" encode --format ntrace --elf "$E" --input "$P" --regs "$T/f.regs" -o "$T/f1.bin" 2>"$T/err" && ok \
    || bad "filter registers: $(cat "$T/err")"
"$RV" encode --format ntrace --ntrace-mode btm --sync-msgs 1024 --filter 'addr in 0x20010200..0x20010400' \
    --elf "$E" --input "$P" -o "$T/f2.bin" && ok || bad "--filter"
cmp -s "$T/f1.bin" "$T/f2.bin" && ok || bad "filter registers do not trace what --filter 'addr in LO..HI' does"
"$RV" encode --format ntrace --elf "$E" --input "$P" --regs "$T/f.regs" --filter 'priv == M' -o "$T/x" 2>"$T/err" \
    && bad "filter registers and --filter both accepted" || ok
grep -q "give one" "$T/err" && ok || bad "filter registers + --filter: $(cat "$T/err")"
"$RV" encode --format ntrace --elf "$E" --input "$P" --regs "$T/f.regs" --funnel -o "$T/x" 2>"$T/err" \
    && bad "filter registers with --funnel accepted" || ok
grep -q "encoder0 selects filters (trTeInstFilters = 0x1)" "$T/err" && ok || bad "funnel + filter registers: $(cat "$T/err")"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
