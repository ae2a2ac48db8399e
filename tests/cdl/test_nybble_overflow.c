/* Overflow and loss in both nybble families: the output sink refuses bytes.
 *
 *   - A sink that stops for good (a struct rvt_membuf with a limit, a trace
 *     RAM sink in stop mode): what it holds is exactly the start of the
 *     unbounded stream, decodes to an exact prefix of the execution (the
 *     shared round-trip oracle agrees, decoding the unbounded stream cut at
 *     the same length), and the decoder reports the unexpected end (RVT_GAP_END)
 *     where the data ends, after every decoded instruction.
 *   - A sink that refuses writes for a while and then takes data again (a
 *     FIFO): the encoder completes the field/packet the refusal cut, drops
 *     the rest up to the next record, and emits its loss indication (cdl:
 *     the lost marker and a sync mark; dbg: Trace Disabled and the sync
 *     fields); the decoder reports one loss per refusal, where the sink
 *     started refusing, and every decoded stretch is exact.  Nothing is
 *     lost silently: no errors, no other gaps. */
#include "nybrt.h"
#include "testlib.h"
#include "roundtrip.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

extern const struct rvt_codec rvt_codec_cdl, rvt_codec_dbg;

struct fam {
    const struct rvt_codec *codec;
    const char *opts[8];
    uint64_t slack; /* bytes the loss indication may come after the refusal point */
};

/* cdl: the rest of a cut field (at most 20 nybbles) and the lost marker;
 * dbg: the rest of a cut packet, and Nops up to a sync point (512 bytes
 * apart with the default 4096-byte buffer). */
static const struct fam g_fams[] = {
    {&rvt_codec_cdl, {NULL}, 12},
    {&rvt_codec_cdl, {"cdl-pc", "uninferable", NULL}, 12},
    {&rvt_codec_cdl, {"cdl-pack", "all", NULL}, 12},
    {&rvt_codec_dbg, {"dbg-emit", "pc,priv", NULL}, 512 + 10},
    {&rvt_codec_dbg, {"dbg-emit", "pc,branch,priv,loadaddr,storeaddr", NULL}, 512 + 10},
};

static bool config(const struct fam *f, const struct nrt_prog *p, void **cfg, const char **all)
{
    size_t n = 0;
    if (p->ecall) {
        all[n++] = "ecall";
        all[n++] = p->ecall;
    }
    if (f->codec == &rvt_codec_cdl) { /* 64-bit values (as nrt_cfg does; the oracle gets `all` too) */
        all[n++] = "cdl-data";
        all[n++] = "wide";
    }
    for (size_t i = 0; f->opts[i]; i++)
        all[n++] = f->opts[i];
    all[n] = NULL;
    char err[256];
    if (nrt_cfg(f->codec, cfg, all, p->xlen, p->img, err, sizeof err) < 0) {
        rvt_test_fail(__FILE__, __LINE__, "%s: %s", p->name, err);
        return false;
    }
    return true;
}

static int encode_to(const struct rvt_codec *c, const void *cfg, const struct nrt_exec *x,
                     const struct rvt_byte_sink *sink, struct rvt_codec_stats *st)
{
    void *enc;
    struct rvt_diag d = {0};
    if (c->enc_new(&enc, cfg, sink, &d) < 0) {
        rvt_test_fail(__FILE__, __LINE__, "enc_new: %s", d.msg);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < x->n && rc >= 0; i++)
        rc = c->enc_put(enc, &x->recs[i]);
    if (rc >= 0)
        rc = c->enc_finish(enc);
    if (rc < 0)
        rvt_test_fail(__FILE__, __LINE__, "encode: %s", c->enc_error(enc));
    c->enc_stats(enc, st);
    c->enc_free(enc);
    return rc;
}

/* A sink that stopped for good holding `buf`: an exact prefix, one loss at
 * the end of the data. */
static void check_prefix(const struct fam *f, const struct nrt_prog *p, const void *cfg, const char *const *opts,
                         const char *sink, const uint8_t *buf, size_t len, const struct rvt_membuf *full)
{
    char why[256];
    CHECK_MSG(len < full->len && memcmp(buf, full->data, len) == 0,
              "%s %s %s: the sink holds %zu bytes that are not the start of the %zu-byte stream", f->codec->name,
              p->name, sink, len, full->len);
    struct nrt_dec d;
    nrt_decode(f->codec, cfg, p->img, p->img, p->xlen, -1, buf, len, &d);
    CHECK_MSG(d.rc == 0 && d.errors == 0, "%s %s %s: rc %d, %" PRIu64 " errors: %s %s", f->codec->name, p->name, sink,
              d.rc, d.errors, d.msg, d.first_error);
    CHECK_MSG(d.npcs > 0 && d.npcs < p->npcs, "%s %s %s: decoded %zu of %zu", f->codec->name, p->name, sink, d.npcs,
              p->npcs);
    CHECK_MSG(nrt_same_pcs(p->pcs, d.npcs, d.pcs, d.npcs, false, why, sizeof why), "%s %s %s: %s", f->codec->name,
              p->name, sink, why);
    CHECK_MSG(d.ngapv == 1 && d.gap_reasons[RVT_GAP_END] == 1, "%s %s %s: %zu gap notes (%" PRIu64 " unexpected end: '%s')",
              f->codec->name, p->name, sink, d.ngapv, d.gap_reasons[RVT_GAP_END], d.last_gap);
    if (d.ngapv == 1) {
        /* Where the data ends (at most a cut field/packet before it), after
         * every decoded instruction. */
        CHECK_MSG(d.gapv[0].offset <= len && d.gapv[0].offset + 10 >= len && d.gapv[0].at == d.npcs,
                  "%s %s %s: loss at offset 0x%" PRIx64 " after %zu instructions, the data ends at 0x%zx after %zu",
                  f->codec->name, p->name, sink, d.gapv[0].offset, d.gapv[0].at, len, d.npcs);
    }
    /* The oracle: the unbounded stream cut at the same length decodes to
     * the same prefix. */
    struct rvt_recs recs = {p->x.recs, p->x.n, p->x.n};
    struct rvt_rt_opts o = {.format = f->codec->name, .options = opts, .truncate = len};
    struct rvt_rt_result res;
    int rc = rvt_roundtrip(&o, p->img, &recs, &res, NULL, NULL);
    CHECK_MSG(rc == 0 && res.insns_out == d.npcs && res.gaps == 1 && res.errors == 0,
              "%s %s %s: oracle: rc %d, %" PRIu64 " of %" PRIu64 " instructions, %" PRIu64 " gaps: %s",
              f->codec->name, p->name, sink, rc, res.insns_out, (uint64_t)d.npcs, res.gaps, res.msg);
    printf("  %-4s %-26s %-28s %-24s %7zu of %7zu bytes: %7zu of %7zu instructions, loss at 0x%" PRIx64 "\n",
           f->codec->name, p->name, f->opts[0] ? f->opts[1] : "default", sink, len, full->len, d.npcs, p->npcs,
           d.ngapv ? d.gapv[0].offset : 0);
    nrt_dec_free(&d);
}

/* A sink that refuses writes for a while: from the moment it holds at[k]
 * bytes (the write that crosses it is taken in part) it refuses the next
 * `refuse` writes whole, then takes data again. */
struct window_sink {
    struct rvt_membuf out;
    const uint64_t *at;
    size_t nat, next;
    unsigned refuse, refusing;
    uint64_t refused_at[8];
    size_t nref;
};

static long window_write(void *ctx, const uint8_t *p, size_t n)
{
    struct window_sink *w = ctx;
    if (w->refusing) {
        w->refusing--;
        return 0;
    }
    size_t take = n;
    if (w->next < w->nat && w->out.len + n > w->at[w->next]) {
        take = (size_t)(w->at[w->next] - w->out.len);
        w->refused_at[w->nref++] = w->at[w->next];
        w->next++;
        w->refusing = w->refuse;
    }
    if (take && rvt_membuf_append(&w->out, p, take) < 0)
        return -RVT_ERR_NOMEM;
    return (long)take;
}

static void check_windows(const struct fam *f, const struct nrt_prog *p, const void *cfg, const struct rvt_membuf *full)
{
    /* Three refusals, cutting writes at odd places, each for one write
     * (the encoder writes 4 KiB at a time, so each loses less than 8 KiB:
     * the thresholds are further apart, and the last leaves a third of the
     * stream after it). */
    uint64_t at[3] = {full->len / 10 + 1, 3 * full->len / 10 + 3, full->len / 2};
    struct window_sink w = {.at = at, .nat = 3, .refuse = 1};
    rvt_membuf_init(&w.out);
    struct rvt_byte_sink sink = {window_write, &w};
    struct rvt_codec_stats st;
    if (encode_to(f->codec, cfg, &p->x, &sink, &st) < 0) {
        rvt_membuf_free(&w.out);
        return;
    }
    const char *name = f->opts[0] ? f->opts[1] : "default";
    CHECK_MSG(w.nref == 3 && st.lost > 0, "%s %s %s: %zu refusals, %" PRIu64 " bytes lost", f->codec->name, p->name,
              name, w.nref, st.lost);
    /* Up to the first refusal the sink holds the stream's start. */
    CHECK(memcmp(w.out.data, full->data, (size_t)at[0]) == 0);
    struct nrt_dec d;
    char why[256];
    size_t segs = 0;
    nrt_decode(f->codec, cfg, p->img, p->img, p->xlen, -1, w.out.data, w.out.len, &d);
    CHECK_MSG(d.rc == 0 && d.errors == 0, "%s %s %s windows: rc %d, %" PRIu64 " errors: %s %s", f->codec->name,
              p->name, name, d.rc, d.errors, d.msg, d.first_error);
    CHECK_MSG(d.ngapv == w.nref && d.gap_reasons[RVT_GAP_LOST] == w.nref,
              "%s %s %s windows: %zu gap notes, %" PRIu64 " losses, for %zu refusals (last '%s')", f->codec->name,
              p->name, name, d.ngapv, d.gap_reasons[RVT_GAP_LOST], w.nref, d.last_gap);
    /* Each stretch between losses is exact; the first starts the
     * execution, the last ends it. */
    CHECK_MSG(nrt_segments_ok(p->pcs, p->npcs, &d, &segs, why, sizeof why), "%s %s %s windows: %s", f->codec->name,
              p->name, name, why);
    CHECK_MSG(segs == w.nref + 1 && d.npcs && d.pcs[0] == p->pcs[0] && d.pcs[d.npcs - 1] == p->pcs[p->npcs - 1],
              "%s %s %s windows: %zu stretches for %zu refusals", f->codec->name, p->name, name, segs, w.nref);
    /* Each loss where the sink started refusing, at the end of a stretch. */
    for (size_t k = 0; k < d.ngapv && k < w.nref; k++) {
        const struct nrt_gap *g = &d.gapv[k];
        CHECK_MSG(g->offset >= w.refused_at[k] && g->offset <= w.refused_at[k] + f->slack,
                  "%s %s %s windows: loss %zu at offset 0x%" PRIx64 ", the sink refused from 0x%" PRIx64,
                  f->codec->name, p->name, name, k, g->offset, w.refused_at[k]);
        CHECK_MSG(k + 1 < d.nsegs && g->at == d.segs[k + 1], "%s %s %s windows: loss %zu after %zu instructions, not "
                                                              "where a stretch ends",
                  f->codec->name, p->name, name, k, g->at);
    }
    printf("  %-4s %-26s %-28s refusing at 0x%" PRIx64 ", 0x%" PRIx64 ", 0x%" PRIx64 ": losses at 0x%" PRIx64
           ", 0x%" PRIx64 ", 0x%" PRIx64 "; %zu of %zu instructions decoded\n",
           f->codec->name, p->name, name, at[0], at[1], at[2], d.ngapv > 0 ? d.gapv[0].offset : 0,
           d.ngapv > 1 ? d.gapv[1].offset : 0, d.ngapv > 2 ? d.gapv[2].offset : 0, d.npcs, p->npcs);
    nrt_dec_free(&d);
    rvt_membuf_free(&w.out);
}

static void run(const struct nrt_prog *p)
{
    for (size_t k = 0; k < sizeof g_fams / sizeof g_fams[0]; k++) {
        const struct fam *f = &g_fams[k];
        void *cfg;
        const char *opts[16];
        if (!config(f, p, &cfg, opts))
            continue;
        struct rvt_membuf full;
        rvt_membuf_init(&full);
        struct rvt_byte_sink fs = rvt_membuf_sink(&full);
        struct rvt_codec_stats st;
        if (encode_to(f->codec, cfg, &p->x, &fs, &st) < 0 || full.len < 6 * 8192) {
            printf("  %-4s %-26s %s: %zu bytes, too short for the refusal cases\n", f->codec->name, p->name,
                   f->opts[0] ? f->opts[1] : "default", full.len);
            rvt_membuf_free(&full);
            rvt_codec_cfg_free(cfg);
            continue;
        }
        CHECK_EQ(st.lost, 0);

        /* A memory buffer with a limit (odd, so that it cuts a field). */
        for (size_t third = 1; third <= 2; third++) {
            size_t lim = third * full.len / 3 + 1;
            struct rvt_membuf m;
            rvt_membuf_init(&m);
            m.limit = lim;
            struct rvt_byte_sink ms = rvt_membuf_sink(&m);
            if (encode_to(f->codec, cfg, &p->x, &ms, &st) == 0) {
                /* Every byte produced is kept or counted lost (after the
                 * refusal the encoder produces what the lost stretch needs,
                 * not the full stream's padding and sync fields). */
                CHECK_MSG(m.len == lim && st.lost > 0 && m.len + st.lost + 1 >= st.bytes,
                          "%s %s: membuf limit %zu: %zu bytes kept, %" PRIu64 " lost, %" PRIu64 " produced",
                          f->codec->name, p->name, lim, m.len, st.lost, st.bytes);
                char what[48];
                snprintf(what, sizeof what, "membuf limit %zu", lim);
                check_prefix(f, p, cfg, opts, what, m.data, m.len, &full);
            }
            rvt_membuf_free(&m);
        }

        /* A trace RAM sink in stop mode (64-bit words). */
        struct rvt_sink_spec spec;
        struct rvt_ramsink *ram;
        struct rvt_diag dg = {0};
        char text[64];
        snprintf(text, sizeof text, "sram:%zu:stop:64", (full.len / 2) & ~(size_t)7);
        if (rvt_sink_spec_parse(text, &spec, &dg) == 0 && rvt_ramsink_from_spec(&spec, f->codec->idle_byte, &ram, &dg) == 0) {
            struct rvt_byte_sink rs = rvt_ramsink_sink(ram);
            if (encode_to(f->codec, cfg, &p->x, &rs, &st) == 0) {
                rvt_ramsink_flush(ram);
                uint8_t *lin;
                size_t len;
                uint64_t lost;
                struct rvt_ramsink_state rst;
                rvt_ramsink_state(ram, &rst);
                CHECK(rst.dropped > 0 && st.lost > 0);
                if (rvt_ramsink_linear(ram, &lin, &len, &lost) == 0) {
                    check_prefix(f, p, cfg, opts, text, lin, len, &full);
                    free(lin);
                } else {
                    rvt_test_fail(__FILE__, __LINE__, "%s: cannot read the sink back", text);
                }
            }
            rvt_ramsink_free(ram);
        } else {
            rvt_test_fail(__FILE__, __LINE__, "%s: %s", text, dg.msg);
        }

        check_windows(f, p, cfg, &full);
        rvt_membuf_free(&full);
        rvt_codec_cfg_free(cfg);
    }
}

int main(void)
{
    struct nrt_prog p;
    if (nrt_prog_pclist(&p, "ntrace-t1/test.elf", "ntrace-t1/test-PCONLY.txt", NRT_DATA))
        run(&p);
    nrt_prog_free(&p);
    if (nrt_prog_flowtest(&p, "flow/flowtest32.elf", 32, 3000, NRT_DATA | NRT_TRACEPOINTS))
        run(&p);
    nrt_prog_free(&p);
    if (nrt_prog_flowtest(&p, "flow/flowtest64.elf", 64, 3000, NRT_DATA | NRT_TIME))
        run(&p);
    nrt_prog_free(&p);
    return rvt_test_summary("test_nybble_overflow");
}
