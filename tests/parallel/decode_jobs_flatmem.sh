#!/usr/bin/env bash
# `decode --jobs` keeps memory flat (issue 12 item 5 with item 4): the work
# in flight is a fixed ring of batches, so a 10 MiB and a 100 MiB trace
# (the N-Trace reference trace repeated, each copy starting at its sync
# message, padded with idle bytes to 1 MiB) decode to a PC list and to a
# listing on 2 threads with the same peak resident memory, and the PC
# list is the serial one.  (The absolute peak is bench/RESULTS.md's: the
# sanitizer builds inflate it.)
set -u
RV=${RVT_BIN:?}; D=${RVT_TEST_DATA:?}; T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL: $*" >&2; }
if [ ! -x /usr/bin/time ]; then
    echo "decode_jobs_flatmem: /usr/bin/time (GNU time) is needed to measure peak memory" >&2
    exit 1
fi

E=$D/ntrace-t1/test.elf; N=$D/ntrace-t1/test-NEX.bin
size=$(stat -c %s "$N")
{ cat "$N"; head -c $((1048576 - size)) /dev/zero | tr '\0' '\377'; } > "$T/chunk"
for i in $(seq 10); do cat "$T/chunk"; done > "$T/t10"
for i in $(seq 10); do cat "$T/t10"; done > "$T/t100"

peak() { # trace kind -> peak KiB; the output's size and checksum in $1.$2.sum
    /usr/bin/time -f '%M' -o "$T/rss" "$RV" decode --format ntrace --elf "$E" "$1" --output "$2" --jobs 2 2> "$T/err" |
        cksum > "$1.$2.sum"
    tail -1 "$T/rss"
}
for kind in pcs insn; do
    m10=$(peak "$T/t10" $kind)
    m100=$(peak "$T/t100" $kind)
    echo "--output $kind --jobs 2: peak resident memory: 10 MiB trace $m10 KiB, 100 MiB trace $m100 KiB"
    [ $((m100 - m10)) -lt 8192 ] && ok || bad "--output $kind --jobs 2: peak memory grew from $m10 KiB to $m100 KiB with a 10 times larger trace"
done
"$RV" decode --format ntrace --elf "$E" "$T/t10" --output pcs 2>/dev/null | cksum > "$T/serial.sum"
cmp -s "$T/serial.sum" "$T/t10.pcs.sum" && ok || bad "the PC list of --jobs 2 differs from the serial one"

echo "decode_jobs_flatmem: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
