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

# --timestamps on an input without times: every TSTAMP is 0, and encode
# says so (not left to be found out); an input with times gets no warning
expect_ok "$RV" encode --format ntrace --timestamps --elf "$E" --input "$P" -o "$T/ts.bin"
grep -q "warning: --timestamps: the records traced carry no times, so every TSTAMP is 0" "$T/err" && ok ||
    bad "no warning for --timestamps without times: $(cat "$T/err")"
expect_ok "$RV" gen --seed 7 --insns 5000 --time --elf "$T/gt.elf" -o "$T/gt.ing"
expect_ok "$RV" encode --format ntrace --timestamps --ecall trap --elf "$T/gt.elf" --input "$T/gt.ing" -o "$T/ts.bin"
grep -q warning "$T/err" && bad "a warning for an input with times: $(cat "$T/err")" || ok

# --icnt-bits above the spec's NTRACE_MAX_ICNT (22) is a named extension.
grep -q -- "--icnt-bits.*NTRACE_MAX_ICNT = 22.*extension" "$T/help" && ok || bad "--help does not name the wider I-CNT an extension"
"$RV" info --format ntrace --icnt-bits 32 >"$T/info" 2>&1
grep -q "I-CNT counter *32 bits (rvtrace extension" "$T/info" && ok || bad "info --icnt-bits 32: $(grep I-CNT "$T/info")"
"$RV" info --format ntrace >"$T/info" 2>&1
grep -q "I-CNT counter *22 bits (NTRACE_MAX_ICNT = 22)" "$T/info" && ok || bad "info: $(grep I-CNT "$T/info")"

# ecall/ebreak into a trap handler from a PC list (coremark's exit): refused
# as a fall-through, an uninferable call in --ecall uninferable, an exception
# in --ecall trap; both families round-trip it (tests/data/ecall/README.md).
C=$D/ecall
for x in 64 32; do
    expect_fail "$RV" encode --format ntrace --elf "$C/ecall$x.elf" --input "$C/ecall$x.pcs" -o "$T/e.bin"
    grep -q "0x80000014 -> 0x80000038 not explained by 'ecall'.*--ecall trap" "$T/err" && ok || bad "sequential ecall: $(cat "$T/err")"
    # The trapping instructions, from the program's own listing.
    traps=$(riscv64-unknown-elf-objdump -d "$C/ecall$x.elf" 2>/dev/null | awk '$3 == "00000073" || $3 == "9002" {sub(":", "", $1); print $1}')
    [ -n "$traps" ] || traps=$([ $x = 64 ] && echo "80000014 8000001c 80000028" || echo "80000014 8000001c 80000026")
    pat=(); for a in $traps; do pat+=(-e "$(printf '0x%0*X' $((x / 4)) $((16#$a)))"); done
    grep -v -x "${pat[@]}" "$C/ecall$x.pcs" > "$T/retired$x.pcs"
    [ "$(wc -l < "$T/retired$x.pcs")" = 74 ] && ok || bad "ecall$x.pcs: expected 5 trapping PCs"
    for fam in ntrace etrace; do
        expect_ok "$RV" encode --format $fam --ecall uninferable --elf "$C/ecall$x.elf" --input "$C/ecall$x.pcs" -o "$T/u.bin"
        [ ! -s "$T/err" ] && ok || bad "$fam uninferable: unexpected stderr $(cat "$T/err")"
        expect_ok "$RV" decode --format $fam --ecall uninferable --elf "$C/ecall$x.elf" "$T/u.bin" --output pcs -o "$T/u.pcs"
        cmp -s "$T/u.pcs" "$C/ecall$x.pcs" && ok || bad "$fam rv$x --ecall uninferable: decode differs from the list"
        expect_ok "$RV" encode --format $fam --ecall trap --elf "$C/ecall$x.elf" --input "$C/ecall$x.pcs" -o "$T/t.bin"
        grep -q "warning: pc 0x80000014: 'ecall' into 0x80000038 taken as an exception with cause 11" "$T/err" && ok || bad "$fam trap: no cause warning: $(cat "$T/err")"
        [ "$(grep -c warning "$T/err")" = 1 ] && ok || bad "$fam trap: $(grep -c warning "$T/err") warnings, expected one"
        expect_ok "$RV" decode --format $fam --ecall trap --elf "$C/ecall$x.elf" "$T/t.bin" --output pcs -o "$T/t.pcs"
        cmp -s "$T/t.pcs" "$T/retired$x.pcs" && ok || bad "$fam rv$x --ecall trap: decode is not the list without the trapping PCs"
        expect_ok "$RV" verify --format $fam --ecall trap --elf "$C/ecall$x.elf" --input "$C/ecall$x.pcs"
        if [ $x = 64 ]; then
            # The records equal the system capture's: the same bytes.
            expect_ok "$RV" encode --format $fam --elf "$C/ecall64.elf" --input "$C/ecall64.ing" -o "$T/cap.bin"
            cmp -s "$T/cap.bin" "$T/t.bin" && ok || bad "$fam: PC list with --ecall trap encodes differently from the QEMU capture"
        fi
    done
done

# A stream ending the reference tool's way (its flush sends IndirectBranch
# "to" the last PC, an uninferable ecall, instead of ProgTraceCorrelation)
# decodes without error or gap; a stream cut after a message is reported.
head -35 "$C/ecall64.pcs" > "$T/ref35.pcs"
for m in htm btm; do
    expect_ok "$RV" decode --format ntrace --ecall uninferable --elf "$C/ecall64.elf" "$C/ref-end-$m.nex" --output pcs -o "$T/r.pcs"
    cmp -s "$T/r.pcs" "$T/ref35.pcs" && ok || bad "reference $m stream: decode differs from its 35 PCs"
    [ ! -s "$T/err" ] && ok || bad "reference $m stream: $(cat "$T/err")"
done
head -c $((0x2be)) "$V/test-NEX.bin" > "$T/cut.bin"
"$RV" decode --format ntrace --elf "$E" "$T/cut.bin" --output insn >"$T/out" 2>"$T/err"
grep -q "offset 0x2be: trace ends without ProgTraceCorrelation" "$T/out" "$T/err" && ok || bad "cut trace: no end report: $(tail -2 "$T/out") $(cat "$T/err")"

# Wrong ELF: the decoder names the sync message and its address.
"$RV" decode --format ntrace --elf "$D/flow/flowtest32.elf" "$V/test-NEX.bin" --output count >"$T/out" 2>"$T/err"
grep -q "offset 0x0: ProgTraceSync SYNC=1 goes to 0x20010522, where the program has no code" "$T/out" "$T/err" && ok || bad "wrong ELF: $(cat "$T/err")"

# The counting implicit return (trTeInstImplicitReturnMode 1) sends no
# message for a return that does not go back to its caller: encode warns
# and names the first (verify's first difference is that return); a
# well-behaved program, or the stack of addresses, draws no warning.
expect_ok "$RV" gen --seed 3 --insns 50000 --longjmp --elf "$T/lj.elf" -o "$T/lj.ing"
expect_ok "$RV" encode --format ntrace --callstack 8 --callstack-mode count --elf "$T/lj.elf" --input "$T/lj.ing" -o "$T/lj.nex"
grep -q "^rvtrace encode: warning: [0-9]* returns\? did not go back to" "$T/err" && ok || bad "count mode on longjmp: no warning: $(cat "$T/err")"
at=$(sed -n 's/.*the return at 0x[0-9a-f]*, instruction \([0-9]*\), went to \(0x[0-9a-f]*\);.*/\1 \2/p' "$T/err")
expect_fail "$RV" verify --format ntrace --callstack 8 --callstack-mode count --elf "$T/lj.elf" --input "$T/lj.ing"
grep -q "^warning  *[0-9]* returns\? did not go back" "$T/out" && ok || bad "verify in count mode: no warning line"
[ -n "$at" ] && grep -q "^result  *FAIL: instructions differ: after ${at% *} matching instructions .*expected ${at#* } " "$T/out" && ok ||
    bad "verify in count mode: the first difference is not the warned return ($at): $(grep '^result' "$T/out")"
expect_ok "$RV" encode --format ntrace --callstack 8 --elf "$T/lj.elf" --input "$T/lj.ing" -o "$T/lj2.nex"
[ ! -s "$T/err" ] && ok || bad "address stack on longjmp: $(cat "$T/err")"
expect_ok "$RV" verify --format ntrace --callstack 8 --callstack-mode count --elf "$E" --input "$P"
grep -q "^warning" "$T/out" && bad "count mode on t1 warns: $(grep '^warning' "$T/out")" || ok
grep -q "^result  *OK" "$T/out" && ok || bad "count mode on t1: $(grep '^result' "$T/out")"

echo "cli_ntrace: $pass passed, $fail failed"
[ "$fail" = 0 ]
