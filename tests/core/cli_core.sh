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

# encode --jobs 2 (the input read ahead on a thread): the same bytes as one
# thread for every family, from a PC list and from PC INSN text; a bad line
# fails the same way
while IFS='|' read -r name opts; do
    for in in "$P" "$T/t1.pi"; do
        expect_ok "$RV" encode $opts --elf "$E" --input "$in" -o "$T/j1.bin"
        expect_ok "$RV" encode $opts --elf "$E" --input "$in" --jobs 2 -o "$T/j2.bin"
        cmp -s "$T/j1.bin" "$T/j2.bin" && ok || bad "encode --jobs 2 differs: $name, $in"
    done
done < "$D/../../bench/families.txt"
expect_fail "$RV" encode --format ntrace --elf "$E" --input "$T/cut.txt" --jobs 2 -o "$T/j2.bin"
expect_err "cut.txt: line 101"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
