#!/bin/sh
# Rebuild the flow-engine test programs (committed so tests need no toolchain).
set -e
cd "$(dirname "$0")"
riscv64-unknown-elf-gcc -nostdlib -nostartfiles -march=rv64gc_zicsr -mabi=lp64 -Wl,-Ttext=0x10000 -o flowtest64.elf flowtest.S
riscv64-unknown-elf-gcc -nostdlib -nostartfiles -march=rv32imac_zicsr -mabi=ilp32 -Wl,-Ttext=0xfffff000 -o flowtest32.elf flowtest.S
