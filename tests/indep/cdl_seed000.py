#!/usr/bin/env python3
"""Independent decoder for the 'CDL RISC-V compressed nybble trace' (seed 000).

Written from the seed text only.  Nybble stream, little-endian packing
(first nybble = low nybble of lowest-address byte).  Control nybbles:
 0 skip; 1-7 SSS sequential; 8 branch; 9 jal/jalr; A trap; B xret;
 C RNNN + 2*NNN data nybbles; D NNNN tracepoint; E/F reserved.
"""
import struct, sys, argparse


# ---------------------------------------------------------------- ELF / ISA
class Code:
    def __init__(self, path):
        d = open(path, 'rb').read()
        assert d[:4] == b'\x7fELF'
        self.is64 = d[4] == 2
        self.xlen = 64 if self.is64 else 32
        if self.is64:
            shoff, = struct.unpack_from('<Q', d, 0x28)
            shentsize, shnum = struct.unpack_from('<HH', d, 0x3a)
        else:
            shoff, = struct.unpack_from('<I', d, 0x20)
            shentsize, shnum = struct.unpack_from('<HH', d, 0x2e)
        self.segs = []
        for i in range(shnum):
            o = shoff + i * shentsize
            if self.is64:
                name, typ, flags, addr, off, size = struct.unpack_from('<IIQQQQ', d, o)
            else:
                name, typ, flags, addr, off, size = struct.unpack_from('<IIIIII', d, o)
            if typ == 1 and (flags & 4):  # PROGBITS, EXECINSTR
                self.segs.append((addr, addr + size, d[off:off + size]))
        self.cache = {}

    def half(self, a):
        for lo, hi, b in self.segs:
            if lo <= a and a + 2 <= hi:
                return b[a - lo] | (b[a - lo + 1] << 8)
        raise KeyError('no code at %#x' % a)

    def info(self, pc):
        """returns (length, kind, target) kind in seq,branch,jal,jalr,xret,ecall,ebreak"""
        r = self.cache.get(pc)
        if r:
            return r
        h = self.half(pc)
        if h & 3 != 3:
            r = self.c16(pc, h)
        else:
            i = h | (self.half(pc + 2) << 16)
            r = self.c32(pc, i)
        self.cache[pc] = r
        return r

    def mask(self, v):
        return v & ((1 << self.xlen) - 1)

    def c32(self, pc, i):
        op = i & 0x7f
        def sx(v, b):
            return v - (1 << b) if v & (1 << (b - 1)) else v
        if op == 0x63:
            imm = ((i >> 31) & 1) << 12 | ((i >> 7) & 1) << 11 | ((i >> 25) & 0x3f) << 5 | ((i >> 8) & 0xf) << 1
            return (4, 'branch', self.mask(pc + sx(imm, 13)))
        if op == 0x6f:
            imm = ((i >> 31) & 1) << 20 | ((i >> 12) & 0xff) << 12 | ((i >> 20) & 1) << 11 | ((i >> 21) & 0x3ff) << 1
            return (4, 'jal', self.mask(pc + sx(imm, 21)))
        if op == 0x67:
            return (4, 'jalr', None)
        if i in (0x30200073, 0x10200073, 0x00200073):
            return (4, 'xret', None)
        if i == 0x73:
            return (4, 'ecall', None)
        if i == 0x00100073:
            return (4, 'ebreak', None)
        return (4, 'seq', None)

    def c16(self, pc, h):
        q = h & 3
        f3 = h >> 13
        def sx(v, b):
            return v - (1 << b) if v & (1 << (b - 1)) else v
        if q == 1 and (f3 == 5 or (f3 == 1 and self.xlen == 32)):
            b = h
            imm = ((b >> 12) & 1) << 11 | ((b >> 11) & 1) << 4 | ((b >> 9) & 3) << 8 | ((b >> 8) & 1) << 10 | \
                  ((b >> 7) & 1) << 6 | ((b >> 6) & 1) << 7 | ((b >> 3) & 7) << 1 | ((b >> 2) & 1) << 5
            return (2, 'jal', self.mask(pc + sx(imm, 12)))
        if q == 1 and f3 in (6, 7):
            b = h
            imm = ((b >> 12) & 1) << 8 | ((b >> 10) & 3) << 3 | ((b >> 5) & 3) << 6 | ((b >> 3) & 3) << 1 | ((b >> 2) & 1) << 5
            return (2, 'branch', self.mask(pc + sx(imm, 9)))
        if q == 2 and f3 == 4:
            rd = (h >> 7) & 31
            rs2 = (h >> 2) & 31
            if rs2 == 0 and rd != 0:
                return (2, 'jalr', None)
            if rs2 == 0 and rd == 0 and (h >> 12) & 1:
                return (2, 'ebreak', None)
        return (2, 'seq', None)


# ---------------------------------------------------------------- nybbles
def nybbles(data):
    """seed: 'recorded little-endian; hence the first nybble is in the lowest
    data nybble at the lowest address'"""
    out = bytearray(len(data) * 2)
    out[0::2] = bytes(b & 15 for b in data)
    out[1::2] = bytes(b >> 4 for b in data)
    return out


class Tok:
    __slots__ = ('off', 'kind', 'val', 'reason', 'nbytes')

    def __init__(self, off, kind, val=None, reason=None, nbytes=None):
        self.off, self.kind, self.val, self.reason, self.nbytes = off, kind, val, reason, nbytes

    def __repr__(self):
        return '@%d.%d %s %s' % (self.off // 2, self.off & 1, self.kind,
                                  '' if self.val is None else (hex(self.val) if self.kind == 'data' else self.val))


def tokens(ny, problems, data_lsn_first=True):
    i = 0
    n = len(ny)
    zrun = 0
    while i < n:
        c = ny[i]
        if c == 0:
            zrun += 1
            i += 1
            continue
        if zrun:
            yield Tok(i - zrun, 'zeros', zrun)
            zrun = 0
        st = i
        if c <= 7:
            yield Tok(st, 'seq', c); i += 1
        elif c <= 0xb:
            yield Tok(st, {8: 'branch', 9: 'jump', 0xa: 'trap', 0xb: 'xret'}[c]); i += 1
        elif c == 0xc:
            if i + 1 >= n:
                problems.append('truncated data header at nybble %d' % i); return
            rn = ny[i + 1]
            r, nb = rn >> 3, rn & 7
            if i + 2 + 2 * nb > n:
                problems.append('truncated data at nybble %d' % i); return
            ds = ny[i + 2:i + 2 + 2 * nb]
            if not data_lsn_first:
                ds = ds[::-1]
            v = 0
            for k, d in enumerate(ds):
                v |= d << (4 * k)
            yield Tok(st, 'data', v, r, nb)
            i += 2 + 2 * nb
        elif c == 0xd:
            if i + 1 >= n:
                problems.append('truncated tracepoint at nybble %d' % i); return
            yield Tok(st, 'tp', ny[i + 1]); i += 2
        else:
            problems.append('reserved nybble %x at nybble %d' % (c, i))
            yield Tok(st, 'reserved', c); i += 1
    if zrun:
        yield Tok(n - zrun, 'zeros', zrun)


# ---------------------------------------------------------------- decode
def decode(data, code, opts):
    problems = []
    ny = nybbles(data)
    if getattr(opts, 'sync', False):
        # seed: 'the trace can be decoded by synchronizing first': skip to the
        # first run of >= 4 zero nybbles
        i = 0; z = 0
        while i < len(ny):
            if ny[i] == 0:
                z += 1
            else:
                if z >= 4 and ny[i] == 0xc and i + 1 < len(ny) and ny[i + 1] & 8 == 0:
                    break
                z = 0
            i += 1
        problems.append('synchronised at nybble %d (byte %d)' % (i, i // 2))
        opts.sync_off = i
        ny = ny[i:]
        opts.require_start_sync = False
    toks = list(tokens(ny, problems))
    out = []          # PCs of retired instructions
    events = []       # (index in out, what)
    rfw = []
    pc = None
    k = 0
    last_nonseq = None   # token index of last nonseq field, for data association
    prev_kind = None
    maxz_seen = []
    nt = len(toks)

    def err(t, msg):
        problems.append('byte %d%s: %s' % (t.off // 2, '.hi' if t.off & 1 else '', msg))

    # synchronise: seed 'synchronizing first' -- the trace starts at a sync mark
    if opts.require_start_sync:
        if not toks or toks[0].kind != 'zeros' or toks[0].val < 4:
            problems.append('trace does not start with >=4 zero nybbles')
    while k < nt:
        t = toks[k]
        kind = t.kind
        if kind == 'zeros':
            maxz_seen.append((t.off, t.val))
            prev_kind = 'zeros'
            k += 1
            continue
        if kind == 'seq':
            if pc is None:
                err(t, 'sequential before any PC'); k += 1; continue
            for _ in range(t.val):
                ln, ik, tg = code.info(pc)
                if ik in ('branch',) and tg == pc + ln:
                    pass
                elif ik not in ('seq', 'branch', 'ecall', 'ebreak') and not (ik == 'jal' and tg == pc + ln):
                    err(t, 'sequential over %s at %#x' % (ik, pc))
                out.append(pc)
                pc = code.mask(pc + ln)
            prev_kind = 'seq'; k += 1; continue
        if kind in ('branch', 'jump', 'trap', 'xret'):
            if pc is None:
                err(t, '%s before any PC' % kind); k += 1; continue
            ln, ik, tg = code.info(pc)
            # PC data following in this cycle?
            d = None
            if k + 1 < nt and toks[k + 1].kind == 'data' and toks[k + 1].reason == 0:
                d = toks[k + 1]
            if kind == 'branch':
                if ik != 'branch':
                    err(t, 'branch field at %#x which is %s' % (pc, ik))
                out.append(pc)
                npc = tg
            elif kind == 'jump':
                if ik not in ('jal', 'jalr'):
                    err(t, 'jal/jalr field at %#x which is %s' % (pc, ik))
                out.append(pc)
                npc = tg if ik == 'jal' else None
            elif kind == 'xret':
                if ik != 'xret':
                    err(t, 'xret field at %#x which is %s' % (pc, ik))
                out.append(pc)
                npc = None
            else:  # trap: the instruction at pc did not complete (not output)
                events.append((len(out), 'trap at %#x (%s)' % (pc, ik)))
                npc = None
            if d is not None:
                if npc is not None and d.val != npc:
                    err(d, '%s at %#x: PC data %#x != code target %#x' % (kind, pc, d.val, npc))
                npc = d.val
                k += 1
            if npc is None:
                err(t, '%s at %#x with no PC data' % (kind, pc))
                pc = None
            else:
                pc = npc
            prev_kind = kind; k += 1; continue
        if kind == 'data':
            if t.reason == 0:
                if pc is not None and t.val != pc:
                    err(t, 'stand-alone PC data %#x != current pc %#x' % (t.val, pc))
                pc = t.val
                events.append((len(out), 'pc %#x' % t.val))
            else:
                rfw.append((len(out), t.val, t.off))
            prev_kind = 'data'; k += 1; continue
        if kind == 'tp':
            events.append((len(out), 'tracepoint %d' % t.val))
            k += 1; continue
        err(t, 'reserved control nybble %x' % t.val)
        k += 1
    return out, events, rfw, problems, toks, maxz_seen


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('trace')
    ap.add_argument('--elf', required=True)
    ap.add_argument('--ref', help='PC list or pcinsn file')
    ap.add_argument('--require-start-sync', action='store_true', default=True)
    ap.add_argument('--show', type=int, default=0)
    ap.add_argument('--sync', action='store_true', help='search for sync first; ref compared as subsequence')
    ap.add_argument('--events', action='store_true')
    opts = ap.parse_args()
    code = Code(opts.elf)
    data = open(opts.trace, 'rb').read()
    out, events, rfw, problems, toks, zs = decode(data, code, opts)
    print('decoded %d instructions, %d tokens, %d rfw, %d problems' % (len(out), len(toks), len(rfw), len(problems)))
    for p in problems[:20]:
        print('  PROBLEM', p)
    if opts.events:
        for e in events[:60]:
            print('  EVENT', e)
    if opts.show:
        for t in toks[:opts.show]:
            print('  ', t)
    if opts.ref:
        ref = []
        for line in open(opts.ref):
            s = line.split()
            if s:
                ref.append(int(s[0], 16))
        if opts.sync:
            # find decoded sequence inside ref (first 8 PCs anchor)
            key = out[:8]
            cands = [i for i in range(len(ref) - 7) if ref[i:i + 8] == key]
            ok = [c for c in cands if ref[c:c + len(out)] == out]
            print('sync decode: %d PCs, anchors %d, exact contiguous match at %s; ref tail after match %s' %
                  (len(out), len(cands), ok[:3], [len(ref) - c - len(out) for c in ok[:3]]))
            return
        n = min(len(ref), len(out))
        first = next((i for i in range(n) if ref[i] != out[i]), None)
        if first is None and len(ref) == len(out):
            print('MATCH: all %d PCs equal' % len(ref))
        else:
            print('MISMATCH: ref %d, decoded %d, first difference at index %s' % (len(ref), len(out), first))
            if first is not None:
                for j in range(max(0, first - 3), min(n, first + 4)):
                    print('   %d ref %#x dec %#x' % (j, ref[j], out[j]))
    # sync mark statistics
    import collections
    c = collections.Counter(v for o, v in zs)
    print('zero runs (len:count):', dict(sorted(c.items())))


if __name__ == '__main__':
    main()
