#!/usr/bin/env bash
# The rvtrace demo (Debian 12, as root): install what is missing, build,
# then on a bundled real trace — bzip2 -9 captured under QEMU (RV64GC,
# 1.47 M instructions) and the N-Trace reference program (RV32IMAC, 165 k
# instructions) — check the capture against the ELF, encode it in every
# trace family, decode it back, verify the decoded instructions equal the
# capture, and print a summary table.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
jobs=${RVT_JOBS:-$(nproc)}
bash scripts/deps.sh
echo "== building rvtrace" >&2
cmake -S . -B build/demo -DCMAKE_BUILD_TYPE=Release -DRVT_BUILD_TESTS=OFF >/dev/null
cmake --build build/demo -j"$jobs" >/dev/null
RV=$top/build/demo/tools/rvtrace
work=$top/build/demo/data; mkdir -p "$work"

# The bundled real capture (and, if QEMU can run it here, a fresh capture of
# the same command to show it is reproducible).
xz -dc tests/data/real/bzip2.xz > "$work/bzip2"; chmod +x "$work/bzip2"
xz -dc tests/data/real/bzip2-9.ing.xz > "$work/bzip2-9.ing"
echo "== rvtrace check: every transition of the capture against the ELF" >&2
"$RV" check --elf "$work/bzip2" --input "$work/bzip2-9.ing"
"$RV" check --elf tests/data/ntrace-t1/test.elf --input tests/data/ntrace-t1/test-PCONLY.txt

run() { # label, elf, input, options...
    local label=$1 elf=$2 in=$3; shift 3
    local out
    if out=$("$RV" verify --elf "$elf" --input "$in" "$@" 2>&1); then :; fi
    local bytes bits enc dec res
    bytes=$(sed -n 's/^bytes *\([0-9]*\).*/\1/p' <<<"$out")
    bits=$(sed -n 's/^bits\/instr *//p' <<<"$out")
    enc=$(sed -n 's/^encode *\([0-9.]*\).*/\1/p' <<<"$out")
    dec=$(sed -n 's/^decode *\([0-9.]*\).*/\1/p' <<<"$out")
    res=$(sed -n 's/^result *\([A-Z]*\).*/\1/p' <<<"$out")
    [ -n "$res" ] || res="ERROR: $(tail -1 <<<"$out")"
    printf '%-34s %10s %10s %9s %9s  %s\n' "$label" "${bytes:--}" "${bits:--}" "${enc:--}" "${dec:--}" "$res"
    [ "$res" = OK ] || fails=$((fails + 1))
}

fails=0
for prog in bzip2 t1; do
    if [ $prog = bzip2 ]; then elf=$work/bzip2; in=$work/bzip2-9.ing; name="bzip2 -9 (RV64GC, 1,465,437 instructions)"
    else elf=tests/data/ntrace-t1/test.elf; in=tests/data/ntrace-t1/test-PCONLY.txt; name="N-Trace reference t1 (RV32IMAC, 164,959 instructions)"; fi
    echo
    echo "$name"
    printf '%-34s %10s %10s %9s %9s  %s\n' "family and options" "bytes" "bits/insn" "enc M/s" "dec M/s" "round trip"
    run "ntrace htm callstack 8 repeat 2" "$elf" "$in" --format ntrace --ntrace-mode htm --callstack 8 --repeat 2
    run "ntrace btm" "$elf" "$in" --format ntrace --ntrace-mode btm --callstack 0 --repeat 0
    run "etrace (delta addresses)" "$elf" "$in" --format etrace
    run "etrace implicit return" "$elf" "$in" --format etrace --implicit-return fixed
    run "cdl" "$elf" "$in" --format cdl
    run "dbg" "$elf" "$in" --format dbg
done
echo
echo "Reference vectors (tests/data): our encoder against the public reference tools"
d=tests/data
"$RV" encode --format ntrace --ntrace-mode htm --callstack 8 --repeat 2 --elf $d/ntrace-t1/test.elf \
    --input $d/ntrace-t1/test-PCONLY.txt -o "$work/t1.nex"
if cmp -s "$work/t1.nex" $d/ntrace-t1/test-NEX.bin; then
    echo "  N-Trace reference encoder, HTM + call stack 8 + repeat 2: identical, $(stat -c %s "$work/t1.nex") bytes"
else
    echo "  N-Trace reference: DIFFERENT" >&2; fails=$((fails + 1))
fi
for c in default fulladdr lsb1 resync0 resync3 nocontext combo; do
    "$RV" encode --format etrace --framing refraw --scf $d/etrace-t1/$c/hw.scf --ucf $d/etrace-t1/$c/encoder.ucf \
        --input $d/etrace-t1/t1_itype4.csv --input-format refcsv --elf $d/ntrace-t1/test.elf -o "$work/t1-$c.te"
    if cmp -s "$work/t1-$c.te" $d/etrace-t1/$c/t1_$c.te_inst_raw; then
        echo "  E-Trace reference model, configuration $c: identical, $(stat -c %s "$work/t1-$c.te") bytes"
    else
        echo "  E-Trace reference model, configuration $c: DIFFERENT" >&2; fails=$((fails + 1))
    fi
done
echo
if [ "$fails" -eq 0 ]; then
    echo "demo: every family decoded back to exactly the captured instructions; the reference vectors match byte for byte"
else
    echo "demo: $fails round trip(s) failed" >&2
    exit 1
fi
echo
echo "The tool is $RV (rvtrace --help, rvtrace <command> --help)."
echo "Install it with the library, headers, rvtrace.pc and man pages into any prefix:"
echo "  cmake --install build/demo --prefix ~/.local"
echo "  export PATH=~/.local/bin:\$PATH PKG_CONFIG_PATH=~/.local/lib/pkgconfig MANPATH=~/.local/share/man:"
echo "(README.md: Install, Examples, Library)"
