#!/usr/bin/env python3
"""Independent RISC-V E-Trace 2.0 decoder, written from the ratified spec text only
(etrace/payload.adoc, decoder.adoc, branchTrace.adoc, ingressPort.adoc, discovery.adoc and
encap/encapsulation.adoc, e-trace-specifics.adoc).  Test oracle for rvtrace.

  python3 etrace20_decoder_adoc.py TRACE --elf ELF --pcs EXPECTED.pcs [options]

Places where the spec text had to be interpreted or completed are marked "INTERP:".
"""
import argparse
import struct
import sys


import os
DEBUG_STACK = []


class DecodeError(Exception):
    pass


class Mismatch(Exception):
    pass


# ----------------------------------------------------------------------------------------
# ELF: code bytes by address
# ----------------------------------------------------------------------------------------
class Elf:
    def __init__(self, path):
        data = open(path, 'rb').read()
        if data[:4] != b'\x7fELF':
            raise SystemExit('not an ELF: ' + path)
        self.is64 = data[4] == 2
        self.segs = []
        if self.is64:
            phoff, = struct.unpack_from('<Q', data, 0x20)
            phentsize, phnum = struct.unpack_from('<HH', data, 0x36)
            for i in range(phnum):
                p_type, p_flags, p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_align = \
                    struct.unpack_from('<IIQQQQQQ', data, phoff + i * phentsize)
                if p_type == 1:
                    self.segs.append((p_vaddr, data[p_offset:p_offset + p_filesz]))
        else:
            phoff, = struct.unpack_from('<I', data, 0x1c)
            phentsize, phnum = struct.unpack_from('<HH', data, 0x2a)
            for i in range(phnum):
                p_type, p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_flags, p_align = \
                    struct.unpack_from('<IIIIIIII', data, phoff + i * phentsize)
                if p_type == 1:
                    self.segs.append((p_vaddr, data[p_offset:p_offset + p_filesz]))

    def half(self, addr):
        for base, b in self.segs:
            off = addr - base
            if 0 <= off and off + 2 <= len(b):
                return b[off] | (b[off + 1] << 8)
        raise DecodeError('no code at 0x%x' % addr)


# ----------------------------------------------------------------------------------------
# Instruction decoding (only what the decoder needs)
# ----------------------------------------------------------------------------------------
def sext(v, bits):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


class Instr:
    __slots__ = ('op', 'rd', 'rs1', 'imm', 'size')

    def __init__(self, op, size, rd=0, rs1=0, imm=0):
        self.op, self.size, self.rd, self.rs1, self.imm = op, size, rd, rs1, imm


SYSTEM_OPS = {0x00000073: 'ECALL', 0x00100073: 'EBREAK', 0x00200073: 'URET',
              0x10200073: 'SRET', 0x30200073: 'MRET', 0x7b200073: 'DRET'}
BRANCH_OPS = {0: 'BEQ', 1: 'BNE', 4: 'BLT', 5: 'BGE', 6: 'BLTU', 7: 'BGEU'}


def decode_instr(elf, addr, xlen):
    lo = elf.half(addr)
    if lo & 3 != 3:
        w = lo
        q = w & 3
        f3 = (w >> 13) & 7
        if q == 1:
            if f3 in (1, 5) and (f3 == 5 or xlen == 32):
                imm = (((w >> 12) & 1) << 11 | ((w >> 11) & 1) << 4 | ((w >> 9) & 3) << 8 |
                       ((w >> 8) & 1) << 10 | ((w >> 7) & 1) << 6 | ((w >> 6) & 1) << 7 |
                       ((w >> 3) & 7) << 1 | ((w >> 2) & 1) << 5)
                return Instr('C.J' if f3 == 5 else 'C.JAL', 2, rd=0 if f3 == 5 else 1,
                             imm=sext(imm, 12))
            if f3 in (6, 7):
                imm = (((w >> 12) & 1) << 8 | ((w >> 10) & 3) << 3 | ((w >> 5) & 3) << 6 |
                       ((w >> 3) & 3) << 1 | ((w >> 2) & 1) << 5)
                return Instr('C.BEQZ' if f3 == 6 else 'C.BNEZ', 2, rs1=8 + ((w >> 7) & 7),
                             imm=sext(imm, 9))
            if f3 == 3:
                rd = (w >> 7) & 31
                if rd not in (0, 2):
                    imm = ((w >> 12) & 1) << 17 | ((w >> 2) & 31) << 12
                    return Instr('C.LUI', 2, rd=rd, imm=sext(imm, 18))
        elif q == 2 and f3 == 4:
            rs1 = (w >> 7) & 31
            rs2 = (w >> 2) & 31
            if rs2 == 0:
                if (w >> 12) & 1 == 0:
                    if rs1 != 0:
                        return Instr('C.JR', 2, rs1=rs1)
                else:
                    if rs1 == 0:
                        return Instr('C.EBREAK', 2)
                    return Instr('C.JALR', 2, rd=1, rs1=rs1)
        return Instr('OTHER', 2)
    w = lo | (elf.half(addr + 2) << 16)
    opc = w & 0x7f
    rd = (w >> 7) & 31
    rs1 = (w >> 15) & 31
    f3 = (w >> 12) & 7
    if opc == 0x63 and f3 in BRANCH_OPS:
        imm = (((w >> 31) & 1) << 12 | ((w >> 7) & 1) << 11 | ((w >> 25) & 0x3f) << 5 |
               ((w >> 8) & 0xf) << 1)
        return Instr(BRANCH_OPS[f3], 4, rs1=rs1, imm=sext(imm, 13))
    if opc == 0x6f:
        imm = (((w >> 31) & 1) << 20 | ((w >> 12) & 0xff) << 12 | ((w >> 20) & 1) << 11 |
               ((w >> 21) & 0x3ff) << 1)
        return Instr('JAL', 4, rd=rd, imm=sext(imm, 21))
    if opc == 0x67 and f3 == 0:
        return Instr('JALR', 4, rd=rd, rs1=rs1, imm=sext(w >> 20, 12))
    if opc == 0x17:
        return Instr('AUIPC', 4, rd=rd, imm=sext(w & 0xfffff000, 32))
    if opc == 0x37:
        return Instr('LUI', 4, rd=rd, imm=sext(w & 0xfffff000, 32))
    if opc == 0x73 and w in SYSTEM_OPS:
        return Instr(SYSTEM_OPS[w], 4)
    return Instr('OTHER', 4)


# ----------------------------------------------------------------------------------------
# Encapsulation (encap/encapsulation.adoc, e-trace-specifics.adoc)
# ----------------------------------------------------------------------------------------
def deframe(data, a):
    """Yield (byte_offset, payload_int_signed, payload_bits, srcid, timestamp, type)."""
    i = 0
    n = len(data)
    S = a.src_bits // 8
    T = a.encap_timestamp
    while i < n:
        hdr = data[i]
        length = hdr & 0x1f
        flow = (hdr >> 5) & 3
        extend = hdr >> 7
        if length == 0:          # null.idle (extend 0) / null.alignment (extend 1)
            i += 1
            continue
        if extend and T == 0:
            raise DecodeError('header.extend=1 but timestamp width 0 at byte %d' % i)
        total = 1 + S + T * extend + length
        if i + total > n:
            raise DecodeError('truncated packet at byte %d' % i)
        body = data[i + 1:i + total]
        nbits = len(body) * 8
        # "padding bits ... placed in the most significant bits of the final byte";
        # E-Trace: "the payload must be sign-extended to the nearest byte boundary"
        v = int.from_bytes(body, 'little', signed=True)
        pos = 0
        src = (v >> pos) & ((1 << a.src_bits) - 1)
        pos += a.src_bits
        ts = None
        if extend:
            ts = (v >> pos) & ((1 << (8 * T)) - 1)
            pos += 8 * T
        typ = (v >> pos) & ((1 << a.encap_type_bits) - 1)
        pos += a.encap_type_bits
        yield i, v >> pos, nbits - pos, src, ts, typ, flow
        i += total


# ----------------------------------------------------------------------------------------
# te_inst parsing (payload.adoc)
# ----------------------------------------------------------------------------------------
class Bits:
    """Field reader over a sign-compressed payload: bits beyond the received ones are the
    sign extension of the most significant received bit (payload.adoc 'sign based
    compression')."""
    __slots__ = ('v', 'pos', 'nbits', 'last')

    def __init__(self, v, nbits):
        self.v, self.pos, self.nbits, self.last = v, 0, nbits, None

    def get(self, n):
        if n == 0:
            return 0
        r = (self.v >> self.pos) & ((1 << n) - 1)
        self.pos += n
        self.last = (r >> (n - 1)) & 1   # MSB of the field just read ("preceding bit")
        return r


def branch_map_len(branches):
    if branches == 1:
        return 1
    if branches <= 3:
        return 3
    if branches <= 7:
        return 7
    if branches <= 15:
        return 15
    return 31


class TeInst:
    pass


def parse_te_inst(v, nbits, P, opts):
    b = Bits(v, nbits)
    t = TeInst()
    t.format = b.get(2)
    awidth = P.iaddress_width - P.iaddress_lsb
    irw = P.irdepth_width()

    def addr_tail():
        t.address = b.get(awidth)
        t.notify_pre = b.last
        t.notify = b.get(1)
        t.updiscon_pre = t.notify
        t.updiscon = b.get(1)
        irtail(t.updiscon)

    def irtail(pre):
        t.irreport_pre = pre
        t.irreport = b.get(1)
        t.irdepth = b.get(irw)
        # payload.adoc: "If irreport is the same value as updiscon, all bits in this field
        # will also be the same value as updiscon" -- checked, not relied on.
        if t.irreport == pre and irw and t.irdepth != (((1 << irw) - 1) if pre else 0):
            t.warn = 'irdepth bits differ from the preceding bit while irreport does not'

    def no_tail():
        t.notify = t.notify_pre = 0
        t.updiscon = t.updiscon_pre = 0
        t.irreport = t.irreport_pre = 0
        t.irdepth = 0

    t.warn = None
    t.has_address = False
    if t.format == 3:
        t.subformat = b.get(2)
        no_tail()
        if t.subformat in (0, 1):
            t.branch = b.get(1)
            t.privilege = b.get(P.privilege_width)
            t.time = b.get(P.time_width)
            t.context = b.get(P.context_width)
            if t.subformat == 1:
                t.ecause = b.get(P.ecause_width)
                t.interrupt = b.get(1)
                t.thaddr = b.get(1)
                if opts.implicit_exception and t.thaddr:
                    # payload.adoc: "the trap handler address is omitted if thaddr is 1"
                    t.address = None
                else:
                    t.address = b.get(awidth)
                if not t.interrupt:
                    t.tval = b.get(P.iaddress_width)
            else:
                t.address = b.get(awidth)
        elif t.subformat == 2:
            t.privilege = b.get(P.privilege_width)
            t.time = b.get(P.time_width)
            t.context = b.get(P.context_width)
        else:
            t.ienable = b.get(1)
            t.encoder_mode = b.get(P.encoder_mode_width)
            t.qual_status = b.get(2)
            t.ioptions = b.get(P.ioptions_width)
            if P.denable_present:
                t.denable = b.get(1)
                t.dloss = b.get(1)
            t.doptions = b.get(P.doptions_width)
    elif t.format == 2:
        t.has_address = True
        addr_tail()
    elif t.format == 1:
        t.branches = b.get(5)
        if t.branches == 0:
            t.branch_map = b.get(31)
            no_tail()
        else:
            t.branch_map = b.get(branch_map_len(t.branches))
            t.has_address = True
            addr_tail()
    else:  # format 0
        if P.f0s_width:
            t.subformat = b.get(P.f0s_width)
        else:
            # payload.adoc sec:f0s: "if only one optional format is supported, the field can
            # be omitted, and the value of the field inferred from the options field"
            if opts.branch_prediction and not opts.jump_target_cache:
                t.subformat = 0
            elif opts.jump_target_cache and not opts.branch_prediction:
                t.subformat = 1
            else:
                raise DecodeError('format 0 with f0s_width 0 and no unique optional format')
        if t.subformat == 0:
            t.branch_count = b.get(32)
            t.branch_fmt = b.get(2)
            if t.branch_fmt == 0:
                no_tail()
            elif t.branch_fmt in (2, 3):
                t.has_address = True
                addr_tail()
            else:
                raise DecodeError('format 0.0 branch_fmt 1')
        elif t.subformat == 1:
            t.index = b.get(P.cache_size)
            t.branches = b.get(5)
            if t.branches:
                t.branch_map = b.get(branch_map_len(t.branches))
            else:
                t.branch_map = 0
            t.notify = t.notify_pre = 0
            t.updiscon = t.updiscon_pre = 0
            irtail(b.last)    # preceding bit: branch_map[MSB] or branches[MSB]
        else:
            raise DecodeError('format 0 subformat %d' % t.subformat)
    t.nbits_used = b.pos
    return t


# ----------------------------------------------------------------------------------------
# Parameters / options
# ----------------------------------------------------------------------------------------
class Params:
    pass


class Options:
    pass


# ioptions bit positions: implementation-defined (payload.adoc: "placeholders that must be
# replaced by an implementation specific set of individual bits").  Taken from
# `rvtrace info --format etrace` ("ioptions (0x41): implicit_return=1 ... implicit_return_fixed=1").
IOPTION_BITS = ['implicit_return', 'implicit_exception', 'full_address', 'jump_target_cache',
                'branch_prediction', 'sijump', 'implicit_return_fixed']


# ----------------------------------------------------------------------------------------
# The decoder (decoder.adoc pseudo-code, transcribed)
# ----------------------------------------------------------------------------------------
class Decoder:
    def __init__(self, elf, P, opts, report):
        self.elf = elf
        self.P = P
        self.options = opts
        self.report_pc_cb = report
        self.xmask = (1 << P.iaddress_width) - 1
        self.icache = {}
        # global variables
        self.pc = 0
        self.last_pc = 0
        self.branches = 0
        self.branch_map = 0
        self.stop_at_last_branch = False
        self.inferred_address = False
        self.start_of_trace = True
        self.address = 0
        self.privilege = 0
        self.return_stack = []
        self.irstack_depth = 0
        self.te_inst = None
        self.last_implicit_return = False
        # INTERP (inferred_address): remember the address the inferred stop was made at
        # (decoder.adoc uses a local 'previous_address = pc', which is the same thing unless
        # an address-less packet moved pc in between).
        self.inferred_target = 0
        # branch prediction (branchTrace.adoc sec:branch-prediction) -- not in decoder.adoc
        # queue of outcomes: entries of branch_q are 'T','N' (explicit), 'P' (predicted
        # correctly), 'F' (prediction failed).  Used only when branch prediction is on;
        # otherwise branch_map/branches are used literally.
        self.bpred = None
        self.bq = []
        # jump target cache (branchTrace.adoc sec:jump-cache)
        self.jtc = None
        self.reset_tables()
        self.count = {'sequentially inferred jumps': 0, 'implicit returns': 0,
                      'branches from predictor': 0,
                      'uninferable discontinuities followed to a reported address': 0}

    # -- helpers ---------------------------------------------------------------------
    def get_instr(self, addr):
        i = self.icache.get(addr)
        if i is None:
            i = decode_instr(self.elf, addr, self.P.xlen)
            self.icache[addr] = i
        return i

    def report_pc(self, address):
        self.report_pc_cb(address)

    def reset_tables(self):
        P = self.P
        if P.bpred_size:
            self.bpred = [1] * (1 << P.bpred_size)   # "initialized to 01"
        if P.cache_size:
            self.jtc = [None] * (1 << P.cache_size)  # "all invalidated"

    def bp_index(self, addr):
        # "indexed by bits bpred_size_p:1 of the instruction address (or bpred_size_p+1:2 if
        # compressed instructions aren't supported)"
        sh = 1 if self.P.iaddress_lsb == 1 else 2
        return (addr >> sh) & ((1 << self.P.bpred_size) - 1)

    def jtc_index(self, addr):
        sh = 1 if self.P.iaddress_lsb == 1 else 2
        return (addr >> sh) & ((1 << self.P.cache_size) - 1)

    def use_bq(self):
        return self.options.branch_prediction and self.bpred is not None

    # -- jump classes -----------------------------------------------------------------
    def is_branch(self, instr):
        return instr.op in ('BEQ', 'BNE', 'BLT', 'BGE', 'BLTU', 'BGEU', 'C.BEQZ', 'C.BNEZ')

    def is_inferable_jump(self, instr):
        if instr.op in ('JAL', 'C.JAL', 'C.J'):
            return True
        # INTERP: jalr with rs1 == x0 has its target in the opcode (ingressPort.adoc: "If the
        # target of a jump is supplied via a constant embedded within the jump opcode, it is
        # classified as inferable"); decoder.adoc would treat it as sequential.
        if instr.op == 'JALR' and instr.rs1 == 0:
            return True
        return False

    def inferable_target(self, instr):
        if instr.op == 'JALR':
            return instr.imm & self.xmask
        return (self.pc + instr.imm) & self.xmask

    def is_uninferable_jump(self, instr):
        return ((instr.op == 'JALR' and instr.rs1 != 0) or instr.op == 'C.JALR' or
                instr.op == 'C.JR')

    def is_return_from_trap(self, instr):
        return instr.op in ('URET', 'SRET', 'MRET', 'DRET')

    def is_uninferable_discon(self, instr):
        return self.is_uninferable_jump(instr) or self.is_return_from_trap(instr)

    def is_sequential_jump(self, instr, prev_addr):
        if not (self.is_uninferable_jump(instr) and self.options.sijump):
            return False
        prev_instr = self.get_instr(prev_addr)
        if prev_instr.op in ('AUIPC', 'LUI', 'C.LUI'):
            return instr.rs1 == prev_instr.rd
        return False

    def sequential_jump_target(self, addr, prev_addr):
        instr = self.get_instr(addr)
        prev_instr = self.get_instr(prev_addr)
        target = 0
        if prev_instr.op == 'AUIPC':
            target = prev_addr
        target += prev_instr.imm
        if instr.op == 'JALR':
            target += instr.imm
        return target & self.xmask

    def is_call(self, instr):
        if self.options.x1_only:
            # decoder.adoc literally
            return ((instr.op == 'JALR' and instr.rd == 1) or instr.op == 'C.JALR' or
                    (instr.op == 'JAL' and instr.rd == 1) or instr.op == 'C.JAL')
        # ingressPort.adoc "Jump classification": Calls
        if instr.op == 'JAL':
            return instr.rd in (1, 5)
        if instr.op == 'JALR':
            return ((instr.rd == 1 and instr.rs1 != 5) or (instr.rd == 5 and instr.rs1 != 1))
        if instr.op == 'C.JALR':
            return instr.rs1 != 5
        return instr.op == 'C.JAL'

    def is_return_class(self, instr):
        if self.options.x1_only:
            return ((instr.op == 'JALR' and instr.rs1 == 1 and instr.rd == 0) or
                    (instr.op == 'C.JR' and instr.rs1 == 1))
        # ingressPort.adoc "Jump classification": Returns
        if instr.op == 'JALR':
            return instr.rs1 in (1, 5) and instr.rd not in (1, 5)
        if instr.op == 'C.JR':
            return instr.rs1 in (1, 5)
        return False

    def is_coroutine_swap(self, instr):
        # ingressPort.adoc "Jump classification": Co-routine swap
        if instr.op == 'JALR':
            return (instr.rd, instr.rs1) in ((1, 5), (5, 1))
        return instr.op == 'C.JALR' and instr.rs1 == 5

    def get_preceding_bit(self, t, name):
        return getattr(t, name + '_pre')

    def is_implicit_return(self, instr):
        if not self.options.implicit_return:
            return False
        if self.is_return_class(instr) or (self.options.swap == 'poppush' and not self.options.x1_only
                                           and self.is_coroutine_swap(instr)):
            t = self.te_inst
            if (t.irreport != self.get_preceding_bit(t, 'irreport') and
                    self.irdepth_eq(t.irdepth)):
                return False
            return self.irstack_depth > 0
        return False

    def irdepth_eq(self, irdepth):
        # INTERP (--cc-max-pow2): a call counter of 2**call_counter_size_p entries cannot be
        # held in call_counter_size_p bits; compare modulo the field width then.
        w = self.P.irdepth_width()
        return irdepth == (self.irstack_depth & ((1 << w) - 1) if w else 0)

    # -- branches -----------------------------------------------------------------------
    def is_taken_branch(self, instr):
        if not self.is_branch(instr):
            return False
        if self.use_bq():
            if not self.bq:
                raise DecodeError('cannot resolve branch at 0x%x' % self.pc)
            e = self.bq.pop(0)
            i = self.bp_index(self.pc)
            st = self.bpred[i]
            pred_taken = bool(st & 2)
            if e == 'T':
                taken = True
            elif e == 'N':
                taken = False
            elif e == 'P':
                taken = pred_taken
                self.count['branches from predictor'] += 1
            else:
                taken = not pred_taken
            # 00 -> 01 on fail; 01 -> 00 on success else 11; 11 -> 10 on fail;
            # 10 -> 11 on success else 00.  (MSB prediction, LSB most recent outcome)
            ok = taken == pred_taken
            self.bpred[i] = {0: (0 if ok else 1), 1: (0 if ok else 3),
                             3: (3 if ok else 2), 2: (3 if ok else 0)}[st]
            self.branches = len(self.bq)
            return taken
        if self.branches == 0:
            raise DecodeError('cannot resolve branch at 0x%x' % self.pc)
        taken = not (self.branch_map & 1)
        self.branches -= 1
        self.branch_map >>= 1
        return taken

    def unprocessed_branches(self, address):
        return self.branches != (1 if self.is_branch(self.get_instr(address)) else 0)

    def add_map(self, bmap, n):
        """branch_map = branch_map | (bmap << branches); branches += n"""
        if self.use_bq():
            for k in range(n):
                self.bq.append('N' if (bmap >> k) & 1 else 'T')
            self.branches = len(self.bq)
        else:
            self.branch_map |= bmap << self.branches
            self.branches += n

    def clear_map(self):
        self.branches = 0
        self.branch_map = 0
        self.bq = []

    # -- return stack -------------------------------------------------------------------
    def push_return_stack(self, address):
        if not self.options.implicit_return:
            return
        P = self.P
        if P.return_stack_size:
            irstack_depth_max = 2 ** P.return_stack_size
        elif self.options.cc_max_pow2:
            irstack_depth_max = 2 ** P.call_counter_size      # decoder.adoc literally
        else:
            # INTERP (default): the irdepth field has call_counter_size_p bits, so the count
            # it reports saturates at 2**call_counter_size_p - 1
            irstack_depth_max = 2 ** P.call_counter_size - 1
        instr = self.get_instr(address)
        link = address
        if self.irstack_depth == irstack_depth_max:
            self.irstack_depth -= 1
            del self.return_stack[0]
        link += instr.size
        del self.return_stack[self.irstack_depth:]
        self.return_stack.append(link & self.xmask)
        self.irstack_depth += 1

    def pop_return_stack(self):
        self.irstack_depth -= 1
        link = self.return_stack[self.irstack_depth]
        del self.return_stack[self.irstack_depth:]
        return link

    # -- next_pc ------------------------------------------------------------------------
    def next_pc(self, address):
        instr = self.get_instr(self.pc)
        this_pc = self.pc
        stop_here = False
        implicit = False
        if self.is_inferable_jump(instr):
            self.pc = self.inferable_target(instr)
        elif self.is_sequential_jump(instr, self.last_pc):
            self.pc = self.sequential_jump_target(self.pc, self.last_pc)
            self.count['sequentially inferred jumps'] += 1
        elif self.is_implicit_return(instr):
            self.pc = self.pop_return_stack()
            self.count['implicit returns'] += 1
            implicit = True
            if self.jtc is not None and self.options.jump_target_cache and \
                    self.options.jtc_implicit_returns:
                self.jtc[self.jtc_index(self.pc)] = self.pc
        elif self.is_uninferable_discon(instr):
            if (self.options.pop_reported_return and self.options.implicit_return and
                    self.is_return_class(instr) and self.irstack_depth > 0):
                # --pop-reported-return: a return reported explicitly still consumes its entry
                self.pop_return_stack()
            # INTERP: the ERROR is only meaningful while following towards a new address;
            # while re-iterating to the previously (inferred) address, the jump goes there.
            if self.stop_at_last_branch and not self.inferred_address:
                raise DecodeError('unexpected uninferable discontinuity at 0x%x' % this_pc)
            self.pc = address
            stop_here = True
            if self.jtc is not None and self.options.jump_target_cache and (
                    not self.options.jtc_jumps_only or self.is_uninferable_jump(instr)):
                # branchTrace.adoc sec:jump-cache: "the entry at that index is replaced"
                self.jtc[self.jtc_index(address)] = address
            self.count['uninferable discontinuities followed to a reported address'] += 1
        elif self.is_taken_branch(instr):
            self.pc = (self.pc + instr.imm) & self.xmask
        else:
            self.pc = (self.pc + instr.size) & self.xmask
        if (self.options.swap == 'popx' and not self.options.x1_only and
                self.is_coroutine_swap(instr) and self.options.implicit_return and
                self.irstack_depth > 0):
            self.pop_return_stack()
        if DEBUG_STACK and (self.is_call(instr) or self.is_return_class(instr) or self.is_coroutine_swap(instr)):
            print('  [stack] %s 0x%x %s rd=%d rs1=%d -> 0x%x depth=%d top=%s' % (
                DEBUG_STACK[0](), this_pc, instr.op, instr.rd, instr.rs1, self.pc, self.irstack_depth,
                hex(self.return_stack[-1]) if self.return_stack else None))
        if self.is_call(instr) or (self.options.swap in ('poppush', 'push', 'popx') and
                                   not self.options.x1_only and self.is_coroutine_swap(instr)):
            self.push_return_stack(this_pc)
        self.last_pc = this_pc
        self.last_implicit_return = implicit
        return stop_here

    # -- process_te_inst ----------------------------------------------------------------
    def process_te_inst(self, t):
        self.te_inst = t
        lsb = self.P.iaddress_lsb
        if t.format == 3:
            if t.subformat == 3:
                self.process_support(t)
                return
            if t.subformat == 2:
                return
            if t.subformat == 1:
                self.report_trap(t)
                if not t.interrupt:
                    self.report_epc(self.exception_address(t))
                if not t.thaddr:
                    return
                if t.address is None:   # implicit exception: handler from *tvec + cause
                    t.address = self.implicit_trap_address(t) >> lsb
            self.inferred_address = False
            self.address = (t.address << lsb) & self.xmask
            if t.subformat == 1 or self.start_of_trace:
                self.clear_map()
            # INTERP: synchronisation resets the predictor / cache (branchTrace.adoc); the
            # "synchronization packet" is format 3 subformat 0 or 1 (payload.adoc)
            if t.subformat == 0 or not self.options.jtc_keep_on_trap:
                self.reset_tables()
            elif self.P.bpred_size:
                self.bpred = [1] * (1 << self.P.bpred_size)
            if self.is_branch(self.get_instr(self.address)):
                self.add_map(t.branch, 1)
            if t.subformat == 0 and not self.start_of_trace:
                self.follow_execution_path(self.address, t)
            else:
                self.pc = self.address
                self.report_pc(self.pc)
                self.last_pc = self.pc
            self.privilege = t.privilege
            self.start_of_trace = False
            self.irstack_depth = 0
            self.return_stack = []
        else:
            if self.start_of_trace:
                raise DecodeError('Expecting trace to start with format 3')
            if t.format == 0 and t.subformat == 1:
                # jump target cache: address from the cache, branch map as format 1 but
                # branches == 0 means no map (payload.adoc)
                if self.jtc is None:
                    raise DecodeError('format 0.1 without a jump target cache')
                self.stop_at_last_branch = False
                if self.jtc[t.index] is not None:
                    self.address = self.jtc[t.index]   # (looked up again when followed)
                self.add_map(t.branch_map, t.branches)
            elif t.format == 0:
                # branch count: (count + 31) correctly predicted branches, then, for
                # branch_fmt 00 or 11, one branch that failed the prediction
                n = t.branch_count + 31
                if not self.use_bq():
                    raise DecodeError('format 0.0 without branch prediction')
                self.bq.extend(['P'] * n)
                if t.branch_fmt in (0, 3):
                    self.bq.append('F')
                self.branches = len(self.bq)
                if t.branch_fmt == 0:
                    self.stop_at_last_branch = True
                else:
                    self.stop_at_last_branch = False
                    if self.options.full_address:
                        self.address = (t.address << lsb) & self.xmask
                    else:
                        self.address = (self.address + (t.address << lsb)) & self.xmask
            else:
                if t.format == 2 or t.branches != 0:
                    self.stop_at_last_branch = False
                    if self.options.full_address:
                        self.address = (t.address << lsb) & self.xmask
                    else:
                        self.address = (self.address + (t.address << lsb)) & self.xmask
                if t.format == 1:
                    self.stop_at_last_branch = (t.branches == 0)
                    if t.branches == 0:
                        self.add_map(t.branch_map, 31)
                    else:
                        self.add_map(t.branch_map, t.branches)
            self.follow_execution_path(self.address, t)

    def follow_execution_path(self, address, t):
        if not self.inferred_address:
            self.inferred_target = self.pc
        stop_here = False
        while True:
            if self.inferred_address:
                stop_here = self.next_pc(self.inferred_target)
                self.report_pc(self.pc)
                if stop_here:
                    self.inferred_address = False
                # INTERP: an address-less packet may end while still re-iterating
                elif (self.branches == 1 and self.is_branch(self.get_instr(self.pc)) and
                      self.stop_at_last_branch):
                    self.stop_at_last_branch = False
                    return
            else:
                if t.format == 0 and t.subformat == 1:
                    # INTERP: the cache entry is the one the encoder had when the jump retired;
                    # a jump still pending from the previous packet (inferred_address) may have
                    # updated the cache since the packet arrived, so look the index up now.
                    address = self.jtc[t.index]
                    if address is None:
                        raise DecodeError('jump target cache index %d is empty' % t.index)
                    self.address = address
                stop_here = self.next_pc(address)
                self.report_pc(self.pc)
                if (self.branches == 1 and self.is_branch(self.get_instr(self.pc)) and
                        self.stop_at_last_branch):
                    self.stop_at_last_branch = False
                    return
                if stop_here:
                    if self.unprocessed_branches(self.pc):
                        raise DecodeError('unprocessed branches')
                    return
                if (t.format != 3 and self.pc == address and not self.stop_at_last_branch and
                        t.notify != self.get_preceding_bit(t, 'notify') and
                        not self.unprocessed_branches(self.pc)):
                    return
                if (t.format != 3 and self.pc == address and not self.stop_at_last_branch and
                        (not self.is_uninferable_discon(self.get_instr(self.last_pc)) or
                         (self.last_implicit_return and not self.options.literal_ir_stop)) and
                        t.updiscon == self.get_preceding_bit(t, 'updiscon') and
                        not self.unprocessed_branches(self.pc) and
                        (t.irreport == self.get_preceding_bit(t, 'irreport') or
                         self.irdepth_eq(t.irdepth))):
                    self.inferred_address = True
                    self.inferred_target = self.pc
                    return
                if (t.format == 3 and self.pc == address and
                        not self.unprocessed_branches(self.pc) and
                        (t.privilege == self.privilege or
                         self.is_return_from_trap(self.get_instr(self.last_pc)))):
                    return

    def process_support(self, t):
        opts = self.options
        if not opts.ignore_support_options:
            for k, name in enumerate(IOPTION_BITS):
                val = bool((t.ioptions >> k) & 1)
                if name == 'implicit_return_fixed':
                    if val:
                        self.notes.add('support packet: implicit_return_fixed=1 (not an E-Trace '
                                       '2.0 option; decoded as 2.0)')
                    continue
                if getattr(opts, name) != val:
                    self.notes.add('support packet sets %s=%d' % (name, val))
                    setattr(opts, name, val)
            if opts.branch_prediction and not self.P.bpred_size:
                self.P.bpred_size = 8
                self.notes.add('branch prediction with no bpred_size_p given: 8 (rvtrace info)')
                self.reset_tables()
            if opts.jump_target_cache and not self.P.cache_size:
                self.P.cache_size = 5
                self.notes.add('jump target cache with no cache_size_p given: 5 (rvtrace info)')
                self.reset_tables()
            if opts.implicit_return and not self.P.return_stack_size and \
                    not self.P.call_counter_size:
                self.P.return_stack_size = 3
                self.notes.add('implicit return with no stack/counter size given: '
                               'return_stack_size_p=3 (rvtrace info default)')
        if t.qual_status != 0:
            self.start_of_trace = True
        if t.qual_status == 3 and self.inferred_address:
            self.inferred_address = False
            while True:
                stop_here = self.next_pc(self.inferred_target)
                self.report_pc(self.pc)
                if stop_here:
                    return
        return

    def exception_address(self, t):
        # INTERP: decoder.adoc's exception_address calls next_pc(pc), which would consume
        # branches and move pc; the EPC is only reported, so it is computed on a copy.
        instr = self.get_instr(self.pc)
        if self.is_uninferable_discon(instr) and not t.thaddr:
            return (t.address << self.P.iaddress_lsb) & self.xmask
        if instr.op in ('ECALL', 'EBREAK', 'C.EBREAK'):
            return self.pc
        saved = (self.pc, self.last_pc, self.branches, self.branch_map, list(self.bq),
                 self.irstack_depth, list(self.return_stack),
                 list(self.bpred) if self.bpred else None,
                 list(self.jtc) if self.jtc else None)
        try:
            self.next_pc(self.pc)
            r = self.pc
        except DecodeError:
            r = None
        (self.pc, self.last_pc, self.branches, self.branch_map, self.bq, self.irstack_depth,
         self.return_stack, bp, jt) = saved
        if bp is not None:
            self.bpred = bp
        if jt is not None:
            self.jtc = jt
        return r

    def implicit_trap_address(self, t):
        tvec = self.options.tvec_s if (t.privilege == 1 and self.options.tvec_s is not None) \
            else self.options.tvec_m
        if tvec is None:
            raise DecodeError('implicit exception needs --tvec-m/--tvec-s')
        base = tvec & ~3
        if (tvec & 3) == 1 and t.interrupt:
            return (base + 4 * t.ecause) & self.xmask
        return base & self.xmask

    def report_trap(self, t):
        return

    def report_epc(self, address):
        return


# ----------------------------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument('trace')
    ap.add_argument('--elf', required=True)
    ap.add_argument('--pcs', required=True)
    # parameters (discovery.adoc); defaults = `rvtrace info --format etrace` default stream
    ap.add_argument('--iaddress-width', type=int, default=None,
                    help='iaddress_width_p (default: ELF class, 32 or 64)')
    ap.add_argument('--iaddress-lsb', type=int, default=1, help='iaddress_lsb_p [1]')
    ap.add_argument('--privilege-width', type=int, default=2, help='privilege_width_p [2]')
    ap.add_argument('--ecause-width', type=int, default=6, help='ecause_width_p [6]')
    ap.add_argument('--time-width', type=int, default=0, help='time_width_p, 0 = notime [0]')
    ap.add_argument('--context-width', type=int, default=0,
                    help='context_width_p, 0 = nocontext [0]')
    ap.add_argument('--return_stack_size_p', '--return-stack-size', type=int, default=0)
    ap.add_argument('--call_counter_size_p', '--call-counter-size', type=int, default=0)
    ap.add_argument('--bpred_size_p', '--bpred-size', type=int, default=None,
                    help='default 8 with --branch-prediction (rvtrace info)')
    ap.add_argument('--cache_size_p', '--cache-size', type=int, default=None,
                    help='default 5 with --jump-target-cache (rvtrace info)')
    ap.add_argument('--f0s-width', type=int, default=0)
    ap.add_argument('--encoder-mode-width', type=int, default=1)
    ap.add_argument('--ioptions-width', type=int, default=7)
    ap.add_argument('--doptions-width', type=int, default=10)
    ap.add_argument('--no-denable', action='store_true', help='support packet has no denable/dloss')
    # encapsulation
    ap.add_argument('--src-bits', type=int, default=0)
    ap.add_argument('--src-id', type=int, default=None)
    ap.add_argument('--encap-timestamp', type=int, default=0)
    ap.add_argument('--encap-type-bits', type=int, default=0)
    # run-time options (also set by the support packet unless --ignore-support-options)
    ap.add_argument('--implicit-return', nargs='?', const='2.0', default='off',
                    help='off | 2.0 (any other value = on)')
    ap.add_argument('--implicit-exception', '--implicit-except', action='store_true')
    ap.add_argument('--tvec-m', type=lambda s: int(s, 0), default=None)
    ap.add_argument('--tvec-s', type=lambda s: int(s, 0), default=None)
    ap.add_argument('--full-address', action='store_true')
    ap.add_argument('--sijump', '--si-jump', action='store_true')
    ap.add_argument('--branch-prediction', action='store_true')
    ap.add_argument('--jump-target-cache', action='store_true')
    ap.add_argument('--ignore-support-options', action='store_true',
                    help='do not take run-time options from the support packet ioptions')
    ap.add_argument('--resync-max', default=None, help='accepted and ignored (decoder needs no period)')
    # interpretation switches
    ap.add_argument('--x1-only', action='store_true',
                    help='decoder.adoc is_call/is_implicit_return literally (x1 only)')
    ap.add_argument('--cc-max-pow2', action='store_true',
                    help='call counter holds 2**call_counter_size_p (decoder.adoc literally) '
                         'instead of 2**call_counter_size_p - 1 (irdepth width)')
    ap.add_argument('--jtc-jumps-only', action='store_true',
                    help='jump target cache holds uninferable jump targets only (not xRET)')
    ap.add_argument('--swap', choices=('none', 'poppush', 'push', 'popx'), default='none',
                    help='co-routine swap and the return stack: none (default: JumpClasses, a swap '
                         'is neither a call nor a return), poppush (unprivileged ISA RAS hint: pop '
                         'then push), push (as a call), popx (pop and push, target always reported)')
    ap.add_argument('--pop-reported-return', action='store_true',
                    help='a return whose target is reported (not implicit) still pops the stack '
                         '(decoder.adoc does not pop it)')
    ap.add_argument('--literal-ir-stop', action='store_true',
                    help='decoder.adoc literally: never stop at a reported address reached by an '
                         'implicit return (default: an implicit return does not count as the '
                         'uninferable discontinuity of the inferred-address stop, payload.adoc '
                         'sec:irxx first case)')
    ap.add_argument('--jtc-implicit-returns', action='store_true',
                    help='implicit return targets also enter the jump target cache (branchTrace.adoc '
                         'says they must not)')
    ap.add_argument('--jtc-keep-on-trap', action='store_true',
                    help='a trap packet (format 3.1) does not invalidate the jump target cache '
                         '(default: it does, being a synchronization packet)')
    ap.add_argument('--dump', action='store_true', help='print each parsed te_inst')
    a = ap.parse_args()

    elf = Elf(a.elf)
    P = Params()
    P.xlen = 64 if elf.is64 else 32
    P.iaddress_width = a.iaddress_width or P.xlen
    P.iaddress_lsb = a.iaddress_lsb
    P.privilege_width = a.privilege_width
    P.ecause_width = a.ecause_width
    P.time_width = a.time_width
    P.context_width = a.context_width
    P.return_stack_size = a.return_stack_size_p
    P.call_counter_size = a.call_counter_size_p
    P.f0s_width = a.f0s_width
    P.encoder_mode_width = a.encoder_mode_width
    P.ioptions_width = a.ioptions_width
    P.doptions_width = a.doptions_width
    P.denable_present = not a.no_denable
    P.bpred_size = a.bpred_size_p if a.bpred_size_p is not None else (8 if a.branch_prediction else 0)
    P.cache_size = a.cache_size_p if a.cache_size_p is not None else (5 if a.jump_target_cache else 0)
    if a.implicit_return != 'off' and not P.return_stack_size and not P.call_counter_size:
        P.return_stack_size = 3   # rvtrace info: --implicit-return 2.0 -> return_stack_size_p = 3

    def irdepth_width():
        rs = P.return_stack_size
        return rs + (1 if rs > 0 else 0) + P.call_counter_size
    P.irdepth_width = irdepth_width

    O = Options()
    O.implicit_return = a.implicit_return != 'off'
    O.implicit_exception = a.implicit_exception
    O.full_address = a.full_address
    O.jump_target_cache = a.jump_target_cache
    O.branch_prediction = a.branch_prediction
    O.sijump = a.sijump
    O.x1_only = a.x1_only
    O.cc_max_pow2 = a.cc_max_pow2
    O.jtc_jumps_only = a.jtc_jumps_only
    O.swap = a.swap
    O.jtc_keep_on_trap = a.jtc_keep_on_trap
    O.jtc_implicit_returns = a.jtc_implicit_returns
    O.literal_ir_stop = a.literal_ir_stop
    O.pop_reported_return = a.pop_reported_return
    O.ignore_support_options = a.ignore_support_options
    O.tvec_m = a.tvec_m
    O.tvec_s = a.tvec_s

    expected = []
    with open(a.pcs) as f:
        for line in f:
            s = line.split()
            if s:
                expected.append(int(s[0], 16))
    M = len(expected)
    state = {'n': 0, 'pkt': 0, 'off': 0, 'fmt': ''}

    def report(pc):
        n = state['n']
        if n >= M:
            raise Mismatch('MISMATCH at index %d: expected <end> decoded 0x%x' % (n, pc))
        if expected[n] != pc:
            raise Mismatch('MISMATCH at index %d: expected 0x%x decoded 0x%x' % (n, expected[n], pc))
        state['n'] = n + 1

    if os.environ.get('DEBUG_STACK'):
        DEBUG_STACK.append(lambda: state['n'])
    dec = Decoder(elf, P, O, report)
    dec.notes = set()
    data = open(a.trace, 'rb').read()
    stats = {}
    rc = 1
    msg = None
    try:
        for off, v, nbits, src, ts, typ, flow in deframe(data, a):
            if a.src_id is not None and src != a.src_id:
                continue
            state['pkt'] += 1
            state['off'] = off
            if typ != 0:
                continue   # data trace packet (e-trace-specifics.adoc: type 1) - not decoded
            if nbits <= 0:
                raise DecodeError('empty payload')
            t = parse_te_inst(v, nbits, P, O)
            state['fmt'] = '%d%s' % (t.format, ('.%d' % t.subformat) if hasattr(t, 'subformat') else '')
            k = state['fmt']
            if t.format == 1:
                k += '(no addr)' if t.branches == 0 else '(addr)'
            elif t.format == 0 and t.subformat == 0:
                k += '(branch_fmt %d)' % t.branch_fmt
            if t.format in (0, 1, 2) and t.has_address:
                if t.notify != t.notify_pre:
                    k += '+notify'
                if t.updiscon != t.updiscon_pre:
                    k += '+updiscon'
            if t.irreport != t.irreport_pre:
                k += '+irreport'
            if t.format == 3 and t.subformat == 1:
                k += '(thaddr %d, %s)' % (t.thaddr, 'interrupt' if t.interrupt else 'exception')
            if t.format == 3 and t.subformat == 3:
                k += '(qual_status %d)' % t.qual_status
            stats[k] = stats.get(k, 0) + 1
            if a.dump:
                d = {k: (hex(x) if isinstance(x, int) and k == 'address' and x is not None else x)
                     for k, x in vars(t).items()}
                print('pkt %d @%d n=%d %s' % (state['pkt'], off, state['n'], d))
            if t.warn:
                dec.notes.add(t.warn)
            dec.process_te_inst(t)
    except Mismatch as e:
        msg = str(e)
    except DecodeError as e:
        msg = 'DECODE ERROR: %s (after %d matching PCs)' % (e, state['n'])
    where = ' (packet %d, format %s, at byte offset %d)' % (state['pkt'], state['fmt'], state['off'])
    print('packets: ' + ', '.join('%s x%d' % (k, stats[k]) for k in sorted(stats)))
    print('followed: ' + ', '.join('%s %d' % kv for kv in dec.count.items()))
    for nline in sorted(dec.notes):
        print('note: ' + nline)
    if msg:
        print(msg + where)
        print('match for %d of expected %d (decoded %d) FAIL' %
              (state['n'], M, state['n'] + (1 if msg.startswith('MISMATCH') else 0)))
    elif state['n'] == M:
        print('match for %d of expected %d (decoded %d) EXACT' % (state['n'], M, state['n']))
        rc = 0
    else:
        print('MISMATCH at index %d: expected 0x%x decoded <end of trace>%s' %
              (state['n'], expected[state['n']], where))
        print('match for %d of expected %d (decoded %d) SHORT' % (state['n'], M, state['n']))
    sys.exit(rc)


if __name__ == '__main__':
    main()
