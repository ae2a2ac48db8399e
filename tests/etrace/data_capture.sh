#!/bin/bash
# E-Trace data trace on fresh QEMU captures with --mem: the hand-written
# RV32 program under qemu-riscv32 and the bundled bzip2 under qemu-riscv64.
# The captures carry addresses, no values (QEMU's plugin interface gives
# none), so the data trace is encoded with --data-no-value; the decoded
# accesses (JSON Lines) must be the capture's (rvtrace convert --to refdata),
# in order, kind and address, and every instruction must come back.
source "$RVT_SRC/tests/capture/lib.sh"
command -v xz >/dev/null || skip "xz not installed"

# compare ELF ING XLEN: encode, decode, compare the accesses
compare() {
    local elf=$1 ing=$2 xlen=$3 name
    name=$(basename "$ing" .ing)
    "$RVT_BIN" encode --format etrace --data-trace on --data-no-value --elf "$elf" --input "$ing" \
        -o "$WORK/$name.te" || fail "$name: encode"
    "$RVT_BIN" decode --format etrace --data-trace on --elf "$elf" "$WORK/$name.te" --output jsonl \
        -o "$WORK/$name.jsonl" || fail "$name: decode"
    "$RVT_BIN" verify --format etrace --data-trace on --data-no-value --elf "$elf" --input "$ing" >/dev/null ||
        fail "$name: verify"
    # expected: "load|store ADDRESS" per access (dtype 0 load; 1 and the atomics store; CSR by number)
    "$RVT_BIN" convert --input "$ing" --to refdata -o "$WORK/$name.csv" || fail "$name: convert"
    awk -F, 'NR > 1 { t = $2 + 0; a = $3; sub(/^0+/, "", a); if (a == "") a = "0"
                      k = t == 0 ? "load" : (t >= 4 && t <= 6) ? "csr" : "store"
                      print k, a }' "$WORK/$name.csv" >"$WORK/$name.want"
    sed -n 's/.*"data":"\(load\|store\|csr\) addr","addr":"0x\([0-9a-f]*\)".*/\1 \2/p' "$WORK/$name.jsonl" \
        >"$WORK/$name.got"
    local n
    n=$(wc -l <"$WORK/$name.want")
    [ "$n" -gt 50 ] || fail "$name: only $n accesses captured"
    cmp -s "$WORK/$name.want" "$WORK/$name.got" ||
        fail "$name: decoded accesses differ from the capture's: $(diff "$WORK/$name.want" "$WORK/$name.got" | head -4)"
    ! grep -q '"data":"lost"' "$WORK/$name.jsonl" || fail "$name: accesses reported lost"
    echo "$name: $n accesses (rv$xlen), every one back at its instruction"
}

# RV32: the hand-written program
if command -v qemu-riscv32 >/dev/null && command -v riscv64-unknown-elf-gcc >/dev/null; then
    prog=$WORK/rv32-prog
    riscv64-unknown-elf-gcc -march=rv32imac -mabi=ilp32 -nostdlib -nostartfiles -static \
        -o "$prog" "$RVT_SRC/tests/capture/rv32-prog.S" || fail "cannot assemble rv32-prog.S"
    capture "$WORK/rv32.ing" --mem -- "$prog"
    compare "$prog" "$WORK/rv32.ing" 32
else
    echo "(no qemu-riscv32 or riscv64-unknown-elf-gcc: RV32 skipped)"
fi

# RV64: the bundled bzip2 on its bundled input, as tests/data/real/make.sh runs it
xz -dc "$RVT_TEST_DATA/real/bzip2.xz" >"$WORK/bzip2"
chmod +x "$WORK/bzip2"
capture "$WORK/bzip2.ing" --mem --stdin "$RVT_TEST_DATA/real/input.txt" -- "$WORK/bzip2" -9
compare "$WORK/bzip2" "$WORK/bzip2.ing" 64
