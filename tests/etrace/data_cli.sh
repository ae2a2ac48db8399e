#!/bin/bash
# E-Trace data trace through the CLI: the reference data model's golden
# files byte for byte (--data-model-compat) from its own input format
# (refdata, sniffed), dump of data packets, convert --to refdata and back,
# the listing beside each instruction, JSON Lines, info, and the errors a
# user meets (no values in the input, accesses missing, a data trace decoded
# without its options).
set -u
R=${RVT_BIN:?}
D=${RVT_TEST_DATA:?}/etrace-data
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
check() { if "$@"; then :; else echo "FAIL: $*" >&2; fail=1; fi; }
expect_err() { # pattern command...
    local pat=$1
    shift
    if "$@" >"$T/out" 2>"$T/err"; then
        echo "FAIL (succeeded): $*" >&2
        fail=1
    elif ! grep -q -- "$pat" "$T/err"; then
        echo "FAIL: $* did not say '$pat':" >&2
        cat "$T/err" >&2
        fail=1
    fi
}

# The golden files, from the model's CSV input (its format is sniffed).
for x in 32 64; do
    for set in debug basic noaddr nodata fulldata; do
        for in in g$x k$x; do
            opts=(--format etrace --framing refraw --data-trace only --data-model-compat --xlen $x
                  --scf "$D/rv$x/hw.scf" --ucf "$D/rv$x/$set/encoder.ucf")
            check "$R" encode "${opts[@]}" --input "$D/rv$x/$in.csv" -o "$T/$in-$set.raw"
            check cmp "$T/$in-$set.raw" "$D/rv$x/$set/$in.te_data_raw"
        done
    done
done
# The dump lists every packet and the access it gives: one line per CSV row
# (plus the support packet), the same accesses as the input.
opts=(--format etrace --framing refraw --data-model-compat --xlen 64 --scf "$D/rv64/hw.scf" --ucf "$D/rv64/basic/encoder.ucf")
"$R" dump "${opts[@]}" "$D/rv64/basic/k64.te_data_raw" >"$T/k64.dump"
check test "$(grep -c ' -> ' "$T/k64.dump")" -eq "$(($(wc -l <"$D/rv64/k64.csv") - 1))"
check grep -q '^0x00000000  F3.SUPPORT .* ienable=0 .* denable=1 dloss=0 doptions=0x0' "$T/k64.dump"
check grep -q 'ATOMIC .* -> amo' "$T/k64.dump"
check grep -q 'CSR .* -> csrr[wsc] 8 \[csr 0x' "$T/k64.dump"
check grep -q 'LOAD.U ' "$T/k64.dump"

# refdata: records -> CSV -> records -> CSV is the identity
check "$R" convert --input "$D/rv64/k64.csv" --to refdata -o "$T/k64.csv"
check cmp "$T/k64.csv" "$D/rv64/k64.csv"

# A generated program with every kind of access: the listing shows each
# access after its instruction, JSON Lines has them, the trace round-trips.
check "$R" gen --seed 6 --insns 30000 --data --traps --priv --interrupts --elf "$T/p.elf" -o "$T/p.ing"
check "$R" encode --format etrace --data-trace on --elf "$T/p.elf" --input "$T/p.ing" -o "$T/p.bin"
check "$R" decode --format etrace --data-trace on --elf "$T/p.elf" "$T/p.bin" --output insn -o "$T/p.lst"
# every load/store line of the listing is followed by its access
awk '/^ *[0-9a-f]+:\t[0-9a-f]+ +\t(c\.)?(l[bhwd]u?|s[bhwd]|f[ls][wd]|c\.[ls][wd]sp|c\.f[ls][wd]sp)[ \t]/ { want = $0; next }
     want != "" { if ($0 !~ /^\t\t\t# (load|store) \[0x/) { print "no access after: " want; bad = 1 } want = "" }
     END { exit bad }' "$T/p.lst" || { echo "FAIL: listing without accesses" >&2; fail=1; }
check grep -q '# csr 0x[0-9a-f]* = 0x' "$T/p.lst"
n_acc=$(grep -c $'^\t\t\t# \\(load\\|store\\|csr\\|store-conditional\\)' "$T/p.lst")
check test "$n_acc" -gt 1000
check "$R" decode --format etrace --data-trace on --elf "$T/p.elf" "$T/p.bin" --output jsonl -o "$T/p.jsonl"
check grep -q '"type":"data","hart":0,"index":[0-9]*,"offset":[0-9]*,"data":"load value"' "$T/p.jsonl"
check grep -q '"data":"csr value"' "$T/p.jsonl"
check "$R" verify --format etrace --data-trace on --elf "$T/p.elf" --input "$T/p.ing" >/dev/null
# the same with the split protocol and the best compression; its atomic
# responses carry the value written (the records have no loaded value),
# which the user is told, and without the split protocol nothing is said
check "$R" verify --format etrace --data-trace on --data_split_p 1 --lrid_width_p 2 --data-compress best --data-trim \
    --elf "$T/p.elf" --input "$T/p.ing" >"$T/v.txt"
check grep -q '^warning  *--data_split_p 1: the [1-9][0-9]* split atomic data packets carry the value each atomic wrote, not the value it loaded' "$T/v.txt"
check "$R" encode --format etrace --data-trace on --elf "$T/p.elf" --input "$T/p.ing" -o "$T/p.bin" 2>"$T/err"
check test ! -s "$T/err"
# the data trace alone: its accesses compared one for one, in order
check "$R" verify --format etrace --data-trace only --elf "$T/p.elf" --input "$T/p.ing" >"$T/v.txt"
check grep -q '^result  *OK: the decoded accesses equal the input' "$T/v.txt"
check grep -q '^compared  *load addresses ([1-9][0-9]*), store addresses ([1-9][0-9]*), load values' "$T/v.txt"
check grep -q '^decode  *[1-9][0-9]* accesses' "$T/v.txt"
# ... and decoded: its accesses are what it holds, so a whole one exits 0
# (not 3, "nothing decoded") and one cut short exits 1 naming what it kept
check "$R" encode --format etrace --data-trace only --elf "$T/p.elf" --input "$T/p.ing" -o "$T/only.bin"
check "$R" decode --format etrace --data-trace only --elf "$T/p.elf" "$T/only.bin" --output jsonl -o "$T/only.jsonl"
check grep -q '"data":"load addr"' "$T/only.jsonl"
head -c $(($(stat -c %s "$T/only.bin") / 2)) "$T/only.bin" >"$T/half.bin"
"$R" decode --format etrace --data-trace only --elf "$T/p.elf" "$T/half.bin" --output count >/dev/null 2>"$T/err"
check test $? -eq 1
check grep -q 'the output holds the [1-9][0-9]* data items decoded' "$T/err"
expect_err "traces no instructions (E-Trace --data-trace only, dbg --dbg-emit without pc) and nothing verify can compare one for one: its data filter" \
    "$R" verify --format etrace --data-trace only --data-types load --elf "$T/p.elf" --input "$T/p.ing"
check "$R" info --format etrace --data-trace on --data-types load,store >"$T/info"
check grep -q 'traced=load,store' "$T/info"
check grep -q 'data_width *= 63 *\[data_width_p = 64\]' "$T/info"

# Errors that say what to do.
check "$R" gen --seed 6 --insns 2000 --elf "$T/q.elf" -o "$T/q.ing"
expect_err "data trace needs accesses in the input" \
    "$R" encode --format etrace --data-trace on --elf "$T/q.elf" --input "$T/q.ing" -o "$T/q.bin"
printf 'DRETIRE,DTYPE,DADDR,DSIZE,DATA\n1,0,1000,2,5\n' >"$T/one.csv"
expect_err "data-trace only" "$R" encode --format etrace --data-trace on --input "$T/one.csv" -o "$T/one.bin"
printf 'DRETIRE,DTYPE,DADDR,DSIZE,DATA\n1,7,1000,2,5\n' >"$T/bad.csv"
expect_err "bad.csv:2: reserved dtype 7" "$R" encode --format etrace --data-trace only --input "$T/bad.csv" -o "$T/bad.bin"
expect_err "a full data address needs full data" "$R" encode --format etrace --data-trace on --data-full-address \
    --elf "$T/p.elf" --input "$T/p.ing" -o "$T/x.bin"
expect_err "data-compress expects diff, xor or best" "$R" info --format etrace --data-compress zip

exit $fail
