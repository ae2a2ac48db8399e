"""te_inst branch-trace follower (decoder.adoc pseudo code, no implicit return / bpred / jtc / sijump)
and RISC-V instruction classification, for tying te_data accesses to instructions."""
import subprocess


def sx(v, bits):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


class Insn:
    __slots__ = ('addr', 'raw', 'size', 'kind', 'imm', 'rs1', 'rd', 'mem', 'msize', 'sub', 'csr', 'text')


AMO_SUB = {0b00001: 0, 0b00000: 1, 0b01100: 2, 0b01000: 3, 0b00100: 4,
           0b10100: 5, 0b11100: 5, 0b10000: 6, 0b11000: 6}


def classify(addr, raw, size, xlen, text=''):
    i = Insn()
    i.addr, i.raw, i.size, i.text = addr, raw, size, text
    i.kind, i.imm, i.rs1, i.rd, i.mem, i.msize, i.sub, i.csr = 'other', 0, 0, 0, None, None, None, None
    if size == 4:
        op = raw & 0x7f
        rd = (raw >> 7) & 31
        f3 = (raw >> 12) & 7
        rs1 = (raw >> 15) & 31
        i.rd, i.rs1 = rd, rs1
        if op == 0x63:
            i.kind = 'branch'
            i.imm = sx(((raw >> 31) & 1) << 12 | ((raw >> 7) & 1) << 11 | ((raw >> 25) & 0x3f) << 5 | ((raw >> 8) & 0xf) << 1, 13)
        elif op == 0x6f:
            i.kind = 'jal'
            i.imm = sx(((raw >> 31) & 1) << 20 | ((raw >> 12) & 0xff) << 12 | ((raw >> 20) & 1) << 11 | ((raw >> 21) & 0x3ff) << 1, 21)
        elif op == 0x67:
            i.kind = 'jalr' if rs1 != 0 else 'jalr0'
            i.imm = sx(raw >> 20, 12)
        elif op in (0x03, 0x07):
            i.mem, i.msize = 'load', f3 & 3
        elif op in (0x23, 0x27):
            i.mem, i.msize = 'store', f3 & 3
        elif op == 0x2f:
            f5 = raw >> 27
            i.msize = f3 & 3
            if f5 == 0b00010:
                i.mem = 'lr'
            elif f5 == 0b00011:
                i.mem = 'sc'
            else:
                i.mem, i.sub = 'amo', AMO_SUB.get(f5)
        elif op == 0x73:
            if f3 == 0:
                if raw in (0x00200073, 0x10200073, 0x30200073, 0x7b200073):
                    i.kind = 'xret'
                elif raw in (0x00000073, 0x00100073):
                    i.kind = 'ecall'
            elif f3 != 4:
                i.mem, i.sub, i.csr = 'csr', (f3 & 3) - 1, raw >> 20
    else:
        q = raw & 3
        f3 = (raw >> 13) & 7
        if q == 1:
            if f3 == 5 or (f3 == 1 and xlen == 32):
                i.kind = 'jal'
                i.imm = sx(((raw >> 12) & 1) << 11 | ((raw >> 8) & 1) << 10 | ((raw >> 9) & 3) << 8 | ((raw >> 6) & 1) << 7 |
                           ((raw >> 7) & 1) << 6 | ((raw >> 2) & 1) << 5 | ((raw >> 11) & 1) << 4 | ((raw >> 3) & 7) << 1, 12)
                i.rd = 1 if f3 == 1 else 0
            elif f3 in (6, 7):
                i.kind = 'branch'
                i.imm = sx(((raw >> 12) & 1) << 8 | ((raw >> 5) & 3) << 6 | ((raw >> 2) & 1) << 5 | ((raw >> 10) & 3) << 3 | ((raw >> 3) & 3) << 1, 9)
        elif q == 0:
            if f3 in (1, 2, 3):
                i.mem = 'load'
                i.msize = {1: 3, 2: 2, 3: (3 if xlen == 64 else 2)}[f3]
            elif f3 in (5, 6, 7):
                i.mem = 'store'
                i.msize = {5: 3, 6: 2, 7: (3 if xlen == 64 else 2)}[f3]
            elif f3 == 4:
                i.mem = 'zcb?'
        elif q == 2:
            if f3 == 4 and ((raw >> 2) & 31) == 0 and ((raw >> 7) & 31) != 0:
                i.kind = 'jalr'
                i.rs1 = (raw >> 7) & 31
                i.rd = 1 if (raw >> 12) & 1 else 0
            elif raw == 0x9002:
                i.kind = 'ecall'
            elif f3 in (1, 2, 3):
                i.mem = 'load'
                i.msize = {1: 3, 2: 2, 3: (3 if xlen == 64 else 2)}[f3]
            elif f3 in (5, 6, 7):
                i.mem = 'store'
                i.msize = {5: 3, 6: 2, 7: (3 if xlen == 64 else 2)}[f3]
    return i


def load_code(elf, xlen):
    out = subprocess.run(['riscv64-linux-gnu-objdump', '-d', '-z', elf], capture_output=True, text=True).stdout
    code = {}
    for line in out.splitlines():
        p = line.split('\t')
        if len(p) < 2 or not p[0].strip().endswith(':'):
            continue
        try:
            addr = int(p[0].strip()[:-1], 16)
            hx = p[1].strip().replace(' ', '')
            raw = int(hx, 16)
        except ValueError:
            continue
        size = len(hx) // 2
        if size not in (2, 4):
            continue
        code[addr] = classify(addr, raw, size, xlen, '\t'.join(p[2:]).strip())
    return code


class InstFollower:
    """Follows te_inst packets; report_pc appends (pc, te_inst packet number)."""

    def __init__(self, code, a):
        self.code = code
        self.a = a
        self.pc = None
        self.last_pc = None
        self.branches = 0
        self.branch_map = 0
        self.stop_at_last_branch = False
        self.inferred_address = False
        self.start_of_trace = True
        self.address = 0
        self.privilege = 0
        self.pcs = []
        self.errors = []
        self.pkt = -1
        self.aw = a.iaddress_width_p
        self.amask = (1 << self.aw) - 1

    def insn(self, pc):
        i = self.code.get(pc)
        if i is None:
            raise KeyError('no instruction at %#x' % pc)
        return i

    def report(self, pc):
        self.pcs.append((pc, self.pkt))

    def err(self, m):
        self.errors.append('te_inst packet %d: %s' % (self.pkt, m))

    def is_branch(self, pc):
        return self.insn(pc).kind == 'branch'

    def unprocessed(self, pc):
        return self.branches != (1 if self.is_branch(pc) else 0)

    def packet(self, br, pkt):
        a = self.a
        self.pkt = pkt
        lsb = a.iaddress_lsb_p
        fmt = br.get(2)
        t = {'format': fmt}
        if fmt == 3:
            sub = br.get(2)
            t['subformat'] = sub
            if sub == 3:
                t['ienable'] = br.get(1); t['encoder_mode'] = br.get(a.encoder_mode_bits)
                t['qual_status'] = br.get(2)
                self.support(t)
                return t
            if sub == 2:
                return t
            t['branch'] = br.get(1)
            t['privilege'] = br.get(a.privilege_width_p)
            if not a.notime_p:
                br.get(a.time_width_p)
            if not a.nocontext_p:
                br.get(a.context_width_p)
            if sub == 1:
                t['ecause'] = br.get(a.ecause_width_p)
                t['interrupt'] = br.get(1)
                t['thaddr'] = br.get(1)
            t['address'] = br.get(self.aw - lsb)
            if sub == 1 and not t['interrupt']:
                t['tval'] = br.get(self.aw)
            if sub == 1 and not t['thaddr']:
                return t
            self.inferred_address = False
            self.address = (t['address'] << lsb) & self.amask
            if sub == 1 or self.start_of_trace:
                self.branches = 0
                self.branch_map = 0
            if self.is_branch(self.address):
                self.branch_map |= t['branch'] << self.branches
                self.branches += 1
            if sub == 0 and not self.start_of_trace:
                self.follow(self.address, t)
            else:
                self.pc = self.address
                self.report(self.pc)
                self.last_pc = self.pc
            self.privilege = t['privilege']
            self.start_of_trace = False
            return t
        if self.start_of_trace:
            self.err('trace does not start with format 3')
            return t
        if fmt == 1:
            t['branches'] = br.get(5)
            n = t['branches']
            mlen = 31 if n == 0 else (1 if n == 1 else 3 if n <= 3 else 7 if n <= 7 else 15 if n <= 15 else 31)
            t['branch_map'] = br.get(mlen)
        elif fmt == 0:
            self.err('format 0 not supported')
            return t
        if fmt == 2 or t['branches'] != 0:
            ab = self.aw - lsb
            raw = br.get(ab)
            t['addr_msb'] = raw >> (ab - 1)
            t['notify'] = br.get(1)
            t['updiscon'] = br.get(1)
            t['irreport'] = br.get(1)
            self.stop_at_last_branch = False
            if a.full_address:
                self.address = (raw << lsb) & self.amask
            else:
                self.address = (self.address + (sx(raw, ab) << lsb)) & self.amask
        if fmt == 1:
            self.stop_at_last_branch = (t['branches'] == 0)
            self.branch_map |= t['branch_map'] << self.branches
            self.branches += 31 if t['branches'] == 0 else t['branches']
        self.follow(self.address, t)
        return t

    def support(self, t):
        if t['qual_status'] != 0:
            self.start_of_trace = True
        if t['qual_status'] == 3 and self.inferred_address:
            prev = self.pc
            self.inferred_address = False
            for _ in range(1 << 20):
                if self.next_pc(prev):
                    self.report(self.pc)
                    return
                self.report(self.pc)

    def next_pc(self, address):
        ins = self.insn(self.pc)
        this = self.pc
        stop = False
        if ins.kind == 'jal':
            self.pc = (self.pc + ins.imm) & self.amask
        elif ins.kind in ('jalr', 'xret'):
            if self.stop_at_last_branch:
                self.err('unexpected uninferable discontinuity at %#x' % this)
            self.pc = address
            stop = True
        elif ins.kind == 'branch':
            if self.branches == 0:
                self.err('cannot resolve branch at %#x' % this)
                taken = False
            else:
                taken = not (self.branch_map & 1)
                self.branches -= 1
                self.branch_map >>= 1
            self.pc = (self.pc + (ins.imm if taken else ins.size)) & self.amask
        else:
            self.pc = (self.pc + ins.size) & self.amask
        self.last_pc = this
        return stop

    def follow(self, address, t):
        prev = self.pc
        for _ in range(1 << 22):
            if self.inferred_address:
                stop = self.next_pc(prev)
                self.report(self.pc)
                if stop:
                    self.inferred_address = False
            else:
                stop = self.next_pc(address)
                self.report(self.pc)
                if self.branches == 1 and self.is_branch(self.pc) and self.stop_at_last_branch:
                    self.stop_at_last_branch = False
                    return
                if stop:
                    if self.unprocessed(self.pc):
                        self.err('unprocessed branches')
                    return
                f = t['format']
                if f != 3 and self.pc == address and not self.stop_at_last_branch and \
                        t['notify'] != t['addr_msb'] and not self.unprocessed(self.pc):
                    return
                if f != 3 and self.pc == address and not self.stop_at_last_branch and \
                        self.insn(self.last_pc).kind not in ('jalr', 'xret') and \
                        t['updiscon'] == t['notify'] and not self.unprocessed(self.pc) and \
                        t['irreport'] == t['updiscon']:
                    self.inferred_address = True
                    return
                if f == 3 and self.pc == address and not self.unprocessed(self.pc) and \
                        (t['privilege'] == self.privilege or self.insn(self.last_pc).kind == 'xret'):
                    return
        self.err('follow_execution_path did not terminate')
