#!/usr/bin/env bash
# The full corruption campaign (docs/decoding.md, tests/integrity/campaign.c):
# every option set of tests/integrity/campaign-sets.txt (the main sets of
# bench/families.txt, plus N-Trace with periodic sync) on the whole bundled
# real capture (bzip2 -9, 1.47 M instructions) and a generated program (100 k
# instructions with traps, interrupts, privilege and context switches);
# 250 trials per set and input (>= 1,000 per family), seed 1.  Prints the
# Markdown table that bench/RESULTS.md holds, and the reproducers of every
# bug (their files go to WORKDIR/repro).
#   bench/campaign.sh [WORKDIR] [extra rvt_campaign options]
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
work=${1:-$top/build/campaign-work}
shift || true
mkdir -p "$work"
cmake -S . -B build/campaign -DCMAKE_BUILD_TYPE=Release -DRVT_BUILD_TESTS=ON -DRVT_BUILD_QEMU_PLUGIN=OFF >/dev/null
cmake --build build/campaign -j2 --target rvt_campaign >/dev/null
echo '```'
echo "\$ rvt_campaign --trials 250 --seed 1 --markdown --sets tests/integrity/campaign-sets.txt $*"
echo '```'
RVT_TEST_DATA=$top/tests/data RVT_SRC=$top TMPDIR=$work \
    build/campaign/tests/integrity/rvt_campaign --trials 250 --seed 1 --markdown --out "$work/repro" \
    --sets tests/integrity/campaign-sets.txt "$@"
