#!/bin/bash
# rvtrace gen: outputs, determinism, `rvtrace check` on the results, help text,
# and (when binutils for RISC-V is installed) objdump agreeing with every
# instruction of the generated code.
set -u
B=${RVT_BIN:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

for x in 32 64; do
  for s in 1 2 3; do
    "$B" gen --xlen $x --seed $s --all --insns 50000 --elf "$T/p.elf" -o "$T/r.ing" --pcs "$T/p.txt" --pcinsn "$T/pi.txt" \
      || bad "gen xlen $x seed $s"
    "$B" gen --xlen $x --seed $s --all --insns 50000 --elf "$T/p2.elf" -o "$T/r2.ing" --pcs "$T/p2.txt" || bad "gen again"
    cmp -s "$T/p.elf" "$T/p2.elf" || bad "ELF differs between identical runs (xlen $x seed $s)"
    cmp -s "$T/r.ing" "$T/r2.ing" || bad "ingress differs between identical runs (xlen $x seed $s)"
    cmp -s "$T/p.txt" "$T/p2.txt" || bad "PC list differs between identical runs (xlen $x seed $s)"
    [ "$(wc -l < "$T/p.txt")" -eq 50000 ] || bad "PC list has $(wc -l < "$T/p.txt") lines, expected 50000"
    [ "$(wc -l < "$T/pi.txt")" -eq 50000 ] || bad "PC+insn list has $(wc -l < "$T/pi.txt") lines"
    out=$("$B" check --elf "$T/p.elf" --input "$T/r.ing") || bad "check xlen $x seed $s: $out"
    echo "$out" | grep -q "50000 instructions, all consistent" || bad "check output: $out"
    # the PC+insn form is readable by the ingress reader, and agrees with the code
    "$B" check --elf "$T/p.elf" --input "$T/r.ing" --input-format ingress > /dev/null || bad "check ingress format"
    # merged records describe the same execution
    "$B" gen --xlen $x --seed $s --all --insns 50000 --merge-blocks -o "$T/m.ing" || bad "gen --merge-blocks"
    "$B" check --elf "$T/p.elf" --input "$T/m.ing" | grep -q "50000 instructions, all consistent" || bad "check merged"
    if command -v riscv64-unknown-elf-objdump > /dev/null; then
      # objdump decodes the same instruction boundaries, never an unknown word
      riscv64-unknown-elf-objdump -d "$T/p.elf" > "$T/dis.txt" || bad "objdump"
      if grep -Eq '\.insn|\.word|\.short|unknown|\(bad\)' "$T/dis.txt"; then bad "objdump finds invalid code"; fi
      # every executed PC is an instruction start in objdump's listing
      awk '/^ *[0-9a-f]+:\t/ { sub(":", "", $1); print $1 }' "$T/dis.txt" | sed 's/^0*//' | sort -u > "$T/starts.txt"
      awk '{ print $1 }' "$T/pi.txt" | sed 's/^0*//' | sort -u > "$T/ran.txt"
      missing=$(comm -13 "$T/starts.txt" "$T/ran.txt" | head -3)
      [ -z "$missing" ] || bad "executed PCs objdump does not list as instructions: $missing"
    fi
  done
done
# raw binaries: check accepts them instead of the ELF
rawargs=$("$B" gen --seed 4 --all --insns 20000 --raw "$T/raw" -o "$T/raw.ing") || bad "gen --raw"
[ -n "$rawargs" ] || bad "gen --raw printed no --raw arguments"
"$B" check $rawargs --xlen 64 --input "$T/raw.ing" | grep -q "20000 instructions, all consistent" || bad "check with --raw files"
# a chosen placement: RV64 kernel half, RV32 just below 2 GiB
"$B" gen --xlen 64 --all --text-base 0xffffffff80000000 --insns 30000 --elf "$T/k.elf" -o "$T/k.ing" --stats > "$T/k.txt" || bad "gen --text-base"
grep -q "entry 0xffffffff80000000" "$T/k.txt" || bad "entry not at --text-base"
"$B" check --elf "$T/k.elf" --input "$T/k.ing" | grep -q "30000 instructions, all consistent" || bad "check kernel-half program"
"$B" gen --xlen 32 --text-base 0x1234 --elf "$T/x.elf" 2> "$T/e.txt"; [ $? -ne 0 ] && grep -q "text_base" "$T/e.txt" || bad "unaligned --text-base accepted"
# statistics name what the execution contains
"$B" gen --seed 9 --all --insns 100000 --stats > "$T/st.txt" || bad "gen --stats"
grep -q "exceptions" "$T/st.txt" && grep -q "by privilege" "$T/st.txt" || bad "stats text"
# help lists every option and feature
"$B" gen --help > "$T/h.txt" || bad "gen --help"
for o in --seed --run-seed --xlen --insns --functions --processes --max-recursion --max-loop --max-nesting \
         --max-stmts --cost-limit --p-compressed --p-call --p-indirect --p-taken --p-trap --p-syscall --p-longjmp \
         --interrupt-interval --stall-max --text-base --elf --raw -o --pcs --pcinsn --merge-blocks --stats --all --none \
         --compressed --loops --recursion --tailcalls --tables --sijumps --altlink --coroutines --longjmp --farcode \
         --atomics --fp --traps --interrupts --nested --priv --context --time --data; do
  grep -q -- "$o" "$T/h.txt" || bad "--help does not mention $o"
done
# errors: bad option, bad value, out of range, nothing to do
"$B" gen --bogus > /dev/null 2>&1; [ $? -eq 2 ] || bad "unknown option not a usage error"
"$B" gen --xlen 48 --elf "$T/x.elf" 2> "$T/e.txt"; [ $? -ne 0 ] && grep -q "xlen" "$T/e.txt" || bad "xlen 48 accepted"
"$B" gen --insns abc --elf "$T/x.elf" > /dev/null 2>&1; [ $? -eq 2 ] || bad "non-number accepted"
"$B" gen > /dev/null 2>&1; [ $? -eq 2 ] || bad "no output accepted"
"$B" gen --elf /nonexistent/dir/x.elf 2> "$T/e.txt"; [ $? -ne 0 ] && grep -q "/nonexistent/dir/x.elf" "$T/e.txt" || bad "unwritable path"
exit $fail
