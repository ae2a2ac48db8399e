/* rvtrace — generator of random, valid RISC-V programs and their executions.
 *
 * A generated program is a real piece of bare-metal software: boot code,
 * optional M- and S-mode trap handlers with a scheduler, user processes, and
 * a pool of random functions (loops, recursion, calls and tail calls through
 * every link-register form, switch and function-pointer tables, auipc/lui +
 * jalr pairs, millicode save/restore through x5, co-routines, setjmp/longjmp
 * unwinding, exceptions of every common kind).  Its execution is produced by
 * running that code on a small instruction-set simulator: register values,
 * memory, CSRs, traps, delegation and trap returns follow the RISC-V
 * specifications, so every jump target is whatever the code computes.  The
 * only outside choices are random: the outcome of branches the generator
 * marked as data dependent, the value of an "entropy" CSR, and when
 * interrupts arrive.
 *
 * Layout: .text at one of 0x10000, 0x20000000 (RV32), 0x7ffff000 (code
 * straddles bit 31), 0x80000000, 0x240000000 and 0xffffffff80000000 (RV64),
 * or at config.text_base; with RVT_GEN_FARCODE a
 * .text.high segment ends one page below the top of the address space
 * (0xfffff000 / 0xfffffffffffff000).  .rodata (tables) and RAM (.data with
 * the globals and GOT, .bss with per-process areas and stacks) follow .text.
 * Code reaches other segments with auipc, lui, c.lui, GOT loads or
 * gp-relative sums, whichever the addresses allow.
 *
 * Traps: with TRAPS, INTERRUPTS, NESTED, PRIV or CONTEXT the program has
 * M-mode (and with PRIV S-mode) handlers; processes are started through the
 * handler's exit path.  PRIV and CONTEXT imply system calls (ecall) even
 * without TRAPS; NESTED without TRAPS or INTERRUPTS implies TRAPS.  An
 * exception's faulting instruction does not retire (its step carries
 * epc = its address); an interrupt is taken between two instructions.
 *
 * Everything is seeded: the same configuration gives the same ELF bytes and
 * the same execution, with any compiler.  Executions of any length stream
 * through a callback with memory bounded by the program's size.
 */
#ifndef RVTRACE_GEN_H
#define RVTRACE_GEN_H
#pragma GCC visibility push(default) /* exported: the public API (CMakeLists.txt) */

#include "rvtrace/common.h"
#include "rvtrace/image.h"
#include "rvtrace/ingress.h"
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Feature switches (struct rvt_gen_config.features). */
enum rvt_gen_feature {
    RVT_GEN_COMPRESSED = 1u << 0,  /* mix 16-bit (C extension) instructions */
    RVT_GEN_LOOPS = 1u << 1,       /* counted loops, periodic branch patterns */
    RVT_GEN_RECURSION = 1u << 2,   /* self, binary and mutual recursion (bounded) */
    RVT_GEN_TAILCALLS = 1u << 3,   /* functions ending in a jump to another function */
    RVT_GEN_TABLES = 1u << 4,      /* switch jump tables and function-pointer tables */
    RVT_GEN_SIJUMPS = 1u << 5,     /* auipc/lui/c.lui + jalr pairs (sequentially inferable) */
    RVT_GEN_ALTLINK = 1u << 6,     /* x5 calls/returns (millicode), jumps linking other registers */
    RVT_GEN_COROUTINES = 1u << 7,  /* co-routine swaps (jalr x1,x5 / jalr x5,x1) */
    RVT_GEN_LONGJMP = 1u << 8,     /* setjmp/longjmp: returns to an outer frame */
    RVT_GEN_FARCODE = 1u << 9,     /* a second code segment at the top of the address space */
    RVT_GEN_TRAPS = 1u << 10,      /* ecall, ebreak, illegal instruction, misaligned and
                                      page-fault-like loads/stores (synchronous, with tval) */
    RVT_GEN_INTERRUPTS = 1u << 11, /* asynchronous interrupts (software, timer, external) */
    RVT_GEN_NESTED = 1u << 12,     /* handlers re-enable interrupts and run code that traps */
    RVT_GEN_PRIV = 1u << 13,       /* M firmware, S kernel, U processes; mret/sret changes */
    RVT_GEN_CONTEXT = 1u << 14,    /* several processes; the scheduler switches `context` */
    RVT_GEN_TIME = 1u << 15,       /* time stamps on every retired instruction */
    RVT_GEN_DATA = 1u << 16,       /* register-write values, load/store addresses and values */
    RVT_GEN_ATOMICS = 1u << 17,    /* A extension: lr/sc retry loops, AMOs */
    RVT_GEN_FP = 1u << 18          /* F and D: FP loads/stores (c.fld ...), arithmetic, moves */
};

/* Control-flow variety that does not change the trace "mode": on by default. */
#define RVT_GEN_DEFAULT_FEATURES                                                                   \
    (RVT_GEN_COMPRESSED | RVT_GEN_LOOPS | RVT_GEN_RECURSION | RVT_GEN_TAILCALLS | RVT_GEN_TABLES | \
     RVT_GEN_SIJUMPS | RVT_GEN_ALTLINK | RVT_GEN_COROUTINES | RVT_GEN_LONGJMP | RVT_GEN_FARCODE |  \
     RVT_GEN_ATOMICS | RVT_GEN_FP)
/* Every feature. */
#define RVT_GEN_ALL_FEATURES                                                                       \
    (RVT_GEN_DEFAULT_FEATURES | RVT_GEN_TRAPS | RVT_GEN_INTERRUPTS | RVT_GEN_NESTED |              \
     RVT_GEN_PRIV | RVT_GEN_CONTEXT | RVT_GEN_TIME | RVT_GEN_DATA)

/* Name of one feature bit ("compressed", "traps" ...), NULL if unknown. */
const char *rvt_gen_feature_name(uint32_t feature);
/* The bit for a name, 0 if unknown. */
uint32_t rvt_gen_feature_parse(const char *name);

struct rvt_gen_config {
    size_t size;             /* sizeof(struct rvt_gen_config) */
    uint64_t seed;           /* program and execution */
    uint64_t run_seed;       /* execution choices only; 0: derived from seed */
    unsigned xlen;           /* 32 or 64 */
    uint64_t insns;          /* instructions the execution retires */
    uint32_t features;       /* enum rvt_gen_feature bits */

    /* Program shape. */
    unsigned functions;      /* random functions in the pool (>= 4) */
    unsigned processes;      /* processes when RVT_GEN_CONTEXT (>= 2), else 1 */
    unsigned max_recursion;  /* recursion depth bound (1..16) */
    unsigned max_loop_iters; /* loop trip count bound (1..64) */
    unsigned max_nesting;    /* trap nesting depth at which handlers stop re-enabling (1..8) */
    unsigned max_stmts;      /* statements per function body (1..200) */
    unsigned cost_limit;     /* expected instructions per call of one function, cap (>= 100) */

    /* Probabilities in percent (0..100) unless said otherwise. */
    unsigned p_compressed;   /* instructions with a 16-bit form that use it */
    unsigned p_call;         /* statement is a call */
    unsigned p_indirect;     /* a call/tail call goes through a register or table */
    unsigned p_branch_taken; /* mean taken rate of data-dependent branches */
    unsigned p_trap;         /* per mille: statement is an exception-raising instruction */
    unsigned p_syscall;      /* per mille: statement is a system call (with PRIV/CONTEXT) */
    unsigned p_longjmp;      /* a longjmp site actually unwinds */

    /* Execution timing. */
    unsigned interrupt_interval; /* mean instructions between interrupt requests (>= 10) */
    unsigned stall_max;          /* extra cycles an instruction may take (for `time`) */

    /* Placement: where .text starts (4 KiB aligned; 0: chosen by the seed). */
    uint64_t text_base;
};

/* Defaults: 64-bit, seed 1, 100000 instructions, RVT_GEN_DEFAULT_FEATURES. */
void rvt_gen_config_init(struct rvt_gen_config *cfg);

/* ---- programs ---------------------------------------------------------- */

struct rvt_gen_program;

/* A memory segment of the program.  Code and read-only tables have
 * filesz == memsz; RAM has its initialised globals as file bytes. */
enum rvt_gen_seg_flags {
    RVT_GEN_SEG_EXEC = 1u << 0,
    RVT_GEN_SEG_WRITE = 1u << 1
};
struct rvt_gen_segment {
    uint64_t addr;
    uint64_t filesz;
    uint64_t memsz;
    const uint8_t *data; /* filesz bytes */
    const char *name;    /* ".text", ".text.high", ".rodata", ".data" */
    uint32_t flags;      /* enum rvt_gen_seg_flags */
};

/* Generate a program.  Errors (bad configuration) are described in diag. */
int rvt_gen_program_new(struct rvt_gen_program **out, const struct rvt_gen_config *cfg,
                        struct rvt_diag *diag);
void rvt_gen_program_free(struct rvt_gen_program *p);

unsigned rvt_gen_xlen(const struct rvt_gen_program *p);
uint64_t rvt_gen_entry(const struct rvt_gen_program *p);
/* Features the program was built with (after implications, see gen.c). */
uint32_t rvt_gen_features(const struct rvt_gen_program *p);
size_t rvt_gen_segment_count(const struct rvt_gen_program *p);
const struct rvt_gen_segment *rvt_gen_segment(const struct rvt_gen_program *p, size_t i);
/* Function and object symbols (also written to the ELF .symtab). */
size_t rvt_gen_symbol_count(const struct rvt_gen_program *p);
const struct rvt_symbol *rvt_gen_symbol(const struct rvt_gen_program *p, size_t i);
/* Number of instructions laid out in code (each decoded and checked). */
uint64_t rvt_gen_code_insns(const struct rvt_gen_program *p);
/* Visit every instruction of the code: address, bits, length. */
int rvt_gen_for_each_insn(const struct rvt_gen_program *p,
                          int (*fn)(void *ctx, uint64_t pc, uint32_t bits, unsigned len), void *ctx);

/* ELF32/ELF64 little-endian RISC-V executable: PT_LOAD per segment, entry,
 * section headers, .symtab/.strtab.  In memory (malloc'd) or to a file. */
int rvt_gen_elf(const struct rvt_gen_program *p, uint8_t **buf, size_t *len);
int rvt_gen_write_elf(const struct rvt_gen_program *p, const char *path, struct rvt_diag *diag);
/* A code image of the program (loaded from its ELF); NULL on failure. */
struct rvt_image *rvt_gen_image(const struct rvt_gen_program *p);

/* ---- executions -------------------------------------------------------- */

/* One step of an execution: a retired instruction or a trap. */
enum rvt_gen_step_kind {
    RVT_GEN_STEP_INSN = 1,
    RVT_GEN_STEP_TRAP = 2
};
struct rvt_gen_step {
    uint8_t kind;      /* enum rvt_gen_step_kind */
    uint8_t len;       /* INSN: 2 or 4 */
    uint8_t priv;      /* INSN: privilege it ran at; TRAP: privilege trapped from */
    bool interrupt;    /* TRAP */
    uint32_t bits;     /* INSN */
    uint32_t cause;    /* TRAP */
    uint64_t pc;       /* INSN: its address; TRAP: epc */
    uint64_t tval;     /* TRAP */
    uint64_t context;
    struct rvt_ing_extra extra; /* INSN: time, rd value, memory access (per features) */
};
typedef int (*rvt_gen_step_fn)(void *ctx, const struct rvt_gen_step *s);

/* Run the program for cfg->insns retired instructions.  Of cfg only insns,
 * seed/run_seed, interrupt_interval and stall_max apply: everything else
 * (including the probabilities of data-dependent branches and longjmps) is
 * part of the program.  Each retired instruction and each trap is
 * passed to fn in order.  A non-zero return from fn stops the run and is
 * returned.  diag (may be NULL) explains errors. */
int rvt_gen_run_pcs(const struct rvt_gen_program *p, const struct rvt_gen_config *cfg,
                    rvt_gen_step_fn fn, void *ctx, struct rvt_diag *diag);

/* The same execution as E-Trace ingress records, built by the shared ingress
 * builder from the instruction bits (itype, iretire, ilastsize derived
 * there): one instruction per record, or sequential runs merged into
 * multi-instruction records with merge_blocks. */
int rvt_gen_run(const struct rvt_gen_program *p, const struct rvt_gen_config *cfg,
                rvt_ing_emit_fn emit, void *ctx, struct rvt_diag *diag);
int rvt_gen_run_ex(const struct rvt_gen_program *p, const struct rvt_gen_config *cfg,
                   bool merge_blocks, rvt_ing_emit_fn emit, void *ctx, struct rvt_diag *diag);

#ifdef __cplusplus
}
#endif
#pragma GCC visibility pop
#endif
