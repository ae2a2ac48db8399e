#!/usr/bin/env bash
# The example programs (examples/) on bundled files:
#  - encode_pclist reproduces the N-Trace reference tool's bytes and the
#    CLI's bytes in every family;
#  - count_functions counts, per function, what the CLI's instruction
#    listing shows, in every family;
#  - both report bad input (family, files, options, damaged trace) with a
#    message and exit status 1, and leave no half-written output;
#  - the README's library section is count_functions.c verbatim.
#   examples.sh COUNT_FUNCTIONS ENCODE_PCLIST
set -uo pipefail
count=${1:?usage: examples.sh COUNT_FUNCTIONS ENCODE_PCLIST} encode=${2:?}
rv=${RVT_BIN:?} src=${RVT_SRC:?}
d=$src/tests/data/ntrace-t1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

"$encode" ntrace "$d/test.elf" "$d/test-PCONLY.txt" "$tmp/t1.nex" ntrace-mode=htm callstack=8 repeat=2 >"$tmp/enc.txt" ||
    fail "encode_pclist ntrace"
cmp "$tmp/t1.nex" "$d/test-NEX.bin" || fail "encode_pclist: not the N-Trace reference tool's bytes"
grep -q "^$tmp/t1.nex: 164959 instructions -> $(stat -c %s "$d/test-NEX.bin") bytes" "$tmp/enc.txt" ||
    fail "encode_pclist summary: $(cat "$tmp/enc.txt")"

# The listing's functions: instruction lines under each <name> or <name+0x..> header.
listing_counts() { # trace family
    "$rv" decode --format "$2" --elf "$d/test.elf" "$1" --output insn |
        awk '/^<.*>:$/ { f = substr($1, 2, length($1) - 3); sub(/\+0x[0-9a-f]+$/, "", f); next }
             /^ *[0-9a-f]+:\t/ { n[f]++; total++ }
             END { for (k in n) printf "%12d  %s\n", n[k], k; printf "%12d  total\n", total }' | sort
}
for fam in ntrace etrace cdl dbg; do
    t=$tmp/t1.$fam; [ $fam = ntrace ] && t=$tmp/t1.nex
    [ $fam = ntrace ] || "$encode" $fam "$d/test.elf" "$d/test-PCONLY.txt" "$t" >/dev/null || fail "encode_pclist $fam"
    "$rv" encode --format $fam --elf "$d/test.elf" --input "$d/test-PCONLY.txt" -o "$tmp/cli.$fam" \
        $([ $fam = ntrace ] && echo --callstack 8 --repeat 2) || fail "rvtrace encode $fam"
    cmp -s "$t" "$tmp/cli.$fam" || fail "encode_pclist $fam: not the bytes rvtrace encode writes"
    "$count" $fam "$d/test.elf" "$t" >"$tmp/count.$fam" || fail "count_functions $fam: exit status $?"
    awk '$2 == "instructions" { printf "%12d  total\n", $1; next } { print }' "$tmp/count.$fam" | sort >"$tmp/got.$fam"
    listing_counts "$t" $fam >"$tmp/want.$fam"
    grep -q '  total$' "$tmp/want.$fam" || fail "no listing for $fam"
    diff "$tmp/want.$fam" "$tmp/got.$fam" >/dev/null ||
        { diff "$tmp/want.$fam" "$tmp/got.$fam"; fail "count_functions $fam: counts differ from the listing's"; }
done
grep -q '^ *164959  instructions in 4 functions$' "$tmp/count.ntrace" || fail "count_functions total: $(tail -1 "$tmp/count.ntrace")"

# Bad input: a message naming what is wrong, exit status 1, nothing crashes.
expect_error() { # pattern, command...
    local pat=$1
    shift
    "$@" >"$tmp/out" 2>"$tmp/err"
    local st=$?
    [ $st -eq 1 ] || fail "$*: exit status $st, expected 1"
    grep -q -- "$pat" "$tmp/err" || fail "$*: expected '$pat' on stderr, got: $(cat "$tmp/err")"
}
expect_error "nosuch: unknown trace family" "$count" nosuch "$d/test.elf" "$d/test-NEX.bin"
expect_error "$tmp/none.elf: cannot open" "$count" ntrace "$tmp/none.elf" "$d/test-NEX.bin"
expect_error "$tmp/none.nex: cannot open" "$count" ntrace "$d/test.elf" "$tmp/none.nex"
expect_error "bogus=1: ntrace: unknown option --bogus" "$count" ntrace "$d/test.elf" "$d/test-NEX.bin" bogus=1
expect_error "callstack=x: .*expected a number" "$count" ntrace "$d/test.elf" "$d/test-NEX.bin" callstack=x
expect_error "$d/test-PCONLY.txt: cannot\|not an ELF\|ELF" "$count" ntrace "$d/test-PCONLY.txt" "$d/test-NEX.bin"
# A damaged trace: the error names its byte offset; the counts are partial.
cp "$d/test-NEX.bin" "$tmp/bad.nex"
printf '\0\0\0' | dd of="$tmp/bad.nex" bs=1 seek=1000 conv=notrunc 2>/dev/null
expect_error "decode error at trace offset 0x[0-9a-f]*: " "$count" ntrace "$d/test.elf" "$tmp/bad.nex"
grep -q "1 decode errors: the counts miss the damaged parts" "$tmp/err" || fail "no summary of the damage"
expect_error "$tmp/no/dir/x.nex: cannot create" "$encode" ntrace "$d/test.elf" "$d/test-PCONLY.txt" "$tmp/no/dir/x.nex"
# A PC list that the program cannot have executed: the line is named, the output removed.
sed '100s/.*/0x20010000/' "$d/test-PCONLY.txt" >"$tmp/bad.txt"
expect_error "line 100" "$encode" ntrace "$d/test.elf" "$tmp/bad.txt" "$tmp/bad-out.nex"
[ -e "$tmp/bad-out.nex" ] && fail "encode_pclist left a half-written $tmp/bad-out.nex"
"$count" >/dev/null 2>&1; [ $? -eq 2 ] || fail "count_functions without arguments: expected usage, exit status 2"

# The README shows count_functions.c as it is.
awk '/^## Library/ { lib = 1 } lib && /^```c$/ { inb = 1; next } inb && /^```$/ { exit } inb { print }' \
    "$src/README.md" >"$tmp/readme.c"
cmp -s "$tmp/readme.c" "$src/examples/count_functions.c" ||
    { diff "$src/examples/count_functions.c" "$tmp/readme.c" | head -20; fail "README.md's library example is not examples/count_functions.c verbatim"; }

[ $fails -eq 0 ] || { echo "examples.sh: $fails failure(s)"; exit 1; }
echo "examples.sh: both examples checked in 4 families"
