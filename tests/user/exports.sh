#!/usr/bin/env bash
# librvtrace.so exports exactly the public API: every function and object
# declared in include/rvtrace/*.h, and nothing else (internal functions such
# as the families' nt_*, et_*, cdl_* stay hidden and cannot collide with a
# user's names).
#   exports.sh LIBRVTRACE.so
set -uo pipefail
lib=${1:?usage: exports.sh LIBRVTRACE.so}
inc=${RVT_SRC:?}/include
command -v gcc >/dev/null && command -v nm >/dev/null || { echo "exports.sh: needs gcc and nm"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# rvtrace.h is the whole API: it includes every public header.
for h in "$inc"/rvtrace/*.h; do
    b=$(basename "$h")
    [ "$b" = rvtrace.h ] || grep -q "#include \"rvtrace/$b\"" "$inc/rvtrace/rvtrace.h" ||
        fail "rvtrace/rvtrace.h does not include rvtrace/$b"
    # Each header exports what it declares (the library is built with
    # -fvisibility=hidden).
    grep -q '^#pragma GCC visibility push(default)' "$h" && grep -q '^#pragma GCC visibility pop' "$h" ||
        fail "$b lacks '#pragma GCC visibility push(default)' / 'pop' around its declarations"
done

# Declared functions: gcc lists every prototype it sees, with its file
# (static inline functions are not exported and are left out).
printf '#include <rvtrace/rvtrace.h>\n' >"$tmp/all.c"
gcc -std=c11 -I"$inc" -fsyntax-only -aux-info "$tmp/aux.txt" "$tmp/all.c" || fail "the public headers do not compile"
awk -v I="$inc/rvtrace/" 'index($0, I) && / extern / {
        sub(/^\/\*[^*]*\*\/ */, "")
        if (match($0, /[A-Za-z_][A-Za-z0-9_]* \(/)) print substr($0, RSTART, RLENGTH - 2)
    }' "$tmp/aux.txt" | sort -u >"$tmp/functions"
# Declared objects: "extern TYPE name;" lines.
grep -h '^extern [^"]' "$inc"/rvtrace/*.h | grep -v '(' | sed -E 's/.*[ *]([A-Za-z_][A-Za-z0-9_]*)(\[[^]]*\])? *;.*/\1/' |
    sort -u >"$tmp/objects"
sort -u "$tmp/functions" "$tmp/objects" >"$tmp/declared"
[ -s "$tmp/functions" ] || fail "no declarations found in the headers"

nm -D --defined-only "$lib" | awk '{ print $NF }' | sort -u >"$tmp/exported"
[ -s "$tmp/exported" ] || fail "$lib exports nothing"

comm -13 "$tmp/declared" "$tmp/exported" >"$tmp/extra"
comm -23 "$tmp/declared" "$tmp/exported" >"$tmp/missing"
[ -s "$tmp/extra" ] && fail "$(wc -l <"$tmp/extra") exported symbols are not declared in include/rvtrace/: $(head -20 "$tmp/extra" | tr '\n' ' ')"
[ -s "$tmp/missing" ] && fail "$(wc -l <"$tmp/missing") declared functions/objects are not exported (not defined, or defined static/hidden): $(head -20 "$tmp/missing" | tr '\n' ' ')"
grep -v '^rvt_' "$tmp/declared" >"$tmp/unprefixed" && fail "public names without the rvt_ prefix: $(tr '\n' ' ' <"$tmp/unprefixed")"

echo "exports.sh: $(wc -l <"$tmp/exported") symbols exported, $(wc -l <"$tmp/declared") declared"
[ $fails -eq 0 ]
