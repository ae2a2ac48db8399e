/* Filters on generated executions with traps, interrupts (nested),
 * privilege changes and several processes (contexts): the generator's
 * step stream (each retired instruction with its privilege and context,
 * each trap with cause, kind and tval) gives the expected decision for
 * every instruction, computed here from the steps (trap returns recognised
 * by their instruction bits), independently of the ingress records the
 * filter sees.  Both record shapes (one instruction per record, merged
 * blocks the filter must split), RV64 and RV32. */
#include "rvtrace/rvtrace.h"
#include "rvtrace/gen.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

struct step {
    uint64_t pc, context, tval;
    uint32_t cause;
    uint8_t priv, kind, len;
    bool interrupt, trapret;
};

struct steps {
    struct step *s;
    size_t n, cap;
    size_t insns, traps, irqs;
};

static int on_step(void *ctx, const struct rvt_gen_step *g)
{
    struct steps *v = ctx;
    if (v->n == v->cap) {
        v->cap = v->cap ? 2 * v->cap : 4096;
        v->s = realloc(v->s, v->cap * sizeof *v->s);
    }
    struct step *s = &v->s[v->n++];
    memset(s, 0, sizeof *s);
    s->kind = g->kind;
    s->pc = g->pc;
    s->priv = g->priv;
    s->context = g->context;
    if (g->kind == RVT_GEN_STEP_INSN) {
        s->len = g->len;
        /* mret / sret / uret */
        s->trapret = g->bits == 0x30200073u || g->bits == 0x10200073u || g->bits == 0x00200073u;
        v->insns++;
    } else {
        s->cause = g->cause;
        s->tval = g->tval;
        s->interrupt = g->interrupt;
        v->traps++;
        v->irqs += g->interrupt;
    }
    return 0;
}

/* The expected decision for one spec, from the steps. */
enum kind { K_PRIV, K_CAUSE, K_INTERRUPT, K_EXCEPTION, K_CTX, K_CAUSE_TVAL, K_IRQ_PRIV };
struct spec {
    const char *text;
    enum kind kind;
    uint64_t set;   /* priv bits / cause bits */
    uint64_t value; /* context / tval */
};

static void expected(const struct steps *v, const struct spec *sp, bool *want, size_t *ntraced)
{
    uint32_t depth_cause = 0, depth_int = 0;
    uint64_t tval = 0;
    size_t k = 0;
    *ntraced = 0;
    for (size_t i = 0; i < v->n; i++) {
        const struct step *s = &v->s[i];
        if (s->kind == RVT_GEN_STEP_TRAP) {
            bool cause_match = s->cause < 64 && (sp->set >> s->cause & 1);
            bool kind_match = sp->kind == K_INTERRUPT || sp->kind == K_IRQ_PRIV ? s->interrupt : !s->interrupt;
            if (depth_cause)
                depth_cause++;
            else if (cause_match)
                depth_cause = 1;
            if (depth_int)
                depth_int++;
            else if (kind_match)
                depth_int = 1;
            tval = s->tval;
            continue;
        }
        bool q;
        switch (sp->kind) {
        case K_PRIV:
            q = sp->set >> s->priv & 1;
            break;
        case K_CAUSE:
            q = depth_cause > 0;
            break;
        case K_INTERRUPT:
        case K_EXCEPTION:
            q = depth_int > 0;
            break;
        case K_CTX:
            q = s->context == sp->value;
            break;
        case K_CAUSE_TVAL:
            q = depth_cause > 0 && tval != sp->value;
            break;
        default:
            q = depth_int > 0 && (sp->set >> s->priv & 1);
            break;
        }
        want[k++] = q;
        *ntraced += q;
        if (s->trapret) {
            if (depth_cause)
                depth_cause--;
            if (depth_int)
                depth_int--;
        }
    }
}

struct got {
    const struct rvt_image *img;
    struct rvt_filter *f;
    uint64_t *pc;
    bool *q;
    size_t n, cap;
    bool bad;
};

static int on_filtered(void *ctx, const struct rvt_ing_rec *r)
{
    struct got *g = ctx;
    uint64_t pc = r->iaddr, end = rvt_ing_next_addr(r);
    while (pc < end) {
        uint8_t b[2] = {0, 0};
        unsigned len = rvt_img_read(g->img, pc, b, 2) == 2 ? rvt_isa_length((uint16_t)(b[0] | b[1] << 8)) : 0;
        if (!len || g->n == g->cap) {
            g->bad = true;
            return -RVT_ERR_NOCODE;
        }
        g->pc[g->n] = pc;
        g->q[g->n++] = !(r->flags & RVT_ING_UNQUALIFIED);
        pc += len;
    }
    return 0;
}

static int to_filter(void *ctx, const struct rvt_ing_rec *r)
{
    struct got *g = ctx;
    return rvt_filter_put(g->f, r, on_filtered, g);
}

static void run_case(const struct rvt_gen_program *p, const struct rvt_gen_config *gc, const struct rvt_image *img,
                     const struct steps *v, const struct spec *sp)
{
    bool *want = malloc(v->insns + 1);
    size_t traced;
    expected(v, sp, want, &traced);
    CHECK_MSG(traced > 0 && traced < v->insns, "xlen %u '%s': %zu of %zu instructions expected: tests nothing", gc->xlen,
              sp->text, traced, v->insns);
    for (int merged = 0; merged < 2; merged++) {
        struct rvt_filter_config fc;
        rvt_filter_config_init(&fc);
        fc.image = img;
        struct rvt_diag d = {0};
        struct got g = {img, NULL, malloc(sizeof(uint64_t) * (v->insns + 1)), malloc(v->insns + 1), 0, v->insns, false};
        if (rvt_filter_parse(&fc, sp->text, &d) < 0 || rvt_filter_new(&g.f, &fc, &d) < 0) {
            CHECK_MSG(0, "'%s': %s", sp->text, d.msg);
        } else {
            int rc = rvt_gen_run_ex(p, gc, merged, to_filter, &g, &d);
            CHECK_MSG(rc == 0 && !g.bad, "'%s': run: %s / %s", sp->text, d.msg, rvt_filter_error(g.f));
            CHECK_EQ(g.n, v->insns);
            size_t k = 0, bad = 0;
            for (size_t i = 0; i < v->n && k < g.n; i++) {
                if (v->s[i].kind != RVT_GEN_STEP_INSN)
                    continue;
                if (g.pc[k] != v->s[i].pc || g.q[k] != want[k]) {
                    if (bad++ < 3)
                        CHECK_MSG(0, "xlen %u '%s' (%s): instruction %zu at 0x%" PRIx64 " (step pc 0x%" PRIx64
                                     ", priv %u, ctx %" PRIu64 "): qualified %d, expected %d",
                                  gc->xlen, sp->text, merged ? "merged" : "single", k, g.pc[k], v->s[i].pc,
                                  v->s[i].priv, v->s[i].context, g.q[k], want[k]);
                }
                k++;
            }
            struct rvt_filter_stats st;
            rvt_filter_get_stats(g.f, &st, sizeof st);
            CHECK_EQ(st.insns_traced, traced);
            CHECK_EQ(bad, 0);
            if (merged)
                CHECK(st.records_in < st.insns); /* the merged run really had multi-instruction records */
        }
        rvt_filter_free(g.f);
        free(g.pc);
        free(g.q);
    }
    free(want);
}

static void run_program(unsigned xlen, uint64_t seed)
{
    struct rvt_gen_config gc;
    rvt_gen_config_init(&gc);
    gc.seed = seed;
    gc.xlen = xlen;
    gc.insns = 80000;
    gc.features = RVT_GEN_DEFAULT_FEATURES | RVT_GEN_TRAPS | RVT_GEN_INTERRUPTS | RVT_GEN_NESTED | RVT_GEN_PRIV |
                  RVT_GEN_CONTEXT;
    gc.interrupt_interval = 400;
    gc.p_trap = 20;
    gc.p_syscall = 20;
    struct rvt_gen_program *p = NULL;
    struct rvt_diag d = {0};
    if (rvt_gen_program_new(&p, &gc, &d) < 0) {
        CHECK_MSG(0, "gen: %s", d.msg);
        return;
    }
    struct rvt_image *img = rvt_gen_image(p);
    struct steps v = {0};
    REQUIRE(img && rvt_gen_run_pcs(p, &gc, on_step, &v, &d) == 0);
    CHECK(v.traps > 10 && v.irqs > 2);
    /* What the execution contains: the most frequent exception cause, the
     * most frequent one with a non-zero tval, the busiest non-zero context. */
    unsigned count[64] = {0}, count_tval[64] = {0};
    uint64_t ctxs[16] = {0}, ctx_n[16] = {0};
    for (size_t i = 0; i < v.n; i++) {
        const struct step *s = &v.s[i];
        if (s->kind == RVT_GEN_STEP_TRAP && !s->interrupt && s->cause < 64) {
            count[s->cause]++;
            count_tval[s->cause] += s->tval != 0;
        } else if (s->kind == RVT_GEN_STEP_INSN && s->context) {
            for (unsigned k = 0; k < 16; k++)
                if (ctxs[k] == s->context || !ctx_n[k]) {
                    ctxs[k] = s->context;
                    ctx_n[k]++;
                    break;
                }
        }
    }
    unsigned top = 0, top_tval = 0, top_ctx = 0;
    for (unsigned c = 1; c < 64; c++) {
        if (count[c] > count[top])
            top = c;
        if (count_tval[c] > count_tval[top_tval])
            top_tval = c;
    }
    for (unsigned k = 1; k < 16; k++)
        if (ctx_n[k] > ctx_n[top_ctx])
            top_ctx = k;
    CHECK(count_tval[top_tval] > 0 && ctx_n[top_ctx] > 0);
    char cause_spec[64], cause_tval[96], ctx_spec[64];
    snprintf(cause_spec, sizeof cause_spec, "cause == %u", top);
    snprintf(cause_tval, sizeof cause_tval, "cause in {%u} and tval != 0", top_tval);
    snprintf(ctx_spec, sizeof ctx_spec, "ctx == 0x%" PRIx64, ctxs[top_ctx]);
    const struct spec specs[] = {
        {"priv == U", K_PRIV, 1u << RVT_PRIV_U, 0},
        {"priv in {S, M}", K_PRIV, (1u << RVT_PRIV_S) | (1u << RVT_PRIV_M), 0},
        {"priv != M", K_PRIV, 0xffu & ~(1u << RVT_PRIV_M), 0},
        {cause_spec, K_CAUSE, (uint64_t)1 << top, 0},
        {"cause in {8, 9}", K_CAUSE, (1u << 8) | (1u << 9), 0},
        {cause_tval, K_CAUSE_TVAL, (uint64_t)1 << top_tval, 0},
        {"interrupt", K_INTERRUPT, 0, 0},
        {"exception", K_EXCEPTION, 0, 0},
        {"interrupt and priv == S", K_IRQ_PRIV, 1u << RVT_PRIV_S, 0},
        {ctx_spec, K_CTX, 0, ctxs[top_ctx]},
    };
    for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++)
        run_case(p, &gc, img, &v, &specs[k]);
    free(v.s);
    rvt_img_free(img);
    rvt_gen_program_free(p);
}

int main(void)
{
    run_program(64, 11);
    run_program(32, 12);
    return rvt_test_summary("test_filter_gen");
}
