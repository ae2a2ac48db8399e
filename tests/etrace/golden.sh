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

# the 0.026 draft (seed 001): its te_support has fixed fields (table 6.4),
# so info shows them and no 2.0 ioptions; E-Trace 2.0's support packet
# widths and --sijump, which the draft cannot express, are refused; an
# encoder "configured to only use full-address" (table 6.2) sends no format
# 01 (diff-delta), not even the full branch map whose address is invalid
check "$R" info --format etrace --etrace-version 0.026 > "$T/info26.txt"
check grep -q 'encoder_mode 2, qual_status 2 bits' "$T/info26.txt"
if grep -q 'ioptions' "$T/info26.txt"; then echo "FAIL: 0.026 info lists 2.0 ioptions" >&2; fail=1; fi
for bad in "--sijump" "--encoder_mode_width 2" "--ioptions_width 4" "--doptions_width 4"; do
    # shellcheck disable=SC2086 # (an option and its value)
    out=$("$R" encode --format etrace --etrace-version 0.026 $bad --elf "$ELF" --input "$PCS" -o "$T/x.bin" 2>&1)
    check test $? -ne 0
    check grep -q '0.026 draft' <<< "$out"
done
for a in "" --full-address; do
    # shellcheck disable=SC2086 # ("" or one option)
    check "$R" encode --format etrace --etrace-version 0.026 --framing refraw $a --elf "$ELF" --input "$PCS" \
        -o "$T/d26.bin"
    # shellcheck disable=SC2086
    check "$R" dump --format etrace --etrace-version 0.026 --framing refraw $a "$T/d26.bin" -o "$T/d26.dump"
    # shellcheck disable=SC2086
    check "$R" decode --format etrace --etrace-version 0.026 --framing refraw $a --elf "$ELF" "$T/d26.bin" \
        --output pcs -o "$T/d26.pcs"
    check cmp "$T/d26.pcs" "$PCS"
    f1=$(grep -c '^0x[0-9a-f]*  F1 ' "$T/d26.dump")
    full_maps=$(grep -c 'branches=0 ' "$T/d26.dump")
    if [ -n "$a" ]; then
        check test "$f1" -eq 0
        check test "$full_maps" -gt 0 # (the case this checks occurs)
        if grep -q 'F0\.' "$T/d26.dump"; then echo "FAIL: a 0.026 format 0 named as 2.0's" >&2; fail=1; fi
    else
        check test "$f1" -gt 0
    fi
done

# a bad configuration file names the file and line
printf '[Required Attributes]\niaddress_width_p = 99\n' > "$T/bad.scf"
out=$("$R" info --format etrace --scf "$T/bad.scf" 2>&1)
check grep -q 'bad.scf:2' <<< "$out"

exit $fail
