# Fixture: build the bare-metal test programs (tests/programs/baremetal)
# into the build tree once; the other system-mode tests use them.
source "$(dirname "$0")/lib.sh"
need_qemu
rc=0
"$RVT_SRC/tests/programs/baremetal/build.sh" "$BAREMETAL" >"$WORK/built" || rc=$?
[ "$rc" = 77 ] && fail "riscv64-unknown-elf-gcc or picolibc not installed (scripts/deps.sh installs them)"
[ "$rc" = 0 ] || fail "tests/programs/baremetal/build.sh failed"
cat "$WORK/built"
for p in $(cut -f1 "$WORK/built"); do
    [ -x "$BAREMETAL/$p" ] || fail "$p was not built"
done
