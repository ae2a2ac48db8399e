#!/usr/bin/env bash
# The manual pages the build made (MANDIR/rvtrace.1, librvtrace.3):
#  - they are what `rvtrace --man` prints now and what the README example
#    is, so they cannot drift from --help or from examples/;
#  - man renders them without a warning;
#  - rvtrace(1) has a section for every command and shows every option that
#    any `rvtrace CMD --help [--format F]` prints;
#  - --help lists no option twice (decode --help --format ntrace once listed
#    --ecall twice) and tells the width `--output pcs` really prints.
#   man.sh MANDIR
set -uo pipefail
mandir=${1:?usage: man.sh MANDIR}
rv=${RVT_BIN:?} src=${RVT_SRC:?}
command -v man >/dev/null || { echo "man.sh: man (man-db) not installed (scripts/deps.sh): skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
render() { LC_ALL=C MANWIDTH=120 man --nh --nj -l "$1"; }

"$rv" --man >"$tmp/rvtrace.1" || fail "rvtrace --man: exit status $?"
cmp -s "$tmp/rvtrace.1" "$mandir/rvtrace.1" || fail "$mandir/rvtrace.1 is not what rvtrace --man prints (stale build?)"
for p in "$mandir/rvtrace.1" "$mandir/librvtrace.3"; do
    LC_ALL=C man --warnings -l "$p" 2>"$tmp/warn" >/dev/null || fail "man -l $p: exit status $?"
    [ -s "$tmp/warn" ] && fail "man -l $p warns: $(head -5 "$tmp/warn")"
done
render "$mandir/rvtrace.1" >"$tmp/page.txt"
grep -q '^NAME' "$tmp/page.txt" && grep -q '^COMMANDS' "$tmp/page.txt" && grep -q '^FAMILY OPTIONS' "$tmp/page.txt" ||
    fail "rvtrace(1) lacks its sections"

cmds=$("$rv" --help | awk '/^commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }')
fams=$("$rv" --help | awk '/^trace families/ { on = 1; next } on && /^$/ { exit } on { print $1 }')
[ "$(wc -w <<<"$cmds")" -ge 9 ] && [ "$(wc -w <<<"$fams")" -eq 4 ] || fail "cannot read the commands and families from rvtrace --help"
for c in $cmds; do
    grep -q "^   rvtrace $c\$" "$tmp/page.txt" || fail "rvtrace(1) has no section for $c"
    "$rv" $c --help >"$tmp/help.$c" || fail "rvtrace $c --help: exit status $?"
    grep -q -- '--format F' "$tmp/help.$c" || continue # capture lists -o for each of its modes
    for f in $fams; do
        "$rv" $c --help --format $f >"$tmp/help.$c.$f" 2>/dev/null || continue
        # Each option once (option lines: up to 4 spaces, then the option).
        awk 'match($0, /^ +-/) && RLENGTH <= 5 { print $1 }' "$tmp/help.$c.$f" | sort | uniq -d >"$tmp/dup"
        [ -s "$tmp/dup" ] && fail "rvtrace $c --help --format $f lists more than once: $(tr '\n' ' ' <"$tmp/dup")"
    done
done
# Every option any help mentions is in the manual.
cat "$tmp"/help.* | grep -oE -- '(^|[ ,([])--?[a-z][a-z0-9_-]*' | sed -E 's/^[ ,([]//' | sort -u >"$tmp/options"
[ "$(wc -l <"$tmp/options")" -gt 150 ] || fail "too few options found in the help texts: $(wc -l <"$tmp/options")"
while read -r o; do
    grep -qe "$o\\b" "$tmp/page.txt" || fail "rvtrace(1) does not show $o"
done <"$tmp/options"

# --output pcs: the width the help states is the width decode prints.
grep -q 'pcs (one PC per instruction: 0x and 8 hex digits for RV32, 16 for RV64)' "$tmp/help.decode" ||
    fail "decode --help does not state the pcs width"
d=$src/tests/data/ntrace-t1
"$rv" decode --format ntrace --elf "$d/test.elf" "$d/test-NEX.bin" --output pcs >"$tmp/pcs32" || fail "RV32 decode"
grep -qvxE '0x[0-9A-F]{8}' "$tmp/pcs32" && fail "RV32 pcs: $(grep -m1 -vxE '0x[0-9A-F]{8}' "$tmp/pcs32")"
"$rv" gen --seed 3 --xlen 64 --insns 2000 --elf "$tmp/g.elf" -o "$tmp/g.ing" &&
    "$rv" encode --format ntrace --elf "$tmp/g.elf" --input "$tmp/g.ing" -o "$tmp/g.nex" &&
    "$rv" decode --format ntrace --elf "$tmp/g.elf" "$tmp/g.nex" --output pcs >"$tmp/pcs64" || fail "RV64 round trip"
grep -qvxE '0x[0-9A-F]{16}' "$tmp/pcs64" && fail "RV64 pcs: $(grep -m1 -vxE '0x[0-9A-F]{16}' "$tmp/pcs64")"
[ "$(wc -l <"$tmp/pcs32")" -eq 164959 ] && [ "$(wc -l <"$tmp/pcs64")" -eq 2000 ] || fail "pcs: wrong line counts"

# librvtrace(3) shows examples/count_functions.c as it is.
awk '/^\.EX$/ { on = 1; next } /^\.EE$/ { on = 0 } on' "$mandir/librvtrace.3" |
    sed -e 's/^\\&//' -e 's/\\e/\\/g' >"$tmp/example.c"
cmp -s "$tmp/example.c" "$src/examples/count_functions.c" ||
    { diff "$src/examples/count_functions.c" "$tmp/example.c" | head; fail "librvtrace(3)'s example is not examples/count_functions.c"; }
render "$mandir/librvtrace.3" | grep -q 'rvt_decode_buffer(family, cfg, img, -1, trace, len, &sink, &diag)' ||
    fail "librvtrace(3) does not render the example"

[ $fails -eq 0 ] || { echo "man.sh: $fails failure(s)"; exit 1; }
echo "man.sh: $(wc -l <"$tmp/options") options, $(wc -w <<<"$cmds") commands, $(wc -w <<<"$fams") families in rvtrace(1)"
