#!/usr/bin/env bash
# The nybble families through the CLI: verify, encode/decode/dump, buffer
# options with their state/register files, option errors.
set -u
RV=${RVT_BIN:?}; D=${RVT_TEST_DATA:?}; T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL: $*" >&2; }
expect_ok()   { if "$@" >"$T/out" 2>"$T/err"; then ok; else bad "$* (exit $?): $(cat "$T/err")"; fi; }
expect_fail() { if "$@" >"$T/out" 2>"$T/err"; then bad "$* succeeded"; else ok; fi; }
expect_err()  { if grep -q -- "$1" "$T/err"; then ok; else bad "stderr lacks '$1': $(cat "$T/err")"; fi; }
expect_out()  { if grep -q -- "$1" "$T/out"; then ok; else bad "output lacks '$1': $(head -c 600 "$T/out")"; fi; }

E=$D/ntrace-t1/test.elf; P=$D/ntrace-t1/test-PCONLY.txt
if "$RV" verify --format cdl --elf "$E" --input "$P" 2>&1 | grep -q "unknown format"; then
    echo "SKIP: the rvtrace binary does not register the cdl/dbg families"
    exit 77
fi

for f in "cdl" "cdl --cdl-pc uninferable" "cdl --cdl-pack all --cdl-sync-interval 32" \
         "dbg" "dbg --dbg-emit pc,priv" "dbg --dbg-emit all --dbg-buffer 1024"; do
    # shellcheck disable=SC2086
    expect_ok "$RV" verify --format $f --elf "$E" --input "$P"
    expect_out "OK: the decoded instructions equal the input (164959)"
done

# verify compares every traced value at its full width (issue 9 §4): a
# generated RV32 program with F/D writes 64-bit f registers and does 8-byte
# loads/stores.  cdl needs the wide data extension for them and says so.
expect_ok "$RV" gen --xlen 32 --all --seed 3 --insns 20000 --elf "$T/g.elf" -o "$T/g.ing"
expect_fail "$RV" verify --format cdl --elf "$T/g.elf" --input "$T/g.ing" --ecall trap --cdl-pack all
expect_err "needs 9 data bytes.*--cdl-data wide"
expect_ok "$RV" verify --format cdl --elf "$T/g.elf" --input "$T/g.ing" --ecall trap --cdl-pack all --cdl-data wide
expect_out "^compared      instructions (20000), register writes ([1-9][0-9]*), tracepoints (0)$"
expect_out "OK: the decoded instructions equal the input (20000), and so does everything else compared"
expect_ok "$RV" verify --format dbg --elf "$T/g.elf" --input "$T/g.ing" --ecall trap --dbg-emit all
expect_out "load values ([1-9][0-9]*), store values ([1-9][0-9]*), hart changes (0), privilege (20000), timestamps"
# ...and the interrupts of that program with PC packets only (issue 9 §5)
expect_ok "$RV" verify --format dbg --elf "$T/g.elf" --input "$T/g.ing" --ecall trap --dbg-emit pc
# Without pc no packet names the code: the trace is its data alone, which
# verify compares one for one and decode gives (exit 0, not "nothing"); a
# Privilege Level's interrupt bit is then all there is of a trap
expect_ok "$RV" verify --format dbg --elf "$T/g.elf" --input "$T/g.ing" --ecall trap --dbg-emit branch,priv,loadaddr,loaddata
expect_out "^compared      load addresses ([1-9][0-9]*), load values ([1-9][0-9]*)$"
expect_out "OK: the decoded accesses equal the input's"
expect_ok "$RV" encode --format dbg --elf "$T/g.elf" --input "$T/g.ing" --ecall trap --dbg-emit priv,storeaddr -o "$T/sa.dbg"
expect_ok "$RV" decode --format dbg --elf "$T/g.elf" "$T/sa.dbg" --dbg-emit priv,storeaddr --output jsonl
expect_out '"data":"store addr"'
expect_fail "$RV" verify --format dbg --elf "$T/g.elf" --input "$T/g.ing" --ecall trap --dbg-emit branch,priv
expect_err "traces no instructions .* give --dbg-emit pc, or data to trace"
# emit bits whose data the input lacks: said, not left to be found out
# (a PC list has no accesses, values or times)
expect_ok "$RV" encode --format dbg --elf "$E" --input "$P" -o "$T/all.dbg" --dbg-emit all
expect_err "warning: --dbg-emit loadaddr,storeaddr,loaddata,storedata,timestamp: the records traced carry no load addresses, store addresses, load values, store values, times (rvtrace capture --mem records memory accesses), so the trace has none"
expect_ok "$RV" encode --format dbg --elf "$T/g.elf" --input "$T/g.ing" --ecall trap -o "$T/g.dbg" --dbg-emit all
if grep -q warning "$T/err"; then bad "a warning for an input with every kind of data: $(cat "$T/err")"; else ok; fi
expect_ok "$RV" encode --format dbg --elf "$E" --input "$P" -o "$T/def.dbg"
if grep -q warning "$T/err"; then bad "a warning for the default emit bits: $(cat "$T/err")"; else ok; fi
expect_ok "$RV" encode --format cdl --elf "$E" --input "$P" -o "$T/rfw.cdl" --cdl-pack flow,rfw
expect_err "warning: --cdl-pack rfw: the records traced carry no register writes, so the trace has none"
expect_ok "$RV" encode --format cdl --elf "$T/g.elf" --input "$T/g.ing" --ecall trap -o "$T/rfw.cdl" --cdl-pack all --cdl-data wide
if grep -q warning "$T/err"; then bad "a warning for an input with register writes: $(cat "$T/err")"; else ok; fi

# encode -> decode -> the same PC list
for f in cdl dbg; do
    expect_ok "$RV" encode --format $f --elf "$E" --input "$P" -o "$T/t.$f"
    expect_ok "$RV" decode --format $f --elf "$E" "$T/t.$f" --output pcs -o "$T/pcs.$f"
    cmp -s "$P" "$T/pcs.$f" && ok || bad "$f: decoded PCs differ from the input"
done

# dump
expect_ok "$RV" dump --format cdl --xlen 32 --cdl-histogram "$T/t.cdl"
expect_out "^00000000.0  sync mark (4 zero nybbles)$"
expect_out "^00000002.0  data pc 0x20010522 (nnn 4, 4 bytes)$"
# (periodic sync marks come after a non-sequential field, so their PCs are
# flow targets the PC fields name anyway: 21, not the 32 of marks placed at
# any record boundary)
expect_out "# PC histogram: 21 distinct PCs"
expect_ok "$RV" dump --format dbg --xlen 32 "$T/t.dbg"
expect_out "^00000000.0  \[sync\] trace-enabled version 0$"
expect_out "pc 0x10008291 (8 nybbles) -> pc 0x20010522"

# circular buffers: the state / register file carries the write pointer
expect_fail "$RV" verify --format cdl --elf "$E" --input "$P" --cdl-buffer 65536 --cdl-overflow halt
expect_out "recording halted at offset 0x" # the tail is not there, and verify says where it stopped
expect_ok "$RV" encode --format cdl --elf "$E" --input "$P" -o "$T/w.cdl" --cdl-buffer 4096 --cdl-image raw \
    --cdl-state "$T/cdl.state"
grep -q '^wrapped=1$' "$T/cdl.state" && ok || bad "cdl state: $(cat "$T/cdl.state")"
expect_ok "$RV" decode --format cdl --elf "$E" "$T/w.cdl" --cdl-image raw --cdl-state "$T/cdl.state" -o "$T/w.pcs"
n=$(wc -l < "$T/w.pcs"); [ "$n" -gt 1000 ] && tail -n "$n" "$P" | cmp -s - "$T/w.pcs" && ok ||
    bad "cdl wrapped: the $n decoded PCs are not the tail of the input"
expect_ok "$RV" encode --format dbg --elf "$E" --input "$P" -o "$T/w.dbg" --dbg-destination sysram \
    --dbg-tbufstart 0x80000000 --dbg-buffer 4096 --dbg-regs "$T/dbg.regs"
grep -q '^tbufend=0x80001000$' "$T/dbg.regs" && ok || bad "dbg regs: $(cat "$T/dbg.regs")"
expect_ok "$RV" decode --format dbg --elf "$E" "$T/w.dbg" --dbg-destination sysram --dbg-regs "$T/dbg.regs" \
    -o "$T/wd.pcs"
n=$(wc -l < "$T/wd.pcs"); [ "$n" -gt 1000 ] && tail -n "$n" "$P" | cmp -s - "$T/wd.pcs" && ok ||
    bad "dbg wrapped: the $n decoded PCs are not the tail of the input"

# option errors name the option and what was expected
expect_fail "$RV" encode --format cdl --elf "$E" --input "$P" -o "$T/x" --cdl-pack flow,bogus
expect_err "unknown item 'bogus'"
expect_fail "$RV" encode --format cdl --elf "$E" --input "$P" -o "$T/x" --cdl-buffer 10
expect_err "multiple of 4"
expect_fail "$RV" encode --format dbg --elf "$E" --input "$P" -o "$T/x" --dbg-emit pc,nope
expect_err "unknown event 'nope'"
expect_fail "$RV" encode --format dbg --elf "$E" --input "$P" -o "$T/x" --dbg-trace 0x80000000
expect_err "trace register value"
expect_fail "$RV" encode --format dbg --elf "$E" --input "$P" -o "$T/x" --dbg-rvc off
expect_err "not 4-byte aligned"
# damaged trace: the error names the offset, exit status 1
cp "$T/t.cdl" "$T/bad.cdl"; printf '\xee\xee\xee\xee' | dd of="$T/bad.cdl" bs=1 seek=3000 conv=notrunc 2>/dev/null
expect_fail "$RV" decode --format cdl --elf "$E" "$T/bad.cdl" -o "$T/bad.pcs"
expect_err "offset 0x"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
