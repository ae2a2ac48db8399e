#!/bin/sh
# Rebuild the ecall test programs (committed so tests need no toolchain).
set -e
cd "$(dirname "$0")"
riscv64-unknown-elf-gcc -nostdlib -nostartfiles -march=rv64imac_zicsr -mabi=lp64 -mcmodel=medany -Wl,-Ttext=0x80000000 -o ecall64.elf ecall.S
riscv64-unknown-elf-gcc -nostdlib -nostartfiles -march=rv32imac_zicsr -mabi=ilp32 -Wl,-Ttext=0x80000000 -o ecall32.elf ecall.S
