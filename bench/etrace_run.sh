#!/usr/bin/env bash
# E-Trace benchmarks on the real bzip2 capture used for every family
# (bench/run.sh makes it: bzip2 -9 over a 35 KB text, 16.0 M instructions),
# and on the t1 reference execution.  For each option set: bytes,
# bits/instruction, encode speed, decode speed in counting mode (best of
# three whole `rvtrace decode` runs and the decoder's own loop), and
# whether the round trip is exact.  Prints Markdown (bench/RESULTS.md, section "E-Trace benchmark results"
# holds a run of it).
#   bench/etrace_run.sh [WORKDIR]    WORKDIR holds bzip2 and bzip2.ing
#                                    (default: build/bench-work; made by
#                                    bench/run.sh's capture steps if absent)
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
work=${1:-$top/build/bench-work}
mkdir -p "$work"
# (-u: pull the family modules the registry references weakly out of the static library)
cmake -S . -B build/bench -DCMAKE_BUILD_TYPE=Release -DRVT_BUILD_TESTS=OFF -DRVT_BUILD_QEMU_PLUGIN=OFF \
    "-DCMAKE_EXE_LINKER_FLAGS=-Wl,-u,rvt_codec_etrace -Wl,-u,rvt_refcsv_open -Wl,-u,rvt_refcsv_write -Wl,-u,rvt_refcsv_write_header" \
    >/dev/null
cmake --build build/bench -j2 >/dev/null
RV=$top/build/bench/tools/rvtrace
if ! "$RV" verify --help 2>&1 | grep -q -- '--implicit-return'; then
    echo "etrace_run.sh: this rvtrace has no etrace family linked" >&2
    exit 1
fi
if [ ! -f "$work/bzip2.ing" ]; then
    bzip2=$(bash tests/programs/build-real.sh --quiet --cache "$work/real" | awk -F'\t' '$1=="bzip2"{print $2}')
    cp "$bzip2" "$work/bzip2"
    bash tests/programs/gen-text.sh 35000 > "$work/input.txt"
    "$RV" capture -q -o "$work/bzip2.ing" --stdout "$work/out.bz2" -- "$work/bzip2" -9 -c "$work/input.txt"
fi

cpu5() { # command...: CPU time (user + system) per run, over five runs, in seconds
    local f
    f=$(mktemp)
    /usr/bin/time -f '%U %S' -o "$f" sh -c 'for i in 1 2 3 4 5; do "$@" >/dev/null 2>&1; done' sh "$@"
    awk '{print ($1 + $2) / 5}' "$f"
    rm -f "$f"
}

row() { # label, elf, input, input-format, options...
    local label=$1 elf=$2 input=$3 ifmt=$4; shift 4
    local out insns bytes bits enc res t dec
    out=$("$RV" verify --format etrace --elf "$elf" --input "$input" --input-format "$ifmt" "$@" || true)
    "$RV" encode --format etrace --elf "$elf" --input "$input" --input-format "$ifmt" -o "$work/et.bin" "$@"
    insns=$(sed -n 's/^instructions *//p' <<<"$out")
    bytes=$(sed -n 's/^bytes *\([0-9]*\).*/\1/p' <<<"$out")
    bits=$(sed -n 's/^bits\/instr *//p' <<<"$out")
    enc=$(sed -n 's/^encode *\([0-9.]*\).*/\1/p' <<<"$out")
    dec=$(sed -n 's/^decode *\([0-9.]*\).*/\1/p' <<<"$out")
    res=$(sed -n 's/^result *\([A-Z]*\).*/\1/p' <<<"$out")
    t=$(cpu5 "$RV" decode --format etrace --elf "$elf" "$work/et.bin" --output count "$@")
    local rate=-
    if [ "$(echo "$t > 0.02" | bc -l)" = 1 ]; then # too short to time otherwise
        rate=$(printf '%.0f' "$(echo "$insns / $t / 1000000" | bc -l)")
    fi
    printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$label" "$insns" "$bytes" "$bits" "$enc" "$rate" \
        "$dec" "$res"
}

sets=(
    "defaults (encap, delta, resync every 1024 packets)|"
    "refraw framing|--framing refraw"
    "no periodic resync|--resync-max off"
    "full address|--full-address"
    "implicit return 2.0, 8-entry stack|--implicit-return 2.0 --return_stack_size_p 3"
    "implicit return fixed, 8-entry stack|--implicit-return fixed --return_stack_size_p 3"
    "implicit return fixed, 16-entry stack|--implicit-return fixed --return_stack_size_p 4"
    "implicit return fixed, call counter 4 bits|--implicit-return fixed --call_counter_size_p 4"
    "branch prediction, 1024 entries|--branch-prediction --bpred_size_p 10"
    "jump target cache, 64 entries|--jump-target-cache --cache_size_p 6"
    "sequentially inferable jumps|--sijump"
    "IR fixed 16 + BP 1024|--implicit-return fixed --return_stack_size_p 4 --branch-prediction --bpred_size_p 10"
    "IR fixed 16 + BP 1024 + JTC 64 + sijump|--implicit-return fixed --return_stack_size_p 4 --branch-prediction --bpred_size_p 10 --jump-target-cache --cache_size_p 6 --f0s_width_p 1 --sijump"
    "same, resync every 2^14 packets|--implicit-return fixed --return_stack_size_p 4 --branch-prediction --bpred_size_p 10 --jump-target-cache --cache_size_p 6 --f0s_width_p 1 --sijump --resync-max 10"
    "same, refraw framing, no resync|--implicit-return fixed --return_stack_size_p 4 --branch-prediction --bpred_size_p 10 --jump-target-cache --cache_size_p 6 --f0s_width_p 1 --sijump --resync-max off --framing refraw"
    "0.026 draft|--etrace-version 0.026"
)

echo "## Machine"
echo
echo "- $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- $(gcc --version | head -1); Release build"
echo
echo "## E-Trace on the bzip2 capture"
echo
echo "Decode M/s: instructions per second of CPU time (user + system) of whole \`rvtrace decode"
echo "--output count\` runs, five runs (process start, ELF load and reading the trace included;"
echo "CPU time because the machine is shared); verify M/s: the decode loop timed (wall clock) by"
echo "\`rvtrace verify\`."
echo
echo "| option set | instructions | bytes | bits/instr | encode M/s | decode M/s | verify decode M/s | round trip |"
echo "|---|---|---|---|---|---|---|---|"
for s in "${sets[@]}"; do
    # shellcheck disable=SC2086
    row "${s%%|*}" "$work/bzip2" "$work/bzip2.ing" ingress ${s#*|}
done
echo
echo "In process (\`bench_etrace_bench\`: the records read into memory first, so the times are the"
echo "encoder's and decoder's own; best of three, wall clock):"
echo
"$top/build/bench/bench/bench_etrace_bench" "$work/bzip2" "$work/bzip2.ing" 3 2>/dev/null
NT=${NTRACE_RVTRACE:-$RV} # an rvtrace with the ntrace family, if this one has none
if "$NT" verify --help --format ntrace >/dev/null 2>&1; then
    echo
    echo "N-Trace on the same capture, for comparison:"
    echo
    for o in "--ntrace-mode htm --callstack 8 --repeat 2" "--ntrace-mode htm --callstack 0 --repeat 0"; do
        # shellcheck disable=SC2086
        out=$("$NT" verify --format ntrace --elf "$work/bzip2" --input "$work/bzip2.ing" $o || true)
        echo "- ntrace $o: $(sed -n 's/^bytes *//p' <<<"$out") bytes, $(sed -n 's/^bits\/instr *//p' <<<"$out") bits/instr"
    done
fi

d=tests/data/etrace-t1
echo
echo "## E-Trace on t1 (164,959 instructions, RV32IMAC)"
echo
echo "| option set | instructions | bytes | bits/instr | encode M/s | decode M/s | verify decode M/s | round trip |"
echo "|---|---|---|---|---|---|---|---|"
row "reference model configuration (refraw, resync-max 1)" $d/../ntrace-t1/test.elf $d/t1_itype4.csv refcsv \
    --framing refraw --scf $d/default/hw.scf --ucf $d/default/encoder.ucf
for s in "${sets[@]}"; do
    # shellcheck disable=SC2086
    row "${s%%|*}" $d/../ntrace-t1/test.elf $d/t1_itype4.csv refcsv ${s#*|}
done
