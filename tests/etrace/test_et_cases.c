/* E-Trace behaviour on hand-made programs: every update/notify case of
 * payload.adoc (the looplabel scenarios, irreport/irdepth for implicit
 * return, the 2.0 ambiguity of issue 254), branch prediction counts, the
 * jump target cache, trap reporting (EPC and back-to-back traps), filters.
 * Each case checks the packet fields and that the decoder gives back the
 * executed instructions. */
#include "etrace/encoder.h"
#include "etrace/etrace.h"
#include "rt.h"
#include "synth.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

extern const struct rvt_codec rvt_codec_etrace;

/* ---- a scenario: code, an execution, the packets, the decode ----------------------- */

struct step {
    uint64_t pc;      /* retired instruction, or the epc of a trap */
    int trap;         /* 0: instruction; 1: exception; 2: interrupt */
    uint32_t cause;
    uint8_t priv;
};

struct scen {
    struct rvt_image *img;
    struct rvt_ing_rec recs[512];
    size_t nrecs;
    uint64_t pcs[512];
    size_t npcs;
    struct et_packet k[128];
    unsigned nk;
    struct rt_result dec;
};

static uint64_t g_notify_pc; /* a trace-notify trigger on this instruction (0: none) */
/* A context change at the first record of the instruction at g_ctx_pc (0:
 * none): context g_ctx_val from there on, ctype g_ctx_type on that record. */
static uint64_t g_ctx_pc, g_ctx_val;
static uint8_t g_ctx_type;
static bool g_ctx_on;
static bool g_lossy; /* the options cannot represent the execution: no exact decode expected */

static int emit(void *ctx, const struct rvt_ing_rec *r)
{
    struct scen *s = ctx;
    if (s->nrecs < 512) {
        struct rvt_ing_rec *x = &s->recs[s->nrecs];
        *x = *r;
        if (g_notify_pc && r->iretire && rvt_ing_last_addr(r) == g_notify_pc)
            x->flags |= RVT_ING_NOTIFY;
        if (g_ctx_pc && !g_ctx_on && r->iretire && r->iaddr == g_ctx_pc) {
            g_ctx_on = true;
            x->ctype = g_ctx_type;
        }
        if (g_ctx_on)
            x->context = g_ctx_val;
        s->nrecs++;
    }
    return 0;
}

static void observe(void *ctx, const struct et_packet *k, unsigned full, unsigned sent)
{
    (void)full;
    (void)sent;
    struct scen *s = ctx;
    if (s->nk < 128)
        s->k[s->nk++] = *k;
}

/* Build records from the steps (the shared ingress builder), encode with the
 * options, decode, compare.  Returns false if any stage failed. */
static bool run(struct scen *s, const char *name, const struct as *code, const struct step *st, size_t n,
                const char *const *opts, unsigned xlen)
{
    memset(s, 0, sizeof *s);
    g_ctx_on = false;
    s->img = rvt_img_new();
    rvt_img_set_xlen(s->img, xlen);
    rvt_img_add_raw(s->img, code->base, code->buf, code->len, name);
    struct rvt_ing_builder_config bc = {
        .size = sizeof bc, .image = s->img, .xlen = xlen, .emit = emit, .emit_ctx = s};
    struct rvt_ing_builder *b = rvt_ing_builder_new(&bc);
    for (size_t i = 0; i < n; i++) {
        int rc = st[i].trap ? rvt_ing_builder_trap(b, st[i].trap == 2, st[i].cause, 0, st[i].pc)
                            : rvt_ing_builder_insn(b, st[i].pc, -1, st[i].priv, 0, NULL);
        CHECK_MSG(rc == 0, "%s: step %zu: %s", name, i, rvt_ing_builder_error(b));
        if (!st[i].trap)
            s->pcs[s->npcs++] = st[i].pc;
    }
    CHECK(rvt_ing_builder_finish(b) == 0);
    rvt_ing_builder_free(b);

    char err[600];
    void *cfg = rt_config(opts, xlen, s->img, err, sizeof err);
    CHECK_MSG(cfg != NULL, "%s: %s", name, err);
    if (!cfg)
        return false;
    /* encode through the internal API to see the packets */
    struct rvt_membuf m;
    rvt_membuf_init(&m);
    struct rvt_byte_sink sink = rvt_membuf_sink(&m);
    struct et_encoder *e;
    struct rvt_diag d = {0};
    bool ok = et_enc_new(&e, &((struct et_config *)cfg)->p, &sink, &d) == 0;
    CHECK_MSG(ok, "%s: %s", name, d.msg);
    if (ok) {
        et_enc_set_observer(e, observe, s);
        for (size_t i = 0; i < s->nrecs && ok; i++)
            ok = et_enc_put(e, &s->recs[i]) == 0;
        ok = ok && et_enc_finish(e) == 0;
        CHECK_MSG(ok, "%s: encode: %s", name, et_enc_error(e));
        et_enc_free(e);
    }
    if (ok) {
        ok = rt_decode(cfg, s->img, RVT_FLOW_ECALL_TRAP, m.data, m.len, &s->dec, err, sizeof err) == 0;
        CHECK_MSG(ok, "%s: %s", name, err);
        size_t at = rt_first_diff(s->dec.pcs, s->dec.npcs, s->pcs, s->npcs);
        bool same = at == s->npcs && s->dec.npcs == s->npcs && s->dec.errors == 0;
        CHECK_MSG(same || g_lossy, "%s: decoded %zu of %zu instructions, first difference at #%zu%s%s", name,
                  s->dec.npcs, s->npcs, at, s->dec.errors ? ": " : "", s->dec.first_error);
        ok = ok && same;
    }
    rvt_membuf_free(&m);
    rvt_codec_cfg_free(cfg);
    return ok;
}

/* Frame packets (those of a scenario, possibly changed) with the options and
 * decode them; the PCs must be the scenario's. */
static bool redecode(struct scen *s, const char *name, const char *const *opts, unsigned xlen,
                     const struct et_packet *k, unsigned nk)
{
    char err[600];
    void *cfg = rt_config(opts, xlen, s->img, err, sizeof err);
    CHECK_MSG(cfg != NULL, "%s: %s", name, err);
    if (!cfg)
        return false;
    const struct et_params *p = &((struct et_config *)cfg)->p;
    struct rvt_membuf m;
    rvt_membuf_init(&m);
    struct rvt_byte_sink sink = rvt_membuf_sink(&m);
    struct et_framer fr;
    et_framer_init(&fr, p, &sink);
    struct rvt_diag d = {0};
    bool ok = true;
    for (unsigned i = 0; i < nk && ok; i++) {
        struct et_packet kk = k[i];
        struct et_bits b;
        ok = et_pkt_bits(p, &kk, &b, &d) == 0 && et_framer_put(&fr, &b, kk.msg, kk.time, &d) == 0;
    }
    CHECK_MSG(ok, "%s: framing: %s", name, d.msg);
    struct rt_result dec = {0};
    if (ok) {
        ok = rt_decode(cfg, s->img, RVT_FLOW_ECALL_TRAP, m.data, m.len, &dec, err, sizeof err) == 0;
        CHECK_MSG(ok, "%s: %s", name, err);
        size_t at = rt_first_diff(dec.pcs, dec.npcs, s->pcs, s->npcs);
        bool same = at == s->npcs && dec.npcs == s->npcs && dec.errors == 0;
        CHECK_MSG(same, "%s: decoded %zu of %zu instructions, first difference at #%zu%s%s", name, dec.npcs,
                  s->npcs, at, dec.errors ? ": " : "", dec.first_error);
        ok = ok && same;
    }
    rt_free(&dec);
    rvt_membuf_free(&m);
    rvt_codec_cfg_free(cfg);
    return ok;
}

/* Frame changed packets of a scenario and decode them: the decoder must
 * report an error at packet `at` (its byte offset; ~0u: anywhere) whose
 * text contains `want` (the contract: damage is reported where it is,
 * never decoded as a whole history). */
static void damaged(struct scen *s, const char *name, const char *const *opts, unsigned xlen, const struct et_packet *k,
                    unsigned nk, unsigned at, const char *want)
{
    char err[600];
    void *cfg = rt_config(opts, xlen, s->img, err, sizeof err);
    CHECK_MSG(cfg != NULL, "%s: %s", name, err);
    if (!cfg)
        return;
    const struct et_params *p = &((struct et_config *)cfg)->p;
    struct rvt_membuf m;
    rvt_membuf_init(&m);
    struct rvt_byte_sink sink = rvt_membuf_sink(&m);
    struct et_framer fr;
    et_framer_init(&fr, p, &sink);
    struct rvt_diag d = {0};
    uint64_t off = 0;
    bool ok = true;
    for (unsigned i = 0; i < nk && ok; i++) {
        struct et_packet kk = k[i];
        struct et_bits b;
        ok = et_pkt_bits(p, &kk, &b, &d) == 0;
        if (ok && i == at) { /* (the framer may have sent a synchronisation sequence first) */
            struct et_frame f;
            struct et_deframer df;
            size_t before = m.len;
            ok = et_framer_put(&fr, &b, kk.msg, kk.time, &d) == 0;
            et_deframer_init(&df, p, m.data, m.len);
            for (off = before; et_deframer_next(&df, &f, &d) == 1;)
                if (!f.is_null)
                    off = f.offset;
            continue;
        }
        ok = ok && et_framer_put(&fr, &b, kk.msg, kk.time, &d) == 0;
    }
    CHECK_MSG(ok, "%s: framing: %s", name, d.msg);
    struct rt_result dec = {0};
    if (ok && rt_decode(cfg, s->img, RVT_FLOW_ECALL_TRAP, m.data, m.len, &dec, err, sizeof err) == 0) {
        CHECK_MSG(dec.errors > 0, "%s: no error (%zu instructions)", name, dec.npcs);
        CHECK_MSG(dec.errors == 0 || at == ~0u || dec.first_error_offset == off,
                  "%s: first error at 0x%llx, expected 0x%llx: %s",
                  name, (unsigned long long)dec.first_error_offset, (unsigned long long)off, dec.first_error);
        CHECK_MSG(strstr(dec.first_error, want) != NULL, "%s: the error does not say '%s': %s", name, want,
                  dec.first_error);
    } else {
        CHECK_MSG(0, "%s: %s", name, err);
    }
    rt_free(&dec);
    rvt_membuf_free(&m);
    rvt_codec_cfg_free(cfg);
}

/* The last packet of a kind (format, subformat; -1: any). */
static int find_last(const struct scen *s, unsigned format, int subformat)
{
    for (unsigned i = s->nk; i-- > 0;)
        if (s->k[i].format == format && (subformat < 0 || s->k[i].subformat == subformat))
            return (int)i;
    return -1;
}

static void done(struct scen *s)
{
    rt_free(&s->dec);
    rvt_img_free(s->img);
}

/* Index of the first packet of a format (and subformat for 0/3) from `from`. */
static int find(const struct scen *s, unsigned from, unsigned format, int subformat)
{
    for (unsigned i = from; i < s->nk; i++)
        if (s->k[i].format == format && (subformat < 0 || s->k[i].subformat == subformat) &&
            s->k[i].msg == ET_MSG_TE_INST)
            return (int)i;
    return -1;
}

#define I32(a, w) as_u32((a), (w))
#define T0 5
#define T1 6
#define RA 1

/* ---- the looplabel cases of payload.adoc ---------------------------------------------- */

/*   L-4: A   L: B   L+4: C   L+8: jalr x0,0(t1)   X: exit
 * with an M-mode handler H: addi; mret */
struct loop_prog {
    struct as a;
    uint64_t A, B, C, J, X, X2, H, H2;
};

static void loop_prog(struct loop_prog *p)
{
    as_init(&p->a, 0x1000);
    p->H = as_pc(&p->a);
    I32(&p->a, enc_addi(10, 10, 1));
    p->H2 = as_pc(&p->a);
    I32(&p->a, ENC_MRET);
    p->A = as_pc(&p->a);
    I32(&p->a, enc_addi(11, 11, 1));
    p->B = as_pc(&p->a);
    I32(&p->a, enc_addi(12, 12, 1));
    p->C = as_pc(&p->a);
    I32(&p->a, enc_addi(13, 13, 1));
    p->J = as_pc(&p->a);
    I32(&p->a, enc_jalr(0, T1, 0));
    p->X = as_pc(&p->a);
    I32(&p->a, enc_addi(14, 14, 1));
    p->X2 = as_pc(&p->a);
    I32(&p->a, enc_addi(15, 15, 1));
}

static void looplabel_cases(void)
{
    struct loop_prog p;
    loop_prog(&p);
    struct scen s;
    const char *const none[] = {NULL};

    /* Case 1: looplabel reported after the JALR, the loop goes on: updiscon
     * equals notify; the next packet is a format 1/2. */
    struct step c1[] = {{p.A, 0, 0, 0}, {p.B, 0, 0, 0}, {p.C, 0, 0, 0}, {p.J, 0, 0, 0}, {p.B, 0, 0, 0},
                        {p.C, 0, 0, 0}, {p.J, 0, 0, 0}, {p.X, 0, 0, 0}, {p.X2, 0, 0, 0}};
    if (run(&s, "looplabel case 1", &p.a, c1, 9, none, 32)) {
        int i = find(&s, 0, ET_F2, -1);
        REQUIRE(i >= 0);
        CHECK_EQ(s.k[i].address, (p.B - p.A) >> 1);
        CHECK_EQ(s.k[i].updiscon, 0);
        CHECK_EQ(s.k[i].raw_updiscon, s.k[i].raw_notify);
        CHECK(s.k[i + 1].format == ET_F2 || s.k[i + 1].format == ET_F1);
    }
    done(&s);

    /* Case 2: back to looplabel, then an exception at looplabel+4: updiscon
     * differs from notify; the next packet is a format 3. */
    struct step c2[] = {{p.A, 0, 0, 0}, {p.B, 0, 0, 0}, {p.C, 0, 0, 0}, {p.J, 0, 0, 0}, {p.B, 0, 0, 0},
                        {p.C, 1, 2, 0},                   /* illegal instruction at C */
                        {p.H, 0, 0, 3}, {p.H2, 0, 0, 3}, /* handler, mret to X */
                        {p.X, 0, 0, 0}, {p.X2, 0, 0, 0}};
    if (run(&s, "looplabel case 2", &p.a, c2, 10, none, 32)) {
        int i = find(&s, 0, ET_F2, -1);
        REQUIRE(i >= 0);
        CHECK_EQ(s.k[i].address, (p.B - p.A) >> 1);
        CHECK_EQ(s.k[i].updiscon, 1);
        CHECK(s.k[i].raw_updiscon != s.k[i].raw_notify);
        CHECK_EQ(s.k[i + 1].format, ET_F3);
        CHECK_EQ(s.k[i + 1].subformat, ET_SF_TRAP);
        CHECK_EQ(s.k[i + 1].thaddr, 1);
        CHECK_EQ(s.k[i + 1].ecause, 2);
    }
    done(&s);

    /* Case 3: the exception right after the first execution of looplabel:
     * looplabel reported with updiscon equal to notify, then a format 3. */
    struct step c3[] = {{p.A, 0, 0, 0}, {p.B, 0, 0, 0}, {p.C, 1, 2, 0}, {p.H, 0, 0, 3},
                        {p.H2, 0, 0, 3}, {p.X, 0, 0, 0}, {p.X2, 0, 0, 0}};
    if (run(&s, "looplabel case 3", &p.a, c3, 7, none, 32)) {
        int i = find(&s, 0, ET_F2, -1);
        REQUIRE(i >= 0);
        CHECK_EQ(s.k[i].address, (p.B - p.A) >> 1);
        CHECK_EQ(s.k[i].updiscon, 0);
        CHECK_EQ(s.k[i + 1].format, ET_F3);
    }
    done(&s);

    /* Case 4: a notification: here a loop without any decision (jal back),
     * whose passes only notifications can count. */
    struct as a;
    as_init(&a, 0x4000);
    uint64_t L = as_pc(&a);
    I32(&a, enc_addi(10, 10, 1));
    uint64_t L4 = as_pc(&a);
    I32(&a, enc_jal(0, -4)); /* j L */
    uint64_t H = as_pc(&a);
    I32(&a, enc_addi(11, 11, 1));
    uint64_t H2 = as_pc(&a);
    I32(&a, ENC_MRET);
    struct step c4[] = {{L, 0, 0, 0}, {L4, 0, 0, 0}, {L, 0, 0, 0}, {L4, 0, 0, 0}, {L, 0, 0, 0},
                        {L4, 0, 0, 0}, {L, 2, 7, 0}, {H, 0, 0, 3}, {H2, 0, 0, 3}, {L, 0, 0, 0}};
    if (run(&s, "notify: loop without decisions", &a, c4, 10, none, 32)) {
        int i = find(&s, 0, ET_F2, -1);
        REQUIRE(i >= 0);
        CHECK_EQ(s.k[i].notify, 1);
        CHECK(s.k[i].raw_notify != ((s.k[i].address >> 30) & 1)); /* differs from address[MSB] */
    }
    done(&s);

    /* Case 4 by trigger: trace-notify (RVT_ING_NOTIFY) on an instruction of
     * straight-line code: a format 2 with notify != address[MSB] reports it. */
    struct step c5[] = {{p.A, 0, 0, 0}, {p.B, 0, 0, 0}, {p.C, 0, 0, 0}, {p.J, 0, 0, 0}, {p.X, 0, 0, 0},
                        {p.X2, 0, 0, 0}};
    g_notify_pc = p.C;
    if (run(&s, "notify: trace-notify trigger", &p.a, c5, 6, none, 32)) {
        int i = find(&s, 0, ET_F2, -1);
        REQUIRE(i >= 0);
        CHECK_EQ(s.k[i].address, (p.C - p.A) >> 1);
        CHECK_EQ(s.k[i].notify, 1);
        CHECK(s.k[i].raw_notify != ((s.k[i].address >> 30) & 1));
    }
    g_notify_pc = 0;
    done(&s);
    as_free(&a);
    as_free(&p.a);
}

/* ---- notify, updiscon and qual_status against the spec's rule ---------------------------- */

static void status_rule_cases(void)
{
    struct loop_prog p;
    loop_prog(&p);
    struct scen s;
    const char *const none[] = {NULL};
    const char *const v026[] = {"etrace-version", "0.026", NULL};

    /* Tracing ends at the target of an uninferable jump.  updiscon is for
     * "the instruction before an exception, privilege change or resync";
     * the end of tracing is said by the support packet: ended_ntr, "would
     * have been sent anyway due to an updiscon" (payload.adoc, qual_status). */
    struct step end[] = {{p.A, 0, 0, 0}, {p.B, 0, 0, 0}, {p.C, 0, 0, 0}, {p.J, 0, 0, 0}, {p.X, 0, 0, 0}};
    if (run(&s, "end at an uninferable target", &p.a, end, 5, none, 32)) {
        int i = find(&s, 0, ET_F2, -1), q = find_last(&s, ET_F3, ET_SF_SUPPORT);
        REQUIRE(i >= 0 && q > i);
        CHECK_EQ(s.k[i].address, (p.X - p.A) >> 1);
        CHECK_EQ(s.k[i].updiscon, 0);
        CHECK_EQ(s.k[i].raw_updiscon, s.k[i].raw_notify);
        CHECK_EQ(q, i + 1);
        CHECK_EQ(s.k[q].qual_status, ET_QUAL_ENDED_NTR);
        /* the decoder reads the other forms as well: rvtrace's older streams
         * (updiscon and ended_ntr) and an encoder with early access to the
         * filter results (updiscon and ended_rep) */
        struct et_packet k[128];
        memcpy(k, s.k, s.nk * sizeof k[0]);
        k[i].updiscon = 1;
        redecode(&s, "end at an uninferable target, updiscon + ended_ntr", none, 32, k, s.nk);
        k[q].qual_status = ET_QUAL_ENDED_REP;
        redecode(&s, "end at an uninferable target, updiscon + ended_rep", none, 32, k, s.nk);
    }
    done(&s);
    /* The 0.026 draft: one address packet and "ended_ntr: ... no unreported
     * instructions (so preceding te_instr would have been sent anyway)"
     * (seed 001 table 6.4), not a repeat of the address. */
    if (run(&s, "0.026: end at an uninferable target", &p.a, end, 5, v026, 32)) {
        int i = find(&s, 0, ET_F2, -1), q = find_last(&s, ET_F3, ET_SF_SUPPORT);
        REQUIRE(i >= 0 && q > i);
        CHECK_EQ(q, i + 1);
        CHECK_EQ(s.k[q].msg, ET_MSG_TE_SUPPORT);
        CHECK_EQ(s.k[q].qual_status, ET_QUAL_ENDED_NTR);
    }
    done(&s);

    /* --disambiguate off: the loop without decisions of case 4 gets no
     * notification (notify differs from address[MSB] only "because a
     * notification was requested via trigger[2]"): the reference algorithm's
     * packets, which cannot count the loop's passes. */
    struct as a;
    as_init(&a, 0x4000);
    uint64_t L = as_pc(&a);
    I32(&a, enc_addi(10, 10, 1));
    uint64_t L4 = as_pc(&a);
    I32(&a, enc_jal(0, -4)); /* j L */
    uint64_t H = as_pc(&a);
    I32(&a, enc_addi(11, 11, 1));
    uint64_t H2 = as_pc(&a);
    I32(&a, ENC_MRET);
    struct step c4[] = {{L, 0, 0, 0}, {L4, 0, 0, 0}, {L, 0, 0, 0}, {L4, 0, 0, 0}, {L, 0, 0, 0},
                        {L4, 0, 0, 0}, {L, 2, 7, 0}, {H, 0, 0, 3}, {H2, 0, 0, 3}, {L, 0, 0, 0}};
    const char *const off[] = {"disambiguate", "off", NULL};
    g_lossy = true;
    run(&s, "disambiguate off: loop without decisions", &a, c4, 10, off, 32);
    g_lossy = false;
    CHECK(s.nk > 0);
    for (unsigned i = 0; i < s.nk; i++)
        CHECK_MSG(!s.k[i].notify, "packet %u is a notification", i);
    CHECK_EQ(s.dec.errors, 0);
    done(&s);
    as_free(&a);
    as_free(&p.a);
}

/* ---- what notify and updiscon say, checked against the path ------------------------------- */

/* A packet before a format 3 says whether its address follows an
 * uninferable discontinuity (payload.adoc): the decoder checks that against
 * the path, and a start packet against the reported instruction. */
static void updiscon_damage_cases(void)
{
    struct loop_prog p;
    loop_prog(&p);
    struct scen s;
    const char *const none[] = {NULL};

    /* X, the jalr's target, is the last instruction before an exception:
     * updiscon set (looplabel case 2).  Without it the packet would say X
     * is not an uninferable target, but the code reaches X only through
     * the jalr. */
    struct step tr[] = {{p.A, 0, 0, 0}, {p.B, 0, 0, 0}, {p.C, 0, 0, 0}, {p.J, 0, 0, 0}, {p.X, 0, 0, 0},
                        {p.X2, 1, 2, 0}, {p.H, 0, 0, 3}, {p.H2, 0, 0, 3}, {p.X2, 0, 0, 0}};
    if (run(&s, "uninferable target before a trap", &p.a, tr, 9, none, 32)) {
        int i = find(&s, 1, ET_F2, -1);
        REQUIRE(i >= 0 && s.k[i + 1].format == ET_F3 && s.k[i + 1].subformat == ET_SF_TRAP);
        CHECK_EQ(s.k[i].updiscon, 1);
        struct et_packet k[128];
        memcpy(k, s.k, s.nk * sizeof k[0]);
        k[i].updiscon = 0;
        damaged(&s, "updiscon cleared before a trap", none, 32, k, s.nk, (unsigned)i,
                "does not follow an uninferable discontinuity");
        k[i].notify = 1; /* a notification: "not the target of an uninferable discontinuity" either */
        damaged(&s, "notify at an uninferable target", none, 32, k, s.nk, (unsigned)i,
                "does not follow an uninferable discontinuity");
    }
    done(&s);

    /* The same before a precise context change (a start packet). */
    const char *const ctx[] = {"nocontext_p", "0", "context_width_p", "8", NULL};
    struct step cc[] = {{p.A, 0, 0, 0}, {p.B, 0, 0, 0}, {p.C, 0, 0, 0}, {p.J, 0, 0, 0}, {p.X, 0, 0, 0},
                        {p.X2, 0, 0, 0}};
    g_ctx_pc = p.X2;
    g_ctx_val = 5;
    g_ctx_type = RVT_CTYPE_PRECISE;
    if (run(&s, "uninferable target before a context change", &p.a, cc, 6, ctx, 32)) {
        int i = find(&s, 1, ET_F2, -1);
        REQUIRE(i >= 0 && s.k[i + 1].format == ET_F3 && s.k[i + 1].subformat == ET_SF_START);
        CHECK_EQ(s.k[i].updiscon, 1);
        struct et_packet k[128];
        memcpy(k, s.k, s.nk * sizeof k[0]);
        k[i].updiscon = 0; /* (case 3 reading: the start some instructions later) */
        damaged(&s, "updiscon cleared before a start packet", ctx, 32, k, s.nk, (unsigned)i + 1, "without updiscon");
    }
    g_ctx_pc = 0;
    done(&s);
    as_free(&p.a);

    /* An address reported for the start packet after it (not an
     * uninferable target, not a notification) is the instruction right
     * before the start: here a packet for H1 before the mret's target. */
    struct as a;
    as_init(&a, 0x3000);
    uint64_t H = as_pc(&a);
    I32(&a, enc_addi(10, 10, 1));
    uint64_t H1 = as_pc(&a);
    I32(&a, enc_addi(10, 10, 1));
    uint64_t H2 = as_pc(&a);
    I32(&a, ENC_MRET);
    uint64_t A = as_pc(&a);
    I32(&a, enc_addi(11, 11, 1));
    uint64_t B = as_pc(&a);
    I32(&a, enc_addi(11, 11, 1));
    uint64_t C = as_pc(&a);
    I32(&a, enc_addi(11, 11, 1));
    uint64_t D = as_pc(&a);
    I32(&a, enc_addi(11, 11, 1));
    struct step xr[] = {{A, 0, 0, 0}, {B, 1, 2, 0}, {H, 0, 0, 3}, {H1, 0, 0, 3}, {H2, 0, 0, 3}, {C, 0, 0, 0},
                        {D, 0, 0, 0}};
    if (run(&s, "trap handler returning to another privilege", &a, xr, 7, none, 32)) {
        int t = find(&s, 0, ET_F3, ET_SF_TRAP);
        REQUIRE(t >= 0 && s.k[t + 1].format == ET_F3 && s.k[t + 1].subformat == ET_SF_START);
        struct et_packet k[128];
        memcpy(k, s.k, ((unsigned)t + 1) * sizeof k[0]);
        memset(&k[t + 1], 0, sizeof k[0]);
        k[t + 1].format = ET_F2;
        k[t + 1].address = (H1 - H) >> 1;
        memcpy(k + t + 2, s.k + t + 1, (s.nk - (unsigned)t - 1) * sizeof k[0]);
        damaged(&s, "an address packet two instructions before a start", none, 32, k, s.nk + 1, (unsigned)t + 2,
                "comes 1 instructions after it");
        /* reporting H2, the mret itself, is what an encoder may send */
        k[t + 1].address = (H2 - H) >> 1;
        redecode(&s, "an address packet right before a start", none, 32, k, s.nk + 1);
    }
    done(&s);
    as_free(&a);
}

/* ---- implicit return: irreport and irdepth ------------------------------------------------ */

/* main: jal f; jal g; X...    f: addi; ret    g: addi; ret (sometimes elsewhere) */
struct call_prog {
    struct as a;
    uint64_t M0, CF, CG, X, X2, X3, F0, FR, G0, GR, Y, H, H2;
};

static void call_prog(struct call_prog *p)
{
    as_init(&p->a, 0x8000);
    p->M0 = as_pc(&p->a);
    I32(&p->a, enc_addi(10, 10, 1));
    p->CF = as_pc(&p->a);
    I32(&p->a, 0); /* jal ra, f */
    p->CG = as_pc(&p->a);
    I32(&p->a, 0); /* jal ra, g */
    p->X = as_pc(&p->a);
    I32(&p->a, enc_addi(11, 11, 1));
    p->X2 = as_pc(&p->a);
    I32(&p->a, enc_addi(11, 11, 1));
    p->X3 = as_pc(&p->a);
    I32(&p->a, enc_addi(11, 11, 1));
    p->F0 = as_pc(&p->a);
    I32(&p->a, enc_addi(12, 12, 1));
    p->FR = as_pc(&p->a);
    I32(&p->a, enc_jalr(0, RA, 0)); /* ret */
    p->G0 = as_pc(&p->a);
    I32(&p->a, enc_addi(13, 13, 1));
    p->GR = as_pc(&p->a);
    I32(&p->a, enc_jalr(0, RA, 0)); /* ret */
    p->Y = as_pc(&p->a);
    I32(&p->a, enc_addi(14, 14, 1));
    p->H = as_pc(&p->a);
    I32(&p->a, enc_addi(15, 15, 1));
    p->H2 = as_pc(&p->a);
    I32(&p->a, ENC_MRET);
    as_patch32(&p->a, p->CF, enc_jal(RA, (int32_t)(p->F0 - p->CF)));
    as_patch32(&p->a, p->CG, enc_jal(RA, (int32_t)(p->G0 - p->CG)));
}

static void implicit_return_cases(void)
{
    struct call_prog p;
    call_prog(&p);
    struct scen s;

    /* Both returns predicted: no packet between the start and the end. */
    struct step ok[] = {{p.M0, 0, 0, 0}, {p.CF, 0, 0, 0}, {p.F0, 0, 0, 0}, {p.FR, 0, 0, 0},
                        {p.CG, 0, 0, 0}, {p.G0, 0, 0, 0}, {p.GR, 0, 0, 0}, {p.X, 0, 0, 0},
                        {p.X2, 0, 0, 0}, {p.X3, 0, 0, 0}};
    const char *const ir20[] = {"implicit-return", "2.0", "return_stack_size_p", "2", NULL};
    const char *const irfx[] = {"implicit-return", "fixed", "return_stack_size_p", "2", NULL};
    const char *const iroff[] = {NULL};
    if (run(&s, "implicit return: predicted", &p.a, ok, 10, ir20, 32))
        CHECK_EQ(find(&s, 2, ET_F2, -1), (int)s.nk - 2); /* only the final report */
    done(&s);
    if (run(&s, "implicit return off", &p.a, ok, 10, iroff, 32))
        CHECK(s.nk >= 6); /* each return reported */
    done(&s);

    /* g returns elsewhere (to Y): reported with irreport; in 2.0 irdepth is
     * the stack depth at the failing return (1), but f's implicit return at
     * the same depth makes that ambiguous (spec issue 254; decoder.adoc's
     * is_implicit_return takes f's): the encoder first reports f's return
     * target as a notification, which carries no irreport (payload.adoc
     * sets it only after a mispredicted return or before a format 3). */
    struct step bad[] = {{p.M0, 0, 0, 0}, {p.CF, 0, 0, 0}, {p.F0, 0, 0, 0}, {p.FR, 0, 0, 0},
                         {p.CG, 0, 0, 0}, {p.G0, 0, 0, 0}, {p.GR, 0, 0, 0}, {p.Y, 0, 0, 0},
                         {p.H, 0, 0, 0}, {p.H2 + 0, 0, 0, 0}};
    (void)bad;
    struct step bad2[] = {{p.M0, 0, 0, 0}, {p.CF, 0, 0, 0}, {p.F0, 0, 0, 0}, {p.FR, 0, 0, 0},
                          {p.CG, 0, 0, 0}, {p.G0, 0, 0, 0}, {p.GR, 0, 0, 0}, {p.Y, 0, 0, 0},
                          {p.H, 1, 2, 0}};
    /* (the program stops at Y with an exception: nothing after it) */
    if (run(&s, "implicit return 2.0: mispredicted, ambiguous", &p.a, bad2, 9, ir20, 32)) {
        int n = find(&s, 2, ET_F2, -1);
        REQUIRE(n >= 0);
        CHECK_EQ(s.k[n].notify, 1);                 /* f's return target first */
        CHECK_EQ(s.k[n].address, (p.CG - p.M0) >> 1);
        CHECK_EQ(s.k[n].irreport, 0);
        int m = find(&s, (unsigned)n + 1, ET_F2, -1);
        REQUIRE(m >= 0);
        CHECK_EQ(s.k[m].address, (p.Y - p.CG) >> 1); /* then Y, g's real target */
        CHECK_EQ(s.k[m].irreport, 1);
        CHECK_EQ(s.k[m].irdepth, 1);                /* the depth of the failing return */
        CHECK_EQ(s.k[m].notify, 0);
        CHECK_EQ(s.k[m].updiscon, 1);               /* an exception follows at once */
    }
    done(&s);
    /* The corrected scheme: irdepth counts the implicit returns (1) before
     * the reported one; no extra packet needed. */
    if (run(&s, "implicit return fixed: mispredicted", &p.a, bad2, 9, irfx, 32)) {
        int n = find(&s, 2, ET_F2, -1);
        REQUIRE(n >= 0);
        CHECK_EQ(s.k[n].notify, 0);
        CHECK_EQ(s.k[n].address, (p.Y - p.M0) >> 1);
        CHECK_EQ(s.k[n].irreport, 1);
        CHECK_EQ(s.k[n].irdepth, 1);
    }
    done(&s);

    /* An exception at the target of a return the stack predicts: no EPC in
     * the trace (thaddr 1), the decoder infers it from the stack, as the
     * spec's exception_address() does through next_pc(); without implicit
     * return the EPC comes with thaddr 0. */
    struct step at_ret[] = {{p.M0, 0, 0, 0}, {p.CF, 0, 0, 0}, {p.F0, 0, 0, 0}, {p.FR, 0, 0, 0},
                            {p.CG, 1, 2, 0}, {p.H, 0, 0, 3},  {p.H2, 0, 0, 3}, {p.X, 0, 0, 0}, {p.X2, 0, 0, 0}};
    if (run(&s, "implicit return fixed: exception at a predicted return's target", &p.a, at_ret, 9, irfx, 32)) {
        int t = find(&s, 0, ET_F3, ET_SF_TRAP);
        REQUIRE(t >= 0);
        CHECK_EQ(s.k[t].thaddr, 1);
        CHECK_EQ(s.dec.ntraps, 1);
        CHECK_MSG(s.dec.trap_epc[0] == p.CG, "EPC 0x%llx, expected 0x%llx", (unsigned long long)s.dec.trap_epc[0],
                  (unsigned long long)p.CG);
    }
    done(&s);
    if (run(&s, "implicit return off: exception at a return's target", &p.a, at_ret, 9, iroff, 32)) {
        int t = find(&s, 0, ET_F3, ET_SF_TRAP);
        REQUIRE(t >= 0);
        CHECK_EQ(s.k[t].thaddr, 0);
        CHECK_EQ(s.dec.trap_epc[0], p.CG);
    }
    done(&s);

    /* The last instruction before an exception follows an implicit return:
     * the decoder must know where to stop (2.0: depth 0; fixed: 2 returns). */
    struct step before[] = {{p.M0, 0, 0, 0}, {p.CF, 0, 0, 0}, {p.F0, 0, 0, 0}, {p.FR, 0, 0, 0},
                            {p.CG, 0, 0, 0}, {p.G0, 0, 0, 0}, {p.GR, 0, 0, 0}, {p.X, 0, 0, 0},
                            {p.X2, 2, 7, 0}, {p.H, 0, 0, 3}, {p.H2, 0, 0, 3}, {p.X2, 0, 0, 0}};
    if (run(&s, "implicit return 2.0: before a trap", &p.a, before, 12, ir20, 32)) {
        int n = find(&s, 2, ET_F2, -1);
        REQUIRE(n >= 0);
        CHECK_EQ(s.k[n].address, (p.X - p.M0) >> 1);
        CHECK_EQ(s.k[n].irreport, 1);
        CHECK_EQ(s.k[n].irdepth, 0);
    }
    done(&s);
    if (run(&s, "implicit return fixed: before a trap", &p.a, before, 12, irfx, 32)) {
        int n = find(&s, 2, ET_F2, -1);
        REQUIRE(n >= 0);
        CHECK_EQ(s.k[n].irreport, 1);
        CHECK_EQ(s.k[n].irdepth, 2);
    }
    done(&s);
    as_free(&p.a);
}

/* decoder.adoc walks from the last packet and takes the first return at
 * stack depth irdepth for the one a packet with irreport reports (its
 * is_implicit_return), branches used or not, and stops before a format 3
 * where the depth is irdepth.  An earlier implicit return from that depth
 * since the last packet, even with branches after it, is reported first:
 * a notification at its target with the branches up to there.
 *
 *   M0: addi; CF: jal f; T1: addi; TB: bne +8; CF2: jal f; B1: bne +8;
 *   CK: jal k; CG: jal g; X: addi; Y: addi; H: addi; H2: mret;
 *   f: F0: addi; FR: ret; g: G0: addi; GR: ret;
 *   k: K0: addi; KC: jal f; KR: addi; KR2: addi; ret */
static void implicit_return_split_cases(void)
{
    struct as a;
    as_init(&a, 0x9000);
    uint64_t M0 = as_pc(&a);
    I32(&a, enc_addi(10, 10, 1));
    uint64_t CF = as_pc(&a);
    I32(&a, 0);
    uint64_t T1a = as_pc(&a);
    I32(&a, enc_addi(10, 10, 1));
    uint64_t TB = as_pc(&a);
    I32(&a, enc_branch(1, 10, 11, 8));
    uint64_t CF2 = as_pc(&a);
    I32(&a, 0);
    uint64_t B1 = as_pc(&a);
    I32(&a, enc_branch(1, 10, 11, 8));
    uint64_t CK = as_pc(&a);
    I32(&a, 0);
    uint64_t CG = as_pc(&a);
    I32(&a, 0);
    I32(&a, enc_addi(11, 11, 1)); /* X, where g returns to */
    uint64_t Y = as_pc(&a);
    I32(&a, enc_addi(11, 11, 1));
    uint64_t H = as_pc(&a);
    I32(&a, enc_addi(15, 15, 1));
    uint64_t H2 = as_pc(&a);
    I32(&a, ENC_MRET);
    uint64_t F0 = as_pc(&a);
    I32(&a, enc_addi(12, 12, 1));
    uint64_t FR = as_pc(&a);
    I32(&a, enc_jalr(0, RA, 0));
    uint64_t G0 = as_pc(&a);
    I32(&a, enc_addi(13, 13, 1));
    uint64_t GR = as_pc(&a);
    I32(&a, enc_jalr(0, RA, 0));
    uint64_t K0 = as_pc(&a);
    I32(&a, enc_addi(13, 13, 1));
    uint64_t KC = as_pc(&a);
    I32(&a, 0);
    uint64_t KR = as_pc(&a);
    I32(&a, enc_addi(14, 14, 1));
    uint64_t KR2 = as_pc(&a);
    I32(&a, enc_addi(14, 14, 1));
    I32(&a, enc_jalr(0, RA, 0));
    as_patch32(&a, CF, enc_jal(RA, (int32_t)(F0 - CF)));
    as_patch32(&a, CF2, enc_jal(RA, (int32_t)(F0 - CF2)));
    as_patch32(&a, CG, enc_jal(RA, (int32_t)(G0 - CG)));
    as_patch32(&a, CK, enc_jal(RA, (int32_t)(K0 - CK)));
    as_patch32(&a, KC, enc_jal(RA, (int32_t)(F0 - KC)));
    const char *const ir20[] = {"implicit-return", "2.0", "return_stack_size_p", "2", NULL};
    const char *const cc20[] = {"implicit-return", "2.0", "call_counter_size_p", "2", NULL};
    struct scen s;

    /* f returns twice at depth 1 (to T1, then to B1, a branch), a branch
     * after each, then g's return at depth 1 goes to Y, not X: the
     * notification reports B1 with TB's and B1's outcomes (a reported
     * branch's own outcome comes with it); Y's packet has no branch left. */
    struct step twice[] = {{M0, 0, 0, 0}, {CF, 0, 0, 0}, {F0, 0, 0, 0}, {FR, 0, 0, 0}, {T1a, 0, 0, 0},
                           {TB, 0, 0, 0}, {CF2, 0, 0, 0}, {F0, 0, 0, 0}, {FR, 0, 0, 0}, {B1, 0, 0, 0},
                           {CG, 0, 0, 0}, {G0, 0, 0, 0}, {GR, 0, 0, 0}, {Y, 0, 0, 0},   {H, 1, 2, 0}};
    for (int v = 0; v < 2; v++) {
        if (run(&s, v ? "implicit return 2.0 (counter): earlier return across branches"
                      : "implicit return 2.0: earlier return across branches",
                &a, twice, 15, v ? cc20 : ir20, 32)) {
            int n = find(&s, 2, ET_F1, -1);
            REQUIRE(n >= 0);
            CHECK_EQ(s.k[n].notify, 1);
            CHECK_EQ(s.k[n].address, (B1 - M0) >> 1);
            CHECK_EQ(s.k[n].branches, 2);
            CHECK_EQ(s.k[n].irreport, 0);
            int m = find(&s, (unsigned)n + 1, ET_F2, -1);
            REQUIRE(m == n + 1);
            CHECK_EQ(s.k[m].address, (Y - B1) >> 1);
            CHECK_EQ(s.k[m].irreport, 1);
            CHECK_EQ(s.k[m].irdepth, 1);
        }
        done(&s);
    }

    /* f's one return goes to T1 (not a branch), two branches after it:
     * the notification reports T1 alone, Y's packet both outcomes. */
    struct step once[] = {{M0, 0, 0, 0}, {CF, 0, 0, 0}, {F0, 0, 0, 0}, {FR, 0, 0, 0},
                          {T1a, 0, 0, 0}, {TB, 0, 0, 0}, {B1, 0, 0, 0}, {CG, 0, 0, 0},
                          {G0, 0, 0, 0}, {GR, 0, 0, 0}, {Y, 0, 0, 0}, {H, 1, 2, 0}};
    if (run(&s, "implicit return 2.0: earlier return, branches after it", &a, once, 12, ir20, 32)) {
        int n = find(&s, 2, ET_F2, -1);
        REQUIRE(n >= 0);
        CHECK_EQ(s.k[n].notify, 1);
        CHECK_EQ(s.k[n].address, (T1a - M0) >> 1);
        CHECK_EQ(s.k[n].irreport, 0);
        REQUIRE(n + 1 < (int)s.nk);
        CHECK_EQ(s.k[n + 1].format, ET_F1);
        CHECK_EQ(s.k[n + 1].branches, 2);
        CHECK_EQ(s.k[n + 1].address, (Y - T1a) >> 1);
        CHECK_EQ(s.k[n + 1].irreport, 1);
        CHECK_EQ(s.k[n + 1].irdepth, 1);
    }
    done(&s);

    /* Before a trap: the last instruction, KR, follows f's return to depth
     * 1 inside k; f's earlier return from depth 1 in main (to T1) would be
     * taken for an unpredicted one by decoder.adoc: T1 is reported first. */
    struct step trap[] = {{M0, 0, 0, 0}, {CF, 0, 0, 0}, {F0, 0, 0, 0}, {FR, 0, 0, 0}, {T1a, 0, 0, 0},
                          {TB, 0, 0, 0}, {B1, 0, 0, 0}, {CK, 0, 0, 0}, {K0, 0, 0, 0}, {KC, 0, 0, 0},
                          {F0, 0, 0, 0}, {FR, 0, 0, 0}, {KR, 0, 0, 0}, {KR2, 1, 2, 0}, {H, 0, 0, 3},
                          {H2, 0, 0, 3}, {KR2, 0, 0, 0}};
    if (run(&s, "implicit return 2.0: earlier return before a trap report", &a, trap, 17, ir20, 32)) {
        int n = find(&s, 2, ET_F2, -1);
        REQUIRE(n >= 0);
        CHECK_EQ(s.k[n].notify, 1);
        CHECK_EQ(s.k[n].address, (T1a - M0) >> 1);
        CHECK_EQ(s.k[n].irreport, 0);
        REQUIRE(n + 1 < (int)s.nk);
        CHECK_EQ(s.k[n + 1].format, ET_F1);
        CHECK_EQ(s.k[n + 1].address, (KR - T1a) >> 1);
        CHECK_EQ(s.k[n + 1].irreport, 1);
        CHECK_EQ(s.k[n + 1].irdepth, 1);
        CHECK_EQ(s.k[n + 1].notify, 0);
    }
    done(&s);
    as_free(&a);
}

/* ---- branch prediction and the jump target cache ------------------------------------------ */

static void bpred_jtc_cases(void)
{
    struct as a;
    as_init(&a, 0x2000);
    uint64_t S = as_pc(&a);
    I32(&a, enc_addi(10, 10, 1));
    uint64_t L = as_pc(&a);
    I32(&a, enc_addi(11, 11, 1));
    uint64_t B = as_pc(&a);
    I32(&a, enc_branch(1, 10, 11, (int32_t)(L - (S + 8)))); /* bne back to L */
    uint64_t J = as_pc(&a);
    I32(&a, enc_jalr(0, T1, 0)); /* to T */
    uint64_t T = as_pc(&a);
    I32(&a, enc_addi(12, 12, 1));
    uint64_t T2 = as_pc(&a);
    I32(&a, enc_jalr(0, T0 + 2, 0)); /* back to S via t2 */
    uint64_t E = as_pc(&a);
    I32(&a, enc_addi(13, 13, 1));

    /* A branch taken 100 times then not: 1 miss, 30 in the map (format 1),
     * then 69 correct predictions counted, and the miss: format 0.0. */
    struct step st[400];
    size_t n = 0;
    st[n++] = (struct step){S, 0, 0, 0};
    for (int i = 0; i < 101; i++) {
        st[n++] = (struct step){L, 0, 0, 0};
        st[n++] = (struct step){B, 0, 0, 0};
    }
    st[n++] = (struct step){J, 0, 0, 0};
    st[n++] = (struct step){T, 0, 0, 0};
    st[n++] = (struct step){E - 4, 0, 0, 0};
    st[n++] = (struct step){E, 0, 0, 0};
    const char *const bp[] = {"branch-prediction", "1", "bpred_size_p", "4", NULL};
    struct scen s;
    if (run(&s, "branch prediction", &a, st, n, bp, 32)) {
        int f1 = find(&s, 0, ET_F1, -1);
        REQUIRE(f1 >= 0);
        CHECK_EQ(s.k[f1].branches, 0); /* the first map of 31, the first one mispredicted */
        int f0 = find(&s, 0, ET_F0, ET_SF0_BPRED);
        REQUIRE(f0 >= 0);
        CHECK_EQ(s.k[f0].branch_fmt, ET_BFMT_NOADDR);
        CHECK_EQ(s.k[f0].branch_count, 101 - 31 - 31 - 1 - 0 + 0 - 0 + (69 - 38) - (69 - 38)); /* 38 */
        CHECK_EQ(s.k[f0].branch_count, 38);
        /* A map of 31 outcomes the predictor all gets right is never sent
         * ("If all were predicted correctly, nothing is output at this
         * time", exampleAlgorithm.adoc): the count packet turned into one
         * (31 taken) is damage at that packet. */
        struct et_packet k[128];
        memcpy(k, s.k, s.nk * sizeof k[0]);
        memset(&k[f0], 0, sizeof k[f0]);
        k[f0].format = ET_F1;
        k[f0].branches = 0; /* a full map without address */
        k[f0].branch_map = 0;
        damaged(&s, "format 1 map of 31 predicted branches", bp, 32, k, s.nk, (unsigned)f0, "all predicts");
    }
    done(&s);

    /* The same uninferable target again and again: jump target cache index. */
    n = 0;
    st[n++] = (struct step){S, 0, 0, 0};
    for (int i = 0; i < 5; i++) {
        st[n++] = (struct step){L, 0, 0, 0};
        st[n++] = (struct step){B, 0, 0, 0};
        st[n++] = (struct step){J, 0, 0, 0};
        st[n++] = (struct step){T, 0, 0, 0};
        st[n++] = (struct step){T2, 0, 0, 0};
        st[n++] = (struct step){S, 0, 0, 0};
    }
    st[n++] = (struct step){L, 0, 0, 0};
    const char *const jtc[] = {"jump-target-cache", "1", "cache_size_p", "4", NULL};
    if (run(&s, "jump target cache", &a, st, n, jtc, 32)) {
        int j = find(&s, 0, ET_F0, ET_SF0_JTC);
        REQUIRE(j >= 0);
        CHECK(s.k[j].index == ((T >> 1) & 15) || s.k[j].index == ((S >> 1) & 15));
        unsigned count = 0;
        for (unsigned i = 0; i < s.nk; i++)
            count += s.k[i].format == ET_F0 && s.k[i].subformat == ET_SF0_JTC;
        CHECK(count >= 6); /* every pass after the first uses indexes */
    }
    done(&s);
    as_free(&a);
}

/* ---- traps ------------------------------------------------------------------------------- */

static void trap_cases(void)
{
    struct loop_prog p;
    loop_prog(&p);
    struct scen s;
    const char *const none[] = {NULL};
    /* An exception at the target of an uninferable jump: format 3.1 with
     * thaddr 0 carries the EPC, then 3.0 gives the handler. */
    struct step epc[] = {{p.A, 0, 0, 0}, {p.B, 0, 0, 0}, {p.C, 0, 0, 0}, {p.J, 0, 0, 0},
                         {p.X, 1, 1, 0}, {p.H, 0, 0, 3}, {p.H2, 0, 0, 3}, {p.X2, 0, 0, 0}};
    if (run(&s, "exception at an uninferable target", &p.a, epc, 8, none, 32)) {
        int t = find(&s, 0, ET_F3, ET_SF_TRAP);
        REQUIRE(t >= 0);
        CHECK_EQ(s.k[t].thaddr, 0);
        CHECK_EQ(s.k[t].address, p.X >> 1);
        CHECK_EQ(s.k[t].ecause, 1);
        CHECK_EQ(s.k[t + 1].subformat, ET_SF_START);
        CHECK_EQ(s.k[t + 1].address, p.H >> 1);
        CHECK_EQ(s.dec.ntraps, 1);
        CHECK_EQ(s.dec.trap_epc[0], p.X);
        /* The same trap reported with its handler (thaddr 1): the encoder
         * cannot have sent it ("If an exception occurs at the target of an
         * uninferable PC discontinuity ... address contains the EPC and
         * thaddr is set to 0", payload.adoc). */
        struct et_packet k[128];
        memcpy(k, s.k, s.nk * sizeof k[0]);
        k[t].thaddr = 1;
        k[t].address = s.k[t + 1].address;
        k[t].privilege = s.k[t + 1].privilege; /* (thaddr 1: the handler's) */
        memmove(k + t + 1, k + t + 2, (s.nk - (unsigned)t - 2) * sizeof k[0]);
        damaged(&s, "thaddr 1 at an uninferable target", none, 32, k, s.nk - 1, (unsigned)t,
                "reported with its EPC (thaddr 0)");
    }
    done(&s);
    /* An interrupt before the handler's first instruction retires. */
    struct step two[] = {{p.A, 0, 0, 0}, {p.B, 1, 2, 0}, {p.H, 2, 11, 3}, {p.H, 0, 0, 3},
                         {p.H2, 0, 0, 3}, {p.X, 0, 0, 0}, {p.X2, 0, 0, 0}};
    if (run(&s, "back-to-back traps", &p.a, two, 7, none, 32)) {
        int t = find(&s, 0, ET_F3, ET_SF_TRAP);
        REQUIRE(t >= 0);
        CHECK_EQ(s.k[t].thaddr, 0);
        CHECK_EQ(s.k[t].ecause, 2);
        CHECK_EQ(s.k[t].interrupt, 0);
        CHECK_EQ(s.k[t + 1].subformat, ET_SF_TRAP);
        CHECK_EQ(s.k[t + 1].thaddr, 1);
        CHECK_EQ(s.k[t + 1].interrupt, 1);
        CHECK_EQ(s.k[t + 1].ecause, 11);
        CHECK_EQ(s.k[t + 1].address, p.H >> 1);
    }
    CHECK_EQ(s.dec.ntraps, 2);
    CHECK_EQ(s.dec.trap_cause[0], 2);
    CHECK_EQ(s.dec.trap_cause[1], 11);
    done(&s);

    /* Privileges a trap cannot have: "Traps never transition from a
     * more-privileged mode to a less-privileged mode" (privileged
     * architecture), thaddr 0 reports "the privilege level prior to any
     * change" (payload.adoc), and codes 2 and 7 are reserved
     * (ingressPort.adoc). */
    struct step nest[] = {{p.A, 0, 0, 0}, {p.B, 1, 2, 0}, {p.H, 0, 0, 3}, {p.H2, 1, 2, 3},
                          {p.H, 0, 0, 3}, {p.H2, 0, 0, 3}, {p.X, 0, 0, 0}, {p.X2, 0, 0, 0}};
    if (run(&s, "a trap in a handler", &p.a, nest, 8, none, 32)) {
        int t1 = find(&s, 0, ET_F3, ET_SF_TRAP), t2 = t1 >= 0 ? find(&s, (unsigned)t1 + 1, ET_F3, ET_SF_TRAP) : -1;
        REQUIRE(t2 > 0);
        CHECK_EQ(s.k[t2].privilege, 3);
        struct et_packet k[128];
        memcpy(k, s.k, s.nk * sizeof k[0]);
        k[t2].privilege = 1;
        damaged(&s, "a trap from M to S", none, 32, k, s.nk, (unsigned)t2, "lower than privilege 3");
        k[t2].privilege = 0;
        damaged(&s, "a trap handler in U-mode", none, 32, k, s.nk, (unsigned)t2, "no user-mode trap handling");
        k[t2].privilege = 2;
        damaged(&s, "privilege 2", none, 32, k, s.nk, (unsigned)t2, "reserved code");
    }
    done(&s);
    struct step mepc[] = {{p.A, 0, 0, 3}, {p.B, 0, 0, 3}, {p.C, 0, 0, 3}, {p.J, 0, 0, 3},
                          {p.X, 1, 1, 3}, {p.H, 0, 0, 3}, {p.H2, 0, 0, 3}, {p.X2, 0, 0, 0}};
    if (run(&s, "M-mode exception at an uninferable target", &p.a, mepc, 8, none, 32)) {
        int t = find(&s, 0, ET_F3, ET_SF_TRAP);
        REQUIRE(t >= 0 && s.k[t].thaddr == 0 && s.k[t + 1].subformat == ET_SF_START);
        struct et_packet k[128];
        memcpy(k, s.k, s.nk * sizeof k[0]);
        k[t + 1].privilege = 1;
        damaged(&s, "a handler below the privilege trapped from", none, 32, k, s.nk, (unsigned)t + 1,
                "lower than privilege 3");
        memcpy(k, s.k, s.nk * sizeof k[0]);
        k[t].privilege = 1;
        damaged(&s, "thaddr 0 with another privilege", none, 32, k, s.nk, (unsigned)t,
                "thaddr 0 reports the privilege before the trap");
    }
    done(&s);
    as_free(&p.a);
}

/* ---- the 0.026 draft (seed 001) ------------------------------------------------------------------ */

/* A loop closed by a jalr: one address packet per pass, and a resync every
 * 16 packets (resync-max 0).  A pass's packet deleted before a resync
 * leaves a loop with a pass less that the code cannot contradict.  In 2.0
 * the early resync shows it; in 0.026 a trace-notify start may come at any
 * time, so the early one reads as a notification that leaves the count
 * running (the encoder's rule for them), and the resync then missing is
 * reported.  A real notification among the resyncs decodes without a word. */
static void draft_resync_cases(void)
{
    struct as a;
    as_init(&a, 0x5000);
    uint64_t L = as_pc(&a);
    I32(&a, enc_addi(10, 10, 1));
    uint64_t J = as_pc(&a);
    I32(&a, enc_jalr(0, T1, 0)); /* to L, and at the end to E */
    uint64_t E = as_pc(&a);
    I32(&a, enc_addi(11, 11, 1));
    struct step st[200];
    size_t n = 0;
    for (int i = 0; i < 80; i++) {
        st[n++] = (struct step){L, 0, 0, 0};
        st[n++] = (struct step){J, 0, 0, 0};
    }
    st[n++] = (struct step){E, 0, 0, 0};
    const char *const v026[] = {"etrace-version", "0.026", "resync-max", "0", NULL};
    const char *const v20[] = {"resync-max", "0", NULL};
    struct scen s;
    for (int v = 0; v < 2; v++) {
        if (!run(&s, v ? "2.0: a loop closed by a jalr" : "0.026: a loop closed by a jalr", &a, st, n, v ? v20 : v026,
                 32))
            continue;
        int s1 = find(&s, 2, ET_F3, ET_SF_START), s2 = s1 > 0 ? find(&s, (unsigned)s1 + 1, ET_F3, ET_SF_START) : -1;
        REQUIRE(s2 > s1 + 3);
        /* two passes' packets less (the resync may come a packet or two
         * after the count passed the period: one less can fit too) */
        struct et_packet k[128];
        memcpy(k, s.k, (unsigned)s2 * sizeof k[0]);
        memcpy(k + s2 - 2, s.k + s2, (s.nk - (unsigned)s2) * sizeof k[0]);
        if (v)
            damaged(&s, "2.0: packets deleted before a resync", v20, 32, k, s.nk - 2, (unsigned)s2 - 2,
                    "with nothing to explain it");
        else
            damaged(&s, "0.026: packets deleted before a resync", v026, 32, k, s.nk - 2, ~0u, "and no resync");
        done(&s);
    }
    /* trace-notify ("trace single") starts among them: one at every pass
     * through E's predecessor J, so at every count (the decode must be
     * exact: run() checks) */
    g_notify_pc = J;
    if (run(&s, "0.026: trace-notify starts among resyncs", &a, st, n, v026, 32))
        CHECK(find(&s, 2, ET_F3, ET_SF_START) >= 0);
    g_notify_pc = 0;
    done(&s);
    as_free(&a);
}

static void draft_cases(void)
{
    struct loop_prog p;
    loop_prog(&p);
    struct scen s;
    const char *const v026[] = {"etrace-version", "0.026", NULL};
    /* A trap before the handler's first instruction retires: the draft
     * wants every trap's type and handler address ("the first of the
     * interrupt or exception handler must be traced", 2.1.4).  Two
     * exception packets, the first at the handler where the second trap
     * was taken; nothing retired in between. */
    struct step two[] = {{p.A, 0, 0, 0}, {p.B, 1, 2, 0}, {p.H, 2, 11, 3}, {p.H, 0, 0, 3},
                         {p.H2, 0, 0, 3}, {p.X, 0, 0, 0}, {p.X2, 0, 0, 0}};
    if (run(&s, "0.026: back-to-back traps", &p.a, two, 7, v026, 32)) {
        int t = find(&s, 0, ET_F3, ET_SF_TRAP);
        REQUIRE(t >= 0);
        CHECK_EQ(s.k[t].ecause, 2);
        CHECK_EQ(s.k[t].interrupt, 0);
        CHECK_EQ(s.k[t].address, p.H >> 1);
        CHECK_EQ(s.k[t + 1].format, ET_F3);
        CHECK_EQ(s.k[t + 1].subformat, ET_SF_TRAP);
        CHECK_EQ(s.k[t + 1].ecause, 11);
        CHECK_EQ(s.k[t + 1].interrupt, 1);
        CHECK_EQ(s.k[t + 1].address, p.H >> 1);
        CHECK_EQ(s.dec.ntraps, 2);
        CHECK_EQ(s.dec.trap_cause[0], 2);
        CHECK_EQ(s.dec.trap_cause[1], 11);
    }
    done(&s);
    /* The handler's first instruction retires, then an interrupt: its
     * address is repeated ("the final instruction executed beforehand must
     * be traced"), which tells it from the case above. */
    struct step ret1[] = {{p.A, 0, 0, 0}, {p.B, 1, 2, 0}, {p.H, 0, 0, 3}, {p.H2, 2, 11, 3}, {p.H, 0, 0, 3},
                          {p.H2, 0, 0, 3}, {p.X, 0, 0, 0}, {p.X2, 0, 0, 0}};
    if (run(&s, "0.026: trap after the handler's first instruction", &p.a, ret1, 8, v026, 32)) {
        int t = find(&s, 0, ET_F3, ET_SF_TRAP);
        REQUIRE(t >= 0);
        CHECK_EQ(s.k[t].ecause, 2);
        CHECK_EQ(s.k[t + 1].format, ET_F2);
        CHECK_EQ(s.k[t + 2].format, ET_F3);
        CHECK_EQ(s.k[t + 2].subformat, ET_SF_TRAP);
        CHECK_EQ(s.k[t + 2].ecause, 11);
        CHECK_EQ(s.dec.ntraps, 2);
    }
    done(&s);

    /* context_type by the draft's table 3.3: 2 imprecise gives the context
     * packet without an address; 1 precise a start packet; 0 a change with
     * discontinuity the last instruction and a start packet; 3 a
     * notification (a sync point here) without the context. */
    const char *const v026c[] = {"etrace-version", "0.026", "nocontext_p", "0", "context_width_p", "8", NULL};
    struct step st[] = {{p.A, 0, 0, 0}, {p.B, 0, 0, 0}, {p.C, 0, 0, 0}, {p.J, 0, 0, 0}, {p.X, 0, 0, 0},
                        {p.X2, 0, 0, 0}};
    static const struct {
        uint8_t ctype;
        int start_at_c, context_pkt, report_b;
    } want[] = {{2, 0, 1, 0}, {1, 1, 0, 0}, {0, 1, 0, 1}, {3, 1, 0, 0}};
    for (unsigned w = 0; w < 4; w++) {
        char name[64];
        snprintf(name, sizeof name, "0.026: context_type %u", want[w].ctype);
        g_ctx_pc = p.C;
        g_ctx_val = 0x5a;
        g_ctx_type = want[w].ctype;
        if (run(&s, name, &p.a, st, 6, v026c, 32)) {
            int c = find(&s, 2, ET_F3, ET_SF_CONTEXT), st3 = find(&s, 2, ET_F3, ET_SF_START);
            CHECK_MSG((c >= 0) == (want[w].context_pkt != 0), "%s: context packet %d", name, c);
            if (c >= 0)
                CHECK_EQ(s.k[c].context, 0x5a);
            bool at_c = st3 >= 0 && s.k[st3].address == p.C >> 1;
            CHECK_MSG(at_c == (want[w].start_at_c != 0), "%s: start packet at C: %d", name, at_c);
            if (at_c)
                CHECK_EQ(s.k[st3].context, want[w].ctype == 3 ? 0 : 0x5a);
            int f2 = find(&s, 0, ET_F2, -1);
            bool b_rep = f2 >= 0 && f2 < st3 && s.k[f2].address == (p.B - p.A) >> 1;
            CHECK_MSG(b_rep == (want[w].report_b != 0), "%s: B reported before the change: %d", name, b_rep);
        }
        done(&s);
    }
    g_ctx_pc = 0;

    /* --implicit-except is not in the draft: refused, not a stream its own
     * decoder cannot read */
    const char *const ie[] = {"etrace-version", "0.026", "implicit-except", "1", "tvec-m", "0x1000", NULL};
    char err[600] = "";
    void *cfg = rt_config(ie, 32, NULL, err, sizeof err);
    CHECK(cfg == NULL);
    CHECK_MSG(strstr(err, "0.026") != NULL, "message: %s", err);
    rvt_codec_cfg_free(cfg);
    as_free(&p.a);
}

/* ---- filters ---------------------------------------------------------------------------------- */

static void filter_cases(void)
{
    struct loop_prog p;
    loop_prog(&p);
    /* user code traced, the M-mode handler not */
    struct step st[] = {{p.A, 0, 0, 0}, {p.B, 0, 0, 0}, {p.C, 2, 7, 0}, {p.H, 0, 0, 3},
                        {p.H2, 0, 0, 3}, {p.C, 0, 0, 0}, {p.J, 0, 0, 0}, {p.X, 0, 0, 0},
                        {p.X2, 0, 0, 0}};
    const char *const fp[] = {"filter-priv", "u", NULL};
    struct scen s;
    memset(&s, 0, sizeof s);
    /* run() compares with every retired instruction; here only the user ones
     * are expected: check by hand */
    s.img = rvt_img_new();
    rvt_img_set_xlen(s.img, 32);
    rvt_img_add_raw(s.img, p.a.base, p.a.buf, p.a.len, "filter");
    struct rvt_ing_builder_config bc = {.size = sizeof bc, .image = s.img, .xlen = 32, .emit = emit, .emit_ctx = &s};
    struct rvt_ing_builder *b = rvt_ing_builder_new(&bc);
    for (size_t i = 0; i < sizeof st / sizeof st[0]; i++) {
        if (st[i].trap)
            rvt_ing_builder_trap(b, st[i].trap == 2, st[i].cause, 0, st[i].pc);
        else
            rvt_ing_builder_insn(b, st[i].pc, -1, st[i].priv, 0, NULL);
    }
    rvt_ing_builder_finish(b);
    rvt_ing_builder_free(b);
    char err[600];
    void *cfg = rt_config(fp, 32, s.img, err, sizeof err);
    REQUIRE(cfg != NULL);
    struct rt_result enc = {0};
    REQUIRE(rt_encode(cfg, s.recs, s.nrecs, &enc, err, sizeof err) == 0);
    REQUIRE(rt_decode(cfg, s.img, RVT_FLOW_ECALL_TRAP, enc.bytes, enc.nbytes, &s.dec, err, sizeof err) == 0);
    uint64_t want[] = {p.A, p.B, p.C, p.J, p.X, p.X2};

    CHECK_EQ(s.dec.npcs, 6);
    for (unsigned i = 0; i < 6 && i < s.dec.npcs; i++)
        CHECK_EQ(s.dec.pcs[i], want[i]);
    CHECK_EQ(s.dec.errors, 0);
    CHECK(s.dec.gaps >= 1); /* tracing stopped in the handler */
    rt_free(&enc);
    rvt_codec_cfg_free(cfg);
    done(&s);

    /* only the handler of cause 2 (an illegal instruction), up to its mret */
    struct step st2[] = {{p.A, 0, 0, 0}, {p.B, 0, 0, 0}, {p.C, 2, 7, 0}, {p.H, 0, 0, 3}, {p.H2, 0, 0, 3},
                         {p.C, 1, 2, 0}, {p.H, 0, 0, 3}, {p.H2, 0, 0, 3}, {p.J, 0, 0, 0}, {p.X, 0, 0, 0},
                         {p.X2, 0, 0, 0}};
    memset(&s, 0, sizeof s);
    s.img = rvt_img_new();
    rvt_img_set_xlen(s.img, 32);
    rvt_img_add_raw(s.img, p.a.base, p.a.buf, p.a.len, "filter");
    struct rvt_ing_builder_config bc2 = {.size = sizeof bc2, .image = s.img, .xlen = 32, .emit = emit, .emit_ctx = &s};
    b = rvt_ing_builder_new(&bc2);
    for (size_t i = 0; i < sizeof st2 / sizeof st2[0]; i++) {
        if (st2[i].trap)
            rvt_ing_builder_trap(b, st2[i].trap == 2, st2[i].cause, 0, st2[i].pc);
        else
            rvt_ing_builder_insn(b, st2[i].pc, -1, st2[i].priv, 0, NULL);
    }
    rvt_ing_builder_finish(b);
    rvt_ing_builder_free(b);
    const char *const fc[] = {"filter-cause", "2", NULL};
    cfg = rt_config(fc, 32, s.img, err, sizeof err);
    REQUIRE(cfg != NULL);
    memset(&enc, 0, sizeof enc);
    REQUIRE(rt_encode(cfg, s.recs, s.nrecs, &enc, err, sizeof err) == 0);
    REQUIRE(rt_decode(cfg, s.img, RVT_FLOW_ECALL_TRAP, enc.bytes, enc.nbytes, &s.dec, err, sizeof err) == 0);
    CHECK_EQ(s.dec.npcs, 2); /* the handler of the illegal instruction only: H, mret */
    if (s.dec.npcs == 2) {
        CHECK_EQ(s.dec.pcs[0], p.H);
        CHECK_EQ(s.dec.pcs[1], p.H2);
    }
    CHECK_EQ(s.dec.errors, 0);
    rt_free(&enc);
    rvt_codec_cfg_free(cfg);
    done(&s);
    as_free(&p.a);
}

int main(void)
{
    looplabel_cases();
    status_rule_cases();
    implicit_return_cases();
    implicit_return_split_cases();
    bpred_jtc_cases();
    trap_cases();
    updiscon_damage_cases();
    draft_cases();
    draft_resync_cases();
    filter_cases();
    return rvt_test_summary("test_et_cases");
}
