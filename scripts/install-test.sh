#!/usr/bin/env bash
# The install, as a user meets it (the last phase of scripts/test.sh):
#   bash scripts/install-test.sh [BUILD_DIR]        (default: build/gcc)
# 1. `cmake --install --prefix P`: the example programs (examples/) build
#    with nothing but `pkg-config` — against the shared library and, with
#    `pkg-config --static`, statically — and run without LD_LIBRARY_PATH;
#    the tree still works after it is moved elsewhere;
# 2. the same under DESTDIR (a staged install, as packagers make one);
# 3. the installed rvtrace needs no library at run time and finds its QEMU
#    plugin beside itself (../lib/rvtrace); the plugin needs no librvtrace;
# 4. `man rvtrace` and `man librvtrace` work with MANPATH set to P/share/man;
# 5. each installed header compiles in a C++ program (they say extern "C").
# Prints one line per check and "install: N checks, F failed".
set -uo pipefail
cd "$(dirname "$0")/.."
src=$PWD
build=$(cd "${1:-build/gcc}" && pwd) || exit 1
tmp=$(mktemp -d /tmp/rvt-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
unset LD_LIBRARY_PATH PKG_CONFIG_PATH RVT_QEMU_PLUGIN MANPATH
checks=0 failed=0
check() { # description, command...
    local what=$1
    shift
    checks=$((checks + 1))
    if "$@" >"$tmp/out" 2>&1; then
        echo "  ok    $what"
    else
        failed=$((failed + 1))
        echo "  FAIL  $what"
        sed 's/^/        /' "$tmp/out" | tail -15
    fi
}
d=$src/tests/data/ntrace-t1

# Build both examples against the install whose rvtrace.pc is in $1 and run
# them on bundled files; $2 = static or shared.
examples() { # pcdir, kind
    local pc=$1 kind=$2 out=$tmp/ex-$2 flags
    mkdir -p "$out"
    if [ "$kind" = static ]; then
        flags=$(PKG_CONFIG_PATH=$pc pkg-config --cflags --static --libs rvtrace) || return 1
        flags="-static $flags"
    else
        flags=$(PKG_CONFIG_PATH=$pc pkg-config --cflags --libs rvtrace) || return 1
    fi
    for ex in count_functions encode_pclist; do
        # shellcheck disable=SC2086 # flags are words
        cc -std=c11 -Wall -Wextra -Werror "$src/examples/$ex.c" $flags -o "$out/$ex" || return 1
    done
    if [ "$kind" = static ]; then
        readelf -d "$out/count_functions" 2>/dev/null | grep -q NEEDED && { echo "not static"; return 1; }
    else
        readelf -d "$out/count_functions" | grep -q 'NEEDED.*librvtrace.so' || { echo "librvtrace.so not linked"; return 1; }
    fi
    "$out/encode_pclist" ntrace "$d/test.elf" "$d/test-PCONLY.txt" "$out/t1.nex" ntrace-mode=htm callstack=8 repeat=2 &&
        cmp "$out/t1.nex" "$d/test-NEX.bin" &&
        "$out/count_functions" ntrace "$d/test.elf" "$out/t1.nex" >"$out/count.txt" &&
        grep -q '^ *164959  instructions in 4 functions$' "$out/count.txt"
}

# The installed tool: static with the library, and the plugin it will load.
tool_ok() { # prefix
    local bin=$1/bin/rvtrace plugin=$1/lib/rvtrace/librvtrace-qemu.so
    "$bin" --version | grep -q '^rvtrace ' || return 1
    readelf -d "$bin" | grep -q 'NEEDED.*librvtrace' && { echo "$bin needs librvtrace.so"; return 1; }
    readelf -d "$bin" | grep -qE 'R(UN)?PATH' && { echo "$bin has a run path"; return 1; }
    [ -f "$plugin" ] || { echo "no $plugin"; return 1; }
    readelf -d "$plugin" | grep -q 'NEEDED.*librvtrace' && { echo "$plugin needs librvtrace.so"; return 1; }
    # Which plugin capture passes to QEMU: a stand-in QEMU prints its -plugin argument.
    printf '#!/bin/sh\nwhile [ $# -gt 0 ]; do [ "$1" = -plugin ] && echo "$2" >"%s"; shift; done\nexit 1\n' \
        "$tmp/plugin-arg" >"$tmp/fake-qemu"
    chmod +x "$tmp/fake-qemu"
    rm -f "$tmp/plugin-arg"
    "$bin" capture --qemu "$tmp/fake-qemu" -q -o "$tmp/x.ing" -- "$d/test.elf" >/dev/null 2>&1
    local got
    got=$(cut -d, -f1 "$tmp/plugin-arg" 2>/dev/null | sed 's/^file=//')
    [ "$(realpath "$got" 2>/dev/null)" = "$(realpath "$plugin")" ] || { echo "capture loads '$got', not $plugin"; return 1; }
}

man_ok() { # prefix
    MANPATH=$1/share/man man -P cat rvtrace 2>&1 | grep -q 'rvtrace decode' &&
        MANPATH=$1/share/man man -P cat librvtrace 2>&1 | grep -q 'rvt_decode_buffer' &&
        MANPATH=$1/share/man man -w rvtrace | grep -q "^$1/share/man/man1/rvtrace.1"
}

# The installed headers as a C++ program includes them (they declare
# extern "C"): every one parses, with their inline functions.
cxx_ok() { # prefix
    local inc=$1/include
    [ -f "$inc/rvtrace/rvtrace.h" ] || { echo "no $inc/rvtrace/rvtrace.h"; return 1; }
    for h in "$inc"/rvtrace/*.h; do
        printf '#include "rvtrace/%s"\nint main() { return 0; }\n' "$(basename "$h")" > "$tmp/h.cpp"
        clang++ -std=c++11 -Wall -Wextra -Werror -pedantic-errors -fsyntax-only -I"$inc" "$tmp/h.cpp" || return 1
    done
}

echo "== install into a prefix"
p=$tmp/prefix
check "cmake --install --prefix $p" cmake --install "$build" --prefix "$p"
pc=$(dirname "$(find "$p" -name rvtrace.pc | head -1)")
check "rvtrace.pc names the prefix it is in" sh -c "PKG_CONFIG_PATH='$pc' pkg-config --cflags rvtrace | grep -q -- '-I$p/'"
check "examples with pkg-config, shared library, no LD_LIBRARY_PATH" examples "$pc" shared
check "examples with pkg-config --static" examples "$pc" static
check "installed rvtrace and QEMU plugin" tool_ok "$p"
check "the installed headers compile as C++ (clang++ -std=c++11 -pedantic-errors)" cxx_ok "$p"
check "MANPATH=$p/share/man man rvtrace, man librvtrace" man_ok "$p"
mv "$p" "$tmp/moved"
p=$tmp/moved
pc=${pc/$tmp\/prefix/$p}
check "the moved tree: examples, shared" examples "$pc" shared
check "the moved tree: rvtrace and its plugin" tool_ok "$p"

echo "== install with DESTDIR"
stage=$tmp/stage
check "DESTDIR=$stage cmake --install --prefix /opt/rvtrace" env DESTDIR="$stage" cmake --install "$build" --prefix /opt/rvtrace
p=$stage/opt/rvtrace
pc=$(dirname "$(find "$p" -name rvtrace.pc | head -1)")
check "staged tree: examples, shared" examples "$pc" shared
check "staged tree: examples, static" examples "$pc" static
check "staged tree: rvtrace and its plugin" tool_ok "$p"
check "staged tree: man pages" man_ok "$p"

echo "install: $checks checks, $failed failed"
[ $failed -eq 0 ]
