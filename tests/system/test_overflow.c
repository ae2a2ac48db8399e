/* Overflow and loss, packet formats: the byte sink refuses everything for a
 * while (a FIFO that overflowed), then accepts again.  The encoder must
 * emit its format's loss indication once it can, the decoder must report a
 * "lost" gap at that place, and the instructions decoded before and after
 * it must be exactly the input's, with nothing invented in between. */
#include "roundtrip.h"
#include "testlib.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A FIFO that overflows for a while: writes (whole packets, the encoder
 * contract) number [from, to) are refused whole, as a FIFO without room for
 * a packet refuses it; the others are stored. */
struct lossy {
    struct rvt_membuf mb;
    uint64_t calls, from, to;
    uint64_t refused;
};

static long lossy_write(void *ctx, const uint8_t *p, size_t n)
{
    struct lossy *l = ctx;
    uint64_t k = l->calls++;
    if (k >= l->from && k < l->to) {
        l->refused += n;
        return 0;
    }
    return rvt_membuf_append(&l->mb, p, n) < 0 ? -RVT_ERR_NOMEM : (long)n;
}

/* Counts the writes of a loss-free encode. */
static long count_write(void *ctx, const uint8_t *p, size_t n)
{
    (void)p;
    (*(uint64_t *)ctx)++;
    return (long)n;
}

struct got {
    struct rvt_recs *exp;    /* expected records (for addresses) */
    uint64_t *start, *end;   /* decoded ranges */
    size_t n, cap;
    unsigned lost, other_gaps, errors;
    size_t lost_at;          /* range index where the loss was reported */
};

static int got_block(void *ctx, const struct rvt_block *b)
{
    struct got *g = ctx;
    uint64_t s = b->start, e = b->last + b->last_len;
    if (g->n && g->end[g->n - 1] == s && g->lost_at != g->n) {
        g->end[g->n - 1] = e;
        return 0;
    }
    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 1024;
        g->start = realloc(g->start, g->cap * sizeof *g->start);
        g->end = realloc(g->end, g->cap * sizeof *g->end);
    }
    g->start[g->n] = s;
    g->end[g->n++] = e;
    return 0;
}

static int got_note(void *ctx, const struct rvt_note *n)
{
    struct got *g = ctx;
    if (n->kind == RVT_NOTE_GAP && n->reason == RVT_GAP_LOST) {
        if (!g->lost++)
            g->lost_at = g->n;
    } else if (n->kind == RVT_NOTE_GAP && n->reason != RVT_GAP_END) {
        g->other_gaps++;
    } else if (n->kind == RVT_NOTE_ERROR) {
        g->errors++;
    }
    return 0;
}

/* Expected ranges, merged. */
static size_t exp_ranges(const struct rvt_recs *v, uint64_t **s, uint64_t **e)
{
    size_t n = 0;
    *s = malloc(v->n * sizeof **s);
    *e = malloc(v->n * sizeof **e);
    for (size_t i = 0; i < v->n; i++) {
        if (!v->r[i].iretire)
            continue;
        uint64_t a = v->r[i].iaddr, b = rvt_ing_next_addr(&v->r[i]);
        if (n && (*e)[n - 1] == a)
            (*e)[n - 1] = b;
        else {
            (*s)[n] = a;
            (*e)[n++] = b;
        }
    }
    return n;
}

static void run(const char *fmt, const char *const *opts, const struct rvt_image *img, struct rvt_recs *recs,
                uint64_t from, uint64_t to, const char *what)
{
    const struct rvt_codec *c = rvt_codec_find(fmt);
    REQUIRE(c);
    void *cfg = rvt_codec_cfg_new(c);
    struct rvt_diag d = {0};
    for (const char *const *o = opts; o && *o; o += 2)
        CHECK_MSG(c->cfg_set(cfg, o[0], o[1], &d) == 0, "%s: %s", fmt, d.msg);
    CHECK_MSG(!c->cfg_finish || c->cfg_finish(cfg, rvt_img_xlen(img), img, &d) == 0, "%s: %s", fmt, d.msg);
    struct lossy l = {.from = from, .to = to};
    rvt_membuf_init(&l.mb);
    struct rvt_byte_sink sink = {lossy_write, &l};
    void *enc;
    REQUIRE(c->enc_new(&enc, cfg, &sink, &d) == 0);
    int rc = 0;
    for (size_t i = 0; i < recs->n && rc == 0; i++)
        rc = c->enc_put(enc, &recs->r[i]);
    if (rc == 0)
        rc = c->enc_finish(enc);
    CHECK_MSG(rc == 0, "%s %s: encoder failed on a refusing sink: %s", fmt, what, c->enc_error(enc));
    struct rvt_codec_stats st = {0};
    if (c->enc_stats)
        c->enc_stats(enc, &st);
    c->enc_free(enc);
    CHECK_MSG(l.refused > 0, "%s %s: the window [%" PRIu64 ",%" PRIu64 ") refused nothing (%" PRIu64 " writes)", fmt,
              what, from, to, l.calls);

    struct got g = {.exp = recs, .lost_at = (size_t)-1};
    struct rvt_flow_sink fs = {.block = got_block, .note = got_note, .ctx = &g};
    rc = rvt_decode_buffer(c, cfg, img, -1, l.mb.data, l.mb.len, &fs, &d);
    CHECK_MSG(rc == 0, "%s %s: decode: %s", fmt, what, d.msg);
    CHECK_MSG(g.lost >= 1, "%s %s: no loss reported (%u other gaps, %u errors)", fmt, what, g.other_gaps, g.errors);
    CHECK_MSG(g.errors == 0, "%s %s: %u decode errors", fmt, what, g.errors);

    /* Before the loss: a prefix of the input; after it: a tail; each side
     * exact.  (The instructions in between are the lost ones.) */
    uint64_t *es, *ee;
    size_t ne = exp_ranges(recs, &es, &ee);
    size_t k = g.lost_at == (size_t)-1 ? g.n : g.lost_at;
    for (size_t i = 0; i < k && i < ne; i++) {
        bool last = i + 1 == k;
        if (g.start[i] != es[i] || (g.end[i] != ee[i] && !(last && g.end[i] < ee[i]))) {
            rvt_test_fail(__FILE__, __LINE__, "%s %s: before the loss, range %zu [0x%" PRIx64 ",0x%" PRIx64
                          ") differs from the input's [0x%" PRIx64 ",0x%" PRIx64 ")", fmt, what, i, g.start[i],
                          g.end[i], es[i], ee[i]);
            break;
        }
    }
    size_t after = g.n - k;
    CHECK_MSG(after > 0, "%s %s: nothing decoded after the loss", fmt, what);
    for (size_t i = 0; i < after && after <= ne; i++) {
        size_t gi = g.n - after + i, ei = ne - after + i;
        bool first = i == 0;
        if (g.end[gi] != ee[ei] || (g.start[gi] != es[ei] && !(first && g.start[gi] > es[ei]))) {
            rvt_test_fail(__FILE__, __LINE__, "%s %s: after the loss, range %zu [0x%" PRIx64 ",0x%" PRIx64
                          ") differs from the input's [0x%" PRIx64 ",0x%" PRIx64 ")", fmt, what, gi, g.start[gi],
                          g.end[gi], es[ei], ee[ei]);
            break;
        }
    }
    free(es);
    free(ee);
    free(g.start);
    free(g.end);
    rvt_membuf_free(&l.mb);
    rvt_codec_cfg_free(cfg);
}

int main(void)
{
    char *elf = rvt_test_data("ntrace-t1/test.elf"), *pcs = rvt_test_data("ntrace-t1/test-PCONLY.txt");
    struct rvt_image *img = rvt_img_new();
    if (rvt_img_load_elf(img, elf) < 0) {
        rvt_test_fail(__FILE__, __LINE__, "%s", rvt_img_error(img));
        return rvt_test_summary("test_overflow");
    }
    struct rvt_recs recs = {0};
    struct rvt_diag d = {0};
    CHECK(rvt_recs_load(&recs, pcs, img, &d) == 0);
    static const struct {
        const char *fmt;
        const char *const opts[4];
    } fam[] = {{"ntrace", {"ntrace-mode", "htm", NULL}}, {"ntrace", {"ntrace-mode", "btm", NULL}},
               {"etrace", {NULL}},
               {"etrace", {"implicit-return", "fixed", NULL}}};
    /* (cdl and dbg record nybbles into 32-bit trace words and write them in
     * large staged chunks, resending a cut one: tests/cdl/test_nybble_overflow.c
     * covers their refusal windows.) */
    for (unsigned f = 0; f < sizeof fam / sizeof fam[0]; f++) {
        /* the loss-free number of packets decides where the windows fall:
         * short and early, short in the middle, a third of the trace */
        const struct rvt_codec *c = rvt_codec_find(fam[f].fmt);
        void *cfg = rvt_codec_cfg_new(c), *enc;
        for (const char *const *o = fam[f].opts; *o; o += 2)
            c->cfg_set(cfg, o[0], o[1], &d);
        if (c->cfg_finish)
            c->cfg_finish(cfg, rvt_img_xlen(img), img, &d);
        uint64_t t = 0;
        struct rvt_byte_sink cs = {count_write, &t};
        if (c->enc_new(&enc, cfg, &cs, &d) < 0) {
            rvt_test_fail(__FILE__, __LINE__, "%s: %s", fam[f].fmt, d.msg);
            continue;
        }
        for (size_t i = 0; i < recs.n; i++)
            c->enc_put(enc, &recs.r[i]);
        c->enc_finish(enc);
        c->enc_free(enc);
        rvt_codec_cfg_free(cfg);
        CHECK_MSG(t >= 50, "%s: only %" PRIu64 " sink writes for 164,959 instructions: one write per packet expected",
                  fam[f].fmt, t);
        const uint64_t win[][2] = {{t / 10, t / 10 + t / 50 + 1}, {t / 2, t / 2 + t / 20 + 1}, {t / 3, 2 * t / 3}};
        for (unsigned i = 0; i < 3; i++) {
            char what[96];
            snprintf(what, sizeof what, "(%s) packets %" PRIu64 "..%" PRIu64 " of %" PRIu64 " refused",
                     fam[f].opts[0] ? fam[f].opts[1] : "defaults", win[i][0], win[i][1], t);
            run(fam[f].fmt, fam[f].opts, img, &recs, win[i][0], win[i][1], what);
        }
    }
    rvt_recs_free(&recs);
    rvt_img_free(img);
    free(elf);
    free(pcs);
    return rvt_test_summary("test_overflow");
}
