/* Generator: the small assembler — operations, encodings and their 16-bit
 * forms.  Only what the generator emits; the shared classifier (isa) checks
 * every word this produces. */
#ifndef RVT_GEN_ASM_H
#define RVT_GEN_ASM_H

#include <stdbool.h>
#include <stdint.h>

/* Base operations (semantics).  A compressed instruction is a base
 * operation with a 16-bit form (enum gform). */
enum gop {
    OP_LUI,
    OP_AUIPC,
    OP_JAL,
    OP_JALR,
    OP_BEQ,
    OP_BNE,
    OP_BLT,
    OP_BGE,
    OP_BLTU,
    OP_BGEU,
    OP_LB,
    OP_LH,
    OP_LW,
    OP_LD,
    OP_LBU,
    OP_LHU,
    OP_LWU,
    OP_SB,
    OP_SH,
    OP_SW,
    OP_SD,
    OP_ADDI,
    OP_SLTI,
    OP_SLTIU,
    OP_XORI,
    OP_ORI,
    OP_ANDI,
    OP_SLLI,
    OP_SRLI,
    OP_SRAI,
    OP_ADD,
    OP_SUB,
    OP_SLL,
    OP_SLT,
    OP_SLTU,
    OP_XOR,
    OP_SRL,
    OP_SRA,
    OP_OR,
    OP_AND,
    OP_ADDIW,
    OP_SLLIW,
    OP_SRLIW,
    OP_SRAIW,
    OP_ADDW,
    OP_SUBW,
    OP_SLLW,
    OP_SRLW,
    OP_SRAW,
    OP_MUL,
    OP_MULH,
    OP_MULHSU,
    OP_MULHU,
    OP_DIV,
    OP_DIVU,
    OP_REM,
    OP_REMU,
    OP_MULW,
    OP_DIVW,
    OP_DIVUW,
    OP_REMW,
    OP_REMUW,
    OP_FENCE,
    OP_FENCE_I,
    OP_ECALL,
    OP_EBREAK,
    OP_MRET,
    OP_SRET,
    OP_WFI,
    OP_SFENCE_VMA,
    OP_CSRRW,
    OP_CSRRS,
    OP_CSRRC,
    OP_CSRRWI,
    OP_CSRRSI,
    OP_CSRRCI,
    OP_LR_W,
    OP_SC_W,
    OP_AMOSWAP_W,
    OP_AMOADD_W,
    OP_AMOXOR_W,
    OP_AMOAND_W,
    OP_AMOOR_W,
    OP_LR_D,
    OP_SC_D,
    OP_AMOSWAP_D,
    OP_AMOADD_D,
    /* F and D */
    OP_FLW,
    OP_FLD,
    OP_FSW,
    OP_FSD,
    OP_FADD_S,
    OP_FSUB_S,
    OP_FMUL_S,
    OP_FDIV_S,
    OP_FSGNJ_S,
    OP_FMIN_S,
    OP_FMAX_S,
    OP_FADD_D,
    OP_FSUB_D,
    OP_FMUL_D,
    OP_FDIV_D,
    OP_FSGNJ_D,
    OP_FMIN_D,
    OP_FMAX_D,
    OP_FMADD_S,  /* rs3 in imm */
    OP_FMADD_D,
    OP_FEQ_S,
    OP_FLT_S,
    OP_FLE_S,
    OP_FEQ_D,
    OP_FLT_D,
    OP_FLE_D,
    OP_FCVT_W_S,
    OP_FCVT_S_W,
    OP_FCVT_W_D,
    OP_FCVT_D_W,
    OP_FCVT_D_S,
    OP_FCVT_S_D,
    OP_FMV_X_W,
    OP_FMV_W_X,
    OP_FMV_X_D,
    OP_FMV_D_X,
    OP__COUNT
};

/* Encoding forms: FM_32 is the 32-bit encoding of the base operation. */
enum gform {
    FM_32 = 0,
    FM_C_ADDI4SPN,
    FM_C_LW,
    FM_C_LD,
    FM_C_SW,
    FM_C_SD,
    FM_C_NOP,
    FM_C_ADDI,
    FM_C_JAL,
    FM_C_ADDIW,
    FM_C_LI,
    FM_C_ADDI16SP,
    FM_C_LUI,
    FM_C_SRLI,
    FM_C_SRAI,
    FM_C_ANDI,
    FM_C_SUB,
    FM_C_XOR,
    FM_C_OR,
    FM_C_AND,
    FM_C_SUBW,
    FM_C_ADDW,
    FM_C_J,
    FM_C_BEQZ,
    FM_C_BNEZ,
    FM_C_SLLI,
    FM_C_LWSP,
    FM_C_LDSP,
    FM_C_JR,
    FM_C_MV,
    FM_C_EBREAK,
    FM_C_JALR,
    FM_C_ADD,
    FM_C_SWSP,
    FM_C_SDSP,
    FM_C_FLD,
    FM_C_FSD,
    FM_C_FLW,   /* RV32 */
    FM_C_FSW,   /* RV32 */
    FM_C_FLDSP,
    FM_C_FSDSP,
    FM_C_FLWSP, /* RV32 */
    FM_C_FSWSP, /* RV32 */
    FM__COUNT
};

/* Operation classes for the simulator and the statement generator. */
enum gop_kind {
    GK_ALU,    /* writes rd from rs1/rs2/imm */
    GK_LOAD,
    GK_STORE,
    GK_BRANCH,
    GK_JAL,
    GK_JALR,
    GK_SYSTEM, /* ecall/ebreak/xret/wfi/fences/sfence */
    GK_CSR,
    GK_AMO,    /* lr/sc/amo */
    GK_FLOAD,  /* load into an FP register */
    GK_FSTORE, /* store an FP register */
    GK_FP      /* FP arithmetic, compares, moves, conversions */
};

/* Which operands are FP registers (struct gop_info.fpr). */
enum { FPR_RD = 1, FPR_RS1 = 2, FPR_RS2 = 4, FPR_RS3 = 8 };

struct gop_info {
    const char *name;
    uint8_t kind;     /* enum gop_kind */
    uint8_t size;     /* memory access bytes */
    bool rv64_only;
    bool uses_imm;    /* I/S/B/U/J immediate */
    uint8_t fpr;      /* FPR_* */
};
extern const struct gop_info gop_table[OP__COUNT];

/* Encode op in a form.  imm is the immediate (for branches and jumps the
 * byte offset from the instruction; for lui/auipc the 20-bit value in bits
 * 31:12, i.e. imm = value >> 12, sign or not).  csr for CSR ops.  Returns
 * false if the operands do not fit the form. */
bool asm_encode(enum gop op, enum gform form, unsigned rd, unsigned rs1, unsigned rs2, int64_t imm,
                unsigned csr, unsigned xlen, uint32_t *bits);
/* Length in bytes of a form. */
static inline unsigned asm_form_len(enum gform f)
{
    return f == FM_32 ? 4u : 2u;
}
/* The 16-bit forms that could hold (op, rd, rs1, rs2, imm) for this xlen,
 * written to forms[] (at most 4); returns how many.  For branches/jumps the
 * offset is not checked (relaxation does that). */
unsigned asm_compressed_forms(enum gop op, unsigned rd, unsigned rs1, unsigned rs2, int64_t imm,
                              unsigned xlen, bool pcrel, enum gform *forms);
/* The name of a form ("c.addi"), for messages. */
const char *asm_form_name(enum gform f);

/* Registers by ABI name. */
enum {
    X0 = 0, RA = 1, SP = 2, GP = 3, TP = 4, T0 = 5, T1 = 6, T2 = 7, S0 = 8, S1 = 9,
    A0 = 10, A1, A2, A3, A4, A5, A6, A7,
    S2 = 18, S3, S4, S5, S6, S7, S8, S9, S10, S11,
    T3 = 28, T4, T5, T6
};

/* CSR numbers the generator uses. */
enum {
    CSR_SSTATUS = 0x100,
    CSR_SIE = 0x104,
    CSR_STVEC = 0x105,
    CSR_SCOUNTEREN = 0x106,
    CSR_SSCRATCH = 0x140,
    CSR_SEPC = 0x141,
    CSR_SCAUSE = 0x142,
    CSR_STVAL = 0x143,
    CSR_SIP = 0x144,
    CSR_SATP = 0x180,
    CSR_SCONTEXT = 0x5a8,
    CSR_MSTATUS = 0x300,
    CSR_MISA = 0x301,
    CSR_MEDELEG = 0x302,
    CSR_MIDELEG = 0x303,
    CSR_MIE = 0x304,
    CSR_MTVEC = 0x305,
    CSR_MCOUNTEREN = 0x306,
    CSR_MSCRATCH = 0x340,
    CSR_MEPC = 0x341,
    CSR_MCAUSE = 0x342,
    CSR_MTVAL = 0x343,
    CSR_MIP = 0x344,
    CSR_MCONTEXT = 0x7a8,
    CSR_MCYCLE = 0xb00,
    CSR_MINSTRET = 0xb02,
    CSR_CYCLE = 0xc00,
    CSR_TIME = 0xc01,
    CSR_INSTRET = 0xc02,
    CSR_MHARTID = 0xf14,
    CSR_FCSR = 0x003,
    /* Custom user read-only CSR: a hardware entropy source (random values
     * for loop counts and table indexes). */
    CSR_ENTROPY = 0xcc0
};

static inline bool reg_is_compressible(unsigned r)
{
    return r >= 8 && r <= 15;
}

#endif
