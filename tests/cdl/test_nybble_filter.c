/* Filters and triggers through both nybble families: executions are run
 * through the library's filter (RVT_ING_UNQUALIFIED / RVT_ING_NOTIFY marks),
 * encoded, decoded.  For every filter kind and every configuration:
 *   - the decoded instructions are exactly the qualified ones;
 *   - there is one trace-off gap per qualified -> unqualified transition,
 *     each after exactly the qualified instructions before it, and no other
 *     gap or error;
 *   - traced data values (cdl register writes, dbg load/store addresses) are
 *     those of the qualified instructions;
 *   - a notify adds one explicit report of the instruction's address (cdl: a
 *     PC field; dbg: Trace Enabled + sync fields) and changes nothing decoded.
 * Programs: the flowtest program (traps, interrupts, U/M), the t1 PC list,
 * and generated programs with every generator feature (S mode, nesting,
 * contexts). */
#include "cdl/cdl.h"
#include "dbg/dbg.h"
#include "nybrt.h"
#include "rvtrace/gen.h"
#include "testlib.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

extern const struct rvt_codec rvt_codec_cdl, rvt_codec_dbg;

/* One filter case: the CLI's option texts. */
struct fcase {
    char filter[160], trigger[160], sideband[160];
};

/* The execution through the filter, and what decoding it must give. */
struct filtered {
    struct nrt_prog q;         /* q.x: the marked records; q.pcs/q.data: the qualified instructions' */
    struct rvt_filter_stats st;
    uint64_t *off_at;          /* qualified instructions before each qualified -> unqualified transition */
    bool *off_empty;           /* ...the qualified stretch before it retired nothing (a trap alone) */
    size_t noff, nempty;
    uint64_t notified;         /* records marked notify */
};

static void filtered_free(struct filtered *f)
{
    nrt_exec_free(&f->q.x);
    free(f->q.pcs);
    free(f->q.data);
    free(f->off_at);
    free(f->off_empty);
    memset(f, 0, sizeof *f);
}

static bool run_filter(const struct nrt_prog *p, const struct fcase *fc, struct filtered *out)
{
    memset(out, 0, sizeof *out);
    struct rvt_filter_config cfg;
    rvt_filter_config_init(&cfg);
    cfg.image = p->img;
    cfg.xlen = p->xlen;
    struct rvt_diag d = {0};
    if ((fc->filter[0] && rvt_filter_parse(&cfg, fc->filter, &d) < 0) ||
        (fc->trigger[0] && rvt_filter_parse_trigger(&cfg, fc->trigger, &d) < 0) ||
        (fc->sideband[0] && rvt_filter_parse_sideband(&cfg, fc->sideband, &d) < 0)) {
        rvt_test_fail(__FILE__, __LINE__, "%s: filter '%s' trigger '%s': %s", p->name, fc->filter, fc->trigger, d.msg);
        return false;
    }
    struct rvt_filter *f;
    if (rvt_filter_new(&f, &cfg, &d) < 0) {
        rvt_test_fail(__FILE__, __LINE__, "%s: %s", p->name, d.msg);
        return false;
    }
    int rc = 0;
    for (size_t i = 0; i < p->x.n && rc >= 0; i++)
        rc = rvt_filter_put(f, &p->x.recs[i], nrt_exec_keep, &out->q.x);
    rvt_filter_finish(f);
    rvt_filter_get_stats(f, &out->st, sizeof out->st);
    if (rc < 0)
        rvt_test_fail(__FILE__, __LINE__, "%s: filter: %s", p->name, rvt_filter_error(f));
    rvt_filter_free(f);
    if (rc < 0)
        return false;
    out->q.name = p->name;
    out->q.img = p->img;
    out->q.xlen = p->xlen;
    out->q.ecall = p->ecall;
    out->q.pcs = nrt_expected_pcs(&out->q.x, p->img, p->xlen, &out->q.npcs);
    out->q.ndata = nrt_expected_data(&out->q.x, p->img, p->xlen, &out->q.data);
    /* Where the trace-off gaps belong: after the qualified instructions so
     * far, at every qualified -> unqualified transition. */
    struct rvt_bcache *bc = rvt_bcache_new(p->img, 0);
    uint64_t traced = 0, on_at = 0;
    bool prev_q = false;
    out->off_at = malloc((out->q.x.n + 1) * sizeof *out->off_at);
    out->off_empty = malloc((out->q.x.n + 1) * sizeof *out->off_empty);
    for (size_t i = 0; i < out->q.x.n; i++) {
        const struct rvt_ing_rec *r = &out->q.x.recs[i];
        bool q = !(r->flags & RVT_ING_UNQUALIFIED);
        if (q && !prev_q)
            on_at = traced;
        if (!q && prev_q) {
            out->off_empty[out->noff] = traced == on_at;
            out->nempty += traced == on_at;
            out->off_at[out->noff++] = traced;
        }
        uint64_t k = 0;
        if (q && r->iretire)
            rvt_ing_count_insns(r, bc, &k);
        traced += k;
        out->notified += q && (r->flags & RVT_ING_NOTIFY) && r->iretire;
        prev_q = q;
    }
    rvt_bcache_free(bc);
    return true;
}

/* Explicit reports in a stream: cdl PC fields naming `addr`, dbg Trace
 * Enabled packets (parsed linearly from the start). */
static uint64_t count_reports(const struct rvt_codec *c, const void *cfg, const uint8_t *buf, size_t len,
                              uint64_t addr)
{
    uint8_t *nyb = malloc(2 * len + 1);
    rvt_nyb_unpack(buf, len, nyb);
    size_t n = 2 * len, pos = 0;
    uint64_t count = 0;
    struct rvt_diag d = {0};
    while (pos < n) {
        int k;
        if (c == &rvt_codec_cdl) {
            struct cdl_field f;
            k = cdl_field_decode(nyb + pos, n - pos, cdl_cfg_fmt(cfg), &f, &d);
            count += k > 0 && f.kind == CDL_F_DATA && f.reason == CDL_DATA_PC && f.value == addr;
        } else {
            struct dbg_packet p;
            k = dbg_packet_decode(nyb + pos, n - pos, DBG_CUSTOM_VALUE, &p, &d);
            count += k > 0 && p.hdr == DBG_TRACE_ENABLED;
        }
        if (k <= 0)
            break;
        pos += (size_t)k;
    }
    free(nyb);
    return count;
}

struct cfgcase {
    const struct rvt_codec *codec;
    const char *opts[10];
    bool nocode;
    uint8_t kinds[4]; /* data kinds to compare (0-terminated) */
    bool with_index;
};

static const struct cfgcase g_cfgs[] = {
    {&rvt_codec_cdl, {NULL}, false, {0}, false},
    {&rvt_codec_cdl, {NULL}, true, {0}, false},
    {&rvt_codec_cdl, {"cdl-pc", "uninferable", NULL}, false, {0}, false},
    {&rvt_codec_cdl, {"cdl-pack", "all", NULL}, false, {RVT_DATA_REG_WRITE, RVT_DATA_TRACEPOINT, 0}, true},
    {&rvt_codec_cdl, {"cdl-pc", "uninferable", "cdl-sync-interval", "16", NULL}, false, {0}, false},
    {&rvt_codec_dbg, {NULL}, false, {0}, false},
    {&rvt_codec_dbg, {"dbg-emit", "pc,priv", NULL}, false, {0}, false},
    {&rvt_codec_dbg, {"dbg-emit", "pc,priv", NULL}, true, {0}, false},
    {&rvt_codec_dbg,
     {"dbg-emit", "pc,branch,priv,loadaddr,storeaddr,timestamp", "dbg-buffer", "1024", NULL},
     false,
     {RVT_DATA_LOAD_ADDR, RVT_DATA_STORE_ADDR, 0},
     false},
    {&rvt_codec_dbg, {"dbg-destination", "sysram", "dbg-buffer", "4194304", NULL}, false, {0}, false},
};
#define NCFGS (sizeof g_cfgs / sizeof g_cfgs[0])

static uint64_t g_runs, g_gaps;

static void check_case(const struct nrt_prog *p, const struct fcase *fc, const struct filtered *fx,
                       const struct cfgcase *cc)
{
    char desc[160], why[256], what[1024];
    nrt_opts_desc(cc->opts, desc, sizeof desc);
    snprintf(what, sizeof what, "%s %s %s%s[filter '%s' trigger '%s' sideband '%s']", cc->codec->name, p->name, desc,
             cc->nocode ? "(no ELF) " : "", fc->filter, fc->trigger, fc->sideband);
    struct nrt_enc enc;
    struct nrt_dec dec;
    void *cfg = NULL;
    if (!nrt_run(cc->codec, &fx->q, cc->opts, cc->nocode, &enc, &dec, &cfg))
        return;
    g_runs++;
    CHECK_MSG(dec.rc == 0 && dec.errors == 0, "%s: rc %d, %" PRIu64 " errors: %s %s", what, dec.rc, dec.errors,
              dec.msg, dec.first_error);
    CHECK_MSG(nrt_same_pcs(fx->q.pcs, fx->q.npcs, dec.pcs, dec.npcs, false, why, sizeof why), "%s: %s", what, why);
    /* One trace-off gap per transition, each where the trace stopped.  (dbg
     * leaves out a traced stretch that is only a trap naming an instruction
     * before it, retiring nothing: docs/dbg.md; its gap merges with the
     * next.) */
    uint64_t may_miss = cc->codec == &rvt_codec_dbg ? fx->nempty : 0;
    CHECK_MSG(dec.gaps == dec.gap_reasons[RVT_GAP_TRACE_OFF] && dec.gaps <= fx->st.off_transitions &&
                  dec.gaps + may_miss >= fx->st.off_transitions && fx->noff == fx->st.off_transitions,
              "%s: %" PRIu64 " gaps (%" PRIu64 " trace off, last '%s'), expected %" PRIu64 " trace-off gaps", what,
              dec.gaps, dec.gap_reasons[RVT_GAP_TRACE_OFF], dec.last_gap, fx->st.off_transitions);
    size_t k = 0;
    for (size_t i = 0; i < dec.ngapv && k < fx->noff; i++) {
        if (dec.gapv[i].reason != RVT_GAP_TRACE_OFF)
            continue;
        while (may_miss && fx->off_empty[k] && dec.gapv[i].at != fx->off_at[k] && k + 1 < fx->noff)
            k++; /* (a stretch left out) */
        if (dec.gapv[i].at != fx->off_at[k]) {
            rvt_test_fail(__FILE__, __LINE__, "%s: trace-off gap %zu after %zu decoded instructions, expected after %" PRIu64,
                          what, k, dec.gapv[i].at, fx->off_at[k]);
            break;
        }
        k++;
    }
    g_gaps += k;
    for (const uint8_t *kd = cc->kinds; *kd; kd++) {
        bool any = false;
        for (size_t i = 0; i < fx->q.ndata && !any; i++)
            any = fx->q.data[i].kind == *kd;
        if (any) {
            nrt_check_data(&fx->q, &dec, *kd, cc->with_index, what);
        } else {
            size_t got = 0;
            for (size_t i = 0; i < dec.ndata; i++)
                got += dec.data[i].kind == *kd;
            CHECK_MSG(got == 0, "%s: %zu values of kind %u decoded, the qualified instructions have none", what, got,
                      *kd);
        }
    }
    nrt_dec_free(&dec);
    rvt_membuf_free(&enc.out);
    rvt_codec_cfg_free(cfg);
}

/* A notify is one explicit report more than the same trace without it:
 * cdl a PC field naming the instruction (periodic sync marks off, so that
 * both streams have the same marks), dbg Trace Enabled + sync fields
 * (periodic sync points out of reach), unless the notified instruction is
 * where tracing restarts: those sync fields already name it. */
static void check_notify(const struct nrt_prog *p, const struct fcase *fc, const struct filtered *fx)
{
    static const struct {
        const struct rvt_codec *codec;
        const char *opts[6];
    } cfgs[] = {
        {&rvt_codec_cdl, {"cdl-sync-interval", "0", NULL}},
        {&rvt_codec_cdl, {"cdl-sync-interval", "0", "cdl-pc", "uninferable", NULL}},
        {&rvt_codec_dbg, {"dbg-buffer", "1073741824", NULL}},
        {&rvt_codec_dbg, {"dbg-emit", "pc,priv", "dbg-buffer", "1073741824", NULL}},
    };
    struct nrt_exec plain = {0};
    uint64_t addr = 0, at_restart = 0;
    bool prev_q = false;
    for (size_t i = 0; i < fx->q.x.n; i++) {
        struct rvt_ing_rec r = fx->q.x.recs[i];
        bool q = !(r.flags & RVT_ING_UNQUALIFIED);
        if (q && (r.flags & RVT_ING_NOTIFY) && r.iretire) {
            addr = rvt_ing_last_addr(&r);
            at_restart += !prev_q && r.iaddr == addr;
        }
        if (q && (r.iretire || r.itype == RVT_ITYPE_EXCEPTION || r.itype == RVT_ITYPE_INTERRUPT))
            prev_q = true;
        else if (!q)
            prev_q = false;
        r.flags &= (uint16_t)~RVT_ING_NOTIFY;
        nrt_exec_push(&plain, &r);
    }
    for (size_t k = 0; k < sizeof cfgs / sizeof cfgs[0]; k++) {
        char err[256], desc[160];
        void *cfg;
        nrt_opts_desc(cfgs[k].opts, desc, sizeof desc);
        const char *all[8] = {"ecall", p->ecall ? p->ecall : "sequential"};
        for (size_t i = 0; cfgs[k].opts[i]; i++)
            all[2 + i] = cfgs[k].opts[i];
        if (nrt_cfg(cfgs[k].codec, &cfg, all, p->xlen, p->img, err, sizeof err) < 0) {
            rvt_test_fail(__FILE__, __LINE__, "%s: %s", desc, err);
            continue;
        }
        struct nrt_enc with, without;
        if (nrt_encode(cfgs[k].codec, cfg, &fx->q.x, &with, err, sizeof err) == 0 &&
            nrt_encode(cfgs[k].codec, cfg, &plain, &without, err, sizeof err) == 0) {
            uint64_t a = count_reports(cfgs[k].codec, cfg, with.out.data, with.out.len, addr);
            uint64_t b = count_reports(cfgs[k].codec, cfg, without.out.data, without.out.len, addr);
            uint64_t expect = fx->notified - (cfgs[k].codec == &rvt_codec_dbg ? at_restart : 0);
            CHECK_MSG(a - b == expect, "%s %s %s[trigger '%s']: %" PRIu64 " explicit reports more than without notify, "
                                       "expected %" PRIu64,
                      cfgs[k].codec->name, p->name, desc, fc->trigger, a - b, expect);
            /* ...and the decode is the same. */
            struct nrt_dec dw, dn;
            nrt_decode(cfgs[k].codec, cfg, p->img, p->img, p->xlen, -1, with.out.data, with.out.len, &dw);
            nrt_decode(cfgs[k].codec, cfg, p->img, p->img, p->xlen, -1, without.out.data, without.out.len, &dn);
            CHECK_MSG(dw.npcs == dn.npcs && memcmp(dw.pcs, dn.pcs, dw.npcs * sizeof *dw.pcs) == 0 && dw.errors == 0 &&
                          dw.gaps == dn.gaps,
                      "%s %s %s: a notify changed the decode", cfgs[k].codec->name, p->name, desc);
            nrt_dec_free(&dw);
            nrt_dec_free(&dn);
        } else {
            rvt_test_fail(__FILE__, __LINE__, "%s: encode: %s", desc, err);
        }
        rvt_membuf_free(&with.out);
        rvt_membuf_free(&without.out);
        rvt_codec_cfg_free(cfg);
    }
    nrt_exec_free(&plain);
}

static void run_cases(const struct nrt_prog *p, const struct fcase *cases, size_t n)
{
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        struct filtered fx;
        if (!run_filter(p, &cases[i], &fx))
            continue;
        /* A case must leave instructions on both sides, or notify some. */
        bool both = fx.st.insns_traced && fx.st.insns_traced < fx.st.insns && fx.st.off_transitions;
        if (both || fx.notified) {
            used++;
            for (size_t c = 0; c < NCFGS; c++)
                check_case(p, &cases[i], &fx, &g_cfgs[c]);
            if (fx.notified)
                check_notify(p, &cases[i], &fx);
        }
        printf("  %-26s filter '%s' trigger '%s' sideband '%s': %" PRIu64 " of %" PRIu64 " traced, %" PRIu64
               " off, %" PRIu64 " notified%s\n",
               p->name, cases[i].filter, cases[i].trigger, cases[i].sideband, fx.st.insns_traced, fx.st.insns,
               fx.st.off_transitions, fx.notified, both || fx.notified ? "" : " (degenerate: skipped)");
        filtered_free(&fx);
    }
    CHECK_MSG(used >= n / 2, "%s: only %zu of %zu filter cases are not degenerate", p->name, used, n);
}

/* Cases built from the program's own execution (addresses it runs). */
static size_t make_cases(const struct nrt_prog *p, bool traps, struct fcase *c)
{
    size_t n = 0;
    uint64_t a = p->pcs[p->npcs / 3], b = p->pcs[p->npcs / 2], e = p->pcs[p->npcs / 5];
    memset(c, 0, 16 * sizeof *c);
    snprintf(c[n++].filter, sizeof c->filter, "addr in 0x%" PRIx64 "..0x%" PRIx64, a & ~(uint64_t)0x3f,
             (a & ~(uint64_t)0x3f) + 0x80);
    snprintf(c[n++].filter, sizeof c->filter, "addr & 0xf == 4");
    snprintf(c[n++].filter, sizeof c->filter, "from 0x%" PRIx64 " to 0x%" PRIx64, a, b);
    snprintf(c[n++].trigger, sizeof c->trigger, "on@0x%" PRIx64 ",off@0x%" PRIx64, a, a);
    snprintf(c[n++].trigger, sizeof c->trigger, "on@0x%" PRIx64 ",off@0x%" PRIx64, e, b);
    snprintf(c[n++].trigger, sizeof c->trigger, "notify@0x%" PRIx64, b);
    snprintf(c[n].sideband, sizeof c->sideband, "impdef=1@%zu,impdef=0@%zu", p->npcs / 4, p->npcs / 2);
    snprintf(c[n++].filter, sizeof c->filter, "impdef == 1");
    if (traps) {
        snprintf(c[n++].filter, sizeof c->filter, "priv == U");
        snprintf(c[n++].filter, sizeof c->filter, "priv == M");
        snprintf(c[n++].filter, sizeof c->filter, "interrupt");
        snprintf(c[n++].filter, sizeof c->filter, "exception");
        snprintf(c[n].filter, sizeof c->filter, "priv == U");
        snprintf(c[n++].trigger, sizeof c->trigger, "notify@0x%" PRIx64, e);
    }
    return n;
}

int main(void)
{
    struct fcase cases[16];
    struct nrt_prog p;
    if (nrt_prog_flowtest(&p, "flow/flowtest32.elf", 32, 200, NRT_DATA | NRT_TRACEPOINTS))
        run_cases(&p, cases, make_cases(&p, true, cases));
    nrt_prog_free(&p);
    if (nrt_prog_flowtest(&p, "flow/flowtest64.elf", 64, 200, NRT_DATA | NRT_TIME))
        run_cases(&p, cases, make_cases(&p, true, cases));
    nrt_prog_free(&p);
    if (nrt_prog_pclist(&p, "ntrace-t1/test.elf", "ntrace-t1/test-PCONLY.txt", NRT_DATA))
        run_cases(&p, cases, make_cases(&p, false, cases));
    nrt_prog_free(&p);
    /* Generated: S mode, nested traps, contexts; merged blocks are split by
     * the filter where decisions change. */
    if (nrt_prog_gen(&p, 32, RVT_GEN_ALL_FEATURES, 21, true, 60000)) {
        size_t n = make_cases(&p, true, cases);
        snprintf(cases[n].filter, sizeof cases->filter, "priv == S");
        memset(cases[n].trigger, 0, sizeof cases->trigger);
        memset(cases[n].sideband, 0, sizeof cases->sideband);
        n++;
        snprintf(cases[n].filter, sizeof cases->filter, "ctx != 0");
        memset(cases[n].trigger, 0, sizeof cases->trigger);
        memset(cases[n].sideband, 0, sizeof cases->sideband);
        n++;
        run_cases(&p, cases, n);
    }
    nrt_prog_free(&p);
    if (nrt_prog_gen(&p, 64, RVT_GEN_ALL_FEATURES, 22, false, 60000))
        run_cases(&p, cases, make_cases(&p, true, cases));
    nrt_prog_free(&p);
    printf("  %" PRIu64 " encode/decode runs, %" PRIu64 " trace-off gaps checked in place\n", g_runs, g_gaps);
    CHECK(g_runs > 300);
    return rvt_test_summary("test_nybble_filter");
}
