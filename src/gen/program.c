/* Generator: configuration, program construction, accessors. */
#include "gen/emit.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    uint32_t bit;
    const char *name;
} g_features[] = {
    {RVT_GEN_COMPRESSED, "compressed"}, {RVT_GEN_LOOPS, "loops"},
    {RVT_GEN_RECURSION, "recursion"},   {RVT_GEN_TAILCALLS, "tailcalls"},
    {RVT_GEN_TABLES, "tables"},         {RVT_GEN_SIJUMPS, "sijumps"},
    {RVT_GEN_ALTLINK, "altlink"},       {RVT_GEN_COROUTINES, "coroutines"},
    {RVT_GEN_LONGJMP, "longjmp"},       {RVT_GEN_FARCODE, "farcode"},
    {RVT_GEN_TRAPS, "traps"},           {RVT_GEN_INTERRUPTS, "interrupts"},
    {RVT_GEN_NESTED, "nested"},         {RVT_GEN_PRIV, "priv"},
    {RVT_GEN_CONTEXT, "context"},       {RVT_GEN_TIME, "time"},
    {RVT_GEN_DATA, "data"},             {RVT_GEN_ATOMICS, "atomics"},
    {RVT_GEN_FP, "fp"},
};

const char *rvt_gen_feature_name(uint32_t feature)
{
    for (size_t i = 0; i < sizeof g_features / sizeof g_features[0]; i++)
        if (g_features[i].bit == feature)
            return g_features[i].name;
    return NULL;
}

uint32_t rvt_gen_feature_parse(const char *name)
{
    for (size_t i = 0; i < sizeof g_features / sizeof g_features[0]; i++)
        if (strcmp(g_features[i].name, name) == 0)
            return g_features[i].bit;
    return 0;
}

void rvt_gen_config_init(struct rvt_gen_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->size = sizeof *cfg;
    cfg->seed = 1;
    cfg->xlen = 64;
    cfg->insns = 100000;
    cfg->features = RVT_GEN_DEFAULT_FEATURES;
    cfg->functions = 40;
    cfg->processes = 3;
    cfg->max_recursion = 6;
    cfg->max_loop_iters = 12;
    cfg->max_nesting = 3;
    cfg->max_stmts = 24;
    cfg->cost_limit = 3000;
    cfg->p_compressed = 50;
    cfg->p_call = 14;
    cfg->p_indirect = 35;
    cfg->p_branch_taken = 50;
    cfg->p_trap = 5;
    cfg->p_syscall = 4;
    cfg->p_longjmp = 30;
    cfg->interrupt_interval = 1500;
    cfg->stall_max = 3;
}

/* Check a configuration; fills *out with it (defaults for a smaller struct). */
static int check_config(const struct rvt_gen_config *in, struct rvt_gen_config *out, struct rvt_diag *diag)
{
    rvt_gen_config_init(out);
    if (!in || in->size < offsetof(struct rvt_gen_config, functions))
        return rvt_fail(diag, RVT_ERR_INVAL, "generator: config size %zu too small", in ? in->size : 0);
    memcpy(out, in, in->size < sizeof *out ? in->size : sizeof *out);
    out->size = sizeof *out;
    const struct rvt_gen_config *c = out;
#define RANGE(field, lo, hi)                                                                                 \
    do {                                                                                                     \
        if ((uint64_t)c->field < (uint64_t)(lo) || (uint64_t)c->field > (uint64_t)(hi))                      \
            return rvt_fail(diag, RVT_ERR_INVAL, "generator: %s = %" PRIu64 " out of range [%" PRIu64 ", %" PRIu64 "]", \
                            #field, (uint64_t)c->field, (uint64_t)(lo), (uint64_t)(hi));                    \
    } while (0)
    if (c->xlen != 32 && c->xlen != 64)
        return rvt_fail(diag, RVT_ERR_INVAL, "generator: xlen %u (expected 32 or 64)", c->xlen);
    if (c->features & ~(uint32_t)RVT_GEN_ALL_FEATURES)
        return rvt_fail(diag, RVT_ERR_INVAL, "generator: unknown feature bits 0x%x",
                        c->features & ~(uint32_t)RVT_GEN_ALL_FEATURES);
    RANGE(functions, 4, 4000);
    RANGE(processes, 1, 16);
    RANGE(max_recursion, 1, 16);
    RANGE(max_loop_iters, 1, 64);
    RANGE(max_nesting, 1, 8);
    RANGE(max_stmts, 1, 200);
    RANGE(cost_limit, 100, 100000000);
    RANGE(p_compressed, 0, 100);
    RANGE(p_call, 0, 100);
    RANGE(p_indirect, 0, 100);
    RANGE(p_branch_taken, 0, 100);
    RANGE(p_trap, 0, 1000);
    RANGE(p_syscall, 0, 1000);
    RANGE(p_longjmp, 0, 100);
    RANGE(interrupt_interval, 10, 100000000);
    RANGE(stall_max, 0, 1000);
#undef RANGE
    if (c->text_base) {
        /* page aligned, above the null page, and the low window (code,
         * tables, RAM) below the high code segment */
        uint64_t top = c->xlen == 32 ? (uint64_t)1 << 32 : 0;
        uint64_t mask = c->xlen == 32 ? (uint64_t)0xffffffffu : ~(uint64_t)0;
        uint64_t limit = ((top - 0x1000 - 0x20000) - (uint64_t)0x40000000) & mask; /* LOW_SPAN below the high window */
        if ((c->text_base & 0xfff) || c->text_base < 0x1000 || c->text_base > limit)
            return rvt_fail(diag, RVT_ERR_INVAL,
                            "generator: text_base 0x%" PRIx64 " must be 4 KiB aligned, >= 0x1000 and <= 0x%" PRIx64,
                            c->text_base, limit);
    }
    return 0;
}

/* Features implied by others (see gen.h). */
static uint32_t effective_features(uint32_t f)
{
    if ((f & RVT_GEN_NESTED) && !(f & (RVT_GEN_TRAPS | RVT_GEN_INTERRUPTS)))
        f |= RVT_GEN_TRAPS;
    return f;
}

int rvt_gen_program_new(struct rvt_gen_program **out, const struct rvt_gen_config *cfg, struct rvt_diag *diag)
{
    *out = NULL;
    struct rvt_gen_program *p = calloc(1, sizeof *p);
    if (!p)
        return rvt_fail(diag, RVT_ERR_NOMEM, "generator: out of memory");
    int r = check_config(cfg, &p->cfg, diag);
    if (r < 0) {
        free(p);
        return r;
    }
    p->features = effective_features(p->cfg.features);
    p->xlen = p->cfg.xlen;
    p->regsz = p->xlen / 8;

    struct gbuild b;
    memset(&b, 0, sizeof b);
    b.p = p;
    b.diag = diag;
    b.xlen = p->xlen;

    struct gctx g;
    memset(&g, 0, sizeof g);
    g.p = p;
    g.b = &b;
    g.cfg = &p->cfg;
    grng_seed(&g.rng, p->cfg.seed ^ 0x52565452414345ull); /* "RVTRACE" */
    g.feat = p->features;
    g.xlen = p->xlen;
    g.rs = p->regsz;
    g.lrs = p->regsz == 8 ? 3 : 2;
    g.rvc = (g.feat & RVT_GEN_COMPRESSED) != 0;
    g.handlers = (g.feat & (RVT_GEN_TRAPS | RVT_GEN_INTERRUPTS | RVT_GEN_PRIV | RVT_GEN_CONTEXT | RVT_GEN_NESTED)) != 0;
    g.priv = (g.feat & RVT_GEN_PRIV) != 0;
    g.vectored = (g.feat & RVT_GEN_INTERRUPTS) && grng_pct(&g.rng, 50);
    g.nproc = (g.feat & RVT_GEN_CONTEXT) ? (p->cfg.processes < 2 ? 2 : p->cfg.processes) : 1;
    p->nproc = g.nproc;
    g.tframe = (35 * g.rs + 15) & ~15u;
    g.tf_epc = 32 * g.rs;
    g.tf_status = 33 * g.rs;
    g.tf_jb = 34 * g.rs;
    g.trap_cost = 100;

    /* Where the low segments start: common embedded and user addresses, one
     * just below 2 GiB so that code crosses the sign bit of a 32-bit
     * address, and for RV64 one above 4 GiB. */
    static const uint64_t bases32[] = {0x80000000ull, 0x00010000ull, 0x20000000ull, 0x7ffff000ull};
    static const uint64_t bases64[] = {0x00010000ull, 0x80000000ull, 0x240000000ull, 0x7ffff000ull,
                                       0xffffffff80000000ull};
    g.text_base = p->xlen == 32 ? bases32[grng_below(&g.rng, 4)] : bases64[grng_below(&g.rng, 5)];
    if (p->cfg.size >= offsetof(struct rvt_gen_config, text_base) + sizeof p->cfg.text_base && p->cfg.text_base)
        g.text_base = p->cfg.text_base;
    b.seg_base[SEG_TEXT] = g.text_base;
    b.seg_limit[SEG_RAM] = g.text_base + LOW_SPAN;

    /* RAM layout (offsets from gp = RAM + 0x800, and from RAM). */
    struct gram *ram = &p->ram;
    ram->globals_size = 0x1000;
    ram->nest_off = -0x800;
    ram->cur_off = -0x7fc;
    ram->null_off = -0x7f8;
    ram->pcb_off = -0x7f0;
    ram->ctx_off = -0x770;
    ram->got_off = -0x6f0;
    ram->got_max = (int)(0x8f0 / g.rs) - 2; /* up to +0x200 */
    ram->data_off = 0x200;
    ram->data_size = 0x600;
    ram->proc_area_size = 0x100;

    /* Interrupt sources the program enables. */
    if (g.feat & RVT_GEN_INTERRUPTS) {
        static const unsigned mcause[] = {3, 7, 11}, scause[] = {1, 5, 9};
        uint32_t m = 0;
        for (unsigned i = 0; i < 3; i++) {
            if (grng_pct(&g.rng, 70))
                m |= 1u << mcause[i];
            if (g.priv && grng_pct(&g.rng, 70))
                m |= 1u << scause[i];
        }
        if (g.nproc > 1)
            m |= 1u << (g.priv ? 5 : 7);
        if (!(m & 0x888))
            m |= 1u << 7;
        if (g.priv && !(m & 0x222))
            m |= 1u << 9;
        p->mie_mask = m;
    }

    g.nfn = p->cfg.functions;
    g.fn = calloc(g.nfn, sizeof *g.fn);
    if (!g.fn) {
        rvt_gen_program_free(p);
        return rvt_fail(diag, RVT_ERR_NOMEM, "generator: out of memory");
    }
    for (unsigned k = 0; k <= NSREG; k++) {
        g.save_label[k] = gb_new_label(&b);
        g.restore_label[k] = gb_new_label(&b);
    }

    size_t boot = gb_new_frag(&b, "_start", SEG_TEXT, 4, true);
    r = gen_functions(&g);
    uint32_t tasks[16];
    for (unsigned i = 0; r == 0 && i < g.nproc; i++) {
        char name[16];
        snprintf(name, sizeof name, "task%u", i);
        size_t f = gb_new_frag(&b, name, SEG_TEXT, 4, true);
        tasks[i] = gb_new_label(&b);
        struct emit e = {&g, &b.frags[f]->code, SEG_TEXT};
        e_label(&e, tasks[i]);
        r = gen_task(&g, f, i);
    }
    if (r == 0)
        r = gen_system(&g, boot, tasks);
    if (r == 0)
        r = gb_finish(&b);
    else if (b.oom)
        r = rvt_fail(diag, RVT_ERR_NOMEM, "generator: out of memory");
    else if (b.err[0])
        r = rvt_fail(diag, RVT_ERR_LIMIT, "generator: %s", b.err);
    free(g.fn);
    p->entry = b.seg_base[SEG_TEXT];
    gb_free(&b);
    if (r < 0) {
        rvt_gen_program_free(p);
        return r;
    }
    /* Context values of the processes (written to `context` on a switch). */
    for (unsigned i = 0; i < g.nproc; i++) {
        uint64_t v = 0x100 * (i + 1) + (grng_next(&g.rng) & 0xff);
        uint8_t *d = p->segdata[SEG_RAM] + 0x800 + ram->ctx_off + i * g.rs;
        for (unsigned k = 0; k < g.rs; k++)
            d[k] = (uint8_t)(v >> (8 * k));
    }
    /* Random initial global data (loads see varied values). */
    for (int o = 0; o < ram->data_size; o++)
        p->segdata[SEG_RAM][0x800 + ram->data_off + o] = (uint8_t)grng_next(&g.rng);
    p->seg[SEG_RAM].data = p->segdata[SEG_RAM];
    for (unsigned i = 0; i < p->nseg; i++)
        if (p->segs_out[i].addr == p->seg[SEG_RAM].addr && (p->segs_out[i].flags & RVT_GEN_SEG_WRITE))
            p->segs_out[i].data = p->segdata[SEG_RAM];
    p->ram_init = p->segdata[SEG_RAM];
    *out = p;
    return 0;
}

void rvt_gen_program_free(struct rvt_gen_program *p)
{
    if (!p)
        return;
    for (unsigned s = 0; s < SEG__COUNT; s++)
        free(p->segdata[s]);
    free(p->syms);
    free(p->symnames);
    free(p->xi);
    for (unsigned i = 0; i < 2; i++)
        free(p->xcode[i].slot);
    free(p->ann);
    free(p);
}

unsigned rvt_gen_xlen(const struct rvt_gen_program *p)
{
    return p->xlen;
}
uint64_t rvt_gen_entry(const struct rvt_gen_program *p)
{
    return p->entry;
}
uint32_t rvt_gen_features(const struct rvt_gen_program *p)
{
    return p->features;
}
size_t rvt_gen_segment_count(const struct rvt_gen_program *p)
{
    return p->nseg;
}
const struct rvt_gen_segment *rvt_gen_segment(const struct rvt_gen_program *p, size_t i)
{
    return i < p->nseg ? &p->segs_out[i] : NULL;
}
size_t rvt_gen_symbol_count(const struct rvt_gen_program *p)
{
    return p->nsyms;
}
const struct rvt_symbol *rvt_gen_symbol(const struct rvt_gen_program *p, size_t i)
{
    return i < p->nsyms ? &p->syms[i] : NULL;
}
uint64_t rvt_gen_code_insns(const struct rvt_gen_program *p)
{
    return p->code_insns;
}

int rvt_gen_for_each_insn(const struct rvt_gen_program *p,
                          int (*fn)(void *ctx, uint64_t pc, uint32_t bits, unsigned len), void *ctx)
{
    for (unsigned c = 0; c < p->nxcode; c++) {
        const struct xcode *xc = &p->xcode[c];
        for (uint64_t h = 0; h < xc->size / 2; h++) {
            uint32_t s = xc->slot[h];
            if (!s)
                continue;
            const struct xinsn *x = &p->xi[s - 1];
            int r = fn(ctx, xc->base + 2 * h, x->bits, x->len);
            if (r)
                return r;
        }
    }
    return 0;
}
