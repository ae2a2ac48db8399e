#!/usr/bin/env bash
# The whole test suite, as CI runs it (Debian 12, as root):
#   1. install what is missing (scripts/deps.sh);
#   2. build with gcc (-Werror) and run every test (unit, golden vectors,
#      round trips, real QEMU captures, CLI, fuzz replays);
#   3. build with clang (-Werror) under AddressSanitizer+UndefinedBehavior-
#      Sanitizer and run the suite again;
#   4. run every fuzz target under libFuzzer for a short time;
#   5. check `cmake --install` (library, headers, pkg-config, tool).
# Ends with "N passed, N failed" over all of it.
set -uo pipefail
cd "$(dirname "$0")/.."
top=$PWD
jobs=${RVT_JOBS:-$(nproc)}
fuzz_seconds=${RVT_FUZZ_SECONDS:-15}
bash scripts/deps.sh || exit 1

passed=0; failed=0
record() { # name, status
    if [ "$2" -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "*** $1 FAILED" >&2; fi
}
# Counts come from ctest's own summary ("N% tests passed, F tests failed out of T");
# ctest's exit status is the final word on a failure.
run_ctest() { # build dir, label
    local log="$1/ctest.log"
    (cd "$1" && ctest -j"$jobs" --output-on-failure --timeout 1500) > "$log" 2>&1
    local st=$?
    grep -E '^ *[0-9]+/[0-9]+ Test|tests passed|\*\*\*|FAIL' "$log" || true
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
cmake -S . -B build/gcc -DCMAKE_C_COMPILER=gcc -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null && \
    cmake --build build/gcc -j"$jobs" 2>&1 | grep -E 'error|warning|Error' ; st=${PIPESTATUS[0]}
record "gcc build" "$st"
[ "$st" -eq 0 ] && run_ctest build/gcc gcc

echo "== clang build with ASan+UBSan (-Werror)"
cmake -S . -B build/asan -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug -DRVT_SANITIZE=ON >/dev/null && \
    cmake --build build/asan -j"$jobs" 2>&1 | grep -E 'error|warning|Error' ; st=${PIPESTATUS[0]}
record "clang+sanitizer build" "$st"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
[ "$st" -eq 0 ] && run_ctest build/asan asan

echo "== libFuzzer (${fuzz_seconds}s per target)"
cmake -S . -B build/fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRVT_FUZZ=ON \
    -DRVT_BUILD_TESTS=OFF -DRVT_BUILD_QEMU_PLUGIN=OFF >/dev/null && \
    cmake --build build/fuzz -j"$jobs" 2>&1 | grep -E 'error|warning|Error' ; st=${PIPESTATUS[0]}
record "fuzz build" "$st"
if [ "$st" -eq 0 ]; then
    for t in build/fuzz/fuzz/fuzz_*; do
        [ -x "$t" ] || continue
        n=$(basename "$t"); work=build/fuzz/corpus-$n; mkdir -p "$work"
        RVT_TEST_DATA=$top/tests/data "$t" -max_total_time="$fuzz_seconds" -print_final_stats=1 \
            "$work" "fuzz/corpus/$n" >"build/fuzz/$n.log" 2>&1
        st=$?
        execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "build/fuzz/$n.log" | grep -oE '[0-9]+$')
        echo "$n: ${execs:-?} executions, exit $st"
        [ "$st" -eq 0 ] || tail -30 "build/fuzz/$n.log" >&2
        record "$n" "$st"
    done
fi

echo "== install"
rm -rf build/install-root
cmake --install build/gcc --prefix "$top/build/install-root" >/dev/null && \
    test -x build/install-root/bin/rvtrace && test -f build/install-root/include/rvtrace/rvtrace.h && \
    PKG_CONFIG_PATH=$top/build/install-root/lib/pkgconfig pkg-config --exists rvtrace 2>/dev/null || \
    test -f build/install-root/lib/pkgconfig/rvtrace.pc
st=$?
if [ "$st" -eq 0 ]; then
    # a program built against the installed library
    printf '#include <rvtrace/rvtrace.h>\n#include <stdio.h>\nint main(void){puts(rvt_errstr(-RVT_ERR_FORMAT));return 0;}\n' > build/install-root/t.c
    gcc -std=c11 -I build/install-root/include build/install-root/t.c -L build/install-root/lib -lrvtrace -lm -lpthread \
        -o build/install-root/t && LD_LIBRARY_PATH=$top/build/install-root/lib ./build/install-root/t >/dev/null
    st=$?
fi
record "install" "$st"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
