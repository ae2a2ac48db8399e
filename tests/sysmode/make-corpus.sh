#!/bin/bash
# Regenerate the seed logs of fuzz_qemu_log:  make-corpus.sh [BUILD_DIR]
# (needs qemu-system-misc, riscv64-unknown-elf-gcc and the built plugin).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../../build}" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/rvt-corpus.XXXXXX")
trap 'rm -rf "$work"' EXIT
for n in 1 2; do
    riscv64-unknown-elf-gcc -march=rv64ima_zicsr -mabi=lp64 -x assembler-with-cpp -nostdlib -nostartfiles -Wl,-Ttext=0x80000000 \
        -DNHARTS=$n -o "$work/tiny$n" "$here/corpus-tiny.S"
    "$build/tools/rvtrace" capture --system -q --loader "$work/tiny$n" --smp $n -o "$work/t.ing" \
        --keep-log "$here/../../fuzz/corpus/fuzz_qemu_log/tiny-$n-harts.log" --timeout 60
    "$build/tools/rvtrace" capture --system -q --loader "$work/tiny$n" --smp $n -o "$work/t.ing" --flush-each \
        --keep-log "$here/../../fuzz/corpus/fuzz_qemu_log/tiny-$n-harts-each.log" --timeout 60
done
ls -l "$here/corpus"
