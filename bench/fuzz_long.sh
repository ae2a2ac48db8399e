#!/bin/bash
# The long fuzz campaign of the decoder targets (issue 10: >= 10^7
# executions per decoder target, outside CI).
#
#   bench/fuzz_long.sh WORKDIR [RUNS] [TARGET...]
#
# Builds the libFuzzer targets with UBSan only (RVT_FUZZ_ASAN=OFF: several
# times the executions per second of the ASan build the test suite uses;
# with RVT_FUZZ_TRACE_CMP=OFF in the environment also without comparison
# tracing: 3-4 times faster again on the E-Trace targets, whose work is
# the instrumented flow walk, but libFuzzer no longer steers mutations by
# the values compared — use it to add executions to a corpus grown with it on)
# into WORKDIR/build, runs each target for RUNS executions (default 10^7)
# from a copy of its committed corpus (the repository's corpus is read,
# never written), one target at a time at low priority, and prints one
# table row per target: executions, seconds, executions/s, new corpus
# units, result.  A crash, leak or timeout stops that target: its input is
# kept in WORKDIR/TARGET/ and the row says so.  Minimise new inputs into the
# repository's corpus with
#   build/fuzz/fuzz/TARGET -merge=1 fuzz/corpus/TARGET WORKDIR/TARGET/corpus
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
work=${1:?usage: bench/fuzz_long.sh WORKDIR [RUNS] [TARGET...]}
runs=${2:-10000000}
shift $(($# >= 2 ? 2 : $#))
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_etrace_packet fuzz_cdl fuzz_dbg fuzz_ntrace fuzz_etrace_framing
    fuzz_etrace_data)
mkdir -p "$work"
work=$(cd "$work" && pwd)
cmake -S "$top" -B "$work/build" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRVT_FUZZ=ON \
    -DRVT_FUZZ_ASAN=OFF -DRVT_FUZZ_TRACE_CMP="${RVT_FUZZ_TRACE_CMP:-ON}" -DRVT_BUILD_TESTS=OFF \
    -DRVT_BUILD_QEMU_PLUGIN=OFF >/dev/null || exit 2
nice cmake --build "$work/build" -j2 >/dev/null || exit 2
echo "commit $(git -C "$top" rev-parse --short HEAD), $(date -u '+%Y-%m-%d %H:%M UTC'), $runs runs per target," \
    "-entropic=0 -max_len=4096 -timeout=20, UBSan, trace-cmp ${RVT_FUZZ_TRACE_CMP:-ON}, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| target | executions | seconds | exec/s | new units | result |"
echo "|---|---|---|---|---|---|"
fail=0
for t in "${targets[@]}"; do
    d="$work/$t"
    mkdir -p "$d/corpus"
    cp -n "$top/fuzz/corpus/$t"/* "$d/corpus/" 2>/dev/null
    before=$(ls "$d/corpus" | wc -l)
    start=$(date +%s)
    (cd "$d" && RVT_TEST_DATA="$top/tests/data" nice -n 19 "$work/build/fuzz/$t" -runs="$runs" -entropic=0 \
        -max_len=4096 -timeout=20 -print_final_stats=1 corpus >log 2>&1)
    st=$?
    secs=$(($(date +%s) - start))
    execs=$(grep -oE 'number_of_executed_units: *[0-9]+' "$d/log" | grep -oE '[0-9]+$')
    new=$(($(ls "$d/corpus" | wc -l) - before))
    res=ok
    if [ "$st" -ne 0 ]; then
        res="FAILED (exit $st: $(ls "$d" | grep -E '^(crash|leak|timeout|oom)-' | head -1))"
        fail=1
    fi
    echo "| $t | ${execs:-?} | $secs | $((${execs:-0} / (secs > 0 ? secs : 1))) | $new | $res |"
done
exit $fail
