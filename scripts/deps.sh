#!/usr/bin/env bash
# Install what rvtrace's build, demo and tests need on Debian 12 (as root).
# Only missing packages are installed; nothing else on the system changes.
set -euo pipefail
pkgs=(cmake make gcc clang libclang-rt-14-dev
      gcc-riscv64-linux-gnu libc6-dev-riscv64-cross
      gcc-riscv64-unknown-elf binutils-riscv64-unknown-elf picolibc-riscv64-unknown-elf
      qemu-user qemu-system-misc dpkg-dev xz-utils ca-certificates bc time pkg-config
      man-db libdw-dev lcov valgrind chromium fonts-dejavu-core python3 parallel)
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" != 0 ]; then
        echo "deps.sh: missing packages: ${missing[*]} (run as root, or install them)" >&2
        exit 1
    fi
    echo "deps.sh: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null || apt-get update
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
