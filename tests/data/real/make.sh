#!/bin/bash
# Regenerate the bundled real trace (see README.md):
#   tests/data/real/make.sh [BUILD_DIR]      (BUILD_DIR default: build)
# Needs the rvtrace CLI and plugin built in BUILD_DIR, qemu-user, and the
# riscv64 cross compiler (the program comes from tests/programs/build-real.sh).
# The run happens in a fixed directory, because the program's path and
# arguments are part of what it executes (argv, auxiliary vector).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
rvtrace=$build/tools/rvtrace
[ -x "$rvtrace" ] || { echo "make.sh: $rvtrace not built" >&2; exit 1; }

bzip2=$("$src/tests/programs/build-real.sh" --quiet --cache "$build/real-programs" | awk '$1 == "bzip2" { print $2 }')
"$src/tests/programs/gen-text.sh" 2000 1 >"$here/input.txt"

run=/tmp/rvtrace-real-demo
rm -rf "$run"
mkdir -p "$run"
# Keep the symbols (function names for listings), drop the DWARF.
riscv64-linux-gnu-strip --strip-debug -o "$run/bzip2" "$bzip2"
cp "$here/input.txt" "$run/input.txt"
(cd "$run" && "$rvtrace" capture -o bzip2-9.ing --stdin input.txt -- "$run/bzip2" -9)
"$rvtrace" check --elf "$run/bzip2" --input "$run/bzip2-9.ing"

xz -9e -T1 -c "$run/bzip2" >"$here/bzip2.xz"
xz -9e -T1 -c "$run/bzip2-9.ing" >"$here/bzip2-9.ing.xz"
ls -l "$run/bzip2" "$run/bzip2-9.ing" "$here/bzip2.xz" "$here/bzip2-9.ing.xz"
rm -rf "$run"
