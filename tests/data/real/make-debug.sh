#!/bin/bash
# Regenerate bzip2.debug.xz, the DWARF of the bundled bzip2 (see README.md):
#   tests/data/real/make-debug.sh [CACHE_DIR]   (the cache of tests/programs/build-real.sh)
# Builds bzip2 exactly as build-real.sh does, plus -g (GCC's code does not
# depend on -g), checks that its code and data equal the bundled binary's
# byte for byte, and keeps only the debug sections the line tables need.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../.." && pwd)
cache=$(cd "${1:-$src/build/real-programs}" 2>/dev/null && pwd || echo "${1:-$src/build/real-programs}")
work=$(mktemp -d "${TMPDIR:-/tmp}/rvt-bzip2-debug.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$src/tests/programs/build-real.sh" --quiet --cache "$cache" >/dev/null
d=$(cat "$cache/src/bzip2.ready")
CC=riscv64-linux-gnu-gcc
mkdir "$work/obj"
for s in blocksort huffman crctable randtable compress decompress bzlib bzip2; do
    # Source paths relative to the unpacked package: --source-dir finds them in any `apt-get source bzip2`.
    $CC -O2 -static -D_FILE_OFFSET_BITS=64 -w -g "-fdebug-prefix-map=$d=$(basename "$d")" -c "$d/$s.c" -o "$work/obj/$s.o"
done
# The objects in build-real.sh's link order (its glob: alphabetical).
$CC -O2 -static -D_FILE_OFFSET_BITS=64 -w -g "$work"/obj/*.o -o "$work/bzip2-g" -lm
xz -dc "$here/bzip2.xz" >"$work/bzip2"
for sec in .text .rodata .data; do
    riscv64-linux-gnu-objcopy -O binary --only-section=$sec "$work/bzip2-g" "$work/a"
    riscv64-linux-gnu-objcopy -O binary --only-section=$sec "$work/bzip2" "$work/b"
    cmp -s "$work/a" "$work/b" || { echo "make-debug.sh: $sec differs from the bundled bzip2" >&2; exit 1; }
done
riscv64-linux-gnu-objcopy --only-keep-debug --remove-section=.debug_loclists --remove-section=.debug_frame \
    "$work/bzip2-g" "$work/bzip2.debug"
xz -9e -T1 -c "$work/bzip2.debug" >"$here/bzip2.debug.xz"
ls -l "$work/bzip2.debug" "$here/bzip2.debug.xz"
