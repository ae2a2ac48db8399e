#!/usr/bin/env bash
# Issue 12 item 4 (decode): `rvtrace decode --jobs N` gives the serial
# decode's stdout, stderr and exit status byte for byte, for every output
# kind, on every family (the bundled real capture and a generated program
# with data, traps and context switches), on whole, damaged and truncated
# traces and with --max-instructions; with --jobs 2, 4 and 0, and with
# batches cut after every few blocks (RVT_JOBS_BATCH) so that each
# listing state a batch can start in is met.  N-Trace is decoded in pieces
# on threads (src/parallel/specdecode.c; every kind from --jobs 4 on, a
# count from 2): --jobs 4 cuts it at every sync point
# (RVT_JOBS_SEGMENT_BYTES=1), so that many pieces are joined, and
# the end checks that pieces are joined at all and that a piece whose
# start state differs from the whole decode's is decoded again.
set -u
RV=${RVT_BIN:?}; D=${RVT_TEST_DATA:?}; T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL: $*" >&2; }

xz -dc "$D/real/bzip2.xz" > "$T/bzip2"
xz -dc "$D/real/bzip2-9.ing.xz" > "$T/bzip2.ing"
xz -dc "$D/real/bzip2.debug.xz" > "$T/bzip2.debug"
"$RV" gen --seed 5 --insns 60000 --data --traps --context --elf "$T/gen" -o "$T/gen.ing" || bad "gen"

ALL="pcs insn blocks count calltree profile coverage lcov folded callgrind chrome jsonl"
JOBS="2 4 0"  # (--jobs 0: one per core)
# --jobs N is at most one thread per core the process may use; these tests
# run more threads than this machine may have (4: the decode in pieces for
# every kind), so they keep N.  The end checks the limit itself.
export RVT_JOBS_OVERSUBSCRIBE=1
SOME="pcs insn blocks count profile jsonl"

# same NAME KINDS DECODE-ARGS...: every kind, serial against --jobs 2, 3
# (with small batches) and 0.
same() {
    local name=$1 kinds=$2; shift 2
    local k j b
    for k in $kinds; do
        "$RV" decode "$@" --output "$k" > "$T/s.out" 2> "$T/s.err"; echo "exit $?" >> "$T/s.err"
        for j in $JOBS; do
            # --jobs 2: the workers from the first block; 4: after 16
            # batches' worth of instructions (the default, LAZY_BATCHES),
            # batches of 5 blocks, whatever is left; 0: the defaults (these
            # traces are too short for the workers to start: the output's
            # own sink takes everything).  A batch at the head goes out
            # as its text grows (spill_text) in steps of 4 KiB (--jobs 2)
            # and 200 bytes (4) instead of 256 KiB: short traces' batches
            # go out part formatted too.
            b=; sb=; lz=; ml=; sp=; [ $j = 2 ] && lz=0 && ml=0 && sp=4096; [ $j = 4 ] && b=5 && sb=1 && ml=0 && sp=200
            RVT_JOBS_SPILL=$sp RVT_JOBS_BATCH=$b RVT_JOBS_SEGMENT_BYTES=$sb RVT_JOBS_LAZY=$lz RVT_JOBS_MIN_LEFT=$ml "$RV" decode "$@" --output "$k" --jobs $j > "$T/p.out" 2> "$T/p.err"; echo "exit $?" >> "$T/p.err"
            if cmp -s "$T/s.out" "$T/p.out" && cmp -s "$T/s.err" "$T/p.err"; then ok; else
                bad "$name --output $k --jobs $j${b:+ (batches of $b, pieces at every sync point)}: differs from the serial decode: $(cmp "$T/s.out" "$T/p.out" 2>&1 | head -1) $(diff "$T/s.err" "$T/p.err" | head -3 | tr '\n' ' ')"
            fi
        done
    done
}

# family | encode options (the decoder gets the same ones)
cases=(
  "ntrace|--sync-msgs 256"
  "ntrace|--sync-msgs 100 --timestamps --context --ntrace-mode btm"
  "ntrace|--ntrace-mode htm --callstack 8 --repeat 2"
  "etrace|--resync-max 0"
  "etrace|--data-trace on"
  "etrace|--implicit-return 2.0 --branch-prediction --jump-target-cache"
  "cdl|--cdl-sync-interval 256 --cdl-data wide"
  "dbg|--dbg-emit pc,branch,priv,timestamp --dbg-buffer 2048"
)
FIRST=1
for c in "${cases[@]}"; do
    fmt=${c%%|*}; opts=${c#*|}
    for prog in bzip2 gen; do
        name="$fmt $opts ($prog)"
        # shellcheck disable=SC2086
        "$RV" encode --format $fmt --elf "$T/$prog" --input "$T/$prog.ing" $opts -o "$T/t.bin" 2>"$T/enc.err" \
            || { bad "$name: encode: $(cat "$T/enc.err")"; continue; }
        size=$(stat -c %s "$T/t.bin")
        JOBS="2 4"; [ $prog = gen ] && [ "$FIRST" = 1 ] && JOBS="2 4 0"
        # The real capture (1.5 M instructions) with every kind once, then
        # with the per-instruction kinds; the generated program with more.
        kinds=$SOME; [ "$FIRST" = 1 ] && kinds=$ALL; [ $prog = bzip2 ] && [ "$FIRST" = 0 ] && kinds=insn
        # shellcheck disable=SC2086
        same "$name" "$kinds" --format $fmt $opts --elf "$T/$prog" "$T/t.bin"
        # damaged: bytes flipped in two places
        cp "$T/t.bin" "$T/d.bin"
        for at in $((size / 3)) $((size / 2)); do
            printf '\x5a\xa5\x33' | dd of="$T/d.bin" bs=1 seek=$at conv=notrunc status=none
        done
        # (the real capture once: the sanitizer builds are slow)
        [ $prog = bzip2 ] && [ "$FIRST" = 0 ] && continue
        # shellcheck disable=SC2086
        dkinds=$kinds; [ $prog = bzip2 ] && dkinds="pcs insn jsonl profile"
        same "$name, damaged" "$dkinds" --format $fmt $opts --elf "$T/$prog" "$T/d.bin"
        # truncated
        head -c $((size * 2 / 3)) "$T/t.bin" > "$T/c.bin"
        # shellcheck disable=SC2086
        trunc="pcs insn count jsonl"; [ $prog = bzip2 ] && trunc=insn
        same "$name, truncated" "$trunc" --format $fmt $opts --elf "$T/$prog" "$T/c.bin"
        # the instruction limit
        # shellcheck disable=SC2086
        same "$name, --max-instructions 20000" "insn blocks calltree" --format $fmt $opts --elf "$T/$prog" "$T/t.bin" \
            --max-instructions 20000
        [ $prog = gen ] && FIRST=0
    done
done

# Source lines: the listing's file:line lines carry state from block to block.
"$RV" encode --format ntrace --sync-msgs 256 --elf "$T/bzip2" --input "$T/bzip2.ing" -o "$T/t.bin"
same "bzip2 with DWARF" "insn lcov" --format ntrace --sync-msgs 256 --elf "$T/bzip2" --dwarf "$T/bzip2.debug" "$T/t.bin"
# Without the ELF: the listing and the analyses stop at the first block
# (which they cannot list or count), where the serial decode stops.
"$RV" encode --format cdl --cdl-sync-interval 256 --cdl-data wide --elf "$T/gen" --input "$T/gen.ing" -o "$T/n.bin" ||
    bad "cdl encode"
same "cdl without the ELF" "pcs insn blocks count calltree jsonl" --format cdl --cdl-sync-interval 256 --cdl-data wide \
    "$T/n.bin"
"$RV" decode --format cdl --cdl-sync-interval 256 --cdl-data wide "$T/n.bin" --jobs 2 2>&1 >/dev/null |
    grep -q "cannot be listed" && ok || bad "cdl without the ELF: the listing does not stop at the first block"
# A trace with nothing to decode, and an empty one.
head -c 3000 /dev/urandom > "$T/r.bin"
same "random bytes" "pcs insn" --format ntrace --elf "$T/bzip2" "$T/r.bin"
: > "$T/e.bin"
same "empty trace" "pcs profile" --format ntrace --elf "$T/bzip2" "$T/e.bin"

# The decode in pieces (N-Trace).  stats NAME ARGS...: the serial decode
# and --jobs 4 cut at every sync point agree; prints "joined redone".
stats() {
    local name=$1; shift
    "$RV" decode "$@" > "$T/s.out" 2> "$T/s.err"; echo "exit $?" >> "$T/s.err"
    RVT_JOBS_STATS=1 RVT_JOBS_SEGMENT_BYTES=1 "$RV" decode "$@" --jobs 4 > "$T/p.out" 2> "$T/p.all"; echo "exit $?" >> "$T/p.all"
    grep -v -- '--jobs: ' "$T/p.all" > "$T/p.err"
    if cmp -s "$T/s.out" "$T/p.out" && cmp -s "$T/s.err" "$T/p.err"; then ok; else
        bad "$name: --jobs 4 in pieces differs from the serial decode: $(diff "$T/s.err" "$T/p.err" | head -3 | tr '\n' ' ')"
    fi
    sed -n 's/.*--jobs: [0-9]* threads for the decode, \([0-9]*\) segments, \([0-9]*\) joined, \([0-9]*\) decoded again/\2 \3/p' "$T/p.all"
}
NT="--format ntrace --sync-msgs 256 --ntrace-mode htm --callstack 8 --repeat 2"
# shellcheck disable=SC2086
"$RV" encode $NT --elf "$T/bzip2" --input "$T/bzip2.ing" -o "$T/h.bin" || bad "encode htm"
for k in blocks count; do
    # shellcheck disable=SC2086
    read -r joined redone <<<"$(stats "pieces ($k)" $NT --elf "$T/bzip2" "$T/h.bin" --output $k)"
    [ "${joined:-0}" -gt 10 ] && ok || bad "pieces ($k): ${joined:-no} pieces joined (expected many: the speculative decode is not used)"
done
# Damage inside a piece, and a cut: joined where the state allows.
size=$(stat -c %s "$T/h.bin")
cp "$T/h.bin" "$T/hd.bin"
printf '\x5a\xa5\x33' | dd of="$T/hd.bin" bs=1 seek=$((size / 3)) conv=notrunc status=none
# shellcheck disable=SC2086
stats "pieces, damaged" $NT --elf "$T/bzip2" "$T/hd.bin" --output insn > /dev/null
head -c $((size / 2)) "$T/h.bin" > "$T/hc.bin"
# shellcheck disable=SC2086
stats "pieces, truncated" $NT --elf "$T/bzip2" "$T/hc.bin" --output count > /dev/null
# shellcheck disable=SC2086
stats "pieces, --max-instructions" $NT --elf "$T/bzip2" "$T/h.bin" --output count --max-instructions 700000 > /dev/null
# A piece whose start state differs from the whole decode's: an HTM trace
# followed by a BTM one, decoded without --ntrace-mode.  The whole decode
# has learnt HTM from the first, so the second's DirectBranch messages are
# errors ("BTM and HTM are not mixed within a trace"); a decode started at
# the second's sync has not: the pieces there must be decoded again.
"$RV" encode --format ntrace --sync-msgs 256 --ntrace-mode btm --elf "$T/bzip2" --input "$T/bzip2.ing" -o "$T/b.bin" ||
    bad "encode btm"
cat "$T/h.bin" "$T/b.bin" > "$T/hb.bin"
read -r joined redone <<<"$(stats "HTM then BTM" --format ntrace --sync-msgs 256 --elf "$T/bzip2" "$T/hb.bin" --output count)"
grep -q "BTM messages cannot follow HTM" "$T/s.err" && ok || bad "HTM then BTM: the serial decode reports no mode error"
[ "${redone:-0}" -gt 0 ] && ok || bad "HTM then BTM: ${joined:-?} joined, ${redone:-?} decoded again (expected some)"

# ---- E-Trace in pieces (etjobs; keep E-Trace cases in this block) ----------
# The decode in pieces for E-Trace (et_dec_run_part / et_dec_state_equal):
# traces encoded with a resync every 128 packets (--resync-max 3: many
# pieces), every output kind, the option sets of bench/families.txt, a
# generated program with traps, privilege, context and time, damaged and
# truncated traces, --max-instructions; pieces cut at every sync point
# (stats: --jobs 4, RVT_JOBS_SEGMENT_BYTES=1).  The decoder is not given
# --resync-max: with it, it learns the resync period from the trace and
# every piece is decoded again (docs/parallel.md).
# (lcov needs source lines: without --dwarf it decodes nothing.)
# etsame NAME KINDS ARGS...: stats for each kind; prints the joined counts
# of the kinds decoded in pieces (the analysis kinds and jsonl are not:
# cmd_decode.c; their output is still checked).
etsame() {
    local name=$1 kinds=$2 k; shift 2
    for k in $kinds; do
        read -r joined redone <<<"$(stats "$name --output $k" "$@" --output $k)"
        case " pcs insn blocks count " in *" $k "*) echo "${joined:-0}" ;; esac
    done
}
ET_SETS=(
  ""
  "--implicit-return fixed"
  "--branch-prediction --bpred_size_p 10"
  "--implicit-return fixed --return_stack_size_p 4 --branch-prediction --bpred_size_p 10 --jump-target-cache --cache_size_p 6 --sijump --framing refraw"
  "--implicit-return 2.0 --full-address"
  "--etrace-version 0.026"
  "--nocontext_p 0 --notime_p 0"
)
FIRST=1
for o in "${ET_SETS[@]}"; do
    for prog in gen bzip2; do
        name="etrace pieces [$o] ($prog)"
        # shellcheck disable=SC2086
        "$RV" encode --format etrace --resync-max 3 $o --elf "$T/$prog" --input "$T/$prog.ing" -o "$T/et.bin" \
            2>"$T/enc.err" || { bad "$name: encode: $(cat "$T/enc.err")"; continue; }
        kinds="count insn jsonl"; [ $prog = gen ] && [ $FIRST = 1 ] && kinds=${ALL/ lcov/}; [ $prog = bzip2 ] && kinds="count pcs"
        # shellcheck disable=SC2086
        j=$(etsame "$name" "$kinds" --format etrace $o --elf "$T/$prog" "$T/et.bin" | sort -n | head -1)
        [ "${j:-0}" -gt 5 ] && ok || bad "$name: ${j:-no} pieces joined (expected many)"
        [ $prog = bzip2 ] && continue
        FIRST=0
        size=$(stat -c %s "$T/et.bin")
        cp "$T/et.bin" "$T/etd.bin"
        for at in $((size / 3)) $((size / 2)); do
            printf '\x5a\xa5\x33' | dd of="$T/etd.bin" bs=1 seek=$at conv=notrunc status=none
        done
        # shellcheck disable=SC2086
        etsame "$name, damaged" "insn count" --format etrace $o --elf "$T/$prog" "$T/etd.bin" > /dev/null
        head -c $((size * 2 / 3)) "$T/et.bin" > "$T/etc.bin"
        # shellcheck disable=SC2086
        etsame "$name, truncated" "insn count" --format etrace $o --elf "$T/$prog" "$T/etc.bin" > /dev/null
        # shellcheck disable=SC2086
        etsame "$name, --max-instructions" "insn count" --format etrace $o --elf "$T/$prog" "$T/et.bin" \
            --max-instructions 20000 > /dev/null
    done
done
# --jobs 2 for a count (its decode in pieces from 2 threads on), sized pieces.
"$RV" encode --format etrace --elf "$T/bzip2" --input "$T/bzip2.ing" -o "$T/et.bin"
JOBS="2 0"
same "etrace (bzip2, resync every 1024 packets)" "count pcs" --format etrace --elf "$T/bzip2" "$T/et.bin"
# Must be decoded again: a trace encoded with --full-address decoded without
# it.  The whole decode learns full addresses from the first support packet
# (ioptions); a decoder started at a later sync packet has not, and would
# read the addresses as differential: the joins' states differ in
# full_address, so every piece is decoded again (with et_dec_state_equal
# always true the output differs: wrong addresses, errors).
"$RV" encode --format etrace --resync-max 3 --full-address --elf "$T/bzip2" --input "$T/bzip2.ing" -o "$T/etfa.bin"
for k in count pcs; do
    read -r joined redone <<<"$(stats "etrace --full-address decoded without it --output $k" --format etrace \
        --elf "$T/bzip2" "$T/etfa.bin" --output $k)"
    [ "${redone:-0}" -gt 5 ] && [ "${joined:-1}" = 0 ] && ok ||
        bad "etrace --full-address decoded without it: ${joined:-?} joined, ${redone:-?} decoded again (expected none joined)"
done
# Data trace is not decoded in pieces (docs/parallel.md): the same output,
# every piece on the calling thread.
"$RV" encode --format etrace --resync-max 3 --data-trace on --elf "$T/gen" --input "$T/gen.ing" -o "$T/etdt.bin"
for k in insn count; do
    read -r joined redone <<<"$(stats "etrace data trace --output $k" --format etrace --data-trace on \
        --elf "$T/gen" "$T/etdt.bin" --output $k)"
    [ "${joined:-1}" = 0 ] && ok || bad "etrace data trace: ${joined:-?} pieces joined (expected none)"
done
# ---- end of the E-Trace block ------------------------------------------------

# --jobs 0 is one thread per core this process may use (its CPU affinity,
# not the machine's online cores: taskset, cpusets, containers).
if command -v taskset > /dev/null && taskset -c 0 true 2> /dev/null; then
    # shellcheck disable=SC2086
    RVT_JOBS_STATS=1 taskset -c 0 "$RV" decode $NT --elf "$T/bzip2" "$T/h.bin" --output count --jobs 0 > /dev/null 2> "$T/a.err"
    grep -q -- "--jobs: 1 threads for the decode" "$T/a.err" && ok || bad "--jobs 0 on one allowed core: $(grep -- --jobs "$T/a.err")"
    # --jobs N: no more threads than the cores the process may use (more
    # only compete for them), and the same output.
    for k in count insn; do
        # shellcheck disable=SC2086
        "$RV" decode $NT --elf "$T/bzip2" "$T/h.bin" --output $k > "$T/s.out" 2> /dev/null
        # shellcheck disable=SC2086
        env -u RVT_JOBS_OVERSUBSCRIBE RVT_JOBS_STATS=1 taskset -c 0 "$RV" decode $NT --elf "$T/bzip2" "$T/h.bin" \
            --output $k --jobs 8 > "$T/p.out" 2> "$T/a.err"
        grep -q -- "--jobs: 1 threads for the decode" "$T/a.err" && cmp -s "$T/s.out" "$T/p.out" && ok ||
            bad "--jobs 8 --output $k on one allowed core: $(grep -- --jobs "$T/a.err")"
    done
    if taskset -c 0,1 true 2> /dev/null; then
        # shellcheck disable=SC2086
        env -u RVT_JOBS_OVERSUBSCRIBE RVT_JOBS_STATS=1 taskset -c 0,1 "$RV" decode $NT --elf "$T/bzip2" "$T/h.bin" \
            --output count --jobs 8 > /dev/null 2> "$T/a.err"
        grep -q -- "--jobs: 2 threads for the decode" "$T/a.err" && ok ||
            bad "--jobs 8 --output count on two allowed cores: $(grep -- --jobs "$T/a.err")"
    fi
fi

# The workers of a PC list or listing start only if enough of the decode
# is left, extrapolated from the trace bytes so far (rvt_out_jobs_expect;
# until then the output's own sink takes everything): not for the capture
# (1.5 M instructions), nor for 2 M instructions of 8 copies of it, and
# for all 8 copies (12 M); the text is the serial decode's either way.
for i in 1 2 3 4 5 6 7 8; do cat "$T/h.bin"; done > "$T/h8.bin"
while read -r want k trace lim; do
    # shellcheck disable=SC2086
    s=$("$RV" decode $NT --elf "$T/bzip2" "$T/$trace" --output $k $lim 2> "$T/s.err" | cksum)
    # shellcheck disable=SC2086
    p=$(RVT_JOBS_STATS=1 "$RV" decode $NT --elf "$T/bzip2" "$T/$trace" --output $k $lim --jobs 2 2> "$T/a.err" | cksum)
    grep -v -- '--jobs: ' "$T/a.err" > "$T/p.err"
    grep -q -- "--jobs: $want output threads started" "$T/a.err" && [ "$s" = "$p" ] && cmp -s "$T/s.err" "$T/p.err" && ok ||
        bad "--output $k --jobs 2 of $trace $lim: expected $want output threads started and the serial text: $(grep -- 'output threads' "$T/a.err") ($s / $p)"
done <<'EOF2'
0 insn h.bin
0 insn h8.bin --max-instructions 2000000
1 pcs h8.bin
EOF2
# Whether a worker evicts what it read from its cache changes nothing in
# the text: measured by the library (probes; src/parallel/evict.h), or
# fixed by RVT_JOBS_EVICT.  The statistics say what was done.
s=$("$RV" decode $NT --elf "$T/bzip2" "$T/h8.bin" --output insn 2> /dev/null | cksum)
for rule in measure always never; do
    p=$(RVT_JOBS_EVICT=$rule RVT_JOBS_STATS=1 "$RV" decode $NT --elf "$T/bzip2" "$T/h8.bin" --output insn --jobs 2 2> "$T/a.err" | cksum)
    read -r batches evicted probes < <(sed -n 's/.*started, \([0-9]*\) batches, \([0-9]*\) evicted, \([0-9]*\) probes.*/\1 \2 \3/p' "$T/a.err")
    case $rule in
        measure) want=$([ "${batches:-0}" -ge 64 ] && [ "${probes:-0}" -ge 1 ] && [ "${evicted:-0}" -ge 1 ] && echo y) ;;
        always) want=$([ "${batches:-0}" -ge 64 ] && [ "$evicted" = "$batches" ] && [ "$probes" = 0 ] && echo y) ;;
        never) want=$([ "${batches:-0}" -ge 64 ] && [ "$evicted" = 0 ] && [ "$probes" = 0 ] && echo y) ;;
    esac
    [ "$s" = "$p" ] && [ "$want" = y ] && ok ||
        bad "RVT_JOBS_EVICT=$rule --output insn --jobs 2 of h8.bin: expected the serial text and its statistics: $(grep -- 'output threads' "$T/a.err") ($s / $p)"
done
# Both threads on one core: the worker gets little time, the calling
# thread formats most batches, and those whose predecessors are all
# written go straight into the output (no kept text): the same text.
# (Whether the worker gets the core for all of them is the scheduler's
# choice: once in about 20 runs on the Intel VM, in most on the AMD VM.
# The text must be the serial one each time; batches written directly in
# one of three tries, unless the worker wrote every batch in all three.)
if command -v taskset > /dev/null && taskset -c 0 true 2> /dev/null; then
    for k in pcs insn blocks; do
        s=$("$RV" decode $NT --elf "$T/bzip2" "$T/h8.bin" --output $k 2> /dev/null | cksum)
        same=y direct=0 all_by_worker=y
        for try in 1 2 3; do
            p=$(RVT_JOBS_STATS=1 taskset -c 0 "$RV" decode $NT --elf "$T/bzip2" "$T/h8.bin" --output $k --jobs 2 2> "$T/a.err" | cksum)
            [ "$s" = "$p" ] || same=n
            direct=$(sed -n 's/.* \([0-9]*\) written directly.*/\1/p' "$T/a.err")
            [ "${direct:-0}" -gt 0 ] && break
            read -r nb nw < <(sed -n 's/.* \([0-9]*\) batches, .* \([0-9]*\) written by workers.*/\1 \2/p' "$T/a.err")
            [ -n "$nb" ] && [ "$nb" = "$nw" ] || all_by_worker=n
        done
        # (A scheduler that runs the woken worker at once, as Linux 6.18's
        # on the AMD VM did in every try, never lets the ring fill: the
        # worker formats and writes every batch, and nothing is left for
        # this thread to write directly.  Then only the text is checked.)
        if [ $same = y ] && [ "${direct:-0}" = 0 ] && [ $all_by_worker = y ]; then
            echo "note: --output $k --jobs 2 on one core: the worker wrote every batch in $try tries (nothing to write directly)"
            ok
            continue
        fi
        [ $same = y ] && [ "${direct:-0}" -gt 0 ] && ok ||
            bad "--output $k --jobs 2 on one core: expected the serial text and batches written directly: $(grep -- 'output threads' "$T/a.err") ($s / $p, $try tries)"
    done
fi
# A worker that finishes the batch at the head writes its text itself,
# and the batches done after it (drain): the same text, with the workers
# writing; with source lines, a batch formatted from a guessed state that
# is not the serial one is left to the calling thread.  (RVT_JOBS_HELP=0:
# the decoding thread formats nothing, so that the workers write however
# busy the machine is; on a busy one the decoding thread writes most
# batches itself, straight into the output.)
for k in pcs insn blocks "insn --dwarf $T/bzip2.debug"; do
    # shellcheck disable=SC2086
    s=$("$RV" decode $NT --elf "$T/bzip2" "$T/h8.bin" --output $k 2> /dev/null | cksum)
    # shellcheck disable=SC2086
    p=$(RVT_JOBS_HELP=0 RVT_JOBS_SPILL=0 RVT_JOBS_BATCH=512 RVT_JOBS_STATS=1 "$RV" decode $NT --elf "$T/bzip2" "$T/h8.bin" --output $k --jobs 2 2> "$T/a.err" | cksum)
    by=$(sed -n 's/.* \([0-9]*\) written by workers.*/\1/p' "$T/a.err")
    [ "$s" = "$p" ] && [ "${by:-0}" -gt 0 ] && ok ||
        bad "--output $k --jobs 2: expected the serial text and batches written by the worker: $(grep -- 'output threads' "$T/a.err") ($s / $p)"
    # ... and written out by the worker while it formats them, in pieces
    # of 1 KiB, each batch being at the head when its text has grown by
    # that much (every batch before it written).
    p=$(RVT_JOBS_HELP=0 RVT_JOBS_SPILL=1024 RVT_JOBS_BATCH=512 RVT_JOBS_STATS=1 "$RV" decode $NT --elf "$T/bzip2" "$T/h8.bin" --output $k --jobs 2 2> "$T/a.err" | cksum)
    sp=$(sed -n 's/.* \([0-9]*\) written while formatted.*/\1/p' "$T/a.err")
    [ "$s" = "$p" ] && [ "${sp:-0}" -gt 0 ] && ok ||
        bad "--output $k --jobs 2: expected the serial text and batches written while formatted: $(grep -- 'output threads' "$T/a.err") ($s / $p)"
done
rm -f "$T/h8.bin"

# A PC list to a regular file or /dev/null is written in place: each
# batch's text at its offset (its lines have one width), by the thread
# that formats it, as it grows, whatever is written before it.  Only where
# a write at an offset is what the reader gets: not to a pipe, not to a
# file opened for appending (every write would go to its end), not to a
# file that is stderr too (its messages would land where the position
# stood).  The workers from the first block, batches of 512 blocks,
# pieces of 1 KiB, so that many batches are written out of order; and
# (wholenew) a new file with the default steps, where each batch goes out
# whole at its end (pardecode.c, POSITIONAL_FILE_STEP).
inplace() { sed -n 's/.* \([0-9]*\) written in place.*/\1/p' "$T/a.err"; }
pcsjobs() { RVT_JOBS_STATS=1 RVT_JOBS_LAZY=0 RVT_JOBS_MIN_LEFT=0 RVT_JOBS_BATCH=512 RVT_JOBS_SPILL=${SPILL-1024} "$RV" decode $NT --elf "$T/bzip2" "$@" --output pcs --jobs 2; }
for trace in h.bin hd.bin hc.bin; do
    # shellcheck disable=SC2086
    "$RV" decode $NT --elf "$T/bzip2" "$T/$trace" --output pcs > "$T/s.out" 2> "$T/s.err"; echo "exit $?" >> "$T/s.err"
    [ -s "$T/s.out" ] || bad "$trace: the serial PC list is empty"
    want=$(cksum < "$T/s.out")
    # where | what the reader gets | written in place?
    for where in new wholenew over stdout append pipe; do
        rm -f "$T/o.pcs"
        case $where in
            new) pcsjobs "$T/$trace" -o "$T/o.pcs" 2> "$T/a.err"; rc=$? ;;
            wholenew) SPILL='' pcsjobs "$T/$trace" -o "$T/o.pcs" 2> "$T/a.err"; rc=$? ;;
            over) # (a longer file: what is left of it is cut off)
                head -c $(( $(stat -c %s "$T/s.out") + 100000 )) /dev/urandom > "$T/o.pcs"
                pcsjobs "$T/$trace" -o "$T/o.pcs" 2> "$T/a.err"; rc=$? ;;
            stdout) pcsjobs "$T/$trace" > "$T/o.pcs" 2> "$T/a.err"; rc=$? ;;
            append) echo "already here" > "$T/o.pcs"; pcsjobs "$T/$trace" >> "$T/o.pcs" 2> "$T/a.err"; rc=$? ;;
            pipe) pcsjobs "$T/$trace" 2> "$T/a.err" | cat > "$T/o.pcs"; rc=${PIPESTATUS[0]} ;;
        esac
        grep -v -- '--jobs: ' "$T/a.err" > "$T/p.err"; echo "exit $rc" >> "$T/p.err"
        got=$(if [ $where = append ]; then tail -n +2 "$T/o.pcs"; else cat "$T/o.pcs"; fi | cksum)
        n=$(inplace)
        case $where in append|pipe) placed=$([ "${n:-x}" = 0 ] && echo y) ;; *) placed=$([ "${n:-0}" -gt 1 ] && echo y) ;; esac
        [ "$got" = "$want" ] && cmp -s "$T/s.err" "$T/p.err" && [ "$placed" = y ] && ok ||
            bad "$trace --output pcs --jobs 2 ($where): expected the serial text, stderr and exit status, written in place: ${n:-no} batches ($got / $want) $(diff "$T/s.err" "$T/p.err" | head -3 | tr '\n' ' ')"
        [ $where != append ] || [ "$(head -1 "$T/o.pcs")" = "already here" ] || bad "$trace --output pcs --jobs 2 >>: the file's first line was overwritten"
    done
    # stdout and stderr the same file: not in place (a message would land
    # where the position stood, and the text written over it): the same
    # bytes as the serial decode's, the last message last (the lines fall
    # in another order: the serial decode's messages come between its
    # buffered writes, the threaded one's between batches).
    # shellcheck disable=SC2086
    "$RV" decode $NT --elf "$T/bzip2" "$T/$trace" --output pcs > "$T/s.out" 2>&1
    # shellcheck disable=SC2086
    RVT_JOBS_LAZY=0 RVT_JOBS_MIN_LEFT=0 RVT_JOBS_BATCH=512 RVT_JOBS_SPILL=1024 "$RV" decode $NT --elf "$T/bzip2" "$T/$trace" --output pcs --jobs 2 > "$T/o.pcs" 2>&1
    [ "$(stat -c %s "$T/s.out")" = "$(stat -c %s "$T/o.pcs")" ] && [ "$(tail -1 "$T/s.out")" = "$(tail -1 "$T/o.pcs")" ] && ok ||
        bad "$trace --output pcs --jobs 2 > file 2>&1: expected the serial decode's bytes and last message"
    # /dev/null: the same stderr and exit status
    pcsjobs "$T/$trace" -o /dev/null 2> "$T/a.err"; rc=$?
    grep -v -- '--jobs: ' "$T/a.err" > "$T/p.err"; echo "exit $rc" >> "$T/p.err"
    # shellcheck disable=SC2086
    "$RV" decode $NT --elf "$T/bzip2" "$T/$trace" --output pcs > /dev/null 2> "$T/s.err"; echo "exit $?" >> "$T/s.err"
    n=$(inplace)
    cmp -s "$T/s.err" "$T/p.err" && [ "${n:-0}" -gt 1 ] && ok ||
        bad "$trace --output pcs --jobs 2 -o /dev/null: expected the serial stderr and exit status, written in place: ${n:-no} batches $(diff "$T/s.err" "$T/p.err" | head -3 | tr '\n' ' ')"
done
# A write that fails in place (the file size limit, EFBIG; SIGXFSZ
# ignored): the serial decode's message and exit status, and the text
# before the limit.  The worker writes every batch (RVT_JOBS_HELP=0): the
# message's errno is that of a write on another thread.
lim_kb=4096
# shellcheck disable=SC2086
(trap '' XFSZ; ulimit -f $lim_kb; exec "$RV" decode $NT --elf "$T/bzip2" "$T/h.bin" --output pcs -o "$T/lim.pcs") 2> "$T/s.err"; echo "exit $?" >> "$T/s.err"
mv "$T/lim.pcs" "$T/s.out"
# shellcheck disable=SC2086
(trap '' XFSZ; ulimit -f $lim_kb; RVT_JOBS_HELP=0 RVT_JOBS_STATS=1 RVT_JOBS_LAZY=0 RVT_JOBS_MIN_LEFT=0 RVT_JOBS_BATCH=512 RVT_JOBS_SPILL=1024 exec "$RV" decode $NT --elf "$T/bzip2" "$T/h.bin" --output pcs -o "$T/lim.pcs" --jobs 2) 2> "$T/a.err"; rc=$?
grep -v -- '--jobs: ' "$T/a.err" > "$T/p.err"; echo "exit $rc" >> "$T/p.err"
n=$(inplace)
grep -q "exit [1-9]" "$T/s.err" && cmp -s "$T/s.err" "$T/p.err" && [ "${n:-0}" -gt 1 ] && [ "$(stat -c %s "$T/lim.pcs")" -le $((lim_kb * 1024)) ] &&
    cmp -s "$T/lim.pcs" <(head -c "$(stat -c %s "$T/lim.pcs")" "$T/s.out") && ok ||
    bad "--output pcs --jobs 2 past the file size limit: expected the serial message and exit status: $(diff "$T/s.err" "$T/p.err" | head -4 | tr '\n' ' ') (${n:-no} batches in place)"

# The analysis kinds and jsonl stay on the calling thread whatever --jobs
# says: no output thread, the decode not in pieces (a second thread cost
# them more than it gave; docs/parallel.md).
for k in profile jsonl; do
    # shellcheck disable=SC2086
    RVT_JOBS_STATS=1 "$RV" decode $NT --elf "$T/bzip2" "$T/h.bin" --output $k --jobs 4 > /dev/null 2> "$T/a.err"
    grep -q -- "--jobs: 1 threads for the decode" "$T/a.err" && grep -q -- "--jobs: 0 output threads started" "$T/a.err" &&
        ok || bad "--output $k --jobs 4: expected the serial decode and output: $(grep -- '--jobs: ' "$T/a.err" | tr '\n' ' ')"
done

# A full disk: the same message and exit status as the serial decode,
# whether the output's own sink takes everything (the default: the
# capture is too short for the workers to start) or the workers start at
# the first block (RVT_JOBS_LAZY=0, RVT_JOBS_MIN_LEFT=0) and write the
# batches at the head as they are formatted, every 512 bytes.
if [ -w /dev/full ]; then
    for k in pcs insn blocks jsonl; do
        # shellcheck disable=SC2086
        "$RV" decode $NT --elf "$T/bzip2" "$T/h.bin" --output $k > /dev/full 2> "$T/s.err"; echo "exit $?" >> "$T/s.err"
        for lz in "" 0; do
            # shellcheck disable=SC2086
            RVT_JOBS_SPILL=${lz:+512} RVT_JOBS_LAZY=$lz RVT_JOBS_MIN_LEFT=$lz "$RV" decode $NT --elf "$T/bzip2" "$T/h.bin" --output $k --jobs 2 > /dev/full 2> "$T/p.err"
            echo "exit $?" >> "$T/p.err"
            grep -q "write failed" "$T/s.err" && cmp -s "$T/s.err" "$T/p.err" && ok ||
                bad "--output $k --jobs 2${lz:+ (workers from the first batch)} to a full disk: $(diff "$T/s.err" "$T/p.err" | head -3 | tr '\n' ' ')"
        done
    done
fi

# A bad --jobs is a usage error.
"$RV" decode --format ntrace --elf "$T/bzip2" "$T/t.bin" --jobs x > /dev/null 2> "$T/e.err"
[ $? = 2 ] && grep -q -- "--jobs: expected a number" "$T/e.err" && ok || bad "--jobs x: $(cat "$T/e.err")"

echo "decode_jobs: $pass passed, $fail failed"
[ $fail = 0 ]
