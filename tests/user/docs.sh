#!/usr/bin/env bash
# Every command block of README.md and docs/*.md runs as written.
#
# Each document's blocks run in order in one shell (`bash -e`), as a user
# would type them in one terminal, in a fresh folder laid out like the top of
# an rvtrace checkout after the demo: the source folders (read only, by
# symbolic link), build/demo = this build, the built rvtrace first on PATH,
# HOME inside the folder.  Fences:
#   ```sh       commands: run; every rvtrace in them must succeed (also
#               inside a pipeline; a reader such as head closing early is fine).
#               Not the README's set-up block (it runs this suite).
#   ```console  "$ command" lines run; the lines shown after one must appear
#               in its output in that order ("..." stands for lines left out)
#   ```c, ```text, ... not run (code, file contents, output samples)
#   ```         (no language) is an error: say what the block is.
#   docs.sh [DOC...]        (default: README.md docs/*.md)
set -uo pipefail
src=${RVT_SRC:?} build=${RVT_BUILD:?}
bin=$(dirname "${RVT_BIN:?}")
cd "$src"
docs=("$@")
[ ${#docs[@]} -gt 0 ] || docs=(README.md docs/*.md)

for q in qemu-riscv64 qemu-system-riscv64 riscv64-unknown-elf-gcc; do
    command -v $q >/dev/null || { echo "docs.sh: $q not installed (scripts/deps.sh): skipped"; exit 77; }
done

work=$(mktemp -d /tmp/rvt-docs.XXXXXX)
[ -n "${RVT_DOCS_KEEP:-}" ] && echo "docs.sh: keeping $work" || trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# Untagged fences.
for d in "${docs[@]}"; do
    awk -v F="$d" '/^```/ { if (!inb && $0 == "```") print F ":" NR ": a fenced block without a language (sh, console, text, c ...)";
                            inb = !inb }' "$d"
done >"$work/untagged"
[ -s "$work/untagged" ] && { cat "$work/untagged"; fail "untagged blocks"; }

# The script for one document: its sh blocks verbatim, its console blocks as
# commands whose output is checked.
make_script() { # doc
    awk -v F="$1" '
    function flush_console() {
        if (cmd != "") {
            n++
            printf "( %s ) >\"$RVT_DOC_OUT/%d\" 2>&1 || true\n", cmd, n
            printf "rvt_doc_expect %s:%d \"$RVT_DOC_OUT/%d\" <<'"'"'RVT_DOC_EOF'"'"'\n%sRVT_DOC_EOF\n", F, cline, n, expect
        }
        cmd = ""; expect = ""
    }
    /^```/ {
        if (!inb) {
            inb = 1; lang = substr($0, 4); block = ""; bline = NR
            next
        }
        if (lang == "console") flush_console()
        # The set-up block (the demo and this test suite) is what runs this
        # test: running it here would recurse.
        if (lang == "sh" && block !~ /scripts\/test\.sh/) printf "echo \"### %s:%d\" >&2\n%s", F, bline, block
        inb = 0; next
    }
    inb && lang == "sh" { block = block $0 "\n"; next }
    inb && lang == "console" {
        if (substr($0, 1, 2) == "$ ") { flush_console(); cmd = substr($0, 3); cline = NR; next }
        if (cmd != "") expect = expect $0 "\n"
    }' "$1"
}

# What every script starts with: a failing rvtrace anywhere (also inside a
# pipeline, where `bash -e` does not look) is recorded; 141 is SIGPIPE from
# a reader that stopped early (head).
cat >"$work/prelude.sh" <<'EOF'
rvtrace() {
    local st=0
    command rvtrace "$@" || st=$?
    if [ $st -ne 0 ] && [ $st -ne 141 ]; then
        echo "rvtrace $* -> exit status $st" >>"$RVT_DOC_FAILS"
    fi
    return $st
}
# The lines on stdin must appear in the file, in order; "..." skips lines.
rvt_doc_expect() { # where, file
    local where=$1 out=$2 line
    local -a got
    mapfile -t got <"$out"
    local i=0
    while IFS= read -r line; do
        [ "$line" = "..." ] && continue
        while [ $i -lt ${#got[@]} ] && [ "${got[$i]}" != "$line" ]; do i=$((i + 1)); done
        if [ $i -ge ${#got[@]} ]; then
            echo "$where: the output shown differs from the command's: no line '$line' (in order); it printed:" >>"$RVT_DOC_FAILS"
            head -20 "$out" | sed 's/^/    /' >>"$RVT_DOC_FAILS"
            return 0
        fi
        i=$((i + 1))
    done
}
EOF

stamp=$work/stamp
touch "$stamp"
sleep 1
for d in "${docs[@]}"; do
    name=$(basename "$d" .md)
    dir=$work/$name
    mkdir -p "$dir/home" "$dir/build" "$dir/out"
    for e in "$src"/*; do
        [ "$(basename "$e")" = build ] || ln -s "$e" "$dir/$(basename "$e")"
    done
    ln -s "$build" "$dir/build/demo"
    { cat "$work/prelude.sh"; make_script "$d"; } >"$dir/run.sh"
    grep -q '^echo "### \|^rvt_doc_expect ' "$dir/run.sh" || continue
    : >"$dir/fails"
    start=$SECONDS
    (cd "$dir" && env HOME="$dir/home" PATH="$bin:$PATH" RVT_DOC_FAILS="$dir/fails" RVT_DOC_OUT="$dir/out" \
        bash -e "$dir/run.sh") >"$dir/log" 2>&1
    st=$?
    echo "$d: exit status $st, $((SECONDS - start)) s"
    if [ $st -ne 0 ] || [ -s "$dir/fails" ]; then
        cat "$dir/fails"
        echo "--- the last lines it printed:"
        tail -25 "$dir/log"
        fail "$d"
    fi
done

# Blocks write into their own folder, never into the sources.
changed=$(find "$src/tests/data" "$src/docs" "$src/README.md" -newer "$stamp" 2>/dev/null | head -5)
[ -z "$changed" ] || fail "the blocks wrote into the sources: $changed"

[ $fails -eq 0 ] || { echo "docs.sh: $fails failure(s)"; exit 1; }
echo "docs.sh: every block ran"
