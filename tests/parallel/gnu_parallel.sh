#!/usr/bin/env bash
# Issue 12 item 6: the README's GNU parallel recipe, run on this machine
# (--sshlogin with ':' is the local host, so the ssh path of the command
# line is the recipe's): the joined PC list equals the serial decode's byte
# for byte, and the exit status computed from the job log is the serial
# decode's, on a whole trace and on a damaged one.
set -u
RV=${RVT_BIN:?}; D=${RVT_TEST_DATA:?}; T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL: $*" >&2; }
command -v parallel >/dev/null || { echo "GNU parallel is not installed (scripts/deps.sh)" >&2; exit 1; }

xz -dc "$D/real/bzip2.xz" > "$T/prog.elf"
xz -dc "$D/real/bzip2-9.ing.xz" > "$T/run.ing"
cd "$T" || exit 1
export PATH="$(dirname "$RV"):$PATH" # the recipe calls `rvtrace`

for fam in "ntrace --sync-msgs 256" "etrace --resync-max 1"; do
    F="--format $fam"
    # shellcheck disable=SC2086
    rvtrace encode $F --elf prog.elf --input run.ing -o trace.bin || { bad "$fam: encode"; continue; }
    python3 - trace.bin bad.bin <<'PY'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
b[len(b) // 2] ^= 0x11
open(sys.argv[2], 'wb').write(b[: len(b) - 37])
PY
    for tr in trace.bin bad.bin; do
        name="$fam $tr"
        # shellcheck disable=SC2086
        rvtrace decode $F --elf prog.elf $tr -q > serial.pcs 2>/dev/null; src=$?
        # --- the recipe (README "One big trace over several hosts") ---
        # shellcheck disable=SC2086
        rvtrace segments $F $tr --min-bytes 8000 | cut -d' ' -f2 > ranges.txt
        rm -f segments.log
        # shellcheck disable=SC2086
        parallel --will-cite -k --joblog segments.log --sshlogin 2/: --workdir "$T" \
            rvtrace decode $F --elf prog.elf $tr --segment {} -q :::: ranges.txt > trace.pcs 2>/dev/null
        awk 'NR>1 {n++; s[$7]++} END {exit s[3]==n ? 3 : (s[0]==n ? 0 : 1)}' segments.log; jrc=$?
        # ---
        n=$(wc -l < ranges.txt)
        [ "$n" -ge 4 ] && ok || bad "$name: only $n segments"
        [ "$(($(wc -l < segments.log) - 1))" = "$n" ] && ok || bad "$name: the job log lists $(($(wc -l < segments.log) - 1)) of $n jobs"
        cmp -s serial.pcs trace.pcs && ok || bad "$name: joined output differs from the serial decode ($(wc -l < serial.pcs) vs $(wc -l < trace.pcs) lines)"
        [ -s trace.pcs ] && ok || bad "$name: empty output"
        [ "$jrc" = "$src" ] && ok || bad "$name: exit status $jrc from the job log, $src serial"
        [ "$src" = "$([ $tr = bad.bin ] && echo 1 || echo 0)" ] && ok || bad "$name: serial exit status $src"
    done
done
echo "gnu_parallel: $pass passed, $fail failed"
[ $fail = 0 ]
