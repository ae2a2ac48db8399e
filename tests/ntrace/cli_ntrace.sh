#!/usr/bin/env bash
# N-Trace through the CLI: the issue's exact commands against the reference
# vector (byte-exact encode, the README's sizes, decode back to the PC
# list), the dump, the option table in --help, and error reports.
set -u
RV=${RVT_BIN:?}; D=${RVT_TEST_DATA:?}; T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL: $*" >&2; }
expect_ok()   { if "$@" >"$T/out" 2>"$T/err"; then ok; else bad "$* (exit $?): $(cat "$T/err")"; fi; }
expect_fail() { if "$@" >"$T/out" 2>"$T/err"; then bad "$* succeeded"; else ok; fi; }
size_is() { local s; s=$(stat -c %s "$1"); [ "$s" = "$2" ] && ok || bad "$1: $s bytes, expected $2"; }

V=$D/ntrace-t1; E=$V/test.elf; P=$V/test-PCONLY.txt

# Byte-exact with the reference encoder (README: HTM, call stack 8, repeat 2).
expect_ok "$RV" encode --format ntrace --ntrace-mode htm --callstack 8 --repeat 2 --elf "$E" --input "$P" -o "$T/nex.bin"
cmp -s "$T/nex.bin" "$V/test-NEX.bin" && ok || bad "encode differs from test-NEX.bin: $(cmp "$T/nex.bin" "$V/test-NEX.bin")"
# The same from merged multi-instruction records.
expect_ok "$RV" encode --format ntrace --ntrace-mode htm --callstack 8 --repeat 2 --elf "$E" --input "$P" --merge-blocks -o "$T/nexm.bin"
cmp -s "$T/nexm.bin" "$V/test-NEX.bin" && ok || bad "encode of merged records differs from test-NEX.bin"

# The four other option sets of the README: exact sizes.
expect_ok "$RV" encode --format ntrace --ntrace-mode btm --callstack 0 --repeat 0 --elf "$E" --input "$P" -o "$T/btm.bin"
size_is "$T/btm.bin" 12978
expect_ok "$RV" encode --format ntrace --ntrace-mode htm --callstack 0 --repeat 0 --elf "$E" --input "$P" -o "$T/h00.bin"
size_is "$T/h00.bin" 3393
expect_ok "$RV" encode --format ntrace --ntrace-mode htm --callstack 0 --repeat 2 --elf "$E" --input "$P" -o "$T/h02.bin"
size_is "$T/h02.bin" 2628
expect_ok "$RV" encode --format ntrace --ntrace-mode htm --callstack 8 --repeat 0 --elf "$E" --input "$P" -o "$T/h80.bin"
size_is "$T/h80.bin" 3374

# Decoding needs no encoder option: every file gives the PC list back.
expect_ok "$RV" decode --format ntrace --elf "$E" "$V/test-NEX.bin" --output pcs -o "$T/pcs.txt"
cmp -s "$T/pcs.txt" "$P" && ok || bad "decode of test-NEX.bin differs from test-PCONLY.txt"
for f in btm h00 h02 h80; do
    expect_ok "$RV" decode --format ntrace --elf "$E" "$T/$f.bin" --output pcs -o "$T/$f.txt"
    cmp -s "$T/$f.txt" "$P" && ok || bad "decode of $f differs from test-PCONLY.txt"
done

# Dump: one line per message with offset, name and fields.
expect_ok "$RV" dump --format ntrace "$V/test-NEX.bin"
[ "$(grep -c '^0x' "$T/out")" = 367 ] && ok || bad "dump: $(grep -c '^0x' "$T/out") message lines, expected 367"
grep -q '^0x00000000  ProgTraceSync *SYNC=1 (exit from reset) I-CNT=0 F-ADDR=0x10008291 -> 0x20010522' "$T/out" && ok || bad "dump first line: $(head -1 "$T/out")"
grep -q '^0x00000a25  ProgTraceCorrelation *EVCODE=0 (debug entry) CDF=1 I-CNT=286442 HIST=0x2d' "$T/out" && ok || bad "dump last message"
grep -q 'RCODE=2 (HIST repeated) RDATA=0x80000000 (HIST, 31 outcomes) HREPEAT=8' "$T/out" && ok || bad "dump HREPEAT"
expect_ok "$RV" dump --format ntrace --dump-bytes "$V/test-NEX.bin"
grep -q '^0x00000000  ProgTraceSync .*\[24 05 44 28 20 00 43\]' "$T/out" && ok || bad "dump bytes: $(head -1 "$T/out")"

# --help lists the family's options.
"$RV" encode --help --format ntrace >"$T/help" 2>&1
for o in --ntrace-mode --callstack --callstack-mode --repeat --sync-period --sync-msgs --src-bits --src-id --timestamps --ecall --sijump; do
    grep -q -- "$o" "$T/help" && ok || bad "--help lacks $o"
done

# Errors: bad option values, a damaged trace (offset named, exit 1).
expect_fail "$RV" encode --format ntrace --ntrace-mode xyz --elf "$E" --input "$P" -o "$T/x.bin"
grep -q "btm or htm" "$T/err" && ok || bad "bad mode message: $(cat "$T/err")"
expect_fail "$RV" encode --format ntrace --ntrace-mode btm --repeat 2 --elf "$E" --input "$P" -o "$T/x.bin"
cp "$V/test-NEX.bin" "$T/bad.bin"; printf '\x02' | dd of="$T/bad.bin" bs=1 seek=100 conv=notrunc 2>/dev/null
expect_fail "$RV" decode --format ntrace --elf "$E" "$T/bad.bin" --output count
grep -q "offset 0x" "$T/err" && ok || bad "damaged trace: no offset in $(cat "$T/err")"

echo "cli_ntrace: $pass passed, $fail failed"
[ "$fail" = 0 ]
