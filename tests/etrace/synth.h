/* Test helper: small RISC-V programs and executions for E-Trace round trips.
 *
 * An assembler for the handful of instructions the tests need, a random
 * program builder (functions of basic blocks ending in branches, calls,
 * returns, indirect and sequentially inferable jumps, ecalls) and a random
 * executor of it (branch outcomes, indirect targets, mismatched returns,
 * recursion, interrupts and exceptions into an M-mode handler that returns
 * with mret, nested traps, context changes).  The executor feeds the shared
 * ingress builder, so the records are exactly what the other readers make. */
#ifndef ET_SYNTH_H
#define ET_SYNTH_H

#include "rvtrace/rvtrace.h"

#include <stdbool.h>
#include <stdint.h>

/* ---- assembler ---------------------------------------------------------- */

struct as {
    uint8_t *buf;
    size_t len, cap;
    uint64_t base;
};
void as_init(struct as *a, uint64_t base);
void as_free(struct as *a);
uint64_t as_pc(const struct as *a);
void as_u32(struct as *a, uint32_t w);
void as_u16(struct as *a, uint16_t h);
/* Patch a 32-bit word at an address already emitted. */
void as_patch32(struct as *a, uint64_t at, uint32_t w);

uint32_t enc_addi(unsigned rd, unsigned rs1, int32_t imm);
uint32_t enc_lui(unsigned rd, int32_t imm20);
uint32_t enc_auipc(unsigned rd, int32_t imm20);
uint32_t enc_jal(unsigned rd, int32_t off);
uint32_t enc_jalr(unsigned rd, unsigned rs1, int32_t imm);
uint32_t enc_branch(unsigned funct3, unsigned rs1, unsigned rs2, int32_t off);
uint16_t enc_c_addi(unsigned rd, int32_t imm);
uint16_t enc_c_j(int32_t off);
uint16_t enc_c_jr(unsigned rs1);
uint16_t enc_c_jalr(unsigned rs1);
uint16_t enc_c_beqz(unsigned rs1p, int32_t off);
#define ENC_ECALL 0x00000073u
#define ENC_MRET 0x30200073u

/* ---- random programs and executions -------------------------------------- */

struct synth_opts {
    unsigned xlen;          /* 32 or 64 */
    uint64_t base;          /* code address */
    unsigned funcs;         /* functions */
    unsigned blocks;        /* basic blocks per function */
    uint64_t insns;         /* instructions to execute */
    unsigned seed;
    /* probabilities in 1/1000 */
    unsigned p_interrupt;   /* per instruction */
    unsigned p_fault;       /* per instruction: an exception at it */
    unsigned p_mismatch;    /* a return goes elsewhere than its call site */
    unsigned p_context;     /* a context change (precise) per instruction */
    unsigned p_ctx_imprecise;/* ...of which imprecise (1/1000 of changes) */
    unsigned max_depth;     /* call depth cap (deep recursion when large) */
    bool ecalls;            /* user code contains trapping ecalls */
    bool privilege;         /* user code in U, handler in M (else all M) */
    bool merge_blocks;      /* multi-instruction records */
    bool same_cycle;        /* mark some records as retired in the same cycle */
    bool with_time;
};
void synth_default(struct synth_opts *o, unsigned seed, unsigned xlen);

struct synth {
    struct rvt_image *img;
    struct rvt_ing_rec *recs;
    size_t nrecs, caprecs;
    uint64_t *pcs;          /* every retired instruction, in order */
    uint8_t *privs;         /* ...and its privilege */
    size_t npcs, cappcs;
};

/* Build program and execution.  Returns 0 or <0 (message on stderr). */
int synth_run(struct synth *s, const struct synth_opts *o);
void synth_free(struct synth *s);

#endif
