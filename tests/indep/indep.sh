#!/bin/bash
# rvtrace's CDL, dbg, E-Trace 0.026, E-Trace 2.0 and N-Trace traces read back by
# decoders written independently from the seed texts and the ratified specs alone
# (README.md): for every option set, the PCs those decoders give are the
# input's, one for one.  rvtrace's own decoder is not involved: this is what a
# user's decoder, written from seed 000 or 004, decoder.adoc or the N-Trace
# spec, makes of rvtrace's bytes.
set -u
export PYTHONDONTWRITEBYTECODE=1 # (nothing written into the source tree)
RV=${RVT_BIN:?}; D=${RVT_TEST_DATA:?}; H=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0; fail=0
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
command -v xz >/dev/null || { echo "SKIP: no xz"; exit 77; }
command -v riscv64-linux-gnu-objdump >/dev/null || { echo "SKIP: no riscv64-linux-gnu-objdump"; exit 77; }

# t1 (RV32IMAC, 164,959 PCs) and prog64 (RV64, traps and interrupts, 53,831)
cp "$D/ntrace-t1/test.elf" "$T/t1.elf"
cp "$D/ntrace-t1/test-PCONLY.txt" "$T/t1.pcs"
xz -dc "$D/analysis/prog64.xz" >"$T/p64"
xz -dc "$D/analysis/prog64.ing.xz" >"$T/p64.ing"
"$RV" convert --elf "$T/p64" --input "$T/p64.ing" --to pcinsn -o "$T/p64.ref" 2>/dev/null
"$RV" convert --elf "$T/p64" --input "$T/p64.ing" --to pclist -o "$T/p64.pcs" 2>/dev/null
# generated programs with what those lack: co-routine swaps, x5 millicode,
# sequentially inferable pairs, far code (g64 at the top of the address space)
"$RV" gen --seed 1 --xlen 64 --traps --interrupts --elf "$T/g64" -o "$T/g64.ing" --pcs "$T/g64.pcs"
"$RV" gen --seed 2 --xlen 32 --elf "$T/g32" -o "$T/g32.ing" --pcs "$T/g32.pcs"
# generated programs with every kind of data access (loads, stores, AMOs,
# CSRs; t64 with traps), their accesses as the reference data model's CSV
for spec in d64:5:64: d32:7:32: t64:9:64:--traps; do
    IFS=: read -r n s x extra <<<"$spec"
    "$RV" gen --seed "$s" --xlen "$x" --data $extra --insns 20000 --elf "$T/$n" -o "$T/$n.ing" --pcs "$T/$n.pcs"
    "$RV" convert --input "$T/$n.ing" --elf "$T/$n" --to refdata -o "$T/$n.refdata"
done
# the bzip2 capture (user mode, 1,465,437 instructions)
xz -dc "$D/real/bzip2.xz" >"$T/bz"
xz -dc "$D/real/bzip2-9.ing.xz" >"$T/bz.ing"
"$RV" convert --elf "$T/bz" --input "$T/bz.ing" --to pclist -o "$T/bz.pcs" 2>/dev/null

# one case: family, input name, expected, then the decoder's own options
# after "--", rvtrace's encode options before it
run() {
    local fam=$1 in=$2 label="$1 $2 ${*:3}"
    shift 2
    local enc=() dec=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do enc+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    dec=("$@")
    local elf input ref
    case $in in
    t1) elf=$T/t1.elf; input=$T/t1.pcs; ref=$T/t1.pcs ;;
    p64) elf=$T/p64; input=$T/p64.ing; ref=$T/p64.ref ;;
    *) elf=$T/$in; input=$T/$in.ing; ref=$T/$in.pcs ;;
    esac
    local f=${fam%20}
    f=${f%data}
    if ! "$RV" encode --format "$f" --elf "$elf" --input "$input" "${enc[@]}" -o "$T/t.bin" 2>"$T/err"; then
        fail=$((fail + 1)); echo "FAIL: $label: encode: $(cat "$T/err")" >&2; return
    fi
    if [ "$fam" = etracedata ]; then # (E-Trace 2.0 data trace, e-trace-encap framing)
        python3 "$H/etrace_data_decoder.py" "$T/t.bin" --elf "$elf" --refdata "$T/$in.refdata" --pcs "$ref" \
            "${dec[@]}" >"$T/out" 2>&1
        grep -q '^match for \([0-9]*\) of expected \1 (decoded \1) EXACT' "$T/out"
    elif [ "$fam" = ntrace ]; then
        [ "$in" = p64 ] && ref=$T/p64.pcs
        python3 "$H/ntrace_decoder_spec.py" "$T/t.bin" --elf "$elf" --pcs "$ref" "${dec[@]}" >"$T/out" 2>&1
        grep -q '^match for \([0-9]*\) of expected \1 (decoded \1) EXACT' "$T/out"
    elif [ "$fam" = etrace20 ]; then # (E-Trace 2.0, e-trace-encap framing)
        [ "$in" = p64 ] && ref=$T/p64.pcs
        python3 "$H/etrace20_decoder_adoc.py" "$T/t.bin" --elf "$elf" --pcs "$ref" "${dec[@]}" >"$T/out" 2>&1
        grep -q '^match for \([0-9]*\) of expected \1 (decoded \1) EXACT' "$T/out"
    elif [ "$fam" = etrace ]; then # (the 0.026 draft in the reference flow's raw framing)
        [ "$in" = t1 ] || ref=$T/p64.pcs # (the decoder reads a PC list)
        python3 "$H/etrace026_seed001.py" "$T/t.bin" --elf "$elf" --pcs "$ref" "${dec[@]}" >"$T/out" 2>&1
        grep -q '^match for \([0-9]*\) of expected \1 (decoded \1) EXACT' "$T/out"
    elif [ "$fam" = cdl ]; then
        python3 "$H/cdl_seed000.py" --elf "$elf" --ref "$ref" "$T/t.bin" >"$T/out" 2>&1
        grep -q '^MATCH: all [0-9]* PCs equal' "$T/out"
    else
        python3 "$H/dbg_seed004.py" "$elf" "$T/t.bin" --ref "$ref" "${dec[@]}" >"$T/out" 2>&1
        grep -q '^REF \([0-9]*\) PCs, decoded \1, common prefix \1 EXACT' "$T/out"
    fi
    if [ $? -eq 0 ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1)); echo "FAIL: $label:" >&2; head -20 "$T/out" >&2
    fi
}

run cdl t1
run cdl t1 --cdl-pc uninferable
run cdl t1 --cdl-sync-interval 0
run cdl t1 --cdl-sync-interval 16 --cdl-sync-nybbles 7
run cdl p64
run cdl p64 --cdl-pc uninferable
run cdl p64 --cdl-sync-interval 5 --cdl-sync-nybbles 5
run dbg t1
run dbg t1 --dbg-emit pc,priv -- --emit pc,priv
run dbg t1 --dbg-emit pc -- --emit pc
run dbg t1 --dbg-emit pc,branch -- --emit pc,branch
run dbg p64
run dbg p64 --dbg-emit pc,priv -- --emit pc,priv

E26=(--etrace-version 0.026 --framing refraw)
run etrace t1 "${E26[@]}"
run etrace t1 "${E26[@]}" --full-address -- --full-address
run etrace t1 "${E26[@]}" --resync-max 0
run etrace t1 "${E26[@]}" --notval_p 1 -- --notval_p 1
run etrace t1 "${E26[@]}" --nocontext_p 0 --context_width_p 8 -- --nocontext_p 0 --context_width_p 8
run etrace p64 "${E26[@]}"
run etrace p64 "${E26[@]}" --full-address --resync-max 0 -- --full-address
run etrace p64 "${E26[@]}" --notval_p 1 --disambiguate off -- --notval_p 1

# E-Trace 2.0 by a decoder transcribing decoder.adoc's pseudo-code (with
# the jump classes' calls and returns, README.md)
IR=(--implicit-return 2.0)
run etrace20 t1
run etrace20 t1 "${IR[@]}" --return_stack_size_p 2 -- "${IR[@]}" --return_stack_size_p 2
run etrace20 t1 --sijump --branch-prediction --resync-max 4 -- --sijump --branch-prediction
run etrace20 t1 --jump-target-cache --full-address -- --jump-target-cache --full-address
run etrace20 p64
run etrace20 p64 "${IR[@]}" --return_stack_size_p 3 -- "${IR[@]}" --return_stack_size_p 3
run etrace20 p64 "${IR[@]}" --call_counter_size_p 3 --resync-max 4 -- "${IR[@]}" --call_counter_size_p 3
run etrace20 p64 "${IR[@]}" --call_counter_size_p 2 -- "${IR[@]}" --call_counter_size_p 2
run etrace20 p64 --implicit-except --tvec-m 0x80000100 -- --implicit-exception --tvec-m 0x80000100
run etrace20 p64 --branch-prediction --jump-target-cache -- --branch-prediction --jump-target-cache --f0s-width 1
run etrace20 g64 "${IR[@]}" --return_stack_size_p 3 -- "${IR[@]}" --return_stack_size_p 3
run etrace20 g64 "${IR[@]}" --call_counter_size_p 4 --sijump --branch-prediction --resync-max 4 -- "${IR[@]}" --call_counter_size_p 4 --sijump --branch-prediction
run etrace20 g64 --jump-target-cache --sijump -- --jump-target-cache --sijump
run etrace20 g32 "${IR[@]}" --return_stack_size_p 1 -- "${IR[@]}" --return_stack_size_p 1
run etrace20 g32 "${IR[@]}" --call_counter_size_p 2 --jump-target-cache -- "${IR[@]}" --call_counter_size_p 2 --jump-target-cache
run etrace20 bz "${IR[@]}" --call_counter_size_p 3 --resync-max 4 -- "${IR[@]}" --call_counter_size_p 3

# N-Trace 1.0 by a decoder written from the N-Trace spec and seed 003
for m in htm btm; do
    for in in t1 p64 g64 g32; do
        run ntrace $in --ntrace-mode $m -- --mode $m
        run ntrace $in --ntrace-mode $m --callstack 8 -- --mode $m --callstack 8
    done
done
run ntrace p64 --ntrace-mode htm --repeat 3 --sync-period 256 --timestamps --context --src-bits 4 --src-id 3 -- \
    --mode htm --timestamps --context --src-bits 4 --src-id 3
run ntrace g64 --ntrace-mode htm --callstack 32 --sijump --addr-ext --icnt-bits 8 --hist-bits 8 --sync-msgs 16 --repeat 3 -- \
    --mode htm --callstack 32 --sijump --addr-ext --icnt-bits 8 --hist-bits 8
run ntrace g32 --ntrace-mode btm --callstack 8 --repeat 1 --icnt-bits 3 --icnt-sync --timestamps -- \
    --mode btm --callstack 8 --icnt-bits 3 --timestamps
run ntrace t1 --ntrace-mode htm --callstack 8 --callstack-mode count --repeat 2 --hist-bits 2 -- \
    --mode htm --callstack 8 --callstack-mode count
run ntrace bz --ntrace-mode htm --callstack 32 --repeat 3 --sijump --addr-ext --sync-period 4096 --timestamps --context -- \
    --mode htm --callstack 32 --sijump --addr-ext --timestamps --context

# E-Trace 2.0 data trace by a decoder written from dataTracePayload.adoc,
# alone (--data-trace only) and beside the instruction trace (on)
run etracedata d64 --data-trace only -- --mode only
run etracedata d64 --data-trace only --data-trim --data-compress best -- --mode only
run etracedata d32 --data-trace only --data-compress xor -- --mode only
run etracedata d64 --data-trace only --data-no-value -- --mode only --data-no-value
run etracedata d32 --data-trace only --data-no-address -- --mode only --data-no-address
run etracedata d64 --data-trace only --data-full-address --data-full-value -- --mode only
run etracedata t64 --data-trace on -- --mode on
run etracedata t64 --data-trace on --data-trim --data-compress best -- --mode on
run etracedata d32 --data-trace on --data-types load,store -- --mode on --data-types load,store
run etracedata d64 --data-trace only --data_split_p 1 --data-split-lag 2 -- \
    --mode only --data_split_p 1 --split-atomic-diff-bits 1
run etracedata t64 --data-trace on --data_split_p 1 --data-split-lag 2 --lrid_width_p 3 -- \
    --mode on --data_split_p 1 --lrid_width_p 3 --split-atomic-diff-bits 1

echo "indep: $pass passed, $fail failed"
[ $fail -eq 0 ]
