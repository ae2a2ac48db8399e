#!/bin/sh
# Regenerates the ELF files and objdump listings in this folder (see README.md).
# Needs Debian's gcc-riscv64-unknown-elf, picolibc-riscv64-unknown-elf and
# binutils-riscv64-unknown-elf (objdump 2.40).
set -e
cd "$(dirname "$0")"
build() { # name march mabi
    riscv64-unknown-elf-gcc -march="$2" -mabi="$3" -O2 --specs=picolibc.specs \
        -ffunction-sections -Wl,--gc-sections -o "$1.elf" prog.c -lm
    riscv64-unknown-elf-objdump -d "$1.elf" > "$1.objd.txt"
}
build rv64gc-prog rv64gc lp64d
build rv32gc-prog rv32gc ilp32d
