#!/usr/bin/env python3
"""Independent decoder for the debug-spec trace module format (seed 004).
usage: dbgdec.py ELF TRACE [--emit pc,branch,priv] [--rvc on|off] [--buffer 4096]
                 [--start-nyb N] [--fill lastpkt|curpc] [-o out.pcs]
"""
import sys, argparse, collections
from rvisa import Image

import os
DBG = [int(x) for x in os.environ['DBG'].split(',')] if os.environ.get('DBG') else None
VS_HDRS = {1, 7, 8, 9, 10, 11, 12}
NAMES = {0: 'Nop', 1: 'PC', 2: 'BT', 3: 'BNT', 4: 'TE', 5: 'TD', 6: 'Priv', 7: 'Hart', 8: 'LA', 9: 'SA',
         10: 'LD', 11: 'SD', 12: 'TS', 13: 'Rsvd', 14: 'Cust', 15: 'Cust'}

def nybbles(data):
    # 32-bit words, little-endian memory; first packet in bits 3:0
    for b in data:
        yield b & 15
        yield b >> 4

class Pkt:
    __slots__ = ('off', 'h', 'n', 'raw', 'val', 'full')
    def __init__(self, off, h, n=0, raw=0):
        self.off, self.h, self.n, self.raw = off, h, n, raw
        self.val = None
        self.full = False
    def __repr__(self):
        s = '%s@0x%x.%d' % (NAMES[self.h], self.off // 2, self.off & 1)
        if self.h in VS_HDRS:
            s += '[%d nyb raw=0x%x val=%s]' % (self.n, self.raw, hex(self.val) if self.val is not None else None)
        elif self.h in (4, 6):
            s += '[0x%x]' % self.raw
        return s

def parse(data, start=0, log=None):
    ny = list(nybbles(data))
    pk = []
    i = start
    L = len(ny)
    while i < L:
        h = ny[i]
        off = i
        i += 1
        if h in VS_HDRS:
            if i >= L:
                log.append(('truncated VS header', off)); break
            N = ny[i]; i += 1
            if i + N + 1 > L:
                log.append(('truncated VS', off)); break
            v = 0
            for k in range(N + 1):
                v |= ny[i + k] << (4 * k)
            i += N + 1
            pk.append(Pkt(off, h, N + 1, v))
        elif h in (4, 6):
            if i >= L:
                log.append(('truncated', off)); break
            pk.append(Pkt(off, h, 1, ny[i])); i += 1
        elif h in (14, 15, 13):
            log.append(('reserved/custom header', off, h))
            pk.append(Pkt(off, h))
        else:
            pk.append(Pkt(off, h))
    return pk, ny

class Dec:
    def __init__(self, img, pk, emit, rvc, log, fill='lastpkt'):
        self.img, self.pk, self.E, self.log = img, pk, emit, log
        self.xlen = img.xlen
        self.shift = 1 if rvc else 2
        self.pcbits = self.xlen - self.shift
        self.fill = fill
        self.i = 0
        self.lastpc_field = 0
        self.last = {8: 0, 9: 0, 12: 0}
        self.out = []
        self.stats = collections.Counter()
        self.priv = None
        self.pending_sync = None
        self.curpc = None
        self.lastpkt_len = 0
        self.maxout = 5000000
        self.syncidx = set()

    # value reconstruction per the table
    def recon(self, p, curpc=None):
        bits = 4 * p.n
        if p.h == 1:
            width = self.pcbits
            ref = self.lastpc_field if (self.fill == 'lastpkt' or curpc is None) else (curpc >> self.shift)
            if bits >= width:
                f = p.raw & ((1 << width) - 1)
                if p.raw >> width:
                    self.log.append(('PC value has bits above XLEN-1', p))
                p.full = True
            else:
                m = (1 << bits) - 1
                f = (ref & ~m) | (p.raw & m)
            self.lastpc_field = f
            p.val = f << self.shift
        elif p.h in (8, 9, 12):
            m = (1 << bits) - 1 if bits < 64 else (1 << 64) - 1
            p.full = bits >= (self.xlen if p.h != 12 else 64)
            p.val = (self.last[p.h] & ~m) | (p.raw & m)
            self.last[p.h] = p.val
        elif p.h in (10, 11):
            bits = min(bits, 64)
            v = p.raw
            if v >> (bits - 1) & 1:
                v -= 1 << bits
            p.val = v & ((1 << self.xlen) - 1)
        elif p.h == 7:
            p.val = p.raw
        return p

    def peek(self, k=0, skip=(0, 12, 7)):
        # next packets, transparently skipping Nops/timestamps/change-hart
        j = self.i
        while j < len(self.pk):
            if self.pk[j].h in skip or j in self.syncidx:
                j += 1; continue
            if k == 0:
                return self.pk[j]
            k -= 1; j += 1
        return None

    def take(self, skip=(0, 12, 7)):
        while self.i < len(self.pk) and (self.pk[self.i].h in skip or self.i in self.syncidx):
            p = self.pk[self.i]
            if self.i in self.syncidx:
                self.stats['sync-point %s (after %s)' % (NAMES[p.h], self.lastkind)] += 1
                if p.h == 1:
                    ok = p.val in self.out[self.lastpkt_len:] or p.val == getattr(self, 'npc_pending', None)
                    self.stats['sync PC names %s' % ('an insn executed since the last packet' if ok else 'OTHER')] += 1
                    if not ok:
                        self.err('sync-point PC 0x%x, current insn 0x%x' % (p.val, self.curpc), p)
                    if not p.full: self.err('sync-point PC not full', p)
                if p.h == 6: self.priv = p.raw
                self.i += 1
                continue
            self.stats[NAMES[p.h]] += 1
            if p.h == 12:
                self.stats['TS after ' + self.lastkind] += 1
            self.i += 1
        if self.i >= len(self.pk):
            return None
        p = self.pk[self.i]
        self.i += 1
        self.lastpkt_len = len(self.out)
        return p

    def pcval_peek(self, k=0):
        p = self.peek(k)
        return p.val if p is not None and p.h == 1 else None

    def pcval_peek_old(self, k=0):
        # value a peeked PC packet would reconstruct to (using last-packet fill), without consuming
        saved = self.lastpc_field
        vals = []
        j = 0
        res = None
        # reconstruct sequentially
        idx = self.i
        cnt = -1
        while idx < len(self.pk):
            p = self.pk[idx]; idx += 1
            if p.h in (0, 12, 7):
                continue
            cnt += 1
            if p.h == 1:
                bits = 4 * p.n
                if bits >= self.pcbits:
                    f = p.raw & ((1 << self.pcbits) - 1)
                else:
                    m = (1 << bits) - 1
                    f = (saved & ~m) | (p.raw & m)
                saved = f
                if cnt == k:
                    return f << self.shift
            elif cnt == k:
                return None
        return None

    def err(self, msg, p=None):
        self.log.append((msg, p if p is not None else (self.pk[self.i] if self.i < len(self.pk) else None)))

    def data_pkts(self, kind, info):
        E = self.E
        exp = []
        if kind == 'load':
            if 'loadaddr' in E: exp.append(8)
            if 'loaddata' in E: exp.append(10)
        elif kind == 'store':
            if 'storeaddr' in E: exp.append(9)
            if 'storedata' in E: exp.append(11)
        elif kind == 'amo':
            if 'loadaddr' in E: exp.append(8)
            if 'loaddata' in E: exp.append(10)
            if 'storeaddr' in E: exp.append(9)
            if 'storedata' in E: exp.append(11)
        elif kind == 'csr':
            if info['r'] and 'loaddata' in E: exp.append(10)
            if info['w'] and 'storedata' in E: exp.append(11)
        got = []
        while True:
            p = self.peek()
            if p is None or p.h not in (8, 9, 10, 11):
                break
            got.append(self.take())
        gh = [p.h for p in got]
        self.stats['data %s %s' % (kind, ','.join(NAMES[h] for h in gh))] += 1
        if gh != exp:
            self.err('data packets for %s: expected %s got %s' % (kind, [NAMES[h] for h in exp], [NAMES[h] for h in gh]), got[0] if got else None)
        return got

    def expect_pc(self, want, why):
        p = self.peek()
        if p is None or p.h != 1:
            self.err('%s: expected PC packet, got %r' % (why, p))
            return None
        p = self.take()
        if want is not None and p.val != want:
            self.err('%s: PC value 0x%x != expected 0x%x' % (why, p.val, want), p)
        return p.val

    def run(self, expected=None):
        E = self.E
        pc = None
        self.lastkind = 'start'
        out = self.out
        while True:
            if pc is None:
                # (re)acquire: TE, Priv, PC
                p = self.take()
                if p is None:
                    break
                if p.h == 4:
                    self.stats['TE v%d' % p.raw] += 1
                    if p.raw != 0: self.err('TE version != 0', p)
                    continue
                if p.h == 6:
                    self.priv = p.raw; continue
                if p.h == 5:
                    self.stats['TD while unsynced'] += 1
                    continue
                if p.h == 1:
                    if not p.full:
                        self.err('first PC after (re)start not full', p)
                    pc = p.val
                    out.append(('sync', pc, p.off))
                    continue
                self.err('unexpected while unsynced', p)
                continue
            # end-of-trace protocol: PC then TD
            q = self.peek()
            if q is None:
                break
            try:
                ln, kind, tgt, info = self.img.insn(pc)
            except KeyError:
                self.err('PC 0x%x outside image' % pc); break
            # final "PC + TD" : interpret as the last instruction executed
            q = self.peek()
            if q.h == 1:
                q1 = self.peek(1)
                if q1 is not None and q1.h == 5:
                    v = self.pcval_peek(0)
                    if kind in ('seq', 'load', 'store', 'csr', 'amo', 'wfi') or (kind == 'br' and 'branch' not in E) or (kind == 'jal' and 'branch' in E):
                        # if the stop PC is reachable sequentially from here, walk there
                        if v is not None and self.walk_to(pc, v):
                            self.take(); self.take()
                            self.stats['end PC+TD (last executed)'] += 1
                            pc = None
                            out.append(('stop', v, q.off))
                            continue
            if q.h == 5:
                self.take()
                self.stats['TD mid'] += 1
                out.append(('TD', pc, q.off))
                pc = None
                continue
            out.append(pc)
            if len(out) > self.maxout:
                self.err('output limit reached'); break
            self.curpc = pc
            if self.pending_sync is not None:
                if self.pending_sync.val != pc:
                    self.err('sync-point PC 0x%x but next executed 0x%x' % (self.pending_sync.val, pc), self.pending_sync)
                self.pending_sync = None
            if DBG and DBG[0] <= sum(1 for _ in ()) + len(out) <= DBG[1]:
                print('DBG #%d pc 0x%x kind %s next %r' % (len(out), pc, kind, self.pk[self.i:self.i+4]))
            self.lastkind = kind
            self.data_pkts(kind, info)
            npc = pc + ln
            if kind == 'br':
                if 'branch' in E:
                    p = self.peek()
                    if p is None or p.h not in (2, 3):
                        self.err('branch at 0x%x: expected BT/BNT, got %r' % (pc, p))
                    else:
                        self.take()
                        if p.h == 2: npc = tgt
                elif 'pc' in E:
                    if self.peek() is not None and self.peek().h == 1 and self.pcval_peek(0) == pc and self.pcval_peek(1) == tgt \
                            and self.peek(1).h == 1:
                        self.take(); self.take(); npc = tgt
                        self.stats['br taken pair'] += 1
            elif kind == 'jal':
                if 'branch' not in E and 'pc' in E:
                    self.expect_pc(pc, 'jal 0x%x first' % pc)
                    self.expect_pc(tgt, 'jal 0x%x target' % pc)
                npc = tgt
            elif kind == 'jalr':
                if 'branch' not in E and 'pc' in E:
                    self.expect_pc(pc, 'jalr 0x%x first' % pc)
                    v = self.expect_pc(None, 'jalr 0x%x target' % pc)
                else:
                    # seed: "Otherwise, if emitstoredata is enabled emit just the destination PC."
                    p = self.peek()
                    if 'storedata' not in E:
                        self.stats['jalr dest PC without storedata: %s' % ('present' if p is not None and p.h == 1 else 'absent')] += 1
                    v = self.expect_pc(None, 'jalr 0x%x dest' % pc)
                if v is None:
                    break
                npc = v
            elif kind in ('ecall', 'ebreak', 'eret'):
                # "emit the same as if they were jal instructions. In addition they also emit a Privilege Level sequence."
                seq = []
                npc = self.trapgroup(pc, seq)
                self.stats['%s group %s' % (kind, ','.join(seq))] += 1
                if npc is None:
                    self.stats['%s with no packets: treated as sequential' % kind] += 1
                    npc = pc + ln
            # interrupt / exception after this instruction: PC(last executed), Priv, PC(new)
            p = self.peek()
            if p is not None and (p.h == 6 or (p.h == 1 and ((self.pcval_peek(0) == pc and self.intr_after(pc, npc)) or (self.pcval_peek(0) == npc and self.exc_at(npc))) and (self.peek(1) is not None and self.peek(1).h in (1, 6)))):
                seq = []
                v = self.trapgroup(pc, seq, npc)
                self.stats['trap group after %s: %s' % (kind, ','.join(seq))] += 1
                if v is not None: npc = v
            pc = npc
            self.npc_pending = npc
        return out

    def exc_at(self, npc):
        # PC(npc) next: is it an exception at npc (npc not retired)?
        q = self.peek(1)
        if q is None: return False
        if q.h == 6:
            return (q.raw >> 3) & 1 == 0
        if q.h == 1 and 'branch' not in self.E and 'pc' in self.E:
            try:
                ln, kind, tgt, info = self.img.insn(npc)
            except KeyError:
                return True
            if kind in ('jal', 'br'):
                return q.val != tgt
            if kind in ('jalr', 'eret'):
                return False
        return True

    def intr_after(self, pc, npc):
        q = self.peek(1)
        if q is None: return False
        if q.h == 6: return True
        if 'priv' in self.E: return False
        # pc-only: PC(pc),PC(v) could be the same instruction again (a loop); walk from npc
        a = npc
        for _ in range(64):
            try:
                ln, kind, tgt, info = self.img.insn(a)
            except KeyError:
                return True
            if a == pc:
                if kind in ('jal', 'br') and tgt == q.val: return False
                if kind == 'jalr': return False
                return True
            if kind in ('jal', 'jalr', 'ecall', 'ebreak', 'eret'): return True
            if kind == 'br':
                # not taken emits nothing in pc mode; follow fall-through only
                pass
            a += ln
        return True

    def intr_next(self):
        q = self.peek(1)
        return q is not None and q.h == 6 and (q.raw >> 3) & 1 == 1

    def trapgroup(self, pc, seq, npc=None):
        def pr():
            p = self.peek()
            if p is not None and p.h == 6:
                self.take(); self.priv = p.raw; seq.append('Priv')
                self.stats['priv nybble 0x%x' % p.raw] += 1
        pr()
        p = self.peek()
        if p is not None and p.h == 1 and (self.pcval_peek(0) == pc or (self.pcval_peek(0) == npc and self.exc_at(npc))) and self.peek(1) is not None and self.peek(1).h in (1, 6):
            seq.append('PC(self)' if self.pcval_peek(0) == pc else 'PC(next)')
            self.take()
            pr()
        p = self.peek()
        dest = None
        if p is not None and p.h == 1:
            dest = self.take().val; seq.append('PC(dest)')
            if 'Priv' not in seq: pr()
        return dest

    def walk_to(self, pc, v):
        # sequential walk (no control flow) from pc to v
        n = 0
        p = pc
        while n < 100000:
            try:
                ln, kind, tgt, info = self.img.insn(p)
            except KeyError:
                return False
            if kind not in ('seq', 'load', 'store', 'csr', 'amo', 'wfi') and p != v:
                if not (kind == 'br' and 'branch' not in self.E):
                    return False
            if p == v:
                # emit instructions pc..v inclusive
                q = pc
                while True:
                    self.out.append(q)
                    ln2, kind2, _, info2 = self.img.insn(q)
                    self.data_pkts(kind2, info2) if q != v else None
                    if q == v: break
                    q += ln2
                return True
            p += ln; n += 1
        return False

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('elf'); ap.add_argument('trace')
    ap.add_argument('--emit', default='pc,branch,priv')
    ap.add_argument('--rvc', default='on')
    ap.add_argument('--buffer', type=int, default=4096)
    ap.add_argument('--start', type=int, default=0, help='start byte')
    ap.add_argument('--fill', default='lastpkt')
    ap.add_argument('--ref')
    ap.add_argument('-o')
    ap.add_argument('--maxerr', type=int, default=15)
    a = ap.parse_args()
    img = Image(a.elf)
    data = open(a.trace, 'rb').read()
    log = []
    pk, ny = parse(data, 2 * a.start, log)
    E = set(a.emit.split(',')) if a.emit != 'none' else set()
    if 'all' in E:
        E = {'pc', 'branch', 'priv', 'loadaddr', 'storeaddr', 'loaddata', 'storedata', 'timestamp'}
    # sync-point check: every buffer/8 bytes a header must start
    per = a.buffer // 8 * 2
    hdr_offs = set(p.off for p in pk)
    bad = [o for o in range(0, len(ny), per) if o >= 2 * a.start and o not in hdr_offs]
    print('sync points: %d checked, %d not at a header %s' % (len(range(0, len(ny), per)), len(bad), [hex(o // 2) for o in bad[:5]]))
    # nops only before sync points?
    nop_runs = []
    k = 0
    while k < len(pk):
        if pk[k].h == 0:
            s = k
            while k < len(pk) and pk[k].h == 0: k += 1
            end = pk[k].off if k < len(pk) else len(ny)
            nop_runs.append((pk[s].off, end))
        else:
            k += 1
    nonsync = [(hex(s // 2), e % per) for s, e in nop_runs if e % per != 0 and e != len(ny)]
    print('nop runs: %d, not ending at a sync point: %d %s' % (len(nop_runs), len(nonsync), nonsync[:5]))
    d = Dec(img, pk, E, a.rvc == 'on', log, a.fill)
    d.per = per
    for p in pk:
        if p.h in VS_HDRS: d.recon(p)
    # sync groups: header at a sync offset that is Priv+PC or PC
    d.syncidx = set()
    for k, p in enumerate(pk):
        if p.off % per == 0 and p.off > 0:
            if p.h == 6 and k + 1 < len(pk) and pk[k + 1].h == 1:
                d.syncidx.update((k, k + 1))
            elif p.h == 1:
                d.syncidx.add(k)
            else:
                log.append(('sync point header is not Priv/PC', p))
    out = d.run()
    # full value after sync points
    notfull = collections.Counter()
    firstafter = {}
    for p in pk:
        sp = p.off // per
        for h in (1, 8, 9, 12):
            if p.h == h and (sp, h) not in firstafter:
                firstafter[(sp, h)] = p
    for (sp, h), p in sorted(firstafter.items()):
        if not p.full:
            notfull[NAMES[h]] += 1
            if notfull[NAMES[h]] <= 3:
                log.append(('first %s after sync point %d not full' % (NAMES[h], sp), p))
    print('first value after sync point not full:', dict(notfull))
    pcs = [x for x in out if isinstance(x, int)]
    marks = [x for x in out if not isinstance(x, int)]
    print('decoded %d PCs; marks: %s' % (len(pcs), marks[:6], ))
    print('stats:')
    for k, v in sorted(d.stats.items()):
        print('   %-50s %d' % (k, v))
    print('log: %d entries' % len(log))
    for e in log[:a.maxerr]:
        print('   ', e)
    if a.o:
        with open(a.o, 'w') as f:
            for x in out:
                f.write(('0x%X\n' % x) if isinstance(x, int) else '# %s 0x%x %d\n' % x)
    if a.ref:
        ref = [int(l.split()[0], 16) for l in open(a.ref) if l.strip()]
        if os.environ.get('TAIL'):
            ref = ref[len(ref) - len(pcs):]
        n = min(len(ref), len(pcs))
        k = 0
        while k < n and ref[k] == pcs[k]: k += 1
        print('REF %d PCs, decoded %d, common prefix %d %s' % (len(ref), len(pcs), k, 'EXACT' if k == len(ref) == len(pcs) else ''))
        if k < n:
            print('   first mismatch at #%d: ref 0x%x dec 0x%x; ref ctx %s' % (k, ref[k], pcs[k], [hex(x) for x in ref[max(0, k - 3):k + 3]]))

if __name__ == '__main__':
    main()
