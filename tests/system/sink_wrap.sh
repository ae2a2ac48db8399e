#!/usr/bin/env bash
# Issue 9 §3 and §6 through the CLI, on the bundled real capture (bzip2 -9):
#  - encode --sink sram:N:wrap with default options, every family: stderr
#    names the synchronisation period chosen, and decode with default
#    options gives exactly the input's tail;
#  - periodic sync turned off explicitly: encode warns the buffer will not
#    be decodable;
#  - a stop-mode RAM: stderr, the .sink sidecar and decode give the same
#    counts and say "filled and stopped", never "wrapped"; the decode is
#    exactly the input's head.
set -u
RV=${RVT_BIN:?}; D=${RVT_TEST_DATA:?}; T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL: $*" >&2; }

xz -dc "$D/real/bzip2.xz" > "$T/bzip2"
xz -dc "$D/real/bzip2-9.ing.xz" > "$T/in.ing"
E=$T/bzip2
"$RV" convert --elf "$E" --input "$T/in.ing" --to pclist -o "$T/all.txt" || bad "convert"
all=$(wc -l < "$T/all.txt")

for size in 65536 8192; do
    for fmt in ntrace etrace cdl dbg; do
        name="$fmt sram:$size:wrap"
        "$RV" encode --format $fmt --elf "$E" --input "$T/in.ing" --sink sram:$size:wrap -o "$T/r.bin" 2>"$T/enc.err" \
            || { bad "$name: encode: $(cat "$T/enc.err")"; continue; }
        grep -q "keeps only the newest [0-9]* bytes of trace: periodic synchronisation every" "$T/enc.err" && ok \
            || bad "$name: encode does not say which synchronisation period it uses: $(cat "$T/enc.err")"
        wrapped=$(grep -c '^wrap = 1' "$T/r.bin.sink")
        "$RV" decode --format $fmt --elf "$E" "$T/r.bin" -o "$T/d.txt" 2>"$T/dec.err" \
            || { bad "$name: decode: $(tail -2 "$T/dec.err")"; continue; }
        grep -q "error" "$T/dec.err" && bad "$name: decode errors: $(cat "$T/dec.err")" || ok
        n=$(wc -l < "$T/d.txt")
        if [ "$wrapped" = 1 ]; then
            [ "$n" -gt 0 ] && [ "$n" -lt "$all" ] && ok || bad "$name: $n of $all instructions decoded from a wrapped RAM"
        else
            [ "$n" -eq "$all" ] && ok || bad "$name: not wrapped, but $n of $all instructions decoded"
        fi
        tail -n "$n" "$T/all.txt" | cmp -s - "$T/d.txt" && ok || bad "$name: the $n decoded instructions are not the input's last $n"
        echo "$name: wrapped=$wrapped, the last $n of $all instructions decoded exactly"
    done
done

# Behind an ATB bridge the RAM keeps formatter frames: the period is sized
# for the trace bytes they carry.
for fmt in ntrace etrace; do
    "$RV" encode --format $fmt --elf "$E" --input "$T/in.ing" --atb 5 --sink sram:8192:wrap -o "$T/a.bin" 2>"$T/enc.err" \
        || bad "$fmt --atb: encode"
    "$RV" decode --format $fmt --elf "$E" "$T/a.bin" --atb 5 -o "$T/d.txt" 2>"$T/dec.err"
    n=$(wc -l < "$T/d.txt")
    [ "$n" -gt 0 ] && tail -n "$n" "$T/all.txt" | cmp -s - "$T/d.txt" && ok || bad "$fmt --atb: $n instructions, not the tail"
done

# A RAM too small for the debug-trace default: a smaller buffer (decode with it too).
"$RV" encode --format dbg --elf "$E" --input "$T/in.ing" --sink sram:1024:wrap -o "$T/r.bin" 2>"$T/enc.err" || bad "dbg 1024: encode"
buf=$(sed -n 's/.*(--dbg-buffer \([0-9]*\)).*decode with the same --dbg-buffer.*/\1/p' "$T/enc.err")
[ -n "$buf" ] && ok || bad "dbg 1024: no --dbg-buffer chosen: $(cat "$T/enc.err")"
"$RV" decode --format dbg --dbg-buffer "${buf:-4096}" --elf "$E" "$T/r.bin" -o "$T/d.txt" 2>/dev/null
n=$(wc -l < "$T/d.txt")
[ "$n" -gt 0 ] && tail -n "$n" "$T/all.txt" | cmp -s - "$T/d.txt" && ok || bad "dbg 1024: $n instructions, not the tail"
# ...and with another --dbg-buffer: the sidecar places the sync grid (bytes
# written - bytes kept), whose first point holds no sync fields: an error.
"$RV" decode --format dbg --elf "$E" "$T/r.bin" -o "$T/d.txt" 2>"$T/dec.err"
[ $? -eq 1 ] && grep -q "no sync fields at the synchronisation point" "$T/dec.err" && ok \
    || bad "dbg 1024, default --dbg-buffer: not reported: $(cat "$T/dec.err")"

# Periodic synchronisation explicitly off: a warning, and indeed nothing decodes.
for spec in "ntrace --sync-msgs 0" "etrace --resync-max off" "cdl --cdl-sync-interval 0"; do
    set -- $spec; fmt=$1; shift
    "$RV" encode --format $fmt "$@" --elf "$E" --input "$T/in.ing" --sink sram:8192:wrap -o "$T/r.bin" 2>"$T/enc.err" \
        || bad "$spec: encode"
    grep -q "warning: periodic synchronisation is off ($*).*will not be decodable" "$T/enc.err" && ok \
        || bad "$spec: no warning: $(cat "$T/enc.err")"
done
# Options given are kept, and not reported as chosen.
"$RV" encode --format ntrace --sync-period 4000 --elf "$E" --input "$T/in.ing" --sink sram:8192:wrap -o "$T/r.bin" 2>"$T/enc.err"
grep -q "periodic synchronisation" "$T/enc.err" && bad "ntrace --sync-period 4000: $(cat "$T/enc.err")" || ok
# A stop-mode RAM needs no periodic synchronisation (its start is the trace's start).
"$RV" encode --format ntrace --elf "$E" --input "$T/in.ing" --sink sram:4096:stop -o "$T/s.bin" 2>"$T/enc.err" || bad "stop: encode"
grep -q "periodic synchronisation" "$T/enc.err" && bad "stop mode: $(cat "$T/enc.err")" || ok

# Stop mode: one set of counts and words.
dropped=$(sed -n 's/^dropped = //p' "$T/s.bin.sink")
written=$(sed -n 's/^written = //p' "$T/s.bin.sink")
[ "$written" = 4096 ] && [ -n "$dropped" ] && [ "$dropped" -gt 0 ] && ok || bad "stop: sidecar written=$written dropped=$dropped"
grep -q "filled and stopped (stop mode): it holds the first 4096 bytes of the trace, nothing was overwritten; $dropped bytes offered after it stopped were refused" \
    "$T/enc.err" && ok || bad "stop: encode report differs from the sidecar (dropped = $dropped): $(cat "$T/enc.err")"
grep -q "wrapped" "$T/enc.err" && bad "stop: encode calls a stopped buffer wrapped: $(cat "$T/enc.err")" || ok
# A stopped RAM holds the head of the trace; what was refused after it stopped
# is lost, so the decode reports the unexpected end and exits 1
# (docs/decoding.md: "decoded with damage: ... an unexpected end").
"$RV" decode --format ntrace --elf "$E" "$T/s.bin" -o "$T/d.txt" 2>"$T/dec.err"
[ $? -eq 1 ] && ok || bad "stop: decode should exit 1 (the trace was cut when the RAM stopped)"
grep -q "ends unexpectedly" "$T/dec.err" && ok || bad "stop: decode does not report the cut: $(cat "$T/dec.err")"
grep -q "filled and stopped (stop mode): it holds the first 4096 bytes of the trace, nothing was overwritten; $dropped bytes offered after it stopped were refused" \
    "$T/dec.err" && ok || bad "stop: decode report differs: $(cat "$T/dec.err")"
grep -Eq "wrapped|overwritten:" "$T/dec.err" && bad "stop: decode calls a stopped buffer wrapped: $(cat "$T/dec.err")" || ok
n=$(wc -l < "$T/d.txt")
[ "$n" -gt 0 ] && [ "$n" -lt "$all" ] && head -n "$n" "$T/all.txt" | cmp -s - "$T/d.txt" && ok \
    || bad "stop: $n decoded instructions are not the input's first $n"
# A wrapped RAM's report: the same counts in the sidecar, on encode and on decode.
"$RV" encode --format cdl --elf "$E" --input "$T/in.ing" --sink sram:8192:wrap -o "$T/w.bin" 2>"$T/enc.err"
written=$(sed -n 's/^written = //p' "$T/w.bin.sink")
lost=$((written - 8192))
for f in "$T/enc.err" "$T/dec.err"; do
    [ "$f" = "$T/dec.err" ] && "$RV" decode --format cdl --elf "$E" "$T/w.bin" -o /dev/null 2>"$T/dec.err"
    grep -q "wrapped (wrap mode): it holds the newest 8192 of $written bytes written; the $lost older bytes were overwritten" "$f" \
        && ok || bad "wrap: report differs from the sidecar (written = $written): $(cat "$f")"
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
