/* Generator: the pool of random functions and the statements their bodies
 * are made of.  Functions are generated from the highest index down; a
 * function calls only higher-indexed ones (plus bounded recursion), so the
 * call graph is acyclic apart from recursion that a depth argument ends.
 * Every function's expected cost (instructions per call) and stack use are
 * computed as it is built, which keeps executions balanced and stacks
 * sized. */
#include "gen/emit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fstate {
    struct gctx *g;
    int fi;               /* function index; -1 for tasks and handlers (call anything) */
    unsigned seg;
    struct gvec body;     /* the body, emitted before the prologue is known */
    struct gvec outlined; /* local code placed after the epilogue */
    unsigned loop_base;   /* first loop counter index in g_sorder */
    unsigned loop_depth;  /* live loop counters */
    unsigned max_sreg;    /* s-registers g_sorder[0..max_sreg) are saved */
    unsigned nscratch;    /* scratch s-registers after the loop counters */
    unsigned locals;      /* bytes of locals at sp+0 */
    unsigned jb_off;      /* setjmp buffer offset from sp */
    bool leaf5;           /* millicode-style leaf: no calls, no s-registers */
    bool calls, clobbers_ra;
    bool coroutine;       /* emitting co-routine work */
    bool a0_live;         /* a0 holds the recursion depth */
    bool no_calls;
    bool allow_traps;
    int budget;           /* statements left */
    double cost, cost_cap;
    unsigned depth;
    bool traps, lj_below;
    uint64_t callee_stack;
    uint64_t tail_stack;  /* stack of a tail callee (runs after our frame is gone) */
};

static double gen_block(struct fstate *fs, struct emit *e, unsigned n, double mult);

static unsigned pick(struct gctx *g, const uint8_t *v, unsigned n)
{
    return v[grng_below(&g->rng, n)];
}

static unsigned pick_dest(struct fstate *fs)
{
    struct gctx *g = fs->g;
    uint8_t c[24];
    unsigned n = 0;
    static const uint8_t base[] = {T3, T4, T5, T6, A1, A2, A3, A4, A5, A6, A7};
    static const uint8_t small[] = {A1, A2, A3, A4, A5};
    if (g->rvc && grng_pct(&g->rng, 45))
        return pick(g, small, 5);
    memcpy(c, base, sizeof base);
    n = sizeof base;
    if (!fs->a0_live)
        c[n++] = A0;
    unsigned s0 = fs->loop_base + LOOPMAX;
    for (unsigned i = 0; i < fs->nscratch; i++)
        c[n++] = g_sorder[s0 + i];
    unsigned r = pick(g, c, n);
    for (unsigned i = 0; i < fs->nscratch; i++)
        if (r == g_sorder[s0 + i] && fs->max_sreg < s0 + i + 1)
            fs->max_sreg = s0 + i + 1;
    return r;
}

static unsigned pick_src(struct fstate *fs)
{
    struct gctx *g = fs->g;
    if (grng_pct(&g->rng, 75))
        return pick_dest(fs);
    return (unsigned)grng_below(&g->rng, 32);
}

static unsigned max_shift(const struct gctx *g)
{
    return g->xlen == 64 ? 63 : 31;
}

/* ---- simple statements -------------------------------------------------- */

static double st_alu(struct fstate *fs, struct emit *e)
{
    struct gctx *g = fs->g;
    static const uint8_t rops[] = {OP_ADD, OP_SUB, OP_SLL, OP_SLT,  OP_SLTU, OP_XOR,  OP_SRL, OP_SRA, OP_OR,
                                   OP_AND, OP_MUL, OP_MULH, OP_MULHSU, OP_MULHU, OP_DIV, OP_DIVU, OP_REM, OP_REMU};
    static const uint8_t rops64[] = {OP_ADDW, OP_SUBW, OP_SLLW, OP_SRLW, OP_SRAW,
                                     OP_MULW, OP_DIVW, OP_DIVUW, OP_REMW, OP_REMUW};
    static const uint8_t iops[] = {OP_ADDI, OP_SLTI, OP_SLTIU, OP_XORI, OP_ORI, OP_ANDI};
    unsigned n = (unsigned)grng_range(&g->rng, 1, 4);
    for (unsigned i = 0; i < n; i++) {
        unsigned rd = pick_dest(fs);
        unsigned rs1 = grng_pct(&g->rng, 50) ? rd : pick_src(fs);
        unsigned rs2 = pick_src(fs);
        unsigned k = (unsigned)grng_below(&g->rng, 100);
        if (k < 30) {
            enum gop op = (enum gop)pick(g, rops, sizeof rops);
            if (g->xlen == 64 && grng_pct(&g->rng, 25))
                op = (enum gop)pick(g, rops64, sizeof rops64);
            e_op(e, op, rd, rs1, rs2, 0);
        } else if (k < 62) {
            enum gop op = (enum gop)pick(g, iops, sizeof iops);
            int64_t imm = grng_pct(&g->rng, 60) ? grng_range(&g->rng, -32, 31) : grng_range(&g->rng, -2048, 2047);
            if (op == OP_ADDI && grng_pct(&g->rng, 20))
                rs1 = X0; /* li */
            if (g->xlen == 64 && op == OP_ADDI && grng_pct(&g->rng, 25))
                op = OP_ADDIW;
            e_op(e, op, rd, rs1, 0, imm);
        } else if (k < 78) {
            static const uint8_t sops[] = {OP_SLLI, OP_SRLI, OP_SRAI};
            enum gop op = (enum gop)pick(g, sops, 3);
            unsigned maxs = max_shift(g);
            if (g->xlen == 64 && grng_pct(&g->rng, 20)) {
                op = op == OP_SLLI ? OP_SLLIW : op == OP_SRLI ? OP_SRLIW : OP_SRAIW;
                maxs = 31;
            }
            unsigned src = grng_pct(&g->rng, 60) ? rd : rs1; /* one draw per statement: argument order is unspecified */
            e_op(e, op, rd, src, 0, grng_range(&g->rng, 1, maxs));
        } else if (k < 86) {
            e_op(e, OP_ADD, rd, X0, rs2 ? rs2 : SP, 0); /* mv */
        } else if (k < 94) {
            int64_t v = grng_pct(&g->rng, 50) ? grng_range(&g->rng, -32, 31) : grng_range(&g->rng, 0, 0xfffff);
            if (v == 0)
                v = 1;
            e_op(e, OP_LUI, rd, 0, 0, v & 0xfffff);
        } else {
            e_op32(e, OP_AUIPC, rd, 0, 0, grng_range(&g->rng, -16, 16) & 0xfffff);
        }
    }
    return n;
}

/* A load or store on the stack locals, the globals (gp), the process area
 * (tp), or through a pointer register set up first. */
static double st_mem(struct fstate *fs, struct emit *e)
{
    struct gctx *g = fs->g;
    const struct gram *ram = &g->p->ram;
    static const uint8_t lops[] = {OP_LB, OP_LH, OP_LW, OP_LBU, OP_LHU, OP_LD, OP_LWU};
    static const uint8_t sops[] = {OP_SB, OP_SH, OP_SW, OP_SD};
    bool store = grng_pct(&g->rng, 45);
    enum gop op;
    if (store)
        op = (enum gop)sops[grng_below(&g->rng, g->xlen == 64 ? 4 : 3)];
    else
        op = (enum gop)lops[grng_below(&g->rng, g->xlen == 64 ? 7 : 5)];
    if (grng_pct(&g->rng, 40))
        op = store ? (g->rs == 8 ? OP_SD : OP_SW) : (g->rs == 8 ? OP_LD : OP_LW); /* compressible sizes */
    unsigned size = gop_table[op].size;
    unsigned where = (unsigned)grng_below(&g->rng, 4);
    if (where == 0 && fs->locals < size)
        where = 1;
    int64_t lo, hi;
    unsigned base;
    unsigned cost = 1;
    switch (where) {
    case 0:
        base = SP;
        lo = 0;
        hi = fs->locals - size;
        break;
    case 1:
        base = GP;
        lo = ram->data_off;
        hi = ram->data_off + ram->data_size - size;
        break;
    case 2:
        base = TP;
        lo = 16;
        hi = (int64_t)ram->proc_area_size - size;
        break;
    default: {
        /* pointer: a register loaded with an address, then a short offset */
        static const uint8_t ptrs[] = {A1, A2, A3, A4, A5};
        base = fs->a0_live ? ptrs[grng_below(&g->rng, 5)] : (grng_pct(&g->rng, 20) ? A0 : ptrs[grng_below(&g->rng, 5)]);
        int64_t start = ram->data_off + (int64_t)grng_below(&g->rng, (uint64_t)(ram->data_size - 256)) ;
        start &= ~7ll;
        e_op(e, OP_ADDI, base, GP, 0, start);
        cost++;
        lo = 0;
        hi = 120 - size;
        break;
    }
    }
    int64_t off = lo + (int64_t)grng_below(&g->rng, (uint64_t)(hi - lo) + 1);
    off &= ~(int64_t)(size - 1);
    if (off < lo)
        off += size;
    unsigned data = store ? pick_src(fs) : pick_dest(fs);
    if (!store && data == base)
        data = T3;
    if (store)
        e_op(e, op, 0, base, data, off);
    else
        e_op(e, op, data, base, 0, off);
    return cost;
}

static double st_csr(struct fstate *fs, struct emit *e)
{
    struct gctx *g = fs->g;
    static const uint16_t csrs[] = {CSR_CYCLE, CSR_TIME, CSR_INSTRET, CSR_ENTROPY};
    unsigned rd = pick_dest(fs);
    e_csr(e, OP_CSRRS, rd, csrs[grng_below(&g->rng, 4)], X0);
    return 1;
}

static double st_fence(struct fstate *fs, struct emit *e)
{
    struct gctx *g = fs->g;
    unsigned k = (unsigned)grng_below(&g->rng, 3);
    if (k == 0)
        e_op32(e, OP_FENCE, 0, 0, 0, 0x33); /* fence rw,rw */
    else if (k == 1)
        e_op32(e, OP_FENCE, 0, 0, 0, 0xff); /* fence iorw,iorw */
    else
        e_op32(e, OP_FENCE_I, 0, 0, 0, 0);
    return 1;
}

static double st_amo(struct fstate *fs, struct emit *e)
{
    struct gctx *g = fs->g;
    const struct gram *ram = &g->p->ram;
    static const uint8_t ptrs[] = {A1, A2, A3, A4, A5};
    unsigned pr = ptrs[grng_below(&g->rng, 5)];
    int64_t off = (ram->data_off + (int64_t)grng_below(&g->rng, (uint64_t)ram->data_size - 8)) & ~7ll;
    e_op(e, OP_ADDI, pr, GP, 0, off);
    bool d = g->xlen == 64 && grng_pct(&g->rng, 40);
    if (grng_pct(&g->rng, 40)) {
        /* lr/sc retry loop */
        unsigned v = pick_dest(fs), ok = pick_dest(fs);
        while (v == pr)
            v = pick_dest(fs);
        while (ok == pr || ok == v)
            ok = pick_dest(fs);
        uint32_t top = gb_new_label(g->b);
        e_label(e, top);
        struct gins in = gi_make(d ? OP_LR_D : OP_LR_W, v, pr, 0, grng_below(&g->rng, 4));
        e_push(e, &in);
        e_op(e, OP_ADDI, v, v, 0, grng_range(&g->rng, 1, 9));
        in = gi_make(d ? OP_SC_D : OP_SC_W, ok, pr, v, grng_below(&g->rng, 4));
        e_push(e, &in);
        e_branch(e, OP_BNE, ok, X0, top, 0);
        return 5;
    }
    static const uint8_t w[] = {OP_AMOSWAP_W, OP_AMOADD_W, OP_AMOXOR_W, OP_AMOAND_W, OP_AMOOR_W};
    enum gop op = d ? (grng_pct(&g->rng, 50) ? OP_AMOSWAP_D : OP_AMOADD_D) : (enum gop)pick(g, w, 5);
    unsigned rd = pick_dest(fs);
    while (rd == pr)
        rd = pick_dest(fs);
    unsigned src = pick_src(fs);
    struct gins in = gi_make(op, rd, pr, src, grng_below(&g->rng, 4));
    e_push(e, &in);
    return 2;
}

/* F/D work: loads and stores of FP registers, arithmetic, compares,
 * conversions and moves between the register files.  FP values never steer
 * control flow, so FP registers are free scratch everywhere. */
static double st_fp(struct fstate *fs, struct emit *e)
{
    struct gctx *g = fs->g;
    const struct gram *ram = &g->p->ram;
    unsigned n = (unsigned)grng_range(&g->rng, 1, 3);
    double cost = 0;
    for (unsigned i = 0; i < n; i++) {
        unsigned fd = grng_pct(&g->rng, 50) ? (unsigned)grng_range(&g->rng, 8, 15) : (unsigned)grng_below(&g->rng, 32);
        unsigned f1 = (unsigned)grng_below(&g->rng, 32), f2 = (unsigned)grng_below(&g->rng, 32);
        bool dbl = grng_pct(&g->rng, 50);
        unsigned k = (unsigned)grng_below(&g->rng, 7);
        cost += 1;
        if (k <= 1) {
            /* load or store: stack locals, globals, or a pointer (c.fld/c.fsd) */
            bool st = k == 1;
            enum gop op = st ? (dbl ? OP_FSD : OP_FSW) : (dbl ? OP_FLD : OP_FLW);
            unsigned size = dbl ? 8 : 4, base;
            int64_t off;
            unsigned w = (unsigned)grng_below(&g->rng, 3);
            if (w == 0 && fs->locals >= size) {
                base = SP;
                off = (int64_t)(grng_below(&g->rng, fs->locals / size)) * size;
            } else if (w == 1) {
                base = GP;
                off = (ram->data_off + (int64_t)grng_below(&g->rng, (uint64_t)ram->data_size - 8)) & ~7ll;
            } else {
                static const uint8_t ptrs[] = {A1, A2, A3, A4, A5};
                base = ptrs[grng_below(&g->rng, 5)];
                int64_t start = (ram->data_off + (int64_t)grng_below(&g->rng, (uint64_t)ram->data_size - 256)) & ~7ll;
                e_op(e, OP_ADDI, base, GP, 0, start);
                off = (int64_t)grng_below(&g->rng, 15) * 8;
                cost += 1;
            }
            if (st)
                e_op(e, op, 0, base, fd, off);
            else
                e_op(e, op, fd, base, 0, off);
            continue;
        }
        struct gins in;
        switch (k) {
        case 2: { /* arithmetic */
            static const uint8_t sops[] = {OP_FADD_S, OP_FSUB_S, OP_FMUL_S, OP_FDIV_S, OP_FSGNJ_S, OP_FMIN_S, OP_FMAX_S, OP_FMADD_S};
            static const uint8_t dops[] = {OP_FADD_D, OP_FSUB_D, OP_FMUL_D, OP_FDIV_D, OP_FSGNJ_D, OP_FMIN_D, OP_FMAX_D, OP_FMADD_D};
            unsigned j = (unsigned)grng_below(&g->rng, 8);
            enum gop op = (enum gop)(dbl ? dops[j] : sops[j]);
            in = gi_make(op, fd, f1, f2, (op == OP_FMADD_S || op == OP_FMADD_D) ? (int64_t)grng_below(&g->rng, 32) : 0);
            break;
        }
        case 3: { /* compare into an integer register */
            static const uint8_t sops[] = {OP_FEQ_S, OP_FLT_S, OP_FLE_S}, dops[] = {OP_FEQ_D, OP_FLT_D, OP_FLE_D};
            unsigned j = (unsigned)grng_below(&g->rng, 3);
            in = gi_make((enum gop)(dbl ? dops[j] : sops[j]), pick_dest(fs), f1, f2, 0);
            break;
        }
        case 4: { /* conversions */
            unsigned j = (unsigned)grng_below(&g->rng, 3);
            if (j == 0)
                in = gi_make(dbl ? OP_FCVT_W_D : OP_FCVT_W_S, pick_dest(fs), f1, 0, 0);
            else if (j == 1)
                in = gi_make(dbl ? OP_FCVT_D_W : OP_FCVT_S_W, fd, pick_src(fs), 0, 0);
            else
                in = gi_make(dbl ? OP_FCVT_D_S : OP_FCVT_S_D, fd, f1, 0, 0);
            break;
        }
        default: { /* moves between the register files */
            bool d64 = dbl && g->xlen == 64;
            if (k == 5)
                in = gi_make(d64 ? OP_FMV_X_D : OP_FMV_X_W, pick_dest(fs), f1, 0, 0);
            else
                in = gi_make(d64 ? OP_FMV_D_X : OP_FMV_W_X, fd, pick_src(fs), 0, 0);
            break;
        }
        }
        e_push(e, &in);
    }
    return cost;
}

/* An instruction that raises a synchronous exception (the handler skips it). */
static double st_trap(struct fstate *fs, struct emit *e)
{
    struct gctx *g = fs->g;
    const struct gram *ram = &g->p->ram;
    fs->traps = true;
    unsigned k = (unsigned)grng_below(&g->rng, 9);
    switch (k) {
    case 0: /* system call that does nothing */
        e_op(e, OP_ADDI, A7, X0, 0, 3);
        e_op32(e, OP_ECALL, 0, 0, 0, 0);
        return 2 + g->trap_cost;
    case 1:
        e_op(e, OP_EBREAK, 0, 0, 0, 0); /* ebreak or c.ebreak */
        return 1 + g->trap_cost;
    case 2: { /* write to a read-only CSR: illegal instruction (unimp is csrrw x0, cycle, x0) */
        unsigned csr = grng_pct(&g->rng, 50) ? CSR_CYCLE : CSR_INSTRET;
        unsigned src = grng_pct(&g->rng, 50) ? X0 : pick_src(fs);
        e_csr(e, OP_CSRRW, X0, csr, src);
        return 1 + g->trap_cost;
    }
    case 3: /* a CSR the current privilege may not have: traps in U/S, or without S-mode */
        e_csr(e, OP_CSRRS, pick_dest(fs), g->priv ? CSR_MSCRATCH : CSR_SSCRATCH, X0);
        return 1 + g->trap_cost;
    case 4:
    case 5: { /* misaligned load/store in RAM */
        static const uint8_t lw[] = {OP_LH, OP_LW, OP_LHU, OP_LD, OP_LWU};
        static const uint8_t sw[] = {OP_SH, OP_SW, OP_SD};
        enum gop op = k == 4 ? (enum gop)lw[grng_below(&g->rng, g->xlen == 64 ? 5 : 3)]
                             : (enum gop)sw[grng_below(&g->rng, g->xlen == 64 ? 3 : 2)];
        unsigned size = gop_table[op].size;
        int64_t off = (ram->data_off + (int64_t)grng_below(&g->rng, (uint64_t)ram->data_size - 16)) & ~7ll;
        off += (int64_t)grng_range(&g->rng, 1, size - 1);
        if (k == 4)
            e_op32(e, op, pick_dest(fs), GP, 0, off);
        else
            e_op32(e, op, 0, GP, pick_src(fs), off);
        return 1 + g->trap_cost;
    }
    default: { /* dereference a null pointer (page-fault-like) */
        static const uint8_t lw[] = {OP_LB, OP_LW, OP_LD, OP_LBU};
        static const uint8_t sw[] = {OP_SB, OP_SW, OP_SD};
        e_ldr(e, T1, GP, ram->null_off);
        bool st = k >= 7;
        enum gop op = st ? (enum gop)sw[grng_below(&g->rng, g->xlen == 64 ? 3 : 2)]
                         : (enum gop)lw[grng_below(&g->rng, g->xlen == 64 ? 4 : 2)];
        int64_t off = (int64_t)grng_below(&g->rng, 2048) & ~(int64_t)(gop_table[op].size - 1);
        if (st)
            e_op32(e, op, 0, T1, pick_src(fs), off);
        else
            e_op32(e, op, pick_dest(fs), T1, 0, off);
        return 2 + g->trap_cost;
    }
    }
}

/* System calls: a7 = 0 yield, 1 kernel work, 2 firmware call, 3 nothing. */
static double st_syscall(struct fstate *fs, struct emit *e)
{
    struct gctx *g = fs->g;
    unsigned n = (unsigned)grng_below(&g->rng, 4);
    if (g->nproc > 1 && grng_pct(&g->rng, 40))
        n = 0;
    e_op(e, OP_ADDI, A7, X0, 0, n);
    e_op32(e, OP_ECALL, 0, 0, 0, 0);
    fs->traps = true;
    return 2 + g->trap_cost * (n == 1 || n == 2 ? 2 : 1);
}

/* ---- control statements ------------------------------------------------- */

static unsigned branch_regs(struct fstate *fs, enum gop *op, unsigned *rs2)
{
    struct gctx *g = fs->g;
    static const uint8_t bops[] = {OP_BEQ, OP_BNE, OP_BLT, OP_BGE, OP_BLTU, OP_BGEU};
    static const uint8_t small[] = {S0, S1, A0, A1, A2, A3, A4, A5};
    if (g->rvc && grng_pct(&g->rng, 40)) {
        *op = grng_pct(&g->rng, 50) ? OP_BEQ : OP_BNE;
        *rs2 = X0;
        return small[grng_below(&g->rng, 8)];
    }
    *op = (enum gop)bops[grng_below(&g->rng, 6)];
    *rs2 = pick_src(fs);
    return pick_src(fs);
}

/* if (data-dependent) { ... } [else { ... }] */
static double st_if(struct fstate *fs, struct emit *e, double mult)
{
    struct gctx *g = fs->g;
    double p;
    uint32_t ann = ann_for_branch(g, &p);
    enum gop op;
    unsigned rs2, rs1 = branch_regs(fs, &op, &rs2);
    uint32_t l_else = gb_new_label(g->b), l_end = gb_new_label(g->b);
    e_branch(e, op, rs1, rs2, l_else, ann);
    fs->depth++;
    double c_then = gen_block(fs, e, (unsigned)grng_range(&g->rng, 1, 3), mult * (1 - p));
    double cost = 1 + (1 - p) * c_then;
    if (grng_pct(&g->rng, 40) && fs->budget > 0) {
        e_jal(e, X0, l_end, RVT_CF_JUMP_INF, false);
        e_label(e, l_else);
        double c_else = gen_block(fs, e, (unsigned)grng_range(&g->rng, 1, 2), mult * p);
        e_label(e, l_end);
        cost += (1 - p) * 1 + p * c_else;
    } else {
        e_label(e, l_else);
    }
    fs->depth--;
    return cost;
}

/* A selector for tables: the innermost loop counter (a pattern) or the
 * entropy CSR; leaves the index (0..n-1) in t2. */
static double table_index(struct fstate *fs, struct emit *e, unsigned n)
{
    struct gctx *g = fs->g;
    unsigned sel;
    double cost = 1;
    if (fs->loop_depth > 0 && grng_pct(&g->rng, 50)) {
        sel = g_sorder[fs->loop_base + fs->loop_depth - 1];
    } else {
        e_csr(e, OP_CSRRS, T2, CSR_ENTROPY, X0);
        sel = T2;
        cost++;
    }
    e_op(e, OP_ANDI, T2, sel, 0, n - 1);
    return cost;
}

/* switch through a jump table: absolute entries or 32-bit offsets. */
static double st_switch(struct fstate *fs, struct emit *e, double mult)
{
    struct gctx *g = fs->g;
    unsigned ncase = (unsigned)grng_range(&g->rng, 2, 4);
    unsigned nent = grng_pct(&g->rng, 50) ? 4 : 8;
    uint32_t lcase[4], ents[8];
    for (unsigned i = 0; i < ncase; i++)
        lcase[i] = gb_new_label(g->b);
    uint32_t l_end = gb_new_label(g->b);
    for (unsigned i = 0; i < nent; i++)
        ents[i] = lcase[i < ncase ? i : grng_below(&g->rng, ncase)];
    bool rel = grng_pct(&g->rng, 40) && reach_auipc(g, e->seg, SEG_RODATA); /* 32-bit offsets reach */
    char name[32];
    snprintf(name, sizeof name, "%s_sw%zu", fs->fi >= 0 ? g->fn[fs->fi].name : "k", g->b->ntables);
    uint32_t tbl = gb_new_table(g->b, name, ents, nent, rel);
    double cost = table_index(fs, e, nent);
    if (rel) {
        e_op(e, OP_SLLI, T2, T2, 0, 2);
        e_la(e, T1, tbl, SEG_RODATA, true);
        e_op(e, OP_ADD, T2, T2, T1, 0);
        e_op(e, OP_LW, T2, T2, 0, 0);
        e_op(e, OP_ADD, T1, T1, T2, 0);
    } else {
        e_op(e, OP_SLLI, T2, T2, 0, g->lrs);
        e_la(e, T1, tbl, SEG_RODATA, true);
        e_op(e, OP_ADD, T1, T1, T2, 0);
        e_ldr(e, T1, T1, 0);
    }
    e_jalr(e, X0, T1, 0, RVT_CF_JUMP_UNINF);
    cost += 7;
    fs->depth++;
    double sum = 0;
    for (unsigned i = 0; i < ncase; i++) {
        e_label(e, lcase[i]);
        sum += gen_block(fs, e, (unsigned)grng_range(&g->rng, 1, 2), mult / ncase);
        if (i + 1 < ncase) {
            e_jal(e, X0, l_end, RVT_CF_JUMP_INF, false);
            sum += 1;
        }
    }
    e_label(e, l_end);
    fs->depth--;
    return cost + sum / ncase;
}

static double st_loop(struct fstate *fs, struct emit *e, double mult)
{
    struct gctx *g = fs->g;
    unsigned idx = fs->loop_base + fs->loop_depth;
    unsigned c = g_sorder[idx];
    if (fs->max_sreg < idx + 1)
        fs->max_sreg = idx + 1;
    unsigned maxn = g->cfg->max_loop_iters;
    double en;
    bool rnd = maxn >= 2 && grng_pct(&g->rng, 40);
    unsigned n = 0;
    double cost = 0;
    if (rnd) {
        unsigned mask = 1;
        while (mask * 2 + 1 <= maxn - 1)
            mask = mask * 2 + 1;
        e_csr(e, OP_CSRRS, T1, CSR_ENTROPY, X0);
        e_op(e, OP_ANDI, c, T1, 0, mask);
        e_op(e, OP_ADDI, c, c, 0, 1);
        en = mask / 2.0 + 1;
        cost += 3;
    } else {
        n = (unsigned)grng_range(&g->rng, 1, maxn);
        en = n;
    }
    unsigned shape = (unsigned)grng_below(&g->rng, rnd ? 2 : 3);
    uint32_t top = gb_new_label(g->b), end = gb_new_label(g->b);
    fs->loop_depth++;
    fs->depth++;
    double body;
    if (shape == 2) {
        /* counting up to n: c = 0; do { ... } while (++c < n) */
        e_op(e, OP_ADDI, c, X0, 0, 0);
        e_label(e, top);
        body = gen_block(fs, e, (unsigned)grng_range(&g->rng, 1, 3), mult * en);
        e_op(e, OP_ADDI, c, c, 0, 1);
        if (grng_pct(&g->rng, 50)) {
            e_op(e, OP_ADDI, T1, X0, 0, n);
            e_branch(e, grng_pct(&g->rng, 50) ? OP_BLT : OP_BNE, c, T1, top, 0);
        } else {
            e_op32(e, OP_SLTIU, T1, c, 0, n);
            e_branch(e, OP_BNE, T1, X0, top, 0);
        }
        cost += 1 + en * (body + 3);
    } else {
        if (!rnd)
            e_li(e, c, n);
        cost += 1;
        e_label(e, top);
        if (shape == 1) /* while (c) { ...; c--; } */
            e_branch(e, OP_BEQ, c, X0, end, 0);
        double inner = 0;
        if (grng_pct(&g->rng, 30) && fs->budget > 1) {
            /* a branch taken every 2nd / 4th iteration */
            uint32_t skip = gb_new_label(g->b);
            e_op(e, OP_ANDI, T1, c, 0, grng_pct(&g->rng, 50) ? 1 : 3);
            e_branch(e, OP_BNE, T1, X0, skip, 0);
            inner = gen_block(fs, e, 1, mult * en / 2) / 2 + 2;
            e_label(e, skip);
        }
        body = gen_block(fs, e, (unsigned)grng_range(&g->rng, 1, 3), mult * en) + inner;
        e_op(e, OP_ADDI, c, c, 0, -1);
        if (shape == 1) {
            e_jal(e, X0, top, RVT_CF_JUMP_INF, false);
            e_label(e, end);
            cost += (en + 1) + en * (body + 2);
        } else {
            e_branch(e, OP_BNE, c, X0, top, 0);
            cost += en * (body + 2);
        }
    }
    fs->depth--;
    fs->loop_depth--;
    return cost;
}

/* ---- calls -------------------------------------------------------------- */

static bool is_recursive(const struct gfunc *f)
{
    return f->kind == FK_REC_LINEAR || f->kind == FK_REC_TAIL || f->kind == FK_REC_BINARY ||
           f->kind == FK_REC_MUTUAL;
}

static unsigned rec_max_depth(const struct gctx *g, const struct gfunc *f)
{
    unsigned d = g->cfg->max_recursion;
    if (f->kind == FK_REC_BINARY && d > 4)
        d = 4;
    return d;
}

/* a0 = recursion depth for a recursive callee. */
static double set_depth(struct fstate *fs, struct emit *e, unsigned maxd)
{
    struct gctx *g = fs->g;
    if (maxd >= 1 && grng_pct(&g->rng, 40)) {
        unsigned mask = 1;
        while (mask * 2 + 1 <= maxd)
            mask = mask * 2 + 1;
        e_csr(e, OP_CSRRS, T1, CSR_ENTROPY, X0);
        e_op(e, OP_ANDI, A0, T1, 0, mask);
        return 2;
    }
    e_op(e, OP_ADDI, A0, X0, 0, grng_range(&g->rng, 0, maxd));
    return 1;
}

static bool callee_ok(const struct fstate *fs, unsigned j, double max_cost, bool leaf5)
{
    const struct gfunc *f = &fs->g->fn[j];
    if (!f->generated || (fs->fi >= 0 && (int)j <= fs->fi))
        return false;
    /* a mutual-recursion pair calls its partner only with the depth */
    if (fs->fi >= 0 && fs->g->fn[fs->fi].kind == FK_REC_MUTUAL && (int)j == fs->g->fn[fs->fi].partner)
        return false;
    if ((f->kind == FK_LEAF5) != leaf5)
        return false;
    if (f->cost > max_cost)
        return false;
    if (!fs->allow_traps && f->traps)
        return false;
    return true;
}

static int pick_callee(struct fstate *fs, double max_cost, bool leaf5, bool want_lj)
{
    struct gctx *g = fs->g;
    unsigned n = 0, nlj = 0;
    unsigned lo = fs->fi >= 0 ? (unsigned)fs->fi + 1 : 0;
    for (unsigned j = lo; j < g->nfn; j++)
        if (callee_ok(fs, j, max_cost, leaf5)) {
            n++;
            if (g->fn[j].lj_below)
                nlj++;
        }
    if (n == 0)
        return -1;
    bool use_lj = want_lj && nlj > 0;
    uint64_t k = grng_below(&g->rng, use_lj ? nlj : n);
    for (unsigned j = lo; j < g->nfn; j++)
        if (callee_ok(fs, j, max_cost, leaf5) && (!use_lj || g->fn[j].lj_below) && k-- == 0)
            return (int)j;
    return -1;
}

static void note_callee(struct fstate *fs, const struct gfunc *f)
{
    fs->calls = true;
    if (f->traps)
        fs->traps = true;
    if (f->lj_below)
        fs->lj_below = true;
    if (f->stack > fs->callee_stack)
        fs->callee_stack = f->stack;
}

/* Call through a table of function pointers. */
static double st_table_call(struct fstate *fs, struct emit *e, double max_cost, double mult)
{
    struct gctx *g = fs->g;
    unsigned n = 1u << grng_range(&g->rng, 1, 3);
    uint32_t ents[8];
    int idx[8];
    double sum = 0;
    unsigned maxd = UINT32_MAX;
    bool rec = false;
    for (unsigned i = 0; i < n; i++) {
        idx[i] = pick_callee(fs, max_cost, false, false);
        if (idx[i] < 0)
            return -1;
        const struct gfunc *f = &g->fn[idx[i]];
        ents[i] = f->label;
        sum += f->cost;
        if (is_recursive(f)) {
            rec = true;
            unsigned d = rec_max_depth(g, f);
            if (d < maxd)
                maxd = d;
        }
    }
    double cost = 0;
    if (rec)
        cost += set_depth(fs, e, maxd);
    char name[32];
    snprintf(name, sizeof name, "%s_fp%zu", fs->fi >= 0 ? g->fn[fs->fi].name : "k", g->b->ntables);
    uint32_t tbl = gb_new_table(g->b, name, ents, n, false);
    cost += table_index(fs, e, n);
    e_op(e, OP_SLLI, T2, T2, 0, g->lrs);
    e_la(e, T1, tbl, SEG_RODATA, true);
    e_op(e, OP_ADD, T1, T1, T2, 0);
    e_ldr(e, T1, T1, 0);
    e_jalr(e, RA, T1, 0, RVT_CF_CALL_UNINF);
    for (unsigned i = 0; i < n; i++)
        note_callee(fs, &g->fn[idx[i]]);
    fs->cost += mult * sum / n;
    return cost + 6 + sum / n;
}

static double st_call(struct fstate *fs, struct emit *e, double mult, bool want_lj)
{
    struct gctx *g = fs->g;
    double max_cost = (fs->cost_cap - fs->cost) / (mult > 1 ? mult : 1);
    bool leaf5 = (g->feat & RVT_GEN_ALTLINK) && grng_pct(&g->rng, 20) && !want_lj;
    if ((g->feat & RVT_GEN_TABLES) && !leaf5 && !want_lj && grng_pct(&g->rng, 15)) {
        double c = st_table_call(fs, e, max_cost, mult);
        if (c >= 0)
            return c;
    }
    int j = pick_callee(fs, max_cost, leaf5, want_lj);
    if (j < 0 && leaf5)
        j = pick_callee(fs, max_cost, false, want_lj);
    if (j < 0)
        return -1;
    const struct gfunc *f = &g->fn[j];
    double cost = 0;
    if (is_recursive(f))
        cost += set_depth(fs, e, rec_max_depth(g, f));
    e_far_jump(e, f->kind == FK_LEAF5 ? T0 : RA, f->label, f->seg, f->aligned4k, T1);
    note_callee(fs, f);
    fs->cost += mult * f->cost;
    return cost + 2 + f->cost;
}

/* Local subroutine linked through t2 ("other" link register). */
static double st_helper(struct fstate *fs, struct emit *e)
{
    struct gctx *g = fs->g;
    uint32_t ls = gb_new_label(g->b);
    unsigned k = (unsigned)grng_below(&g->rng, 3);
    if (k == 0 || !(g->feat & RVT_GEN_SIJUMPS && k == 1)) {
        if (k == 2) {
            e_la(e, T1, ls, e->seg, false);
            e_jalr(e, T2, T1, 0, RVT_CF_OTHER_UNINF);
        } else {
            e_jal(e, T2, ls, RVT_CF_OTHER_INF, false);
        }
    } else {
        e_hi(e, OP_AUIPC, FM_32, T1, ls);
        e_lo(e, OP_JALR, T2, T1, ls, true, RVT_CF_OTHER_UNINF, true);
    }
    struct emit se = {g, &fs->outlined, e->seg};
    e_label(&se, ls);
    double c = st_alu(fs, &se);
    e_jalr(&se, X0, T2, 0, RVT_CF_JUMP_UNINF);
    return 4 + c;
}

/* ---- unwinding and co-routines ----------------------------------------- */

/* Maybe longjmp to the innermost setjmp (if any is live). */
static double st_longjmp(struct fstate *fs, struct emit *e)
{
    struct gctx *g = fs->g;
    uint32_t skip = gb_new_label(g->b);
    enum gop op;
    unsigned rs2, rs1 = branch_regs(fs, &op, &rs2);
    e_branch(e, op, rs1, rs2, skip, ann_random(g, 100 - g->cfg->p_longjmp));
    e_ldr(e, T1, TP, 0);
    e_branch(e, OP_BEQ, T1, X0, skip, 0);
    if (grng_pct(&g->rng, 50)) {
        /* jump to the resume point: an uninferable jump, not a return */
        e_ldr(e, T2, T1, 2 * g->rs);
        e_ldr(e, SP, T1, g->rs);
        e_jalr(e, X0, T2, 0, RVT_CF_JUMP_UNINF);
    } else {
        /* a `ret` whose target is not the innermost call's return address */
        e_ldr(e, RA, T1, 2 * g->rs);
        e_ldr(e, SP, T1, g->rs);
        e_jalr(e, X0, RA, 0, RVT_CF_RETURN);
    }
    e_label(e, skip);
    fs->lj_below = true;
    return 3;
}

static double st_setjmp(struct fstate *fs, struct emit *e, double mult)
{
    struct gctx *g = fs->g;
    int jb = (int)fs->jb_off, rs = (int)g->rs;
    uint32_t res = gb_new_label(g->b);
    e_ldr(e, T1, TP, 0);
    e_str(e, T1, SP, jb);
    e_str(e, SP, SP, jb + rs);
    e_la(e, T2, res, e->seg, false);
    e_str(e, T2, SP, jb + 2 * rs);
    e_op(e, OP_ADDI, T1, SP, 0, jb);
    e_str(e, T1, TP, 0);
    double c = st_call(fs, e, mult, true);
    if (c < 0)
        c = st_call(fs, e, mult, false);
    if (c < 0)
        c = st_alu(fs, e);
    e_label(e, res);
    e_ldr(e, T1, SP, jb);
    e_str(e, T1, TP, 0);
    return 10 + c;
}

/* Work inside a co-routine: no calls, no loops, ra and t0 untouched. */
static double coro_work(struct fstate *fs, struct emit *e)
{
    struct gctx *g = fs->g;
    double c = 0;
    unsigned n = (unsigned)grng_range(&g->rng, 1, 3);
    for (unsigned i = 0; i < n; i++) {
        unsigned k = (unsigned)grng_below(&g->rng, 10);
        if (k < 5)
            c += st_alu(fs, e);
        else if (k < 8)
            c += st_mem(fs, e);
        else if (k < 9 && fs->allow_traps && (g->feat & RVT_GEN_TRAPS) && grng_below(&g->rng, 1000) < g->cfg->p_trap * 20)
            c += st_trap(fs, e);
        else
            c += st_csr(fs, e);
    }
    return c;
}

static double st_coroutine(struct fstate *fs, struct emit *e)
{
    struct gctx *g = fs->g;
    unsigned idx = fs->loop_base + fs->loop_depth;
    unsigned c = g_sorder[idx];
    if (fs->max_sreg < idx + 1)
        fs->max_sreg = idx + 1;
    unsigned n = (unsigned)grng_range(&g->rng, 1, 4);
    uint32_t la = gb_new_label(g->b), lb = gb_new_label(g->b);
    fs->coroutine = true;
    fs->clobbers_ra = true;
    e_la(e, T0, lb, e->seg, false);
    e_li(e, c, n);
    e_label(e, la);
    double ca = coro_work(fs, e);
    e_jalr(e, RA, T0, 0, RVT_CF_COSWAP); /* jalr ra, t0 / c.jalr t0 */
    e_op(e, OP_ADDI, c, c, 0, -1);
    e_branch(e, OP_BNE, c, X0, la, 0);
    /* the other side */
    struct emit se = {g, &fs->outlined, e->seg};
    e_label(&se, lb);
    double cb = coro_work(fs, &se);
    unsigned swaps = (unsigned)grng_range(&g->rng, 1, 2);
    for (unsigned i = 0; i < swaps; i++) {
        e_jalr(&se, T0, RA, 0, RVT_CF_COSWAP); /* jalr t0, ra */
        if (i + 1 < swaps)
            cb += coro_work(fs, &se);
    }
    e_jal(&se, X0, lb, RVT_CF_JUMP_INF, false);
    fs->coroutine = false;
    return 4 + n * (ca + cb + 4);
}

/* ---- blocks ------------------------------------------------------------- */

enum stmt_kind { K_ALU, K_MEM, K_IF, K_LOOP, K_CALL, K_SWITCH, K_CSR, K_FENCE, K_AMO, K_LONGJMP, K_CORO,
                 K_HELPER, K_FP, K__N };

static double gen_stmt(struct fstate *fs, struct emit *e, double mult)
{
    struct gctx *g = fs->g;
    uint32_t ft = g->feat;
    fs->budget--;
    if (fs->allow_traps && (ft & RVT_GEN_TRAPS) && grng_below(&g->rng, 1000) < g->cfg->p_trap)
        return st_trap(fs, e);
    if (g->handlers && (ft & (RVT_GEN_PRIV | RVT_GEN_CONTEXT)) && fs->allow_traps &&
        grng_below(&g->rng, 1000) < g->cfg->p_syscall)
        return st_syscall(fs, e);
    unsigned w[K__N];
    memset(w, 0, sizeof w);
    bool room = fs->budget > 0 && fs->depth < 4;
    w[K_ALU] = 30;
    w[K_MEM] = 18;
    w[K_CSR] = 3;
    w[K_FENCE] = 1;
    if (room)
        w[K_IF] = 12;
    if ((ft & RVT_GEN_LOOPS) && room && fs->loop_depth < LOOPMAX && !fs->leaf5 && fs->depth < 3)
        w[K_LOOP] = 8;
    if (!fs->no_calls && !fs->leaf5)
        w[K_CALL] = g->cfg->p_call;
    if ((ft & RVT_GEN_TABLES) && room && fs->depth < 3)
        w[K_SWITCH] = 4;
    if (ft & RVT_GEN_ATOMICS)
        w[K_AMO] = 3;
    if (ft & RVT_GEN_FP)
        w[K_FP] = 6;
    if ((ft & RVT_GEN_LONGJMP) && fs->fi >= 0 && !fs->leaf5)
        w[K_LONGJMP] = 2;
    if ((ft & RVT_GEN_COROUTINES) && fs->fi >= 0 && !fs->leaf5 && fs->loop_depth < LOOPMAX && fs->depth == 0)
        w[K_CORO] = 2;
    if ((ft & RVT_GEN_ALTLINK) && !fs->leaf5)
        w[K_HELPER] = 3;
    unsigned total = 0;
    for (int k = 0; k < K__N; k++)
        total += w[k];
    uint64_t r = grng_below(&g->rng, total);
    int k = 0;
    while (r >= w[k])
        r -= w[k++];
    double c = -1;
    switch ((enum stmt_kind)k) {
    case K_ALU:
        c = st_alu(fs, e);
        break;
    case K_MEM:
        c = st_mem(fs, e);
        break;
    case K_IF:
        c = st_if(fs, e, mult);
        break;
    case K_LOOP:
        c = st_loop(fs, e, mult);
        break;
    case K_CALL:
        c = st_call(fs, e, mult, false);
        break;
    case K_SWITCH:
        c = st_switch(fs, e, mult);
        break;
    case K_CSR:
        c = st_csr(fs, e);
        break;
    case K_FENCE:
        c = st_fence(fs, e);
        break;
    case K_AMO:
        c = st_amo(fs, e);
        break;
    case K_LONGJMP:
        c = st_longjmp(fs, e);
        break;
    case K_CORO:
        c = st_coroutine(fs, e);
        break;
    case K_HELPER:
        c = st_helper(fs, e);
        break;
    case K_FP:
        c = st_fp(fs, e);
        break;
    case K__N:
        break;
    }
    if (c < 0)
        c = st_alu(fs, e);
    return c;
}

static double gen_block(struct fstate *fs, struct emit *e, unsigned n, double mult)
{
    double c = 0;
    for (unsigned i = 0; i < n; i++) {
        if (fs->budget <= 0 && i > 0)
            break;
        c += gen_stmt(fs, e, mult);
    }
    return c;
}

/* ---- functions ---------------------------------------------------------- */

struct frame {
    unsigned size;   /* total frame bytes */
    unsigned save;   /* bytes of the save area (ra + s-registers) */
    unsigned nsave;  /* s-registers saved */
    bool ra;
    bool milli;      /* prologue/epilogue through save_k / restore_k */
};

static void plan_frame(struct fstate *fs, struct frame *fr, bool allow_milli)
{
    struct gctx *g = fs->g;
    fr->nsave = fs->max_sreg;
    fr->ra = fs->calls || fs->clobbers_ra || fr->nsave > 0;
    unsigned locals = (fs->locals + (fs->jb_off ? 3 * g->rs : 0) + 15) & ~15u;
    if (!fr->ra && locals == 0) {
        fr->size = fr->save = 0;
        fr->milli = false;
        return;
    }
    fr->ra = true;
    fr->save = (g->rs * (1 + fr->nsave) + 15) & ~15u;
    fr->size = fr->save + locals;
    fr->milli = allow_milli && (g->feat & RVT_GEN_ALTLINK) && grng_pct(&g->rng, 35);
    if (fr->size > g->max_frame)
        g->max_frame = fr->size;
}

static void emit_addsp(struct emit *e, int64_t delta)
{
    while (delta != 0) {
        int64_t d = delta < -2048 ? -2048 : delta > 2032 ? 2032 : delta;
        e_op(e, OP_ADDI, SP, SP, 0, d);
        delta -= d;
    }
}

static void emit_prologue(struct fstate *fs, struct emit *e, const struct frame *fr)
{
    struct gctx *g = fs->g;
    if (fr->size == 0)
        return;
    if (fr->milli) {
        g->save_used[fr->nsave] = true;
        e_far_jump(e, T0, g->save_label[fr->nsave], SEG_TEXT, false, T1);
        emit_addsp(e, -(int64_t)(fr->size - fr->save));
        return;
    }
    emit_addsp(e, -(int64_t)fr->size);
    unsigned top = fr->size;
    e_str(e, RA, SP, top - g->rs);
    for (unsigned i = 0; i < fr->nsave; i++)
        e_str(e, g_sorder[i], SP, top - g->rs * (2 + i));
}

/* Restore and pop the frame; with a millicode frame and `tail_ok`, ends in
 * the restore routine (which returns) and reports true. */
static bool emit_epilogue(struct fstate *fs, struct emit *e, const struct frame *fr, bool returning)
{
    struct gctx *g = fs->g;
    if (fr->size == 0)
        return false;
    if (fr->milli && returning) {
        g->save_used[fr->nsave] = true;
        emit_addsp(e, (int64_t)(fr->size - fr->save));
        e_far_jump(e, X0, g->restore_label[fr->nsave], SEG_TEXT, false, T1);
        return true;
    }
    unsigned top = fr->size;
    e_ldr(e, RA, SP, top - g->rs);
    for (unsigned i = 0; i < fr->nsave; i++)
        e_ldr(e, g_sorder[i], SP, top - g->rs * (2 + i));
    emit_addsp(e, (int64_t)fr->size);
    return false;
}

static void emit_return(struct fstate *fs, struct emit *e, unsigned link)
{
    struct gctx *g = fs->g;
    if (link == RA && grng_pct(&g->rng, 8)) {
        /* jalr t3, 0(ra): still a return (rs1 is a link, rd is not) */
        e_op32(e, OP_JALR, T3, RA, 0, 0);
        e->v->v[e->v->n - 1].cf = RVT_CF_RETURN;
        return;
    }
    e_jalr(e, X0, link, 0, RVT_CF_RETURN);
}

static void fs_init(struct fstate *fs, struct gctx *g, int fi, unsigned seg)
{
    memset(fs, 0, sizeof *fs);
    fs->g = g;
    fs->fi = fi;
    fs->seg = seg;
    fs->allow_traps = true;
    fs->cost_cap = g->cfg->cost_limit;
}

static void fs_free(struct fstate *fs)
{
    free(fs->body.v);
    free(fs->outlined.v);
}

static void append(struct gctx *g, struct gvec *dst, const struct gvec *src)
{
    for (size_t i = 0; i < src->n; i++)
        if (gvec_push(dst, &src->v[i]) < 0)
            g->b->oom = true;
}

/* Tail call to a higher function (after the epilogue); returns its cost or -1. */
static double tail_call(struct fstate *fs, struct emit *e, struct gvec *pre)
{
    struct gctx *g = fs->g;
    int j = pick_callee(fs, fs->cost_cap - fs->cost, false, false);
    if (j < 0)
        return -1;
    const struct gfunc *f = &g->fn[j];
    struct emit pe = {g, pre, e->seg};
    if (is_recursive(f))
        set_depth(fs, &pe, rec_max_depth(g, f));
    e_far_jump(e, X0, f->label, f->seg, f->aligned4k, T1);
    if (f->traps)
        fs->traps = true;
    if (f->lj_below)
        fs->lj_below = true;
    if (f->stack > fs->tail_stack)
        fs->tail_stack = f->stack;
    fs->cost += f->cost;
    return f->cost + 3;
}

static int gen_function(struct gctx *g, unsigned i)
{
    struct gfunc *f = &g->fn[i];
    struct fstate fs;
    fs_init(&fs, g, (int)i, f->seg);
    struct emit e = {g, &fs.body, f->seg};
    unsigned maxs = g->cfg->max_stmts;
    fs.budget = (int)grng_range(&g->rng, maxs / 4 + 1, maxs);
    fs.nscratch = (unsigned)grng_range(&g->rng, 0, 3);
    fs.locals = grng_pct(&g->rng, 50) ? (unsigned)grng_range(&g->rng, 1, 8) * 8 : 0;
    double pre_cost = 0, post_cost = 0;
    struct frame frm;
    bool tail = false;
    double tail_cost = 0;
    struct gvec tailseq = {0}, pre = {0};
    uint32_t l_base = gb_new_label(g->b);

    switch (f->kind) {
    case FK_LEAF5: {
        fs.leaf5 = true;
        fs.no_calls = true;
        fs.nscratch = 0;
        fs.locals = 0;
        double c = gen_block(&fs, &e, (unsigned)fs.budget > 6 ? 6 : (unsigned)fs.budget, 1);
        emit_return(&fs, &e, T0);
        f->cost = c + 1;
        f->stack = 0;
        break;
    }
    case FK_NORMAL: {
        if (f->setjmp_host) {
            fs.jb_off = (fs.locals + 7) & ~7u;
            if (fs.jb_off == 0)
                fs.jb_off = 8; /* nonzero marks "has a jmp_buf" */
            fs.locals = fs.jb_off;
            fs.max_sreg = NSREG; /* longjmp skips callee restores: save everything */
            double c = gen_block(&fs, &e, (unsigned)grng_range(&g->rng, 0, 2), 1);
            c += st_setjmp(&fs, &e, 1);
            fs.cost += 10;
            c += gen_block(&fs, &e, (unsigned)grng_range(&g->rng, 1, 3), 1);
            pre_cost = c;
        } else {
            pre_cost = gen_block(&fs, &e, (unsigned)fs.budget, 1);
        }
        if ((g->feat & RVT_GEN_TAILCALLS) && grng_pct(&g->rng, 25)) {
            struct emit te = {g, &tailseq, f->seg};
            tail_cost = tail_call(&fs, &te, &pre);
            tail = tail_cost >= 0;
            if (!tail) {
                tailseq.n = 0;
                pre.n = 0;
            }
        }
        break;
    }
    case FK_REC_LINEAR:
    case FK_REC_TAIL:
    case FK_REC_MUTUAL:
    case FK_REC_BINARY: {
        /* prologue-side work keeps a0 (the depth) intact: no calls */
        bool binary = f->kind == FK_REC_BINARY;
        if (binary) {
            fs.loop_base = 1;
            fs.max_sreg = 1;
        }
        fs.a0_live = true;
        fs.no_calls = true;
        unsigned n1 = (unsigned)grng_range(&g->rng, 1, 3);
        pre_cost = gen_block(&fs, &e, n1, 1);
        unsigned depth_reg = A0;
        if (binary) {
            e_op(&e, OP_ADD, S0, X0, A0, 0); /* mv s0, a0 */
            depth_reg = S0;
        }
        e_branch(&e, OP_BEQ, depth_reg, X0, l_base, 0);
        fs.a0_live = false;
        fs.no_calls = false;
        if (f->kind == FK_REC_TAIL) {
            e_op(&e, OP_ADDI, A0, A0, 0, -1);
            /* the tail self-call is emitted after the first epilogue below */
        } else {
            unsigned calls = binary ? 2 : 1;
            for (unsigned k = 0; k < calls; k++) {
                e_op(&e, OP_ADDI, A0, depth_reg, 0, -1);
                const struct gfunc *t = f->kind == FK_REC_MUTUAL ? &g->fn[f->partner] : f;
                e_far_jump(&e, RA, t->label, t->seg, t->aligned4k, T1);
                fs.calls = true;
            }
            pre_cost += 2 * calls + 1;
        }
        break;
    }
    }

    if (f->kind == FK_LEAF5) {
        /* no frame, body is complete */
        append(g, &g->b->frags[f->frag]->code, &fs.body);
    } else {
        bool rec = f->kind != FK_NORMAL;
        struct gvec post = {0};
        struct emit pe = {g, &post, f->seg};
        if (rec) {
            /* after the base-case label: work that may call others */
            e_label(&pe, l_base);
            fs.budget = fs.budget > 4 ? 4 : fs.budget;
            post_cost = gen_block(&fs, &pe, (unsigned)grng_range(&g->rng, 0, 3), 1);
        }
        plan_frame(&fs, &frm, !tail && f->kind != FK_REC_TAIL);
        struct gvec *out = &g->b->frags[f->frag]->code;
        struct emit oe = {g, out, f->seg};
        /* prologue, body */
        struct gvec prol = {0};
        struct emit ple = {g, &prol, f->seg};
        emit_prologue(&fs, &ple, &frm);
        append(g, out, &prol);
        free(prol.v);
        out = &g->b->frags[f->frag]->code;
        append(g, out, &fs.body);
        if (f->kind == FK_REC_TAIL) {
            /* epilogue + tail self-call, then the base case */
            emit_epilogue(&fs, &oe, &frm, false);
            e_far_jump(&oe, X0, f->label, f->seg, f->aligned4k, T1);
        }
        append(g, &g->b->frags[f->frag]->code, &post);
        free(post.v);
        append(g, &g->b->frags[f->frag]->code, &pre);
        if (tail) {
            emit_epilogue(&fs, &oe, &frm, false);
            append(g, &g->b->frags[f->frag]->code, &tailseq);
        } else if (!emit_epilogue(&fs, &oe, &frm, true)) {
            emit_return(&fs, &oe, RA);
        }
        /* costs and stack */
        double level = pre_cost + post_cost + 2 * frm.nsave + 6;
        unsigned D = rec_max_depth(g, f);
        double ed = D / 2.0;
        switch (f->kind) {
        case FK_REC_LINEAR:
            f->cost = (ed + 1) * level;
            f->stack = (uint64_t)(D + 1) * frm.size + fs.callee_stack;
            break;
        case FK_REC_TAIL: /* the frame is popped before each self-call */
            f->cost = (ed + 1) * level;
            f->stack = frm.size + fs.callee_stack;
            break;
        case FK_REC_BINARY:
            f->cost = (double)((2u << (D / 2)) - 1) * level; /* 2^(E[depth]+1) - 1 calls */
            f->stack = (uint64_t)(D + 1) * frm.size + fs.callee_stack;
            break;
        case FK_REC_MUTUAL: {
            struct gfunc *pt = &g->fn[f->partner];
            if ((unsigned)f->partner > i) {
                /* the partner was built first: the pair's cost and stack */
                double plevel = pt->cost; /* partner stored its own level cost */
                f->cost = (ed + 1) * (level + plevel) / 2;
                uint64_t fmax = frm.size > pt->stack ? frm.size : pt->stack;
                uint64_t cs = fs.callee_stack > pt->callee_stack ? fs.callee_stack : pt->callee_stack;
                f->stack = (uint64_t)(D + 2) * fmax + cs;
                pt->cost = f->cost;
                pt->stack = f->stack;
                if (fs.traps)
                    pt->traps = true;
                if (fs.lj_below)
                    pt->lj_below = true;
            } else {
                f->cost = level;     /* per level, completed by the partner */
                f->stack = frm.size; /* the frame, ditto */
                f->callee_stack = fs.callee_stack;
            }
            break;
        }
        default:
            f->cost = pre_cost + post_cost + 2 * frm.nsave + 4 + (tail ? tail_cost : 0);
            f->stack = frm.size + fs.callee_stack;
            if (fs.tail_stack > f->stack)
                f->stack = fs.tail_stack;
            break;
        }
        free(tailseq.v);
        free(pre.v);
    }
    /* local out-of-line code after the function's code */
    append(g, &g->b->frags[f->frag]->code, &fs.outlined);
    f->traps = f->traps || fs.traps;
    f->lj_below = f->lj_below || fs.lj_below;
    f->generated = true;
    fs_free(&fs);
    return g->b->oom ? -RVT_ERR_NOMEM : 0;
}

int gen_functions(struct gctx *g)
{
    /* Kinds and placement first (labels exist before any body refers to them). */
    unsigned n = g->nfn;
    for (unsigned i = 0; i < n; i++) {
        struct gfunc *f = &g->fn[i];
        snprintf(f->name, sizeof f->name, "f%u", i);
        f->label = gb_new_label(g->b);
        f->partner = -1;
        unsigned r = (unsigned)grng_below(&g->rng, 100);
        if ((g->feat & RVT_GEN_ALTLINK) && r < 12 && i > 0)
            f->kind = FK_LEAF5;
        else if ((g->feat & RVT_GEN_RECURSION) && r < 24)
            f->kind = (uint8_t)((g->feat & RVT_GEN_TAILCALLS) && grng_pct(&g->rng, 30) ? FK_REC_TAIL
                                : grng_pct(&g->rng, 30)                          ? FK_REC_BINARY
                                                                                 : FK_REC_LINEAR);
        else if ((g->feat & RVT_GEN_RECURSION) && r < 30 && i + 1 < n && g->fn[i].kind == FK_NORMAL)
            f->kind = FK_REC_MUTUAL;
        else
            f->kind = FK_NORMAL;
        if (f->kind == FK_NORMAL && (g->feat & RVT_GEN_LONGJMP) && grng_pct(&g->rng, 12))
            f->setjmp_host = true;
        if (f->kind == FK_LEAF5)
            snprintf(f->name, sizeof f->name, "leaf%u", i);
    }
    /* mutual pairs are adjacent (i, i+1) so no other function sits between */
    for (unsigned i = 0; i + 1 < n; i++) {
        if (g->fn[i].kind == FK_REC_MUTUAL && g->fn[i].partner < 0) {
            struct gfunc *p2 = &g->fn[i + 1];
            p2->kind = FK_REC_MUTUAL;
            p2->setjmp_host = false;
            p2->partner = (int)i;
            g->fn[i].partner = (int)(i + 1);
            snprintf(g->fn[i].name, sizeof g->fn[i].name, "ping%u", i);
            snprintf(p2->name, sizeof p2->name, "pong%u", i + 1);
            i++;
        } else if (g->fn[i].kind == FK_REC_MUTUAL) {
            g->fn[i].kind = FK_REC_LINEAR;
        }
    }
    if (n && g->fn[n - 1].kind == FK_REC_MUTUAL && g->fn[n - 1].partner < 0)
        g->fn[n - 1].kind = FK_REC_LINEAR;
    /* Placement before any body refers to a function; the first function in
     * .text.high (the highest-numbered, generated first) sits at its 4 KiB
     * aligned start. */
    unsigned nhigh = 0, maxhigh = n / 5 < 24 ? n / 5 : 24;
    for (unsigned k = n; k-- > 0;) {
        struct gfunc *f = &g->fn[k];
        f->seg = SEG_TEXT;
        if ((g->feat & RVT_GEN_FARCODE) && nhigh < maxhigh && grng_pct(&g->rng, 18)) {
            f->seg = SEG_HIGH;
            f->aligned4k = nhigh++ == 0;
        }
    }
    /* Generate from the last function down: callees exist before callers. */
    for (unsigned k = n; k-- > 0;) {
        struct gfunc *f = &g->fn[k];
        unsigned align = f->aligned4k ? 4 : g->rvc && grng_pct(&g->rng, 50) ? 2 : 4;
        f->frag = gb_new_frag(g->b, f->name, f->seg, align, true);
        struct emit le = {g, &g->b->frags[f->frag]->code, f->seg};
        e_label(&le, f->label);
        int r = gen_function(g, k);
        if (r < 0)
            return r;
    }
    return 0;
}

double gen_call_any(struct gctx *g, struct emit *e, double max_cost, bool allow_traps)
{
    struct fstate fs;
    fs_init(&fs, g, -1, e->seg);
    fs.allow_traps = allow_traps;
    fs.cost_cap = max_cost;
    double c = st_call(&fs, e, 1, false);
    if (fs.callee_stack > g->handler_stack)
        g->handler_stack = fs.callee_stack;
    fs_free(&fs);
    return c;
}

int gen_task(struct gctx *g, size_t frag, unsigned proc)
{
    struct fstate fs;
    fs_init(&fs, g, -1, g->b->frags[frag]->seg);
    fs.cost_cap = g->cfg->cost_limit * 3.0;
    fs.nscratch = 3;
    fs.locals = 64;
    fs.budget = (int)g->cfg->max_stmts;
    struct emit e = {g, &fs.body, g->b->frags[frag]->seg};
    uint32_t top = gb_new_label(g->b);
    emit_addsp(&e, -64);
    e_label(&e, top);
    /* Each iteration calls one function of the whole pool through a
     * table indexed by the entropy CSR (so every function runs over time),
     * then a few random statements. */
    unsigned nf = 0;
    for (unsigned j = 0; j < g->nfn; j++)
        if (g->fn[j].kind != FK_LEAF5)
            nf++;
    unsigned n2 = 1;
    while (n2 < nf)
        n2 *= 2;
    uint32_t *ents = malloc(n2 * sizeof *ents);
    if (!ents)
        return -RVT_ERR_NOMEM;
    unsigned k = 0;
    for (unsigned j = 0; k < n2; j = (j + 1) % g->nfn)
        if (g->fn[j].kind != FK_LEAF5) {
            ents[k++] = g->fn[j].label;
            note_callee(&fs, &g->fn[j]);
        }
    char name[32];
    snprintf(name, sizeof name, "task%u_funcs", proc);
    uint32_t tbl = gb_new_table(g->b, name, ents, n2, false);
    free(ents);
    set_depth(&fs, &e, g->cfg->max_recursion > 4 ? 4 : g->cfg->max_recursion);
    e_csr(&e, OP_CSRRS, T2, CSR_ENTROPY, X0);
    unsigned kbits = (unsigned)__builtin_ctz(n2);
    if (n2 <= 2048) {
        e_op(&e, OP_ANDI, T2, T2, 0, n2 - 1);
        e_op(&e, OP_SLLI, T2, T2, 0, g->lrs);
    } else { /* keep the low kbits, scaled by the entry size */
        e_op(&e, OP_SLLI, T2, T2, 0, g->xlen - kbits);
        e_op(&e, OP_SRLI, T2, T2, 0, g->xlen - kbits - g->lrs);
    }
    e_la(&e, T1, tbl, SEG_RODATA, true);
    e_op(&e, OP_ADD, T1, T1, T2, 0);
    e_ldr(&e, T1, T1, 0);
    e_jalr(&e, RA, T1, 0, RVT_CF_CALL_UNINF);
    unsigned n = (unsigned)grng_range(&g->rng, 1, 4);
    for (unsigned i = 0; i < n && fs.budget > 0; i++)
        gen_block(&fs, &e, 1, 1);
    if (g->handlers && (g->feat & (RVT_GEN_PRIV | RVT_GEN_CONTEXT)) && grng_pct(&g->rng, 60)) {
        e_op(&e, OP_ADDI, A7, X0, 0, g->nproc > 1 ? 0 : 3);
        e_op32(&e, OP_ECALL, 0, 0, 0, 0);
    }
    e_jal(&e, X0, top, RVT_CF_JUMP_INF, false);
    append(g, &g->b->frags[frag]->code, &fs.body);
    append(g, &g->b->frags[frag]->code, &fs.outlined);
    uint64_t st = 64 + fs.callee_stack;
    if (st > g->task_stack)
        g->task_stack = st;
    fs_free(&fs);
    return g->b->oom ? -RVT_ERR_NOMEM : 0;
}
