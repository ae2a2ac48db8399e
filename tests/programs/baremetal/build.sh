#!/bin/bash
# Build the bare-metal test programs with Debian's riscv64-unknown-elf-gcc
# and picolibc:   build.sh OUTDIR
# Prints "name<TAB>path" for each program.  Exit 77 if the toolchain is
# missing (the callers' skip status).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: build.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
cc=riscv64-unknown-elf-gcc
command -v $cc >/dev/null || { echo "build.sh: $cc not installed (apt-get install gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf)" >&2; exit 77; }
[ -f /usr/lib/picolibc/riscv64-unknown-elf/picolibc.specs ] ||
    { echo "build.sh: picolibc not installed (apt-get install picolibc-riscv64-unknown-elf)" >&2; exit 77; }

# binutils 2.40 needs _zicsr for CSR instructions, but picolibc's multilib
# is only picked for the plain -march at link time: compile and link apart.
common=(-O2 -g -mcmodel=medany -ffreestanding -fno-common -Wall -Wextra -Werror --specs=picolibc.specs)

# build NAME XLEN SOURCES... [-- EXTRA FLAGS]
build() {
    local name=$1 xlen=$2
    shift 2
    local srcs=() extra=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do srcs+=("$1"); shift; done
    [ $# -gt 0 ] && { shift; extra=("$@"); }
    local march abi
    if [ "$xlen" = 64 ]; then march=rv64imac; abi=lp64; else march=rv32imac; abi=ilp32; fi
    local objs=() tmp=$out/obj-$name
    mkdir -p "$tmp"
    for s in "${srcs[@]}"; do
        local o=$tmp/$(basename "${s%.*}").o
        $cc "${common[@]}" "${extra[@]}" -march=${march}_zicsr_zifencei -mabi=$abi -c -o "$o" "$here/$s"
        objs+=("$o")
    done
    $cc "${common[@]}" "${extra[@]}" -march=$march -mabi=$abi -nostartfiles -T "$here/link.ld" \
        -Wl,--no-warn-rwx-segments -o "$out/$name" "${objs[@]}"
    rm -rf "$tmp"
    printf '%s\t%s\n' "$name" "$out/$name"
}

build traps64 64 crt.S rt.c traps.c
build traps32 32 crt.S rt.c traps.c
build timer64 64 crt.S rt.c timer.c
build timer32 32 crt.S rt.c timer.c
build smp64 64 crt.S rt.c smp.c
build smp32 32 crt.S rt.c smp.c
build bench64 64 crt.S rt.c bench.c
# The OpenSBI payload: S-mode, where OpenSBI jumps (0x80200000 on virt).
build sbi64 64 crt.S rt.c sbi.c -- -DRT_SBI -Wl,--defsym=RAM_BASE=0x80200000
