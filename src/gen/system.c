/* Generator: boot code, trap handlers with a scheduler, millicode
 * save/restore routines.
 *
 * Trap frame (tframe bytes, on the interrupted stack): register r at r*rs
 * (x1, x4..x31; sp is implied, gp is constant), then epc, status and the
 * interrupted code's setjmp pointer.  A handler: saves everything, skips
 * the faulting instruction of an exception (2 or 4 bytes, read from code),
 * dispatches on the cause, may run "work" with interrupts re-enabled
 * (nested traps), may switch to another process (only the outermost trap,
 * at the switching level), and returns through the common exit that
 * restores the frame of whatever stack it is on.  The boot code starts the
 * first process through that same exit. */
#include "gen/emit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct hlevel {
    bool m;             /* M-mode handler (else S) */
    unsigned csr_status, csr_epc, csr_cause, csr_tvec, csr_context;
    unsigned ie_bit;    /* MIE / SIE in the status register */
    unsigned timer;     /* timer interrupt cause that schedules */
    bool switching;     /* this level switches processes */
    bool sbi;           /* relays system call 2 to M-mode */
    uint32_t entry, done, vec;
    unsigned seg;
};

static void e_jal32(struct emit *e, unsigned rd, uint32_t label, unsigned cf)
{
    struct gins in = gi_make(OP_JAL, rd, 0, 0, 0);
    in.cf = (uint8_t)cf;
    in.reloc = RL_JAL;
    in.label = label;
    e_push(e, &in);
}

/* Work done inside a handler: a call with interrupts re-enabled (nested
 * traps) or a few inline instructions. */
static void handler_work(struct gctx *g, struct emit *e, const struct hlevel *h, uint32_t l_done)
{
    const struct gram *ram = &g->p->ram;
    if (g->feat & RVT_GEN_NESTED) {
        e_op(e, OP_LW, T1, GP, 0, ram->nest_off);
        e_op(e, OP_ADDI, T2, X0, 0, g->cfg->max_nesting);
        e_branch(e, OP_BGE, T1, T2, l_done, 0);
        /* about half of the traps do work (a data-dependent choice) */
        e_branch(e, OP_BNE, T3, T4, l_done, ann_random(g, 50));
        e_csr(e, OP_CSRRSI, X0, h->csr_status, h->ie_bit);
        double c = gen_call_any(g, e, g->cfg->cost_limit / 8.0, true);
        if (c < 0)
            e_op(e, OP_ADDI, T3, T3, 0, 1);
        e_csr(e, OP_CSRRCI, X0, h->csr_status, h->ie_bit);
    } else {
        unsigned n = (unsigned)grng_range(&g->rng, 1, 4);
        for (unsigned i = 0; i < n; i++) {
            unsigned rd = T3 + (unsigned)grng_below(&g->rng, 4), rs = T3 + (unsigned)grng_below(&g->rng, 4);
            e_op(e, OP_ADDI, rd, rs, 0, grng_range(&g->rng, -100, 100));
        }
    }
    if ((g->feat & RVT_GEN_INTERRUPTS) && grng_pct(&g->rng, 30))
        e_op32(e, OP_WFI, 0, 0, 0, 0);
}

/* Jump to one of the labels by a small index in t1 (0..n-1): through a
 * table in .rodata or a chain of compares. */
static void dispatch(struct gctx *g, struct emit *e, const uint32_t *targets, unsigned n, const char *name)
{
    if ((g->feat & RVT_GEN_TABLES) && grng_pct(&g->rng, 60)) {
        uint32_t tbl = gb_new_table(g->b, name, targets, n, false);
        e_op(e, OP_SLLI, T1, T1, 0, g->lrs);
        e_la(e, T2, tbl, SEG_RODATA, true);
        e_op(e, OP_ADD, T2, T2, T1, 0);
        e_ldr(e, T2, T2, 0);
        e_jalr(e, X0, T2, 0, RVT_CF_JUMP_UNINF);
        return;
    }
    /* compare chain; the last target is the default */
    for (unsigned k = 0; k + 1 < n; k++) {
        if (targets[k] == targets[n - 1])
            continue;
        e_op(e, OP_ADDI, T2, X0, 0, k);
        e_branch(e, OP_BEQ, T1, T2, targets[k], 0);
    }
    e_jal(e, X0, targets[n - 1], RVT_CF_JUMP_INF, false);
}

static int gen_handler(struct gctx *g, struct hlevel *h)
{
    const struct gram *ram = &g->p->ram;
    int rs = (int)g->rs;
    char name[32];
    snprintf(name, sizeof name, "%s_trap", h->m ? "m" : "s");
    size_t fr = gb_new_frag(g->b, name, h->seg, 4, true);
    struct gvec code = {0};
    struct emit e = {g, &code, h->seg};
    h->entry = gb_new_label(g->b);
    h->done = gb_new_label(g->b);
    uint32_t l_irq = gb_new_label(g->b), l_ecall = gb_new_label(g->b), l_other = gb_new_label(g->b);
    uint32_t l_work = gb_new_label(g->b), l_sched = gb_new_label(g->b), l_yield = gb_new_label(g->b);
    uint32_t l_sbi = gb_new_label(g->b), l_timer = gb_new_label(g->b), l_len = gb_new_label(g->b);

    e_label(&e, h->entry);
    e_op(&e, OP_ADDI, SP, SP, 0, -(int64_t)g->tframe);
    for (unsigned r = 1; r < 32; r++)
        if (r != SP && r != GP)
            e_str(&e, r, SP, (int64_t)r * rs);
    e_csr(&e, OP_CSRRS, T1, h->csr_epc, X0);
    e_str(&e, T1, SP, g->tf_epc);
    e_csr(&e, OP_CSRRS, T1, h->csr_status, X0);
    e_str(&e, T1, SP, g->tf_status);
    e_ldr(&e, T1, TP, 0);
    e_str(&e, T1, SP, g->tf_jb);
    e_str(&e, X0, TP, 0);
    e_op(&e, OP_LW, T1, GP, 0, ram->nest_off);
    e_op(&e, OP_ADDI, T1, T1, 0, 1);
    e_op(&e, OP_SW, 0, GP, T1, ram->nest_off);
    e_csr(&e, OP_CSRRS, T1, h->csr_cause, X0);
    e_branch(&e, OP_BLT, T1, X0, l_irq, 0);

    /* exception: resume after the faulting instruction (16 or 32 bits) */
    e_ldr(&e, T2, SP, g->tf_epc);
    e_op(&e, OP_LHU, T3, T2, 0, 0);
    e_op(&e, OP_ANDI, T3, T3, 0, 3);
    e_op(&e, OP_ADDI, T4, X0, 0, 3);
    e_branch(&e, OP_BNE, T3, T4, l_len, 0);
    e_op(&e, OP_ADDI, T2, T2, 0, 2);
    e_label(&e, l_len);
    e_op(&e, OP_ADDI, T2, T2, 0, 2);
    e_str(&e, T2, SP, g->tf_epc);
    {
        uint32_t t[16];
        for (unsigned c = 0; c < 16; c++)
            t[c] = (c == 8 || c == 9 || c == 11) ? l_ecall : l_other;
        e_op(&e, OP_ANDI, T1, T1, 0, 15);
        snprintf(name, sizeof name, "%s_exc_tbl", h->m ? "m" : "s");
        dispatch(g, &e, t, 16, name);
    }
    /* system calls: a7 & 3 */
    e_label(&e, l_ecall);
    e_op(&e, OP_ANDI, T1, A7, 0, 3);
    {
        uint32_t t[4] = {l_yield, l_work, l_sbi, h->done};
        snprintf(name, sizeof name, "%s_sys_tbl", h->m ? "m" : "s");
        dispatch(g, &e, t, 4, name);
    }
    e_label(&e, l_yield);
    if (h->switching && g->nproc > 1)
        e_jal(&e, X0, l_sched, RVT_CF_JUMP_INF, false);
    else
        e_jal(&e, X0, h->done, RVT_CF_JUMP_INF, false);
    e_label(&e, l_sbi);
    if (h->sbi) {
        /* firmware call: an ecall from S-mode into the M handler */
        e_op(&e, OP_ADDI, A7, X0, 0, 3);
        e_op32(&e, OP_ECALL, 0, 0, 0, 0);
    }
    e_jal(&e, X0, h->done, RVT_CF_JUMP_INF, false);
    e_label(&e, l_other);
    e_jal(&e, X0, grng_pct(&g->rng, 50) ? l_work : h->done, RVT_CF_JUMP_INF, false);

    /* interrupts */
    e_label(&e, l_irq);
    e_op(&e, OP_ANDI, T1, T1, 0, 15);
    {
        uint32_t t[16];
        for (unsigned c = 0; c < 16; c++)
            t[c] = c == h->timer ? l_timer : l_work;
        snprintf(name, sizeof name, "%s_irq_tbl", h->m ? "m" : "s");
        dispatch(g, &e, t, 16, name);
    }
    e_label(&e, l_timer);
    if (h->switching && g->nproc > 1) {
        e_jal(&e, X0, l_sched, RVT_CF_JUMP_INF, false);
    }
    e_label(&e, l_work);
    handler_work(g, &e, h, h->done);
    e_jal(&e, X0, h->done, RVT_CF_JUMP_INF, false);

    /* scheduler: round robin, only from the outermost trap */
    e_label(&e, l_sched);
    if (h->switching && g->nproc > 1) {
        uint32_t l_nw = gb_new_label(g->b);
        e_op(&e, OP_LW, T1, GP, 0, ram->nest_off);
        e_op(&e, OP_ADDI, T2, X0, 0, 1);
        e_branch(&e, OP_BNE, T1, T2, h->done, 0);
        e_op(&e, OP_LW, T1, GP, 0, ram->cur_off);
        e_op(&e, OP_SLLI, T2, T1, 0, g->lrs);
        e_op(&e, OP_ADD, T2, T2, GP, 0);
        e_str(&e, SP, T2, ram->pcb_off);
        e_op(&e, OP_ADDI, T1, T1, 0, 1);
        e_op(&e, OP_ADDI, T3, X0, 0, g->nproc);
        e_branch(&e, OP_BLTU, T1, T3, l_nw, 0);
        e_op(&e, OP_ADDI, T1, X0, 0, 0);
        e_label(&e, l_nw);
        e_op(&e, OP_SW, 0, GP, T1, ram->cur_off);
        e_op(&e, OP_SLLI, T2, T1, 0, g->lrs);
        e_op(&e, OP_ADD, T2, T2, GP, 0);
        e_ldr(&e, SP, T2, ram->pcb_off);
        e_ldr(&e, T3, T2, ram->ctx_off);
        e_csr(&e, OP_CSRRW, X0, h->csr_context, T3);
        if (!h->m)
            e_op32(&e, OP_SFENCE_VMA, 0, 0, 0, 0);
    }

    /* common exit: restore the frame on the current stack */
    e_label(&e, h->done);
    e_op(&e, OP_LW, T1, GP, 0, ram->nest_off);
    e_op(&e, OP_ADDI, T1, T1, 0, -1);
    e_op(&e, OP_SW, 0, GP, T1, ram->nest_off);
    e_ldr(&e, TP, SP, 4 * rs);
    e_ldr(&e, T1, SP, g->tf_jb);
    e_str(&e, T1, TP, 0);
    e_ldr(&e, T1, SP, g->tf_status);
    e_csr(&e, OP_CSRRW, X0, h->csr_status, T1);
    e_ldr(&e, T1, SP, g->tf_epc);
    e_csr(&e, OP_CSRRW, X0, h->csr_epc, T1);
    for (unsigned r = 1; r < 32; r++)
        if (r != SP && r != GP && r != TP)
            e_ldr(&e, r, SP, (int64_t)r * rs);
    e_op(&e, OP_ADDI, SP, SP, 0, (int64_t)g->tframe);
    e_op32(&e, h->m ? OP_MRET : OP_SRET, 0, 0, 0, 0);

    for (size_t i = 0; i < code.n; i++)
        if (gvec_push(&g->b->frags[fr]->code, &code.v[i]) < 0)
            g->b->oom = true;
    free(code.v);

    /* vector table: base + 4*cause for interrupts, base for exceptions */
    if (g->vectored) {
        snprintf(name, sizeof name, "%s_vectors", h->m ? "m" : "s");
        size_t vf = gb_new_frag(g->b, name, h->seg, 64, true);
        struct emit ve = {g, &g->b->frags[vf]->code, h->seg};
        h->vec = gb_new_label(g->b);
        e_label(&ve, h->vec);
        for (unsigned c = 0; c < 16; c++)
            e_jal32(&ve, X0, h->entry, RVT_CF_JUMP_INF);
    }
    return g->b->oom ? -RVT_ERR_NOMEM : 0;
}

static void gen_millicode(struct gctx *g)
{
    int rs = (int)g->rs;
    for (unsigned k = 0; k <= NSREG; k++) {
        if (!g->save_used[k])
            continue;
        int sk = (rs * (1 + (int)k) + 15) & ~15;
        char name[32];
        snprintf(name, sizeof name, "__save_%u", k);
        size_t f = gb_new_frag(g->b, name, SEG_TEXT, g->rvc ? 2 : 4, true);
        struct emit e = {g, &g->b->frags[f]->code, SEG_TEXT};
        e_label(&e, g->save_label[k]);
        e_op(&e, OP_ADDI, SP, SP, 0, -sk);
        e_str(&e, RA, SP, sk - rs);
        for (unsigned i = 0; i < k; i++)
            e_str(&e, g_sorder[i], SP, sk - rs * (2 + (int)i));
        e_jalr(&e, X0, T0, 0, RVT_CF_RETURN);
        snprintf(name, sizeof name, "__restore_%u", k);
        f = gb_new_frag(g->b, name, SEG_TEXT, g->rvc ? 2 : 4, true);
        e.v = &g->b->frags[f]->code;
        e_label(&e, g->restore_label[k]);
        e_ldr(&e, RA, SP, sk - rs);
        for (unsigned i = 0; i < k; i++)
            e_ldr(&e, g_sorder[i], SP, sk - rs * (2 + (int)i));
        e_op(&e, OP_ADDI, SP, SP, 0, sk);
        e_jalr(&e, X0, RA, 0, RVT_CF_RETURN);
    }
}

/* Build the initial trap frames of every process and enter the first
 * through the handler's exit path. */
static void gen_kstart(struct gctx *g, struct emit *e, const struct hlevel *h, const uint32_t *tasks,
                       const uint32_t *frames, const uint32_t *areas)
{
    const struct gram *ram = &g->p->ram;
    int64_t status;
    if (h->m)
        status = 0x1800 | ((g->feat & RVT_GEN_INTERRUPTS) ? 0x80 : 0); /* MPP=M, MPIE */
    else
        status = (g->feat & RVT_GEN_INTERRUPTS) ? 0x20 : 0; /* SPP=U, SPIE */
    if (g->feat & RVT_GEN_FP)
        status |= 0x2000; /* FS = Initial: the FP unit is on */
    for (unsigned p = 0; p < g->nproc; p++) {
        e_la(e, T1, frames[p], SEG_RAM, true);
        e_la(e, T2, tasks[p], SEG_TEXT, true);
        e_str(e, T2, T1, g->tf_epc);
        e_li(e, T2, status);
        e_str(e, T2, T1, g->tf_status);
        e_la(e, T2, areas[p], SEG_RAM, true);
        e_str(e, T2, T1, 4 * g->rs);
        e_str(e, T1, GP, ram->pcb_off + (int)(p * g->rs));
    }
    if (g->nproc > 1) { /* the first process's context */
        e_ldr(e, T1, GP, ram->ctx_off);
        e_csr(e, OP_CSRRW, X0, h->csr_context, T1);
    }
    e_op(e, OP_ADDI, T1, X0, 0, 1);
    e_op(e, OP_SW, 0, GP, T1, ram->nest_off);
    e_op(e, OP_SW, 0, GP, X0, ram->cur_off);
    e_ldr(e, SP, GP, ram->pcb_off);
    e_far_jump(e, X0, h->done, h->seg, false, T1);
}

int gen_system(struct gctx *g, size_t boot_frag, const uint32_t *task_labels)
{
    struct rvt_gen_program *p = g->p;
    struct gram *ram = &p->ram;
    struct hlevel hm, hs;
    memset(&hm, 0, sizeof hm);
    memset(&hs, 0, sizeof hs);
    int r;
    if (g->handlers) {
        hm.m = true;
        hm.csr_status = CSR_MSTATUS;
        hm.csr_epc = CSR_MEPC;
        hm.csr_cause = CSR_MCAUSE;
        hm.csr_tvec = CSR_MTVEC;
        hm.csr_context = g->priv ? CSR_SCONTEXT : CSR_MCONTEXT;
        hm.ie_bit = 8;
        hm.timer = 7;
        hm.switching = !g->priv;
        hm.seg = (g->feat & RVT_GEN_FARCODE) && grng_pct(&g->rng, 40) ? SEG_HIGH : SEG_TEXT;
        r = gen_handler(g, &hm);
        if (r < 0)
            return r;
        if (g->priv) {
            hs.m = false;
            hs.csr_status = CSR_SSTATUS;
            hs.csr_epc = CSR_SEPC;
            hs.csr_cause = CSR_SCAUSE;
            hs.csr_tvec = CSR_STVEC;
            hs.csr_context = CSR_SCONTEXT;
            hs.ie_bit = 2;
            hs.timer = 5;
            hs.switching = true;
            hs.sbi = true;
            hs.seg = SEG_TEXT;
            r = gen_handler(g, &hs);
            if (r < 0)
                return r;
        }
    }
    gen_millicode(g);

    /* Stacks: the deepest task, plus nested trap frames with their work. */
    uint64_t per_trap = g->tframe + g->handler_stack + 64;
    uint64_t stack = g->task_stack + 256;
    if (g->handlers)
        stack += (uint64_t)(g->cfg->max_nesting + 3) * per_trap;
    stack = (stack + 15) & ~15ull;
    ram->stack_size = stack;
    ram->stack_guard = 256;
    ram->stack_base = (0x1000 + (uint64_t)g->nproc * ram->proc_area_size + 0xfff) & ~0xfffull;
    ram->size = ram->stack_base + (uint64_t)g->nproc * (ram->stack_size + ram->stack_guard) + ram->stack_guard;

    uint32_t frames[16], areas[16], tops[16];
    for (unsigned i = 0; i < g->nproc; i++) {
        uint64_t top = ram->stack_base + ram->stack_guard + (uint64_t)i * (ram->stack_size + ram->stack_guard) +
                       ram->stack_size;
        tops[i] = gb_ram_label(g->b, top);
        frames[i] = gb_ram_label(g->b, top - g->tframe);
        areas[i] = gb_ram_label(g->b, 0x1000 + (uint64_t)i * ram->proc_area_size);
    }
    uint32_t gp_label = gb_ram_label(g->b, 0x800);
    uint32_t boot_sp = gb_ram_label(g->b, ram->stack_base + ram->stack_guard + ram->stack_size - g->tframe - 64);

    /* _start (M-mode, at the entry address) */
    struct emit e = {g, &g->b->frags[boot_frag]->code, SEG_TEXT};
    e_la(&e, GP, gp_label, SEG_RAM, false);
    e_la(&e, TP, areas[0], SEG_RAM, true);
    int64_t fs_on = (g->feat & RVT_GEN_FP) ? 0x2000 : 0;
    if (fs_on) { /* mstatus.FS = Initial */
        e_li(&e, T1, fs_on);
        e_csr(&e, OP_CSRRS, X0, CSR_MSTATUS, T1);
    }
    if (!g->handlers) {
        e_la(&e, SP, tops[0], SEG_RAM, true);
        e_far_jump(&e, X0, task_labels[0], SEG_TEXT, false, T1);
        return g->b->oom ? -RVT_ERR_NOMEM : 0;
    }
    e_la(&e, SP, boot_sp, SEG_RAM, true);
    e_la(&e, T1, g->vectored ? hm.vec : hm.entry, hm.seg, true);
    if (g->vectored)
        e_op(&e, OP_ORI, T1, T1, 0, 1);
    e_csr(&e, OP_CSRRW, X0, CSR_MTVEC, T1);
    if (g->feat & RVT_GEN_INTERRUPTS) {
        e_li(&e, T1, p->mie_mask);
        e_csr(&e, OP_CSRRW, X0, CSR_MIE, T1);
    }
    if (!g->priv) {
        gen_kstart(g, &e, &hm, task_labels, frames, areas);
        return g->b->oom ? -RVT_ERR_NOMEM : 0;
    }
    /* M firmware: delegate, then enter the S kernel with mret */
    uint32_t medeleg = 0;
    static const unsigned deleg[] = {2, 3, 4, 6, 8, 13, 15};
    for (unsigned i = 0; i < sizeof deleg / sizeof deleg[0]; i++)
        if (deleg[i] == 8 || grng_pct(&g->rng, 75))
            medeleg |= 1u << deleg[i];
    e_op(&e, OP_ADDI, T1, X0, 0, 7);
    e_csr(&e, OP_CSRRW, X0, CSR_MCOUNTEREN, T1);
    e_li(&e, T1, medeleg);
    e_csr(&e, OP_CSRRW, X0, CSR_MEDELEG, T1);
    e_li(&e, T1, (1 << 1) | (1 << 5) | (1 << 9));
    e_csr(&e, OP_CSRRW, X0, CSR_MIDELEG, T1);
    size_t sf = gb_new_frag(g->b, "s_init", SEG_TEXT, g->rvc ? 2 : 4, true);
    uint32_t s_init = gb_new_label(g->b);
    e_la(&e, T1, s_init, SEG_TEXT, true);
    e_csr(&e, OP_CSRRW, X0, CSR_MEPC, T1);
    e_li(&e, T1, 0x800 | fs_on); /* MPP = S */
    e_csr(&e, OP_CSRRW, X0, CSR_MSTATUS, T1);
    e_op32(&e, OP_MRET, 0, 0, 0, 0);

    struct emit se = {g, &g->b->frags[sf]->code, SEG_TEXT};
    e_label(&se, s_init);
    e_la(&se, T1, g->vectored ? hs.vec : hs.entry, hs.seg, true);
    if (g->vectored)
        e_op(&se, OP_ORI, T1, T1, 0, 1);
    e_csr(&se, OP_CSRRW, X0, CSR_STVEC, T1);
    e_op(&se, OP_ADDI, T1, X0, 0, 7);
    e_csr(&se, OP_CSRRW, X0, CSR_SCOUNTEREN, T1);
    gen_kstart(g, &se, &hs, task_labels, frames, areas);
    return g->b->oom ? -RVT_ERR_NOMEM : 0;
}
