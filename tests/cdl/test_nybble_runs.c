/* The nybble families' encoders' runs (enc_put_plain, the path text
 * input takes: dbg_enc_put_plain, cdl_enc_put_plain) against their
 * records one by one (enc_put): the same bytes, statistics, sync points
 * and recorder state (dbg: the trace register's wrapped bit and
 * tbufwrite; cdl: the write offset, wrapped, halted, nybbles lost), on the
 * shared generator's programs (one-instruction records: traps,
 * interrupts, privilege changes, compressed code, jump tables, far code;
 * with and without timestamps and data; and as filters, triggers and a
 * hart change leave them) under each family's options: dbg's emit sets,
 * off-chip with sync points close together, RAM in wrap and stop mode,
 * the FIFO model; cdl's PC modes, sync intervals, data formats (the seed's
 * too narrow for some PCs: the same error), logs, recorder buffers that
 * wrap and halt; and a sink that refuses a write.  Arguments: seeds
 * [instructions]. */
#include "cdl/cdl.h"
#include "dbg/dbg.h"
#include "nybrt.h"
#include "rvtrace/gen.h"
#include "testlib.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct rvt_codec rvt_codec_dbg, rvt_codec_cdl;

/* A sink that takes bytes up to `cut` (0: all), refuses the rest of that
 * write, then takes everything again (or, `stopped`, nothing more: every
 * later write is refused, the sync data that follows a loss too). */
struct cut_sink {
    struct rvt_membuf out;
    size_t cut;
    bool stopped;
    bool done;
};
static long cut_write(void *ctx, const uint8_t *p, size_t n)
{
    struct cut_sink *s = ctx;
    size_t take = n;
    if (s->cut && (!s->done || s->stopped) && s->out.len + n > s->cut) {
        take = s->cut - s->out.len;
        s->done = true;
    }
    return rvt_membuf_append(&s->out, p, take) < 0 ? -RVT_ERR_NOMEM : (long)take;
}

struct result {
    struct cut_sink sink;
    struct rvt_codec_stats st;
    uint64_t state[4]; /* the recorder's state as the family reports it */
    struct rvt_nyb_sync_point *sp;
    size_t nsp;
    int rc;
    char err[600];
};

/* A family: its codec, options to try, and what it reports beside the
 * bytes (sync points written; the recorder's state). */
struct family {
    const struct rvt_codec *c;
    const char *const (*configs)[12];
    size_t nconfigs;
    size_t (*sync_points)(const void *enc, const struct rvt_nyb_sync_point **pts);
    void (*state)(const void *enc, uint64_t st[4]);
};

static size_t dbg_syncs(const void *enc, const struct rvt_nyb_sync_point **pts)
{
    return dbg_enc_sync_points(enc, pts);
}
static void dbg_state(const void *enc, uint64_t st[4])
{
    struct dbg_regs r;
    dbg_enc_regs(enc, &r);
    st[0] = r.trace;
    st[1] = r.tbufwrite;
    st[2] = st[3] = 0;
}
static size_t cdl_syncs(const void *enc, const struct rvt_nyb_sync_point **pts)
{
    return cdl_enc_sync_points(enc, pts);
}
static void cdl_state(const void *enc, uint64_t st[4])
{
    struct cdl_state s;
    cdl_enc_state(enc, &s);
    st[0] = s.write_offset;
    st[1] = s.wrapped;
    st[2] = s.halted;
    st[3] = s.lost_nybbles;
}

/* Encode recs a record at a time (batch 0) or as rvt_encode_stream does
 * with batches of up to `batch` records: the runs, then the record they
 * stop at; in short (shorts, where the family takes them: enc_put_short)
 * the records that can be, with the priv and context of their batch's
 * first record. */
static bool g_shorts;
static void encode(const struct family *fam, const void *cfg, const struct nrt_exec *recs, size_t batch, size_t cut,
                   bool stopped, struct result *res)
{
    static struct rvt_ing_fast fs[4200];
    const struct rvt_codec *c = fam->c;
    memset(res, 0, sizeof *res);
    rvt_membuf_init(&res->sink.out);
    res->sink.cut = cut;
    res->sink.stopped = stopped;
    struct rvt_byte_sink s = {cut_write, &res->sink};
    void *e;
    struct rvt_diag d = {0};
    if ((res->rc = c->enc_new(&e, cfg, &s, &d)) < 0) {
        snprintf(res->err, sizeof res->err, "%s", d.msg);
        return;
    }
    for (size_t i = 0; i < recs->n && res->rc >= 0;) {
        if (batch && g_shorts && c->enc_put_short) {
            size_t end = i + batch < recs->n ? i + batch : recs->n;
            const uint8_t priv = recs->recs[i].priv;
            const uint64_t context = recs->recs[i].context;
            for (size_t k = i; k < end; k++)
                fs[k - i] = rvt_test_in_short(&recs->recs[k], priv, context);
            if (fs[0].len && (i += c->enc_put_short(e, fs, end - i, priv, context)) == recs->n)
                break;
        } else if (batch) {
            size_t end = i + batch < recs->n ? i + batch : recs->n;
            if ((i += c->enc_put_plain(e, recs->recs + i, end - i)) == recs->n)
                break;
        }
        res->rc = c->enc_put(e, &recs->recs[i++]);
    }
    if (res->rc >= 0)
        res->rc = c->enc_finish(e);
    if (res->rc < 0)
        snprintf(res->err, sizeof res->err, "%s", c->enc_error(e));
    c->enc_stats(e, &res->st);
    fam->state(e, res->state);
    const struct rvt_nyb_sync_point *pts;
    res->nsp = fam->sync_points(e, &pts);
    res->sp = malloc(res->nsp * sizeof *pts + 1);
    memcpy(res->sp, pts, res->nsp * sizeof *pts);
    c->enc_free(e);
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
    if (a->rc != b->rc || strcmp(a->err, b->err))
        snprintf(why, n, "rc %d (%s), one by one %d (%s)", a->rc, a->err, b->rc, b->err);
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
    else if (memcmp(a->state, b->state, sizeof a->state))
        snprintf(why, n, "recorder state %" PRIx64 " %" PRIx64 " %" PRIx64 " %" PRIx64 ", one by one %" PRIx64
                 " %" PRIx64 " %" PRIx64 " %" PRIx64,
                 a->state[0], a->state[1], a->state[2], a->state[3], b->state[0], b->state[1], b->state[2],
                 b->state[3]);
    else
        return "";
    return why;
}

static const char *const dbg_configs[][12] = {
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

static const char *const cdl_configs[][12] = {
    {NULL},
    {"cdl-pc", "uninferable", NULL},
    {"cdl-sync-interval", "0", NULL},
    {"cdl-sync-interval", "16", "cdl-sync-nybbles", "5", NULL},
    {"cdl-sync-nybbles", "4096", "cdl-sync-interval", "0", NULL}, /* (half the output's stage: a loss in the mark after a stop) */
    {"cdl-pc", "uninferable", "cdl-sync-interval", "40", NULL},
    {"cdl-data", "seed", NULL},
    {"cdl-pack", "flow,rfw,tracepoints", NULL},
    {"cdl-pack", "rfw,traps", NULL},
    {"cdl-buffer", "256", NULL},
    {"cdl-buffer", "256", "cdl-overflow", "halt", NULL},
    {"cdl-buffer", "4096", "cdl-overflow", "halt", "cdl-pc", "uninferable", NULL},
    {"cdl-buffer", "1024", "cdl-image", "raw", NULL},
};

static const struct family families[] = {
    {&rvt_codec_dbg, dbg_configs, sizeof dbg_configs / sizeof dbg_configs[0], dbg_syncs, dbg_state},
    {&rvt_codec_cdl, cdl_configs, sizeof cdl_configs / sizeof cdl_configs[0], cdl_syncs, cdl_state},
};

/* A generated program's execution. */
struct gen {
    struct rvt_image *img;
    struct nrt_exec x;
};

static bool gen_new(struct gen *g, unsigned seed, unsigned xlen, uint64_t insns, uint32_t features, bool merged)
{
    char err[600];
    g->img = nrt_exec_gen(&g->x, xlen, features, seed, merged, insns, err, sizeof err);
    CHECK_MSG(g->img != NULL, "%s", err);
    return g->img != NULL;
}

static void gen_free(struct gen *g)
{
    nrt_exec_free(&g->x);
    rvt_img_free(g->img);
}

/* Records as filters and triggers leave them: stretches of unqualified
 * records (tracing off), and a trigger's notify now and then; and a
 * stretch on another hart (Change Hart: the flow continued there). */
static void qualify(struct nrt_exec *v, unsigned seed)
{
    for (size_t i = 0; i < v->n; i++) {
        size_t at = (i + seed) % 1009;
        if (at < 40)
            v->recs[i].flags |= RVT_ING_UNQUALIFIED;
        else if (at % 331 == 7)
            v->recs[i].flags |= RVT_ING_NOTIFY;
        else if (at >= 500 && at < 530)
            v->recs[i].hart = 1;
    }
}

/* The records: one per instruction; the same, filtered; or merged into
 * blocks (a block's one-instruction successors, and blocks of one
 * instruction that trap, as runs meet them). */
enum variant { ONE_EACH, FILTERED, MERGED };
static const char *const variant_names[] = {"", "filtered", "merged"};

static void one(const struct family *fam, unsigned seed, unsigned xlen, uint64_t insns, uint32_t features,
                enum variant variant)
{
    struct gen g;
    if (!gen_new(&g, seed, xlen, insns, features, variant == MERGED))
        return;
    if (variant == FILTERED)
        qualify(&g.x, seed);
    const struct nrt_exec *recs = &g.x;
    struct rvt_image *img = g.img;
    for (size_t k = 0; k < fam->nconfigs; k++) {
        char desc[256], err[600], why[1400];
        nrt_opts_desc(fam->configs[k], desc, sizeof desc);
        void *cfg;
        if (nrt_cfg(fam->c, &cfg, fam->configs[k], xlen, img, err, sizeof err) < 0) {
            CHECK_MSG(0, "%s: %s", desc, err);
            continue;
        }
        struct result ref, runs;
        encode(fam, cfg, recs, 0, 0, false, &ref);
        /* (cdl's seed data format cannot hold the far code's PCs) */
        CHECK_MSG(ref.rc == 0 || (strstr(desc, "seed") && strstr(ref.err, "needs")), "%s rv%u seed %u %s: %s",
                  fam->c->name, xlen, seed, desc, ref.err);
        const size_t batches[] = {1, 3, 64, 4096};
        for (size_t b = 0; b < 2 * sizeof batches / sizeof batches[0]; b++) {
            const size_t nb = batches[b / 2] + (b / 2 ? seed % 5 : 0);
            if ((g_shorts = b % 2) && !fam->c->enc_put_short)
                continue;
            encode(fam, cfg, recs, nb, 0, false, &runs);
            g_shorts = false;
            CHECK_MSG(!*difference(&runs, &ref, why, sizeof why),
                      "%s rv%u seed %u features 0x%x %s %s, batches of up to %zu%s: %s", fam->c->name, xlen, seed,
                      features, variant_names[variant], desc, nb, b % 2 ? " in short" : "", why);
            result_free(&runs);
        }
        /* A sink that refuses part of a write in the middle of the trace:
         * the runs stop where the encoder has lost data to report. */
        if (ref.rc == 0 && ref.sink.out.len > 64 && !strstr(desc, "ram") && !strstr(desc, "buffer")) {
            struct result cut_ref;
            size_t cut = ref.sink.out.len / 2 + seed % 7;
            for (int stopped = 0; stopped < 2; stopped++) {
                encode(fam, cfg, recs, 0, cut, stopped, &cut_ref);
                g_shorts = stopped && fam->c->enc_put_short; /* (in short too) */
                encode(fam, cfg, recs, 64, cut, stopped, &runs);
                g_shorts = false;
                CHECK_MSG(cut_ref.sink.done && cut_ref.st.lost > 0,
                          "%s rv%u seed %u %s: the sink's refusal lost nothing", fam->c->name, xlen, seed, desc);
                CHECK_MSG(!*difference(&runs, &cut_ref, why, sizeof why),
                          "%s rv%u seed %u features 0x%x %s %s, a sink %s at byte %zu: %s", fam->c->name, xlen, seed,
                          features, variant_names[variant], desc, stopped ? "stopping" : "refusing", cut, why);
                result_free(&runs);
                result_free(&cut_ref);
            }
        }
        printf("  %s rv%u seed %-3u %-8s %-80s %7zu bytes %6" PRIu64 " lost\n", fam->c->name, xlen, seed,
               variant_names[variant], desc, ref.sink.out.len, ref.st.lost);
        result_free(&ref);
        rvt_codec_cfg_free(cfg);
    }
    gen_free(&g);
}

/* The runs take records: on the default configuration, most of a
 * generated program's records go through enc_put_plain (not all to
 * enc_put), branches among them, so the comparisons compare the runs. */
static void runs_taken(const struct family *fam)
{
    struct gen g;
    if (!gen_new(&g, 5, 64, 20000, RVT_GEN_DEFAULT_FEATURES, false))
        return;
    const struct rvt_codec *c = fam->c;
    void *cfg, *e;
    char err[600];
    REQUIRE(nrt_cfg(c, &cfg, NULL, 64, g.img, err, sizeof err) == 0);
    struct rvt_membuf out;
    rvt_membuf_init(&out);
    struct rvt_byte_sink s = rvt_membuf_sink(&out);
    struct rvt_diag d = {0};
    REQUIRE(c->enc_new(&e, cfg, &s, &d) == 0);
    size_t taken = 0, branches_in_runs = 0;
    for (size_t i = 0; i < g.x.n;) {
        size_t k = c->enc_put_plain(e, g.x.recs + i, g.x.n - i);
        for (size_t j = i; j + 1 < i + k; j++)
            branches_in_runs += g.x.recs[j].itype == RVT_ITYPE_NOT_TAKEN || g.x.recs[j].itype == RVT_ITYPE_TAKEN;
        taken += k;
        if ((i += k) < g.x.n)
            CHECK(c->enc_put(e, &g.x.recs[i++]) == 0);
    }
    CHECK(c->enc_finish(e) == 0);
    CHECK_MSG(taken > g.x.n / 2, "%s: the runs took %zu of %zu records", c->name, taken, g.x.n);
    CHECK_MSG(branches_in_runs > 100, "%s: %zu branches sent inside runs", c->name, branches_in_runs);
    printf("  %s: the runs took %zu of %zu records (%zu branches sent inside them)\n", c->name, taken, g.x.n,
           branches_in_runs);
    c->enc_free(e);
    rvt_membuf_free(&out);
    rvt_codec_cfg_free(cfg);
    gen_free(&g);
}

/* A sink that refuses a write while the runs fill the output's stage (a
 * trace of several stage loads, mostly what runs send): the runs leave a
 * stage without room to enc_put, and the loss is reported where the
 * records one by one report it.  Cuts at 10 places in the trace.  (dbg:
 * with the default buffer the stage holds 8 sync spacings, so it fills at
 * a sync point, where the runs stop anyway; 1056 bytes: 264 nybbles
 * apart.) */
static void refusals_in_runs(const struct family *fam)
{
    struct gen g;
    if (!gen_new(&g, 11, 64, 250000, RVT_GEN_DEFAULT_FEATURES, false))
        return;
    static const char *const dbg_opts[][12] = {{"dbg-emit", "branch", "dbg-buffer", "1056", NULL},
                                               {"dbg-emit", "branch", NULL},
                                               {NULL}};
    static const char *const cdl_opts[][12] = {{NULL}, {"cdl-pc", "uninferable", NULL}};
    bool dbg = fam->c == &rvt_codec_dbg;
    size_t nopts = dbg ? 3 : 2;
    for (size_t k = 0; k < nopts; k++) {
        const char *const *o = dbg ? dbg_opts[k] : cdl_opts[k];
        void *cfg;
        char err[600], why[1400];
        REQUIRE(nrt_cfg(fam->c, &cfg, o, 64, g.img, err, sizeof err) == 0);
        struct result whole;
        encode(fam, cfg, &g.x, 0, 0, false, &whole);
        CHECK_MSG(whole.sink.out.len > 2 * RVT_NYB_STAGE / 2, "%s: %zu bytes: fewer than 2 stage loads",
                  fam->c->name, whole.sink.out.len);
        for (size_t c = 1; c <= 10; c++) {
            size_t cut = whole.sink.out.len * c / 11 + c;
            struct result ref, runs;
            encode(fam, cfg, &g.x, 0, cut, false, &ref);
            encode(fam, cfg, &g.x, 4096, cut, false, &runs);
            CHECK_MSG(ref.sink.done && ref.st.lost > 0, "%s: a sink refusing at byte %zu: nothing lost",
                      fam->c->name, cut);
            CHECK_MSG(!*difference(&runs, &ref, why, sizeof why), "%s options %zu, a sink refusing at byte %zu: %s",
                      fam->c->name, k, cut, why);
            result_free(&ref);
            result_free(&runs);
        }
        result_free(&whole);
        rvt_codec_cfg_free(cfg);
    }
    gen_free(&g);
}

/* Paths the generator does not make: one-instruction records that retire
 * and then trap (an exception, an interrupt), the reserved itype 7, an
 * inferable jump to code at the top of the RV64 address space (a PC the
 * seed's cdl data format cannot hold: the same error either way), loops
 * of a taken branch.  Every batch size from 1 to 40. */
static void path_add(struct nrt_exec *v, uint64_t pc, uint8_t itype, uint8_t retire)
{
    struct rvt_ing_rec r = {.iaddr = pc, .iretire = retire, .ilastsize = 1, .itype = itype, .priv = RVT_PRIV_M};
    if (itype == RVT_ITYPE_EXCEPTION || itype == RVT_ITYPE_INTERRUPT)
        r.cause = itype == RVT_ITYPE_EXCEPTION ? 2 : 7;
    REQUIRE(nrt_exec_push(v, &r) == 0);
}

static void path_run(struct nrt_exec *v, uint64_t pc, uint64_t end)
{
    for (; pc < end; pc += 4)
        path_add(v, pc, RVT_ITYPE_NONE, 2);
}

static void hand_paths(const struct family *fam)
{
    struct nrt_exec v = {0};
    for (int k = 0; k < 3; k++) {
        path_run(&v, 0x1000, 0x1020);
        path_add(&v, 0x1020, RVT_ITYPE_TAKEN, 2);
    }
    path_run(&v, 0x1000, 0x1020);
    path_add(&v, 0x1020, RVT_ITYPE_NOT_TAKEN, 2);
    path_add(&v, 0x1024, 7, 2);
    path_add(&v, 0x1028, RVT_ITYPE_NONE, 2);
    path_add(&v, 0x102c, RVT_ITYPE_EXCEPTION, 2); /* retires 0x102c, then the trap at 0x1030 */
    path_run(&v, 0x2000, 0x2014);
    path_add(&v, 0x2014, RVT_ITYPE_TRAPRET, 2);
    path_run(&v, 0x1030, 0x1038);
    path_add(&v, 0x1038, RVT_ITYPE_INTERRUPT, 2);
    path_run(&v, 0x3000, 0x3010);
    path_add(&v, 0x3010, RVT_ITYPE_TRAPRET, 2);
    path_add(&v, 0x103c, RVT_ITYPE_JUMP_INF, 2);
    path_run(&v, 0xffffffffffff0000ull, 0xffffffffffff0010ull);
    path_add(&v, 0xffffffffffff0010ull, RVT_ITYPE_JUMP_INF, 2);
    path_run(&v, 0x1040, 0x1060);
    static const char *const dbg_opts[][12] = {{NULL}, {"dbg-emit", "pc", NULL}, {"dbg-emit", "pc,priv", NULL}};
    static const char *const cdl_opts[][12] = {{NULL}, {"cdl-data", "seed", NULL}, {"cdl-pc", "uninferable", NULL}};
    for (size_t k = 0; k < 3; k++) {
        const char *const *o = fam->c == &rvt_codec_dbg ? dbg_opts[k] : cdl_opts[k];
        void *cfg;
        char err[600], why[1400], desc[256];
        nrt_opts_desc(o, desc, sizeof desc);
        REQUIRE(nrt_cfg(fam->c, &cfg, o, 64, NULL, err, sizeof err) == 0);
        struct result ref, runs;
        encode(fam, cfg, &v, 0, 0, false, &ref);
        /* (only the seed's cdl data format fails, at the far jump's PC) */
        CHECK_MSG(ref.rc == 0 || strstr(ref.err, "PC 0xffffffffffff0000 needs 8 data bytes"), "%s %s: %s",
                  fam->c->name, desc, ref.err);
        for (size_t batch = 1; batch <= 40; batch++) {
            encode(fam, cfg, &v, batch, 0, false, &runs);
            CHECK_MSG(!*difference(&runs, &ref, why, sizeof why), "%s %s, hand-made path, batches of up to %zu: %s",
                      fam->c->name, desc, batch, why);
            result_free(&runs);
        }
        result_free(&ref);
        rvt_codec_cfg_free(cfg);
    }
    nrt_exec_free(&v);
}

int main(int argc, char **argv)
{
    for (size_t k = 0; k < sizeof families / sizeof families[0]; k++) {
        runs_taken(&families[k]);
        hand_paths(&families[k]);
        refusals_in_runs(&families[k]);
    }
    unsigned seeds = argc > 1 ? (unsigned)atoi(argv[1]) : 2;
    uint64_t insns = argc > 2 ? (uint64_t)atoll(argv[2]) : 20000;
    const uint32_t feature_sets[] = {
        RVT_GEN_DEFAULT_FEATURES,
        RVT_GEN_ALL_FEATURES & ~(uint32_t)(RVT_GEN_TIME | RVT_GEN_DATA),
        RVT_GEN_DEFAULT_FEATURES | RVT_GEN_TRAPS | RVT_GEN_INTERRUPTS | RVT_GEN_NESTED | RVT_GEN_PRIV,
        RVT_GEN_ALL_FEATURES & ~(uint32_t)RVT_GEN_TIME,
        RVT_GEN_ALL_FEATURES,
    };
    for (size_t k = 0; k < sizeof families / sizeof families[0]; k++)
        for (unsigned seed = 1; seed <= seeds; seed++)
            for (size_t f = 0; f < sizeof feature_sets / sizeof feature_sets[0]; f++)
                for (int v = ONE_EACH; v <= MERGED; v++)
                    one(&families[k], seed * 7 + (unsigned)f, (seed + (unsigned)f) % 2 ? 32 : 64, insns,
                        feature_sets[f], (enum variant)v);
    return rvt_test_summary("test_nybble_runs");
}
