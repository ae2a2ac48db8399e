#!/usr/bin/env python3
"""The source lines of an instruction listing (rvtrace decode --output insn
with DWARF) against binutils' addr2line: before every instruction that has
a source line, the last FILE:LINE row printed names that line, and a row is
printed only when the line changes.  (Line numbers are compared, not file
names: for inlined code the two readers of the line tables can name
different files for the same row.)

    listing_lines.py LISTING ELF [ADDR2LINE]
"""
import re
import subprocess
import sys

listing, elf = sys.argv[1], sys.argv[2]
addr2line = sys.argv[3] if len(sys.argv) > 3 else 'riscv64-unknown-elf-addr2line'
insn = re.compile(r'^ *([0-9a-f]+):\t')
srcrow = re.compile(r'^([^\t<#][^\t]*):([0-9]+)$')
rows = open(listing).read().split('\n')
pcs = sorted({int(m.group(1), 16) for r in rows for m in [insn.match(r)] if m})
out = subprocess.run([addr2line, '-e', elf] + ['%x' % p for p in pcs], capture_output=True, text=True,
                     check=True).stdout.split('\n')
line_of = {}
for pc, text in zip(pcs, out):
    _, _, line = text.split(' (discriminator')[0].rpartition(':')
    line_of[pc] = int(line) if line.isdigit() and int(line) > 0 else None
cur = None
n = wrong = printed = 0
for r in rows:
    m = insn.match(r)
    if m:
        n += 1
        want = line_of[int(m.group(1), 16)]
        if want is not None and (cur is None or want != cur[1]):
            wrong += 1
            if wrong <= 5:
                print('FAIL: %s: source line %d, but the listing is at %s' % (m.group(1), want, cur))
        continue
    m = srcrow.match(r)
    if m:
        printed += 1
        row = (m.group(1), int(m.group(2)))
        if row == cur:
            wrong += 1
            if wrong <= 5:
                print('FAIL: %s printed again' % r)
        cur = row
print('%s: %d instruction lines, %d source rows, %d wrong' % (listing, n, printed, wrong))
sys.exit(1 if wrong or not printed else 0)
