#!/usr/bin/env bash
# Speed and scale (issue 12), on the real bzip2 capture bench/run.sh made:
# every measurement in host instructions per traced instruction (valgrind
# callgrind: the whole process, load-independent) beside wall time (best of
# 3; the machine is shared, so read those speeds as lower bounds; its CPU
# time accounting is not usable: a VM under load reports a fraction of the
# time its processes run), all in one invocation:
#   - readers: native ingress, PC INSN text, PC list text (bench_readers);
#   - encode from native ingress, PC INSN text and PC list text (N-Trace
#     HTM), from text also with --jobs 2 (the text parsed on both threads);
#   - counting decode per family, split into the shared core (flow engine,
#     block cache, output) and the family's own decoder;
#   - decode to a PC list file and to an instruction listing;
#   - flat memory: a >= 1 GB trace (the capture's N-Trace BTM trace
#     repeated, each copy starting at its sync message) and a 100 MB one,
#     peak RSS;
#   - with NEXRV=/path/to/NexRv.exe (the N-Trace reference C tool,
#     riscv-non-isa/tg-nexus-trace refcode/c, built by you), that tool on the
#     same PC sequence: its PC-list conversion, encode and decode.
# Prints Markdown and appends one row per commit to bench/HISTORY.md.
#   bench/speed.sh [WORKDIR]      (bench/run.sh WORKDIR first)
# RVT_BENCH_BIG=1 also captures bzip2 -9 of a 250 KB text (> 100 M
# instructions) and decodes it.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
work=${1:-$top/build/bench-work}
B=$top/build/bench
RV=$B/tools/rvtrace
[ -x "$RV" ] && [ -f "$work/bzip2.ing" ] || { echo "bench/speed.sh: run bench/run.sh $work first" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "bench/speed.sh: valgrind is needed" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench/speed.sh: GNU time (/usr/bin/time) is needed" >&2; exit 1; }
s=$work/speed
mkdir -p "$s"
# the commit measured (the build is made from the working tree)
rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD 2>/dev/null || rev="$rev+"
ELF=$work/bzip2
HTM="--format ntrace --ntrace-mode htm --callstack 8 --repeat 2"

# ---- helpers -------------------------------------------------------------------------------------
ir() { # command...: host instructions of the whole process (callgrind)
    valgrind --tool=callgrind --callgrind-out-file="$s/cg.out" "$@" 2>"$s/cg.err" >/dev/null ||
        { cat "$s/cg.err" >&2; return 1; }
    sed -n 's/.*refs: *\([0-9,]*\).*/\1/p' "$s/cg.err" | tr -d ,
}
split_core() { # core% family%: self cost of src/flow, src/image, src/analysis vs src/<family> in the last ir run
    callgrind_annotate --auto=no --threshold=100 "$s/cg.out" 2>/dev/null | awk -v fam="$1" '
        /^ *[0-9,]+ / && /src\// { v = $1; gsub(",", "", v);
            if ($0 ~ /src\/(flow|image|analysis)\//) core += v; else if ($0 ~ "src/" fam "/") f += v }
        /PROGRAM TOTALS/ { t = $1; gsub(",", "", t) }
        END { printf "%.0f %.0f", 100 * core / t, 100 * f / t }'
}
best3() { # command...: wall seconds, the best of 3 runs
    local wall= t0 t1 w
    for _ in 1 2 3; do
        # FRESH=FILE: FILE removed before each run (outside the time), so
        # the command writes a new file: overwriting one costs the kernel
        # the old file's pages first (the truncation: its own row below)
        [ -z "${FRESH:-}" ] || rm -f "$FRESH"
        t0=$(date +%s.%N)
        "$@" >/dev/null 2>"$s/err" || { cat "$s/err" >&2; return 1; }
        t1=$(date +%s.%N)
        w=$(echo "$t1 - $t0" | bc -l)
        if [ -z "$wall" ] || [ "$(echo "$w < $wall" | bc -l)" = 1 ]; then wall=$w; fi
    done
    printf '%.3f\n' "$wall"
}
rate() { # instructions seconds -> M/s
    if [ "$(echo "$2 > 0" | bc -l)" = 1 ]; then printf '%.0f' "$(echo "$1 / $2 / 1000000" | bc -l)"; else echo "-"; fi
}
per() { printf '%.1f' "$(echo "$1 / $2" | bc -l)"; }
row() { # label instructions command...: a table row (host/insn, wall, M/s)
    local label=$1 n=$2; shift 2
    local h w
    h=$(ir "$@")
    w=$(best3 "$@")
    printf '| %s | %s | %s | %s | %s |\n' "$label" "$(per "$h" "$n")" "$h" "$w" "$(rate "$n" "$w")"
    last_per=$(per "$h" "$n")
}

# ---- inputs --------------------------------------------------------------------------------------
N=$("$RV" check --elf "$ELF" --input "$work/bzip2.ing" | sed -n 's/.* records, \([0-9]*\) instructions.*/\1/p')
[ -f "$s/bzip2.pcinsn" ] || "$RV" convert --elf "$ELF" --input "$work/bzip2.ing" --to pcinsn -o "$s/bzip2.pcinsn"
[ -f "$s/bzip2.pcs" ] || "$RV" convert --elf "$ELF" --input "$work/bzip2.ing" --to pclist -o "$s/bzip2.pcs"
"$RV" encode $HTM --elf "$ELF" --input "$work/bzip2.ing" -o "$s/htm.bin"
"$RV" encode --format etrace --implicit-return fixed --elf "$ELF" --input "$work/bzip2.ing" -o "$s/etir.bin"
"$RV" encode --format etrace --elf "$ELF" --input "$work/bzip2.ing" -o "$s/et.bin"
"$RV" encode --format ntrace --ntrace-mode btm --callstack 0 --repeat 0 --elf "$ELF" --input "$work/bzip2.ing" -o "$s/btm.bin"
pcinsn_mb=$(($(stat -L -c %s "$s/bzip2.pcinsn") / 1000000)); pcs_mb=$(($(stat -L -c %s "$s/bzip2.pcs") / 1000000))

echo "## Speed and scale (issue 12)"
echo
echo "\`bench/speed.sh\` on the bzip2 capture: $N instructions ($(stat -c %s "$work/bzip2.ing") bytes of native ingress, ${pcinsn_mb} MB as PC INSN text, ${pcs_mb} MB as a PC list)."
echo "Host instructions are valgrind's count for the whole process (start-up, ELF load and file reading included), divided by the traced instructions: they do not depend on the machine's load and are the numbers to compare.  Wall times are the best of 3 runs on a shared machine (load average at start: $(cut -d' ' -f1-3 /proc/loadavg)), so their speeds are lower bounds."
echo
echo "| work | host instructions per traced instruction | host instructions | wall s | M instructions/s |"
echo "|---|---|---|---|---|"
row "read native ingress" "$N" "$B/bench/bench_readers" "$ELF" "$work/bzip2.ing" 0; r_nat=$last_per
row "read PC INSN text (${pcinsn_mb} MB)" "$N" "$B/bench/bench_readers" "$ELF" "$s/bzip2.pcinsn" 0; r_pi=$last_per
row "read PC list text (${pcs_mb} MB)" "$N" "$B/bench/bench_readers" "$ELF" "$s/bzip2.pcs" 0; r_pl=$last_per
row "encode native ingress -> N-Trace HTM" "$N" "$RV" encode $HTM --elf "$ELF" --input "$work/bzip2.ing" -o "$s/e.bin"; e_nat=$last_per
row "encode PC INSN text -> N-Trace HTM" "$N" "$RV" encode $HTM --elf "$ELF" --input "$s/bzip2.pcinsn" -o "$s/e.bin"; e_pi=$last_per
row "encode PC list text -> N-Trace HTM" "$N" "$RV" encode $HTM --elf "$ELF" --input "$s/bzip2.pcs" -o "$s/e1.bin"
# --jobs 2: the text parsed on both threads, one of them also encoding (host
# instructions: both threads; the critical path is about half of that, as
# either thread takes the next chunk when free)
row "encode PC INSN text -> N-Trace HTM, --jobs 2" "$N" "$RV" encode $HTM --jobs 2 --elf "$ELF" --input "$s/bzip2.pcinsn" -o "$s/e2.bin"
cmp -s "$s/e.bin" "$s/e2.bin" || echo "**encode --jobs 2 differs from one thread**"
row "encode PC list text -> N-Trace HTM, --jobs 2" "$N" "$RV" encode $HTM --jobs 2 --elf "$ELF" --input "$s/bzip2.pcs" -o "$s/e2.bin"
cmp -s "$s/e1.bin" "$s/e2.bin" || echo "**encode --jobs 2 differs from one thread**"
# E-Trace (defaults) from the same inputs: its encoder's quiet paths (a
# quiet block; runs of plain records from text), byte-identical whatever
# the input's reader and threads (the records are the same)
row "encode native ingress -> E-Trace" "$N" "$RV" encode --format etrace --elf "$ELF" --input "$work/bzip2.ing" -o "$s/et1.bin"
row "encode PC INSN text -> E-Trace" "$N" "$RV" encode --format etrace --elf "$ELF" --input "$s/bzip2.pcinsn" -o "$s/et2.bin"
row "encode PC INSN text -> E-Trace, --jobs 2" "$N" "$RV" encode --format etrace --jobs 2 --elf "$ELF" --input "$s/bzip2.pcinsn" -o "$s/et3.bin"
cmp -s "$s/et2.bin" "$s/et3.bin" || echo "**encode --jobs 2 differs from one thread (E-Trace)**"
rm -f "$s/et1.bin" "$s/et2.bin" "$s/et3.bin"
# The nybble families (defaults) from text: their runs of plain records
for fam in dbg cdl; do
    row "encode PC INSN text -> $fam" "$N" "$RV" encode --format $fam --elf "$ELF" --input "$s/bzip2.pcinsn" -o "$s/n1.bin"
    row "encode PC INSN text -> $fam, --jobs 2" "$N" "$RV" encode --format $fam --jobs 2 --elf "$ELF" --input "$s/bzip2.pcinsn" -o "$s/n2.bin"
    cmp -s "$s/n1.bin" "$s/n2.bin" || echo "**encode --jobs 2 differs from one thread ($fam)**"
done
rm -f "$s/n1.bin" "$s/n2.bin"
row "decode N-Trace HTM -> count" "$N" "$RV" decode $HTM --elf "$ELF" "$s/htm.bin" --output count; d_htm=$last_per; c_htm=$(split_core ntrace)
row "decode E-Trace implicit return -> count" "$N" "$RV" decode --format etrace --implicit-return fixed --elf "$ELF" "$s/etir.bin" --output count; d_etir=$last_per; c_etir=$(split_core etrace)
row "decode E-Trace defaults -> count" "$N" "$RV" decode --format etrace --elf "$ELF" "$s/et.bin" --output count; d_et=$last_per; c_et=$(split_core etrace)
row "decode N-Trace BTM -> count" "$N" "$RV" decode --format ntrace --ntrace-mode btm --callstack 0 --repeat 0 --elf "$ELF" "$s/btm.bin" --output count; d_btm=$last_per; c_btm=$(split_core ntrace)
FRESH="$s/out.pcs" row "decode N-Trace HTM -> PC list, a new file" "$N" "$RV" decode $HTM --elf "$ELF" "$s/htm.bin" --output pcs -o "$s/out.pcs"; d_pcs=$last_per
row "decode N-Trace HTM -> PC list, overwriting the last one" "$N" "$RV" decode $HTM --elf "$ELF" "$s/htm.bin" --output pcs -o "$s/out.pcs"
# With --jobs 2 a PC list goes to a file in place: each batch's text at
# its offset, from the thread that formats it (docs/parallel.md).  The
# check below compares the last of these with the capture's PC list.
FRESH="$s/out.pcs" row "decode N-Trace HTM -> PC list, --jobs 2, a new file" "$N" "$RV" decode $HTM --jobs 2 --elf "$ELF" "$s/htm.bin" --output pcs -o "$s/out.pcs"
row "decode N-Trace HTM -> PC list, --jobs 2, overwriting the last one" "$N" "$RV" decode $HTM --jobs 2 --elf "$ELF" "$s/htm.bin" --output pcs -o "$s/out.pcs"
FRESH="$s/out.insn" row "decode N-Trace HTM -> instruction listing, a new file" "$N" "$RV" decode $HTM --elf "$ELF" "$s/htm.bin" --output insn -o "$s/out.insn"; d_insn=$last_per
# The same written to /dev/null: the process's own speed, without the
# kernel's cost of a new file's pages (a few hundred MB/s on a VM).
row "decode N-Trace HTM -> PC list, /dev/null" "$N" "$RV" decode $HTM --elf "$ELF" "$s/htm.bin" --output pcs -o /dev/null
row "decode N-Trace HTM -> instruction listing, /dev/null" "$N" "$RV" decode $HTM --elf "$ELF" "$s/htm.bin" --output insn -o /dev/null
row "decode N-Trace HTM -> block list, /dev/null" "$N" "$RV" decode $HTM --elf "$ELF" "$s/htm.bin" --output blocks -o /dev/null
row "decode N-Trace HTM -> JSON Lines, /dev/null" "$N" "$RV" decode $HTM --elf "$ELF" "$s/htm.bin" --output jsonl -o /dev/null
cmp -s "$s/out.pcs" "$s/bzip2.pcs" || echo "**the decoded PC list differs from the capture's**"
rm -f "$s/out.pcs" "$s/out.insn"
echo
# The kernel's own cost of writing a PC list of this size, nothing
# formatted (bench/writefloor.c): the floor under the file rows above.
echo "The floor under the PC list rows to a file: the kernel's cost of writing the same $(stat -L -c %s "$s/bzip2.pcs") bytes with nothing formatted (\`bench_writefloor\`, 1 MiB writes, space reserved ahead as rvtrace does; 5 rounds; the last way waits 5 s after removing the old file, when a VM may have given the freed memory back to its host):"
echo
"$B/bench/bench_writefloor" "$s/floor.txt" "$(stat -L -c %s "$s/bzip2.pcs")" 5 5 | sed 's/^/- /'
echo
echo "Text reading in MB of text per second (wall): PC INSN $(printf '%.0f' "$(echo "$pcinsn_mb / $(best3 "$B/bench/bench_readers" "$ELF" "$s/bzip2.pcinsn" 0)" | bc -l)"), PC list $(printf '%.0f' "$(echo "$pcs_mb / $(best3 "$B/bench/bench_readers" "$ELF" "$s/bzip2.pcs" 0)" | bc -l)")."
echo
echo "Where a counting decode's host instructions go (self cost by source folder, same runs): N-Trace HTM ${c_htm% *}% shared core (src/flow, src/image, src/analysis), ${c_htm#* }% src/ntrace; E-Trace implicit return ${c_etir% *}% core, ${c_etir#* }% src/etrace; E-Trace defaults ${c_et% *}% core, ${c_et#* }% src/etrace; N-Trace BTM ${c_btm% *}% core, ${c_btm#* }% src/ntrace (the rest: start-up, ELF loading, libc)."

# ---- decode --jobs 2 (issue 12 item 4) -------------------------------------------------------------
# A run of more than 100 M instructions: the capture's trace with periodic
# sync points (N-Trace --sync-msgs 4096; E-Trace's defaults have them)
# repeated 20 times, each copy starting at a sync point.  Wall: --jobs 1 and
# --jobs 2 alternating (so both see the same load), JOBS_RUNS times each,
# output to /dev/null; the median and the best of each and their ratios.
# Host instructions (callgrind --separate-threads, --fair-sched so that
# valgrind's one-at-a-time scheduling shares the CPU between the threads)
# for count on 7 copies: the serial decode divided by the busier thread.
JOBS_RUNS=${JOBS_RUNS:-11}
"$RV" encode $HTM --sync-msgs 4096 --elf "$ELF" --input "$work/bzip2.ing" -o "$s/htmsync.bin"
for i in $(seq 20); do cat "$s/htmsync.bin"; done > "$s/htm20.bin"
for i in $(seq 20); do cat "$s/et.bin"; done > "$s/et20.bin"
for i in $(seq 7); do cat "$s/htmsync.bin"; done > "$s/htm7.bin"
for i in $(seq 7); do cat "$s/et.bin"; done > "$s/et7.bin"
CORES=$B/bench/bench_cores
alternate() { # kind trace options...: "median1 median2 best1 best2 control good good1 good2 trip far"
    # Each round: --jobs 1, --jobs 2, then bench_cores 1 and 2 (perfectly
    # parallel work: the speed-up the machine gives right then) and the
    # round trip of a cache line between the two cores.  control: the
    # median of its ratios; good: the rounds where it was >= 1.8, and the
    # medians of the decodes in those rounds (- when none); trip: the
    # median round trip (ns); far: the rounds where it was over 200 ns.
    local kind=$1 trace=$2; shift 2
    local a=() b=() c=() rt=() r j t0 t1
    for r in $(seq "$JOBS_RUNS"); do
        for j in 1 2; do
            t0=$(date +%s%N)
            "$RV" decode "$@" --elf "$ELF" "$trace" --output "$kind" --jobs $j >/dev/null 2>"$s/err" ||
                { cat "$s/err" >&2; return 1; }
            t1=$(date +%s%N)
            if [ $j = 1 ]; then a+=($(( (t1 - t0) / 1000 ))); else b+=($(( (t1 - t0) / 1000 ))); fi
        done
        c+=("$(echo "$("$CORES" 1) / $("$CORES" 2)" | bc -l)")
        # (not beside a process that spins on a core: each trip would wait for it)
        if [ -z "${NO_TRIP:-}" ]; then rt+=("$("$CORES" --round-trip)"); else rt+=(0); fi
    done
    python3 -c 'import statistics as st, sys
n = (len(sys.argv) - 1) // 4
a = [int(x) / 1e6 for x in sys.argv[1:1 + n]]; b = [int(x) / 1e6 for x in sys.argv[1 + n:1 + 2 * n]]
c = [float(x) for x in sys.argv[1 + 2 * n:1 + 3 * n]]; rt = [float(x) for x in sys.argv[1 + 3 * n:]]
g = [i for i in range(n) if c[i] >= 1.8]
print(st.median(a), st.median(b), min(a), min(b), st.median(c), len(g),
      st.median([a[i] for i in g]) if g else "-", st.median([b[i] for i in g]) if g else "-",
      "%.0f" % st.median(rt), sum(1 for x in rt if x > 200))' "${a[@]}" "${b[@]}" "${c[@]}" "${rt[@]}"
}
threads_ir() { # command...: host instructions of each thread, the largest first
    rm -f "$s"/cgt.out*
    valgrind --tool=callgrind --separate-threads=yes --fair-sched=yes --callgrind-out-file="$s/cgt.out" "$@" \
        >/dev/null 2>"$s/cg.err" || { cat "$s/cg.err" >&2; return 1; }
    for f in "$s"/cgt.out*; do sed -n 's/^summary: *//p; s/^totals: *//p' "$f" | head -1; done | sort -n -r | tr '\n' ' '
}
same_text() { # kind trace options...: the output of --jobs 2 is the serial one (the one-copy trace)
    local kind=$1 trace=$2; shift 2
    [ "$("$RV" decode "$@" --elf "$ELF" "$trace" --output "$kind" 2>"$s/err1" | cksum)" = \
      "$("$RV" decode "$@" --elf "$ELF" "$trace" --output "$kind" --jobs 2 2>"$s/err2" | cksum)" ] &&
        cmp -s "$s/err1" "$s/err2" ||
        echo "**decode --jobs 2 --output $kind of $(basename "$trace") differs from the serial decode**"
}
echo
echo "### decode --jobs 2 on a run of more than 100 M instructions (issue 12 item 4)"
echo
echo "The capture's trace repeated 20 times ($((20 * N)) instructions), each copy starting at a sync point: N-Trace HTM with \`--sync-msgs 4096\` ($(stat -c %s "$s/htm20.bin") bytes), E-Trace with its defaults ($(stat -c %s "$s/et20.bin") bytes).  Wall: \`--jobs 1\` and \`--jobs 2\` alternating, $JOBS_RUNS runs each, output to /dev/null (load average at start: $(cut -d' ' -f1-3 /proc/loadavg)); the text is checked equal to the serial decode's on one copy.  A count of 20 copies takes about 0.15 s, in which a process's start and the first touch of the trace's pages weigh: \`count\` is also measured on 100 copies ($((100 * N)) instructions)."
echo
echo "This VM's second core comes and goes: a perfectly parallel control (\`bench_cores\`: independent arithmetic loops, nothing shared) run in every round gets anywhere from 1.0× to 1.9× from two threads.  So each row also gives the control's median ratio over the same rounds, and the decodes' medians over the rounds in which the control got at least 1.8× (the machine had two cores then).  And the two cores are not always equally close: the round trip of a cache line between them (\`bench_cores --round-trip\`, also run in every round) was 55-90 ns or 340-380 ns on the AMD VM, changing by itself every few minutes, and 115-210 ns on the Intel VM; the last column gives its median and in how many rounds it was over 200 ns."
echo
echo "| trace | output | \`--jobs 1\` median s | \`--jobs 2\` median s | ratio of medians | best s, 1 / 2 | ratio of bests | control's median ratio | rounds with two cores | ratio of medians in them | round trip ns (rounds over 200) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
# A count of 20 copies takes about 0.15 s, so the start of a process and
# the first touch of the trace's pages weigh in its ratio: a count of 100
# copies (1.6 G instructions) too.
for i in $(seq 5); do cat "$s/htm20.bin"; done > "$s/htm100.bin"
for i in $(seq 5); do cat "$s/et20.bin"; done > "$s/et100.bin"
for fam in ntrace etrace; do
    if [ $fam = ntrace ]; then T=$s/htm20.bin; T1=$s/htmsync.bin; O=$HTM; L="N-Trace HTM"; else T=$s/et20.bin; T1=$s/et.bin; O="--format etrace"; L="E-Trace"; fi
    for kind in count count100 pcs insn; do
        k=$kind t=$T l=$L
        if [ $kind = count100 ]; then k=count t=${T%20.bin}100.bin l="$L, 100 copies"; fi
        [ $kind = count100 ] || same_text $k "$T1" $O # (the one-copy check: count's is done)
        read -r m1 m2 b1 b2 cr good g1 g2 trip far < <(alternate $k "$t" $O)
        if [ "$good" = 0 ]; then gr="-"; else gr=$(printf '**%.2f×**' "$(echo "$g1 / $g2" | bc -l)"); fi
        printf '| %s | %s | %.3f | %.3f | %.2f× | %.3f / %.3f | %.2f× | %.2f× | %s of %s | %s | %s (%s) |\n' "$l" $k "$m1" "$m2" \
            "$(echo "$m1 / $m2" | bc -l)" "$b1" "$b2" "$(echo "$b1 / $b2" | bc -l)" "$cr" "$good" "$JOBS_RUNS" "$gr" "$trip" "$far"
    done
done
rm -f "$s/htm100.bin" "$s/et100.bin"
# A busy machine: another process spins on one core (pinned there with
# taskset) while the decodes run; --jobs 2 should not lose to --jobs 1.
if command -v taskset >/dev/null && taskset -c 1 true 2>/dev/null; then
    taskset -c 1 sh -c 'while :; do :; done' &
    hog=$!
    for kind in pcs insn; do
        read -r m1 m2 b1 b2 cr good g1 g2 trip far < <(NO_TRIP=1 alternate $kind "$s/htm20.bin" $HTM)
        printf '| N-Trace HTM, another process busy on core 1 | %s | %.3f | %.3f | %.2f× | %.3f / %.3f | %.2f× | %.2f× | %s of %s | - | - |\n' \
            $kind "$m1" "$m2" "$(echo "$m1 / $m2" | bc -l)" "$b1" "$b2" "$(echo "$b1 / $b2" | bc -l)" "$cr" "$good" "$JOBS_RUNS"
    done
    kill $hog
    wait $hog 2>/dev/null || true
fi
# Whether a worker evicts the lines of a batch it read: the library
# measures it (src/parallel/evict.h); beside it the two fixed choices, in
# the same rounds, the order rotated.
echo
echo "Whether a worker evicts the cache lines of the batches it read (src/parallel/evict.h): the library measures it in probes (\`--jobs 2\` as it is), beside the two fixed choices (\`RVT_JOBS_EVICT=always\` / \`never\`), N-Trace HTM, 20 copies, $JOBS_RUNS rounds, the order rotated, medians in s; and what the policy did (\`RVT_JOBS_STATS=1\`):"
echo
echo "| output | \`--jobs 1\` | \`--jobs 2\` | \`always\` | \`never\` | ratio: measured / always / never | batches evicted by the policy | probes won by evicting |"
echo "|---|---|---|---|---|---|---|---|"
for kind in pcs insn; do
    python3 - "$JOBS_RUNS" "$RV" "$ELF" "$s/htm20.bin" "$kind" $HTM <<'PY'
import statistics as st, subprocess, sys, time, os, re
runs, rv, elf, trace, kind, opts = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6:]
variants = [("1", None), ("2", None), ("2", "always"), ("2", "never")]
t = {i: [] for i in range(len(variants))}
for r in range(runs):
    for k in range(len(variants)):
        i = (k + r) % len(variants)
        j, rule = variants[i]
        env = dict(os.environ)
        if rule:
            env["RVT_JOBS_EVICT"] = rule
        t0 = time.monotonic()
        subprocess.run([rv, "decode", *opts, "--elf", elf, trace, "--output", kind, "--jobs", j],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=True)
        t[i].append(time.monotonic() - t0)
env = dict(os.environ, RVT_JOBS_STATS="1")
err = subprocess.run([rv, "decode", *opts, "--elf", elf, trace, "--output", kind, "--jobs", "2"],
                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True).stderr
m = re.search(r"(\d+) batches, (\d+) evicted, (\d+) probes, (\d+) won", err)
b, e, p, w = (m.groups() if m else ("?",) * 4)
med = [st.median(t[i]) for i in range(len(variants))]
print("| %s | %.3f | %.3f | %.3f | %.3f | %.2f× / %.2f× / %.2f× | %s of %s | %s of %s |" % (
    kind, med[0], med[1], med[2], med[3], med[0] / med[1], med[0] / med[2], med[0] / med[3], e, b, w, p))
PY
done
# Small decodes: --jobs 2 should not lose to --jobs 1 there either (the
# workers of a PC list or listing start at the 16th batch, and only when
# 8 M instructions are left: pardecode.c, LAZY_BATCHES, MIN_LEFT_INSNS).
# The first 250,000, 1 M and 4 M instructions of the capture
# (--max-instructions) and the whole capture, alternating, medians in ms;
# and on the whole capture a profile and JSON Lines (serial whatever
# --jobs says: docs/parallel.md).
echo
echo "Small decodes (N-Trace HTM, \`--sync-msgs 4096\`, one copy; 15 alternating rounds, medians, ms):"
echo
echo "| decode | output | \`--jobs 1\` | \`--jobs 2\` | ratio |"
echo "|---|---|---|---|---|"
for lim in 250000 1000000 4000000 0; do
    kinds="pcs insn"; [ $lim = 0 ] && kinds="pcs insn profile jsonl"
    for kind in $kinds; do
        one=() two=()
        extra=(); [ $lim = 0 ] || extra=(--max-instructions "$lim")
        for r in $(seq 15); do
            for j in 1 2; do
                t0=$(date +%s%N)
                # (a decode cut at its limit exits 1: its output is a part)
                rc=0
                "$RV" decode $HTM --elf "$ELF" "$s/htmsync.bin" "${extra[@]}" --output $kind --jobs $j >/dev/null 2>&1 || rc=$?
                if [ $rc != 0 ] && { [ $rc != 1 ] || [ $lim = 0 ]; }; then
                    echo "decode --output $kind --jobs $j failed ($rc)" >&2
                    exit 1
                fi
                t1=$(date +%s%N)
                if [ $j = 1 ]; then one+=($(( (t1 - t0) / 1000 ))); else two+=($(( (t1 - t0) / 1000 ))); fi
            done
        done
        read -r m1 m2 < <(python3 -c 'import statistics as st, sys
n = (len(sys.argv) - 1) // 2
print(st.median(int(x) for x in sys.argv[1:1 + n]) / 1e3, st.median(int(x) for x in sys.argv[1 + n:]) / 1e3)' "${one[@]}" "${two[@]}")
        l="the first $lim instructions"; [ $lim = 0 ] && l="the whole capture ($N instructions)"
        printf '| %s | %s | %.1f | %.1f | %.2f× |\n' "$l" $kind "$m1" "$m2" "$(echo "$m1 / $m2" | bc -l)"
    done
done
# More threads than cores: `decode --jobs N` runs at most one thread per
# core the process may use; RVT_JOBS_OVERSUBSCRIBE=1 runs N (as before).
over=$((2 * $(nproc)))
echo
echo "More threads than cores ($(nproc) here): \`--jobs $over\` runs $(nproc) threads; with \`RVT_JOBS_OVERSUBSCRIBE=1\` it runs $over, as it did before (N-Trace HTM, 20 copies, medians of 5 alternating rounds, s):"
echo
echo "| output | \`--jobs 1\` | \`--jobs $(nproc)\` | \`--jobs $over\` | \`--jobs $over\`, $over threads | $over threads ÷ $(nproc) |"
echo "|---|---|---|---|---|---|"
for kind in pcs insn; do
    o1=() o2=() o3=() o4=()
    for r in 1 2 3 4 5; do
        for v in 1 2 3 4; do
            case $v in 1) j=1 ;; 2) j=$(nproc) ;; *) j=$over ;; esac
            t0=$(date +%s%N)
            if [ $v = 4 ]; then
                RVT_JOBS_OVERSUBSCRIBE=1 "$RV" decode $HTM --elf "$ELF" "$s/htm20.bin" --output $kind --jobs $j >/dev/null 2>&1
            else
                "$RV" decode $HTM --elf "$ELF" "$s/htm20.bin" --output $kind --jobs $j >/dev/null 2>&1
            fi
            t1=$(date +%s%N)
            eval "o$v+=($(( (t1 - t0) / 1000 )))"
        done
    done
    python3 -c 'import statistics as st, sys
v = [int(x) / 1e6 for x in sys.argv[2:]]; m = [st.median(v[i * 5:i * 5 + 5]) for i in range(4)]
print("| %s | %.3f | %.3f | %.3f | %.3f | %.2f× |" % (sys.argv[1], m[0], m[1], m[2], m[3], m[3] / m[1]))' $kind "${o1[@]}" "${o2[@]}" "${o3[@]}" "${o4[@]}"
done
echo
echo "Host instructions of a count (7 copies, $((7 * N)) instructions; callgrind, whole process): the serial decode, and each thread of \`--jobs 2\`:"
echo
echo "| trace | serial | \`--jobs 2\`, each thread | serial ÷ the busier thread |"
echo "|---|---|---|---|"
# pick_family FAMILY COPIES: T the trace of COPIES copies, O its decode options, L its name
pick_family() {
    if [ "$1" = ntrace ]; then T=$s/htm$2.bin; O=$HTM; L="N-Trace HTM"; else T=$s/et$2.bin; O="--format etrace"; L="E-Trace"; fi
}
for fam in ntrace etrace; do
    pick_family $fam 7
    one=$(ir "$RV" decode $O --elf "$ELF" "$T" --output count)
    two=$(threads_ir "$RV" decode $O --elf "$ELF" "$T" --output count --jobs 2)
    ratio=$(printf '%.2f' "$(echo "$one / ${two%% *}" | bc -l)")
    printf '| %s | %s | %s | **%s×** |\n' "$L" "$one" "$two" "$ratio"
    if [ $fam = ntrace ]; then j_nt=$ratio; else j_et=$ratio; fi
done
# pcs and insn: at --jobs 2 the decode stays on the calling thread and the
# text is made in batches by whichever thread is free (the worker, or the
# calling thread when the ring of batches is full: format_batch), so the
# split between the threads under valgrind (which runs one at a time) says
# how valgrind scheduled them, not what two cores do.  What does not
# depend on the schedule: the calling thread's own work M (its total less
# the batches it formatted), the formatting F (format_batch on every
# thread), the workers' other work O (their total less F and their
# watching for work, spin_for_work).  Two cores finish no sooner than
# max(M, (M + F + O) / 2): the speed-up that host instructions allow.
incl() { # callgrind file, function: its inclusive cost (0 if it never ran)
    callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null |
        awk -v fn="$2" '!found && $0 ~ ":" fn " " { v = $1; gsub(",", "", v); found = 1 } END { print found ? v : 0 }'
}
for i in 1 2; do cat "$s/htmsync.bin"; done > "$s/htm2.bin"
for i in 1 2; do cat "$s/et.bin"; done > "$s/et2.bin"
echo
echo "Host instructions of \`pcs\` and \`insn\` (2 copies, $((2 * N)) instructions; callgrind): the serial decode; at \`--jobs 2\` the calling thread's own work M (the decode, filling the batches, writing the text), the formatting F (batches, on either thread), the worker's other work O; two cores take at least max(M, (M + F + O) / 2):"
echo
echo "| trace | output | serial | M | F | O | serial ÷ max(M, (M + F + O) / 2) |"
echo "|---|---|---|---|---|---|---|"
for fam in ntrace etrace; do
    pick_family $fam 2
    for kind in pcs insn; do
        one=$(ir "$RV" decode $O --elf "$ELF" "$T" --output $kind)
        rm -f "$s"/cgt.out*
        valgrind --tool=callgrind --separate-threads=yes --fair-sched=yes --callgrind-out-file="$s/cgt.out" \
            "$RV" decode $O --elf "$ELF" "$T" --output $kind --jobs 2 >/dev/null 2>"$s/cg.err" || { cat "$s/cg.err" >&2; exit 1; }
        M=0 F=0 Ow=0
        for f in "$s"/cgt.out-*; do
            tot=$(sed -n 's/^summary: *//p; s/^totals: *//p' "$f" | head -1)
            fb=$(incl "$f" format_batch)
            F=$((F + fb))
            case $f in
            *-01) M=$((tot - fb)) ;; # the calling thread
            *) Ow=$((Ow + tot - fb - $(incl "$f" spin_for_work))) ;;
            esac
        done
        printf '| %s | %s | %s | %s | %s | %s | **%.2f×** |\n' "$L" $kind "$one" "$M" "$F" "$Ow" \
            "$(python3 -c "import sys; s, m, f, o = map(int, sys.argv[1:]); print(s / max(m, (m + f + o) / 2))" "$one" "$M" "$F" "$Ow")"
    done
done
rm -f "$s/htm20.bin" "$s/et20.bin" "$s/htm7.bin" "$s/et7.bin" "$s/htm2.bin" "$s/et2.bin" "$s"/cgt.out*

# ---- flat memory ---------------------------------------------------------------------------------
BTM="--format ntrace --ntrace-mode btm --callstack 0 --repeat 0"
copies_for() { echo $(( ($1 + $(stat -c %s "$s/btm.bin") - 1) / $(stat -c %s "$s/btm.bin") )); }
k100=$(copies_for 100000000); k1g=$(copies_for 1000000000)
for i in $(seq "$k100"); do cat "$s/btm.bin"; done > "$s/btm100m.bin"
for i in $(seq $((k1g / k100 + 1))); do cat "$s/btm100m.bin"; done > "$s/btm1g.bin"
k1g=$(( (k1g / k100 + 1) * k100 ))
mem() { # trace copies -> table row
    /usr/bin/time -f '%M %e' -o "$s/time" "$RV" decode $BTM --elf "$ELF" "$1" --output count > "$s/cnt"
    read -r m w < "$s/time"
    local n; n=$(sed -n 's/^instructions //p' "$s/cnt")
    [ "$n" = $(($2 * N)) ] || echo "**$1: $n instructions, expected $(($2 * N))**"
    printf '| %s | %s | %s | %s | %s |\n' "$(stat -c %s "$1")" "$2" "$n" "$m" "$w"
    last_rss=$m
}
echo
echo "### Decode memory against trace size"
echo
echo "The capture's N-Trace BTM trace ($(stat -c %s "$s/btm.bin") bytes) repeated; each copy starts with its sync message.  \`rvtrace decode --format ntrace --ntrace-mode btm --output count\`, peak RSS from GNU time."
echo
echo "| trace bytes | copies | instructions decoded | peak RSS KiB | wall s |"
echo "|---|---|---|---|---|"
mem "$s/btm.bin" 1; rss1=$last_rss
mem "$s/btm100m.bin" "$k100"; rss100=$last_rss
mem "$s/btm1g.bin" "$k1g"; rss1g=$last_rss
rm -f "$s/btm100m.bin" "$s/btm1g.bin"

# ---- the reference tool --------------------------------------------------------------------------
if [ -n "${NEXRV:-}" ]; then
    [ -x "$NEXRV" ] || { echo "bench/speed.sh: NEXRV=$NEXRV is not executable" >&2; exit 1; }
    # The bundled capture (tests/data/real): a whole run, which the
    # reference tool decodes (a prefix of a run it does not).
    xz -dc tests/data/real/bzip2.xz > "$s/rbzip2"
    xz -dc tests/data/real/bzip2-9.ing.xz > "$s/r.ing"
    RE=$s/rbzip2
    P=$("$RV" check --elf "$RE" --input "$s/r.ing" | sed -n 's/.* records, \([0-9]*\) instructions.*/\1/p')
    "$RV" convert --elf "$RE" --input "$s/r.ing" --to pclist -o "$s/p.pcs"
    "$RV" convert --elf "$RE" --input "$s/r.ing" --to pcinsn -o "$s/p.pcinsn"
    riscv64-linux-gnu-objdump -d "$RE" > "$s/objd.txt"
    "$NEXRV" -conv -objd "$s/objd.txt" -pcinfo "$s/pcinfo.txt" >/dev/null
    "$NEXRV" -conv -pcinfo "$s/pcinfo.txt" -pconly "$s/p.pcs" -pcseq "$s/p.pcseq" >/dev/null
    # Without a call stack: the reference decoder fails on its own traces of
    # this run made with one (-cs 8: "ICNT too small").
    RH="--format ntrace --ntrace-mode htm --callstack 0 --repeat 2"
    "$NEXRV" -enco "$s/p.pcseq" -nex "$s/ref.nex" -rpt 2 -none >/dev/null
    "$RV" encode $RH --elf "$RE" --input "$s/p.pcinsn" -o "$s/ours.nex"
    echo
    echo "### Beside the N-Trace reference tool"
    echo
    echo "The bundled capture (tests/data/real: bzip2 -9 of 2 KB, $P instructions) as a PC list; N-Trace HTM with repeated history and no call stack (\`NexRv -rpt 2\`, \`--callstack 0 --repeat 2\`: the reference decoder fails on its own traces of this run made with a call stack), each tool decoding its own trace ($(stat -c %s "$s/ref.nex") and $(stat -c %s "$s/ours.nex") bytes; they differ where the reference treats ecall as an uninferable call).  Host instructions per traced instruction for the whole process, measured in this run."
    echo
    echo "| work | reference tool | rvtrace | ratio rvtrace / reference |"
    echo "|---|---|---|---|"
    ref() { local h; h=$(ir "$@") && per "$h" "$P"; }
    rc=$(ref "$NEXRV" -conv -pcinfo "$s/pcinfo.txt" -pconly "$s/p.pcs" -pcseq "$s/x.pcseq")
    re=$(ref "$NEXRV" -enco "$s/p.pcseq" -nex "$s/x.nex" -rpt 2 -none)
    ours_e=$(ref "$RV" encode $RH --elf "$RE" --input "$s/p.pcinsn" -o "$s/x.nex")
    ours_el=$(ref "$RV" encode $RH --elf "$RE" --input "$s/p.pcs" -o "$s/x.nex")
    rd=$(ref "$NEXRV" -deco "$s/ref.nex" -pcinfo "$s/pcinfo.txt" -pcout "$s/ref.pcout" -none)
    ours_d=$(ref "$RV" decode $RH --elf "$RE" "$s/ours.nex" --output pcs -o "$s/x.pcs")
    ours_c=$(ref "$RV" decode $RH --elf "$RE" "$s/ours.nex" --output count)
    ratio() { printf '%.3f' "$(echo "$1 / $2" | bc -l)"; }
    conv_enc=$(echo "$rc + $re" | bc -l)
    echo "| encode from PC+instruction text (reference: its pcseq text) | $re | $ours_e | $(ratio "$ours_e" "$re") |"
    echo "| encode from a PC list (reference: its PC-list conversion + encode) | $conv_enc | $ours_el | $(ratio "$ours_el" "$conv_enc") |"
    echo "| decode -> PC text | $rd | $ours_d | $(ratio "$ours_d" "$rd") |"
    echo "| decode -> count | - | $ours_c | - |"
else
    echo
    echo "(The N-Trace reference tool was not run: give NEXRV=/path/to/NexRv.exe, built from riscv-non-isa/tg-nexus-trace refcode/c with its makefile, outside this tree.)"
fi

# ---- a run of more than 100 M instructions -------------------------------------------------------
if [ "${RVT_BENCH_BIG:-0}" = 1 ]; then
    [ -f "$s/big.ing" ] || {
        bash tests/programs/gen-text.sh 250000 > "$s/big.txt"
        "$RV" capture -q -o "$s/big.ing" --stdout "$s/big.bz2" -- "$ELF" -9 -c "$s/big.txt"
    }
    NB=$("$RV" check --elf "$ELF" --input "$s/big.ing" | sed -n 's/.* records, \([0-9]*\) instructions.*/\1/p')
    "$RV" encode $HTM --elf "$ELF" --input "$s/big.ing" -o "$s/bightm.bin"
    "$RV" encode --format etrace --implicit-return fixed --elf "$ELF" --input "$s/big.ing" -o "$s/bigetir.bin"
    echo
    echo "### bzip2 -9 of a 250 KB text: $NB instructions"
    echo
    echo "| work | host instructions per traced instruction | host instructions | wall s | M instructions/s |"
    echo "|---|---|---|---|---|"
    row "encode native ingress -> N-Trace HTM" "$NB" "$RV" encode $HTM --elf "$ELF" --input "$s/big.ing" -o "$s/e.bin"
    row "decode N-Trace HTM -> count" "$NB" "$RV" decode $HTM --elf "$ELF" "$s/bightm.bin" --output count
    row "decode E-Trace implicit return -> count" "$NB" "$RV" decode --format etrace --implicit-return fixed --elf "$ELF" "$s/bigetir.bin" --output count
    row "decode N-Trace HTM -> PC list file" "$NB" "$RV" decode $HTM --elf "$ELF" "$s/bightm.bin" --output pcs -o "$s/out.pcs"
    rm -f "$s/out.pcs"
fi

# ---- history ---------------------------------------------------------------------------------------
h=$top/bench/HISTORY.md
if [ ! -f "$h" ]; then
    {
        echo "# Benchmark history"
        echo
        echo "One row per \`bench/speed.sh\` run: host instructions per traced instruction on the bzip2 capture (callgrind, load-independent: compare these across commits), and the peak RSS of decoding a 1 GB trace."
        echo
        echo "| date | commit | instructions | read native | read PC INSN | read PC list | encode native | encode PC INSN | decode HTM count | decode E-Trace IR count | decode E-Trace count | decode BTM count | decode HTM pcs | decode HTM insn | 1 GB decode peak RSS KiB | count --jobs 2 speed-up in host instructions, N-Trace / E-Trace |"
        echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    } > "$h"
fi
echo "| $(date -u +%Y-%m-%d) | $rev | $N | $r_nat | $r_pi | $r_pl | $e_nat | $e_pi | $d_htm | $d_etir | $d_et | $d_btm | $d_pcs | $d_insn | $rss1g | $j_nt / $j_et |" >> "$h"
echo
echo "(A row was added to bench/HISTORY.md; peak RSS: one copy $rss1 KiB, 100 MB $rss100 KiB, 1 GB $rss1g KiB.)"
