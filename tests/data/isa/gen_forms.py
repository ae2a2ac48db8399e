#!/usr/bin/env python3
"""Generates forms-rv64.objd.txt and forms-rv32.objd.txt (see README.md).

Candidate words: every 16-bit parcel, every (opcode, funct3, funct7) of the
32-bit space with random register/immediate fields (plus rs1=0, rs2=0
variants and special immediates), every CSR number under every Zicsr form.
binutils 2.40 disassembles them; we keep a few words per distinct output
shape (mnemonic plus operand classes; CSR, rounding-mode and fence-set names
kept literally, every CSR name once), write those words to a new raw image and list it with
objdump again, so the committed file is genuine objdump output."""
import os, random, re, struct, subprocess, sys, tempfile

OBJCOPY = 'riscv64-unknown-elf-objcopy'
OBJDUMP = 'riscv64-unknown-elf-objdump'
PER_SHAPE = 2

def candidates():
    rnd = random.Random(20240611)
    ws = [w for w in range(0x10000) if w & 3 != 3]
    for op in range(32):
        if op & 7 == 7:
            continue  # 48-bit and longer
        for f3 in range(8):
            for f7 in range(128):
                for k in range(3):
                    w = (op << 2) | 3 | f3 << 12 | f7 << 25 | rnd.getrandbits(5) << 7 \
                        | rnd.getrandbits(5) << 15 | rnd.getrandbits(5) << 20
                    if k == 1:
                        w &= ~(31 << 20)
                    if k == 2:
                        w &= ~(31 << 15)
                    ws.append(w)
    for imm in (0, 1, 0x7ff, 0xfff, 0x800, 0xff, 0x1f, 0x20, 0x3f, 0x400, 0x420):
        for op in (0x13, 0x1b, 0x67, 0x03, 0x0f):
            for f3 in range(8):
                for rd, rs1 in ((0, 0), (1, 0), (0, 1), (5, 10), (10, 11)):
                    ws.append(op | rd << 7 | f3 << 12 | rs1 << 15 | imm << 20)
    for csr in range(4096):
        for f3 in (1, 2, 3, 5, 6, 7):
            for rd, rs1 in ((0, 0), (10, 0), (0, 11), (10, 11)):
                ws.append(0x73 | rd << 7 | f3 << 12 | rs1 << 15 | csr << 20)
    return ws

def image(words):
    out = b''
    for w in words:
        out += struct.pack('<H', w) if w & 3 != 3 else struct.pack('<I', w)
    return out

def objdump(blob, xlen, name):
    with tempfile.TemporaryDirectory() as d:
        raw = os.path.join(d, name)
        open(raw, 'wb').write(blob)
        elf = raw + '.elf'
        subprocess.check_call([OBJCOPY, '-I', 'binary', '-O', 'elf%d-littleriscv' % xlen,
                               '-B', 'riscv:rv%d' % xlen, '--rename-section',
                               '.data=.text,code,alloc,load,readonly,contents', raw, elf])
        return subprocess.run([OBJDUMP, '-d', elf], cwd=d, check=True,
                              capture_output=True, text=True).stdout

LINE = re.compile(r'^\s*([0-9a-f]+):\t([0-9a-f ]+?)\s*\t(.*)$')
XREGS = set('zero ra sp gp tp t0 t1 t2 s0 s1 a0 a1 a2 a3 a4 a5 a6 a7 s2 s3 s4 s5 s6 s7 s8 s9 '
            's10 s11 t3 t4 t5 t6'.split())
FREGS = set(['ft%d' % i for i in range(12)] + ['fs%d' % i for i in range(12)] +
            ['fa%d' % i for i in range(8)])

def shape(text, csr_op):
    text = re.sub(r'\s*#.*$', '', text)
    text = re.sub(r'\s*<[^>]*>', '', text).strip()
    parts = text.split('\t', 1)
    mn, ops = parts[0], (parts[1].split(',') if len(parts) > 1 else [])
    cls = []
    for i, o in enumerate(ops):
        m = re.fullmatch(r'(-?\d+|0x[0-9a-f]+)\((\w+)\)', o)
        if m:
            cls.append('mem')
        elif csr_op and i == (0 if len(ops) == 2 and not mn.startswith('csrr') else 1):
            # every CSR name once (in csrr), otherwise named vs numbered
            cls.append('csrnum' if o.startswith('0x') else o if mn == 'csrr' else 'csr')
        elif o in ('zero', 'ra', 'sp'):
            cls.append(o)
        elif o in XREGS:
            cls.append('reg')
        elif o in FREGS:
            cls.append('freg')
        elif re.fullmatch(r'-?\d+', o):
            cls.append('0' if o == '0' else 'neg' if o[0] == '-' else 'num')
        elif re.fullmatch(r'0x[0-9a-f]+', o):
            cls.append('hex')
        elif re.fullmatch(r'[0-9a-f]+', o):
            cls.append('addr')
        else:
            cls.append(o)  # rounding mode, fence set, or anything new
    return mn + ' ' + ','.join(cls)

def main():
    words = candidates()
    for xlen in (64, 32):
        listing = objdump(image(words), xlen, 'all.bin')
        seen, keep = {}, []
        for line in listing.splitlines():
            m = LINE.match(line)
            if not m:
                continue
            bits = m.group(2).replace(' ', '')
            w = int(bits, 16)
            csr_op = len(bits) == 8 and (w & 0x7f) == 0x73 and (w >> 12) & 7 not in (0, 4)
            s = shape(m.group(3), csr_op)
            if seen.get(s, 0) < PER_SHAPE:
                seen[s] = seen.get(s, 0) + 1
                keep.append(w)
        out = objdump(image(keep), xlen, 'forms-rv%d' % xlen)
        open('forms-rv%d.objd.txt' % xlen, 'w').write(out)
        print('rv%d: %d candidates, %d shapes, %d words kept' % (xlen, len(words), len(seen), len(keep)))

if __name__ == '__main__':
    os.chdir(os.path.dirname(os.path.abspath(sys.argv[0])))
    main()
