#!/usr/bin/env python3
"""Independent RISC-V N-Trace 1.0 decoder (written from the specification text only).

Usage: ntrace_decoder_spec.py TRACE --elf ELF --pcs EXPECTED.pcs [options]

De-frames the MSEO byte stream, parses every message the spec defines, reconstructs
the retired PCs by following the program image and compares them with the expected
PC list.  The last line printed is either
    match for N of expected M (decoded D) EXACT
or
    MISMATCH at index I: expected 0x.. decoded 0x.. (message #k at byte offset o ...)
Exit status 0 only for EXACT.
"""
import sys
import argparse
import struct
from collections import deque

# ---------------------------------------------------------------- TCODEs (spec "Fields in Messages")
TC_OWNERSHIP = 2
TC_DIRECT = 3
TC_INDIRECT = 4
TC_ERROR = 8
TC_PTSYNC = 9
TC_DIRECTSYNC = 11
TC_INDIRECTSYNC = 12
TC_RESFULL = 27
TC_INDHIST = 28
TC_INDHISTSYNC = 29
TC_REPEAT = 30
TC_CORR = 33
TC_NAMES = {2: 'Ownership', 3: 'DirectBranch', 4: 'IndirectBranch', 8: 'Error',
            9: 'ProgTraceSync', 11: 'DirectBranchSync', 12: 'IndirectBranchSync',
            27: 'ResourceFull', 28: 'IndirectBranchHist', 29: 'IndirectBranchHistSync',
            30: 'RepeatBranch', 33: 'ProgTraceCorrelation'}
SYNC_TCODES = (TC_PTSYNC, TC_DIRECTSYNC, TC_INDIRECTSYNC, TC_INDHISTSYNC)

# ---------------------------------------------------------------- instruction kinds
K_LIN, K_BR, K_JAL, K_JALR, K_XRET, K_ECALL, K_EBREAK, K_AUIPC, K_LUI = range(9)
KNAMES = ['linear', 'branch', 'jal', 'jalr', 'xret', 'ecall', 'ebreak', 'auipc', 'lui']


class DecodeError(Exception):
    pass


class Mismatch(Exception):
    pass


def sext(v, bits):
    m = 1 << (bits - 1)
    return (v & ((1 << bits) - 1) ^ m) - m


def is_link(r):
    return r == 1 or r == 5


# ---------------------------------------------------------------- ELF image
class Image:
    def __init__(self, path):
        data = open(path, 'rb').read()
        if data[:4] != b'\x7fELF':
            raise SystemExit('not an ELF file: %s' % path)
        cls = data[4]
        self.xlen = 64 if cls == 2 else 32
        self.mask = (1 << self.xlen) - 1
        self.segs = []
        if cls == 2:
            (e_phoff,) = struct.unpack_from('<Q', data, 0x20)
            e_phentsize, e_phnum = struct.unpack_from('<HH', data, 0x36)
            for i in range(e_phnum):
                o = e_phoff + i * e_phentsize
                p_type, p_flags, p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_align = \
                    struct.unpack_from('<IIQQQQQQ', data, o)
                if p_type == 1 and p_filesz:
                    self.segs.append((p_vaddr, p_vaddr + p_filesz, data[p_offset:p_offset + p_filesz]))
        else:
            (e_phoff,) = struct.unpack_from('<I', data, 0x1c)
            e_phentsize, e_phnum = struct.unpack_from('<HH', data, 0x2a)
            for i in range(e_phnum):
                o = e_phoff + i * e_phentsize
                p_type, p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_flags, p_align = \
                    struct.unpack_from('<IIIIIIII', data, o)
                if p_type == 1 and p_filesz:
                    self.segs.append((p_vaddr, p_vaddr + p_filesz, data[p_offset:p_offset + p_filesz]))
        self.cache = {}

    def half(self, addr):
        for lo, hi, b in self.segs:
            if lo <= addr and addr + 2 <= hi:
                return b[addr - lo] | (b[addr - lo + 1] << 8)
        return None

    def decode(self, pc):
        """Returns (kind, size_in_halfwords, a, b, c).
        K_BR: a=target; K_JAL: a=target, b=rd; K_JALR: a=rd, b=rs1, c=imm;
        K_AUIPC/K_LUI: a=rd, b=value written to rd."""
        d = self.cache.get(pc)
        if d is not None:
            return d
        lo = self.half(pc)
        if lo is None:
            raise DecodeError('no code at 0x%x in the ELF image' % pc)
        mask = self.mask
        if lo & 3 != 3:
            i = lo
            q = i & 3
            f3 = i >> 13
            d = (K_LIN, 1, 0, 0, 0)
            if q == 1:
                if f3 == 5 or (f3 == 1 and self.xlen == 32):   # C.J / C.JAL (RV32 only)
                    off = (((i >> 12) & 1) << 11) | (((i >> 11) & 1) << 4) | (((i >> 9) & 3) << 8) | \
                          (((i >> 8) & 1) << 10) | (((i >> 7) & 1) << 6) | (((i >> 6) & 1) << 7) | \
                          (((i >> 3) & 7) << 1) | (((i >> 2) & 1) << 5)
                    d = (K_JAL, 1, (pc + sext(off, 12)) & mask, 1 if f3 == 1 else 0, 0)
                elif f3 == 6 or f3 == 7:                        # C.BEQZ / C.BNEZ
                    off = (((i >> 12) & 1) << 8) | (((i >> 10) & 3) << 3) | (((i >> 5) & 3) << 6) | \
                          (((i >> 3) & 3) << 1) | (((i >> 2) & 1) << 5)
                    d = (K_BR, 1, (pc + sext(off, 9)) & mask, 0, 0)
                elif f3 == 3:
                    rd = (i >> 7) & 31
                    if rd != 0 and rd != 2:                     # C.LUI
                        imm = (((i >> 12) & 1) << 17) | (((i >> 2) & 31) << 12)
                        d = (K_LUI, 1, rd, sext(imm, 18) & mask, 0)
            elif q == 2 and f3 == 4:
                rs1 = (i >> 7) & 31
                rs2 = (i >> 2) & 31
                b12 = (i >> 12) & 1
                if rs2 == 0:
                    if b12 == 0 and rs1 != 0:                   # C.JR  = jalr x0, 0(rs1)
                        d = (K_JALR, 1, 0, rs1, 0)
                    elif b12 == 1 and rs1 == 0:                 # C.EBREAK
                        d = (K_EBREAK, 1, 0, 0, 0)
                    elif b12 == 1:                              # C.JALR = jalr x1, 0(rs1)
                        d = (K_JALR, 1, 1, rs1, 0)
        else:
            hi = self.half(pc + 2)
            if hi is None:
                raise DecodeError('no code at 0x%x in the ELF image' % (pc + 2))
            i = lo | (hi << 16)
            if i & 0x1f != 0x1f:
                op = i & 0x7f
                rd = (i >> 7) & 31
                rs1 = (i >> 15) & 31
                d = (K_LIN, 2, 0, 0, 0)
                if op == 0x63:
                    off = (((i >> 31) & 1) << 12) | (((i >> 25) & 0x3f) << 5) | (((i >> 8) & 0xf) << 1) | \
                          (((i >> 7) & 1) << 11)
                    d = (K_BR, 2, (pc + sext(off, 13)) & mask, 0, 0)
                elif op == 0x6f:
                    off = (((i >> 31) & 1) << 20) | (((i >> 21) & 0x3ff) << 1) | (((i >> 20) & 1) << 11) | \
                          (((i >> 12) & 0xff) << 12)
                    d = (K_JAL, 2, (pc + sext(off, 21)) & mask, rd, 0)
                elif op == 0x67 and ((i >> 12) & 7) == 0:
                    d = (K_JALR, 2, rd, rs1, sext(i >> 20, 12))
                elif op == 0x17:
                    d = (K_AUIPC, 2, rd, (pc + sext(i & 0xfffff000, 32)) & mask, 0)
                elif op == 0x37:
                    d = (K_LUI, 2, rd, sext(i & 0xfffff000, 32) & mask, 0)
                elif op == 0x73:
                    if i == 0x00000073:
                        d = (K_ECALL, 2, 0, 0, 0)
                    elif i == 0x00100073:
                        d = (K_EBREAK, 2, 0, 0, 0)
                    elif i in (0x30200073, 0x10200073, 0x00200073, 0x7b200073):  # mret sret uret dret
                        d = (K_XRET, 2, 0, 0, 0)
            else:
                raise DecodeError('instruction longer than 32 bits at 0x%x' % pc)
        self.cache[pc] = d
        return d


def jalr_itype(rd, rs):
    """4-bit itype of a JALR rd, rs (spec table 'Generating itype for different instructions')."""
    if is_link(rd):
        if not is_link(rs) or rd == rs:
            return 8       # indirect call: push
        return 12          # co-routine swap: pop, push
    if is_link(rs):
        return 13          # function return: pop
    return 10 if rd == 0 else 14


# ---------------------------------------------------------------- MSEO de-framing and field parsing
class Msg:
    __slots__ = ('num', 'off', 'tcode', 'f', 'nbytes')


class FieldReader:
    def __init__(self, mdo, mseo):
        self.mdo = mdo
        self.mseo = mseo
        self.bi = 0
        self.bit = 0
        self.ended = False

    def fixed(self, n):
        v = 0
        got = 0
        while got < n:
            if self.bi >= len(self.mdo):
                raise DecodeError('message too short for fixed field')
            if self.bit == 6:
                if self.mseo[self.bi] != 0:
                    raise DecodeError('fixed-length field crosses a byte with MSEO=%d' % self.mseo[self.bi])
                self.bi += 1
                self.bit = 0
                continue
            take = min(6 - self.bit, n - got)
            v |= ((self.mdo[self.bi] >> self.bit) & ((1 << take) - 1)) << got
            got += take
            self.bit += take
        return v

    def var(self):
        """Variable-length field: from the current bit up to the end of the first byte whose
        MSEO is 01 or 11.  Returns (value, width_in_bits)."""
        if self.ended:
            raise DecodeError('message ended before a required variable-length field')
        if self.bit == 6:
            if self.mseo[self.bi] != 0:
                raise DecodeError('fixed field ends on byte with MSEO=%d' % self.mseo[self.bi])
            self.bi += 1
            self.bit = 0
        v = 0
        w = 0
        while True:
            if self.bi >= len(self.mdo):
                raise DecodeError('variable field runs past end of message')
            take = 6 - self.bit
            v |= (self.mdo[self.bi] >> self.bit) << w
            w += take
            ms = self.mseo[self.bi]
            self.bi += 1
            self.bit = 0
            if ms == 3:
                self.ended = True
                break
            if ms == 1:
                break
        # leave position "at start of next byte"
        self.bit = 0
        return v, w

    def more(self):
        return not self.ended


def deframe(data, warn):
    """Yields (offset, mdo list, mseo list) for each message."""
    n = len(data)
    i = 0
    idle = True
    start = 0
    mdo = []
    mseo = []
    while i < n:
        b = data[i]
        ms = b & 3
        if idle:
            if ms == 3:
                if b != 0xFF:
                    warn('byte 0x%02x with MSEO=11 outside a message at offset %d' % (b, i))
            elif ms == 0:
                idle = False
                start = i
                mdo = [b >> 2]
                mseo = [0]
            else:
                warn('reserved MSEO transition (idle->%s) at offset %d' % (bin(ms), i))
        else:
            if ms == 2:
                warn('reserved MSEO=10 at offset %d' % i)
            mdo.append(b >> 2)
            mseo.append(ms)
            if ms == 3:
                yield start, mdo, mseo
                idle = True
        i += 1
    if not idle:
        warn('trace ends inside a message starting at offset %d' % start)


def parse_message(num, off, mdo, mseo, src_bits):
    r = FieldReader(mdo, mseo)
    m = Msg()
    m.num = num
    m.off = off
    m.nbytes = len(mdo)
    m.tcode = r.fixed(6)
    f = {}
    m.f = f
    if src_bits:
        f['SRC'] = r.fixed(src_bits)
    t = m.tcode
    if t == TC_OWNERSHIP:
        f['PROCESS'] = r.var()[0]
    elif t == TC_DIRECT:
        f['ICNT'] = r.var()[0]
    elif t == TC_INDIRECT:
        f['BTYPE'] = r.fixed(2)
        f['ICNT'] = r.var()[0]
        f['UADDR'] = r.var()
    elif t == TC_ERROR:
        f['ETYPE'] = r.fixed(4)
        f['ECODE'] = r.var()[0]
    elif t in (TC_PTSYNC, TC_DIRECTSYNC):
        f['SYNC'] = r.fixed(4)
        f['ICNT'] = r.var()[0]
        f['FADDR'] = r.var()
    elif t == TC_INDIRECTSYNC:
        f['SYNC'] = r.fixed(4)
        f['BTYPE'] = r.fixed(2)
        f['ICNT'] = r.var()[0]
        f['FADDR'] = r.var()
    elif t == TC_RESFULL:
        f['RCODE'] = r.fixed(4)
        f['RDATA0'] = r.var()[0]
        if f['RCODE'] == 2:
            f['RDATA1'] = r.var()[0]
    elif t == TC_INDHIST:
        f['BTYPE'] = r.fixed(2)
        f['ICNT'] = r.var()[0]
        f['UADDR'] = r.var()
        f['HIST'] = r.var()[0]
    elif t == TC_INDHISTSYNC:
        f['SYNC'] = r.fixed(4)
        f['BTYPE'] = r.fixed(2)
        f['ICNT'] = r.var()[0]
        f['FADDR'] = r.var()
        f['HIST'] = r.var()[0]
    elif t == TC_REPEAT:
        f['BCNT'] = r.var()[0]
    elif t == TC_CORR:
        f['EVCODE'] = r.fixed(4)
        f['CDF'] = r.fixed(2)
        f['ICNT'] = r.var()[0]
        if f['CDF'] == 1:
            f['HIST'] = r.var()[0]
    else:
        # Reserved / vendor defined: skip the whole message.
        f['UNKNOWN'] = True
        return m
    if r.more():
        f['TSTAMP'] = r.var()[0]
    if r.more():
        extra = []
        while r.more():
            extra.append(r.var()[0])
        f['EXTRA'] = extra
    return m


def hist_bits(h):
    """HIST value with stop bit -> list of outcomes, first (oldest) first."""
    if h <= 0:
        raise DecodeError('HIST field without stop bit (value %d)' % h)
    n = h.bit_length() - 1
    return [(h >> k) & 1 for k in range(n - 1, -1, -1)]


# ---------------------------------------------------------------- decoder
class Decoder:
    def __init__(self, img, expected, a):
        self.img = img
        self.exp = expected
        self.a = a
        self.htm = (a.mode == 'htm')
        self.mask = img.mask
        self.idx = 0
        self.pc = None            # next PC to execute (None = not synchronised)
        self.ref = 0              # last full address (U-ADDR reference)
        self.stack = deque()
        self.pend_icnt = 0        # I-CNT from ResourceFull RCODE=0
        self.pend_bits = []       # HIST bits from ResourceFull RCODE=1/2
        self.last_branch = None   # for RepeatBranch replay
        self.ts = None
        self.warnings = []
        self.notes = {}
        self.stats = {}
        self.cur = None
        self.priv = None
        self.own_expected = False
        self.ended = False

    # -- diagnostics
    def warn(self, s):
        if len(self.warnings) < 200:
            where = '' if self.cur is None else ' [msg #%d %s @%d]' % (
                self.cur.num, TC_NAMES.get(self.cur.tcode, '?'), self.cur.off)
            self.warnings.append(s + where)

    def note(self, key):
        self.notes[key] = self.notes.get(key, 0) + 1

    # -- call stack
    def push(self, v):
        st = self.stack
        st.append(v)
        if self.a.callstack and len(st) > self.a.callstack:
            st.popleft()

    def pop(self):
        return self.stack.pop() if self.stack else None

    # -- walking the program
    def walk(self, icnt, bits, end, btype=0, addr=None):
        """Retire the block of icnt halfwords starting at self.pc.
        end: 'direct' (BTM taken branch), 'indirect' (address message, U-ADDR),
             'sync' (F-ADDR message), 'corr' (trace stop), 'none'.
        Returns the next PC (before applying address for sync)."""
        img = self.img
        exp = self.exp
        nexp = len(exp)
        mask = self.mask
        htm = self.htm
        sij = self.a.sijump
        irmode = self.a.callstack > 0 or self.a.callstack_unbounded
        pc = self.pc
        idx = self.idx
        bi = 0
        nbits = len(bits)
        prev = None
        decode = img.decode
        cache = img.cache
        while icnt > 0:
            d = cache.get(pc)
            if d is None:
                d = decode(pc)
            if idx >= nexp:
                self.idx = idx
                raise Mismatch('decoded more PCs than expected: 0x%x' % pc)
            if exp[idx] != pc:
                self.idx = idx
                raise Mismatch('expected 0x%x decoded 0x%x' % (exp[idx], pc))
            idx += 1
            kind = d[0]
            sz = d[1]
            icnt -= sz
            if icnt < 0:
                self.idx = idx
                raise DecodeError('I-CNT ends in the middle of the instruction at 0x%x' % pc)
            last = (icnt == 0)
            if kind <= 0 or kind == K_AUIPC or kind == K_LUI or kind == K_ECALL or kind == K_EBREAK:
                npc = (pc + 2 * sz) & mask
                if last and kind == K_ECALL:
                    self.note('block ends with ecall (%s, btype %d)' % (end, btype))
            elif kind == K_BR:
                if htm:
                    if bi < nbits:
                        taken = bits[bi]
                        bi += 1
                    else:
                        taken = 0
                        self.warn('HTM: conditional branch at 0x%x with no HIST bit left (treated not-taken)' % pc)
                else:
                    taken = 1 if (last and end == 'direct') else 0
                npc = d[2] if taken else (pc + 2 * sz) & mask
            elif kind == K_JAL:
                if is_link(d[3]):
                    self.push((pc + 2 * sz) & mask)
                npc = d[2]
            elif kind == K_JALR:
                rd, rs, imm = d[2], d[3], d[4]
                it = jalr_itype(rd, rs)
                ret = (pc + 2 * sz) & mask
                explicit = last and ((end == 'indirect' and btype == 0) or end == 'sync')
                npc = None
                if sij and prev is not None and prev[0] in (K_AUIPC, K_LUI) and prev[2] == rs and rs != 0:
                    npc = (prev[3] + imm) & mask & ~1
                    if explicit and end == 'indirect':
                        self.note('sequentially inferable jump reported explicitly')
                if explicit:
                    # reported with a message: encoder stack action, target from the message
                    if it == 12:
                        self.pop()
                        self.push(ret)
                    elif it == 13:
                        self.pop()
                    elif it == 8:
                        self.push(ret)
                    npc = addr
                elif npc is not None:
                    # sequential jump (target from auipc/lui); stack action still applies
                    if it == 12:
                        self.pop()
                        self.push(ret)
                    elif it == 13:
                        self.pop()
                    elif it == 8:
                        self.push(ret)
                    self.note('sequential-jump inferred')
                elif it in (12, 13) and irmode and self.stack:
                    npc = self.pop()
                    if it == 12:
                        self.push(ret)
                    self.note('implicit return inferred')
                else:
                    if it == 8:
                        self.push(ret)
                    if last and end in ('sync', 'corr'):
                        npc = None
                    else:
                        self.idx = idx
                        raise DecodeError('uninferable %s (itype %d) at 0x%x inside a block (end=%s btype=%d, stack depth %d)'
                                          % ('jalr', it, pc, end, btype, len(self.stack)))
            elif kind == K_XRET:
                if last and end in ('indirect', 'sync', 'corr') and btype == 0:
                    npc = addr
                else:
                    self.idx = idx
                    raise DecodeError('trap return at 0x%x not at the end of a B-TYPE=0 block' % pc)
            else:
                npc = (pc + 2 * sz) & mask
            if last:
                if end == 'direct' and kind != K_BR:
                    self.warn('DirectBranch block ends with non-branch %s at 0x%x' % (KNAMES[kind], pc))
                if end == 'indirect' and btype == 0 and kind not in (K_JALR, K_XRET):
                    self.warn('B-TYPE=0 address message but the block ends with %s at 0x%x' % (KNAMES[kind], pc))
                    npc = addr
            prev = (kind, sz, d[2], d[3]) if kind in (K_AUIPC, K_LUI) else None
            pc = npc
        self.idx = idx
        if bi < nbits:
            self.warn('%d HIST bit(s) left unused at end of block' % (nbits - bi))
        return pc

    # -- message handling
    def full_addr(self, fld, is_u):
        v, w = fld
        if self.a.addr_ext and w > 0 and (v >> (w - 1)) & 1:
            top = self.img.xlen - 1        # the field holds address bits [XLEN-1:1]
            if w < top:
                v |= ((1 << top) - 1) & ~((1 << w) - 1)
        a = (v << 1) & self.mask
        if is_u:
            a = (self.ref ^ a) & self.mask
        self.ref = a
        return a

    def check_icnt(self, v):
        k = 'max I-CNT field'
        if v > self.notes.get(k, 0):
            self.notes[k] = v
        lim = 1 << self.a.icnt_bits
        if v >= lim:
            self.warn('I-CNT %d does not fit %d-bit counter' % (v, self.a.icnt_bits))

    def take_block(self, icnt, hist):
        """Combine pending ResourceFull data with this message's fields."""
        self.check_icnt(icnt)
        total = self.pend_icnt + icnt
        bits = self.pend_bits
        if hist is not None:
            hb = hist_bits(hist)
            if len(hb) > self.a.hist_bits:
                self.warn('HIST with %d outcomes > --hist-bits %d' % (len(hb), self.a.hist_bits))
            bits = bits + hb
        self.pend_icnt = 0
        self.pend_bits = []
        return total, bits

    def sync_reset(self):
        if not self.a.x_no_sync_reset:
            self.stack.clear()

    def handle(self, m):
        f = m.f
        t = m.tcode
        a = self.a
        self.stats[t] = self.stats.get(t, 0) + 1
        if a.src_bits and f.get('SRC') != a.src_id:
            self.note('message from other SRC skipped')
            return
        if 'UNKNOWN' in f:
            self.warn('reserved/vendor TCODE %d ignored' % t)
            return
        if 'EXTRA' in f:
            self.warn('unexpected extra variable field(s) %r' % f['EXTRA'])
        # timestamps
        if 'TSTAMP' in f:
            if not a.timestamps:
                self.warn('TSTAMP present but --timestamps not given')
            if t in SYNC_TCODES:
                if self.ts is not None and f['TSTAMP'] < self.ts:
                    self.warn('absolute timestamp went backwards %d -> %d' % (self.ts, f['TSTAMP']))
                self.ts = f['TSTAMP']
            else:
                if self.ts is None:
                    self.warn('relative timestamp before any absolute one')
                    self.ts = 0
                self.ts += f['TSTAMP']
            self.note('timestamps')
        elif a.timestamps and t in SYNC_TCODES:
            self.warn('synchronizing message without TSTAMP although timestamps enabled')
        # ownership sequencing
        if a.context and self.own_expected and t != TC_OWNERSHIP:
            self.warn('synchronizing message not immediately followed by Ownership')
        self.own_expected = False

        if t == TC_OWNERSHIP:
            p = f['PROCESS']
            fmt = p & 3
            prv = (p >> 2) & 3
            v = (p >> 4) & 1
            if fmt == 1:
                self.warn('Ownership FORMAT=01 (reserved)')
            self.priv = (v, prv, p >> 5 if fmt >= 2 else None)
            if not a.context:
                self.warn('Ownership message while --context not given')
            self.note('ownership fmt=%d v=%d prv=%d' % (fmt, v, prv))
            return
        if t == TC_ERROR:
            self.warn('Error message ETYPE=%d ECODE=0x%x: trace lost; waiting for sync' % (f['ETYPE'], f['ECODE']))
            self.pc = None
            return
        if t == TC_RESFULL:
            rc = f['RCODE']
            if rc == 0:
                self.check_icnt(f['RDATA0'])
                self.pend_icnt += f['RDATA0']
            elif rc == 1:
                hb = hist_bits(f['RDATA0'])
                self.pend_bits.extend(hb)
            elif rc == 2:
                hb = hist_bits(f['RDATA0'])
                if f['RDATA1'] == 0:
                    self.warn('ResourceFull RCODE=2 with HREPEAT=0')
                self.pend_bits.extend(hb * f['RDATA1'])
                self.note('hrepeat')
            else:
                self.warn('ResourceFull RCODE=%d (reserved/vendor) ignored' % rc)
            return
        if t == TC_REPEAT:
            lb = self.last_branch
            if lb is None:
                raise DecodeError('RepeatBranch without a previous branch message')
            if self.pend_icnt or self.pend_bits:
                self.warn('RepeatBranch with pending ResourceFull data')
            if self.pc is None:
                return
            end, icnt, bits, btype, addr = lb
            for _ in range(f['BCNT']):
                npc = self.walk(icnt, bits, end, btype, addr)
                self.pc = addr if end == 'indirect' else npc
            self.note('repeatbranch x%d' % f['BCNT'])
            return

        if t in SYNC_TCODES:
            faddr = self.full_addr(f['FADDR'], False)
            btype = f.get('BTYPE', 0)
            icnt, bits = self.take_block(f['ICNT'], f.get('HIST'))
            if self.pc is not None:
                end = 'direct' if t == TC_DIRECTSYNC else 'sync'
                if t == TC_INDIRECTSYNC or t == TC_INDHISTSYNC:
                    end = 'indirect' if btype else 'sync'
                npc = self.walk(icnt, bits, end, btype, faddr)
                if npc is not None and npc != faddr and btype == 0:
                    self.warn('sync F-ADDR 0x%x differs from inferred next PC 0x%x (SYNC=%d)' % (faddr, npc, f['SYNC']))
            elif icnt:
                self.note('I-CNT before first sync skipped')
            self.pc = faddr
            self.sync_reset()
            self.ended = False
            self.last_branch = None     # RepeatBranch repeats a message without SYNC field
            if a.context:
                self.own_expected = True
            self.note('sync SYNC=%d %s' % (f['SYNC'], TC_NAMES[t]))
            return

        if self.pc is None:
            # not synchronised yet: consume address reference only
            if 'UADDR' in f:
                self.full_addr(f['UADDR'], True)
            self.pend_icnt = 0
            self.pend_bits = []
            self.note('message before sync skipped')
            return

        if t == TC_DIRECT:
            if self.htm:
                self.warn('DirectBranch in HTM mode')
            icnt, bits = self.take_block(f['ICNT'], None)
            self.pc = self.walk(icnt, bits, 'direct')
            self.last_branch = ('direct', f['ICNT'], [], 0, None)
            return
        if t in (TC_INDIRECT, TC_INDHIST):
            addr = self.full_addr(f['UADDR'], True)
            btype = f['BTYPE']
            hist = f.get('HIST')
            if t == TC_INDIRECT and self.htm and self.pend_bits:
                self.note('HTM IndirectBranch (empty HIST field) after ResourceFull HIST')
            icnt, bits = self.take_block(f['ICNT'], hist)
            self.walk(icnt, bits, 'indirect', btype, addr)
            self.pc = addr
            if btype:
                self.note('trap btype=%d' % btype)
            self.last_branch = ('indirect', f['ICNT'], hist_bits(hist) if hist is not None else [], btype, addr)
            return
        if t == TC_CORR:
            if self.htm and 'HIST' not in f:
                self.warn('ProgTraceCorrelation without HIST in HTM (CDF=%d)' % f['CDF'])
            if not self.htm and f['CDF'] != 0:
                self.warn('ProgTraceCorrelation CDF=%d in BTM' % f['CDF'])
            icnt, bits = self.take_block(f['ICNT'], f.get('HIST'))
            self.walk(icnt, bits, 'corr')
            self.pc = None
            self.ended = True
            self.note('correlation EVCODE=%d' % f['EVCODE'])
            return


def load_pcs(path):
    out = []
    with open(path) as fh:
        for line in fh:
            s = line.strip()
            if s:
                out.append(int(s.split()[0], 16))
    return out


def main():
    ap = argparse.ArgumentParser(description='independent N-Trace 1.0 decoder (spec-only)')
    ap.add_argument('trace')
    ap.add_argument('--elf', required=True)
    ap.add_argument('--pcs', required=True)
    ap.add_argument('--mode', choices=['htm', 'btm'], default='htm', help='trTeInstMode 6/3')
    ap.add_argument('--callstack', type=int, default=0, help='implicit-return stack depth (0=off)')
    ap.add_argument('--callstack-mode', choices=['addr', 'count'], default='addr')
    ap.add_argument('--src-bits', type=int, default=0)
    ap.add_argument('--src-id', type=int, default=0)
    ap.add_argument('--timestamps', action='store_true')
    ap.add_argument('--context', action='store_true')
    ap.add_argument('--sijump', action='store_true')
    ap.add_argument('--addr-ext', action='store_true')
    ap.add_argument('--icnt-bits', type=int, default=22)
    ap.add_argument('--hist-bits', type=int, default=31, help='max outcomes in a HIST field')
    ap.add_argument('-v', '--verbose', action='store_true')
    ap.add_argument('--dump', action='store_true', help='print every parsed message (own parser)')
    ap.add_argument('--x-no-sync-reset', action='store_true', help='experiment: keep the call stack across sync messages (not spec)')
    a = ap.parse_args()
    a.callstack_unbounded = False

    img = Image(a.elf)
    exp = load_pcs(a.pcs)
    data = open(a.trace, 'rb').read()
    dec = Decoder(img, exp, a)
    fatal = None
    num = 0
    m = None
    try:
        for off, mdo, mseo in deframe(data, dec.warn):
            m = parse_message(num, off, mdo, mseo, a.src_bits)
            dec.cur = m
            if a.dump:
                print('#%d @%d %s %s' % (num, off, TC_NAMES.get(m.tcode, m.tcode),
                                         ' '.join('%s=%s' % (k, hex(v) if isinstance(v, int) else v) for k, v in m.f.items())))
            dec.handle(m)
            num += 1
    except Mismatch as e:
        fatal = ('mismatch', str(e))
    except DecodeError as e:
        fatal = ('error', str(e))

    if a.verbose or fatal or dec.warnings:
        print('messages: %d  ' % num + ' '.join('%s=%d' % (TC_NAMES.get(k, str(k)), v)
                                                 for k, v in sorted(dec.stats.items())))
        for k, v in sorted(dec.notes.items()):
            print('  note: %s: %d' % (k, v))
        for w in dec.warnings[:40]:
            print('  warning: ' + w)
        if len(dec.warnings) > 40:
            print('  ... %d more warnings' % (len(dec.warnings) - 40))
        if dec.ts is not None:
            print('  final timestamp: %d' % dec.ts)
    where = ''
    if m is not None:
        where = ' (message #%d %s at byte offset %d)' % (m.num, TC_NAMES.get(m.tcode, str(m.tcode)), m.off)
    i = dec.idx
    if fatal:
        if fatal[0] == 'mismatch' and i < len(exp):
            # re-extract decoded value from message text
            print('MISMATCH at index %d: %s%s' % (i, fatal[1], where))
        else:
            e = '0x%x' % exp[i] if i < len(exp) else 'end'
            print('MISMATCH at index %d: expected %s decoded none: %s%s' % (i, e, fatal[1], where))
        return 1
    if i != len(exp):
        e = '0x%x' % exp[i] if i < len(exp) else 'end'
        print('MISMATCH at index %d: expected %s decoded end-of-trace%s' % (i, e, where))
        return 1
    print('match for %d of expected %d (decoded %d) EXACT' % (i, len(exp), i))
    return 0


if __name__ == '__main__':
    sys.exit(main())
