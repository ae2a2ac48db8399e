#!/bin/bash
# Regenerate the analysis test program and its capture (see README.md):
#   tests/data/analysis/make.sh [BUILD_DIR]      (BUILD_DIR default: build)
# Needs the rvtrace CLI and plugin built in BUILD_DIR, qemu-system-misc and
# riscv64-unknown-elf-gcc with picolibc.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
rvtrace=$build/tools/rvtrace
[ -x "$rvtrace" ] || { echo "make.sh: $rvtrace not built" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/rvt-analysis-data.XXXXXX")
trap 'rm -rf "$work"' EXIT

bm=tests/programs/baremetal
cc=riscv64-unknown-elf-gcc
# The runtime's flags (build.sh), with the source paths made relative to
# the repository (so --source-dir finds them from any checkout) and DWARF
# kept in the ELF.
common=(-O2 -g -mcmodel=medany -ffreestanding -fno-common -Wall -Wextra -Werror --specs=picolibc.specs
        "-fdebug-prefix-map=$src=." -I"$src/$bm")
cd "$src"
for s in $bm/crt.S $bm/rt.c tests/data/analysis/prog.c; do
    $cc "${common[@]}" -march=rv64imac_zicsr_zifencei -mabi=lp64 -c -o "$work/$(basename "${s%.*}").o" "$s"
done
$cc "${common[@]}" -march=rv64imac -mabi=lp64 -nostartfiles -T $bm/link.ld -Wl,--no-warn-rwx-segments \
    -o "$work/prog64" "$work/crt.o" "$work/rt.o" "$work/prog.o"
"$rvtrace" capture --system --loader "$work/prog64" -o "$work/prog64.ing" --stdout "$here/prog64.serial" --timeout 300
"$rvtrace" check --ecall trap --elf "$work/prog64" --input "$work/prog64.ing"
xz -9e -T1 -c "$work/prog64" >"$here/prog64.xz"
xz -9e -T1 -c "$work/prog64.ing" >"$here/prog64.ing.xz"
ls -l "$work/prog64" "$work/prog64.ing" "$here"/*.xz "$here/prog64.serial"
