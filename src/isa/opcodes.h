/* rvtrace — mnemonic ids stored in rvt_insn.op (internal to the isa layer
 * and its tests).  One id per base encoding; compressed encodings have
 * their own ids so the disassembler can print the forms objdump uses for
 * them.  The second column is the canonical (no-alias) mnemonic. */
#ifndef RVT_ISA_OPCODES_H
#define RVT_ISA_OPCODES_H

#define RVT_OP_LIST(X)                                                                     \
    X(UNKNOWN, "unknown")                                                                  \
    /* RV32I / RV64I */                                                                    \
    X(LUI, "lui") X(AUIPC, "auipc") X(JAL, "jal") X(JALR, "jalr")                          \
    X(BEQ, "beq") X(BNE, "bne") X(BLT, "blt") X(BGE, "bge") X(BLTU, "bltu") X(BGEU, "bgeu") \
    X(LB, "lb") X(LH, "lh") X(LW, "lw") X(LD, "ld") X(LBU, "lbu") X(LHU, "lhu")            \
    X(LWU, "lwu") X(SB, "sb") X(SH, "sh") X(SW, "sw") X(SD, "sd")                          \
    X(ADDI, "addi") X(SLTI, "slti") X(SLTIU, "sltiu") X(XORI, "xori") X(ORI, "ori")        \
    X(ANDI, "andi") X(SLLI, "slli") X(SRLI, "srli") X(SRAI, "srai")                        \
    X(ADD, "add") X(SUB, "sub") X(SLL, "sll") X(SLT, "slt") X(SLTU, "sltu") X(XOR, "xor")  \
    X(SRL, "srl") X(SRA, "sra") X(OR, "or") X(AND, "and")                                  \
    X(ADDIW, "addiw") X(SLLIW, "slliw") X(SRLIW, "srliw") X(SRAIW, "sraiw")                \
    X(ADDW, "addw") X(SUBW, "subw") X(SLLW, "sllw") X(SRLW, "srlw") X(SRAW, "sraw")        \
    X(FENCE, "fence") X(FENCE_TSO, "fence.tso") X(FENCE_I, "fence.i")                      \
    /* privileged */                                                                       \
    X(ECALL, "ecall") X(EBREAK, "ebreak") X(URET, "uret") X(SRET, "sret") X(MRET, "mret")  \
    X(MNRET, "mnret") X(DRET, "dret") X(WFI, "wfi") X(SFENCE_VMA, "sfence.vma")            \
    X(HFENCE_VVMA, "hfence.vvma") X(HFENCE_GVMA, "hfence.gvma")                            \
    /* Zicsr */                                                                            \
    X(CSRRW, "csrrw") X(CSRRS, "csrrs") X(CSRRC, "csrrc") X(CSRRWI, "csrrwi")              \
    X(CSRRSI, "csrrsi") X(CSRRCI, "csrrci")                                                \
    /* M */                                                                                \
    X(MUL, "mul") X(MULH, "mulh") X(MULHSU, "mulhsu") X(MULHU, "mulhu") X(DIV, "div")      \
    X(DIVU, "divu") X(REM, "rem") X(REMU, "remu") X(MULW, "mulw") X(DIVW, "divw")          \
    X(DIVUW, "divuw") X(REMW, "remw") X(REMUW, "remuw")                                    \
    /* A: .w then .d, same order */                                                        \
    X(LR_W, "lr.w") X(SC_W, "sc.w") X(AMOSWAP_W, "amoswap.w") X(AMOADD_W, "amoadd.w")      \
    X(AMOXOR_W, "amoxor.w") X(AMOAND_W, "amoand.w") X(AMOOR_W, "amoor.w")                  \
    X(AMOMIN_W, "amomin.w") X(AMOMAX_W, "amomax.w") X(AMOMINU_W, "amominu.w")              \
    X(AMOMAXU_W, "amomaxu.w")                                                              \
    X(LR_D, "lr.d") X(SC_D, "sc.d") X(AMOSWAP_D, "amoswap.d") X(AMOADD_D, "amoadd.d")      \
    X(AMOXOR_D, "amoxor.d") X(AMOAND_D, "amoand.d") X(AMOOR_D, "amoor.d")                  \
    X(AMOMIN_D, "amomin.d") X(AMOMAX_D, "amomax.d") X(AMOMINU_D, "amominu.d")              \
    X(AMOMAXU_D, "amomaxu.d")                                                              \
    /* F and D: each .s id is immediately followed by its .d twin */                       \
    X(FLW, "flw") X(FLD, "fld") X(FSW, "fsw") X(FSD, "fsd")                                \
    X(FMADD_S, "fmadd.s") X(FMADD_D, "fmadd.d") X(FMSUB_S, "fmsub.s") X(FMSUB_D, "fmsub.d") \
    X(FNMSUB_S, "fnmsub.s") X(FNMSUB_D, "fnmsub.d") X(FNMADD_S, "fnmadd.s")                \
    X(FNMADD_D, "fnmadd.d")                                                                \
    X(FADD_S, "fadd.s") X(FADD_D, "fadd.d") X(FSUB_S, "fsub.s") X(FSUB_D, "fsub.d")        \
    X(FMUL_S, "fmul.s") X(FMUL_D, "fmul.d") X(FDIV_S, "fdiv.s") X(FDIV_D, "fdiv.d")        \
    X(FSQRT_S, "fsqrt.s") X(FSQRT_D, "fsqrt.d")                                            \
    X(FSGNJ_S, "fsgnj.s") X(FSGNJ_D, "fsgnj.d") X(FSGNJN_S, "fsgnjn.s")                    \
    X(FSGNJN_D, "fsgnjn.d") X(FSGNJX_S, "fsgnjx.s") X(FSGNJX_D, "fsgnjx.d")                \
    X(FMIN_S, "fmin.s") X(FMIN_D, "fmin.d") X(FMAX_S, "fmax.s") X(FMAX_D, "fmax.d")        \
    X(FCVT_S_D, "fcvt.s.d") X(FCVT_D_S, "fcvt.d.s")                                        \
    X(FEQ_S, "feq.s") X(FEQ_D, "feq.d") X(FLT_S, "flt.s") X(FLT_D, "flt.d")                \
    X(FLE_S, "fle.s") X(FLE_D, "fle.d") X(FCLASS_S, "fclass.s") X(FCLASS_D, "fclass.d")    \
    X(FCVT_W_S, "fcvt.w.s") X(FCVT_W_D, "fcvt.w.d") X(FCVT_WU_S, "fcvt.wu.s")              \
    X(FCVT_WU_D, "fcvt.wu.d") X(FCVT_L_S, "fcvt.l.s") X(FCVT_L_D, "fcvt.l.d")              \
    X(FCVT_LU_S, "fcvt.lu.s") X(FCVT_LU_D, "fcvt.lu.d")                                    \
    X(FCVT_S_W, "fcvt.s.w") X(FCVT_D_W, "fcvt.d.w") X(FCVT_S_WU, "fcvt.s.wu")              \
    X(FCVT_D_WU, "fcvt.d.wu") X(FCVT_S_L, "fcvt.s.l") X(FCVT_D_L, "fcvt.d.l")              \
    X(FCVT_S_LU, "fcvt.s.lu") X(FCVT_D_LU, "fcvt.d.lu")                                    \
    X(FMV_X_W, "fmv.x.w") X(FMV_X_D, "fmv.x.d") X(FMV_W_X, "fmv.w.x") X(FMV_D_X, "fmv.d.x") \
    /* C */                                                                                \
    X(C_ADDI4SPN, "c.addi4spn") X(C_FLD, "c.fld") X(C_LW, "c.lw") X(C_FLW, "c.flw")        \
    X(C_LD, "c.ld") X(C_FSD, "c.fsd") X(C_SW, "c.sw") X(C_FSW, "c.fsw") X(C_SD, "c.sd")    \
    X(C_NOP, "c.nop") X(C_ADDI, "c.addi") X(C_JAL, "c.jal") X(C_ADDIW, "c.addiw")          \
    X(C_LI, "c.li") X(C_ADDI16SP, "c.addi16sp") X(C_LUI, "c.lui") X(C_SRLI, "c.srli")      \
    X(C_SRAI, "c.srai") X(C_ANDI, "c.andi") X(C_SUB, "c.sub") X(C_XOR, "c.xor")            \
    X(C_OR, "c.or") X(C_AND, "c.and") X(C_SUBW, "c.subw") X(C_ADDW, "c.addw")              \
    X(C_J, "c.j") X(C_BEQZ, "c.beqz") X(C_BNEZ, "c.bnez") X(C_SLLI, "c.slli")              \
    X(C_FLDSP, "c.fldsp") X(C_LWSP, "c.lwsp") X(C_FLWSP, "c.flwsp") X(C_LDSP, "c.ldsp")    \
    X(C_JR, "c.jr") X(C_MV, "c.mv") X(C_EBREAK, "c.ebreak") X(C_JALR, "c.jalr")            \
    X(C_ADD, "c.add") X(C_FSDSP, "c.fsdsp") X(C_SWSP, "c.swsp") X(C_FSWSP, "c.fswsp")      \
    X(C_SDSP, "c.sdsp")

enum rvt_op {
#define RVT_OP_ENUM_(id, name) RVT_OP_##id,
    RVT_OP_LIST(RVT_OP_ENUM_)
#undef RVT_OP_ENUM_
    RVT_OP__COUNT
};

/* Canonical mnemonic of an op id ("unknown" for out-of-range ids). */
const char *rvt_isa_op_name(unsigned op);

#endif
