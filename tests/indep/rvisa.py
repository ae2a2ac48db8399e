"""Minimal ELF loader + RISC-V instruction classifier (independent)."""
import struct

class Image:
    def __init__(self, path):
        d = open(path, 'rb').read()
        assert d[:4] == b'\x7fELF'
        self.cls64 = d[4] == 2
        self.xlen = 64 if self.cls64 else 32
        if self.cls64:
            e_phoff, = struct.unpack_from('<Q', d, 0x20)
            e_phentsize, e_phnum = struct.unpack_from('<HH', d, 0x36)
        else:
            e_phoff, = struct.unpack_from('<I', d, 0x1c)
            e_phentsize, e_phnum = struct.unpack_from('<HH', d, 0x2a)
        self.segs = []
        for i in range(e_phnum):
            o = e_phoff + i * e_phentsize
            if self.cls64:
                p_type, p_flags, p_off, p_vaddr, p_paddr, p_filesz, p_memsz, _ = struct.unpack_from('<IIQQQQQQ', d, o)
            else:
                p_type, p_off, p_vaddr, p_paddr, p_filesz, p_memsz, p_flags, _ = struct.unpack_from('<IIIIIIII', d, o)
            if p_type == 1 and p_filesz:
                self.segs.append((p_vaddr, d[p_off:p_off + p_filesz]))
        self.cache = {}

    def read16(self, a):
        for base, b in self.segs:
            if base <= a and a + 2 <= base + len(b):
                return b[a - base] | (b[a - base + 1] << 8)
        raise KeyError(hex(a))

    def insn(self, pc):
        r = self.cache.get(pc)
        if r is None:
            lo = self.read16(pc)
            if lo & 3 == 3:
                w = lo | (self.read16(pc + 2) << 16)
                r = classify32(w, pc, self.xlen)
            else:
                r = classify16(lo, pc, self.xlen)
            self.cache[pc] = r
        return r

def sx(v, bits):
    m = 1 << (bits - 1)
    return (v & (m - 1)) - (v & m)

# kinds: seq, br, jal, jalr, ecall, ebreak, eret(mret/sret/uret), wfi, load, store, amo, csr
def classify32(w, pc, xlen):
    mask = (1 << xlen) - 1
    op = w & 0x7f
    f3 = (w >> 12) & 7
    rd = (w >> 7) & 31
    rs1 = (w >> 15) & 31
    if op == 0x63:
        imm = ((w >> 31) << 12) | (((w >> 7) & 1) << 11) | (((w >> 25) & 0x3f) << 5) | (((w >> 8) & 0xf) << 1)
        return (4, 'br', (pc + sx(imm, 13)) & mask, {})
    if op == 0x6f:
        imm = ((w >> 31) << 20) | (((w >> 12) & 0xff) << 12) | (((w >> 20) & 1) << 11) | (((w >> 21) & 0x3ff) << 1)
        return (4, 'jal', (pc + sx(imm, 21)) & mask, {'rd': rd})
    if op == 0x67:
        return (4, 'jalr', None, {'rd': rd, 'rs1': rs1})
    if op in (0x03, 0x07):
        return (4, 'load', None, {})
    if op in (0x23, 0x27):
        return (4, 'store', None, {})
    if op == 0x2f:
        f5 = w >> 27
        if f5 == 2:
            return (4, 'load', None, {'lr': 1})
        if f5 == 3:
            return (4, 'amo', None, {'sc': 1})
        return (4, 'amo', None, {})
    if op == 0x73:
        if f3 == 0:
            if w == 0x00000073: return (4, 'ecall', None, {})
            if w == 0x00100073: return (4, 'ebreak', None, {})
            if w in (0x30200073, 0x10200073, 0x00200073): return (4, 'eret', None, {})
            if w == 0x10500073: return (4, 'wfi', None, {})
            return (4, 'seq', None, {'sys': w})
        if f3 == 4:
            return (4, 'seq', None, {})
        # csr: read unless csrrw/csrrwi with rd=0; write unless csrrs/c(i) with rs1/uimm=0
        rw = f3 & 3
        reads = not (rw == 1 and rd == 0)
        writes = not (rw in (2, 3) and rs1 == 0)
        return (4, 'csr', None, {'r': reads, 'w': writes, 'csr': w >> 20})
    return (4, 'seq', None, {})

def classify16(h, pc, xlen):
    mask = (1 << xlen) - 1
    q = h & 3
    f3 = h >> 13
    if q == 1:
        if f3 == 5 or (f3 == 1 and xlen == 32):
            b = h
            imm = (((b >> 12) & 1) << 11) | (((b >> 11) & 1) << 4) | (((b >> 9) & 3) << 8) | (((b >> 8) & 1) << 10) | \
                  (((b >> 7) & 1) << 6) | (((b >> 6) & 1) << 7) | (((b >> 3) & 7) << 1) | (((b >> 2) & 1) << 5)
            return (2, 'jal', (pc + sx(imm, 12)) & mask, {'rd': 0 if f3 == 5 else 1})
        if f3 in (6, 7):
            b = h
            imm = (((b >> 12) & 1) << 8) | (((b >> 10) & 3) << 3) | (((b >> 5) & 3) << 6) | (((b >> 3) & 3) << 1) | (((b >> 2) & 1) << 5)
            return (2, 'br', (pc + sx(imm, 9)) & mask, {})
        return (2, 'seq', None, {})
    if q == 0:
        if f3 in (1, 2, 3):
            return (2, 'load', None, {})
        if f3 in (5, 6, 7):
            return (2, 'store', None, {})
        return (2, 'seq', None, {})
    if q == 2:
        if f3 in (1, 2, 3):
            return (2, 'load', None, {})
        if f3 in (5, 6, 7):
            return (2, 'store', None, {})
        if f3 == 4:
            b12 = (h >> 12) & 1
            rs1 = (h >> 7) & 31
            rs2 = (h >> 2) & 31
            if rs2 == 0 and rs1 != 0:
                return (2, 'jalr', None, {'rd': b12, 'rs1': rs1})
            if h == 0x9002:
                return (2, 'ebreak', None, {})
        return (2, 'seq', None, {})
    raise ValueError
