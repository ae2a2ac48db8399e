# Shared by the system-mode capture tests (sourced).  Environment from
# rvt_script_test: RVT_BIN (the rvtrace CLI), RVT_BUILD, RVT_SRC.
set -euo pipefail

: "${RVT_BIN:?RVT_BIN not set (run through ctest)}"
: "${RVT_BUILD:?}"
: "${RVT_SRC:?}"

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/rvt-sysmode.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# The one reason to skip: no qemu-system.  Everything else these tests need
# (cross compiler, picolibc, xz) scripts/deps.sh installs: its absence fails.
need_qemu() {
    command -v qemu-system-riscv64 >/dev/null && command -v qemu-system-riscv32 >/dev/null ||
        skip "qemu-system-riscv32/64 not installed (apt-get install qemu-system-misc, or scripts/deps.sh)"
    [ -f "$(dirname "$RVT_BIN")/librvtrace-qemu.so" ] || fail "the capture plugin is not built beside $RVT_BIN"
}
need() {
    command -v "$1" >/dev/null || fail "$1 not installed (scripts/deps.sh installs it)"
}

# The bare-metal programs, built once per build tree by build.sh (the
# sysmode_build fixture).
BAREMETAL=${RVT_BAREMETAL:-$RVT_BUILD/baremetal}
program() {
    local p=$BAREMETAL/$1
    [ -x "$p" ] || fail "$p not built (the sysmode_build test builds it)"
    echo "$p"
}

# sys_capture OUT [capture options]: rvtrace capture --system; prints its summary.
sys_capture() {
    local out=$1
    shift
    "$RVT_BIN" capture --system -o "$out" --timeout 300 "$@" || fail "rvtrace capture --system -o $out $* failed"
}

# check ELF STREAM: every transition of a one-hart stream against the ELF, ecalls trapping.
check() {
    "$RVT_BIN" check --ecall trap --elf "$1" --input "$2" >"$WORK/check.txt" ||
        fail "rvtrace check --ecall trap --elf $1 --input $2 failed"
    head -1 "$WORK/check.txt"
}

# expect_trap SERIAL PATTERN [MIN]: at least MIN (default 1) TRAP lines match the extended regex.
expect_trap() {
    local n
    n=$(grep -E -c -- "^TRAP .*$2" "$1" || true)
    [ "$n" -ge "${3:-1}" ] || fail "$1: expected at least ${3:-1} TRAP lines matching '$2', found $n"
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
