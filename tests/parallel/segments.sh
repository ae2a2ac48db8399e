#!/usr/bin/env bash
# Issue 12 item 6: `rvtrace segments` and `decode --segment`.  For every
# family with segments, on the bundled real capture (bzip2 -9) and on a
# generated program, under several option sets: decoding every segment and
# joining the PC lists in order gives the serial decode's, byte for byte
# (also with --min-bytes, and for a range spanning segments); on a damaged
# trace (bytes flipped inside a segment, the last segment cut short) the
# joined PCs, the error offsets and the exit status are the serial decode's.
set -u
RV=${RVT_BIN:?}; D=${RVT_TEST_DATA:?}; T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL: $*" >&2; }

xz -dc "$D/real/bzip2.xz" > "$T/bzip2"
xz -dc "$D/real/bzip2-9.ing.xz" > "$T/bzip2.ing"
"$RV" gen --seed 7 --insns 120000 --elf "$T/gen" -o "$T/gen.ing" || bad "gen"

# join NAME ELF TRACE MIN OPTS...: decode each segment, join; compare with the
# serial decode (PCs, exit status, error offsets); the joined exit status
# is the worst segment's.
join_check() {
    local name=$1 elf=$2 tr=$3 min=$4; shift 4
    "$RV" decode --elf "$elf" "$tr" "$@" -o "$T/serial.pcs" 2>"$T/serial.err"; local src=$?
    "$RV" segments "$tr" "$@" --min-bytes "$min" > "$T/segs.txt" || { bad "$name: segments"; return; }
    local n; n=$(wc -l < "$T/segs.txt")
    : > "$T/joined.pcs"; : > "$T/joined.err"; : > "$T/rcs"; local jrc=0 k rc
    for ((k = 0; k < n; k++)); do
        "$RV" decode --elf "$elf" "$tr" "$@" --segment $k --min-bytes "$min" >> "$T/joined.pcs" 2>>"$T/joined.err"; rc=$?
        echo $rc >> "$T/rcs"
    done
    cmp -s "$T/serial.pcs" "$T/joined.pcs" && ok || bad "$name: $n segments joined differ from the serial decode ($(wc -l < "$T/serial.pcs") vs $(wc -l < "$T/joined.pcs") PCs)"
    # The whole's status from the segments' (docs/parallel.md): 3 when no
    # segment decoded anything, else 1 when any is damaged (a damaged
    # segment that decoded nothing is damage in the whole), else 0.
    local all3=1 any=0
    for rc in $(cat "$T/rcs"); do [ $rc != 3 ] && all3=0; [ $rc != 0 ] && any=1; done
    jrc=$(( all3 ? 3 : any ))
    [ $src = $jrc ] && ok || bad "$name: exit status $jrc joined, $src serial"
    # Every error offset the serial decode reports, the segments report.
    grep -o 'offset 0x[0-9a-f]*' "$T/serial.err" | sort -u > "$T/serial.off"
    grep -o 'offset 0x[0-9a-f]*' "$T/joined.err" | sort -u > "$T/joined.off"
    comm -23 "$T/serial.off" "$T/joined.off" | grep -q . && bad "$name: offsets reported serially but not by the segments: $(comm -23 "$T/serial.off" "$T/joined.off" | tr '\n' ' ')" || ok
    NSEG=$n
}

# family | encode options (the decoder gets the same ones)
cases=(
  "ntrace|--sync-msgs 64"
  "ntrace|--sync-period 4096 --callstack 16 --repeat 3"
  "ntrace|--sync-msgs 100 --timestamps --context --ntrace-mode btm"
  "ntrace|--sync-msgs 50 --sijump --callstack 8 --callstack-mode count"
  "etrace|--resync-max 0"
  "etrace|--framing refraw --resync-max 1"
  "etrace|--implicit-return 2.0 --resync-max 2 --branch-prediction --jump-target-cache"
  "cdl|--cdl-sync-interval 256 --cdl-data wide"
  "cdl|--cdl-pc all --cdl-sync-interval 512 --cdl-data wide"
  "dbg|--dbg-buffer 1024"
  "dbg|--dbg-emit pc,branch,priv,timestamp --dbg-buffer 2048"
  "dbg|--dbg-emit pc,priv --dbg-buffer 4096"
)
FIRST=1
for c in "${cases[@]}"; do
    fmt=${c%%|*}; opts=${c#*|}
    for prog in bzip2 gen; do
        name="$fmt $opts ($prog)"
        # shellcheck disable=SC2086
        "$RV" encode --format $fmt --elf "$T/$prog" --input "$T/$prog.ing" $opts -o "$T/t.bin" 2>"$T/enc.err" \
            || { bad "$name: encode: $(cat "$T/enc.err")"; continue; }
        # shellcheck disable=SC2086
        # Every sync point a segment in the first case, then about 30
        # segments per trace (each is a process).
        [ "$FIRST" = 1 ] && MIN=0 || MIN=$(( $(stat -c %s "$T/t.bin") / 30 ))
        FIRST=0
        # shellcheck disable=SC2086
        join_check "$name" "$T/$prog" "$T/t.bin" $MIN --format $fmt $opts
        [ "$NSEG" -gt 10 ] && ok || bad "$name: only $NSEG segments"
        # shellcheck disable=SC2086
        join_check "$name min-bytes $((MIN * 2))" "$T/$prog" "$T/t.bin" $((MIN * 2)) --format $fmt $opts
        # A range over several segments is their join.
        # shellcheck disable=SC2086
        "$RV" segments --format $fmt $opts "$T/t.bin" > "$T/segs.txt"
        a=$(sed -n 3p "$T/segs.txt" | cut -d' ' -f2); b=$(sed -n 7p "$T/segs.txt" | cut -d' ' -f2)
        : > "$T/r1.pcs"
        for k in 2 3 4 5 6; do
            # shellcheck disable=SC2086
            "$RV" decode --format $fmt $opts --elf "$T/$prog" "$T/t.bin" --segment $k >> "$T/r1.pcs" 2>/dev/null
        done
        # shellcheck disable=SC2086
        "$RV" decode --format $fmt $opts --elf "$T/$prog" "$T/t.bin" --segment "${a%..*}..${b#*..}" -o "$T/r2.pcs" 2>/dev/null
        cmp -s "$T/r1.pcs" "$T/r2.pcs" && [ -s "$T/r1.pcs" ] && ok || bad "$name: --segment ${a%..*}..${b#*..} is not segments 2..6 joined"
        # Damage: flip bytes in a middle segment, cut the last one short.
        len=$(stat -c %s "$T/t.bin")
        python3 - "$T/t.bin" "$T/bad.bin" <<'PY'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
for at in (len(b) // 3, len(b) // 3 + 1, len(b) // 2, 2 * len(b) // 3 + 5):
    b[at] ^= 0x24
open(sys.argv[2], 'wb').write(b[: len(b) - len(b) // 50])
PY
        # shellcheck disable=SC2086
        join_check "$name damaged" "$T/$prog" "$T/bad.bin" $((MIN / 2)) --format $fmt $opts
        grep -q 'offset 0x' "$T/serial.err" && ok || bad "$name damaged: the serial decode reports no damage"
    done
done

# A funnelled two-hart trace: each hart's segments are its own source's
# sync messages, and they join to that hart's decode.
xz -dc "$D/sysmode/smp64.xz" > "$T/smp64"
xz -dc "$D/sysmode/smp64-2.ing.xz" > "$T/smp.ing"
for fam in "ntrace --sync-period 500" "etrace --resync-max 0"; do
    # shellcheck disable=SC2086
    "$RV" encode --format $fam --ecall trap --elf "$T/smp64" --input "$T/smp.ing" --funnel --src-bits 1 -o "$T/fun.bin" \
        || { bad "$fam funnel: encode"; continue; }
    for h in 0 1; do
        # shellcheck disable=SC2086
        join_check "$fam funnel hart $h" "$T/smp64" "$T/fun.bin" 2000 --format $fam --ecall trap --src-bits 1 --src-id $h
        [ "$NSEG" -gt 2 ] && ok || bad "$fam funnel hart $h: only $NSEG segments"
    done
done

# Bad requests name what is wrong.
"$RV" encode --format ntrace --sync-msgs 64 --elf "$T/bzip2" --input "$T/bzip2.ing" -o "$T/t.bin" || bad "encode"
"$RV" decode --format ntrace --sync-msgs 64 --elf "$T/bzip2" "$T/t.bin" --segment 1..2 2>"$T/e.err"; rc=$?
[ $rc = 2 ] && grep -q "no segment starts at byte 1" "$T/e.err" && ok || bad "--segment 1..2: rc $rc: $(cat "$T/e.err")"
"$RV" decode --format ntrace --sync-msgs 64 --elf "$T/bzip2" "$T/t.bin" --segment 0..5 2>"$T/e.err"; rc=$?
[ $rc = 2 ] && grep -q "no segment ends at byte 5" "$T/e.err" && ok || bad "--segment 0..5: rc $rc: $(cat "$T/e.err")"
"$RV" decode --format ntrace --elf "$T/bzip2" "$T/t.bin" --segment 100000 2>"$T/e.err"; rc=$?
[ $rc = 2 ] && grep -q "segments lists them" "$T/e.err" && ok || bad "--segment 100000: rc $rc: $(cat "$T/e.err")"
# A RAM image is linearised by decode: its segments are not the file's.
"$RV" encode --format ntrace --sync-msgs 64 --elf "$T/bzip2" --input "$T/bzip2.ing" --sink sram:8192:wrap -o "$T/ram.bin" 2>/dev/null
"$RV" decode --format ntrace --sync-msgs 64 --elf "$T/bzip2" "$T/ram.bin" --segment 0 2>"$T/e.err"; rc=$?
[ $rc = 2 ] && grep -q "segments are byte ranges of a plain trace file" "$T/e.err" && ok || bad "--segment on a RAM image: rc $rc: $(cat "$T/e.err")"
# --json lists the same segments as the text.
"$RV" segments --format ntrace --sync-msgs 64 "$T/t.bin" --json > "$T/s.json"
"$RV" segments --format ntrace --sync-msgs 64 "$T/t.bin" > "$T/s.txt"
python3 - "$T/s.json" "$T/s.txt" <<'PY' && ok || bad "--json and the text list differ"
import json, sys
j = json.load(open(sys.argv[1]))
t = [l.split() for l in open(sys.argv[2])]
assert len(j["segments"]) == len(t) > 1, (len(j["segments"]), len(t))
for s, l in zip(j["segments"], t):
    assert f'{s["offset"]}..{s["end"]}' == l[1] and s["needs"] == l[5].split("=")[1], (s, l)
assert j["segments"][-1]["end"] == j["bytes"]
PY

echo "segments: $pass passed, $fail failed"
[ $fail = 0 ]
