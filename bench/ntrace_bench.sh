#!/usr/bin/env bash
# N-Trace benchmarks on real captures (bench/RESULTS.md (section "N-Trace results") holds a run).
#
#   bench/ntrace_bench.sh [WORKDIR]
#
# Builds rvtrace (Release) and the real programs (tests/programs/
# build-real.sh; set RVT_REAL_CACHE to reuse a build), captures bzip2 -9
# compressing generated text of two sizes (the 35 KB text of bench/run.sh,
# and 3x that), both with ecall traced sequentially (rvtrace capture's
# default) and as an uninferable call (the reference tool's treatment), then
# runs bench_ntrace: for every option set bytes, messages, bits/instruction,
# encode and decode speed (counting only, and PC-list text to /dev/null),
# checked lossless; and the decoder's peak memory on both capture sizes.
# Speeds are CPU time of one thread (the machine may be shared).
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
work=${1:-$top/build/bench-work}
mkdir -p "$work"
cmake -S . -B build/bench -DCMAKE_BUILD_TYPE=Release -DRVT_BUILD_TESTS=OFF >/dev/null
cmake --build build/bench -j"$(nproc)" >/dev/null
RV=$top/build/bench/tools/rvtrace
B=$top/build/bench/bench/bench_ntrace
cache=${RVT_REAL_CACHE:-$work/real}
bzip2=$(bash tests/programs/build-real.sh --quiet --cache "$cache" | awk -F'\t' '$1=="bzip2"{print $2}')
cp "$bzip2" "$work/bzip2"
bash tests/programs/gen-text.sh 35000 >"$work/input.txt"
bash tests/programs/gen-text.sh 105000 >"$work/input3.txt"
cap() { "$RV" capture -q -o "$work/$1" --stdout "$work/out.bz2" "${@:3}" -- "$work/bzip2" -9 -c "$work/$2"; }
cap bzip2.ing input.txt
cap bzip2-u.ing input.txt --ecall uninferable
cap bzip2-3x.ing input3.txt

echo "## Machine"
echo
echo "- $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- $(gcc --version | head -1); Release build; timings are CPU time of one thread, best of 3"
echo
echo "## bzip2 -9, 35 KB of text, ecall sequential (rvtrace capture default)"
echo
"$B" "$work/bzip2" "$work/bzip2.ing" 3 2>&1
echo
echo "## bzip2 -9, 35 KB of text, ecall as an uninferable call (the reference tool's treatment)"
echo
"$B" "$work/bzip2" "$work/bzip2-u.ing" 3 --ecall uninferable \
    "ntrace-mode=htm callstack=8 repeat=2" "ntrace-mode=btm callstack=0 repeat=0" \
    "ntrace-mode=htm callstack=0 repeat=0" "ntrace-mode=htm callstack=0 repeat=2" \
    "ntrace-mode=htm callstack=8 repeat=0" "ntrace-mode=htm callstack=8 callstack-mode=count repeat=2" 2>&1
echo
echo "## Decoder memory (counting decode; peak RSS in KiB before and after it)"
echo
echo "| options | instructions | trace bytes | peak RSS before decode | peak RSS after decode | decoder added |"
echo "|---|---|---|---|---|---|"
for ing in bzip2.ing bzip2-3x.ing; do
    for o in "ntrace-mode=htm callstack=8 repeat=2" "ntrace-mode=btm callstack=0 repeat=0"; do
        "$B" --mem "$work/bzip2" "$work/$ing" "$o"
    done
done
