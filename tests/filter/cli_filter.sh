#!/usr/bin/env bash
# End to end: `rvtrace encode --filter/--trigger/--sideband ...` then
# `rvtrace decode`, for every trace family, on the t1 execution.  The decoded
# instructions must be exactly the qualified ones (filter_expect computes
# them with the library's filter; the first case is also checked against an
# awk reading of the PC list) and `--output blocks` must show one
# "# trace off" note per qualified -> unqualified transition.
# Skips (77) while the CLI has no --filter; reports per family which honour
# RVT_ING_UNQUALIFIED, and fails for any family that does not.
set -u
RV=${RVT_BIN:?}; D=${RVT_TEST_DATA:?}; B=${RVT_BUILD:?}; T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
X=$B/tests/filter/filter_expect
E=$D/ntrace-t1/test.elf; P=$D/ntrace-t1/test-PCONLY.txt

if ! "$RV" encode --help 2>&1 | grep -q -- "--filter"; then
    echo "SKIP: rvtrace encode has no --filter option yet"
    exit 77
fi

# The filter cases: each line is the extra arguments (eval'd).
cases=(
  "--filter 'addr in xrle_decompress'"
  "--merge-blocks --filter 'addr in xrle_decompress'"
  "--filter 'from xrle_decompress to memcpy'"
  "--filter 'addr < xrle_compress+0x40 or addr >= memcpy'"
  "--filter 'not addr in 0x20010400..0x20010500'"
  "--filter 'addr & 0xf == 4'"
  "--trigger 'on@xrle_decompress,off@memcpy'"
  "--trigger 'start@0x200101f8,stop@0x200101f8'"
  "--merge-blocks --trigger 'notify@0x200103f6'"
  "--sideband 'impdef=1@10000,impdef=0@20000' --filter 'impdef == 1'"
  "--filter 'ctx == 0 and priv in {U, S, M}' --trigger 'off@memcpy'"
  "--filter 'addr in xrle_decompress' --trigger 'notify@0x200103f6'"
  "--merge-blocks --filter 'addr >= xrle_decompress' --trigger 'off@0x200104b0'"
)

# Independent check of the first case's expectation.
read -r lo size < <(riscv64-unknown-elf-nm -S "$E" 2>/dev/null | awk '$4=="xrle_decompress"{print $1, $2}')
if [ -n "${lo:-}" ]; then
    awk -v lo=$((16#$lo)) -v hi=$((16#$lo + 16#$size)) '
        function hex(s,   i, v) { v = 0; s = tolower(substr(s, 3)); for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }
        { v = hex($1); if (v >= lo && v < hi) print }' "$P" > "$T/awk.pcs"
    [ -s "$T/awk.pcs" ] || { echo "FAIL: awk found no instruction of xrle_decompress"; exit 1; }
    "$X" --elf "$E" --input "$P" --filter 'addr in xrle_decompress' > "$T/x.pcs" 2>/dev/null
    if ! cmp -s "$T/awk.pcs" "$T/x.pcs"; then echo "FAIL: filter_expect disagrees with awk"; exit 1; fi
fi

# Generated system-mode executions with traps, nested interrupts, U/S/M and
# contexts, when the CLI has the generator.
gen_cases=(
  "--filter 'priv == U'"
  "--filter 'priv == M'"
  "--merge-blocks --filter 'priv in {S, M}'"
  "--filter 'interrupt'"
  "--filter 'exception and tval != 0'"
  "--filter 'cause in {8, 9}'"
  "--filter 'ctx != 0'"
  "--filter 'priv == S'"
  "--merge-blocks --filter 'exception'"
  "--filter 'cause == 2 or priv == U'"
)
have_gen=0
if "$RV" gen --seed 5 --insns 50000 --traps --interrupts --nested --priv --context \
        --p-trap 20 --p-syscall 20 --interrupt-interval 400 --elf "$T/g.elf" -o "$T/g.ing" >/dev/null 2>&1; then
    have_gen=1
else
    echo "note: no 'rvtrace gen': trap/privilege cases not run"
fi

# One case: why it fails, or nothing.  $1 family, $2 ELF, $3 input, $4 case.
check_case() {
    local fam=$1 elf=$2 input=$3 c=$4 off gaps other a
    # The generated RV64 programs run at addresses of 8 significant bytes,
    # which a seed-000 CDL data field (at most 7) cannot hold.
    local fx=()
    [ "$fam" = cdl ] && fx=(--cdl-data wide)
    eval "args=($c)"
    merge=(); fargs=()
    for a in "${args[@]}"; do if [ "$a" = --merge-blocks ]; then merge=(--merge-blocks); else fargs+=("$a"); fi; done
    if ! "$X" --elf "$elf" --input "$input" "${merge[@]}" "${fargs[@]}" > "$T/exp.pcs" 2> "$T/exp.st"; then
        echo "filter_expect failed: $(cat "$T/exp.st")"; return
    fi
    off=$(awk '{print $2}' "$T/exp.st")
    # A case must leave instructions on both sides, or it tests nothing.
    if awk '{exit !($8 == 0 || ($8 == $10 && $6 == 0))}' "$T/exp.st"; then echo "degenerate case: $(cat "$T/exp.st")"; return; fi
    if ! "$RV" encode --format "$fam" "${fx[@]}" --elf "$elf" --input "$input" "${args[@]}" -o "$T/tr" 2>"$T/err"; then
        echo "encode failed: $(head -1 "$T/err")"
    elif ! "$RV" decode --format "$fam" "${fx[@]}" --elf "$elf" "$T/tr" --output pcs -o "$T/got.pcs" 2>"$T/err"; then
        echo "decode failed: $(head -1 "$T/err")"
    elif ! cmp -s "$T/exp.pcs" "$T/got.pcs"; then
        echo "decoded $(wc -l < "$T/got.pcs") instructions, expected the $(wc -l < "$T/exp.pcs") qualified ones; first difference: $(diff "$T/exp.pcs" "$T/got.pcs" | head -2 | tr '\n' ' ')"
    elif ! "$RV" decode --format "$fam" "${fx[@]}" --elf "$elf" "$T/tr" --output blocks -o "$T/got.blocks" 2>"$T/err"; then
        echo "decode --output blocks failed: $(head -1 "$T/err")"
    else
        gaps=$(grep -c "^# trace off" "$T/got.blocks")
        other=$(grep -c "^# \(trace lost\|older trace\|trace ended\|gap \)" "$T/got.blocks")
        [ "$gaps" = "$off" ] || echo "$gaps 'trace off' notes (and $other other gap notes), expected $off"
    fi
}

status=0
for fam in ntrace etrace cdl dbg; do
    if ! "$RV" encode --format "$fam" --elf "$E" --input "$P" -o "$T/$fam.plain" >"$T/err" 2>&1; then
        echo "$fam: not available ($(head -1 "$T/err"))"
        continue
    fi
    good=0; failed=0; first=""
    runs=()
    for c in "${cases[@]}"; do runs+=("$E|$P|$c"); done
    if [ $have_gen = 1 ]; then for c in "${gen_cases[@]}"; do runs+=("$T/g.elf|$T/g.ing|$c"); done; fi
    for r in "${runs[@]}"; do
        IFS='|' read -r elf input c <<< "$r"
        why=$(check_case "$fam" "$elf" "$input" "$c")
        if [ -z "$why" ]; then good=$((good+1)); else failed=$((failed+1)); [ -n "$first" ] || first="$c: $why"; fi
        # FILTER_VERBOSE=1: one line per case
        [ -z "${FILTER_VERBOSE:-}" ] || echo "  $fam: $(basename "$input"): $c: ${why:-ok}"
    done
    if [ $failed = 0 ]; then
        echo "$fam: honours the filter ($good cases: decoded = qualified instructions, one gap per trace-off)"
    else
        echo "$fam: FAIL in $failed of $((good+failed)) cases; first: $first"
        status=1
    fi
done
exit $status
