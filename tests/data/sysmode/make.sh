#!/bin/bash
# Regenerate the bundled system-mode capture (see README.md):
#   tests/data/sysmode/make.sh [BUILD_DIR]      (BUILD_DIR default: build)
# Needs the rvtrace CLI and plugin built in BUILD_DIR, qemu-system-misc and
# riscv64-unknown-elf-gcc with picolibc.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
rvtrace=$build/tools/rvtrace
[ -x "$rvtrace" ] || { echo "make.sh: $rvtrace not built" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/rvt-sysmode-data.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$src/tests/programs/baremetal/build.sh" "$work/bin" >/dev/null
# Keep the symbols (function names for listings), drop the DWARF.
riscv64-unknown-elf-strip --strip-debug -o "$work/smp64" "$work/bin/smp64"
"$rvtrace" capture --system --loader "$work/smp64" --smp 2 -o "$work/smp64-2.ing" --keep-log "$work/smp64-2.log" \
    --stdout "$here/smp64-2.serial" --timeout 300
for h in 0 1; do
    "$rvtrace" check --ecall trap --elf "$work/smp64" --input "$work/smp64-2.ing.hart$h"
done
xz -9e -T1 -c "$work/smp64" >"$here/smp64.xz"
xz -9e -T1 -c "$work/smp64-2.ing" >"$here/smp64-2.ing.xz"
xz -9e -T1 -c "$work/smp64-2.log" >"$here/smp64-2.log.xz"
ls -l "$work/smp64" "$work/smp64-2.ing" "$work/smp64-2.log" "$here"/*.xz "$here/smp64-2.serial"
