#!/usr/bin/env bash
# The whole test suite, as CI runs it (Debian 12, as root):
#   1. install what is missing (scripts/deps.sh);
#   2. build with gcc (-Werror) and run every test (unit, golden vectors,
#      round trips, real QEMU captures, CLI, fuzz replays);
#   3. build with clang (-Werror) under AddressSanitizer+UndefinedBehavior-
#      Sanitizer and run the suite again;
#   4. run every fuzz target under libFuzzer for a short time (two at once
#      on two cores);
#   5. check the install (scripts/install-test.sh: pkg-config, shared and
#      static, DESTDIR, a moved prefix, the man pages).
# Every phase shows its progress (each test as it finishes) and its time;
# the end is "N passed, N failed" over all of it.  ~15 minutes on a quiet
# 2-core machine.
set -uo pipefail
cd "$(dirname "$0")/.."
top=$PWD
jobs=${RVT_JOBS:-$(nproc)}
fuzz_seconds=${RVT_FUZZ_SECONDS:-15}
bash scripts/deps.sh || exit 1
# The real programs the capture tests cross-build from Debian sources: built
# once for both test builds.
export RVT_REAL_CACHE=${RVT_REAL_CACHE:-$top/build/real-programs}

passed=0; failed=0
record() { # name, status
    if [ "$2" -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "*** $1 FAILED" >&2; fi
}
t0=$SECONDS
phase_start=$SECONDS
phase_end() { # label
    printf '== %s: %d s (%d s in all)\n' "$1" $((SECONDS - phase_start)) $((SECONDS - t0))
    phase_start=$SECONDS
}
# A build, showing each target as it is built and every warning or error.
build() { # build dir
    cmake --build "$1" -j"$jobs" 2>&1 | grep --line-buffered -E 'Built target|error|warning|Error'
    return "${PIPESTATUS[0]}"
}
# Counts come from ctest's own summary ("N% tests passed, F tests failed out of T");
# ctest's exit status is the final word on a failure.  Each test's line is
# shown as it finishes.
run_ctest() { # build dir, label
    local log="$1/ctest.log"
    (cd "$1" && ctest -j"$jobs" --output-on-failure --timeout 1500 2>&1) | tee "$log" |
        grep --line-buffered -E '^ *[0-9]+/[0-9]+ Test|tests passed|\*\*\*|FAIL'
    local st=${PIPESTATUS[0]}
    local line total f
    line=$(grep -E 'tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -1)
    total=$(sed -E 's/.*out of ([0-9]+).*/\1/' <<<"$line")
    f=$(sed -E 's/.* ([0-9]+) tests? failed.*/\1/' <<<"$line")
    if [ -z "$line" ]; then
        failed=$((failed + 1)); echo "*** $2: ctest printed no summary (exit $st)" >&2; return
    fi
    passed=$((passed + total - f)); failed=$((failed + f))
    if [ "$st" -ne 0 ] && [ "$f" -eq 0 ]; then
        failed=$((failed + 1)); echo "*** $2: ctest failed (exit $st)" >&2
    fi
}

echo "== gcc build (-Werror)"
cmake -S . -B build/gcc -DCMAKE_C_COMPILER=gcc -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null && build build/gcc
st=$?
record "gcc build" "$st"
phase_end "gcc build"
[ "$st" -eq 0 ] && run_ctest build/gcc gcc
phase_end "gcc tests"

echo "== clang build with ASan+UBSan (-Werror)"
cmake -S . -B build/asan -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug -DRVT_SANITIZE=ON >/dev/null && build build/asan
st=$?
record "clang+sanitizer build" "$st"
phase_end "clang+sanitizer build"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
[ "$st" -eq 0 ] && run_ctest build/asan asan
unset ASAN_OPTIONS UBSAN_OPTIONS
phase_end "sanitizer tests"

echo "== libFuzzer (${fuzz_seconds}s per target, $jobs at a time)"
cmake -S . -B build/fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRVT_FUZZ=ON \
    -DRVT_BUILD_TESTS=OFF -DRVT_BUILD_QEMU_PLUGIN=OFF >/dev/null && build build/fuzz
st=$?
record "fuzz build" "$st"
phase_end "fuzz build"
fuzz_one() { # target: runs it, prints one line, exit status = the fuzzer's
    local t=$1 n st execs
    n=$(basename "$t")
    mkdir -p "build/fuzz/corpus-$n"
    RVT_TEST_DATA=$top/tests/data "$t" -max_total_time="$fuzz_seconds" -print_final_stats=1 \
        "build/fuzz/corpus-$n" "fuzz/corpus/$n" >"build/fuzz/$n.log" 2>&1
    st=$?
    execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "build/fuzz/$n.log" | grep -oE '[0-9]+$')
    echo "$n: ${execs:-?} executions, exit $st"
    [ "$st" -eq 0 ] || tail -30 "build/fuzz/$n.log" >&2
    echo "$st" >"build/fuzz/$n.status"
}
if [ "$st" -eq 0 ]; then
    # $jobs targets at a time: each still gets its full time on a core.
    rm -f build/fuzz/*.status
    for t in build/fuzz/fuzz/fuzz_*; do
        [ -x "$t" ] || continue
        while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
        fuzz_one "$t" &
    done
    wait
    for t in build/fuzz/fuzz/fuzz_*; do
        [ -x "$t" ] || continue
        n=$(basename "$t")
        record "$n" "$(cat "build/fuzz/$n.status" 2>/dev/null || echo 1)"
    done
fi
phase_end "libFuzzer"

echo "== install"
bash scripts/install-test.sh build/gcc
record "install" $?
phase_end "install"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
