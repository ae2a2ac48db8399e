# The bundled real trace (tests/data/real): it must pass `rvtrace check`
# against its ELF, and capturing the bundled program again (same fixed
# directory and command as tests/data/real/make.sh) must give exactly the
# bundled stream, so a change in what the plugin, builder or writer produce
# is noticed here; regenerate with tests/data/real/make.sh when intended.
set -euo pipefail
: "${RVT_BIN:?}" "${RVT_SRC:?}"
data=$RVT_SRC/tests/data/real
work=$(mktemp -d "${TMPDIR:-/tmp}/rvt-bundled.XXXXXX")
trap 'rm -rf "$work"' EXIT
command -v xz >/dev/null || { echo "SKIP: xz not installed"; exit 77; }
xz -dc "$data/bzip2.xz" >"$work/bzip2"
xz -dc "$data/bzip2-9.ing.xz" >"$work/bzip2-9.ing"
"$RVT_BIN" check --elf "$work/bzip2" --input "$work/bzip2-9.ing" ||
    { echo "FAIL: the bundled capture does not check against its ELF" >&2; exit 1; }

if ! command -v qemu-riscv64 >/dev/null || [ ! -f "$(dirname "$RVT_BIN")/librvtrace-qemu.so" ]; then
    echo "bundled real trace checks against its ELF (re-capture not tried: no qemu-riscv64 or plugin)"
    exit 0
fi
run=/tmp/rvtrace-real-demo
exec 9>/tmp/rvtrace-real-demo.lock
flock 9
rm -rf "$run"
mkdir -p "$run"
chmod +x "$work/bzip2"
cp "$work/bzip2" "$data/input.txt" "$run/"
(cd "$run" && "$RVT_BIN" capture -q -o bzip2-9.ing --stdin input.txt -- "$run/bzip2" -9)
status=0
cmp "$run/bzip2-9.ing" "$work/bzip2-9.ing" || status=1
rm -rf "$run"
[ "$status" = 0 ] || { echo "FAIL: a fresh capture differs from tests/data/real/bzip2-9.ing.xz (regenerate with tests/data/real/make.sh if the change is intended)" >&2; exit 1; }
echo "bundled real trace: checks against its ELF and is reproduced exactly by a fresh capture"
