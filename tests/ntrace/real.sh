#!/usr/bin/env bash
# N-Trace on real programs: the bundled bzip2 capture (tests/data/real),
# and, when QEMU, the plugin and a cross compiler are available, bzip2 -9
# on 35 KB of text captured now (16 M instructions) with ecall traced
# sequentially and as an uninferable call.  Each with ten option sets.
set -euo pipefail
: "${RVT_BIN:?}" "${RVT_SRC:?}" "${RVT_BUILD:?}"
real=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/rvt-ntrace-real.XXXXXX")
trap 'rm -rf "$work"' EXIT
command -v xz >/dev/null || { echo "SKIP: xz not installed"; exit 77; }
xz -dc "$RVT_SRC/tests/data/real/bzip2.xz" >"$work/bzip2"
xz -dc "$RVT_SRC/tests/data/real/bzip2-9.ing.xz" >"$work/bundled.ing"
"$real" "$work/bzip2" "$work/bundled.ing"

if ! command -v qemu-riscv64 >/dev/null || [ ! -f "$(dirname "$RVT_BIN")/librvtrace-qemu.so" ] ||
    ! command -v riscv64-linux-gnu-gcc >/dev/null; then
    echo "bundled capture done; no fresh capture (needs qemu-riscv64, the plugin and riscv64-linux-gnu-gcc)"
    exit 0
fi
cache=${RVT_REAL_CACHE:-$RVT_BUILD/real-programs}
bzip2=$("$RVT_SRC/tests/programs/build-real.sh" --quiet --cache "$cache" | awk -F'\t' '$1=="bzip2"{print $2}')
[ -n "$bzip2" ] || { echo "SKIP: build-real.sh did not build bzip2"; exit 77; }
"$RVT_SRC/tests/programs/gen-text.sh" 35000 >"$work/input.txt"
"$RVT_BIN" capture -q -o "$work/seq.ing" --stdout "$work/out.bz2" -- "$bzip2" -9 -c "$work/input.txt"
"$real" "$bzip2" "$work/seq.ing"
"$RVT_BIN" capture -q --ecall uninferable -o "$work/uninf.ing" --stdout "$work/out.bz2" -- "$bzip2" -9 -c "$work/input.txt"
"$real" "$bzip2" "$work/uninf.ing" uninferable
