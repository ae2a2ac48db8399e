#!/usr/bin/env bash
# Decode memory does not grow with the trace: a 10 MiB and a 100 MiB trace
# (the N-Trace reference trace repeated, each copy starting at its sync
# message, padded with idle bytes to 1 MiB) decode with the same peak
# resident memory, give the same instructions per copy, and a trace read
# from a pipe still decodes; with `decode --jobs 2` (a fixed ring of
# batches in flight) the PC list and the listing keep the same peak too.
# Without the mapped, released trace file the larger decode holds the
# whole file (twice).
set -u
RV=${RVT_BIN:?}; D=${RVT_TEST_DATA:?}; T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL: $*" >&2; }
if [ ! -x /usr/bin/time ]; then
    echo "flatmem: /usr/bin/time (GNU time) is needed to measure peak memory" >&2
    exit 1
fi

E=$D/ntrace-t1/test.elf; N=$D/ntrace-t1/test-NEX.bin
size=$(stat -c %s "$N")
{ cat "$N"; head -c $((1048576 - size)) /dev/zero | tr '\0' '\377'; } > "$T/chunk"
for i in $(seq 10); do cat "$T/chunk"; done > "$T/t10"
for i in $(seq 10); do cat "$T/t10"; done > "$T/t100"

peak() { # trace -> "peak-KiB instructions"; the summary in $1.out
    /usr/bin/time -f '%M' -o "$T/rss" "$RV" decode --format ntrace --elf "$E" "$1" --output count > "$1.out" 2> "$T/err" ||
        bad "decode $1: $(cat "$T/err")"
    echo "$(tail -1 "$T/rss") $(sed -n 's/^instructions //p' "$1.out")"
}
read -r m10 n10 <<<"$(peak "$T/t10")"
read -r m100 n100 <<<"$(peak "$T/t100")"
[ "$n10" = $((10 * 164959)) ] && ok || bad "10 MiB trace: $n10 instructions, expected $((10 * 164959))"
[ "$n100" = $((100 * 164959)) ] && ok || bad "100 MiB trace: $n100 instructions, expected $((100 * 164959))"
echo "peak resident memory: 10 MiB trace $m10 KiB, 100 MiB trace $m100 KiB"
[ $((m100 - m10)) -lt 8192 ] && ok || bad "peak memory grew from $m10 KiB to $m100 KiB with a 10 times larger trace"

# a pipe cannot be mapped: read whole, same result
cat "$T/t10" | "$RV" decode --format ntrace --elf "$E" - --output count > "$T/pipe.out" 2>"$T/err" && ok || bad "decode from a pipe: $(cat "$T/err")"
cmp -s "$T/t10.out" "$T/pipe.out" && ok || bad "the pipe's decode differs: $(cat "$T/pipe.out")"
# the ELF is mapped too (rvt_map_file); from a pipe it is read whole
"$RV" decode --format ntrace --elf <(cat "$E") "$T/t10" --output count > "$T/pelf.out" 2>"$T/err" && ok ||
    bad "decode with the ELF from a pipe: $(cat "$T/err")"
cmp -s "$T/t10.out" "$T/pelf.out" && ok || bad "the decode with the ELF from a pipe differs: $(cat "$T/pelf.out")"

# decode --jobs 2 (docs/parallel.md): the batches in flight are bounded,
# so the formatting threads keep memory flat too, and the PC list is the
# serial one (the output threads started on both traces, whatever is left:
# RVT_JOBS_MIN_LEFT=0)
peak_jobs() { # trace kind -> peak KiB; the output's checksum in $1.$2.sum
    RVT_JOBS_MIN_LEFT=0 /usr/bin/time -f '%M' -o "$T/rss" "$RV" decode --format ntrace --elf "$E" "$1" --output "$2" --jobs 2 2> "$T/err" |
        cksum > "$1.$2.sum"
    tail -1 "$T/rss"
}
for kind in pcs insn; do
    m10=$(peak_jobs "$T/t10" $kind)
    m100=$(peak_jobs "$T/t100" $kind)
    echo "--output $kind --jobs 2: peak resident memory: 10 MiB trace $m10 KiB, 100 MiB trace $m100 KiB"
    [ $((m100 - m10)) -lt 8192 ] && ok || bad "--output $kind --jobs 2: peak memory grew from $m10 KiB to $m100 KiB with a 10 times larger trace"
done
"$RV" decode --format ntrace --elf "$E" "$T/t10" --output pcs 2>/dev/null | cksum > "$T/serial.sum"
cmp -s "$T/serial.sum" "$T/t10.pcs.sum" && ok || bad "the PC list of --jobs 2 differs from the serial one"

# A large text written to a file (-o, or stdout sent to a file): the file
# system's space is reserved ahead of the writes (src/analysis/outfile.h)
# and what is not used is given back: the file holds exactly the text, its
# blocks no more than it (a leftover reservation would be 64 MiB), and a
# file that stderr is sent to as well keeps both.
space_ok() { # file -> 0 if its allocated bytes are within 1 MiB of its size
    local sz al
    sz=$(stat -c %s "$1"); al=$(( $(stat -c %b "$1") * $(stat -c %B "$1") ))
    [ "$al" -le $((sz + 1048576)) ] || { echo "$1: $al bytes allocated for $sz" >&2; return 1; }
}
"$RV" decode --format ntrace --elf "$E" "$T/t10" --output pcs -o "$T/t10.file.pcs" 2>/dev/null
cksum < "$T/t10.file.pcs" | cmp -s - "$T/serial.sum" && ok || bad "the PC list written with -o differs from the one on stdout"
space_ok "$T/t10.file.pcs" && ok || bad "-o: the space reserved beyond the PC list was not given back"
"$RV" decode --format ntrace --elf "$E" "$T/t10" --output pcs > "$T/t10.both" 2>&1
"$RV" decode --format ntrace --elf "$E" "$T/t10" --output pcs 2> "$T/t10.err" > "$T/t10.out1"
[ "$(stat -c %s "$T/t10.both")" = $(( $(stat -c %s "$T/t10.out1") + $(stat -c %s "$T/t10.err") )) ] && ok ||
    bad "stdout and stderr sent to one file: $(stat -c %s "$T/t10.both") bytes, expected the PC list and the messages"
grep -v '^0x' "$T/t10.both" | cmp -s - "$T/t10.err" && ok || bad "stdout and stderr sent to one file: the messages differ"
space_ok "$T/t10.both" && ok || bad "stdout to a file: the space reserved beyond the PC list was not given back"

# -o over an existing file (rvt_output_file_open): written over in place
# and cut at the end of the text, so the file is the new text alone —
# whether the old one was longer (a longer leftover tail would remain
# without the cut) or shorter — and stays the same file (a hard link to it
# sees the new text).  An output that is an input is refused before
# anything is written: -o the trace itself (a mapped trace emptied under
# the decode was a bus error), -o the ELF, dump's and segments' -o their
# trace, encode's -o its --input.
head -c $(( $(stat -c %s "$T/t10.file.pcs") + 3000000 )) /dev/zero | tr '\0' x > "$T/old.pcs"
ln "$T/old.pcs" "$T/old.link"
"$RV" decode --format ntrace --elf "$E" "$T/t10" --output pcs -o "$T/old.pcs" 2>/dev/null
cksum < "$T/old.pcs" | cmp -s - "$T/serial.sum" && ok || bad "-o over a longer file: $(stat -c %s "$T/old.pcs") bytes, not the PC list alone"
cmp -s "$T/old.pcs" "$T/old.link" && ok || bad "-o over an existing file: a hard link to it does not see the new text"
printf 'old\n' > "$T/short.pcs"
"$RV" decode --format ntrace --elf "$E" "$T/t10" --output pcs -o "$T/short.pcs" 2>/dev/null
cksum < "$T/short.pcs" | cmp -s - "$T/serial.sum" && ok || bad "-o over a shorter file: not the PC list"
space_ok "$T/old.pcs" && ok || bad "-o over a longer file: the blocks beyond the text were not given back"
cp "$E" "$T/elf"; cp "$T/chunk" "$T/trace"
sum_before=$(cat "$T/trace" "$T/elf" | cksum)
for target in trace elf; do
    "$RV" decode --format ntrace --elf "$T/elf" "$T/trace" --output pcs -o "$T/$target" > /dev/null 2> "$T/err"
    st=$?
    [ $st = 2 ] && grep -q "would overwrite .*$target, which is read as input" "$T/err" && ok ||
        bad "decode -o its own $target: exit $st, $(cat "$T/err")"
done
for cmd in dump segments; do
    "$RV" $cmd --format ntrace "$T/trace" -o "$T/trace" > /dev/null 2> "$T/err"
    st=$?
    [ $st = 2 ] && grep -q "which is read as input" "$T/err" && ok || bad "$cmd -o its own trace: exit $st, $(cat "$T/err")"
done
[ "$(cat "$T/trace" "$T/elf" | cksum)" = "$sum_before" ] && ok || bad "decode, dump or segments -o an input changed the input"

# encode --jobs 2 from text (the text parsed on both threads, a fixed
# number of chunks in flight) and on one thread (the mapped text read in
# windows): a 10 MiB and a 100 MiB PC INSN text (a straight run of addi,
# 26 bytes a line) encode with the same peak
gen_text() { # lines -> PC INSN text on stdout
    awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) printf "%016x 00000013\n", 4096 + 4 * i }'
}
gen_text 403300 > "$T/x10.txt"
gen_text 4033000 > "$T/x100.txt"
peak_enc() { # text jobs -> peak KiB (the text is mapped, read in windows, on either path)
    /usr/bin/time -f '%M' -o "$T/rss" "$RV" encode --format ntrace --xlen 64 --input "$1" --input-format pcinsn \
        --jobs "$2" -o "$1.$2.nt" 2> "$T/err" || bad "encode --jobs $2 $1: $(cat "$T/err")"
    tail -1 "$T/rss"
}
for j in 2 1; do
    e10=$(peak_enc "$T/x10.txt" $j)
    e100=$(peak_enc "$T/x100.txt" $j)
    echo "encode --jobs $j from text: peak resident memory: 10 MiB text $e10 KiB, 100 MiB text $e100 KiB"
    [ $((e100 - e10)) -lt 8192 ] && ok || bad "encode --jobs $j: peak memory grew from $e10 KiB to $e100 KiB with a 10 times larger text"
done
cmp -s "$T/x100.txt.2.nt" "$T/x100.txt.1.nt" && ok || bad "encode --jobs 2 of the 100 MiB text differs from one thread's"

cp "$T/x10.txt" "$T/in.txt"
"$RV" encode --format ntrace --xlen 64 --input "$T/in.txt" --input-format pcinsn -o "$T/in.txt" 2> "$T/err"
st=$?
[ $st != 0 ] && grep -q "which is read as input" "$T/err" && cmp -s "$T/x10.txt" "$T/in.txt" && ok ||
    bad "encode -o its own --input: exit $st, $(cat "$T/err")"

echo "flatmem: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
