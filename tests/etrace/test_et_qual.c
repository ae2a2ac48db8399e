/* E-Trace when qualification changes quickly: traps at the edges of the
 * traced parts (filtering.adoc; payload.adoc "thaddr").
 *
 * Hand-made executions whose records are marked qualified or not one by
 * one (as the filter layer does), each checking the packets and that the
 * decoder gives back exactly the qualified instructions with one trace-off
 * gap per qualified -> unqualified change:
 *  - an exception at an uninferable target reported by its EPC (thaddr 0)
 *    whose handler is not traced must not turn a later trap's handler into
 *    a plain sync (the decoder would walk past the trap);
 *  - a trap that is the first traced event (the code before it and its
 *    handler not traced) is reported by its EPC, then tracing ends;
 *  - a first traced trap followed at once by a second one: each reported
 *    once;
 *  - 0.026: a trace-notify trigger records a sync point.
 * Then the library's filter over generated programs (traps, interrupts,
 * privilege, contexts; RV32 and RV64) with alternatives that change
 * qualification often, on several option sets. */
#include "etrace/encoder.h"
#include "etrace/etrace.h"
#include "roundtrip.h"
#include "rt.h"
#include "synth.h"
#include "testlib.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

extern const struct rvt_codec rvt_codec_etrace;

/* ---- hand-made executions ------------------------------------------------------------- */

struct qstep {
    uint64_t pc;   /* retired instruction, or the epc of a trap */
    int trap;      /* 0: instruction; 1: exception; 2: interrupt */
    uint32_t cause;
    uint8_t priv;
    bool q;        /* qualified */
    bool notify;   /* a trace-notify trigger fires on it */
};

struct qscen {
    struct rvt_image *img;
    struct rvt_ing_rec recs[128];
    size_t nrecs;
    uint64_t want[128]; /* the qualified instructions */
    size_t nwant;
    unsigned offs;      /* qualified -> unqualified changes */
    struct et_packet k[128];
    unsigned nk;
    struct rt_result dec;
};

static int q_emit(void *ctx, const struct rvt_ing_rec *r)
{
    struct qscen *s = ctx;
    if (s->nrecs < 128)
        s->recs[s->nrecs++] = *r;
    return 0;
}

static void q_observe(void *ctx, const struct et_packet *k, unsigned full, unsigned sent)
{
    (void)full;
    (void)sent;
    struct qscen *s = ctx;
    if (s->nk < 128)
        s->k[s->nk++] = *k;
}

static bool qrun(struct qscen *s, const char *name, const struct as *code, const struct qstep *st, size_t n,
                 const char *const *opts)
{
    memset(s, 0, sizeof *s);
    s->img = rvt_img_new();
    rvt_img_set_xlen(s->img, 32);
    rvt_img_add_raw(s->img, code->base, code->buf, code->len, name);
    struct rvt_ing_builder_config bc = {.size = sizeof bc, .image = s->img, .xlen = 32, .emit = q_emit, .emit_ctx = s};
    struct rvt_ing_builder *b = rvt_ing_builder_new(&bc);
    for (size_t i = 0; i < n; i++) {
        int rc = st[i].trap ? rvt_ing_builder_trap(b, st[i].trap == 2, st[i].cause, 0, st[i].pc)
                            : rvt_ing_builder_insn(b, st[i].pc, -1, st[i].priv, 0, NULL);
        CHECK_MSG(rc == 0, "%s: step %zu: %s", name, i, rvt_ing_builder_error(b));
    }
    CHECK(rvt_ing_builder_finish(b) == 0);
    rvt_ing_builder_free(b);
    /* one record per step: mark them as the filter layer would */
    CHECK_MSG(s->nrecs == n, "%s: %zu records for %zu steps", name, s->nrecs, n);
    if (s->nrecs != n)
        return false;
    bool was_q = false;
    for (size_t i = 0; i < n; i++) {
        CHECK_EQ(s->recs[i].iaddr, st[i].pc);
        if (!st[i].q)
            s->recs[i].flags |= RVT_ING_UNQUALIFIED;
        if (st[i].notify)
            s->recs[i].flags |= RVT_ING_NOTIFY;
        if (st[i].q && !st[i].trap)
            s->want[s->nwant++] = st[i].pc;
        s->offs += was_q && !st[i].q;
        was_q = st[i].q;
    }

    char err[600];
    void *cfg = rt_config(opts, 32, s->img, err, sizeof err);
    CHECK_MSG(cfg != NULL, "%s: %s", name, err);
    if (!cfg)
        return false;
    struct rvt_membuf m;
    rvt_membuf_init(&m);
    struct rvt_byte_sink sink = rvt_membuf_sink(&m);
    struct et_encoder *e;
    struct rvt_diag d = {0};
    bool ok = et_enc_new(&e, &((struct et_config *)cfg)->p, &sink, &d) == 0;
    CHECK_MSG(ok, "%s: %s", name, d.msg);
    if (ok) {
        et_enc_set_observer(e, q_observe, s);
        for (size_t i = 0; i < s->nrecs && ok; i++)
            ok = et_enc_put(e, &s->recs[i]) == 0;
        ok = ok && et_enc_finish(e) == 0;
        CHECK_MSG(ok, "%s: encode: %s", name, et_enc_error(e));
        et_enc_free(e);
    }
    if (ok) {
        ok = rt_decode(cfg, s->img, RVT_FLOW_ECALL_TRAP, m.data, m.len, &s->dec, err, sizeof err) == 0;
        CHECK_MSG(ok, "%s: %s", name, err);
        size_t at = rt_first_diff(s->dec.pcs, s->dec.npcs, s->want, s->nwant);
        bool same = at == s->nwant && s->dec.npcs == s->nwant && s->dec.errors == 0;
        CHECK_MSG(same, "%s: decoded %zu of %zu qualified instructions, first difference at #%zu%s%s", name,
                  s->dec.npcs, s->nwant, at, s->dec.errors ? ": " : "", s->dec.first_error);
        CHECK_MSG(s->dec.gaps == s->offs, "%s: %u gaps, expected %u (one per trace off)", name, s->dec.gaps,
                  s->offs);
        ok = ok && same;
    }
    rvt_membuf_free(&m);
    rvt_codec_cfg_free(cfg);
    return ok;
}

static void qdone(struct qscen *s)
{
    rt_free(&s->dec);
    rvt_img_free(s->img);
}

/* Format 3 packets of a subformat, in order. */
static unsigned f3(const struct qscen *s, unsigned sub, const struct et_packet **out, unsigned max)
{
    unsigned n = 0;
    for (unsigned i = 0; i < s->nk; i++)
        if (s->k[i].msg == ET_MSG_TE_INST && s->k[i].format == ET_F3 && s->k[i].subformat == sub && n < max)
            out[n++] = &s->k[i];
    return n;
}

#define T1 6

/* H: handler (addi; mret).  A B C: straight code, J: jalr t1, X X2 after it. */
struct prog {
    struct as a;
    uint64_t H, H2, A, B, C, J, X, X2;
};

static void prog(struct prog *p)
{
    as_init(&p->a, 0x1000);
    p->H = as_pc(&p->a);
    as_u32(&p->a, enc_addi(10, 10, 1));
    p->H2 = as_pc(&p->a);
    as_u32(&p->a, ENC_MRET);
    p->A = as_pc(&p->a);
    as_u32(&p->a, enc_addi(11, 11, 1));
    p->B = as_pc(&p->a);
    as_u32(&p->a, enc_addi(12, 12, 1));
    p->C = as_pc(&p->a);
    as_u32(&p->a, enc_addi(13, 13, 1));
    p->J = as_pc(&p->a);
    as_u32(&p->a, enc_jalr(0, T1, 0));
    p->X = as_pc(&p->a);
    as_u32(&p->a, enc_addi(14, 14, 1));
    p->X2 = as_pc(&p->a);
    as_u32(&p->a, enc_addi(15, 15, 1));
}

static const char *const none[] = {NULL};

static void stale_epc(const struct prog *pp)
{
    const struct prog p = *pp;
    struct qscen s;
    /* 'cause == 2 or priv == U': an exception (cause 1) at the target of
     * the jalr is reported by its EPC; its M-mode handler is not traced.
     * Later the cause-2 handler is: its trap must be a format 3.1 with the
     * handler address, not a plain sync (the decoder would take the path
     * from B through C and the jalr to the handler). */
    struct qstep stale[] = {
        {p.A, 0, 0, 0, true, false},  {p.B, 0, 0, 0, true, false},  {p.C, 0, 0, 0, true, false},
        {p.J, 0, 0, 0, true, false},  {p.X, 1, 1, 0, true, false},  {p.H, 0, 0, 3, false, false},
        {p.H2, 0, 0, 3, false, false}, {p.A, 0, 0, 0, true, false}, {p.B, 0, 0, 0, true, false},
        {p.C, 1, 2, 0, true, false},  {p.H, 0, 0, 3, true, false},  {p.H2, 0, 0, 3, true, false},
        {p.X, 0, 0, 0, true, false},  {p.X2, 0, 0, 0, true, false}};
    if (qrun(&s, "EPC-reported trap, handler not traced, then a traced handler", &p.a, stale,
             sizeof stale / sizeof stale[0], none)) {
        const struct et_packet *t[8];
        unsigned nt = f3(&s, ET_SF_TRAP, t, 8);
        REQUIRE(nt == 2);
        CHECK_EQ(t[0]->thaddr, 0);
        CHECK_EQ(t[0]->ecause, 1);
        CHECK_EQ(t[0]->address, p.X >> 1);
        CHECK_EQ(t[1]->thaddr, 1);
        CHECK_EQ(t[1]->ecause, 2);
        CHECK_EQ(t[1]->address, p.H >> 1);
    }
    qdone(&s);
}

static void lone_trap(const struct prog *pp)
{
    const struct prog p = *pp;
    struct qscen s;
    /* 'addr & 0x4 == 0'-like: only the interrupt's record qualifies (the
     * code before it and its handler do not): the trap is the first traced
     * event, reported by its EPC (C), then tracing ends. */
    struct qstep lone[] = {{p.A, 0, 0, 0, false, false}, {p.B, 0, 0, 0, false, false}, {p.C, 2, 7, 0, true, false},
                           {p.H, 0, 0, 3, false, false}, {p.H2, 0, 0, 3, false, false}, {p.C, 0, 0, 0, true, false},
                           {p.J, 0, 0, 0, true, false},  {p.X, 0, 0, 0, true, false},   {p.X2, 0, 0, 0, true, false}};
    if (qrun(&s, "a lone traced interrupt", &p.a, lone, sizeof lone / sizeof lone[0], none)) {
        const struct et_packet *t[8], *su[8];
        unsigned nt = f3(&s, ET_SF_TRAP, t, 8);
        REQUIRE(nt == 1);
        CHECK_EQ(t[0]->thaddr, 0);
        CHECK_EQ(t[0]->interrupt, 1);
        CHECK_EQ(t[0]->ecause, 7);
        CHECK_EQ(t[0]->address, p.C >> 1);
        CHECK_EQ(t[0]->privilege, 0);
        unsigned ns = f3(&s, ET_SF_SUPPORT, su, 8);
        REQUIRE(ns == 3); /* start, tracing ends after the trap, end of trace */
        CHECK(su[1] == t[0] + 1);
        CHECK_EQ(su[1]->ienable, 1);
        CHECK(su[1]->qual_status == ET_QUAL_ENDED_REP || su[1]->qual_status == ET_QUAL_ENDED_NTR);
    }
    qdone(&s);
}

static void back_to_back(const struct prog *pp)
{
    const struct prog p = *pp;
    struct qscen s;
    /* The first traced event is an exception, and an interrupt comes
     * before its (traced) handler retires: the exception by its EPC, the
     * interrupt with the handler; each once. */
    struct qstep b2b[] = {{p.A, 0, 0, 0, false, false}, {p.B, 0, 0, 0, false, false}, {p.C, 1, 2, 0, true, false},
                          {p.H, 2, 7, 3, true, false},  {p.H, 0, 0, 3, true, false},  {p.H2, 0, 0, 3, true, false},
                          {p.X, 0, 0, 0, true, false},  {p.X2, 0, 0, 0, true, false}};
    if (qrun(&s, "first traced trap, then another", &p.a, b2b, sizeof b2b / sizeof b2b[0], none)) {
        const struct et_packet *t[8];
        unsigned nt = f3(&s, ET_SF_TRAP, t, 8);
        REQUIRE(nt == 2);
        CHECK_EQ(t[0]->thaddr, 0);
        CHECK_EQ(t[0]->interrupt, 0);
        CHECK_EQ(t[0]->ecause, 2);
        CHECK_EQ(t[0]->address, p.C >> 1);
        CHECK_EQ(t[1]->thaddr, 1);
        CHECK_EQ(t[1]->interrupt, 1);
        CHECK_EQ(t[1]->ecause, 7);
        CHECK_EQ(t[1]->address, p.H >> 1);
    }
    qdone(&s);
}

static void back_to_back_epc(const struct prog *pp)
{
    const struct prog p = *pp;
    struct qscen s;
    /* The same after an uninferable jump: the exception at its target by
     * the EPC, the interrupt before the handler with the handler. */
    struct qstep b2bj[] = {{p.A, 0, 0, 0, true, false}, {p.B, 0, 0, 0, true, false}, {p.C, 0, 0, 0, true, false},
                           {p.J, 0, 0, 0, true, false}, {p.X, 1, 2, 0, true, false},
                           {p.H, 2, 7, 3, true, false}, {p.H, 0, 0, 3, true, false}, {p.H2, 0, 0, 3, true, false},
                           {p.X, 0, 0, 0, true, false}, {p.X2, 0, 0, 0, true, false}};
    if (qrun(&s, "exception at an uninferable target, then an interrupt", &p.a, b2bj, sizeof b2bj / sizeof b2bj[0],
             none)) {
        const struct et_packet *t[8];
        unsigned nt = f3(&s, ET_SF_TRAP, t, 8);
        REQUIRE(nt == 2);
        CHECK_EQ(t[0]->thaddr, 0);
        CHECK_EQ(t[0]->ecause, 2);
        CHECK_EQ(t[0]->address, p.X >> 1);
        CHECK_EQ(t[1]->thaddr, 1);
        CHECK_EQ(t[1]->ecause, 7);
        CHECK_EQ(t[1]->address, p.H >> 1);
    }
    qdone(&s);
}

static void single_026(const struct prog *pp)
{
    const struct prog p = *pp;
    struct qscen s;
    /* 0.026 has no notify bit: a trace-notify trigger records a sync point
     * (seed 001 "trace single"); an address packet there would read as the
     * target of the jalr. */
    struct qstep single[] = {{p.A, 0, 0, 0, true, false}, {p.B, 0, 0, 0, true, false}, {p.C, 0, 0, 0, true, true},
                             {p.J, 0, 0, 0, true, false}, {p.X, 0, 0, 0, true, false}, {p.X2, 0, 0, 0, true, false}};
    const char *const v026[] = {"etrace-version", "0.026", NULL};
    if (qrun(&s, "0.026 trace single", &p.a, single, sizeof single / sizeof single[0], v026)) {
        const struct et_packet *t[8];
        unsigned nt = f3(&s, ET_SF_START, t, 8);
        REQUIRE(nt == 2);
        CHECK_EQ(t[1]->address, p.C >> 1);
    }
    qdone(&s);
}

/* ---- the filter over generated programs ---------------------------------------------------- */

struct fexp {
    const struct rvt_image *img;
    struct rvt_recs *out;
    uint64_t *pcs;
    size_t npcs, cap;
    int err;
};

static int f_emit(void *ctx, const struct rvt_ing_rec *r)
{
    struct fexp *x = ctx;
    if (rvt_recs_push(x->out, r) < 0)
        return -RVT_ERR_NOMEM;
    if (r->flags & RVT_ING_UNQUALIFIED)
        return 0;
    for (uint64_t pc = r->iaddr, end = rvt_ing_next_addr(r); pc < end;) {
        struct rvt_insn in;
        if (rvt_img_insn(x->img, pc, &in) < 0 || !in.len) {
            x->err = 1;
            return -RVT_ERR_NOCODE;
        }
        if (x->npcs == x->cap) {
            x->cap = x->cap ? 2 * x->cap : 4096;
            x->pcs = realloc(x->pcs, x->cap * sizeof *x->pcs);
            if (!x->pcs)
                abort();
        }
        x->pcs[x->npcs++] = pc;
        pc += in.len;
    }
    return 0;
}

static void generated(unsigned seeds)
{
    static const char *const specs[][2] = {
        {"cause == 2 or priv == U", NULL},
        {"cause in {8, 9} or priv == M", NULL},
        {"interrupt or priv == U", NULL},
        {"exception or ctx != 0", NULL},
        {"addr & 0x4 == 0", NULL},
        {"addr & 0x4 == 0 or priv == M", NULL},
        {"priv == U and addr & 0x4 == 0 or interrupt", NULL},
        {"interrupt or priv == S", "notify@>=0/U"},
        {"priv != M", "on@>=0/U,off@>=0/S"},
        {"exception", "notify@>=0/M"},
    };
    static const char *const optsets[][12] = {
        {NULL},
        {"implicit-return", "fixed", "branch-prediction", "1", NULL},
        {"implicit-return", "2.0", "jump-target-cache", "1", "sijump", "1", NULL},
        {"full-address", "1", "resync-max", "0", NULL},
        {"etrace-version", "0.026", NULL},
    };
    unsigned cases = 0;
    for (unsigned seed = 1; seed <= seeds; seed++) {
        for (unsigned xlen = 32; xlen <= 64; xlen += 32) {
            struct rvt_gen_config gc;
            rvt_gen_config_init(&gc);
            gc.seed = seed;
            gc.xlen = xlen;
            gc.insns = 20000;
            gc.features |= RVT_GEN_TRAPS | RVT_GEN_INTERRUPTS | RVT_GEN_NESTED | RVT_GEN_PRIV | RVT_GEN_CONTEXT;
            gc.p_trap = 20;
            gc.p_syscall = 20;
            gc.interrupt_interval = 400;
            struct rvt_gen_program *prog;
            struct rvt_diag d = {0};
            REQUIRE(rvt_gen_program_new(&prog, &gc, &d) == 0);
            struct rvt_image *img = rvt_gen_image(prog);
            struct rvt_recs recs = {0};
            REQUIRE(img && rvt_recs_gen(&recs, prog, &gc, seed & 1, &d) == 0);
            for (unsigned f = 0; f < sizeof specs / sizeof specs[0]; f++) {
                struct rvt_filter_config fc;
                rvt_filter_config_init(&fc);
                fc.image = img;
                REQUIRE(rvt_filter_parse(&fc, specs[f][0], &d) == 0);
                if (specs[f][1])
                    REQUIRE(rvt_filter_parse_trigger(&fc, specs[f][1], &d) == 0);
                struct rvt_filter *flt;
                REQUIRE(rvt_filter_new(&flt, &fc, &d) == 0);
                struct rvt_recs out = {0};
                struct fexp x = {.img = img, .out = &out};
                int frc = 0;
                for (size_t i = 0; i < recs.n && frc == 0; i++)
                    frc = rvt_filter_put(flt, &recs.r[i], f_emit, &x);
                CHECK_MSG(frc == 0, "'%s': %s", specs[f][0], rvt_filter_error(flt));
                rvt_filter_finish(flt);
                struct rvt_filter_stats fst;
                rvt_filter_get_stats(flt, &fst, sizeof fst);
                rvt_filter_free(flt);
                for (unsigned o = 0; o < sizeof optsets / sizeof optsets[0]; o++) {
                    char err[600];
                    void *cfg = rt_config(optsets[o], xlen, img, err, sizeof err);
                    REQUIRE(cfg);
                    bool v026 = ((struct et_config *)cfg)->p.version == ET_V0_026;
                    struct rt_result enc = {0}, dec = {0};
                    int rc = rt_encode(cfg, out.r, out.n, &enc, err, sizeof err);
                    CHECK_MSG(rc == 0, "seed %u rv%u '%s' set %u: %s", seed, xlen, specs[f][0], o, err);
                    if (rc == 0) {
                        rc = rt_decode(cfg, img, -1, enc.bytes, enc.nbytes, &dec, err, sizeof err);
                        CHECK_MSG(rc == 0, "seed %u rv%u '%s' set %u: %s", seed, xlen, specs[f][0], o, err);
                        size_t at = rt_first_diff(dec.pcs, dec.npcs, x.pcs, x.npcs);
                        CHECK_MSG(at == x.npcs && dec.npcs == x.npcs && dec.errors == 0,
                                  "seed %u rv%u '%s' set %u: decoded %zu of %zu qualified instructions, first "
                                  "difference at #%zu%s%s",
                                  seed, xlen, specs[f][0], o, dec.npcs, x.npcs, at, dec.errors ? ": " : "",
                                  dec.first_error);
                        /* one gap per trace off (0.026 cannot report a trap
                         * without its handler: a lone traced trap is no
                         * traced part there) */
                        CHECK_MSG(v026 ? dec.gaps <= fst.off_transitions : dec.gaps == fst.off_transitions,
                                  "seed %u rv%u '%s' set %u: %u gaps, %" PRIu64 " trace offs", seed, xlen,
                                  specs[f][0], o, dec.gaps, fst.off_transitions);
                        cases++;
                    }
                    rt_free(&enc);
                    rt_free(&dec);
                    rvt_codec_cfg_free(cfg);
                }
                free(x.pcs);
                rvt_recs_free(&out);
            }
            rvt_recs_free(&recs);
            rvt_img_free(img);
            rvt_gen_program_free(prog);
        }
    }
    printf("  %u filtered round trips on generated programs\n", cases);
}

int main(int argc, char **argv)
{
    struct prog p;
    prog(&p);
    stale_epc(&p);
    lone_trap(&p);
    back_to_back(&p);
    back_to_back_epc(&p);
    single_026(&p);
    as_free(&p.a);
    generated(argc > 1 ? (unsigned)atoi(argv[1]) : 2);
    return rvt_test_summary("test_et_qual");
}
