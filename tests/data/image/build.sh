#!/bin/sh
# Rebuild the image test ELFs (Debian 12 cross compilers; see README.md).
set -e
cd "$(dirname "$0")"
LDFLAGS="-nostdlib -nostartfiles -static -Wl,--build-id=none -Wl,-Ttext=0x10000"
CFLAGS="-O2 -ffreestanding -fno-asynchronous-unwind-tables -fno-pic"
riscv64-unknown-elf-gcc -march=rv32imac_zicsr -mabi=ilp32 $LDFLAGS classes.S -o classes32.elf
riscv64-linux-gnu-gcc -march=rv64gc -mabi=lp64d $LDFLAGS -no-pie classes.S -o classes64.elf
riscv64-unknown-elf-gcc -march=rv32imac -mabi=ilp32 $CFLAGS $LDFLAGS prog.c -o prog32.elf
riscv64-linux-gnu-gcc -march=rv64gc -mabi=lp64d $CFLAGS $LDFLAGS -no-pie prog.c -o prog64.elf
riscv64-linux-gnu-gcc -O2 -fPIC -shared -nostdlib -Wl,--build-id=none lib.c -o libdyn.so
riscv64-linux-gnu-strip --strip-all libdyn.so
