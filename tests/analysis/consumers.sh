#!/usr/bin/env bash
# Each export read by its real consumer, on the analysis test program (DWARF
# lines, traps, longjmp) and on the two-hart system capture:
#   lcov / genhtml   accept the tracefile; genhtml's totals equal rvtrace's coverage
#   callgrind_annotate  reads the profile; its totals equal rvtrace's instruction count
#   addr2line        (binutils) gives the same file:line as rvtrace for executed addresses
#   python3 json     the Chrome/Perfetto JSON parses, its spans nest, the outermost cover everything
#   folded stacks    add up to the instruction count
#   chromium         renders report.html headless: the DOM has every section and the numbers,
#                    the screenshot has the header, the flame graph and the timeline below it
# scripts/deps.sh installs every tool; a missing one is a failure.
set -u
RV=${RVT_BIN:?}
D=${RVT_TEST_DATA:?}
SRC=${RVT_SRC:?}
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/rvt-consumers.XXXXXX")
trap '[ -n "${RVT_KEEP_TMP:-}" ] || rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
"$RV" --version | grep -q "source lines from DWARF: yes" ||
    { echo "SKIP: this rvtrace was built without elfutils libdw (-DRVT_WITH_LIBDW=OFF): no source lines, no lcov"; exit 77; }
for tool in genhtml lcov callgrind_annotate chromium python3 riscv64-unknown-elf-addr2line xz; do
    command -v $tool >/dev/null || { echo "FAIL: $tool not installed (scripts/deps.sh installs it)" >&2; exit 1; }
done

xz -dc "$D/analysis/prog64.xz" >"$T/prog64"
xz -dc "$D/analysis/prog64.ing.xz" >"$T/prog64.ing"
xz -dc "$D/sysmode/smp64.xz" >"$T/smp64"
xz -dc "$D/sysmode/smp64-2.ing.xz" >"$T/smp.ing"
R=$T/r
"$RV" report -q --elf "$T/prog64" --input "$T/prog64.ing" --ecall trap --source-dir "$SRC" -o "$R" >"$T/out" ||
    { bad "rvtrace report failed: $(cat "$T/out")"; exit 1; }
insns=$(sed -n 's/^# \([0-9]*\) instructions;.*/\1/p' "$R/calltree.txt" | head -1)
traps=$(sed -n 's/.*; \([0-9]*\) traps (.*/\1/p' "$R/calltree.txt" | head -1)
[ "${insns:-0}" -gt 10000 ] && ok || bad "calltree.txt: no instruction count"

# ---- lcov and genhtml -------------------------------------------------------------
cov=$R/coverage.txt
want_lines=$(sed -n 's/^lines *\([0-9]*\) of *\([0-9]*\) .*/\1 of \2/p' "$cov")
want_funcs=$(sed -n 's/^functions *\([0-9]*\) of *\([0-9]*\) .*/\1 of \2/p' "$cov")
want_br=$(sed -n 's/^branch directions *\([0-9]*\) of *\([0-9]*\) .*/\1 of \2/p' "$cov")
# Every file: genhtml's own counts equal rvtrace's (sources of the toolchain's libraries are not here).
if genhtml --branch-coverage --ignore-errors source "$R/coverage.lcov" -o "$T/html-all" >"$T/gh-all" 2>&1; then
    ok
    grep -q "lines\.*: .*($want_lines lines)" "$T/gh-all" && ok || bad "genhtml lines differ from rvtrace's ($want_lines): $(cat "$T/gh-all")"
    grep -q "functions\.*: .*($want_funcs functions)" "$T/gh-all" && ok || bad "genhtml functions differ from rvtrace's ($want_funcs): $(cat "$T/gh-all")"
    grep -q "branches\.*: .*($want_br branches)" "$T/gh-all" && ok || bad "genhtml branches differ from rvtrace's ($want_br): $(cat "$T/gh-all")"
else
    bad "genhtml rejected coverage.lcov: $(tail -5 "$T/gh-all")"
fi
# The program's own files strictly: lcov extracts them, genhtml renders each source.
lcov -q --rc lcov_branch_coverage=1 --extract "$R/coverage.lcov" "$SRC/*" -o "$T/own.info" >"$T/lcov.log" 2>&1 &&
    ok || bad "lcov --extract failed: $(cat "$T/lcov.log")"
if genhtml --branch-coverage "$T/own.info" -o "$T/html" >"$T/gh" 2>&1; then
    ok
    grep -q "lines\.*: " "$T/gh" && [ -f "$T/html/index.html" ] && ok || bad "genhtml wrote no report: $(cat "$T/gh")"
    page=$(find "$T/html" -name prog.c.gcov.html | head -1)
    [ -n "$page" ] && grep -q "never_called" "$page" && ok || bad "genhtml has no page for prog.c showing never_called"
    func=$(find "$T/html" -name prog.c.func.html | head -1)
    [ -n "$func" ] && grep -q "never_called" "$func" && ok || bad "genhtml's function list for prog.c lacks never_called"
else
    bad "genhtml rejected the program's own files: $(tail -5 "$T/gh")"
fi

# ---- callgrind_annotate ------------------------------------------------------------
if callgrind_annotate --threshold=100 --auto=no "$R/callgrind.out" >"$T/cga" 2>&1; then
    ok
    grep -q "WARNING\|malformed" "$T/cga" && bad "callgrind_annotate warns: $(grep -m2 'WARNING\|malformed' "$T/cga")" || ok
    tot=$(awk '/PROGRAM TOTALS/{gsub(",","",$1); print $1}' "$T/cga")
    [ "$tot" = "$insns" ] && ok || bad "callgrind_annotate totals $tot, rvtrace counted $insns"
    sum=$(awk '/file:function/{f=1;next} f && /^ *[0-9,]+ /{gsub(",","",$1); s+=$1} END{print s+0}' "$T/cga")
    [ "$sum" = "$insns" ] && ok || bad "callgrind_annotate's functions add up to $sum, rvtrace counted $insns"
    grep -q "prog.c:fib" "$T/cga" && ok || bad "callgrind_annotate does not show prog.c:fib"
else
    bad "callgrind_annotate failed: $(tail -5 "$T/cga")"
fi
callgrind_annotate --inclusive=yes --auto=yes --include="$SRC" "$R/callgrind.out" >"$T/cga-src" 2>&1 &&
    grep -q "return n < 2 ? n : fib(n - 1) + fib(n - 2);" "$T/cga-src" && ok ||
    bad "callgrind_annotate does not annotate prog.c's source"

# ---- addr2line: the same source line for executed addresses --------------------------
grep -E '^ +[0-9]+ +[0-9.]+%  0x[0-9a-f]+ .*  [^ ]+:[0-9]+$' "$R/profile.txt" | head -40 >"$T/lines"
n=0
while read -r _ _ addr rest; do
    want=${rest##* }
    got=$(riscv64-unknown-elf-addr2line -e "$T/prog64" "$addr" | sed 's/ (discriminator [0-9]*)//')
    [ "$(basename "${got%:*}"):${got##*:}" = "$(basename "${want%:*}"):${want##*:}" ] && ok ||
        bad "0x$addr: rvtrace says $want, addr2line $got"
    n=$((n + 1))
done <"$T/lines"
[ "$n" -ge 20 ] && ok || bad "only $n executed addresses with source lines in profile.txt"

# ---- JSON, folded stacks -------------------------------------------------------------
python3 "$HERE/check_exports.py" chrome "$R/trace.json" "0:$insns:$traps" && ok || bad "trace.json (see above)"
python3 "$HERE/check_exports.py" folded "$R/stacks.folded" "$insns" && ok || bad "stacks.folded (see above)"
"$RV" report -q --elf "$T/smp64" --input "$T/smp.ing" --ecall trap -o "$T/s" >/dev/null || bad "report of smp64 failed"
args=()
for h in 0 1; do
    hi=$(awk -v h="$h" '$0 ~ "^# call tree of hart "h"$"{f=1;next} f{print; exit}' "$T/s/calltree.txt")
    args+=("$h:$(echo "$hi" | sed -n 's/^# \([0-9]*\) instructions;.*/\1/p'):$(echo "$hi" | sed -n 's/.*; \([0-9]*\) traps (.*/\1/p')")
done
python3 "$HERE/check_exports.py" chrome "$T/s/trace.json" "${args[@]}" && ok || bad "two-hart trace.json (see above)"
python3 "$HERE/check_exports.py" folded "$T/s/stacks.folded" $(($(echo "${args[0]}" | cut -d: -f2) + $(echo "${args[1]}" | cut -d: -f2))) &&
    ok || bad "two-hart stacks.folded (see above)"
grep -q "^hart 1;" "$T/s/stacks.folded" && ok || bad "two-hart stacks.folded has no 'hart 1' frames"

# ---- chromium: the page's text and a screenshot ----------------------------------------
chrome_run() {
    rm -rf "$T/ud"
    mkdir "$T/ud"
    timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync --user-data-dir="$T/ud" "$@"
}
chrome_run --dump-dom "file://$R/report.html" >"$T/dom.html" 2>"$T/chrome.err" || bad "chromium --dump-dom failed: $(tail -3 "$T/chrome.err")"
for id in summary hot flame timeline tree source asm events coverage files; do
    grep -q "id=\"$id\"" "$T/dom.html" && ok || bad "the rendered page has no section '$id'"
done
fmt=$(printf "%'d" "$insns" 2>/dev/null | tr -d ' ')
[ "$fmt" = "$insns" ] && fmt=$(echo "$insns" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta')
grep -q ">$fmt<" "$T/dom.html" && ok || bad "the rendered page does not show $fmt instructions"
top=$(awk '/^#/{next} NF{print $NF; exit}' "$R/profile.txt")
grep -q ">$top<" "$T/dom.html" && ok || bad "the rendered page does not list the hottest function $top"
grep -q '<svg class="flame"' "$T/dom.html" && grep -q '<svg class="timeline"' "$T/dom.html" && ok ||
    bad "the rendered page has no flame graph or timeline SVG"
grep -q 'return n &lt; 2 ? n : fib(n - 1) + fib(n - 2);' "$T/dom.html" && ok || bad "the rendered page has no annotated source"
grep -q '<a href="coverage.lcov">' "$T/dom.html" && ok || bad "the rendered page does not link the exports"
chrome_run --window-size=1280,3200 --hide-scrollbars --screenshot="$T/shot.png" "file://$R/report.html" \
    >"$T/shot.log" 2>&1 || bad "chromium --screenshot failed: $(tail -3 "$T/shot.log")"
python3 "$HERE/check_exports.py" screenshot "$T/shot.png" && ok || bad "the screenshot (see above)"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
