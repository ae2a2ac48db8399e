#!/usr/bin/env python3
"""Independent decoder for RISC-V Processor Trace 0.026-DRAFT te_inst packets
(written from the seed text only).  Framing: rvtrace 'refraw' (inferred from bytes:
one header byte per packet, bits 4:0 = payload length in bytes, 0x40 = te_inst,
0x00 = support packet)."""
import sys, subprocess, re, argparse, pickle, os

def sext(v, n):
    return v - (1 << n) if (v >> (n - 1)) & 1 else v

# ---------------------------------------------------------------- program image
def load_code(elf):
    cache = elf + '.code.pkl'
    if os.path.exists(cache):
        return pickle.load(open(cache, 'rb'))
    out = subprocess.run(['riscv64-linux-gnu-objdump', '-d', elf], capture_output=True,
                         text=True).stdout
    code = {}
    rx = re.compile(r'^\s*([0-9a-f]+):\s+([0-9a-f]{4}|[0-9a-f]{8})\s')
    for line in out.splitlines():
        m = rx.match(line)
        if m:
            code[int(m.group(1), 16)] = int(m.group(2), 16)
    pickle.dump(code, open(cache, 'wb'))
    return code

class Prog:
    """classify instructions: kind in seq, br, jal, ujmp, xret; with target and size"""
    def __init__(self, elf, xlen):
        self.code = load_code(elf)
        self.xlen = xlen
        self.cache = {}

    def info(self, pc):
        r = self.cache.get(pc)
        if r is not None:
            return r
        w = self.code.get(pc)
        if w is None:
            raise KeyError('no code at %x' % pc)
        m = (1 << self.xlen) - 1
        if (w & 3) != 3:
            size = 2
            q = w & 3; f3 = (w >> 13) & 7
            kind, tgt, rd, rs1 = 'seq', None, None, None
            if q == 1 and (f3 == 5 or (f3 == 1 and self.xlen == 32)):
                imm = (((w >> 12) & 1) << 11) | (((w >> 11) & 1) << 4) | (((w >> 9) & 3) << 8) | \
                      (((w >> 8) & 1) << 10) | (((w >> 7) & 1) << 6) | (((w >> 6) & 1) << 7) | \
                      (((w >> 3) & 7) << 1) | (((w >> 2) & 1) << 5)
                kind, tgt = 'jal', (pc + sext(imm, 12)) & m
                rd = 1 if f3 == 1 else 0
            elif q == 1 and f3 in (6, 7):
                imm = (((w >> 12) & 1) << 8) | (((w >> 10) & 3) << 3) | (((w >> 5) & 3) << 6) | \
                      (((w >> 3) & 3) << 1) | (((w >> 2) & 1) << 5)
                kind, tgt = 'br', (pc + sext(imm, 9)) & m
            elif q == 2 and f3 == 4 and ((w >> 2) & 31) == 0 and ((w >> 7) & 31) != 0:
                kind = 'ujmp'; rs1 = (w >> 7) & 31
                rd = 1 if (w >> 12) & 1 else 0
            elif q == 1 and f3 == 3 and ((w >> 7) & 31) not in (0, 2):
                kind = 'lui'; rd = (w >> 7) & 31
        else:
            size = 4
            op = w & 0x7f
            kind, tgt, rd, rs1 = 'seq', None, (w >> 7) & 31, (w >> 15) & 31
            if op == 0x63:
                imm = (((w >> 31) & 1) << 12) | (((w >> 7) & 1) << 11) | (((w >> 25) & 0x3f) << 5) | \
                      (((w >> 8) & 0xf) << 1)
                kind, tgt = 'br', (pc + sext(imm, 13)) & m
            elif op == 0x6f:
                imm = (((w >> 31) & 1) << 20) | (((w >> 12) & 0xff) << 12) | (((w >> 20) & 1) << 11) | \
                      (((w >> 21) & 0x3ff) << 1)
                kind, tgt = 'jal', (pc + sext(imm, 21)) & m
            elif op == 0x67:
                kind = 'ujmp'
            elif op in (0x17, 0x37):
                kind = 'lui'
            elif w in (0x30200073, 0x10200073, 0x00200073, 0x7b200073):
                kind = 'xret'
        r = (kind, tgt, size, rd, rs1)
        self.cache[pc] = r
        return r

# ---------------------------------------------------------------- packets
class Bits:
    def __init__(self, data):
        self.v = int.from_bytes(data, 'little')
        self.n = len(data) * 8
        self.pos = 0
    def get(self, w):
        """LSB-first field; bits beyond the payload = copies of the payload's last bit"""
        if w == 0:
            return 0
        v = self.v
        if self.pos + w > self.n:
            last = (self.v >> (self.n - 1)) & 1 if self.n else 0
            if last:
                v = self.v | (((1 << (self.pos + w - self.n)) - 1) << self.n)
        r = (v >> self.pos) & ((1 << w) - 1)
        self.pos += w
        return r

def map_len(b):
    if b == 0: return 31
    if b == 1: return 1
    if b <= 9: return 9
    if b <= 17: return 17
    if b <= 25: return 25
    return 31

def split_refraw(data):
    i = 0
    while i < len(data):
        h = data[i]; L = h & 0x1f
        yield i, h, data[i + 1:i + 1 + L]
        i += 1 + L

def parse(payload, P):
    b = Bits(payload)
    aw = P.iaddress_width_p - P.iaddress_lsb_p
    p = {'len': len(payload)}
    fmt = b.get(2); p['format'] = fmt
    if fmt in (0, 1):
        br = b.get(5); p['branches'] = br
        ml = map_len(br)
        p['map'] = b.get(ml)
        p['nbr'] = 31 if br == 0 else br
        a = b.get(aw)
        p['address'] = None if br == 0 else a
    elif fmt == 2:
        p['address'] = b.get(aw)
    else:
        sf = b.get(2); p['sub'] = sf
        p['context'] = b.get(0 if P.nocontext_p else P.context_width_p)
        p['priv'] = b.get(P.privilege_width_p)
        if sf != 2:
            p['branch'] = b.get(1)
            p['address'] = b.get(aw)
        if sf == 1:
            p['ecause'] = b.get(P.ecause_width_p)
            p['interrupt'] = b.get(1)
            p['tval'] = b.get(0 if P.notval_p else P.iaddress_width_p)
    p['bits_used'] = b.pos
    if len(payload) * 8 >= b.pos + 8:
        print('WARN: payload %s has %d bits, fields need only %d' % (payload.hex(), len(payload) * 8, b.pos))
    return p

def parse_support(payload, P):
    b = Bits(payload)
    return {'msg_type': b.get(2), 'control_code': b.get(6), 'support_type': b.get(4),
            'enable': b.get(1), 'encoder_mode': b.get(P.encoder_mode_w),
            'qual_status': b.get(2), 'len': len(payload)}

# ---------------------------------------------------------------- decoder
class DecodeError(Exception):
    pass

class Decoder:
    def __init__(self, prog, P, out):
        self.prog, self.P, self.out = prog, P, out
        self.pc = None          # last instruction known to have executed
        self.pend = None        # known outcome (1 = not taken) of pc if it is a branch
        self.last_addr = 0      # last reported address (differential base)
        self.mask = (1 << P.iaddress_width_p) - 1
        self.lui = {}           # sijump: register -> set by auipc/lui just before

    priv = None
    def emit(self, pc):
        self.pc = pc
        self.out.append(pc)
        if os.environ.get('PRIVOUT'):
            self.privs.append(self.priv)

    def full(self, a):
        return (a << self.P.iaddress_lsb_p) & self.mask

    def diff(self, a):
        aw = self.P.iaddress_width_p - self.P.iaddress_lsb_p
        return (self.last_addr + (sext(a, aw) << self.P.iaddress_lsb_p)) & self.mask

    def step(self, bits, addr, can_take_addr):
        """advance past self.pc; bits = list of remaining outcomes (1 = not taken)"""
        kind, tgt, size, rd, rs1 = self.prog.info(self.pc)
        if kind == 'br':
            if self.pend is not None:
                o = self.pend; self.pend = None
            elif bits:
                o = bits.pop(0)
            else:
                return None  # need more information
            nxt = (self.pc + size) & self.mask if o else tgt
        elif kind == 'jal':
            nxt = tgt
        elif kind in ('ujmp', 'xret'):
            if self.P.sijump and kind == 'ujmp' and self.prev_sets(rs1):
                raise DecodeError('sijump target computation not implemented')
            if addr is None or not can_take_addr:
                return None
            if bits:
                # the target may itself be the final branch of the map
                if len(bits) == 1 and self.prog.info(addr)[0] == 'br':
                    self.emit(addr)
                    self.pend = bits.pop()
                    return 'took_addr'
                return None
            nxt = addr
            self.pend = None
            self.emit(nxt)
            return 'took_addr'
        else:
            nxt = (self.pc + size) & self.mask
        self.pend = None
        self.emit(nxt)
        return 'ok'

    def prev_sets(self, r):
        return False

    def te_inst(self, p, off):
        fmt = p['format']
        if fmt == 3:
            sf = p['sub']
            if sf == 2:
                return
            a = self.full(p['address'])
            followed = False
            if sf == 0 and self.pc is not None:
                # must be reachable from pc without branch information
                self.follow_to(a, off, allow_branch=False)
                followed = True
            self.priv = p['priv']
            if followed and self.privs:
                self.privs[-1] = self.priv
            if sf == 1 or self.pc is None:
                self.emit(a)
            self.pend = p['branch']
            self.last_addr = a
            return
        if self.pc is None:
            return  # not synchronised
        bits = [(p['map'] >> i) & 1 for i in range(p['nbr'])] if fmt in (0, 1) else []
        addr = None
        if p.get('address') is not None:
            addr = self.full(p['address']) if fmt == 0 or (fmt == 2 and self.P.full_address) \
                else self.diff(p['address'])
        if os.environ.get('DBG') and addr is not None:
            print('   abs address %x (pc now %x, %d branches)' % (addr, self.pc, len(bits)))
        n = 0
        if addr is not None and not bits and self.pc == addr:
            self.last_addr = addr
            self.stats_repeat = getattr(self, 'stats_repeat', 0) + 1
            print('note: packet at %d re-reports current pc %x' % (off, addr))
            return
        while True:
            if addr is not None and self.pc == addr:
                if not bits and n > 0:
                    break
                if len(bits) == 1 and self.pend is None and self.prog.info(self.pc)[0] == 'br':
                    # the reported instruction is itself the last branch of the map
                    self.pend = bits.pop()
                    break
            r = self.step(bits, addr, True)
            n += 1
            if r is None:
                if addr is None and not bits:
                    break
                raise DecodeError('stuck at %x bits=%d addr=%s' % (self.pc, len(bits),
                                  None if addr is None else hex(addr)))
            if r == 'took_addr':
                break
            if addr is None and not bits:
                break
            if n > 1000000:
                raise DecodeError('runaway')
        if addr is not None:
            self.last_addr = addr

    def follow_to(self, a, off, allow_branch):
        n = 0
        while self.pc != a:
            if self.prog.info(self.pc)[0] in ('ujmp', 'xret'):
                self.emit(a); self.pend = None
                return
            r = self.step([], None, False)
            if r is None:
                raise DecodeError('sync at %x not reachable from %x' % (a, self.pc))
            n += 1
            if n > 100000:
                raise DecodeError('runaway')

class Params:
    pass

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('trace'); ap.add_argument('--elf', required=True)
    ap.add_argument('--xlen', type=int, default=None)
    ap.add_argument('--iaddress_lsb_p', type=int, default=1)
    ap.add_argument('--privilege_width_p', type=int, default=2)
    ap.add_argument('--context_width_p', type=int, default=32)
    ap.add_argument('--nocontext_p', type=int, default=1)
    ap.add_argument('--notval_p', type=int, default=0)
    ap.add_argument('--ecause_width_p', type=int, default=6)
    ap.add_argument('--encoder-mode-w', type=int, default=2)
    ap.add_argument('--full-address', action='store_true')
    ap.add_argument('--sijump', action='store_true')
    ap.add_argument('--dump', action='store_true')
    ap.add_argument('--pcs', help='expected PC list to compare with')
    ap.add_argument('-o')
    a = ap.parse_args()
    P = Params()
    xlen = a.xlen
    if xlen is None:
        xlen = 64 if open(a.elf, 'rb').read(5)[4] == 2 else 32
    P.iaddress_width_p = xlen
    for k in ('iaddress_lsb_p', 'privilege_width_p', 'context_width_p', 'nocontext_p',
              'notval_p', 'ecause_width_p', 'full_address', 'sijump'):
        setattr(P, k, getattr(a, k))
    P.encoder_mode_w = a.encoder_mode_w
    prog = Prog(a.elf, xlen)
    data = open(a.trace, 'rb').read()
    out = []
    d = Decoder(prog, P, out)
    d.privs = []
    npk = 0
    for off, h, pl in split_refraw(data):
        npk += 1
        if h & 0xe0 == 0x40:
            p = parse(pl, P)
            if a.dump:
                print(off, pl.hex(), {k: (hex(v) if isinstance(v, int) and k in ('address', 'map', 'tval') else v)
                                      for k, v in p.items()})
            try:
                d.te_inst(p, off)
            except DecodeError as e:
                print('ERROR at offset %d (%s): %s' % (off, pl.hex(), e))
                break
        elif h & 0xe0 == 0:
            s = parse_support(pl, P)
            print('support @%d' % off, pl.hex(), s)
            if s['qual_status'] in (1, 3) or not s['enable']:
                d.pc = None; d.pend = None   # trace ended: next sync restarts
        else:
            print('unknown header %x at %d' % (h, off))
    print('packets', npk, 'decoded PCs', len(out))
    if a.o:
        open(a.o, 'w').write(''.join('0x%X\n' % x for x in out))
        if os.environ.get('PRIVOUT'):
            open(a.o + '.priv', 'w').write(''.join('0x%X %s\n' % (x, y) for x, y in zip(out, d.privs)))
    if a.pcs:
        exp = [int(l, 16) for l in open(a.pcs) if l.strip()]
        n = min(len(exp), len(out))
        for i in range(n):
            if exp[i] != out[i]:
                print('MISMATCH at instruction %d: expected %x got %x' % (i, exp[i], out[i]))
                break
        else:
            print('match for %d of expected %d (decoded %d)%s' % (n, len(exp), len(out),
                  ' EXACT' if len(exp) == len(out) else ''))

if __name__ == '__main__':
    main()
