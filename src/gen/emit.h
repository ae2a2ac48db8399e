/* Generator: the program builder's shared state and emission helpers.
 *
 * Register conventions of generated code (what keeps executions sound):
 *   sp, gp (globals, constant), tp (per-process area, constant per process)
 *   ra / t0 link registers; t0 also links millicode and co-routines
 *   t1, t2    glue scratch: addresses for jumps, tables, CSR values
 *   t3-t6, a1-a7 (and a0 outside recursive functions): random values
 *   s0..s11   callee-saved: loop counters (s0, s1, s2 by nesting), extra
 *             scratch; saved by the prologue of every function using them
 *   a0        recursion depth argument
 */
#ifndef RVT_GEN_EMIT_H
#define RVT_GEN_EMIT_H

#include "gen/gen_internal.h"

#define LOOPMAX 3 /* loop nesting levels (loop counters s0, s1, s2) */
#define NSREG 12
extern const uint8_t g_sorder[NSREG];

/* Address windows assumed by the reachability rules (checked at layout). */
#define LOW_SPAN 0x40000000ull  /* .text, .rodata and RAM lie in [text_base, text_base + LOW_SPAN) */
#define HIGH_SPAN 0x1f000ull    /* .text.high lies in the top HIGH_SPAN bytes (below the last page) */

enum fkind {
    FK_NORMAL = 0,
    FK_LEAF5,      /* leaf called through t0 (millicode style), returns with jr t0 */
    FK_REC_LINEAR, /* calls itself once per level */
    FK_REC_TAIL,   /* tail-calls itself */
    FK_REC_BINARY, /* calls itself twice per level */
    FK_REC_MUTUAL  /* calls its partner, which calls it back */
};

struct gfunc {
    char name[24];
    uint32_t label;
    size_t frag;
    uint8_t seg;
    uint8_t kind;      /* enum fkind */
    int partner;       /* FK_REC_MUTUAL */
    bool setjmp_host;
    bool lj_below;     /* a longjmp site is reachable through calls from here */
    bool traps;        /* may raise exceptions (directly or below) */
    bool aligned4k;    /* its address is 4 KiB aligned (first in .text.high) */
    bool generated;
    double cost;       /* expected instructions per call */
    uint64_t stack;    /* stack bytes it may use, callees included */
    uint64_t callee_stack; /* FK_REC_MUTUAL (higher of the pair): its callees' stack */
};

struct gctx {
    struct rvt_gen_program *p;
    struct gbuild *b;
    const struct rvt_gen_config *cfg;
    struct grng rng;
    uint32_t feat;
    unsigned xlen, rs, lrs; /* register size in bytes and its log2 */
    bool rvc;
    uint64_t text_base;

    struct gfunc *fn;
    unsigned nfn;

    /* system */
    bool handlers;  /* trap handlers exist */
    bool priv;      /* M + S + U */
    bool vectored;  /* interrupts through a vector table */
    unsigned nproc;
    unsigned tframe;               /* trap frame bytes */
    unsigned tf_epc, tf_status, tf_jb;
    double trap_cost;              /* expected instructions of a trap and its return */
    uint64_t handler_stack;        /* stack a handler's work calls may use */
    uint64_t task_stack;           /* stack a task may use (without traps) */
    uint32_t save_label[NSREG + 1], restore_label[NSREG + 1];
    bool save_used[NSREG + 1];
    unsigned max_frame;
};

/* Where instructions go. */
struct emit {
    struct gctx *g;
    struct gvec *v;
    unsigned seg;
};

/* ---- reachability ------------------------------------------------------ */
bool reach_jal(const struct gctx *g, unsigned from, unsigned to);
bool reach_auipc(const struct gctx *g, unsigned from, unsigned to);
bool reach_lui(const struct gctx *g, unsigned to);

/* ---- emission ---------------------------------------------------------- */
struct gins gi_make(enum gop op, unsigned rd, unsigned rs1, unsigned rs2, int64_t imm);
void e_push(struct emit *e, const struct gins *in);
/* An ordinary instruction, compressed when allowed and the dice say so. */
void e_op(struct emit *e, enum gop op, unsigned rd, unsigned rs1, unsigned rs2, int64_t imm);
/* The same, never compressed. */
void e_op32(struct emit *e, enum gop op, unsigned rd, unsigned rs1, unsigned rs2, int64_t imm);
void e_csr(struct emit *e, enum gop op, unsigned rd, unsigned csr, unsigned rs1_or_uimm);
void e_label(struct emit *e, uint32_t label);
void e_align4(struct emit *e);
void e_branch(struct emit *e, enum gop op, unsigned rs1, unsigned rs2, uint32_t label, uint32_t ann);
void e_jal(struct emit *e, unsigned rd, uint32_t label, unsigned cf, bool relax);
/* jalr rd, imm(rs1) with the class it must have; compressed when possible. */
void e_jalr(struct emit *e, unsigned rd, unsigned rs1, int64_t imm, unsigned cf);
/* Upper/lower halves of a pc-relative (auipc) or absolute (lui) address. */
void e_hi(struct emit *e, enum gop op, enum gform form, unsigned rd, uint32_t label);
void e_lo(struct emit *e, enum gop op, unsigned rd, unsigned rs1, uint32_t label, bool pcrel, unsigned cf,
          bool sijump);
/* Classes by the link-register rules (x1 and x5 are links). */
unsigned jalr_class(unsigned rd, unsigned rs1);
unsigned jal_class(unsigned rd);
/* rd = address of label (in segment lseg): auipc+addi, lui+addi or a GOT load. */
void e_la(struct emit *e, unsigned rd, uint32_t label, unsigned lseg, bool allow_got);
/* rd = constant (32-bit range). */
void e_li(struct emit *e, unsigned rd, int64_t value);
/* Register-size load/store. */
void e_ldr(struct emit *e, unsigned rd, unsigned base, int64_t off);
void e_str(struct emit *e, unsigned rs, unsigned base, int64_t off);

/* Jump to label (in segment lseg) with link register rd and the class cf
 * the jump must have: picks among jal, auipc/lui/c.lui + jalr (sequentially
 * inferable), GOT load + jalr, la + jalr, per features and reach.
 * `scratch` is the register the uninferable forms may use for the address. */
void e_far_jump(struct emit *e, unsigned rd, uint32_t label, unsigned lseg, bool aligned4k, unsigned scratch);

uint32_t ann_random(struct gctx *g, unsigned pct_taken);
uint32_t ann_for_branch(struct gctx *g, double *p_taken);

/* ---- the parts of a program ------------------------------------------- */
int gen_functions(struct gctx *g);
/* Call statement usable outside the function pool (tasks, handlers):
 * calls one function among those with cost <= max_cost (any if none). */
double gen_call_any(struct gctx *g, struct emit *e, double max_cost, bool allow_traps);
/* Build a task body (never returns) in fragment frag. */
int gen_task(struct gctx *g, size_t frag, unsigned proc);
int gen_system(struct gctx *g, size_t boot_frag, const uint32_t *task_labels);

#endif
