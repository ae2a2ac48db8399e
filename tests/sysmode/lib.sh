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

# funnel_roundtrip ELF STREAM HARTS: when the CLI has N-Trace and --funnel,
# encode the merged stream through the funnel (one encoder per hart, the
# hart id as source id), decode each hart back and require exactly the
# hart's captured instructions (its .hartN stream as a PC list).  The
# downstream use of a system-mode capture.
funnel_roundtrip() {
    local elf=$1 ing=$2 harts=$3
    if ! "$RVT_BIN" encode --help 2>&1 | grep -q -- '--funnel' || ! "$RVT_BIN" --help | grep -q '^  ntrace '; then
        echo "funnel round trip not tried: this rvtrace has no N-Trace funnel"
        return 0
    fi
    "$RVT_BIN" encode --format ntrace --funnel --src-bits 2 --ecall trap --elf "$elf" --input "$ing" -o "$WORK/funnel.nt" ||
        fail "encode --funnel of $ing failed"
    for h in $(seq 0 $((harts - 1))); do
        "$RVT_BIN" decode --format ntrace --src-bits 2 --hart "$h" --ecall trap --elf "$elf" "$WORK/funnel.nt" \
            --output pcs | grep -v '^#' | tr 'a-f' 'A-F' >"$WORK/funnel-$h.pcs" || fail "decode --hart $h failed"
        "$RVT_BIN" convert --to pclist --ecall trap --elf "$elf" --input "$ing.hart$h" -o "$WORK/hart-$h.pcs" 2>/dev/null ||
            fail "convert of $ing.hart$h failed"
        tr 'a-f' 'A-F' <"$WORK/hart-$h.pcs" | cmp -s - "$WORK/funnel-$h.pcs" ||
            fail "hart $h decoded from the N-Trace funnel differs from its capture"
    done
    echo "N-Trace funnel: $harts harts in $(stat -c %s "$WORK/funnel.nt") bytes, each decodes to its captured instructions"
}
