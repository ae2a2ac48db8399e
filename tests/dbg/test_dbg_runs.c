/* The dbg encoder's runs (dbg_enc_put_plain, the path text input takes)
 * against its records one by one (dbg_enc_put): the same bytes, packets,
 * statistics, sync points and registers, on the shared generator's
 * programs (one-instruction records: traps, interrupts, privilege
 * changes, compressed code, jump tables; with and without timestamps and
 * data) under every emit set and buffer mode: off-chip with sync points
 * close together, RAM in wrap and stop mode, the FIFO model, a sink that
 * refuses a write.  Arguments: seeds [instructions]. */
#include "dbg/dbg.h"
#include "nybrt.h"
#include "rvtrace/gen.h"
#include "testlib.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct rvt_codec rvt_codec_dbg;

struct recs {
    struct rvt_ing_rec *r;
    size_t n, cap;
};

static int put_rec(void *ctx, const struct rvt_ing_rec *r)
{
    struct recs *v = ctx;
    if (v->n == v->cap) {
        v->cap = v->cap ? v->cap * 2 : 8192;
        v->r = realloc(v->r, v->cap * sizeof *v->r);
        if (!v->r)
            abort();
    }
    v->r[v->n++] = *r;
    return 0;
}

/* A sink that takes bytes up to `cut` (0: all), refuses the rest of that
 * write, then takes everything again. */
struct cut_sink {
    struct rvt_membuf out;
    size_t cut;
    bool done;
};
static long cut_write(void *ctx, const uint8_t *p, size_t n)
{
    struct cut_sink *s = ctx;
    size_t take = n;
    if (s->cut && !s->done && s->out.len + n > s->cut) {
        take = s->cut - s->out.len;
        s->done = true;
    }
    return rvt_membuf_append(&s->out, p, take) < 0 ? -RVT_ERR_NOMEM : (long)take;
}

struct result {
    struct cut_sink sink;
    struct rvt_codec_stats st;
    struct dbg_regs regs;
    struct rvt_nyb_sync_point *sp;
    size_t nsp;
    int rc;
    char err[600];
};

/* Encode recs a record at a time (batch 0) or as rvt_encode_stream does
 * with batches of up to `batch` records: the runs, then the record they
 * stop at. */
static void encode(const struct dbg_cfg *cfg, const struct recs *recs, size_t batch, size_t cut, struct result *res)
{
    memset(res, 0, sizeof *res);
    rvt_membuf_init(&res->sink.out);
    res->sink.cut = cut;
    struct rvt_byte_sink s = {cut_write, &res->sink};
    struct dbg_enc *e;
    struct rvt_diag d = {0};
    if ((res->rc = dbg_enc_new(&e, cfg, &s, &d)) < 0) {
        snprintf(res->err, sizeof res->err, "%s", d.msg);
        return;
    }
    for (size_t i = 0; i < recs->n && res->rc >= 0;) {
        if (batch) {
            size_t end = i + batch < recs->n ? i + batch : recs->n;
            if ((i += dbg_enc_put_plain(e, recs->r + i, end - i)) == recs->n)
                break;
        }
        res->rc = dbg_enc_put(e, &recs->r[i++]);
    }
    if (res->rc >= 0)
        res->rc = dbg_enc_finish(e);
    if (res->rc < 0)
        snprintf(res->err, sizeof res->err, "%s", dbg_enc_error(e));
    dbg_enc_stats(e, &res->st);
    dbg_enc_regs(e, &res->regs);
    const struct rvt_nyb_sync_point *pts;
    res->nsp = dbg_enc_sync_points(e, &pts);
    res->sp = malloc(res->nsp * sizeof *pts + 1);
    memcpy(res->sp, pts, res->nsp * sizeof *pts);
    dbg_enc_free(e);
}

static void result_free(struct result *r)
{
    rvt_membuf_free(&r->sink.out);
    free(r->sp);
}

/* What differs between two encodings ("" if nothing). */
static const char *difference(const struct result *a, const struct result *b, char *why, size_t n)
{
    size_t k = 0;
    while (k < a->sink.out.len && k < b->sink.out.len && a->sink.out.data[k] == b->sink.out.data[k])
        k++;
    if (a->rc != b->rc)
        snprintf(why, n, "rc %d, one by one %d (%s)", a->rc, b->rc, a->rc ? a->err : b->err);
    else if (k != a->sink.out.len || k != b->sink.out.len)
        snprintf(why, n, "%zu bytes, one by one %zu; first difference at byte %zu", a->sink.out.len,
                 b->sink.out.len, k);
    else if (a->st.packets != b->st.packets || a->st.insns != b->st.insns || a->st.records != b->st.records ||
             a->st.lost != b->st.lost || a->st.bytes != b->st.bytes)
        snprintf(why, n, "statistics: %" PRIu64 " packets %" PRIu64 " instructions %" PRIu64 " records %" PRIu64
                 " lost, one by one %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64,
                 a->st.packets, a->st.insns, a->st.records, a->st.lost, b->st.packets, b->st.insns, b->st.records,
                 b->st.lost);
    else if (a->nsp != b->nsp || memcmp(a->sp, b->sp, a->nsp * sizeof *a->sp))
        snprintf(why, n, "%zu sync points, one by one %zu", a->nsp, b->nsp);
    else if (a->regs.trace != b->regs.trace || a->regs.tbufwrite != b->regs.tbufwrite)
        snprintf(why, n, "registers: trace 0x%x tbufwrite 0x%" PRIx64 ", one by one 0x%x 0x%" PRIx64,
                 a->regs.trace, (uint64_t)a->regs.tbufwrite, b->regs.trace, (uint64_t)b->regs.tbufwrite);
    else
        return "";
    return why;
}

static const char *const configs[][12] = {
    {NULL},
    {"dbg-emit", "pc", NULL},
    {"dbg-emit", "branch", NULL},
    {"dbg-emit", "pc,branch", NULL},
    {"dbg-emit", "branch,priv", NULL},
    {"dbg-emit", "priv", NULL},
    {"dbg-emit", "all", NULL},
    {"dbg-emit", "none", NULL},
    {"dbg-emit", "branch,priv,timestamp", NULL},
    {"dbg-emit", "pc,branch,priv,loadaddr,loaddata,storeaddr,storedata", NULL},
    {"dbg-buffer", "1024", NULL},
    {"dbg-buffer", "1024", "dbg-emit", "branch", NULL},
    {"dbg-buffer", "1024", "dbg-destination", "ram", NULL},
    {"dbg-buffer", "1024", "dbg-destination", "ram", "dbg-fullaction", "stop", NULL},
    {"dbg-buffer", "1024", "dbg-destination", "sysram", "dbg-fullaction", "stop", "dbg-emit", "branch", NULL},
    {"dbg-buffer", "2048", "dbg-destination", "ram", "dbg-emit", "branch", NULL},
    {"dbg-buffer", "1024", "dbg-stall", "0", "dbg-fifo", "96", "dbg-drain", "1", NULL},
    {"dbg-buffer", "1024", "dbg-stall", "0", "dbg-fifo", "64", "dbg-emit", "branch", NULL},
    {"dbg-stall", "0", "dbg-fifo", "128", "dbg-drain", "1", "dbg-emit", "all", NULL},
    {"dbg-trap-pc", "epc", NULL},
};

/* Records as filters and triggers leave them: stretches of unqualified
 * records (tracing off), and a trigger's notify now and then; and a
 * stretch on another hart (Change Hart: the flow continued there). */
static void qualify(struct recs *v, unsigned seed)
{
    for (size_t i = 0; i < v->n; i++) {
        size_t at = (i + seed) % 1009;
        if (at < 40)
            v->r[i].flags |= RVT_ING_UNQUALIFIED;
        else if (at % 331 == 7)
            v->r[i].flags |= RVT_ING_NOTIFY;
        else if (at >= 500 && at < 530)
            v->r[i].hart = 1;
    }
}

static void one(unsigned seed, unsigned xlen, uint64_t insns, uint32_t features, bool filtered)
{
    struct rvt_gen_config gc;
    rvt_gen_config_init(&gc);
    gc.seed = seed;
    gc.xlen = xlen;
    gc.insns = insns;
    gc.features = features;
    struct rvt_gen_program *prog = NULL;
    struct rvt_diag d = {0};
    if (rvt_gen_program_new(&prog, &gc, &d) < 0) {
        CHECK_MSG(0, "gen seed %u: %s", seed, d.msg);
        return;
    }
    struct recs recs = {0};
    int grc = rvt_gen_run_ex(prog, &gc, false, put_rec, &recs, &d);
    CHECK_MSG(grc == 0, "gen run: %s", d.msg);
    if (filtered)
        qualify(&recs, seed);
    struct rvt_image *img = rvt_gen_image(prog);
    for (size_t k = 0; grc == 0 && k < sizeof configs / sizeof configs[0]; k++) {
        char desc[256], err[600], why[700];
        nrt_opts_desc(configs[k], desc, sizeof desc);
        void *cfg;
        if (nrt_cfg(&rvt_codec_dbg, &cfg, configs[k], xlen, img, err, sizeof err) < 0) {
            CHECK_MSG(0, "%s: %s", desc, err);
            continue;
        }
        struct result ref, runs;
        encode(cfg, &recs, 0, 0, &ref);
        CHECK_MSG(ref.rc == 0, "rv%u seed %u %s: %s", xlen, seed, desc, ref.err);
        const size_t batches[] = {1, 3, 64, 4096};
        for (size_t b = 0; b < sizeof batches / sizeof batches[0]; b++) {
            encode(cfg, &recs, batches[b] + (b ? seed % 5 : 0), 0, &runs);
            CHECK_MSG(!*difference(&runs, &ref, why, sizeof why),
                      "rv%u seed %u features 0x%x%s %s, batches of up to %zu: %s", xlen, seed, features,
                      filtered ? " filtered" : "", desc,
                      batches[b] + (b ? seed % 5 : 0), why);
            result_free(&runs);
        }
        /* A sink that refuses part of a write in the middle of the trace:
         * the runs stop where the encoder has lost data to report. */
        if (ref.sink.out.len > 64 && !strstr(desc, "ram")) {
            struct result cut_ref;
            size_t cut = ref.sink.out.len / 2 + seed % 7;
            encode(cfg, &recs, 0, cut, &cut_ref);
            encode(cfg, &recs, 64, cut, &runs);
            CHECK_MSG(cut_ref.sink.done && cut_ref.st.lost > 0, "rv%u seed %u %s: the sink's refusal lost nothing",
                      xlen, seed, desc);
            CHECK_MSG(!*difference(&runs, &cut_ref, why, sizeof why),
                      "rv%u seed %u features 0x%x%s %s, a sink refusing at byte %zu: %s", xlen, seed, features,
                      filtered ? " filtered" : "", desc,
                      cut, why);
            result_free(&runs);
            result_free(&cut_ref);
        }
        printf("  rv%u seed %-3u%s %-80s %7zu bytes %6" PRIu64 " lost\n", xlen, seed, filtered ? " filtered" : "", desc, ref.sink.out.len,
               ref.st.lost);
        result_free(&ref);
        rvt_codec_cfg_free(cfg);
    }
    free(recs.r);
    rvt_img_free(img);
    rvt_gen_program_free(prog);
}

/* The runs take records: on the default configuration, a generated
 * program's plain records go through dbg_enc_put_plain (not all to
 * dbg_enc_put), so the comparisons above compare the runs. */
static void runs_taken(void)
{
    struct rvt_gen_config gc;
    rvt_gen_config_init(&gc);
    gc.seed = 5;
    gc.xlen = 64;
    gc.insns = 20000;
    gc.features = RVT_GEN_DEFAULT_FEATURES;
    struct rvt_gen_program *prog = NULL;
    struct rvt_diag d = {0};
    REQUIRE(rvt_gen_program_new(&prog, &gc, &d) == 0);
    struct recs recs = {0};
    REQUIRE(rvt_gen_run_ex(prog, &gc, false, put_rec, &recs, &d) == 0);
    struct rvt_image *img = rvt_gen_image(prog);
    void *cfg;
    char err[600];
    REQUIRE(nrt_cfg(&rvt_codec_dbg, &cfg, NULL, 64, img, err, sizeof err) == 0);
    struct rvt_membuf out;
    rvt_membuf_init(&out);
    struct rvt_byte_sink s = rvt_membuf_sink(&out);
    struct dbg_enc *e;
    REQUIRE(dbg_enc_new(&e, cfg, &s, &d) == 0);
    size_t taken = 0, branches_in_runs = 0;
    for (size_t i = 0; i < recs.n;) {
        size_t k = dbg_enc_put_plain(e, recs.r + i, recs.n - i);
        for (size_t j = i; j + 1 < i + k; j++)
            branches_in_runs += recs.r[j].itype == RVT_ITYPE_NOT_TAKEN || recs.r[j].itype == RVT_ITYPE_TAKEN;
        taken += k;
        if ((i += k) < recs.n)
            CHECK(dbg_enc_put(e, &recs.r[i++]) == 0);
    }
    CHECK(dbg_enc_finish(e) == 0);
    CHECK_MSG(taken > recs.n / 2, "the runs took %zu of %zu records", taken, recs.n);
    CHECK_MSG(branches_in_runs > 100, "%zu branches sent inside runs", branches_in_runs);
    printf("  the runs took %zu of %zu records (%zu branches sent inside them)\n", taken, recs.n, branches_in_runs);
    dbg_enc_free(e);
    rvt_membuf_free(&out);
    rvt_codec_cfg_free(cfg);
    free(recs.r);
    rvt_img_free(img);
    rvt_gen_program_free(prog);
}

/* A sink that refuses a write the runs made: the stage fills with their
 * Branch packets (emit branch, a trace of several stage loads), so the
 * write that empties it is often one a run would make; the runs leave a
 * full stage to dbg_enc_put, and the loss is reported where the records
 * one by one report it.  Cuts at 24 places in the trace. */
static void refusals_in_runs(void)
{
    struct rvt_gen_config gc;
    rvt_gen_config_init(&gc);
    gc.seed = 11;
    gc.xlen = 64;
    gc.insns = 400000;
    gc.features = RVT_GEN_DEFAULT_FEATURES;
    struct rvt_gen_program *prog = NULL;
    struct rvt_diag d = {0};
    REQUIRE(rvt_gen_program_new(&prog, &gc, &d) == 0);
    struct recs recs = {0};
    REQUIRE(rvt_gen_run_ex(prog, &gc, false, put_rec, &recs, &d) == 0);
    struct rvt_image *img = rvt_gen_image(prog);
    /* (With the default buffer the stage holds 8 sync spacings: it fills
     * at a sync point, where the runs stop anyway.  1056 bytes: 264
     * nybbles apart.) */
    static const char *const opts[][5] = {{"dbg-emit", "branch", "dbg-buffer", "1056", NULL},
                                          {"dbg-emit", "branch", NULL},
                                          {NULL}};
    for (size_t k = 0; k < 3; k++) {
        void *cfg;
        char err[600], why[700];
        REQUIRE(nrt_cfg(&rvt_codec_dbg, &cfg, opts[k], 64, img, err, sizeof err) == 0);
        struct result whole;
        encode(cfg, &recs, 0, 0, &whole);
        CHECK_MSG(whole.sink.out.len > 3 * RVT_NYB_STAGE / 2, "%zu bytes: fewer than 3 stage loads",
                  whole.sink.out.len);
        for (size_t c = 1; c <= 24; c++) {
            size_t cut = whole.sink.out.len * c / 25 + c;
            struct result ref, runs;
            encode(cfg, &recs, 0, cut, &ref);
            encode(cfg, &recs, 4096, cut, &runs);
            CHECK_MSG(ref.sink.done && ref.st.lost > 0, "a sink refusing at byte %zu: nothing lost", cut);
            CHECK_MSG(!*difference(&runs, &ref, why, sizeof why), "options %zu, a sink refusing at byte %zu: %s", k,
                      cut, why);
            result_free(&ref);
            result_free(&runs);
        }
        result_free(&whole);
        rvt_codec_cfg_free(cfg);
    }
    free(recs.r);
    rvt_img_free(img);
    rvt_gen_program_free(prog);
}

int main(int argc, char **argv)
{
    runs_taken();
    refusals_in_runs();
    unsigned seeds = argc > 1 ? (unsigned)atoi(argv[1]) : 2;
    uint64_t insns = argc > 2 ? (uint64_t)atoll(argv[2]) : 20000;
    const uint32_t feature_sets[] = {
        RVT_GEN_DEFAULT_FEATURES,
        RVT_GEN_ALL_FEATURES & ~(uint32_t)(RVT_GEN_TIME | RVT_GEN_DATA),
        RVT_GEN_DEFAULT_FEATURES | RVT_GEN_TRAPS | RVT_GEN_INTERRUPTS | RVT_GEN_NESTED | RVT_GEN_PRIV,
        RVT_GEN_ALL_FEATURES & ~(uint32_t)RVT_GEN_TIME,
        RVT_GEN_ALL_FEATURES,
    };
    for (unsigned seed = 1; seed <= seeds; seed++)
        for (size_t f = 0; f < sizeof feature_sets / sizeof feature_sets[0]; f++)
            for (int filtered = 0; filtered < 2; filtered++)
                one(seed * 7 + (unsigned)f, (seed + (unsigned)f) % 2 ? 32 : 64, insns, feature_sets[f], filtered);
    return rvt_test_summary("test_dbg_runs");
}
