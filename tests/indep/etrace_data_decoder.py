#!/usr/bin/env python3
"""Independent E-Trace 2.0 data trace (te_data) decoder, written from the spec text
(dataTracePayload.adoc, payload.adoc, ingressPort.adoc, encapsulation.adoc).

Usage: etrace_data_decoder.py TRACE --elf ELF --refdata EXPECTED.csv [--pcs PCS] [options]
"""
import argparse
import csv
import subprocess
import sys


def clog2(x):
    n = 0
    while (1 << n) < x:
        n += 1
    return n


def sext(v, bits):
    if bits == 0:
        return 0
    v &= (1 << bits) - 1
    if v >> (bits - 1):
        v -= 1 << bits
    return v


class DecodeError(Exception):
    pass


class Bits:
    """LSB-first bit reader over a payload; reads past the end return the sign
    (the most significant received bit) -- payload.adoc 'sign based compression'."""

    def __init__(self, data, start_bit=0):
        self.v = int.from_bytes(bytes(data), 'little')
        self.n = len(data) * 8
        self.pos = start_bit
        self.sign = (self.v >> (self.n - 1)) & 1 if self.n else 0
        self.overrun = 0

    def get(self, w):
        r = 0
        for i in range(w):
            p = self.pos + i
            if p < self.n:
                b = (self.v >> p) & 1
            else:
                b = self.sign
                self.overrun += 1
            r |= b << i
        self.pos += w
        return r


# ---------------------------------------------------------------- encap framing
def deframe(buf, a):
    """Yields (offset, srcid, timestamp, payload_bytes, payload_start_bit)."""
    i = 0
    n = len(buf)
    S = a.src_bits // 8
    T = a.encap_timestamp
    while i < n:
        h = buf[i]
        length = h & 0x1f
        extend = h >> 7
        if length == 0:
            i += 1          # null.idle / null.alignment
            continue
        total = 1 + S + (T * extend) + length
        if i + total > n:
            raise DecodeError('truncated encap packet at byte %d' % i)
        body = buf[i + 1:i + total]
        br = Bits(body)
        src = br.get(a.src_bits)
        ts = br.get(8 * T) if extend else None
        yield i, src, ts, body, br.pos
        i += total


# ---------------------------------------------------------------- expected accesses
def load_refdata(path):
    rows = []
    with open(path) as f:
        r = csv.reader(f)
        hdr = next(r)
        for row in r:
            if not row:
                continue
            d = dict(zip(hdr, row))
            if int(d['DRETIRE'], 16) == 0:
                continue
            rows.append((int(d['DTYPE'], 10), int(d['DADDR'], 16), int(d['DSIZE'], 16),
                         int(d['DATA'], 16) if d['DATA'] else 0))
    return rows


def dclass(dtype):
    if dtype == 0:
        return 'load'
    if dtype == 1:
        return 'store'
    if 4 <= dtype <= 7:
        return 'csr'
    if 8 <= dtype <= 15:
        return 'atomic'
    return '?'


# ---------------------------------------------------------------- te_data decoder
class Access:
    __slots__ = ('dtype', 'addr', 'dsize', 'data', 'pkt', 'off', 'lrid', 'pending', 'note')

    def __init__(self, dtype, addr, dsize, data, pkt, off):
        self.dtype, self.addr, self.dsize, self.data = dtype, addr, dsize, data
        self.pkt, self.off = pkt, off
        self.lrid = None
        self.pending = False
        self.note = ''


class DataDecoder:
    def __init__(self, a):
        self.a = a
        self.fmt_w = 2 if (a.dtype_width_p == 1 and not a.data_split_p) else 3
        self.size_w = max(1, clog2(clog2(a.data_width_p // 8 + 1)))
        self.aw = a.daddress_width_p
        self.amask = (1 << self.aw) - 1
        self.reset()
        self.accesses = []
        self.pending = {}   # lrid -> Access (split loads / atomics)
        self.warnings = []
        self.fields = []    # for --verbose

    def reset(self):
        self.prev_addr = {}   # keyed by size (dataTracePayload: 'previous data access of the same size')
        self.prev_data = {}

    def warn(self, msg):
        self.warnings.append(msg)

    # address field: last field of the packet
    def addr_field(self, br, size, aligned, diff, key, pkt, off):
        raw = sext(br.get(self.aw), self.aw)
        if aligned:
            raw = raw << size
        if diff:
            if key not in self.prev_addr:
                self.warn('packet %d @%d: differential address with no previous full address (size key %r)' % (pkt, off, key))
                base = 0
            else:
                base = self.prev_addr[key]
            addr = (base + raw) & self.amask
        else:
            addr = raw & self.amask
        self.prev_addr[key] = addr
        return addr

    def value(self, raw, nbits, width_bits, mode, key, pkt, off):
        """raw: received bits (nbits of them); sign-extend to width_bits; apply compression.
        mode: 'full' | 'xor' | 'diff'."""
        m = (1 << width_bits) - 1
        v = sext(raw, nbits) & m
        if mode != 'full':
            if key not in self.prev_data:
                self.warn('packet %d @%d: compressed data with no previous full value (key %r)' % (pkt, off, key))
                base = 0
            else:
                base = self.prev_data[key]
            v = (base ^ v) if mode == 'xor' else ((base + v) & m)
        self.prev_data[key] = v
        return v

    def diff2_mode(self, d):
        # unified address+data: 00 full(sync) 01 diff addr+XOR data 10 diff addr+full data 11 diff addr+diff data
        return {0: (False, 'full'), 1: (True, 'xor'), 2: (True, 'full'), 3: (True, 'diff')}[d]

    def data_only_mode(self, br, pkt, off):
        """diff field of the 'data only' packets: 1 or 2 bits (a.diff_bits)."""
        if self.a.diff_bits == 2:
            d = br.get(2)
            if d == 2:
                self.warn('packet %d @%d: data-only diff=10 is reserved' % (pkt, off))
            return {0: 'full', 1: 'xor', 2: 'full', 3: 'diff'}[d], d
        d = br.get(1)
        return ('full' if d == 0 else self.a.compress), d

    def packet(self, br, pkt, off):
        a = self.a
        f = {}
        fmt = br.get(self.fmt_w)
        f['format'] = fmt
        no_addr, no_data = a.data_no_address, a.data_no_value
        if fmt in (0, 1, 2, 3):
            is_load = fmt in (0, 1)
            aligned = fmt in (0, 2)
            size = br.get(self.size_w)
            f['size'] = size
            vbits = 8 << size
            dtype = 0 if is_load else 1
            acc = Access(dtype, None, size, None, pkt, off)
            if a.data_split_p and is_load:
                lrid = br.get(a.lrid_width_p)
                diff = br.get(1)
                f.update(lrid=lrid, diff=diff)
                if not no_addr:
                    acc.addr = self.addr_field(br, size, aligned, diff, size, pkt, off)
                acc.lrid = lrid
                acc.pending = not no_data
                if lrid in self.pending:
                    self.warn('packet %d @%d: lrid %d reused while a load with it is outstanding' % (pkt, off, lrid))
                if not no_data:
                    self.pending[lrid] = acc
            elif not no_addr and not no_data:
                d = br.get(2)
                diff, mode = self.diff2_mode(d)
                dl = br.get(size)
                raw = br.get(8 * (dl + 1))
                f.update(diff=d, data_len=dl, data=raw)
                acc.data = self.value(raw, 8 * (dl + 1), vbits, mode, size, pkt, off)
                acc.addr = self.addr_field(br, size, aligned, diff, size, pkt, off)
            elif not no_addr:      # address only
                diff = br.get(1)
                f.update(diff=diff)
                acc.addr = self.addr_field(br, size, aligned, diff, size, pkt, off)
            else:
                mode, d = self.data_only_mode(br, pkt, off)
                raw = br.get(a.data_width_p)
                f.update(diff=d, data=raw)
                acc.data = self.value(raw, a.data_width_p, vbits, mode, size, pkt, off)
            if no_data and not no_addr:
                diff = None
            if no_data and no_addr:
                pass
            if no_addr and no_data:
                pass
            # (address-only branch above handles no_data)
            self.fields.append((pkt, off, f))
            self.accesses.append(acc)
            return
        if fmt == 4:   # split load data
            size = br.get(self.size_w)
            lrid = br.get(a.lrid_width_p)
            resp = br.get(2)
            f.update(size=size, lrid=lrid, resp=resp)
            acc = self.pending.pop(lrid, None)
            if acc is None:
                self.warn('packet %d @%d: split load data for lrid %d with no outstanding request' % (pkt, off, lrid))
                acc = Access(0, None, size, None, pkt, off)
                self.accesses.append(acc)
            elif acc.dsize != size and acc.dtype == 0:
                self.warn('packet %d @%d: response size %d != request size %d (lrid %d)' % (pkt, off, size, acc.dsize, lrid))
            acc.pending = False
            if resp == 0:
                acc.note = 'error'
                acc.data = None
            else:
                raw = br.get(a.data_width_p)
                f['data'] = raw
                mode = {1: 'xor', 2: 'full', 3: 'diff'}[resp]
                vbits = 8 << size
                acc.data = self.value(raw, a.data_width_p, vbits, mode, size, pkt, off)
            self.fields.append((pkt, off, f))
            return
        if fmt == 6 or fmt == 7:
            if fmt == 7 or (a.data_split_p and self.split_atomic_data_is_110(br)):
                return self.split_atomic_data(br, pkt, off, f)
            sub = br.get(3)
            size = br.get(self.size_w)
            f.update(subtype=sub, size=size)
            vbits = 8 << size
            acc = Access(8 + sub, None, size + 1, None, pkt, off)
            op = 0
            if a.data_split_p:
                lrid = br.get(a.lrid_width_p)
                f['lrid'] = lrid
                if a.split_atomic_diff_bits == 2:
                    d = br.get(2)
                    diff = d != 0
                else:
                    d = br.get(1)
                    diff = d == 1
                f['diff'] = d
                ol = br.get(size)
                op = sext(br.get(8 * (ol + 1)), 8 * (ol + 1)) & ((1 << vbits) - 1)
                f.update(op_len=ol, operand=op)
                acc.addr = self.addr_field(br, size, True, diff, size, pkt, off)
                acc.lrid = lrid
                acc.pending = True
                acc.data = None
                acc.note = op
                self.pending[lrid] = acc
            elif not no_addr and not no_data:
                d = br.get(2)
                diff, mode = self.diff2_mode(d)
                ol = br.get(size)
                op = sext(br.get(8 * (ol + 1)), 8 * (ol + 1)) & ((1 << vbits) - 1)
                dl = br.get(size)
                raw = br.get(8 * (dl + 1))
                f.update(diff=d, op_len=ol, operand=op, data_len=dl, data=raw)
                data = self.value(raw, 8 * (dl + 1), vbits, mode, size, pkt, off)
                acc.data = data | (op << vbits)
                acc.addr = self.addr_field(br, size, True, diff, size, pkt, off)
            elif not no_addr:      # address only
                diff = br.get(1)
                f['diff'] = diff
                acc.addr = self.addr_field(br, size, True, diff, size, pkt, off)
            else:
                mode, d = self.data_only_mode(br, pkt, off)
                ol = br.get(size)
                op = sext(br.get(8 * (ol + 1)), 8 * (ol + 1)) & ((1 << vbits) - 1)
                raw = br.get(a.data_width_p)
                f.update(diff=d, op_len=ol, operand=op, data=raw)
                data = self.value(raw, a.data_width_p, vbits, mode, size, pkt, off)
                acc.data = data | (op << vbits)
            self.fields.append((pkt, off, f))
            self.accesses.append(acc)
            return
        if fmt == 5:   # CSR
            # subtype: 2 bits in the tables with data, 3 bits in the address-only table
            sub = br.get(a.csr_ao_subtype_bits if no_data else a.csr_subtype_bits)
            f['subtype'] = sub
            lw = a.csr_len_bits
            cbits = 8 << lw          # 32 or 64
            acc = Access(4 + sub, None, lw + 1, None, pkt, off)
            if no_data:
                # address only: diff 0 or 1 bits
                if a.csr_addr_diff_bits:
                    f['diff'] = br.get(a.csr_addr_diff_bits)
                ms = br.get(6)
                ls = br.get(6)
                acc.addr = (ms << 6) | ls
                f.update(addr_msbs=ms, addr_lsbs=ls)
            else:
                mode, d = self.data_only_mode(br, pkt, off)
                dl = br.get(lw)
                raw = br.get(8 * (dl + 1))
                ms = br.get(6)
                f.update(diff=d, data_len=dl, data=raw, addr_msbs=ms)
                data = self.value(raw, 8 * (dl + 1), cbits, mode, lw if a.csr_key == 'size' else 'csr', pkt, off)
                op = 0
                if (ms >> 4) != 3:
                    ol = br.get(lw)
                    op = sext(br.get(8 * (ol + 1)), 8 * (ol + 1)) & ((1 << cbits) - 1)
                    f.update(op_len=ol, operand=op)
                ls = br.get(6)
                f['addr_lsbs'] = ls
                acc.addr = (ms << 6) | ls
                acc.data = data | (op << cbits)
            self.fields.append((pkt, off, f))
            self.accesses.append(acc)
            return
        self.warn('packet %d @%d: unknown te_data format %d' % (pkt, off, fmt))
        self.fields.append((pkt, off, f))

    def split_atomic_data_is_110(self, br):
        return False

    def split_atomic_data(self, br, pkt, off, f):
        a = self.a
        lrid = br.get(a.lrid_width_p)
        resp = br.get(2)
        f.update(lrid=lrid, resp=resp)
        acc = self.pending.pop(lrid, None)
        if acc is None:
            self.warn('packet %d @%d: split atomic data for lrid %d with no request' % (pkt, off, lrid))
            self.fields.append((pkt, off, f))
            return
        size = acc.dsize - 1
        vbits = 8 << size
        acc.pending = False
        if resp == 0:
            acc.data = None
            acc.note = 'error'
        else:
            dl = br.get(size)
            raw = br.get(8 * (dl + 1))
            mode = {1: 'xor', 2: 'full', 3: 'diff'}[resp]
            data = self.value(raw, 8 * (dl + 1), vbits, mode, size, pkt, off)
            acc.data = data | (acc.note << vbits)
            acc.note = ''
            f.update(data_len=dl, data=raw)
        self.fields.append((pkt, off, f))


# ---------------------------------------------------------------- te_inst (minimal)
def te_inst_kind(br):
    fmt = br.get(2)
    sub = None
    if fmt == 3:
        sub = br.get(2)
    return fmt, sub


def inst_report(fo, dec, a, kinds):
    """--data-trace on: tie each decoded access to an instruction of the reconstructed path."""
    for e in fo.errors[:10]:
        print('te_inst error:', e)
    pcs = fo.pcs
    print('instruction trace: %d instructions reconstructed, %d te_inst errors' % (len(pcs), len(fo.errors)))
    if a.pcs:
        truth = [int(l.split()[0], 16) for l in open(a.pcs) if l.strip()]
        n = 0
        while n < min(len(truth), len(pcs)) and truth[n] == pcs[n][0]:
            n += 1
        if n == len(truth) == len(pcs):
            print('instruction trace: all %d PCs equal the --pcs file' % n)
        else:
            print('instruction trace: first %d PCs equal the --pcs file (%d there, %d reconstructed)%s'
                  % (n, len(truth), len(pcs), '' if n >= min(len(truth), len(pcs)) else
                     '; at %d expected %#x got %#x' % (n, truth[n], pcs[n][0])))
    kindof = {'load': 'load', 'lr': 'load', 'store': 'store', 'sc': 'store', 'amo': 'atomic', 'csr': 'csr'}
    k = 0
    bad = []
    per = {}
    order_before = order_after = 0
    nmem = 0
    for idx, (pc, ipkt) in enumerate(pcs):
        ins = fo.code[pc]
        if ins.mem is None or kindof.get(ins.mem, 'load') not in kinds:
            continue
        nmem += 1
        got = []
        # one access per load/store/AMO/CSR instruction (no push/pop in these programs)
        if k < len(dec):
            got.append(dec[k])
            k += 1
        if not got:
            bad.append('instruction %d at %#x (%s): no access left' % (idx, pc, ins.text))
            break
        d = got[0]
        per[ins.mem] = per.get(ins.mem, 0) + 1
        if d.pkt < ipkt:
            order_before += 1
        else:
            order_after += 1
        ok = True
        why = ''
        if ins.mem in ('load', 'lr'):
            ok = d.dtype == 0 and d.dsize == ins.msize
        elif ins.mem == 'store':
            ok = d.dtype == 1 and d.dsize == ins.msize
        elif ins.mem == 'sc':
            ok = d.dtype in (1, 15) and (d.dsize == ins.msize or d.dtype == 15)
        elif ins.mem == 'amo':
            ok = d.dtype == 8 + (ins.sub if ins.sub is not None else 99) and d.dsize == ins.msize + 1
            why = ' (atomic size: instruction %d bytes, access dsize %d)' % (1 << ins.msize, d.dsize)
        elif ins.mem == 'csr':
            ok = d.dtype == 4 + ins.sub and (a.data_no_address or d.addr == ins.csr)
        if not ok:
            bad.append('access %d (packet %d) type=%d size=%d addr=%s does not fit instruction %d at %#x: %s%s'
                       % (k - 1, d.pkt, d.dtype, d.dsize, d.addr if d.addr is None else hex(d.addr), idx, pc, ins.text, why))
    for b in bad[:10]:
        print('instruction tie:', b)
    print('instruction tie: %d memory instructions on the reconstructed path, %d accesses decoded; %d tied, %d do not fit; '
          'per kind %s; te_data packet before/after the te_inst packet that reported its instruction: %d/%d'
          % (nmem, len(dec), min(nmem, len(dec)), len(bad), per, order_before, order_after))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('trace')
    ap.add_argument('--elf', required=True)
    ap.add_argument('--refdata', required=True)
    ap.add_argument('--pcs')
    ap.add_argument('--xlen', type=int)
    ap.add_argument('--src-bits', type=int, default=0)
    ap.add_argument('--encap-timestamp', type=int, default=0)
    ap.add_argument('--type-bits', type=int, default=1)
    ap.add_argument('--daddress_width_p', type=int)
    ap.add_argument('--data_width_p', type=int, default=64)
    ap.add_argument('--dtype_width_p', type=int, default=4)
    ap.add_argument('--lrid_width_p', type=int, default=1)
    ap.add_argument('--data_split_p', type=int, default=0)
    ap.add_argument('--data-no-value', action='store_true')
    ap.add_argument('--data-no-address', action='store_true')
    ap.add_argument('--diff-bits', type=int, default=2, help='diff width of data-only / CSR packets (1 or 2)')
    ap.add_argument('--split-atomic-diff-bits', type=int, default=2,
                    help="diff width of the 'split atomic with operand only' packet (table: '1 or 2')")
    ap.add_argument('--compress', default='diff', help='the one compression when --diff-bits 1')
    ap.add_argument('--csr-len-bits', type=int, help='CSR data_len/op_len width (2: 32-bit CSRs, 3: 64-bit)')
    ap.add_argument('--csr-key', choices=['size', 'csr'], default='size',
                    help="CSR data compression base: previous access of the same size (XLEN data) or previous CSR")
    ap.add_argument('--csr-subtype-bits', type=int, default=2, help='CSR subtype width, packets with data (table: 2)')
    ap.add_argument('--csr-ao-subtype-bits', type=int, default=3, help='CSR subtype width, address-only packet (table: 3)')
    ap.add_argument('--csr-addr-diff-bits', type=int, default=0)
    ap.add_argument('--data-types', default='load,store,atomic,csr')
    ap.add_argument('--mode', choices=['only', 'on'], default='only')
    ap.add_argument('--encoder-mode-bits', type=int, default=1)
    ap.add_argument('--ioptions-bits', type=int, default=7)
    ap.add_argument('--doptions-bits', type=int, default=10)
    ap.add_argument('--no-sync-reset', action='store_true', help='do not reset compression state at te_inst sync')
    ap.add_argument('--iaddress_width_p', type=int)
    ap.add_argument('--iaddress_lsb_p', type=int, default=1)
    ap.add_argument('--privilege_width_p', type=int, default=2)
    ap.add_argument('--ecause_width_p', type=int, default=6)
    ap.add_argument('--notime_p', type=int, default=1)
    ap.add_argument('--nocontext_p', type=int, default=1)
    ap.add_argument('--time_width_p', type=int, default=64)
    ap.add_argument('--context_width_p', type=int, default=32)
    ap.add_argument('--full-address', action='store_true', help='te_inst full addresses')
    ap.add_argument('-v', '--verbose', action='count', default=0)
    a = ap.parse_args()

    if a.xlen is None:
        with open(a.elf, 'rb') as fh:
            a.xlen = 64 if fh.read(5)[4] == 2 else 32
    if a.daddress_width_p is None:
        a.daddress_width_p = a.xlen
    if a.csr_len_bits is None:
        a.csr_len_bits = 3 if a.xlen == 64 else 2

    buf = open(a.trace, 'rb').read()
    dd = DataDecoder(a)
    follower = None
    if a.mode == 'on':
        import insn_trace
        if a.iaddress_width_p is None:
            a.iaddress_width_p = a.xlen
        code = insn_trace.load_code(a.elf, a.xlen)
        follower = insn_trace.InstFollower(code, a)
    npk = {'inst': 0, 'data': 0, 'support': 0, 'sync': 0, 'other': 0}
    pktno = 0
    try:
        for off, src, ts, body, sb in deframe(buf, a):
            br = Bits(body, sb)
            typ = br.get(a.type_bits)
            if typ == 1:
                npk['data'] += 1
                dd.packet(br, pktno, off)
                if br.overrun:
                    npk['te_data_sign_ext'] = npk.get('te_data_sign_ext', 0) + 1
                elif br.pos <= br.n - 8:
                    npk['te_data_spare_bytes'] = npk.get('te_data_spare_bytes', 0) + 1
                if a.verbose:
                    print('pkt %d @%d te_data %s' % (pktno, off, dd.fields[-1][2] if dd.fields else ''))
            elif typ == 0:
                npk['inst'] += 1
                if follower is not None:
                    try:
                        t = follower.packet(Bits(body, br.pos), pktno)
                        if a.verbose > 1:
                            print('pkt %d @%d te_inst %s' % (pktno, off, t))
                    except KeyError as e:
                        follower.err(str(e))
                        follower.start_of_trace = True
                fmt, sub = te_inst_kind(br)
                if fmt == 3 and sub == 3:
                    npk['support'] += 1
                    ien = br.get(1); em = br.get(a.encoder_mode_bits); qs = br.get(2)
                    io = br.get(a.ioptions_bits); den = br.get(1); dl = br.get(1)
                    do = br.get(a.doptions_bits)
                    if a.verbose:
                        print('pkt %d @%d support ienable=%d encoder_mode=%d qual_status=%d ioptions=%#x denable=%d dloss=%d doptions=%#x'
                              % (pktno, off, ien, em, qs, io, den, dl, do))
                    if dl:
                        dd.warn('packet %d @%d: support packet reports dloss' % (pktno, off))
                elif fmt == 3 and sub in (0, 1):
                    npk['sync'] += 1
                    if not a.no_sync_reset:
                        dd.reset()
                    if a.verbose:
                        print('pkt %d @%d te_inst sync 3.%d (data compression state reset)' % (pktno, off, sub))
                elif a.verbose > 1:
                    print('pkt %d @%d te_inst format %d%s' % (pktno, off, fmt, '' if sub is None else '.%d' % sub))
            else:
                npk['other'] += 1
            pktno += 1
    except DecodeError as e:
        print('decode error:', e)

    # ---------------- compare
    kinds = set(a.data_types.split(','))
    exp = [r for r in load_refdata(a.refdata) if dclass(r[0]) in kinds]
    dec = dd.accesses
    for w in dd.warnings[:20]:
        print('warning:', w)
    if len(dd.warnings) > 20:
        print('warning: ... %d more' % (len(dd.warnings) - 20))
    for lrid, acc in dd.pending.items():
        print('warning: split request lrid %d (packet %d) never answered' % (lrid, acc.pkt))
    print('packets: %s; te_data accesses decoded %d' % (npk, len(dec)))

    def show_exp(r):
        return 'type=%d addr=%#x size=%d data=%#x' % r

    def show_dec(d):
        return 'type=%s addr=%s size=%d data=%s%s' % (
            d.dtype, 'None' if d.addr is None else '%#x' % d.addr, d.dsize,
            'None' if d.data is None else '%#x' % d.data, (' (' + str(d.note) + ')') if d.note else '')

    if follower is not None:
        inst_report(follower, dec, a, kinds)

    matched = 0
    for i, r in enumerate(exp):
        if i >= len(dec):
            print('MISMATCH at access %d: expected %s decoded nothing (stream ended after %d accesses)'
                  % (i, show_exp(r), len(dec)))
            return 1
        d = dec[i]
        ok = d.dtype == r[0] and d.dsize == r[2]
        if not a.data_no_address:
            ok = ok and d.addr == r[1]
        if not a.data_no_value:
            dm = (1 << (8 << r[2])) - 1
            ok = ok and d.data is not None and (d.data & dm) == (r[3] & dm)
        if not ok:
            print('MISMATCH at access %d: expected %s decoded %s (packet %d at byte offset %d)'
                  % (i, show_exp(r), show_dec(d), d.pkt, d.off))
            if a.verbose:
                for pk, of, f in dd.fields:
                    if pk == d.pkt:
                        print('  fields:', f)
            return 1
        matched += 1
    if len(dec) != len(exp):
        d = dec[len(exp)]
        print('MISMATCH at access %d: expected nothing (%d expected) decoded %s (packet %d at byte offset %d)'
              % (len(exp), len(exp), show_dec(d), d.pkt, d.off))
        return 1
    print('match for %d of expected %d (decoded %d) EXACT' % (matched, len(exp), len(dec)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
