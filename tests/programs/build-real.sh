#!/bin/bash
# Build real RISC-V programs from Debian source packages for trace capture.
#
#   tests/programs/build-real.sh [--cache DIR] [--quiet]
#
# Fetches the Debian 12 source packages bzip2, zlib (for minigzip) and
# lua5.4 with `apt-get source`, through a private deb-src list derived from
# the system's own apt sources (the system's apt configuration is not
# changed), and cross-builds static riscv64 executables with
# riscv64-linux-gnu-gcc.  Static executables need no guest sysroot under
# qemu-riscv64.  Lua is built with its clock/address-seeded randomness
# (string hash seed, table.sort pivot) replaced by constants so that a run
# is repeatable.
#
# Results go to DIR (default: build/real-programs under the current
# directory, or $RVT_REAL_CACHE); a program already built there is reused.
# On success the last lines of output are "name<TAB>absolute path", one per
# program: bzip2, minigzip, lua.
#
# Needs: gcc-riscv64-linux-gnu libc6-dev-riscv64-cross dpkg-dev, and the
# package archive reachable for the first run.
set -euo pipefail

cache=${RVT_REAL_CACHE:-build/real-programs}
quiet=0
while [ $# -gt 0 ]; do
    case $1 in
    --cache) cache=$2; shift 2 ;;
    --cache=*) cache=${1#--cache=}; shift ;;
    --quiet) quiet=1; shift ;;
    -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "build-real.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done

CC=${RVT_RISCV_CC:-riscv64-linux-gnu-gcc}
common_cflags=(-O2 -static)
jobs=${RVT_JOBS:-2}

say() { [ "$quiet" = 1 ] || echo "build-real.sh: $*" >&2; }
die() { echo "build-real.sh: error: $*" >&2; exit 1; }

command -v "$CC" >/dev/null || die "$CC not found (apt-get install gcc-riscv64-linux-gnu libc6-dev-riscv64-cross)"
command -v apt-get >/dev/null || die "apt-get not found: this script fetches Debian source packages"
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
bindir=$cache/bin
srcdir=$cache/src
mkdir -p "$bindir" "$srcdir"
# Concurrent runs (parallel tests) share the cache: one builds, the others wait.
if command -v flock >/dev/null; then
    exec 9>"$cache/.lock"
    flock 9
fi

# ---- private apt configuration: deb-src entries for the system's own mirrors ----
apt_dir=$cache/apt
apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list"
          -o "Dir::Etc::SourceParts=$apt_dir/sources.list.d"
          -o "Dir::State::Lists=$apt_dir/lists"
          -o "Dir::Cache=$apt_dir/cache"
          -o "APT::Sandbox::User=root"
          -q)

setup_apt() {
    [ -f "$apt_dir/ready" ] && return 0
    command -v dpkg-source >/dev/null || die "dpkg-source not found (apt-get install dpkg-dev): apt-get source needs it"
    rm -rf "$apt_dir"
    mkdir -p "$apt_dir/sources.list.d" "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
    : >"$apt_dir/sources.list"
    local f found=0
    # One-line format: every "deb" line gets a "deb-src" twin.
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] || continue
        if grep -Eq '^[[:space:]]*deb[[:space:]]' "$f"; then
            sed -n -E 's/^[[:space:]]*deb[[:space:]]/deb-src /p' "$f" >>"$apt_dir/sources.list"
            found=1
        fi
    done
    # deb822 format: the same stanzas with Types: deb-src.
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        if grep -Eq '^Types:.*\bdeb\b' "$f"; then
            sed -E 's/^Types:.*$/Types: deb-src/' "$f" >"$apt_dir/sources.list.d/$(basename "$f")"
            found=1
        fi
    done
    [ "$found" = 1 ] || die "no Debian package sources found in /etc/apt to derive deb-src entries from"
    say "apt-get update (private deb-src lists in $apt_dir)"
    apt-get "${apt_opts[@]}" update >"$apt_dir/update.log" 2>&1 ||
        { cat "$apt_dir/update.log" >&2; die "apt-get update of the private deb-src list failed"; }
    touch "$apt_dir/ready"
}

# fetch PACKAGE: unpack the Debian source package into $srcdir/PACKAGE (once).
fetch() {
    local pkg=$1 dir
    if [ -f "$srcdir/$pkg.ready" ]; then
        cat "$srcdir/$pkg.ready"
        return 0
    fi
    setup_apt
    rm -rf "$srcdir/$pkg.tmp"
    mkdir -p "$srcdir/$pkg.tmp"
    say "apt-get source $pkg"
    (cd "$srcdir/$pkg.tmp" && apt-get "${apt_opts[@]}" source "$pkg") >"$srcdir/$pkg.log" 2>&1 ||
        { cat "$srcdir/$pkg.log" >&2; die "apt-get source $pkg failed"; }
    dir=$(find "$srcdir/$pkg.tmp" -mindepth 1 -maxdepth 1 -type d | head -n1)
    [ -n "$dir" ] || die "apt-get source $pkg unpacked nothing (see $srcdir/$pkg.log)"
    rm -rf "$srcdir/$pkg"
    mv "$srcdir/$pkg.tmp" "$srcdir/$pkg"
    dir=$srcdir/$pkg/$(basename "$dir")
    echo "$dir" >"$srcdir/$pkg.ready"
    echo "$dir"
}

# compile OUT OBJDIR SOURCES... -- CFLAGS...: compile $jobs at a time, link statically.
compile() {
    local out=$1 objdir=$2
    shift 2
    local srcs=()
    while [ "$1" != "--" ]; do srcs+=("$1"); shift; done
    shift
    local cflags=("$@") src running=0 failed=0
    rm -rf "$objdir"
    mkdir -p "$objdir"
    for src in "${srcs[@]}"; do
        "$CC" "${cflags[@]}" -c "$src" -o "$objdir/$(basename "$src" .c).o" &
        running=$((running + 1))
        if [ "$running" -ge "$jobs" ]; then
            wait -n || failed=1
            running=$((running - 1))
        fi
    done
    while [ "$running" -gt 0 ]; do
        wait -n || failed=1
        running=$((running - 1))
    done
    [ "$failed" = 0 ] || die "compiling $(basename "$out") failed"
    "$CC" "${cflags[@]}" "$objdir"/*.o -o "$out.tmp" -lm || die "linking $(basename "$out") failed"
    mv "$out.tmp" "$out"
}

build_bzip2() {
    [ -x "$bindir/bzip2" ] && return 0
    local d
    d=$(fetch bzip2)
    say "building bzip2 from $(basename "$d")"
    compile "$bindir/bzip2" "$cache/obj/bzip2" \
        "$d"/blocksort.c "$d"/huffman.c "$d"/crctable.c "$d"/randtable.c "$d"/compress.c \
        "$d"/decompress.c "$d"/bzlib.c "$d"/bzip2.c \
        -- "${common_cflags[@]}" -D_FILE_OFFSET_BITS=64 -w
}

build_minigzip() {
    [ -x "$bindir/minigzip" ] && return 0
    local d src
    d=$(fetch zlib)
    say "building minigzip from $(basename "$d")"
    src=$d/test/minigzip.c
    [ -f "$src" ] || src=$d/minigzip.c
    [ -f "$src" ] || die "minigzip.c not found in $d"
    compile "$bindir/minigzip" "$cache/obj/minigzip" \
        "$d"/adler32.c "$d"/crc32.c "$d"/deflate.c "$d"/infback.c "$d"/inffast.c "$d"/inflate.c \
        "$d"/inftrees.c "$d"/trees.c "$d"/zutil.c "$d"/compress.c "$d"/uncompr.c "$d"/gzclose.c \
        "$d"/gzlib.c "$d"/gzread.c "$d"/gzwrite.c "$src" \
        -- "${common_cflags[@]}" -D_LARGEFILE64_SOURCE=1 -DHAVE_UNISTD_H -DHAVE_STDARG_H "-I$d" -w
}

build_lua() {
    [ -x "$bindir/lua" ] && return 0
    local d s
    d=$(fetch lua5.4)
    say "building lua from $(basename "$d")"
    s=$d/src
    # Sanity: the two seeding hooks this build overrides must still exist.
    grep -q 'luai_makeseed' "$s/lstate.c" || die "$s/lstate.c has no luai_makeseed hook"
    grep -q 'l_randomizePivot' "$s/ltablib.c" || die "$s/ltablib.c has no l_randomizePivot hook"
    local files=() f
    for f in "$s"/*.c; do
        case $(basename "$f") in luac.c|onelua.c) continue ;; esac
        files+=("$f")
    done
    # Debian's luaconf.h patch includes a header its rules generate.
    mkdir -p "$cache/obj/lua-include"
    echo '#define DEB_HOST_MULTIARCH "riscv64-linux-gnu"' >"$cache/obj/lua-include/lua5.4-deb-multiarch.h"
    # LUA_USE_POSIX (not LUA_USE_LINUX): no dlopen in a static executable.
    compile "$bindir/lua" "$cache/obj/lua" "${files[@]}" \
        -- "${common_cflags[@]}" "-I$cache/obj/lua-include" -std=gnu99 -DLUA_COMPAT_5_3 -DLUA_USE_POSIX \
        '-Dluai_makeseed(L)=0x5eedU' '-Dl_randomizePivot()=0x9e3779b9U' -w
}

start=$(date +%s.%N)
# Executables built by an older version of this script (other flags) are rebuilt.
stamp=$(cksum <"$0" | cut -d' ' -f1)
if [ "$(cat "$bindir/.stamp" 2>/dev/null)" != "$stamp" ]; then
    rm -f "$bindir"/bzip2 "$bindir"/minigzip "$bindir"/lua
    echo "$stamp" >"$bindir/.stamp"
fi
build_bzip2
build_minigzip
build_lua
end=$(date +%s.%N)
say "done in $(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.1f", b-a}') s"
for p in bzip2 minigzip lua; do
    printf '%s\t%s\n' "$p" "$bindir/$p"
done
