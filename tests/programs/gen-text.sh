#!/bin/bash
# gen-text.sh BYTES [SEED] > FILE
#
# Deterministic English-like text for compressor runs: words drawn from a
# fixed list by a Park-Miller generator, whose products stay below 2^53 so
# every awk (mawk, gawk, busybox) computes the same bytes.
set -euo pipefail
bytes=${1:?usage: gen-text.sh BYTES [SEED]}
seed=${2:-1}
awk -v bytes="$bytes" -v seed="$seed" 'BEGIN {
    n = split("the of and to in is that it was for on are as with his they at be this from " \
              "have or by one had not but what all were when we there can an your which their " \
              "said if do will each about how up out them then she many some so these would other " \
              "into has more her two like him see time could no make than first been its who now " \
              "trace packet branch decoder encoder address instruction retired block sync " \
              "compress buffer stream header checksum", w, " ")
    x = seed % 2147483647; if (x <= 0) x += 2147483646
    out = 0; line = ""
    while (out < bytes) {
        x = (x * 16807) % 2147483647
        word = w[1 + int(x / 2147483647 * n)]
        x = (x * 16807) % 2147483647
        # Zipf-like skew: favour the first words of the list.
        if (x % 3 == 0) word = w[1 + (x % 12)]
        line = (line == "" ? word : line " " word)
        if (length(line) > 60) {
            line = line "\n"
            if (out + length(line) > bytes) line = substr(line, 1, bytes - out)
            printf "%s", line; out += length(line); line = ""
        }
    }
}'
