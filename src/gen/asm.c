/* Generator: instruction encoders (RV32/RV64 I, M, A, Zicsr, Zifencei,
 * privileged, C), from the unprivileged and privileged ISA manuals'
 * encoding tables. */
#include "gen/asm.h"

#include <stddef.h>

#define GI(n, k, sz, r64, im) {n, k, sz, r64, im, 0}
#define GF(n, k, sz, r64, fpr) {n, k, sz, r64, k == GK_FLOAD || k == GK_FSTORE, fpr}
const struct gop_info gop_table[OP__COUNT] = {
    [OP_LUI] = GI("lui", GK_ALU, 0, false, true),
    [OP_AUIPC] = GI("auipc", GK_ALU, 0, false, true),
    [OP_JAL] = GI("jal", GK_JAL, 0, false, true),
    [OP_JALR] = GI("jalr", GK_JALR, 0, false, true),
    [OP_BEQ] = GI("beq", GK_BRANCH, 0, false, true),
    [OP_BNE] = GI("bne", GK_BRANCH, 0, false, true),
    [OP_BLT] = GI("blt", GK_BRANCH, 0, false, true),
    [OP_BGE] = GI("bge", GK_BRANCH, 0, false, true),
    [OP_BLTU] = GI("bltu", GK_BRANCH, 0, false, true),
    [OP_BGEU] = GI("bgeu", GK_BRANCH, 0, false, true),
    [OP_LB] = GI("lb", GK_LOAD, 1, false, true),
    [OP_LH] = GI("lh", GK_LOAD, 2, false, true),
    [OP_LW] = GI("lw", GK_LOAD, 4, false, true),
    [OP_LD] = GI("ld", GK_LOAD, 8, true, true),
    [OP_LBU] = GI("lbu", GK_LOAD, 1, false, true),
    [OP_LHU] = GI("lhu", GK_LOAD, 2, false, true),
    [OP_LWU] = GI("lwu", GK_LOAD, 4, true, true),
    [OP_SB] = GI("sb", GK_STORE, 1, false, true),
    [OP_SH] = GI("sh", GK_STORE, 2, false, true),
    [OP_SW] = GI("sw", GK_STORE, 4, false, true),
    [OP_SD] = GI("sd", GK_STORE, 8, true, true),
    [OP_ADDI] = GI("addi", GK_ALU, 0, false, true),
    [OP_SLTI] = GI("slti", GK_ALU, 0, false, true),
    [OP_SLTIU] = GI("sltiu", GK_ALU, 0, false, true),
    [OP_XORI] = GI("xori", GK_ALU, 0, false, true),
    [OP_ORI] = GI("ori", GK_ALU, 0, false, true),
    [OP_ANDI] = GI("andi", GK_ALU, 0, false, true),
    [OP_SLLI] = GI("slli", GK_ALU, 0, false, true),
    [OP_SRLI] = GI("srli", GK_ALU, 0, false, true),
    [OP_SRAI] = GI("srai", GK_ALU, 0, false, true),
    [OP_ADD] = GI("add", GK_ALU, 0, false, false),
    [OP_SUB] = GI("sub", GK_ALU, 0, false, false),
    [OP_SLL] = GI("sll", GK_ALU, 0, false, false),
    [OP_SLT] = GI("slt", GK_ALU, 0, false, false),
    [OP_SLTU] = GI("sltu", GK_ALU, 0, false, false),
    [OP_XOR] = GI("xor", GK_ALU, 0, false, false),
    [OP_SRL] = GI("srl", GK_ALU, 0, false, false),
    [OP_SRA] = GI("sra", GK_ALU, 0, false, false),
    [OP_OR] = GI("or", GK_ALU, 0, false, false),
    [OP_AND] = GI("and", GK_ALU, 0, false, false),
    [OP_ADDIW] = GI("addiw", GK_ALU, 0, true, true),
    [OP_SLLIW] = GI("slliw", GK_ALU, 0, true, true),
    [OP_SRLIW] = GI("srliw", GK_ALU, 0, true, true),
    [OP_SRAIW] = GI("sraiw", GK_ALU, 0, true, true),
    [OP_ADDW] = GI("addw", GK_ALU, 0, true, false),
    [OP_SUBW] = GI("subw", GK_ALU, 0, true, false),
    [OP_SLLW] = GI("sllw", GK_ALU, 0, true, false),
    [OP_SRLW] = GI("srlw", GK_ALU, 0, true, false),
    [OP_SRAW] = GI("sraw", GK_ALU, 0, true, false),
    [OP_MUL] = GI("mul", GK_ALU, 0, false, false),
    [OP_MULH] = GI("mulh", GK_ALU, 0, false, false),
    [OP_MULHSU] = GI("mulhsu", GK_ALU, 0, false, false),
    [OP_MULHU] = GI("mulhu", GK_ALU, 0, false, false),
    [OP_DIV] = GI("div", GK_ALU, 0, false, false),
    [OP_DIVU] = GI("divu", GK_ALU, 0, false, false),
    [OP_REM] = GI("rem", GK_ALU, 0, false, false),
    [OP_REMU] = GI("remu", GK_ALU, 0, false, false),
    [OP_MULW] = GI("mulw", GK_ALU, 0, true, false),
    [OP_DIVW] = GI("divw", GK_ALU, 0, true, false),
    [OP_DIVUW] = GI("divuw", GK_ALU, 0, true, false),
    [OP_REMW] = GI("remw", GK_ALU, 0, true, false),
    [OP_REMUW] = GI("remuw", GK_ALU, 0, true, false),
    [OP_FENCE] = GI("fence", GK_SYSTEM, 0, false, false),
    [OP_FENCE_I] = GI("fence.i", GK_SYSTEM, 0, false, false),
    [OP_ECALL] = GI("ecall", GK_SYSTEM, 0, false, false),
    [OP_EBREAK] = GI("ebreak", GK_SYSTEM, 0, false, false),
    [OP_MRET] = GI("mret", GK_SYSTEM, 0, false, false),
    [OP_SRET] = GI("sret", GK_SYSTEM, 0, false, false),
    [OP_WFI] = GI("wfi", GK_SYSTEM, 0, false, false),
    [OP_SFENCE_VMA] = GI("sfence.vma", GK_SYSTEM, 0, false, false),
    [OP_CSRRW] = GI("csrrw", GK_CSR, 0, false, false),
    [OP_CSRRS] = GI("csrrs", GK_CSR, 0, false, false),
    [OP_CSRRC] = GI("csrrc", GK_CSR, 0, false, false),
    [OP_CSRRWI] = GI("csrrwi", GK_CSR, 0, false, false),
    [OP_CSRRSI] = GI("csrrsi", GK_CSR, 0, false, false),
    [OP_CSRRCI] = GI("csrrci", GK_CSR, 0, false, false),
    [OP_LR_W] = GI("lr.w", GK_AMO, 4, false, false),
    [OP_SC_W] = GI("sc.w", GK_AMO, 4, false, false),
    [OP_AMOSWAP_W] = GI("amoswap.w", GK_AMO, 4, false, false),
    [OP_AMOADD_W] = GI("amoadd.w", GK_AMO, 4, false, false),
    [OP_AMOXOR_W] = GI("amoxor.w", GK_AMO, 4, false, false),
    [OP_AMOAND_W] = GI("amoand.w", GK_AMO, 4, false, false),
    [OP_AMOOR_W] = GI("amoor.w", GK_AMO, 4, false, false),
    [OP_LR_D] = GI("lr.d", GK_AMO, 8, true, false),
    [OP_SC_D] = GI("sc.d", GK_AMO, 8, true, false),
    [OP_AMOSWAP_D] = GI("amoswap.d", GK_AMO, 8, true, false),
    [OP_AMOADD_D] = GI("amoadd.d", GK_AMO, 8, true, false),
    [OP_FLW] = GF("flw", GK_FLOAD, 4, false, FPR_RD),
    [OP_FLD] = GF("fld", GK_FLOAD, 8, false, FPR_RD),
    [OP_FSW] = GF("fsw", GK_FSTORE, 4, false, FPR_RS2),
    [OP_FSD] = GF("fsd", GK_FSTORE, 8, false, FPR_RS2),
    [OP_FADD_S] = GF("fadd.s", GK_FP, 0, false, FPR_RD | FPR_RS1 | FPR_RS2),
    [OP_FSUB_S] = GF("fsub.s", GK_FP, 0, false, FPR_RD | FPR_RS1 | FPR_RS2),
    [OP_FMUL_S] = GF("fmul.s", GK_FP, 0, false, FPR_RD | FPR_RS1 | FPR_RS2),
    [OP_FDIV_S] = GF("fdiv.s", GK_FP, 0, false, FPR_RD | FPR_RS1 | FPR_RS2),
    [OP_FSGNJ_S] = GF("fsgnj.s", GK_FP, 0, false, FPR_RD | FPR_RS1 | FPR_RS2),
    [OP_FMIN_S] = GF("fmin.s", GK_FP, 0, false, FPR_RD | FPR_RS1 | FPR_RS2),
    [OP_FMAX_S] = GF("fmax.s", GK_FP, 0, false, FPR_RD | FPR_RS1 | FPR_RS2),
    [OP_FADD_D] = GF("fadd.d", GK_FP, 0, false, FPR_RD | FPR_RS1 | FPR_RS2),
    [OP_FSUB_D] = GF("fsub.d", GK_FP, 0, false, FPR_RD | FPR_RS1 | FPR_RS2),
    [OP_FMUL_D] = GF("fmul.d", GK_FP, 0, false, FPR_RD | FPR_RS1 | FPR_RS2),
    [OP_FDIV_D] = GF("fdiv.d", GK_FP, 0, false, FPR_RD | FPR_RS1 | FPR_RS2),
    [OP_FSGNJ_D] = GF("fsgnj.d", GK_FP, 0, false, FPR_RD | FPR_RS1 | FPR_RS2),
    [OP_FMIN_D] = GF("fmin.d", GK_FP, 0, false, FPR_RD | FPR_RS1 | FPR_RS2),
    [OP_FMAX_D] = GF("fmax.d", GK_FP, 0, false, FPR_RD | FPR_RS1 | FPR_RS2),
    [OP_FMADD_S] = GF("fmadd.s", GK_FP, 0, false, FPR_RD | FPR_RS1 | FPR_RS2 | FPR_RS3),
    [OP_FMADD_D] = GF("fmadd.d", GK_FP, 0, false, FPR_RD | FPR_RS1 | FPR_RS2 | FPR_RS3),
    [OP_FEQ_S] = GF("feq.s", GK_FP, 0, false, FPR_RS1 | FPR_RS2),
    [OP_FLT_S] = GF("flt.s", GK_FP, 0, false, FPR_RS1 | FPR_RS2),
    [OP_FLE_S] = GF("fle.s", GK_FP, 0, false, FPR_RS1 | FPR_RS2),
    [OP_FEQ_D] = GF("feq.d", GK_FP, 0, false, FPR_RS1 | FPR_RS2),
    [OP_FLT_D] = GF("flt.d", GK_FP, 0, false, FPR_RS1 | FPR_RS2),
    [OP_FLE_D] = GF("fle.d", GK_FP, 0, false, FPR_RS1 | FPR_RS2),
    [OP_FCVT_W_S] = GF("fcvt.w.s", GK_FP, 0, false, FPR_RS1),
    [OP_FCVT_S_W] = GF("fcvt.s.w", GK_FP, 0, false, FPR_RD),
    [OP_FCVT_W_D] = GF("fcvt.w.d", GK_FP, 0, false, FPR_RS1),
    [OP_FCVT_D_W] = GF("fcvt.d.w", GK_FP, 0, false, FPR_RD),
    [OP_FCVT_D_S] = GF("fcvt.d.s", GK_FP, 0, false, FPR_RD | FPR_RS1),
    [OP_FCVT_S_D] = GF("fcvt.s.d", GK_FP, 0, false, FPR_RD | FPR_RS1),
    [OP_FMV_X_W] = GF("fmv.x.w", GK_FP, 0, false, FPR_RS1),
    [OP_FMV_W_X] = GF("fmv.w.x", GK_FP, 0, false, FPR_RD),
    [OP_FMV_X_D] = GF("fmv.x.d", GK_FP, 0, true, FPR_RS1),
    [OP_FMV_D_X] = GF("fmv.d.x", GK_FP, 0, true, FPR_RD),
};

static const char *const g_form_names[FM__COUNT] = {
    [FM_32] = "32-bit",        [FM_C_ADDI4SPN] = "c.addi4spn", [FM_C_LW] = "c.lw",
    [FM_C_LD] = "c.ld",        [FM_C_SW] = "c.sw",             [FM_C_SD] = "c.sd",
    [FM_C_NOP] = "c.nop",      [FM_C_ADDI] = "c.addi",         [FM_C_JAL] = "c.jal",
    [FM_C_ADDIW] = "c.addiw",  [FM_C_LI] = "c.li",             [FM_C_ADDI16SP] = "c.addi16sp",
    [FM_C_LUI] = "c.lui",      [FM_C_SRLI] = "c.srli",         [FM_C_SRAI] = "c.srai",
    [FM_C_ANDI] = "c.andi",    [FM_C_SUB] = "c.sub",           [FM_C_XOR] = "c.xor",
    [FM_C_OR] = "c.or",        [FM_C_AND] = "c.and",           [FM_C_SUBW] = "c.subw",
    [FM_C_ADDW] = "c.addw",    [FM_C_J] = "c.j",               [FM_C_BEQZ] = "c.beqz",
    [FM_C_BNEZ] = "c.bnez",    [FM_C_SLLI] = "c.slli",         [FM_C_LWSP] = "c.lwsp",
    [FM_C_LDSP] = "c.ldsp",    [FM_C_JR] = "c.jr",             [FM_C_MV] = "c.mv",
    [FM_C_EBREAK] = "c.ebreak", [FM_C_JALR] = "c.jalr",        [FM_C_ADD] = "c.add",
    [FM_C_SWSP] = "c.swsp",    [FM_C_SDSP] = "c.sdsp",         [FM_C_FLD] = "c.fld",
    [FM_C_FSD] = "c.fsd",      [FM_C_FLW] = "c.flw",           [FM_C_FSW] = "c.fsw",
    [FM_C_FLDSP] = "c.fldsp",  [FM_C_FSDSP] = "c.fsdsp",       [FM_C_FLWSP] = "c.flwsp",
    [FM_C_FSWSP] = "c.fswsp",
};

const char *asm_form_name(enum gform f)
{
    return (unsigned)f < FM__COUNT ? g_form_names[f] : "?";
}

static bool fits_s(int64_t v, unsigned bits)
{
    int64_t lim = (int64_t)1 << (bits - 1);
    return v >= -lim && v < lim;
}
static bool fits_u(int64_t v, unsigned bits)
{
    return v >= 0 && v < ((int64_t)1 << bits);
}
static uint32_t bit(int64_t v, unsigned i)
{
    return (uint32_t)(((uint64_t)v >> i) & 1u);
}
static uint32_t bits_of(int64_t v, unsigned hi, unsigned lo)
{
    return (uint32_t)(((uint64_t)v >> lo) & ((1u << (hi - lo + 1)) - 1u));
}
/* Sign-extend a 20-bit upper immediate given either signed or as 0..0xfffff. */
static int64_t sext20(int64_t v)
{
    v &= 0xfffff;
    return v >= 0x80000 ? v - 0x100000 : v;
}

static uint32_t r_type(unsigned f7, unsigned rs2, unsigned rs1, unsigned f3, unsigned rd, unsigned opc)
{
    return (uint32_t)f7 << 25 | (uint32_t)rs2 << 20 | (uint32_t)rs1 << 15 | (uint32_t)f3 << 12 |
           (uint32_t)rd << 7 | opc;
}
static uint32_t i_type(int64_t imm, unsigned rs1, unsigned f3, unsigned rd, unsigned opc)
{
    return bits_of(imm, 11, 0) << 20 | (uint32_t)rs1 << 15 | (uint32_t)f3 << 12 | (uint32_t)rd << 7 | opc;
}
static uint32_t s_type(int64_t imm, unsigned rs2, unsigned rs1, unsigned f3, unsigned opc)
{
    return bits_of(imm, 11, 5) << 25 | (uint32_t)rs2 << 20 | (uint32_t)rs1 << 15 | (uint32_t)f3 << 12 |
           bits_of(imm, 4, 0) << 7 | opc;
}
static uint32_t b_type(int64_t off, unsigned rs2, unsigned rs1, unsigned f3)
{
    return bit(off, 12) << 31 | bits_of(off, 10, 5) << 25 | (uint32_t)rs2 << 20 | (uint32_t)rs1 << 15 |
           (uint32_t)f3 << 12 | bits_of(off, 4, 1) << 8 | bit(off, 11) << 7 | 0x63u;
}
static uint32_t u_type(int64_t imm20, unsigned rd, unsigned opc)
{
    return bits_of(imm20, 19, 0) << 12 | (uint32_t)rd << 7 | opc;
}
static uint32_t j_type(int64_t off, unsigned rd)
{
    return bit(off, 20) << 31 | bits_of(off, 10, 1) << 21 | bit(off, 11) << 20 | bits_of(off, 19, 12) << 12 |
           (uint32_t)rd << 7 | 0x6fu;
}
/* c.j / c.jal offset field: imm[11|4|9:8|10|6|7|3:1|5] in bits 12..2. */
static uint32_t cj_off(int64_t off)
{
    return bit(off, 11) << 12 | bit(off, 4) << 11 | bits_of(off, 9, 8) << 9 | bit(off, 10) << 8 |
           bit(off, 6) << 7 | bit(off, 7) << 6 | bits_of(off, 3, 1) << 3 | bit(off, 5) << 2;
}
/* c.beqz / c.bnez offset: imm[8|4:3] in 12..10, imm[7:6|2:1|5] in 6..2. */
static uint32_t cb_off(int64_t off)
{
    return bit(off, 8) << 12 | bits_of(off, 4, 3) << 10 | bits_of(off, 7, 6) << 5 | bits_of(off, 2, 1) << 3 |
           bit(off, 5) << 2;
}
static unsigned creg(unsigned r)
{
    return r - 8;
}

static bool encode32(enum gop op, unsigned rd, unsigned rs1, unsigned rs2, int64_t imm, unsigned csr,
                     unsigned xlen, uint32_t *out)
{
    unsigned shmax = xlen == 64 ? 63 : 31;
    switch (op) {
    case OP_LUI:
    case OP_AUIPC:
        if (!fits_s(imm, 20) && !fits_u(imm, 20))
            return false;
        *out = u_type(imm, rd, op == OP_LUI ? 0x37 : 0x17);
        return true;
    case OP_JAL:
        if (!fits_s(imm, 21) || (imm & 1))
            return false;
        *out = j_type(imm, rd);
        return true;
    case OP_JALR:
        if (!fits_s(imm, 12))
            return false;
        *out = i_type(imm, rs1, 0, rd, 0x67);
        return true;
    case OP_BEQ:
    case OP_BNE:
    case OP_BLT:
    case OP_BGE:
    case OP_BLTU:
    case OP_BGEU: {
        static const unsigned f3[] = {0, 1, 4, 5, 6, 7};
        if (!fits_s(imm, 13) || (imm & 1))
            return false;
        *out = b_type(imm, rs2, rs1, f3[op - OP_BEQ]);
        return true;
    }
    case OP_LB:
    case OP_LH:
    case OP_LW:
    case OP_LD:
    case OP_LBU:
    case OP_LHU:
    case OP_LWU: {
        static const unsigned f3[] = {0, 1, 2, 3, 4, 5, 6};
        if (!fits_s(imm, 12))
            return false;
        *out = i_type(imm, rs1, f3[op - OP_LB], rd, 0x03);
        return true;
    }
    case OP_SB:
    case OP_SH:
    case OP_SW:
    case OP_SD:
        if (!fits_s(imm, 12))
            return false;
        *out = s_type(imm, rs2, rs1, (unsigned)(op - OP_SB), 0x23);
        return true;
    case OP_ADDI:
    case OP_SLTI:
    case OP_SLTIU:
    case OP_XORI:
    case OP_ORI:
    case OP_ANDI: {
        static const unsigned f3[] = {0, 2, 3, 4, 6, 7};
        if (!fits_s(imm, 12))
            return false;
        *out = i_type(imm, rs1, f3[op - OP_ADDI], rd, 0x13);
        return true;
    }
    case OP_SLLI:
    case OP_SRLI:
    case OP_SRAI:
        if (imm < 0 || imm > (int64_t)shmax)
            return false;
        *out = i_type(imm | (op == OP_SRAI ? 0x400 : 0), rs1, op == OP_SLLI ? 1 : 5, rd, 0x13);
        return true;
    case OP_ADD:
    case OP_SUB:
    case OP_SLL:
    case OP_SLT:
    case OP_SLTU:
    case OP_XOR:
    case OP_SRL:
    case OP_SRA:
    case OP_OR:
    case OP_AND: {
        static const unsigned f3[] = {0, 0, 1, 2, 3, 4, 5, 5, 6, 7};
        unsigned f7 = (op == OP_SUB || op == OP_SRA) ? 0x20 : 0;
        *out = r_type(f7, rs2, rs1, f3[op - OP_ADD], rd, 0x33);
        return true;
    }
    case OP_ADDIW:
        if (!fits_s(imm, 12))
            return false;
        *out = i_type(imm, rs1, 0, rd, 0x1b);
        return true;
    case OP_SLLIW:
    case OP_SRLIW:
    case OP_SRAIW:
        if (imm < 0 || imm > 31)
            return false;
        *out = i_type(imm | (op == OP_SRAIW ? 0x400 : 0), rs1, op == OP_SLLIW ? 1 : 5, rd, 0x1b);
        return true;
    case OP_ADDW:
    case OP_SUBW:
    case OP_SLLW:
    case OP_SRLW:
    case OP_SRAW: {
        static const unsigned f3[] = {0, 0, 1, 5, 5};
        unsigned f7 = (op == OP_SUBW || op == OP_SRAW) ? 0x20 : 0;
        *out = r_type(f7, rs2, rs1, f3[op - OP_ADDW], rd, 0x3b);
        return true;
    }
    case OP_MUL:
    case OP_MULH:
    case OP_MULHSU:
    case OP_MULHU:
    case OP_DIV:
    case OP_DIVU:
    case OP_REM:
    case OP_REMU:
        *out = r_type(1, rs2, rs1, (unsigned)(op - OP_MUL), rd, 0x33);
        return true;
    case OP_MULW:
        *out = r_type(1, rs2, rs1, 0, rd, 0x3b);
        return true;
    case OP_DIVW:
    case OP_DIVUW:
    case OP_REMW:
    case OP_REMUW:
        *out = r_type(1, rs2, rs1, 4 + (unsigned)(op - OP_DIVW), rd, 0x3b);
        return true;
    case OP_FENCE: /* imm = pred << 4 | succ */
        if (!fits_u(imm, 8))
            return false;
        *out = (uint32_t)imm << 20 | 0x0f;
        return true;
    case OP_FENCE_I:
        *out = 0x0000100f;
        return true;
    case OP_ECALL:
        *out = 0x00000073;
        return true;
    case OP_EBREAK:
        *out = 0x00100073;
        return true;
    case OP_MRET:
        *out = 0x30200073;
        return true;
    case OP_SRET:
        *out = 0x10200073;
        return true;
    case OP_WFI:
        *out = 0x10500073;
        return true;
    case OP_SFENCE_VMA:
        *out = r_type(0x09, rs2, rs1, 0, 0, 0x73);
        return true;
    case OP_CSRRW:
    case OP_CSRRS:
    case OP_CSRRC:
        if (csr > 0xfff)
            return false;
        *out = (uint32_t)csr << 20 | (uint32_t)rs1 << 15 | (uint32_t)(1 + op - OP_CSRRW) << 12 |
               (uint32_t)rd << 7 | 0x73;
        return true;
    case OP_CSRRWI:
    case OP_CSRRSI:
    case OP_CSRRCI:
        if (csr > 0xfff || !fits_u(imm, 5))
            return false;
        *out = (uint32_t)csr << 20 | (uint32_t)imm << 15 | (uint32_t)(5 + op - OP_CSRRWI) << 12 |
               (uint32_t)rd << 7 | 0x73;
        return true;
    case OP_LR_W:
    case OP_SC_W:
    case OP_AMOSWAP_W:
    case OP_AMOADD_W:
    case OP_AMOXOR_W:
    case OP_AMOAND_W:
    case OP_AMOOR_W:
    case OP_LR_D:
    case OP_SC_D:
    case OP_AMOSWAP_D:
    case OP_AMOADD_D: {
        static const unsigned f5[] = {0x02, 0x03, 0x01, 0x00, 0x04, 0x0c, 0x08, 0x02, 0x03, 0x01, 0x00};
        unsigned i = (unsigned)(op - OP_LR_W);
        unsigned w = op >= OP_LR_D ? 3 : 2;
        unsigned src2 = (op == OP_LR_W || op == OP_LR_D) ? 0 : rs2;
        if (!fits_u(imm, 2)) /* aq, rl */
            return false;
        *out = (uint32_t)f5[i] << 27 | (uint32_t)imm << 25 | (uint32_t)src2 << 20 | (uint32_t)rs1 << 15 |
               (uint32_t)w << 12 | (uint32_t)rd << 7 | 0x2f;
        return true;
    }
    case OP_FLW:
    case OP_FLD:
        if (!fits_s(imm, 12))
            return false;
        *out = i_type(imm, rs1, op == OP_FLW ? 2 : 3, rd, 0x07);
        return true;
    case OP_FSW:
    case OP_FSD:
        if (!fits_s(imm, 12))
            return false;
        *out = s_type(imm, rs2, rs1, op == OP_FSW ? 2 : 3, 0x27);
        return true;
    case OP_FMADD_S:
    case OP_FMADD_D: /* rs3 in imm; dynamic rounding */
        if (!fits_u(imm, 5))
            return false;
        *out = (uint32_t)imm << 27 | (op == OP_FMADD_D ? 1u : 0u) << 25 | (uint32_t)rs2 << 20 | (uint32_t)rs1 << 15 |
               7u << 12 | (uint32_t)rd << 7 | 0x43;
        return true;
    default: {
        /* OP-FP: funct7 = funct5 << 2 | fmt, rm/funct3, rs2 selector */
        unsigned f5, fmt, f3, r2 = rs2;
        switch (op) {
        case OP_FADD_S: case OP_FADD_D: f5 = 0x00; f3 = 7; break;
        case OP_FSUB_S: case OP_FSUB_D: f5 = 0x01; f3 = 7; break;
        case OP_FMUL_S: case OP_FMUL_D: f5 = 0x02; f3 = 7; break;
        case OP_FDIV_S: case OP_FDIV_D: f5 = 0x03; f3 = 7; break;
        case OP_FSGNJ_S: case OP_FSGNJ_D: f5 = 0x04; f3 = 0; break;
        case OP_FMIN_S: case OP_FMIN_D: f5 = 0x05; f3 = 0; break;
        case OP_FMAX_S: case OP_FMAX_D: f5 = 0x05; f3 = 1; break;
        case OP_FEQ_S: case OP_FEQ_D: f5 = 0x14; f3 = 2; break;
        case OP_FLT_S: case OP_FLT_D: f5 = 0x14; f3 = 1; break;
        case OP_FLE_S: case OP_FLE_D: f5 = 0x14; f3 = 0; break;
        case OP_FCVT_W_S: case OP_FCVT_W_D: f5 = 0x18; f3 = 1; r2 = 0; break; /* rtz */
        case OP_FCVT_S_W: case OP_FCVT_D_W: f5 = 0x1a; f3 = 7; r2 = 0; break;
        case OP_FCVT_D_S: f5 = 0x08; f3 = 7; r2 = 0; break;
        case OP_FCVT_S_D: f5 = 0x08; f3 = 7; r2 = 1; break;
        case OP_FMV_X_W: case OP_FMV_X_D: f5 = 0x1c; f3 = 0; r2 = 0; break;
        case OP_FMV_W_X: case OP_FMV_D_X: f5 = 0x1e; f3 = 0; r2 = 0; break;
        default: return false;
        }
        switch (op) {
        case OP_FADD_D: case OP_FSUB_D: case OP_FMUL_D: case OP_FDIV_D: case OP_FSGNJ_D: case OP_FMIN_D:
        case OP_FMAX_D: case OP_FEQ_D: case OP_FLT_D: case OP_FLE_D: case OP_FCVT_W_D: case OP_FCVT_D_W:
        case OP_FCVT_D_S: case OP_FMV_X_D: case OP_FMV_D_X:
            fmt = 1;
            break;
        default:
            fmt = 0;
            break;
        }
        *out = r_type(f5 << 2 | fmt, r2, rs1, f3, rd, 0x53);
        return true;
    }
    }
    return false;
}

static bool encode16(enum gop op, enum gform f, unsigned rd, unsigned rs1, unsigned rs2, int64_t imm,
                     unsigned xlen, uint32_t *out)
{
    switch (f) {
    case FM_C_ADDI4SPN:
        if (op != OP_ADDI || rs1 != SP || !reg_is_compressible(rd) || imm <= 0 || imm > 1020 || (imm & 3))
            return false;
        *out = bits_of(imm, 5, 4) << 11 | bits_of(imm, 9, 6) << 7 | bit(imm, 2) << 6 | bit(imm, 3) << 5 |
               creg(rd) << 2 | 0x0;
        return true;
    case FM_C_LW:
    case FM_C_SW: {
        unsigned data = f == FM_C_LW ? rd : rs2;
        if (op != (f == FM_C_LW ? OP_LW : OP_SW) || !reg_is_compressible(rs1) || !reg_is_compressible(data) ||
            imm < 0 || imm > 124 || (imm & 3))
            return false;
        *out = (f == FM_C_LW ? 2u : 6u) << 13 | bits_of(imm, 5, 3) << 10 | creg(rs1) << 7 | bit(imm, 2) << 6 |
               bit(imm, 6) << 5 | creg(data) << 2;
        return true;
    }
    case FM_C_LD:
    case FM_C_SD: {
        unsigned data = f == FM_C_LD ? rd : rs2;
        if (xlen != 64 || op != (f == FM_C_LD ? OP_LD : OP_SD) || !reg_is_compressible(rs1) ||
            !reg_is_compressible(data) || imm < 0 || imm > 248 || (imm & 7))
            return false;
        *out = (f == FM_C_LD ? 3u : 7u) << 13 | bits_of(imm, 5, 3) << 10 | creg(rs1) << 7 |
               bits_of(imm, 7, 6) << 5 | creg(data) << 2;
        return true;
    }
    case FM_C_NOP:
        if (op != OP_ADDI || rd != 0 || rs1 != 0 || imm != 0)
            return false;
        *out = 0x0001;
        return true;
    case FM_C_ADDI:
        if (op != OP_ADDI || rd != rs1 || rd == 0 || imm == 0 || !fits_s(imm, 6))
            return false;
        *out = bit(imm, 5) << 12 | (uint32_t)rd << 7 | bits_of(imm, 4, 0) << 2 | 0x1;
        return true;
    case FM_C_JAL:
        if (xlen != 32 || op != OP_JAL || rd != RA || !fits_s(imm, 12) || (imm & 1))
            return false;
        *out = 1u << 13 | cj_off(imm) | 0x1;
        return true;
    case FM_C_ADDIW:
        if (xlen != 64 || op != OP_ADDIW || rd != rs1 || rd == 0 || !fits_s(imm, 6))
            return false;
        *out = 1u << 13 | bit(imm, 5) << 12 | (uint32_t)rd << 7 | bits_of(imm, 4, 0) << 2 | 0x1;
        return true;
    case FM_C_LI:
        if (op != OP_ADDI || rs1 != 0 || rd == 0 || !fits_s(imm, 6))
            return false;
        *out = 2u << 13 | bit(imm, 5) << 12 | (uint32_t)rd << 7 | bits_of(imm, 4, 0) << 2 | 0x1;
        return true;
    case FM_C_ADDI16SP:
        if (op != OP_ADDI || rd != SP || rs1 != SP || imm == 0 || (imm & 15) || imm < -512 || imm > 496)
            return false;
        *out = 3u << 13 | bit(imm, 9) << 12 | 2u << 7 | bit(imm, 4) << 6 | bit(imm, 6) << 5 |
               bits_of(imm, 8, 7) << 3 | bit(imm, 5) << 2 | 0x1;
        return true;
    case FM_C_LUI: {
        int64_t v = sext20(imm);
        if (op != OP_LUI || rd == 0 || rd == SP || v == 0 || !fits_s(v, 6))
            return false;
        *out = 3u << 13 | bit(v, 5) << 12 | (uint32_t)rd << 7 | bits_of(v, 4, 0) << 2 | 0x1;
        return true;
    }
    case FM_C_SRLI:
    case FM_C_SRAI:
        if (op != (f == FM_C_SRLI ? OP_SRLI : OP_SRAI) || rd != rs1 || !reg_is_compressible(rd) || imm <= 0 ||
            imm > (xlen == 64 ? 63 : 31))
            return false;
        *out = 4u << 13 | bit(imm, 5) << 12 | (f == FM_C_SRLI ? 0u : 1u) << 10 | creg(rd) << 7 |
               bits_of(imm, 4, 0) << 2 | 0x1;
        return true;
    case FM_C_ANDI:
        if (op != OP_ANDI || rd != rs1 || !reg_is_compressible(rd) || !fits_s(imm, 6))
            return false;
        *out = 4u << 13 | bit(imm, 5) << 12 | 2u << 10 | creg(rd) << 7 | bits_of(imm, 4, 0) << 2 | 0x1;
        return true;
    case FM_C_SUB:
    case FM_C_XOR:
    case FM_C_OR:
    case FM_C_AND:
    case FM_C_SUBW:
    case FM_C_ADDW: {
        static const enum gop ops[] = {OP_SUB, OP_XOR, OP_OR, OP_AND, OP_SUBW, OP_ADDW};
        static const unsigned f2[] = {0, 1, 2, 3, 0, 1};
        unsigned i = (unsigned)(f - FM_C_SUB);
        bool w = f >= FM_C_SUBW;
        if (op != ops[i] || rd != rs1 || !reg_is_compressible(rd) || !reg_is_compressible(rs2) ||
            (w && xlen != 64))
            return false;
        *out = 4u << 13 | (w ? 1u : 0u) << 12 | 3u << 10 | creg(rd) << 7 | f2[i] << 5 | creg(rs2) << 2 | 0x1;
        return true;
    }
    case FM_C_J:
        if (op != OP_JAL || rd != 0 || !fits_s(imm, 12) || (imm & 1))
            return false;
        *out = 5u << 13 | cj_off(imm) | 0x1;
        return true;
    case FM_C_BEQZ:
    case FM_C_BNEZ:
        if (op != (f == FM_C_BEQZ ? OP_BEQ : OP_BNE) || rs2 != 0 || !reg_is_compressible(rs1) ||
            !fits_s(imm, 9) || (imm & 1))
            return false;
        *out = (f == FM_C_BEQZ ? 6u : 7u) << 13 | cb_off(imm) | creg(rs1) << 7 | 0x1;
        return true;
    case FM_C_SLLI:
        if (op != OP_SLLI || rd != rs1 || rd == 0 || imm <= 0 || imm > (xlen == 64 ? 63 : 31))
            return false;
        *out = bit(imm, 5) << 12 | (uint32_t)rd << 7 | bits_of(imm, 4, 0) << 2 | 0x2;
        return true;
    case FM_C_LWSP:
        if (op != OP_LW || rs1 != SP || rd == 0 || imm < 0 || imm > 252 || (imm & 3))
            return false;
        *out = 2u << 13 | bit(imm, 5) << 12 | (uint32_t)rd << 7 | bits_of(imm, 4, 2) << 4 |
               bits_of(imm, 7, 6) << 2 | 0x2;
        return true;
    case FM_C_LDSP:
        if (xlen != 64 || op != OP_LD || rs1 != SP || rd == 0 || imm < 0 || imm > 504 || (imm & 7))
            return false;
        *out = 3u << 13 | bit(imm, 5) << 12 | (uint32_t)rd << 7 | bits_of(imm, 4, 3) << 5 |
               bits_of(imm, 8, 6) << 2 | 0x2;
        return true;
    case FM_C_JR:
    case FM_C_JALR:
        if (op != OP_JALR || rs1 == 0 || imm != 0 || rd != (f == FM_C_JR ? 0u : (unsigned)RA))
            return false;
        *out = 4u << 13 | (f == FM_C_JR ? 0u : 1u) << 12 | (uint32_t)rs1 << 7 | 0x2;
        return true;
    case FM_C_MV:
        if (op != OP_ADD || rs1 != 0 || rd == 0 || rs2 == 0)
            return false;
        *out = 4u << 13 | (uint32_t)rd << 7 | (uint32_t)rs2 << 2 | 0x2;
        return true;
    case FM_C_EBREAK:
        if (op != OP_EBREAK)
            return false;
        *out = 0x9002;
        return true;
    case FM_C_ADD:
        if (op != OP_ADD || rd != rs1 || rd == 0 || rs2 == 0)
            return false;
        *out = 4u << 13 | 1u << 12 | (uint32_t)rd << 7 | (uint32_t)rs2 << 2 | 0x2;
        return true;
    case FM_C_SWSP:
        if (op != OP_SW || rs1 != SP || imm < 0 || imm > 252 || (imm & 3))
            return false;
        *out = 6u << 13 | bits_of(imm, 5, 2) << 9 | bits_of(imm, 7, 6) << 7 | (uint32_t)rs2 << 2 | 0x2;
        return true;
    case FM_C_SDSP:
        if (xlen != 64 || op != OP_SD || rs1 != SP || imm < 0 || imm > 504 || (imm & 7))
            return false;
        *out = 7u << 13 | bits_of(imm, 5, 3) << 10 | bits_of(imm, 8, 6) << 7 | (uint32_t)rs2 << 2 | 0x2;
        return true;
    case FM_C_FLD:
    case FM_C_FSD:
    case FM_C_FLW:
    case FM_C_FSW: {
        bool ld = f == FM_C_FLD || f == FM_C_FLW, d = f == FM_C_FLD || f == FM_C_FSD;
        unsigned data = ld ? rd : rs2;
        enum gop want = d ? (ld ? OP_FLD : OP_FSD) : (ld ? OP_FLW : OP_FSW);
        if (op != want || (!d && xlen != 32) || !reg_is_compressible(rs1) || !reg_is_compressible(data) || imm < 0 ||
            imm > (d ? 248 : 124) || (imm & (d ? 7 : 3)))
            return false;
        static const unsigned f3[] = {[FM_C_FLD - FM_C_FLD] = 1, [FM_C_FSD - FM_C_FLD] = 5,
                                      [FM_C_FLW - FM_C_FLD] = 3, [FM_C_FSW - FM_C_FLD] = 7};
        uint32_t lo = d ? bits_of(imm, 7, 6) << 5 : (bit(imm, 2) << 6 | bit(imm, 6) << 5);
        *out = f3[f - FM_C_FLD] << 13 | bits_of(imm, 5, 3) << 10 | creg(rs1) << 7 | lo | creg(data) << 2;
        return true;
    }
    case FM_C_FLDSP:
        if (op != OP_FLD || rs1 != SP || imm < 0 || imm > 504 || (imm & 7))
            return false;
        *out = 1u << 13 | bit(imm, 5) << 12 | (uint32_t)rd << 7 | bits_of(imm, 4, 3) << 5 | bits_of(imm, 8, 6) << 2 |
               0x2;
        return true;
    case FM_C_FLWSP:
        if (xlen != 32 || op != OP_FLW || rs1 != SP || imm < 0 || imm > 252 || (imm & 3))
            return false;
        *out = 3u << 13 | bit(imm, 5) << 12 | (uint32_t)rd << 7 | bits_of(imm, 4, 2) << 4 | bits_of(imm, 7, 6) << 2 |
               0x2;
        return true;
    case FM_C_FSDSP:
        if (op != OP_FSD || rs1 != SP || imm < 0 || imm > 504 || (imm & 7))
            return false;
        *out = 5u << 13 | bits_of(imm, 5, 3) << 10 | bits_of(imm, 8, 6) << 7 | (uint32_t)rs2 << 2 | 0x2;
        return true;
    case FM_C_FSWSP:
        if (xlen != 32 || op != OP_FSW || rs1 != SP || imm < 0 || imm > 252 || (imm & 3))
            return false;
        *out = 7u << 13 | bits_of(imm, 5, 2) << 9 | bits_of(imm, 7, 6) << 7 | (uint32_t)rs2 << 2 | 0x2;
        return true;
    case FM_32:
    case FM__COUNT:
        break;
    }
    return false;
}

bool asm_encode(enum gop op, enum gform form, unsigned rd, unsigned rs1, unsigned rs2, int64_t imm,
                unsigned csr, unsigned xlen, uint32_t *bits)
{
    if ((unsigned)op >= OP__COUNT || rd > 31 || rs1 > 31 || rs2 > 31)
        return false;
    if (gop_table[op].rv64_only && xlen != 64)
        return false;
    if (form == FM_32)
        return encode32(op, rd, rs1, rs2, imm, csr, xlen, bits);
    return encode16(op, form, rd, rs1, rs2, imm, xlen, bits);
}

unsigned asm_compressed_forms(enum gop op, unsigned rd, unsigned rs1, unsigned rs2, int64_t imm,
                              unsigned xlen, bool pcrel, enum gform *forms)
{
    unsigned n = 0;
    uint32_t scratch;
#define TRY(f)                                                                                     \
    do {                                                                                           \
        if (encode16(op, f, rd, rs1, rs2, imm, xlen, &scratch))                                    \
            forms[n++] = f;                                                                        \
    } while (0)
    switch (op) {
    case OP_ADDI:
        TRY(FM_C_ADDI);
        TRY(FM_C_ADDI16SP);
        TRY(FM_C_ADDI4SPN);
        TRY(FM_C_LI);
        TRY(FM_C_NOP);
        break;
    case OP_ADDIW:
        TRY(FM_C_ADDIW);
        break;
    case OP_LUI:
        TRY(FM_C_LUI);
        break;
    case OP_SLLI:
        TRY(FM_C_SLLI);
        break;
    case OP_SRLI:
        TRY(FM_C_SRLI);
        break;
    case OP_SRAI:
        TRY(FM_C_SRAI);
        break;
    case OP_ANDI:
        TRY(FM_C_ANDI);
        break;
    case OP_SUB:
        TRY(FM_C_SUB);
        break;
    case OP_XOR:
        TRY(FM_C_XOR);
        break;
    case OP_OR:
        TRY(FM_C_OR);
        break;
    case OP_AND:
        TRY(FM_C_AND);
        break;
    case OP_SUBW:
        TRY(FM_C_SUBW);
        break;
    case OP_ADDW:
        TRY(FM_C_ADDW);
        break;
    case OP_ADD:
        TRY(FM_C_ADD);
        TRY(FM_C_MV);
        break;
    case OP_LW:
        TRY(FM_C_LW);
        TRY(FM_C_LWSP);
        break;
    case OP_LD:
        TRY(FM_C_LD);
        TRY(FM_C_LDSP);
        break;
    case OP_SW:
        TRY(FM_C_SW);
        TRY(FM_C_SWSP);
        break;
    case OP_SD:
        TRY(FM_C_SD);
        TRY(FM_C_SDSP);
        break;
    case OP_JAL:
        if (pcrel) {
            if (rd == 0)
                forms[n++] = FM_C_J;
            else if (rd == RA && xlen == 32)
                forms[n++] = FM_C_JAL;
        } else {
            TRY(FM_C_J);
            TRY(FM_C_JAL);
        }
        break;
    case OP_JALR:
        TRY(FM_C_JR);
        TRY(FM_C_JALR);
        break;
    case OP_BEQ:
    case OP_BNE:
        if (pcrel) {
            if (rs2 == 0 && reg_is_compressible(rs1))
                forms[n++] = op == OP_BEQ ? FM_C_BEQZ : FM_C_BNEZ;
        } else {
            TRY(FM_C_BEQZ);
            TRY(FM_C_BNEZ);
        }
        break;
    case OP_EBREAK:
        TRY(FM_C_EBREAK);
        break;
    case OP_FLD:
        TRY(FM_C_FLD);
        TRY(FM_C_FLDSP);
        break;
    case OP_FSD:
        TRY(FM_C_FSD);
        TRY(FM_C_FSDSP);
        break;
    case OP_FLW:
        TRY(FM_C_FLW);
        TRY(FM_C_FLWSP);
        break;
    case OP_FSW:
        TRY(FM_C_FSW);
        TRY(FM_C_FSWSP);
        break;
    default:
        break;
    }
#undef TRY
    return n;
}
