/* Several harts through one funnel (rvt_encode_funnel, `rvtrace encode
 * --funnel`): one E-Trace encoder per hart, each with its srcID in the
 * encapsulation header; decoding with src-id N (`decode --hart N`) gives
 * back exactly hart N's instructions. */
#include "rt.h"
#include "synth.h"
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct rvt_codec rvt_codec_etrace;

struct mem_src {
    const struct rvt_ing_rec *r;
    size_t n, i;
    unsigned xlen;
};
static int ms_next(void *self, struct rvt_ing_rec *rec)
{
    struct mem_src *m = self;
    if (m->i >= m->n)
        return 0;
    *rec = m->r[m->i++];
    return 1;
}
static const char *ms_error(const void *self)
{
    (void)self;
    return "";
}
static void ms_close(void *self)
{
    (void)self;
}
static unsigned ms_xlen(const void *self)
{
    return ((const struct mem_src *)self)->xlen;
}

struct cfg_ctx {
    const char *const *opts;
    unsigned xlen;
    const struct rvt_image *img;
};
static void *make_cfg(void *ctx, unsigned hart, struct rvt_diag *d)
{
    struct cfg_ctx *c = ctx;
    const char *o[48];
    unsigned n = 0;
    for (const char *const *p = c->opts; *p && n < 40; p++)
        o[n++] = *p;
    char id[16];
    snprintf(id, sizeof id, "%u", hart);
    o[n++] = "src-bits";
    o[n++] = "2";
    o[n++] = "src-id";
    o[n++] = id;
    o[n] = NULL;
    char err[300];
    void *cfg = rt_config(o, c->xlen, c->img, err, sizeof err);
    if (!cfg)
        rvt_fail(d, RVT_ERR_INVAL, "%s", err);
    return cfg;
}

static void run(const char *name, const char *const *opts, unsigned xlen, unsigned seed)
{
    struct synth_opts so;
    synth_default(&so, seed, xlen);
    so.insns = 20000;
    struct synth s;
    REQUIRE(synth_run(&s, &so) == 0);
    /* hart 0 runs it all, hart 1 from a third of the way, hart 2 from two thirds */
    enum { H = 3 };
    size_t from[H] = {0, s.nrecs / 3, 2 * s.nrecs / 3};
    size_t pc_from[H] = {0};
    for (unsigned h = 1; h < H; h++) {
        while (from[h] < s.nrecs && (!s.recs[from[h]].iretire || s.recs[from[h]].itype != 0 ||
                                     s.recs[from[h] - 1].itype != 0))
            from[h]++;
        for (size_t i = 0; i < from[h]; i++)
            pc_from[h] += s.recs[i].iretire != 0;
    }
    /* interleave in chunks of varying size */
    struct rvt_ing_rec *mix = malloc(s.nrecs * H * sizeof *mix);
    size_t nmix = 0, at[H];
    memcpy(at, from, sizeof at);
    for (unsigned k = 0; nmix < s.nrecs * H;) {
        bool any = false;
        for (unsigned h = 0; h < H; h++) {
            size_t chunk = 1 + (k++ * 2654435761u >> 7) % 40;
            for (size_t c = 0; c < chunk && at[h] < s.nrecs; c++) {
                mix[nmix] = s.recs[at[h]++];
                mix[nmix++].hart = (uint16_t)h;
                any = true;
            }
        }
        if (!any)
            break;
    }
    struct mem_src ms = {mix, nmix, 0, xlen};
    static const struct rvt_ing_source_ops ops = {ms_next, ms_error, ms_close, ms_xlen};
    struct rvt_ing_reader *in = rvt_ing_reader_wrap(&ops, &ms, RVT_ING_FMT_NATIVE);
    struct rvt_membuf m;
    rvt_membuf_init(&m);
    struct rvt_byte_sink sink = rvt_membuf_sink(&m);
    struct cfg_ctx cc = {opts, xlen, s.img};
    struct rvt_codec_stats st, per[H];
    struct rvt_diag d = {0};
    int rc = rvt_encode_funnel(&rvt_codec_etrace, make_cfg, &cc, in, s.img, &sink, H, &st, per, &d);
    CHECK_MSG(rc == 0, "%s: funnel encode: %s", name, d.msg);
    rvt_ing_close(in);
    for (unsigned h = 0; rc == 0 && h < H; h++) {
        struct rvt_diag dd = {0};
        void *cfg = make_cfg(&cc, h, &dd);
        REQUIRE(cfg != NULL);
        struct rt_result dec = {0};
        char err[600];
        int r = rt_decode(cfg, s.img, RVT_FLOW_ECALL_TRAP, m.data, m.len, &dec, err, sizeof err);
        CHECK_MSG(r == 0, "%s hart %u: %s", name, h, err);
        size_t n = s.npcs - pc_from[h];
        size_t diff = rt_first_diff(dec.pcs, dec.npcs, s.pcs + pc_from[h], n);
        CHECK_MSG(diff == n && dec.npcs == n && dec.errors == 0,
                  "%s rv%u seed %u hart %u: %zu of %zu instructions, first difference at #%zu, %u errors %s", name,
                  xlen, seed, h, dec.npcs, n, diff, dec.errors, dec.first_error);
        rt_free(&dec);
        rvt_codec_cfg_free(cfg);
    }
    rvt_membuf_free(&m);
    free(mix);
    synth_free(&s);
}

int main(void)
{
    static const char *const plain[] = {NULL};
    static const char *const ts[] = {"encap-timestamp", "2", "notime_p", "0", "time_width_p", "16", NULL};
    static const char *const all[] = {"implicit-return", "fixed", "branch-prediction", "1", "jump-target-cache",
                                      "1", "sijump", "1", "resync-max", "0", NULL};
    for (unsigned seed = 1; seed <= 3; seed++)
        for (unsigned xlen = 32; xlen <= 64; xlen += 32) {
            run("plain", plain, xlen, seed);
            run("timestamps", ts, xlen, seed);
            run("all", all, xlen, seed);
        }
    return rvt_test_summary("test_et_funnel");
}
