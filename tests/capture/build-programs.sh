# Fixture: build the real programs once (later tests reuse the cache).
source "$(dirname "$0")/lib.sh"
start=$(date +%s.%N)
for p in bzip2 minigzip lua; do
    path=$(real_program "$p")
    is_riscv_elf "$path" || fail "$path is not a RISC-V ELF executable"
done
end=$(date +%s.%N)
awk -v a="$start" -v b="$end" 'BEGIN { printf "real programs ready in %.1f s\n", b - a }'
