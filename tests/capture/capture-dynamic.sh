# A dynamically linked program (PIE, the cross compiler's default): capture
# finds the RISC-V sysroot and writes the load map; with --maps, check,
# verify in every family and decode load the program, its dynamic loader
# and libc where each ran (functions and source lines at the loaded
# addresses); a map that does not fit the files is refused naming its line.
source "$(dirname "$0")/lib.sh"
command -v riscv64-linux-gnu-gcc >/dev/null ||
    skip "riscv64-linux-gnu-gcc not installed (apt-get install gcc-riscv64-linux-gnu libc6-dev-riscv64-cross)"
[ -f /usr/riscv64-linux-gnu/lib/ld-linux-riscv64-lp64d.so.1 ] ||
    skip "no RISC-V sysroot at /usr/riscv64-linux-gnu (apt-get install libc6-riscv64-cross)"
prog=$WORK/dynamic
riscv64-linux-gnu-gcc -O1 -g -o "$prog" "$RVT_SRC/tests/capture/guests/dynamic.c" || fail "cannot build dynamic.c"

capture "$WORK/d.ing" --stdout "$WORK/d.out" -- "$prog" 3000
insns=$CAPTURED_INSNS
grep -q "^0 1012 " "$WORK/d.out" || fail "the program printed '$(cat "$WORK/d.out")'"
map=$WORK/d.ing.maps
[ -s "$map" ] || fail "no load map $map"
for f in "$prog" ld-linux-riscv64-lp64d.so.1 libc.so.6; do
    grep -q " [^ ]*$(basename "$f")\$" "$map" || fail "the load map does not list $f: $(cat "$map")"
done

# Without the map the program's ELF alone cannot explain the run.
expect_fail 1 "where the image has no code" "$RVT_BIN" check --elf "$prog" --input "$WORK/d.ing"
grep -q "warning: .*dynamic is position-independent (ET_DYN).*--maps FILE" "$WORK/stderr" ||
    fail "check --elf of a PIE without its map does not say what is missing: $(cat "$WORK/stderr")"

# With it every instruction is explained, by the map alone or with --elf.
out=$("$RVT_BIN" check --maps "$map" --input "$WORK/d.ing") || fail "check --maps failed"
echo "$out" | head -1
echo "$out" | grep -q " $insns instructions, all consistent" || fail "check --maps: $out"
"$RVT_BIN" check --elf "$prog" --maps "$map" --input "$WORK/d.ing" >/dev/null || fail "check --elf --maps failed"

for fam in ntrace etrace cdl dbg; do
    out=$("$RVT_BIN" verify --format "$fam" --elf "$prog" --maps "$map" --input "$WORK/d.ing") ||
        fail "verify --format $fam --maps failed: $out"
    echo "$out" | grep -q "^result  *OK" || fail "verify --format $fam: $out"
done

# The listing names the program's functions at their loaded addresses,
# with its source lines, and libc's exported ones.
"$RVT_BIN" encode --format etrace --maps "$map" --input "$WORK/d.ing" -o "$WORK/d.te" || fail "encode failed"
"$RVT_BIN" decode --format etrace --elf "$prog" --maps "$map" "$WORK/d.te" --output insn -o "$WORK/d.lst" ||
    fail "decode --output insn failed"
lo=$(grep " $prog\$" "$map" | head -1 | cut -d' ' -f1)
hi=$(grep " $prog\$" "$map" | tail -1 | cut -d' ' -f2)
at=$(awk '/^<main>:$/ { m = 1; next } m && /^[0-9a-f]+:/ { sub(/:.*/, ""); print; exit }' "$WORK/d.lst")
[ -n "$at" ] || fail "the listing has no <main> header"
[ $((16#$at)) -ge $((lo)) ] && [ $((16#$at)) -lt $((hi)) ] ||
    fail "main listed at 0x$at, outside the program's mappings $lo-$hi"
grep -q "<qsort>:" "$WORK/d.lst" || fail "the listing has no <qsort> header (libc's symbols)"
grep -q "^<qsort@plt>:$" "$WORK/d.lst" || fail "the listing has no <qsort@plt> header (the program's PLT stub)"
grep -q "^<\.plt>:$" "$WORK/d.lst" || fail "the listing has no <.plt> header (the PLT's header: lazy binding)"
grep -q "dynamic.c:" "$WORK/d.lst" || fail "the listing has no source line of dynamic.c (DWARF at the load address)"
"$RVT_BIN" decode --format etrace --elf "$prog" --maps "$map" "$WORK/d.te" --output profile -o "$WORK/d.prof" ||
    fail "decode --output profile failed"
grep -Eq " compare$" "$WORK/d.prof" || fail "the profile has no compare: $(head -20 "$WORK/d.prof")"
grep -Eq " main$" "$WORK/d.prof" || fail "the profile has no main"
# C++ names demangled (the file's name still finds the symbol), unless --no-demangle.
grep -Eq " app::scale\(int\)$" "$WORK/d.prof" || fail "the profile has no demangled app::scale(int)"
grep -q "^<app::scale(int)>:$" "$WORK/d.lst" || fail "the listing has no <app::scale(int)> header"
"$RVT_BIN" decode --format etrace --elf "$prog" --maps "$map" "$WORK/d.te" --output profile --no-demangle \
    -o "$WORK/mangled.prof" || fail "decode --no-demangle failed"
grep -Eq " _ZN3app5scaleEi$" "$WORK/mangled.prof" || fail "--no-demangle does not show the mangled name"
# libc's internal code (qsort's merge sort: no .dynsym symbol) is its own,
# not charged to the exported function before it, and headed as such.
grep -Eq " \[no symbol in libc\.so\.6\]$" "$WORK/d.prof" || fail "the profile has no [no symbol in libc.so.6]"
# The listing names the file too, and heads each file's unnamed code
# apart: libc's and the loader's, one after the other, are two headers.
grep -q "^<no symbol in libc\.so\.6>:$" "$WORK/d.lst" || fail "the listing has no <no symbol in libc.so.6> header"
grep -q "^<no symbol in ld-linux-riscv64-lp64d\.so\.1>:$" "$WORK/d.lst" ||
    fail "the listing has no <no symbol in ld-linux-riscv64-lp64d.so.1> header"
grep -q "^<no symbol>:$" "$WORK/d.lst" && fail "the listing has a <no symbol> header inside a known file"
# JSON Lines gives such a block the views' name.
"$RVT_BIN" decode --format etrace --elf "$prog" --maps "$map" "$WORK/d.te" --output jsonl -o "$WORK/d.jsonl" ||
    fail "decode --output jsonl failed"
grep -q '"func":"\[no symbol in libc\.so\.6\]"' "$WORK/d.jsonl" || fail "JSON Lines has no block in [no symbol in libc.so.6]"
grep -q '"func":"main"' "$WORK/d.jsonl" || fail "JSON Lines has no block in main"
# The listing on threads (started at once, small batches) is the same text.
RVT_JOBS_MIN_LEFT=0 RVT_JOBS_BATCH=37 "$RVT_BIN" decode --format etrace --elf "$prog" --maps "$map" "$WORK/d.te" \
    --output insn --jobs 2 -o "$WORK/d2.lst" || fail "decode --jobs 2 failed"
cmp -s "$WORK/d.lst" "$WORK/d2.lst" || fail "the listing on two threads differs from the serial one"

# A map that does not fit the files is refused, naming its line.
sed 's/ 0x[0-9a-f]\{16\} \(.*libc.so.6\)$/ 0x0123456789abcdef \1/' "$map" >"$WORK/digest.maps"
expect_fail 1 "digest.maps: line [0-9]+: .*libc.so.6 is not the file the capture ran" \
    "$RVT_BIN" check --maps "$WORK/digest.maps" --input "$WORK/d.ing"
sed 's| /[^ ]*libc.so.6$| /nonexistent/libc.so.6|' "$map" >"$WORK/gone.maps"
expect_fail 1 "gone.maps: line [0-9]+: /nonexistent/libc.so.6: cannot open" \
    "$RVT_BIN" check --maps "$WORK/gone.maps" --input "$WORK/d.ing"
sed '3s/^0x[0-9a-f]*/0x5000/' "$map" >"$WORK/moved.maps"
expect_fail 1 "moved.maps: line [0-9]+: .* is none of its segments loaded at 0x5000" \
    "$RVT_BIN" check --maps "$WORK/moved.maps" --input "$WORK/d.ing"
{ head -2 "$map"; echo "0x1000 0x2000 libc"; } >"$WORK/bad.maps"
expect_fail 2 "bad.maps: line 3 \(byte offset [0-9]+\): expected START END OFFSET SIZE DIGEST PATH .*, got '0x1000 0x2000 libc'\$" \
    "$RVT_BIN" decode --format etrace --maps "$WORK/bad.maps" "$WORK/d.te"
# Copies of the files elsewhere (decoding on another machine): --maps-dir.
mkdir -p "$WORK/copies"
for f in $(grep -v '^#' "$map" | cut -d' ' -f6 | sort -u); do cp "$f" "$WORK/copies/"; done
"$RVT_BIN" check --maps "$WORK/gone.maps" --maps-dir "$WORK/copies" --input "$WORK/d.ing" >/dev/null ||
    fail "check --maps-dir with copies of every file failed"
printf 'not the library\n' >"$WORK/copies/libc.so.6"
expect_fail 1 "gone.maps: line [0-9]+: .*copies/libc.so.6 is not the file the capture ran \(16 bytes; the map says" \
    "$RVT_BIN" check --maps "$WORK/gone.maps" --maps-dir "$WORK/copies" --input "$WORK/d.ing"
cp "$prog" "$WORK/other"
expect_fail 1 "other is not one of the files .*d.ing.maps maps" \
    "$RVT_BIN" check --elf "$WORK/other" --maps "$map" --input "$WORK/d.ing"

# Two files over each other at different times cannot be one image.
{ cat "$map"; grep "ld-linux" "$map" | head -1 | sed 's| /[^ ]*$| /elsewhere/other.so|'; } >"$WORK/overlap.maps"
expect_fail 1 "overlap.maps: lines [0-9]+ and [0-9]+: .*ld-linux-riscv64-lp64d.so.1 and /elsewhere/other.so were both mapped at" \
    "$RVT_BIN" check --maps "$WORK/overlap.maps" --input "$WORK/d.ing"

# A library opened and closed again before the end is in the map.
riscv64-linux-gnu-gcc -O1 -o "$WORK/dlopen" "$RVT_SRC/tests/capture/guests/dlopen.c" || fail "cannot build dlopen.c"
capture "$WORK/dl.ing" -- "$WORK/dlopen"
grep -q " /[^ ]*/libm.so.6\$" "$WORK/dl.ing.maps" || fail "the closed libm.so.6 is not in the map: $(cat "$WORK/dl.ing.maps")"
"$RVT_BIN" check --maps "$WORK/dl.ing.maps" --input "$WORK/dl.ing" >/dev/null || fail "check of the dlopen capture failed"

# An interpreter the sysroot lacks is named before QEMU runs.
riscv64-linux-gnu-gcc -O1 -Wl,--dynamic-linker=/lib/ld-nothere.so.1 -o "$WORK/nointerp" \
    "$RVT_SRC/tests/capture/guests/dynamic.c" || fail "cannot build nointerp"
expect_fail 1 "nointerp is dynamically linked: its interpreter /lib/ld-nothere.so.1 is not in the RISC-V sysroot" \
    "$RVT_BIN" capture -o "$WORK/n.ing" -- "$WORK/nointerp"

# A static program's map (asked for) lists the program alone, at its own addresses.
riscv64-linux-gnu-gcc -O1 -static -o "$WORK/static" "$RVT_SRC/tests/capture/guests/dynamic.c" || fail "cannot build static"
capture "$WORK/s.ing" --maps "$WORK/s.maps" -- "$WORK/static" 100
[ "$(grep -vc '^#' "$WORK/s.maps")" -ge 1 ] && ! grep -v '^#' "$WORK/s.maps" | grep -qv " $WORK/static\$" ||
    fail "the static program's map lists other files: $(cat "$WORK/s.maps")"
"$RVT_BIN" check --maps "$WORK/s.maps" --input "$WORK/s.ing" >/dev/null || fail "check --maps of a static program failed"
echo "dynamic: $insns instructions; program, loader and libc from the load map; 4 families verified"
