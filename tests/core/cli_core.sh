#!/usr/bin/env bash
# CLI tests of the core commands: check, convert, errors and exit codes.
set -u
RV=${RVT_BIN:?}; D=${RVT_TEST_DATA:?}; T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL: $*" >&2; }
expect_ok()   { if "$@" >"$T/out" 2>"$T/err"; then ok; else bad "$* (exit $?): $(cat "$T/err")"; fi; }
expect_fail() { if "$@" >"$T/out" 2>"$T/err"; then bad "$* succeeded"; else ok; fi; }
expect_err()  { if grep -q -- "$1" "$T/err"; then ok; else bad "stderr lacks '$1': $(cat "$T/err")"; fi; }

E=$D/ntrace-t1/test.elf; P=$D/ntrace-t1/test-PCONLY.txt
expect_ok "$RV" check --elf "$E" --input "$P"
grep -q "164959 instructions, all consistent" "$T/out" && ok || bad "check summary: $(cat "$T/out")"
grep -q "branches taken 6227, not taken 8657" "$T/out" && ok || bad "check branch counts: $(cat "$T/out")"

# pclist -> native -> pclist and pcinsn, both ways equal
expect_ok "$RV" convert --elf "$E" --input "$P" --to ingress -o "$T/t1.ing"
expect_ok "$RV" check --elf "$E" --input "$T/t1.ing"
expect_ok "$RV" convert --elf "$E" --input "$T/t1.ing" --to pclist -o "$T/t1.txt"
cmp -s "$P" "$T/t1.txt" && ok || bad "pclist -> ingress -> pclist differs"
expect_ok "$RV" convert --elf "$E" --input "$T/t1.ing" --to pcinsn -o "$T/t1.pi"
expect_ok "$RV" convert --xlen 32 --input "$T/t1.pi" --to ingress -o "$T/t1b.ing"
cmp -s "$T/t1.ing" "$T/t1b.ing" && ok || bad "pcinsn -> ingress differs from pclist -> ingress"
expect_ok "$RV" convert --elf "$E" --input "$P" --merge-blocks --to ingress -o "$T/t1m.ing"
[ "$(stat -c %s "$T/t1m.ing")" -lt "$(stat -c %s "$T/t1.ing")" ] && ok || bad "merged blocks not smaller"
expect_ok "$RV" convert --elf "$E" --input "$T/t1m.ing" --to pclist -o "$T/t1m.txt"
cmp -s "$P" "$T/t1m.txt" && ok || bad "merged blocks -> pclist differs"

# errors: the file, the line, the addresses; non-zero exit
head -100 "$P" > "$T/cut.txt"; echo 0x20010600 >> "$T/cut.txt"
expect_fail "$RV" check --elf "$E" --input "$T/cut.txt"
expect_err "cut.txt: line 101"
expect_err "0x20010600"
expect_fail "$RV" check --elf "$E" --input "$T/missing.txt"
expect_err "missing.txt: cannot open"
head -c 1000 "$T/t1.ing" > "$T/trunc.ing"
expect_fail "$RV" check --elf "$E" --input "$T/trunc.ing"
expect_err "offset 0x"
expect_fail "$RV" check --elf "$T/cut.txt" --input "$P"
expect_err "cut.txt"
expect_fail "$RV" encode --format nosuch --input "$P" -o "$T/x"
expect_err "unknown format"
expect_fail "$RV" check --elf "$E" --input "$P" --bogus
expect_err "unknown option '--bogus'"
expect_fail "$RV" frobnicate
expect_ok "$RV" --version
expect_ok "$RV" --help
for c in encode decode dump verify check convert info; do expect_ok "$RV" "$c" --help; done

# encode --jobs N (text parsed on N threads, other input read ahead on a
# thread): the same bytes and statistics (-v: records, instructions,
# packets) as one thread for every family, from a PC list, from PC INSN
# text and from the native format; a bad line fails the same way
stats() { sed 's/, [0-9.]* M instructions\/s//' "$T/err"; }
while IFS='|' read -r name opts; do
    for in in "$P" "$T/t1.pi" "$T/t1.ing"; do
        expect_ok "$RV" encode -v $opts --elf "$E" --input "$in" -o "$T/j1.bin"
        stats > "$T/j1.stats"
        for j in 2 4; do
            expect_ok "$RV" encode -v $opts --elf "$E" --input "$in" --jobs $j -o "$T/j2.bin"
            cmp -s "$T/j1.bin" "$T/j2.bin" && ok || bad "encode --jobs $j differs: $name, $in"
            stats | cmp -s "$T/j1.stats" - && ok || bad "encode --jobs $j statistics differ: $name, $in: $(stats)"
        done
    done
done < "$D/../../bench/families.txt"
expect_fail "$RV" encode --format ntrace --elf "$E" --input "$T/cut.txt" --jobs 2 -o "$T/j2.bin"
expect_err "cut.txt: line 101"
# Text on threads, ends and errors: the exit status, the message and the
# bytes written before it are one thread's.  Chunks are 128 KiB: the PC
# INSN text (2.6 MB) has about 20; line 60000 is in a later chunk than
# line 100.
# E-Trace takes most records in short from the threads (enc_put_short),
# N-Trace as whole records.
same_as_serial() { # name input [encode options...]
    local name=$1 in=$2; shift 2
    for fmt in ntrace etrace; do
        same_as_serial_fmt "$name, $fmt" "$in" --format $fmt "$@"
    done
}
same_as_serial_fmt() { # name input [encode options...]
    local name=$1 in=$2; shift 2
    "$RV" encode -v "$@" --elf "$E" --input "$in" -o "$T/s1.bin" > /dev/null 2> "$T/s1.err"; local k1=$?
    sed -i 's/, [0-9.]* M instructions\/s//' "$T/s1.err"
    for j in 2 3 4; do
        "$RV" encode -v "$@" --elf "$E" --input "$in" --jobs $j -o "$T/s2.bin" > /dev/null 2> "$T/s2.err"
        local k2=$?
        sed -i 's/, [0-9.]* M instructions\/s//' "$T/s2.err"
        [ $k1 = $k2 ] && cmp -s "$T/s1.err" "$T/s2.err" && cmp -s "$T/s1.bin" "$T/s2.bin" && ok ||
            bad "encode --jobs $j, $name: exit $k2 '$(cat "$T/s2.err")', one thread: exit $k1 '$(cat "$T/s1.err")'"
    done
}
sed '100s/ .*/ 0000001x/; 60000s/ .*/ 0000001x/' "$T/t1.pi" > "$T/bad2.pi"
same_as_serial "bad digits at lines 100 and 60000" "$T/bad2.pi"
grep -q "bad2.pi: line 100:" "$T/s2.err" && ok || bad "bad2.pi: $(cat "$T/s2.err")"
sed '60000s/ .*/ 0000001x/' "$T/t1.pi" > "$T/bad1.pi"
same_as_serial "a bad digit at line 60000" "$T/bad1.pi"
grep -q "bad1.pi: line 60000:" "$T/s2.err" && ok || bad "bad1.pi: $(cat "$T/s2.err")"
sed '70001d' "$T/t1.pi" > "$T/skip.pi"
same_as_serial "a line left out (the step not explained at line 70001)" "$T/skip.pi"
grep -q "skip.pi: line 70001:" "$T/s2.err" && ok || bad "skip.pi: $(cat "$T/s2.err")"
sed 's/$/\r/' "$T/t1.pi" > "$T/crlf.pi"
same_as_serial "CRLF" "$T/crlf.pi"
head -c 1000007 "$T/t1.pi" > "$T/trunc.pi"
same_as_serial "truncated in a line" "$T/trunc.pi"
head -c -1 "$T/t1.pi" > "$T/nonl.pi"
same_as_serial "no newline at the end" "$T/nonl.pi"
same_as_serial "a PC list, ecall as a trap (its warning)" "$P" --ecall trap
same_as_serial "a PC list cut at line 101" "$T/cut.txt"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
