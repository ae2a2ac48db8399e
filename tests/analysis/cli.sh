#!/usr/bin/env bash
# The CLI of the analysis: decode --output for every view, `rvtrace report`
# from a trace and from an ingress stream, source lines in the listing,
# progress on a terminal only, and the errors a user can meet.
set -u
RV=${RVT_BIN:?}
D=${RVT_TEST_DATA:?}
T=$(mktemp -d "${TMPDIR:-/tmp}/rvt-an-cli.XXXXXX")
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
# expect STATUS PATTERN CMD...: exit status and a stderr message
expect() {
    local want=$1 pat=$2 rc=0
    shift 2
    "$@" >"$T/o" 2>"$T/e" || rc=$?
    [ "$rc" = "$want" ] && grep -Eq -- "$pat" "$T/e" && ok || bad "$* -> $rc (want $want), stderr: $(head -3 "$T/e")"
}

xz -dc "$D/real/bzip2.xz" >"$T/bzip2"
xz -dc "$D/real/bzip2-9.ing.xz" >"$T/b.ing"
xz -dc "$D/analysis/prog64.xz" >"$T/prog64"
xz -dc "$D/analysis/prog64.ing.xz" >"$T/p.ing"
"$RV" encode --format etrace --elf "$T/bzip2" --input "$T/b.ing" -o "$T/b.te" || bad "encode bzip2"
"$RV" encode --format ntrace --ecall trap --elf "$T/prog64" --input "$T/p.ing" -o "$T/p.nt" || bad "encode prog64"

# report from the trace and from the ingress: the same views
"$RV" report --elf "$T/bzip2" --format etrace "$T/b.te" -o "$T/rt" >"$T/rt.out" 2>"$T/rt.err" && ok || bad "report (trace): $(cat "$T/rt.err")"
"$RV" report --elf "$T/bzip2" --input "$T/b.ing" -o "$T/ri" >/dev/null 2>&1 && ok || bad "report (ingress)"
grep -q "rt/report.html: 1465437 instructions, 1 hart" "$T/rt.out" && ok || bad "report summary: $(cat "$T/rt.out")"
[ ! -s "$T/rt.err" ] && ok || bad "report printed on stderr (progress when not a terminal?): $(od -c "$T/rt.err" | head -2)"
for f in report.html profile.txt calltree.txt coverage.txt stacks.folded callgrind.out trace.json; do
    [ -s "$T/rt/$f" ] && ok || bad "report wrote no $f"
done
[ ! -e "$T/rt/coverage.lcov" ] && ok || bad "coverage.lcov written without source lines"
grep -q "no DWARF line tables" "$T/rt.out" && ok || bad "report does not say why there is no lcov"
for f in calltree.txt profile.txt coverage.txt stacks.folded callgrind.out; do
    cmp -s "$T/rt/$f" "$T/ri/$f" && ok || bad "$f from the trace differs from the ingress's"
done

# decode --output VIEW writes what the report wrote
for k in calltree:calltree.txt profile:profile.txt coverage:coverage.txt folded:stacks.folded \
         callgrind:callgrind.out chrome:trace.json perfetto:trace.json; do
    "$RV" decode --format etrace --elf "$T/bzip2" "$T/b.te" --output "${k%%:*}" -o "$T/v" 2>"$T/e" && ok ||
        bad "decode --output ${k%%:*}: $(cat "$T/e")"
    if [ "${k##*:}" = callgrind.out ]; then # the command line differs
        cmp -s <(grep -v '^cmd:' "$T/v") <(grep -v '^cmd:' "$T/rt/callgrind.out") && ok || bad "decode --output callgrind differs from the report's"
    else
        cmp -s "$T/v" "$T/rt/${k##*:}" && ok || bad "decode --output ${k%%:*} differs from the report's ${k##*:}"
    fi
done
"$RV" decode --format etrace --elf "$T/bzip2" "$T/b.te" --output jsonl -o "$T/j" && ok || bad "decode --output jsonl"
python3 - "$T/j" <<'PY' && ok || bad "jsonl: see above"
import json, sys
n = blocks = insns = 0
for line in open(sys.argv[1]):
    o = json.loads(line)
    n += 1
    if o["type"] == "block":
        blocks += 1
        insns += o["insns"]
        assert o["start"].startswith("0x") and "end" in o and "func" in o, o
if insns != 1465437:
    print("FAIL: jsonl blocks hold", insns, "instructions"); sys.exit(1)
print(f"jsonl: {n} objects, {blocks} blocks, {insns} instructions")
PY

# source lines: the listing interleaves file:line; lcov from a decode (builds with libdw)
if "$RV" --version | grep -q "source lines from DWARF: yes"; then
dwarf=yes
"$RV" decode --format ntrace --ecall trap --elf "$T/prog64" "$T/p.nt" --output insn -o "$T/l" && ok || bad "decode --output insn"
grep -Eq "^(\./)?tests/data/analysis/prog.c:[0-9]+$" "$T/l" && ok || bad "the listing has no prog.c:LINE lines"
# every source row where it belongs (addr2line as the oracle), also for the
# bundled capture with its separate debug file (loops: runs written again)
python3 "$(dirname "$0")/listing_lines.py" "$T/l" "$T/prog64" && ok || bad "listing source lines (prog64)"
xz -dc "$D/real/bzip2.debug.xz" >"$T/bzip2.debug"
"$RV" encode --format ntrace --elf "$T/bzip2" --input "$T/b.ing" -o "$T/b.nt" || bad "encode bzip2 ntrace"
"$RV" decode --format ntrace --elf "$T/bzip2" --dwarf "$T/bzip2.debug" "$T/b.nt" --output insn -o "$T/lb" && ok ||
    bad "decode --dwarf bzip2.debug --output insn"
python3 "$(dirname "$0")/listing_lines.py" "$T/lb" "$T/bzip2.debug" && ok || bad "listing source lines (bzip2)"
"$RV" decode --format ntrace --ecall trap --elf "$T/prog64" "$T/p.nt" --output lcov -o "$T/lc" && ok || bad "decode --output lcov"
grep -q "^SF:.*prog.c$" "$T/lc" && grep -q "^FNDA:0,never_called$" "$T/lc" && ok || bad "lcov lacks prog.c or never_called"
"$RV" report -q --elf "$T/prog64" --format ntrace --ecall trap "$T/p.nt" -o "$T/rp" >/dev/null && ok || bad "report prog64"
[ -s "$T/rp/coverage.lcov" ] && ok || bad "report with DWARF wrote no coverage.lcov"
# a separate debug file (binutils-riscv64-unknown-elf, from scripts/deps.sh)
riscv64-unknown-elf-objcopy --only-keep-debug "$T/prog64" "$T/prog64.debug" &&
    riscv64-unknown-elf-objcopy --strip-debug "$T/prog64" "$T/prog64.stripped" || bad "riscv64-unknown-elf-objcopy"
"$RV" decode --format ntrace --ecall trap --elf "$T/prog64.stripped" --dwarf "$T/prog64.debug" "$T/p.nt" \
    --output lcov -o "$T/lc2" && cmp -s "$T/lc" "$T/lc2" && ok || bad "--dwarf with a separate debug file gives other lcov"

else
    dwarf=no
    expect 2 "built without elfutils libdw" "$RV" decode --format ntrace --ecall trap --elf "$T/prog64" "$T/p.nt" --output lcov
fi

# progress: on a terminal only, -q turns it off
RVT_PROGRESS_INTERVAL=0 script -qec "$RV decode --format etrace --elf $T/bzip2 $T/b.te --output count -o /dev/null" \
    /dev/null >"$T/tty" 2>&1
grep -q "decode: [0-9.]* M instructions, [0-9]*% of" "$T/tty" && ok || bad "no progress on a terminal: $(head -c 300 "$T/tty")"
RVT_PROGRESS_INTERVAL=0 script -qec "$RV decode -q --format etrace --elf $T/bzip2 $T/b.te --output count -o /dev/null" \
    /dev/null >"$T/tty" 2>&1
! grep -q "M instructions" "$T/tty" && ok || bad "progress despite -q"
RVT_PROGRESS_INTERVAL=0 script -qec "$RV report --elf $T/bzip2 --input $T/b.ing -o $T/rr" /dev/null >"$T/tty" 2>&1
grep -q "report: ingress: [0-9.]* M instructions" "$T/tty" && ok || bad "no progress in report --input on a terminal"

# two harts: a funnelled E-Trace decoded per source id equals the ingress's per-hart views
xz -dc "$D/sysmode/smp64.xz" >"$T/smp64"
xz -dc "$D/sysmode/smp64-2.ing.xz" >"$T/smp.ing"
"$RV" encode --format etrace --ecall trap --elf "$T/smp64" --input "$T/smp.ing" --funnel --src-bits 1 -o "$T/f.te" ||
    bad "funnel encode"
"$RV" report -q --format etrace --src-bits 1 --ecall trap --elf "$T/smp64" "$T/f.te" -o "$T/sf" >"$T/sf.out" &&
    grep -q "2 harts" "$T/sf.out" && ok || bad "report of a funnelled trace: $(cat "$T/sf.out")"
"$RV" report -q --ecall trap --elf "$T/smp64" --input "$T/smp.ing" -o "$T/si" >/dev/null || bad "report of smp64"
for f in calltree.txt profile.txt coverage.txt stacks.folded callgrind.out; do
    cmp -s "$T/si/$f" "$T/sf/$f" && ok || bad "two harts: $f from the funnel differs: $(diff "$T/si/$f" "$T/sf/$f" | head -3)"
done
"$RV" decode --format etrace --src-bits 1 --hart 1 --ecall trap --elf "$T/smp64" "$T/f.te" --output calltree -o "$T/h1" &&
    ok || bad "decode --hart 1 --output calltree"
[ "$(head -1 "$T/h1")" = "# call tree of hart 1" ] && ok || bad "decode --hart 1 labels its tree '$(head -1 "$T/h1")'"
diff <(sed -n '/^# call tree of hart 1$/,$p' "$T/si/calltree.txt") "$T/h1" >/dev/null && ok ||
    bad "decode --hart 1 --output calltree differs from the ingress's hart 1"

# errors
if [ "$dwarf" = yes ]; then
    expect 2 "bzip2: no DWARF debug information" "$RV" decode --format etrace --elf "$T/bzip2" "$T/b.te" --output lcov -o "$T/x"
    expect 2 "nonexistent.debug: cannot open" "$RV" decode --format etrace --elf "$T/bzip2" --dwarf "$T/nonexistent.debug" "$T/b.te" --output profile -o "$T/x"
    expect 2 "bzip2: no DWARF debug information" "$RV" report -q --elf "$T/bzip2" --dwarf "$T/bzip2" --input "$T/b.ing" -o "$T/x"
    # a string section without its final NUL (libdw would read past it)
    expect 2 "DWARF section \.debug_str \(file offset 0x35c\): its strings do not end with a NUL byte" \
        "$RV" decode --format etrace --elf "$T/bzip2" --dwarf "$D/analysis/unterminated-line-str.elf" "$T/b.te" --output profile -o "$T/x"
else
    expect 2 "built without elfutils libdw" "$RV" report -q --elf "$T/bzip2" --dwarf "$T/bzip2" --input "$T/b.ing" -o "$T/x"
fi
expect 2 "unknown --output 'flame' \(pcs, insn, blocks, count, calltree, profile" "$RV" decode --format etrace --elf "$T/bzip2" "$T/b.te" --output flame
# A full disk: the encoder's message says why the file refused bytes.
if [ -w /dev/full ]; then
    expect 1 "output error after .* bytes: I/O error \(/dev/full: No space left on device\)" \
        "$RV" encode --format ntrace --elf "$T/bzip2" --input "$T/b.ing" -o /dev/full
    expect 1 "output sink failed: I/O error \(/dev/full: No space left on device\)" \
        "$RV" encode --format etrace --elf "$T/bzip2" --input "$T/b.ing" --jobs 2 -o /dev/full
fi
expect 2 "--elf PROG is required" "$RV" report --input "$T/b.ing"
expect 2 "give --format F TRACE, or --input IN" "$RV" report --elf "$T/bzip2"
"$RV" encode --format cdl --elf "$T/bzip2" --input "$T/b.ing" -o "$T/b.cdl" || bad "encode cdl"
expect 2 "without the program's code: the analysis needs the ELF" "$RV" decode --format cdl --xlen 64 "$T/b.cdl" --output profile
! grep -q "write failed" "$T/e" && ok || bad "decode reports a write failure that did not happen"
head -c 3000 "$T/b.te" >"$T/cut.te"
rc=0
"$RV" report -q --elf "$T/bzip2" --format etrace "$T/cut.te" -o "$T/rc" >/dev/null 2>"$T/e" || rc=$?
[ "$rc" = 1 ] && grep -q "gap" "$T/e" && ok || bad "a truncated trace's report exits $rc: $(cat "$T/e")"
grep -q "gap" "$T/rc/report.html" && ok || bad "a truncated trace's report does not show the gap"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
