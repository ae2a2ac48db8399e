/* rvtrace — RISC-V instruction length and control-flow classification.
 *
 * One classifier for the whole project: the ingress builder, the image's
 * block cache, the generator and every encoder/decoder use it.  Classes
 * follow the E-Trace ingress-port itype table (ingressPort.adoc) with the
 * x1/x5 link-register rules; the few classes whose itype is dynamic
 * (branch taken/not taken, ecall/ebreak traps) have their own values.
 */
#ifndef RVTRACE_ISA_H
#define RVTRACE_ISA_H
#pragma GCC visibility push(default) /* exported: the public API (CMakeLists.txt) */

#include "rvtrace/common.h"
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Control-flow class of one instruction.  Values 3 and 8..15 equal the
 * ingress itype code the instruction retires with (4-bit itype). */
enum rvt_cf {
    RVT_CF_NONE = 0,         /* sequential (includes illegal: see insn.valid) */
    RVT_CF_TRAPRET = 3,      /* mret, sret, uret, dret (uninferable) */
    RVT_CF_BRANCH = 4,       /* conditional branch: itype 4 or 5 when retired */
    RVT_CF_CALL_UNINF = 8,   /* jalr x1/x5 (rs not the other link) / c.jalr */
    RVT_CF_CALL_INF = 9,     /* jal x1/x5, c.jal */
    RVT_CF_JUMP_UNINF = 10,  /* jalr x0, rs (rs not link) / c.jr */
    RVT_CF_JUMP_INF = 11,    /* jal x0, c.j */
    RVT_CF_COSWAP = 12,      /* jalr x1,x5 / jalr x5,x1 / c.jalr x5 */
    RVT_CF_RETURN = 13,      /* jalr rd(not link), x1/x5 / c.jr x1/x5 */
    RVT_CF_OTHER_UNINF = 14, /* jalr with other link register */
    RVT_CF_OTHER_INF = 15,   /* jal rd, rd not x0/x1/x5 */
    RVT_CF_ECALL = 16,       /* ecall: traps (system) or falls through (user emu) */
    RVT_CF_EBREAK = 17       /* ebreak / c.ebreak: traps */
};

/* True for classes whose target is not in the opcode. */
static inline bool rvt_cf_uninferable(unsigned cf)
{
    return cf == RVT_CF_TRAPRET || cf == RVT_CF_CALL_UNINF || cf == RVT_CF_JUMP_UNINF ||
           cf == RVT_CF_COSWAP || cf == RVT_CF_RETURN || cf == RVT_CF_OTHER_UNINF;
}
/* True for jal-type classes (static target). */
static inline bool rvt_cf_inferable_jump(unsigned cf)
{
    return cf == RVT_CF_CALL_INF || cf == RVT_CF_JUMP_INF || cf == RVT_CF_OTHER_INF;
}
/* True for calls (push a return address): inferable/uninferable calls and coroutine swaps. */
static inline bool rvt_cf_is_call(unsigned cf)
{
    return cf == RVT_CF_CALL_INF || cf == RVT_CF_CALL_UNINF || cf == RVT_CF_COSWAP;
}

/* Register-level facts the trace layers need beyond the class. */
enum rvt_insn_flags {
    RVT_IF_VALID = 1u << 0,      /* a defined instruction for the given xlen/extensions */
    RVT_IF_COMPRESSED = 1u << 1, /* 16-bit encoding */
    RVT_IF_LOADS_CONST = 1u << 2,/* auipc / lui / c.lui, rd != 0: rd holds a value known from code */
    RVT_IF_LOAD = 1u << 3,       /* reads memory (incl. AMO, LR) */
    RVT_IF_STORE = 1u << 4,      /* writes memory (incl. AMO, SC) */
    RVT_IF_WRITES_RD = 1u << 5,  /* writes integer register rd (rd != 0) */
    RVT_IF_FP_RD = 1u << 6,      /* writes floating-point register rd (WRITES_RD then clear) */
    RVT_IF_CSR = 1u << 7,        /* Zicsr */
    RVT_IF_WFI = 1u << 8,
    RVT_IF_FENCE = 1u << 9
};

/* A decoded instruction.  `target` is meaningful when RVT_CF_BRANCH or an
 * inferable jump (pc-relative target, masked to xlen); for LOADS_CONST it is
 * the constant rd receives (auipc: pc + imm; lui: imm).
 * Register fields hold full register numbers (compressed x8..x15 forms
 * expanded, implicit sp/ra filled in); FP registers use the same fields.
 * `imm` is the sign-extended immediate the operation adds (lui/auipc: the
 * shifted value; shifts: shamt; branches/jumps: the pc offset; csr*: the
 * CSR number, with the 5-bit immediate of csr*i in rs1).  Illegal bits
 * keep `op` when the encoding has a recognisable shape, for display. */
struct rvt_insn {
    uint64_t pc;
    uint64_t target;
    int64_t imm;
    uint32_t bits;      /* raw bits (low 16 meaningful when compressed) */
    uint16_t flags;     /* enum rvt_insn_flags */
    uint16_t op;        /* mnemonic id for the disassembler (enum in isa/opcodes) */
    uint8_t len;        /* bytes: 2, 4, or 6/8 for long encodings (never executed by us); 0 if bits reserved */
    uint8_t cf;         /* enum rvt_cf */
    uint8_t rd, rs1, rs2;
    uint8_t mem_size;   /* bytes accessed by loads/stores, 0 otherwise */
};

/* Instruction length in bytes from the low 16 bits: 2, 4, 6, 8, or 0 for
 * the >=80-bit encodings (bits[6:0]==0x7f), none of which is defined. */
unsigned rvt_isa_length(uint16_t low16);

/* Decode one instruction at pc.  `bits` holds at least the instruction's
 * bytes (little endian).  xlen is 32 or 64.  Always fills *out (class NONE
 * and VALID clear for illegal bits) and returns 0; returns -RVT_ERR_INVAL
 * only for a bad xlen. */
int rvt_isa_decode(uint32_t bits, uint64_t pc, unsigned xlen, struct rvt_insn *out);

/* Is the uninferable jump `jump` sequentially inferable given the
 * instruction `prev` retired immediately before it (auipc/lui/c.lui writing
 * jump's rs1)?  If so, stores the jump target in *target. */
bool rvt_isa_sijump_target(const struct rvt_insn *prev, const struct rvt_insn *jump, unsigned xlen,
                           uint64_t *target);

/* The data access an instruction makes, in the ingress port's dtype
 * encoding (enum rvt_dtype in ingress.h): loads (also LR and FP loads)
 * load, stores (also FP stores) store, AMOs their atomic type (the unsigned
 * max/min as max/min: the dtype table has no unsigned kinds), Zicsr
 * instructions CSR read-write/set/clear.  A store-conditional returns
 * RVT_ISA_DATA_SC: its dtype is its outcome (store, or conditional store
 * failure).  -1: no data access. */
#define RVT_ISA_DATA_SC 16
int rvt_isa_data_access(const struct rvt_insn *in);

/* Return address of a call/coswap at insn (pc + len), masked to xlen. */
static inline uint64_t rvt_isa_next_pc(const struct rvt_insn *in, unsigned xlen)
{
    uint64_t n = in->pc + in->len;
    return xlen == 32 ? (n & 0xffffffffu) : n;
}

/* objdump-style disassembly ("beq a0,a1,20010544", "c.jr ra" is printed as
 * "ret" like objdump).  Writes at most size bytes (always NUL-terminated
 * when size > 0) and returns the full text length, like snprintf. */
int rvt_isa_disasm(const struct rvt_insn *in, unsigned xlen, char *buf, size_t size);

/* Name of a control-flow class ("branch", "call", "return" ...). */
const char *rvt_cf_name(unsigned cf);

#ifdef __cplusplus
}
#endif
#pragma GCC visibility pop
#endif
