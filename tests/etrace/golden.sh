#!/bin/bash
# E-Trace through the CLI: byte-exact encode of the reference model's seven
# t1 configurations, decode of each golden back to the PC list, refcsv
# conversion both ways, dump and info.
set -u
R=${RVT_BIN:?}
D=${RVT_TEST_DATA:?}/etrace-t1
ELF=$D/../ntrace-t1/test.elf
PCS=$D/../ntrace-t1/test-PCONLY.txt
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
check() { if "$@"; then :; else echo "FAIL: $*" >&2; fail=1; fi; }

for c in default fulladdr lsb1 resync0 resync3 nocontext combo; do
    opts=(--format etrace --framing refraw --scf "$D/$c/hw.scf" --ucf "$D/$c/encoder.ucf")
    check "$R" encode "${opts[@]}" --input "$D/t1_itype4.csv" --input-format refcsv --elf "$ELF" -o "$T/$c.raw"
    check cmp "$T/$c.raw" "$D/$c/t1_$c.te_inst_raw"
    check "$R" decode "${opts[@]}" --elf "$ELF" --output pcs "$D/$c/t1_$c.te_inst_raw" -o "$T/$c.pcs"
    check cmp "$T/$c.pcs" "$PCS"
    # the dump lists every packet: as many lines as the model's listing rows
    n=$("$R" dump "${opts[@]}" "$D/$c/t1_$c.te_inst_raw" | grep -c '^0x')
    m=$(($(wc -l < "$D/$c/t1_$c.te_inst.csv") - 1))
    check test "$n" -eq "$m"
done

# the "resync" vector: a resync on a pending branch repeats the last address
# without a notification (the spec's notify rule), byte for byte the model's
RS=${RVT_TEST_DATA}/etrace-resync
check "$R" encode --format etrace --framing refraw --scf "$RS/hw.scf" --ucf "$RS/encoder.ucf" \
    --input "$RS/resync_itype4.csv" --input-format refcsv -o "$T/resync.raw"
check cmp "$T/resync.raw" "$RS/resync.te_inst_raw"

# an address width that cannot represent the program's addresses is an
# encode-time error naming the first such address (t1 has compressed code)
out=$("$R" encode --format etrace --elf "$ELF" --input "$PCS" --input-format pclist --iaddress_lsb_p 2 \
      -o "$T/lsb2.bin" 2>&1)
check test $? -ne 0
check grep -q 'address 0x[0-9a-f]* is not a multiple of 4' <<< "$out"
out=$("$R" encode --format etrace --elf "$ELF" --input "$PCS" --input-format pclist --iaddress_width_p 16 \
      -o "$T/w16.bin" 2>&1)
check test $? -ne 0
check grep -q 'wider than iaddress_width_p = 16' <<< "$out"

# the dump's address width: --xlen, else the program's (--elf), else 64;
# an RV32 trace read with 64-bit addresses says so instead of listing
# addresses such as 0x7ffff3267ffff326 as if they were real
check "$R" encode --format etrace --elf "$ELF" --input "$PCS" --input-format pclist -o "$T/t1.bin"
check "$R" dump --format etrace --elf "$ELF" "$T/t1.bin" -o "$T/t1.dump"
check cmp "$T/t1.dump" <("$R" dump --format etrace --xlen 32 "$T/t1.bin")
if grep -q 'address=0x[0-9a-f]\{9,\}' "$T/t1.dump"; then echo "FAIL: RV32 dump with addresses over 32 bits" >&2; fail=1; fi

# refcsv -> native ingress -> refcsv gives the same file
check "$R" convert --input "$D/t1_itype4.csv" --input-format refcsv --to ingress -o "$T/t1.ing" --xlen 32
check "$R" convert --input "$T/t1.ing" --to refcsv -o "$T/t1.csv"
check cmp "$T/t1.csv" "$D/t1_itype4.csv"

# the same execution through the default framing (encap) and options, and
# through the PC list: encode/decode round trip
check "$R" verify --format etrace --elf "$ELF" --input "$D/t1_itype4.csv" --input-format refcsv
check "$R" verify --format etrace --elf "$ELF" --input "$PCS" --input-format pclist --implicit-return fixed \
    --branch-prediction --jump-target-cache --sijump

# discovery information
check "$R" info --format etrace --scf "$D/default/hw.scf" --ucf "$D/default/encoder.ucf" > "$T/info.txt"
check grep -q 'iaddress_width *= 31' "$T/info.txt"
check grep -q 'ioptions (0x0)' "$T/info.txt"

# a bad configuration file names the file and line
printf '[Required Attributes]\niaddress_width_p = 99\n' > "$T/bad.scf"
out=$("$R" info --format etrace --scf "$T/bad.scf" 2>&1)
check grep -q 'bad.scf:2' <<< "$out"

exit $fail
