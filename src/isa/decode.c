/* rvtrace — RISC-V instruction length, decode and control-flow class.
 *
 * Hot path: the image's block cache calls rvt_isa_decode once per
 * instruction of every newly seen block, so this file allocates nothing,
 * touches no strings and decodes with plain switches on the opcode fields.
 *
 * Field layouts follow the unprivileged ISA manual (RV32/64 I, M, A, F, D,
 * C, Zicsr, Zifencei) and the privileged manual (trap returns, wfi,
 * sfence.vma, hfence.*).  Control-flow classes follow the E-Trace
 * ingress-port "Jump classification and target inference" rules.
 */
#include "rvtrace/isa.h"

#include "isa/opcodes.h"

/* ---- field helpers --------------------------------------------------- */

static inline int64_t sext(uint64_t v, unsigned bits)
{
    /* Shift the sign bit to bit 63, then arithmetic-shift back. */
    return (int64_t)(v << (64 - bits)) >> (64 - bits);
}

static inline uint64_t xlen_mask(unsigned xlen)
{
    return xlen == 32 ? 0xffffffffu : ~(uint64_t)0;
}

static inline int64_t imm_i(uint32_t b)
{
    return sext(b >> 20, 12);
}

static inline int64_t imm_s(uint32_t b)
{
    return sext(((b >> 20) & 0xfe0) | ((b >> 7) & 0x1f), 12);
}

static inline int64_t imm_b(uint32_t b)
{
    return sext(((b >> 19) & 0x1000) | ((b << 4) & 0x800) | ((b >> 20) & 0x7e0) | ((b >> 7) & 0x1e),
                13);
}

static inline int64_t imm_u(uint32_t b)
{
    return sext(b & 0xfffff000u, 32);
}

static inline int64_t imm_j(uint32_t b)
{
    return sext(((b >> 11) & 0x100000) | (b & 0xff000) | ((b >> 9) & 0x800) | ((b >> 20) & 0x7fe), 21);
}

/* Compressed immediates (bit scatter per the C extension's formats). */
static inline unsigned c_addi4spn_imm(uint32_t b)
{
    return ((b >> 7) & 0x30) | ((b >> 1) & 0x3c0) | ((b >> 4) & 0x4) | ((b >> 2) & 0x8);
}
static inline unsigned c_lw_imm(uint32_t b)
{
    return ((b >> 7) & 0x38) | ((b >> 4) & 0x4) | ((b << 1) & 0x40);
}
static inline unsigned c_ld_imm(uint32_t b)
{
    return ((b >> 7) & 0x38) | ((b << 1) & 0xc0);
}
static inline int64_t c_ci_imm(uint32_t b)
{
    return sext(((b >> 7) & 0x20) | ((b >> 2) & 0x1f), 6);
}
static inline unsigned c_shamt(uint32_t b)
{
    return ((b >> 7) & 0x20) | ((b >> 2) & 0x1f);
}
static inline int64_t c_lui_imm(uint32_t b)
{
    return sext((uint64_t)(((b >> 7) & 0x20) | ((b >> 2) & 0x1f)) << 12, 18);
}
static inline int64_t c_addi16sp_imm(uint32_t b)
{
    return sext(((b >> 3) & 0x200) | ((b >> 2) & 0x10) | ((b << 1) & 0x40) | ((b << 4) & 0x180) |
                    ((b << 3) & 0x20),
                10);
}
static inline int64_t c_j_imm(uint32_t b)
{
    return sext(((b >> 1) & 0x800) | ((b >> 7) & 0x10) | ((b >> 1) & 0x300) | ((b << 2) & 0x400) |
                    ((b >> 1) & 0x40) | ((b << 1) & 0x80) | ((b >> 2) & 0xe) | ((b << 3) & 0x20),
                12);
}
static inline int64_t c_b_imm(uint32_t b)
{
    return sext(((b >> 4) & 0x100) | ((b >> 7) & 0x18) | ((b << 1) & 0xc0) | ((b >> 2) & 0x6) |
                    ((b << 3) & 0x20),
                9);
}
static inline unsigned c_lwsp_imm(uint32_t b)
{
    return ((b >> 7) & 0x20) | ((b >> 2) & 0x1c) | ((b << 4) & 0xc0);
}
static inline unsigned c_ldsp_imm(uint32_t b)
{
    return ((b >> 7) & 0x20) | ((b >> 2) & 0x18) | ((b << 4) & 0x1c0);
}
static inline unsigned c_swsp_imm(uint32_t b)
{
    return ((b >> 7) & 0x3c) | ((b >> 1) & 0xc0);
}
static inline unsigned c_sdsp_imm(uint32_t b)
{
    return ((b >> 7) & 0x38) | ((b >> 1) & 0x1c0);
}

/* WRITES_RD only for a real integer destination (x0 writes are discarded). */
static inline uint16_t wr(unsigned rd)
{
    return rd ? RVT_IF_WRITES_RD : 0;
}

static inline bool is_link(unsigned r)
{
    return r == 1 || r == 5;
}

/* jalr rd, rs1 per the ingress-port jump classification list. */
static unsigned jalr_class(unsigned rd, unsigned rs1)
{
    if (is_link(rd))
        return is_link(rs1) && rs1 != rd ? RVT_CF_COSWAP : RVT_CF_CALL_UNINF;
    if (is_link(rs1))
        return RVT_CF_RETURN;
    return rd == 0 ? RVT_CF_JUMP_UNINF : RVT_CF_OTHER_UNINF;
}

static unsigned jal_class(unsigned rd)
{
    if (is_link(rd))
        return RVT_CF_CALL_INF;
    return rd == 0 ? RVT_CF_JUMP_INF : RVT_CF_OTHER_INF;
}

/* Rounding modes 5 and 6 are reserved (the instruction is illegal). */
static inline bool rm_ok(unsigned rm)
{
    return rm != 5 && rm != 6;
}

/* ---- length ---------------------------------------------------------- */

unsigned rvt_isa_length(uint16_t low16)
{
    if ((low16 & 0x3) != 0x3)
        return 2;
    if ((low16 & 0x1c) != 0x1c)
        return 4;
    if ((low16 & 0x3f) == 0x1f)
        return 6;
    if ((low16 & 0x7f) == 0x3f)
        return 8;
    return 0; /* bits[6:0] == 0x7f: >= 80-bit encodings, none defined */
}

/* ---- 32-bit encodings ------------------------------------------------ */

static void decode_load_store(struct rvt_insn *in, uint32_t b, bool rv64, bool store)
{
    static const uint8_t load_op[8] = {RVT_OP_LB,  RVT_OP_LH,  RVT_OP_LW,  RVT_OP_LD,
                                       RVT_OP_LBU, RVT_OP_LHU, RVT_OP_LWU, RVT_OP_UNKNOWN};
    static const uint8_t load_size[8] = {1, 2, 4, 8, 1, 2, 4, 0};
    static const uint8_t store_op[4] = {RVT_OP_SB, RVT_OP_SH, RVT_OP_SW, RVT_OP_SD};
    const unsigned f3 = (b >> 12) & 7;
    in->rs1 = (b >> 15) & 31;
    if (store) {
        if (f3 > 3 || (f3 == 3 && !rv64))
            return;
        in->op = store_op[f3];
        in->rs2 = (b >> 20) & 31;
        in->imm = imm_s(b);
        in->mem_size = (uint8_t)(1u << f3);
        in->flags |= RVT_IF_VALID | RVT_IF_STORE;
        return;
    }
    if (f3 == 7 || (!rv64 && (f3 == 3 || f3 == 6)))
        return;
    in->op = load_op[f3];
    in->rd = (b >> 7) & 31;
    in->imm = imm_i(b);
    in->mem_size = load_size[f3];
    in->flags |= RVT_IF_VALID | RVT_IF_LOAD | wr(in->rd);
}

static void decode_op_imm(struct rvt_insn *in, uint32_t b, bool rv64)
{
    static const uint8_t ops[8] = {RVT_OP_ADDI, RVT_OP_SLLI, RVT_OP_SLTI, RVT_OP_SLTIU,
                                   RVT_OP_XORI, RVT_OP_SRLI, RVT_OP_ORI,  RVT_OP_ANDI};
    const unsigned f3 = (b >> 12) & 7, funct6 = b >> 26, shamt = (b >> 20) & 63;
    in->rd = (b >> 7) & 31;
    in->rs1 = (b >> 15) & 31;
    if (f3 == 1 || f3 == 5) {
        /* Shifts: imm[11:6] selects the operation; RV32 requires shamt < 32.
         * op is set even for the RV32-illegal shamt so the text shows it. */
        if (f3 == 1 && funct6 == 0)
            in->op = RVT_OP_SLLI;
        else if (f3 == 5 && funct6 == 0)
            in->op = RVT_OP_SRLI;
        else if (f3 == 5 && funct6 == 0x10)
            in->op = RVT_OP_SRAI;
        else
            return;
        in->imm = shamt;
        if (!rv64 && shamt >= 32)
            return;
    } else {
        in->op = ops[f3];
        in->imm = imm_i(b);
    }
    in->flags |= RVT_IF_VALID | wr(in->rd);
}

static void decode_op_imm32(struct rvt_insn *in, uint32_t b)
{
    const unsigned f3 = (b >> 12) & 7, f7 = b >> 25;
    in->rd = (b >> 7) & 31;
    in->rs1 = (b >> 15) & 31;
    if (f3 == 0) {
        in->op = RVT_OP_ADDIW;
        in->imm = imm_i(b);
    } else {
        if (f3 == 1 && f7 == 0)
            in->op = RVT_OP_SLLIW;
        else if (f3 == 5 && f7 == 0)
            in->op = RVT_OP_SRLIW;
        else if (f3 == 5 && f7 == 0x20)
            in->op = RVT_OP_SRAIW;
        else
            return;
        in->imm = (b >> 20) & 31;
    }
    in->flags |= RVT_IF_VALID | wr(in->rd);
}

static void decode_op(struct rvt_insn *in, uint32_t b)
{
    static const uint8_t base[8] = {RVT_OP_ADD, RVT_OP_SLL, RVT_OP_SLT, RVT_OP_SLTU,
                                    RVT_OP_XOR, RVT_OP_SRL, RVT_OP_OR,  RVT_OP_AND};
    static const uint8_t muldiv[8] = {RVT_OP_MUL, RVT_OP_MULH, RVT_OP_MULHSU, RVT_OP_MULHU,
                                      RVT_OP_DIV, RVT_OP_DIVU, RVT_OP_REM,   RVT_OP_REMU};
    const unsigned f3 = (b >> 12) & 7, f7 = b >> 25;
    if (f7 == 0)
        in->op = base[f3];
    else if (f7 == 1)
        in->op = muldiv[f3];
    else if (f7 == 0x20 && f3 == 0)
        in->op = RVT_OP_SUB;
    else if (f7 == 0x20 && f3 == 5)
        in->op = RVT_OP_SRA;
    else
        return;
    in->rd = (b >> 7) & 31;
    in->rs1 = (b >> 15) & 31;
    in->rs2 = (b >> 20) & 31;
    in->flags |= RVT_IF_VALID | wr(in->rd);
}

static void decode_op32(struct rvt_insn *in, uint32_t b)
{
    static const uint8_t base[8] = {RVT_OP_ADDW,    RVT_OP_SLLW,    RVT_OP_UNKNOWN, RVT_OP_UNKNOWN,
                                    RVT_OP_UNKNOWN, RVT_OP_SRLW,    RVT_OP_UNKNOWN, RVT_OP_UNKNOWN};
    static const uint8_t muldiv[8] = {RVT_OP_MULW,    RVT_OP_UNKNOWN, RVT_OP_UNKNOWN, RVT_OP_UNKNOWN,
                                      RVT_OP_DIVW,    RVT_OP_DIVUW,   RVT_OP_REMW,    RVT_OP_REMUW};
    const unsigned f3 = (b >> 12) & 7, f7 = b >> 25;
    unsigned op = RVT_OP_UNKNOWN;
    if (f7 == 0)
        op = base[f3];
    else if (f7 == 1)
        op = muldiv[f3];
    else if (f7 == 0x20 && f3 == 0)
        op = RVT_OP_SUBW;
    else if (f7 == 0x20 && f3 == 5)
        op = RVT_OP_SRAW;
    if (op == RVT_OP_UNKNOWN)
        return;
    in->op = (uint16_t)op;
    in->rd = (b >> 7) & 31;
    in->rs1 = (b >> 15) & 31;
    in->rs2 = (b >> 20) & 31;
    in->flags |= RVT_IF_VALID | wr(in->rd);
}

static void decode_misc_mem(struct rvt_insn *in, uint32_t b)
{
    const unsigned f3 = (b >> 12) & 7;
    /* The base ISA requires unused fence fields (rd, rs1, fm) to be ignored
     * for forward compatibility, so any fence/fence.i encoding is valid. */
    if (f3 == 0)
        in->op = (b >> 20) == 0x833 ? RVT_OP_FENCE_TSO : RVT_OP_FENCE;
    else if (f3 == 1)
        in->op = RVT_OP_FENCE_I;
    else
        return;
    in->rd = (b >> 7) & 31;
    in->rs1 = (b >> 15) & 31;
    in->imm = b >> 20;
    in->flags |= RVT_IF_VALID | RVT_IF_FENCE;
}

static void decode_system(struct rvt_insn *in, uint32_t b)
{
    const unsigned f3 = (b >> 12) & 7, rd = (b >> 7) & 31, f7 = b >> 25;
    if (f3 == 0) {
        unsigned op = RVT_OP_UNKNOWN, cf = RVT_CF_NONE;
        uint16_t flags = 0;
        switch (b) {
        case 0x00000073: op = RVT_OP_ECALL; cf = RVT_CF_ECALL; break;
        case 0x00100073: op = RVT_OP_EBREAK; cf = RVT_CF_EBREAK; break;
        case 0x00200073: op = RVT_OP_URET; cf = RVT_CF_TRAPRET; break;
        case 0x10200073: op = RVT_OP_SRET; cf = RVT_CF_TRAPRET; break;
        case 0x30200073: op = RVT_OP_MRET; cf = RVT_CF_TRAPRET; break;
        case 0x70200073: op = RVT_OP_MNRET; cf = RVT_CF_TRAPRET; break; /* Smrnmi */
        case 0x7b200073: op = RVT_OP_DRET; cf = RVT_CF_TRAPRET; break;
        case 0x10500073: op = RVT_OP_WFI; flags = RVT_IF_WFI; break;
        default:
            if (rd != 0)
                return;
            if (f7 == 0x09)
                op = RVT_OP_SFENCE_VMA;
            else if (f7 == 0x11)
                op = RVT_OP_HFENCE_VVMA;
            else if (f7 == 0x31)
                op = RVT_OP_HFENCE_GVMA;
            else
                return;
            in->rs1 = (b >> 15) & 31;
            in->rs2 = (b >> 20) & 31;
            flags = RVT_IF_FENCE;
            break;
        }
        in->op = (uint16_t)op;
        in->cf = (uint8_t)cf;
        in->flags |= RVT_IF_VALID | flags;
        return;
    }
    if (f3 == 4)
        return; /* hypervisor loads/stores: not decoded */
    /* csrrw/csrrs/csrrc (f3 1..3) and their immediate forms (f3 5..7);
     * for the immediate forms rs1 holds the 5-bit immediate. */
    in->op = (uint16_t)(RVT_OP_CSRRW + (f3 & 3) - 1 + (f3 & 4 ? 3 : 0));
    in->rd = (uint8_t)rd;
    in->rs1 = (b >> 15) & 31;
    in->imm = b >> 20; /* CSR number */
    in->flags |= RVT_IF_VALID | RVT_IF_CSR | wr(rd);
}

static void decode_amo(struct rvt_insn *in, uint32_t b, bool rv64)
{
    const unsigned f3 = (b >> 12) & 7, funct5 = b >> 27, rs2 = (b >> 20) & 31;
    unsigned op;
    uint16_t mem;
    if (f3 != 2 && !(f3 == 3 && rv64))
        return;
    switch (funct5) {
    case 0x00: op = RVT_OP_AMOADD_W; mem = RVT_IF_LOAD | RVT_IF_STORE; break;
    case 0x01: op = RVT_OP_AMOSWAP_W; mem = RVT_IF_LOAD | RVT_IF_STORE; break;
    case 0x02:
        if (rs2 != 0)
            return;
        op = RVT_OP_LR_W;
        mem = RVT_IF_LOAD;
        break;
    case 0x03: op = RVT_OP_SC_W; mem = RVT_IF_STORE; break;
    case 0x04: op = RVT_OP_AMOXOR_W; mem = RVT_IF_LOAD | RVT_IF_STORE; break;
    case 0x08: op = RVT_OP_AMOOR_W; mem = RVT_IF_LOAD | RVT_IF_STORE; break;
    case 0x0c: op = RVT_OP_AMOAND_W; mem = RVT_IF_LOAD | RVT_IF_STORE; break;
    case 0x10: op = RVT_OP_AMOMIN_W; mem = RVT_IF_LOAD | RVT_IF_STORE; break;
    case 0x14: op = RVT_OP_AMOMAX_W; mem = RVT_IF_LOAD | RVT_IF_STORE; break;
    case 0x18: op = RVT_OP_AMOMINU_W; mem = RVT_IF_LOAD | RVT_IF_STORE; break;
    case 0x1c: op = RVT_OP_AMOMAXU_W; mem = RVT_IF_LOAD | RVT_IF_STORE; break;
    default: return;
    }
    if (f3 == 3)
        op += RVT_OP_LR_D - RVT_OP_LR_W;
    in->op = (uint16_t)op;
    in->rd = (b >> 7) & 31;
    in->rs1 = (b >> 15) & 31;
    in->rs2 = (uint8_t)rs2;
    in->mem_size = f3 == 3 ? 8 : 4;
    in->flags |= RVT_IF_VALID | mem | wr(in->rd);
}

/* OP-FP (opcode 0x53): one switch on funct5, fmt selects .s/.d. */
static void decode_op_fp(struct rvt_insn *in, uint32_t b, bool rv64)
{
    const unsigned f7 = b >> 25, funct5 = f7 >> 2, fmt = f7 & 3, rm = (b >> 12) & 7;
    const unsigned rs2 = (b >> 20) & 31;
    unsigned op = RVT_OP_UNKNOWN;
    bool int_rd = false, legal = true;
    if (fmt > 1)
        return; /* H and Q formats are not decoded */
    switch (funct5) {
    case 0x00: op = RVT_OP_FADD_S; legal = rm_ok(rm); break;
    case 0x01: op = RVT_OP_FSUB_S; legal = rm_ok(rm); break;
    case 0x02: op = RVT_OP_FMUL_S; legal = rm_ok(rm); break;
    case 0x03: op = RVT_OP_FDIV_S; legal = rm_ok(rm); break;
    case 0x0b:
        if (rs2 != 0)
            return;
        op = RVT_OP_FSQRT_S;
        legal = rm_ok(rm);
        break;
    case 0x04:
        if (rm > 2)
            return;
        op = rm == 0 ? RVT_OP_FSGNJ_S : rm == 1 ? RVT_OP_FSGNJN_S : RVT_OP_FSGNJX_S;
        break;
    case 0x05:
        if (rm > 1)
            return;
        op = rm == 0 ? RVT_OP_FMIN_S : RVT_OP_FMAX_S;
        break;
    case 0x08: /* fcvt.s.d (fmt S, rs2 D) / fcvt.d.s (fmt D, rs2 S) */
        if (rs2 != (fmt ^ 1))
            return;
        in->op = fmt == 0 ? RVT_OP_FCVT_S_D : RVT_OP_FCVT_D_S;
        in->rd = (b >> 7) & 31;
        in->rs1 = (b >> 15) & 31;
        in->rs2 = (uint8_t)rs2;
        if (rm_ok(rm))
            in->flags |= RVT_IF_VALID | RVT_IF_FP_RD;
        return;
    case 0x14:
        if (rm > 2)
            return;
        op = rm == 0 ? RVT_OP_FLE_S : rm == 1 ? RVT_OP_FLT_S : RVT_OP_FEQ_S;
        int_rd = true;
        break;
    case 0x18: /* fcvt.{w,wu,l,lu}.fmt */
        if (rs2 > 3 || (rs2 > 1 && !rv64))
            return;
        op = RVT_OP_FCVT_W_S + 2 * rs2;
        legal = rm_ok(rm);
        int_rd = true;
        break;
    case 0x1a: /* fcvt.fmt.{w,wu,l,lu} */
        if (rs2 > 3 || (rs2 > 1 && !rv64))
            return;
        op = RVT_OP_FCVT_S_W + 2 * rs2;
        legal = rm_ok(rm);
        break;
    case 0x1c:
        if (rs2 != 0 || rm > 1)
            return;
        if (rm == 0) {
            if (fmt == 1 && !rv64)
                return;
            op = RVT_OP_FMV_X_W;
        } else {
            op = RVT_OP_FCLASS_S;
        }
        int_rd = true;
        break;
    case 0x1e:
        if (rs2 != 0 || rm != 0 || (fmt == 1 && !rv64))
            return;
        op = RVT_OP_FMV_W_X;
        break;
    default:
        return;
    }
    in->op = (uint16_t)(op + fmt); /* each .s id is followed by its .d twin */
    in->rd = (b >> 7) & 31;
    in->rs1 = (b >> 15) & 31;
    in->rs2 = (uint8_t)rs2;
    if (legal)
        in->flags |= RVT_IF_VALID | (int_rd ? wr(in->rd) : RVT_IF_FP_RD);
}

static void decode_32(struct rvt_insn *in, uint32_t b, unsigned xlen)
{
    const bool rv64 = xlen == 64;
    const uint64_t mask = xlen_mask(xlen);
    const unsigned rd = (b >> 7) & 31, rs1 = (b >> 15) & 31, f3 = (b >> 12) & 7;

    switch ((b >> 2) & 31) {
    case 0x0d: /* LUI */
        in->op = RVT_OP_LUI;
        in->rd = (uint8_t)rd;
        in->imm = imm_u(b);
        in->target = (uint64_t)in->imm & mask;
        in->flags |= RVT_IF_VALID | wr(rd) | (rd ? RVT_IF_LOADS_CONST : 0);
        return;
    case 0x05: /* AUIPC */
        in->op = RVT_OP_AUIPC;
        in->rd = (uint8_t)rd;
        in->imm = imm_u(b);
        in->target = (in->pc + (uint64_t)in->imm) & mask;
        in->flags |= RVT_IF_VALID | wr(rd) | (rd ? RVT_IF_LOADS_CONST : 0);
        return;
    case 0x1b: /* JAL */
        in->op = RVT_OP_JAL;
        in->rd = (uint8_t)rd;
        in->imm = imm_j(b);
        in->target = (in->pc + (uint64_t)in->imm) & mask;
        in->cf = (uint8_t)jal_class(rd);
        in->flags |= RVT_IF_VALID | wr(rd);
        return;
    case 0x19: /* JALR */
        if (f3 != 0)
            return;
        in->op = RVT_OP_JALR;
        in->rd = (uint8_t)rd;
        in->rs1 = (uint8_t)rs1;
        in->imm = imm_i(b);
        in->cf = (uint8_t)jalr_class(rd, rs1);
        in->flags |= RVT_IF_VALID | wr(rd);
        return;
    case 0x18: /* BRANCH */
        if (f3 == 2 || f3 == 3)
            return;
        in->op = (uint16_t)(RVT_OP_BEQ + (f3 < 2 ? f3 : f3 - 2));
        in->rs1 = (uint8_t)rs1;
        in->rs2 = (b >> 20) & 31;
        in->imm = imm_b(b);
        in->target = (in->pc + (uint64_t)in->imm) & mask;
        in->cf = RVT_CF_BRANCH;
        in->flags |= RVT_IF_VALID;
        return;
    case 0x00: decode_load_store(in, b, rv64, false); return;
    case 0x08: decode_load_store(in, b, rv64, true); return;
    case 0x04: decode_op_imm(in, b, rv64); return;
    case 0x06:
        if (rv64)
            decode_op_imm32(in, b);
        return;
    case 0x0c: decode_op(in, b); return;
    case 0x0e:
        if (rv64)
            decode_op32(in, b);
        return;
    case 0x03: decode_misc_mem(in, b); return;
    case 0x1c: decode_system(in, b); return;
    case 0x0b: decode_amo(in, b, rv64); return;
    case 0x01: /* LOAD-FP */
    case 0x09: /* STORE-FP */
        if (f3 != 2 && f3 != 3)
            return;
        in->rs1 = (uint8_t)rs1;
        in->mem_size = f3 == 2 ? 4 : 8;
        if (((b >> 2) & 31) == 0x01) {
            in->op = f3 == 2 ? RVT_OP_FLW : RVT_OP_FLD;
            in->rd = (uint8_t)rd;
            in->imm = imm_i(b);
            in->flags |= RVT_IF_VALID | RVT_IF_LOAD | RVT_IF_FP_RD;
        } else {
            in->op = f3 == 2 ? RVT_OP_FSW : RVT_OP_FSD;
            in->rs2 = (b >> 20) & 31;
            in->imm = imm_s(b);
            in->flags |= RVT_IF_VALID | RVT_IF_STORE;
        }
        return;
    case 0x10: /* FMADD */
    case 0x11: /* FMSUB */
    case 0x12: /* FNMSUB */
    case 0x13: /* FNMADD */ {
        const unsigned fmt = (b >> 25) & 3;
        if (fmt > 1)
            return;
        in->op = (uint16_t)(RVT_OP_FMADD_S + 2 * (((b >> 2) & 31) - 0x10) + fmt);
        in->rd = (uint8_t)rd;
        in->rs1 = (uint8_t)rs1;
        in->rs2 = (b >> 20) & 31; /* rs3 is bits[31:27] */
        if (rm_ok(f3))
            in->flags |= RVT_IF_VALID | RVT_IF_FP_RD;
        return;
    }
    case 0x14: decode_op_fp(in, b, rv64); return;
    default: return;
    }
}

/* ---- 16-bit encodings ------------------------------------------------ */

static void c_mem(struct rvt_insn *in, unsigned op, unsigned reg, unsigned base, unsigned imm,
                  unsigned size, bool store, bool fp)
{
    in->op = (uint16_t)op;
    in->rs1 = (uint8_t)base;
    in->imm = imm;
    in->mem_size = (uint8_t)size;
    if (store) {
        in->rs2 = (uint8_t)reg;
        in->flags |= RVT_IF_VALID | RVT_IF_STORE;
    } else {
        in->rd = (uint8_t)reg;
        in->flags |= RVT_IF_VALID | RVT_IF_LOAD | (fp ? RVT_IF_FP_RD : wr(reg));
    }
}

static void decode_16(struct rvt_insn *in, uint32_t b, unsigned xlen)
{
    const bool rv64 = xlen == 64;
    const uint64_t mask = xlen_mask(xlen);
    const unsigned rd = (b >> 7) & 31, rs2 = (b >> 2) & 31;
    const unsigned rs1p = 8 + ((b >> 7) & 7), rs2p = 8 + ((b >> 2) & 7);

    in->flags = RVT_IF_COMPRESSED;
    switch (((b & 3) << 3) | ((b >> 13) & 7)) {
    /* quadrant 0 */
    case 0x00: { /* c.addi4spn; a zero immediate (incl. all-zero bits) is reserved */
        const unsigned imm = c_addi4spn_imm(b);
        if (imm == 0)
            return;
        in->op = RVT_OP_C_ADDI4SPN;
        in->rd = (uint8_t)rs2p;
        in->rs1 = 2;
        in->imm = imm;
        in->flags |= RVT_IF_VALID | RVT_IF_WRITES_RD;
        return;
    }
    case 0x01: c_mem(in, RVT_OP_C_FLD, rs2p, rs1p, c_ld_imm(b), 8, false, true); return;
    case 0x02: c_mem(in, RVT_OP_C_LW, rs2p, rs1p, c_lw_imm(b), 4, false, false); return;
    case 0x03:
        if (rv64)
            c_mem(in, RVT_OP_C_LD, rs2p, rs1p, c_ld_imm(b), 8, false, false);
        else
            c_mem(in, RVT_OP_C_FLW, rs2p, rs1p, c_lw_imm(b), 4, false, true);
        return;
    case 0x04: return; /* reserved */
    case 0x05: c_mem(in, RVT_OP_C_FSD, rs2p, rs1p, c_ld_imm(b), 8, true, true); return;
    case 0x06: c_mem(in, RVT_OP_C_SW, rs2p, rs1p, c_lw_imm(b), 4, true, false); return;
    case 0x07:
        if (rv64)
            c_mem(in, RVT_OP_C_SD, rs2p, rs1p, c_ld_imm(b), 8, true, false);
        else
            c_mem(in, RVT_OP_C_FSW, rs2p, rs1p, c_lw_imm(b), 4, true, true);
        return;

    /* quadrant 1 */
    case 0x08: /* c.addi; rd=0 is c.nop (or a hint), imm=0 with rd!=0 a hint */
        in->op = rd ? RVT_OP_C_ADDI : RVT_OP_C_NOP;
        in->rd = in->rs1 = (uint8_t)rd;
        in->imm = c_ci_imm(b);
        in->flags |= RVT_IF_VALID | wr(rd);
        return;
    case 0x09:
        if (!rv64) { /* c.jal (RV32 only) */
            in->op = RVT_OP_C_JAL;
            in->rd = 1;
            in->imm = c_j_imm(b);
            in->target = (in->pc + (uint64_t)in->imm) & mask;
            in->cf = RVT_CF_CALL_INF;
            in->flags |= RVT_IF_VALID | RVT_IF_WRITES_RD;
            return;
        }
        if (rd == 0)
            return; /* c.addiw with rd=0 is reserved */
        in->op = RVT_OP_C_ADDIW;
        in->rd = in->rs1 = (uint8_t)rd;
        in->imm = c_ci_imm(b);
        in->flags |= RVT_IF_VALID | RVT_IF_WRITES_RD;
        return;
    case 0x0a: /* c.li (rd=0 is a hint) */
        in->op = RVT_OP_C_LI;
        in->rd = (uint8_t)rd;
        in->imm = c_ci_imm(b);
        in->flags |= RVT_IF_VALID | wr(rd);
        return;
    case 0x0b:
        if (rd == 2) { /* c.addi16sp; zero immediate reserved */
            in->op = RVT_OP_C_ADDI16SP;
            in->rd = in->rs1 = 2;
            in->imm = c_addi16sp_imm(b);
            if (in->imm != 0)
                in->flags |= RVT_IF_VALID | RVT_IF_WRITES_RD;
            return;
        }
        in->imm = c_lui_imm(b);
        if (in->imm == 0)
            return; /* reserved */
        in->op = RVT_OP_C_LUI;
        in->rd = (uint8_t)rd;
        in->target = (uint64_t)in->imm & mask;
        in->flags |= RVT_IF_VALID | wr(rd) | (rd ? RVT_IF_LOADS_CONST : 0);
        return;
    case 0x0c: { /* MISC-ALU */
        const unsigned f2 = (b >> 10) & 3;
        in->rd = in->rs1 = (uint8_t)rs1p;
        if (f2 < 2) { /* c.srli / c.srai; RV32 needs shamt[5]=0 */
            in->op = f2 == 0 ? RVT_OP_C_SRLI : RVT_OP_C_SRAI;
            in->imm = c_shamt(b);
            if (rv64 || in->imm < 32)
                in->flags |= RVT_IF_VALID | RVT_IF_WRITES_RD;
            return;
        }
        if (f2 == 2) {
            in->op = RVT_OP_C_ANDI;
            in->imm = c_ci_imm(b);
            in->flags |= RVT_IF_VALID | RVT_IF_WRITES_RD;
            return;
        }
        const unsigned f = (b >> 5) & 3;
        if (b & 0x1000) {
            if (f > 1 || !rv64) {
                in->rd = in->rs1 = 0;
                return; /* c.subw/c.addw are RV64-only; funct 10/11 reserved */
            }
            in->op = f == 0 ? RVT_OP_C_SUBW : RVT_OP_C_ADDW;
        } else {
            static const uint8_t ops[4] = {RVT_OP_C_SUB, RVT_OP_C_XOR, RVT_OP_C_OR, RVT_OP_C_AND};
            in->op = ops[f];
        }
        in->rs2 = (uint8_t)rs2p;
        in->flags |= RVT_IF_VALID | RVT_IF_WRITES_RD;
        return;
    }
    case 0x0d: /* c.j */
        in->op = RVT_OP_C_J;
        in->imm = c_j_imm(b);
        in->target = (in->pc + (uint64_t)in->imm) & mask;
        in->cf = RVT_CF_JUMP_INF;
        in->flags |= RVT_IF_VALID;
        return;
    case 0x0e: /* c.beqz */
    case 0x0f: /* c.bnez */
        in->op = (b >> 13) & 1 ? RVT_OP_C_BNEZ : RVT_OP_C_BEQZ;
        in->rs1 = (uint8_t)rs1p;
        in->imm = c_b_imm(b);
        in->target = (in->pc + (uint64_t)in->imm) & mask;
        in->cf = RVT_CF_BRANCH;
        in->flags |= RVT_IF_VALID;
        return;

    /* quadrant 2 */
    case 0x10: /* c.slli (rd=0 or shamt=0 are hints); RV32 needs shamt[5]=0 */
        in->op = RVT_OP_C_SLLI;
        in->rd = in->rs1 = (uint8_t)rd;
        in->imm = c_shamt(b);
        if (rv64 || in->imm < 32)
            in->flags |= RVT_IF_VALID | wr(rd);
        return;
    case 0x11: c_mem(in, RVT_OP_C_FLDSP, rd, 2, c_ldsp_imm(b), 8, false, true); return;
    case 0x12:
        if (rd == 0)
            return; /* reserved */
        c_mem(in, RVT_OP_C_LWSP, rd, 2, c_lwsp_imm(b), 4, false, false);
        return;
    case 0x13:
        if (!rv64) {
            c_mem(in, RVT_OP_C_FLWSP, rd, 2, c_lwsp_imm(b), 4, false, true);
            return;
        }
        if (rd == 0)
            return; /* reserved */
        c_mem(in, RVT_OP_C_LDSP, rd, 2, c_ldsp_imm(b), 8, false, false);
        return;
    case 0x14:
        if (!(b & 0x1000)) {
            if (rs2 == 0) { /* c.jr; rs1=0 reserved */
                if (rd == 0)
                    return;
                in->op = RVT_OP_C_JR;
                in->rs1 = (uint8_t)rd;
                in->cf = is_link(rd) ? RVT_CF_RETURN : RVT_CF_JUMP_UNINF;
                in->flags |= RVT_IF_VALID;
                return;
            }
            in->op = RVT_OP_C_MV; /* rd=0 is a hint */
            in->rd = (uint8_t)rd;
            in->rs2 = (uint8_t)rs2;
            in->flags |= RVT_IF_VALID | wr(rd);
            return;
        }
        if (rs2 == 0) {
            if (rd == 0) {
                in->op = RVT_OP_C_EBREAK;
                in->cf = RVT_CF_EBREAK;
                in->flags |= RVT_IF_VALID;
                return;
            }
            in->op = RVT_OP_C_JALR; /* jalr x1, 0(rs1) */
            in->rd = 1;
            in->rs1 = (uint8_t)rd;
            in->cf = rd == 5 ? RVT_CF_COSWAP : RVT_CF_CALL_UNINF;
            in->flags |= RVT_IF_VALID | RVT_IF_WRITES_RD;
            return;
        }
        in->op = RVT_OP_C_ADD; /* rd=0 is a hint */
        in->rd = in->rs1 = (uint8_t)rd;
        in->rs2 = (uint8_t)rs2;
        in->flags |= RVT_IF_VALID | wr(rd);
        return;
    case 0x15: c_mem(in, RVT_OP_C_FSDSP, rs2, 2, c_sdsp_imm(b), 8, true, true); return;
    case 0x16: c_mem(in, RVT_OP_C_SWSP, rs2, 2, c_swsp_imm(b), 4, true, false); return;
    case 0x17:
        if (rv64)
            c_mem(in, RVT_OP_C_SDSP, rs2, 2, c_sdsp_imm(b), 8, true, false);
        else
            c_mem(in, RVT_OP_C_FSWSP, rs2, 2, c_swsp_imm(b), 4, true, true);
        return;
    default: return;
    }
}

/* ---- public entry points -------------------------------------------- */

int rvt_isa_decode(uint32_t bits, uint64_t pc, unsigned xlen, struct rvt_insn *out)
{
    *out = (struct rvt_insn){.pc = pc, .bits = bits};
    out->len = (uint8_t)rvt_isa_length((uint16_t)bits);
    if (xlen != 32 && xlen != 64)
        return -RVT_ERR_INVAL;
    if (out->len == 2) {
        out->bits = bits & 0xffff;
        decode_16(out, out->bits, xlen);
    } else if (out->len == 4) {
        decode_32(out, bits, xlen);
    }
    /* Illegal encodings keep their op (for display) but never a class. */
    if (!(out->flags & RVT_IF_VALID)) {
        out->cf = RVT_CF_NONE;
        out->flags &= RVT_IF_COMPRESSED;
        out->target = 0;
        out->mem_size = 0;
    }
    return 0;
}

int rvt_isa_data_access(const struct rvt_insn *in)
{
    if (!(in->flags & RVT_IF_VALID))
        return -1;
    if (in->flags & RVT_IF_CSR) /* csrrw/rs/rc and the immediate forms, in that order */
        return 4 + (int)((in->op - RVT_OP_CSRRW) % 3);
    switch (in->op) {
    case RVT_OP_SC_W:
    case RVT_OP_SC_D: return RVT_ISA_DATA_SC;
    case RVT_OP_AMOSWAP_W:
    case RVT_OP_AMOSWAP_D: return 8;
    case RVT_OP_AMOADD_W:
    case RVT_OP_AMOADD_D: return 9;
    case RVT_OP_AMOAND_W:
    case RVT_OP_AMOAND_D: return 10;
    case RVT_OP_AMOOR_W:
    case RVT_OP_AMOOR_D: return 11;
    case RVT_OP_AMOXOR_W:
    case RVT_OP_AMOXOR_D: return 12;
    case RVT_OP_AMOMAX_W:
    case RVT_OP_AMOMAX_D:
    case RVT_OP_AMOMAXU_W:
    case RVT_OP_AMOMAXU_D: return 13;
    case RVT_OP_AMOMIN_W:
    case RVT_OP_AMOMIN_D:
    case RVT_OP_AMOMINU_W:
    case RVT_OP_AMOMINU_D: return 14;
    default: break;
    }
    if (in->flags & RVT_IF_LOAD)
        return 0;
    if (in->flags & RVT_IF_STORE)
        return 1;
    return -1;
}

bool rvt_isa_sijump_target(const struct rvt_insn *prev, const struct rvt_insn *jump, unsigned xlen,
                           uint64_t *target)
{
    if (!prev || !jump || (xlen != 32 && xlen != 64))
        return false;
    if ((prev->flags & (RVT_IF_VALID | RVT_IF_LOADS_CONST)) != (RVT_IF_VALID | RVT_IF_LOADS_CONST) ||
        prev->rd == 0)
        return false;
    if (!(jump->flags & RVT_IF_VALID) || !rvt_cf_uninferable(jump->cf) ||
        jump->cf == RVT_CF_TRAPRET || jump->rs1 != prev->rd)
        return false;
    if (target)
        *target = (prev->target + (uint64_t)jump->imm) & ~(uint64_t)1 & xlen_mask(xlen);
    return true;
}

const char *rvt_cf_name(unsigned cf)
{
    switch (cf) {
    case RVT_CF_NONE: return "none";
    case RVT_CF_TRAPRET: return "trap-return";
    case RVT_CF_BRANCH: return "branch";
    case RVT_CF_CALL_UNINF: return "call-uninferable";
    case RVT_CF_CALL_INF: return "call";
    case RVT_CF_JUMP_UNINF: return "jump-uninferable";
    case RVT_CF_JUMP_INF: return "jump";
    case RVT_CF_COSWAP: return "coroutine-swap";
    case RVT_CF_RETURN: return "return";
    case RVT_CF_OTHER_UNINF: return "other-jump-uninferable";
    case RVT_CF_OTHER_INF: return "other-jump";
    case RVT_CF_ECALL: return "ecall";
    case RVT_CF_EBREAK: return "ebreak";
    default: return "unknown";
    }
}
