# Shared by the capture tests (sourced).  Environment from rvt_script_test:
# RVT_BIN (the rvtrace CLI), RVT_BUILD (build tree), RVT_SRC (source tree).
set -euo pipefail

: "${RVT_BIN:?RVT_BIN not set (run through ctest)}"
: "${RVT_BUILD:?}"
: "${RVT_SRC:?}"

# ctest treats exit status 77 as "skipped" (SKIP_RETURN_CODE).
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }

command -v qemu-riscv64 >/dev/null || skip "qemu-riscv64 not installed (apt-get install qemu-user)"

REAL_CACHE=${RVT_REAL_CACHE:-$RVT_BUILD/real-programs}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/rvt-capture.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# real_program NAME: absolute path of a program built by build-real.sh.
real_program() {
    command -v riscv64-linux-gnu-gcc >/dev/null ||
        skip "riscv64-linux-gnu-gcc not installed (apt-get install gcc-riscv64-linux-gnu libc6-dev-riscv64-cross)"
    local line
    line=$("$RVT_SRC/tests/programs/build-real.sh" --quiet --cache "$REAL_CACHE" | awk -v n="$1" '$1 == n')
    [ -n "$line" ] || fail "build-real.sh did not report '$1'"
    echo "${line#*$'\t'}"
}

# is_riscv_elf FILE: a little-endian ELF for EM_RISCV (243).
is_riscv_elf() {
    local h
    h=$(head -c 20 "$1" | od -An -tx1 | tr -d ' \n')
    [ "${h:0:8}" = 7f454c46 ] && [ "${h:10:2}" = 01 ] && [ "${h:36:4}" = f300 ]
}

# capture OUT [capture options] -- PROGRAM ARGS: run rvtrace capture, echo
# its summary line, and set CAPTURED_INSNS from it.
capture() {
    local out=$1
    shift
    local summary
    summary=$("$RVT_BIN" capture -o "$out" "$@") || fail "rvtrace capture -o $out $* failed"
    echo "$summary"
    CAPTURED_INSNS=$(echo "$summary" | sed -n 's/.*: \([0-9][0-9]*\) instructions,.*/\1/p')
    CAPTURED_RECORDS=$(echo "$summary" | sed -n 's/.* instructions, \([0-9][0-9]*\) records,.*/\1/p')
    [ -n "$CAPTURED_INSNS" ] && [ -n "$CAPTURED_RECORDS" ] ||
        fail "no instruction/record count in the capture summary: $summary"
}

# expect_fail STATUS PATTERN COMMAND...: COMMAND exits with STATUS and its
# standard error matches PATTERN (an extended regular expression).
expect_fail() {
    local want=$1 pattern=$2 rc=0
    shift 2
    "$@" >"$WORK/stdout" 2>"$WORK/stderr" || rc=$?
    [ "$rc" = "$want" ] || fail "$* exited with $rc, expected $want; stderr: $(cat "$WORK/stderr")"
    grep -Eq -- "$pattern" "$WORK/stderr" || fail "$*: stderr does not match '$pattern': $(cat "$WORK/stderr")"
}

# check ELF ING: every transition of the stream must be explained by the ELF.
check() {
    "$RVT_BIN" check --elf "$1" --input "$2" || fail "rvtrace check --elf $1 --input $2 failed"
}
