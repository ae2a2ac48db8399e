#!/usr/bin/env bash
# rvtrace info: the family's parameters, then every discovery field of the
# Trace Control Interface (trTeImpl, each WARL field's implemented values,
# the timestamp unit, funnel, RAM sink), and with --regs FILE the
# configuration a register file gives (encoder0 drives the family's
# parameters; every component out of reset is listed with its fields).
set -u
RV=${RVT_BIN:?}; T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL: $*" >&2; }
has() { # file, text...
    local f=$1; shift
    for s in "$@"; do grep -qF -- "$s" "$f" && ok || bad "$(basename "$f"): no '$s'"; done
}

"$RV" info --format ntrace > "$T/nt.txt" || bad "info ntrace"
has "$T/nt.txt" "N-Trace 1.0" "trTeImpl 0x00010101: trTeVerMajor.trTeVerMinor 1.0, trTeCompType 0x1" \
    "trTeProtocolMajor.Minor      1.0" "trTeFormat                   1 (N-Trace)" \
    "trTeInstMode                 0 3 6" "trTeInstSyncMode             0 1 2 3" "trTeInstSyncMax              0..15" \
    "trTeContext                  implemented" "trTeInstStallEna             not implemented" \
    "trTeInstNoAddrDiff           not implemented" "trTeInstNoTrapAddr           not implemented" \
    "trTeInstEnSequentialJump     implemented" "trTeInstEnImplicitReturn     implemented" \
    "trTeInstEnBranchPrediction   not implemented" "trTeInstEnJumpTargetCache    not implemented" \
    "trTeInstEnRepeatedHistory    implemented" "trTeInstEnAllJumps           not implemented (reads 0)" \
    "trTeInstExtendAddrMSB        implemented" "trTeInstImplicitReturnMode   0 1 3" \
    "trTeSrcID                    12 bits" "trTeSrcBits                  0..12" "16 filter units" "8 comparator units" \
    "trTeDataImplemented          0" "trTsControl                  timestamp unit: trTsWidth 48" \
    "trFunnelImpl 0x00000801" "trFunnelDisInput             16 inputs" \
    "trRamImpl 0x00001901" "trRamHasSRAM / trRamHasSMEM  1 / 0" "trRamStopOnWrap              implemented" \
    "trRamLimit                 0x0..0xffffc: at most 1048576 bytes" "trace word                 4 bytes"

"$RV" info --format etrace --sram-bytes 65536 > "$T/et.txt" || bad "info etrace"
has "$T/et.txt" "E-Trace 2.0 discovery attributes" "trTeImpl 0x00000101" "trTeFormat                   0 (E-Trace)" \
    "trTeInstMode                 7 " "trTeInstNoAddrDiff           implemented" "trTeInstNoTrapAddr           implemented" \
    "trTeInstEnBranchPrediction   implemented" "trTeInstEnAllJumps           not implemented" \
    "trTeDataImplemented          1" "at most 65536 bytes"

"$RV" info --format cdl > "$T/cdl.txt" || bad "info cdl"
has "$T/cdl.txt" "not a Trace Control Interface encoder" "trRamImpl 0x00001901"
grep -q "trTeImpl" "$T/cdl.txt" && bad "cdl: an encoder was probed" || ok

# From a register file: BTM, sync every 2^9 messages, SRC 5 in 3 bits, a 64 KiB RAM in stop mode.
cat > "$T/r.regs" <<'R'
ramsink0.trRamControl = 0x1
trRamLimitLow = 0xfffc
trRamControl = 0x103
encoder0.trTeControl = 0x1
encoder0.trTeInstFeatures = 0x30050000
encoder0.trTeControl = 0x01510037
R
"$RV" info --format ntrace --regs "$T/r.regs" > "$T/regs.txt" 2>"$T/err" || bad "info --regs: $(cat "$T/err")"
has "$T/regs.txt" "trTeInstMode               3 (BTM" "periodic sync              every 512 messages" \
    "trTeSrcBits / trTeSrcID    3 / 5" "Registers after" "encoder0 @ 0x00000000" \
    "trTeInstMode=3" "trTeInstSyncMode=1 trTeInstSyncMax=5" "trTeSrcID=5 trTeSrcBits=3" \
    "ramsink0 @ 0x00011000" "trRamEnable=1" "trRamStopOnWrap=1"
sed -n '/^Registers after/,$p' "$T/regs.txt" > "$T/dump.txt"
grep -q "encoder1 @" "$T/dump.txt" && bad "info --regs lists an encoder in reset" || ok
grep -q "funnel0 @" "$T/dump.txt" && bad "info --regs lists the funnel in reset" || ok
# The discovery is of a fresh system: the file's settings do not leak into it.
grep -q "trTeControl after release from reset: 0x01000009" "$T/regs.txt" && ok || bad "discovery saw the file's settings"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
