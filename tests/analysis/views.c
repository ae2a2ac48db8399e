#include "views.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

const char *const view_names[NVIEWS] = {"calltree", "profile", "coverage",  "folded", "callgrind",
                                        "chrome",   "lcov",    "html-body", "counts"};

static char *write_view(struct rvt_analysis *a, enum rvt_an_format fmt, const char *source_dir)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    struct rvt_an_write_opts o = {.size = sizeof o, .hart = -1, .source_dir = source_dir, .title = "t"};
    int rc = rvt_an_write(a, fmt, f, &o);
    fclose(f);
    if (rc < 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* The summary and per-hart counters as text (what the cards show). */
static char *counts_of(struct rvt_analysis *a)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    unsigned harts[RVT_AN_MAX_HARTS];
    unsigned n = rvt_an_harts(a, harts, RVT_AN_MAX_HARTS);
    for (int i = -1; i < (int)n; i++) {
        struct rvt_an_summary s;
        rvt_an_summary(a, i < 0 ? -1 : (int)harts[i], &s, sizeof s);
        fprintf(f,
                "hart %d insns %" PRIu64 " calls %" PRIu64 " returns %" PRIu64 " tail %" PRIu64 " traps %" PRIu64
                " interrupts %" PRIu64 " trapret %" PRIu64 " unwound %" PRIu64 " unmatched %" PRIu64
                " depth %" PRIu64 " gaps %" PRIu64 " errors %" PRIu64 " funcs %" PRIu64 "/%" PRIu64
                " insns %" PRIu64 "/%" PRIu64 " lines %" PRIu64 "/%" PRIu64 " br %" PRIu64 "/%" PRIu64 "/%" PRIu64
                "/%" PRIu64 "\n",
                i < 0 ? -1 : (int)harts[i], s.insns, s.calls, s.returns, s.tail_calls, s.traps, s.interrupts,
                s.trap_returns, s.unwound, s.unmatched, s.max_depth, s.gaps, s.errors, s.funcs_hit, s.funcs_total,
                s.insns_hit, s.insns_total, s.lines_hit, s.lines_total, s.branches_both, s.branches_taken_only,
                s.branches_not_taken_only, s.branches_total);
    }
    fclose(f);
    return buf;
}

void views_of(struct rvt_analysis *a, const char *source_dir, struct views *out)
{
    static const enum rvt_an_format fmts[] = {RVT_AN_FMT_CALLTREE, RVT_AN_FMT_PROFILE,   RVT_AN_FMT_COVERAGE,
                                              RVT_AN_FMT_FOLDED,   RVT_AN_FMT_CALLGRIND, RVT_AN_FMT_CHROME,
                                              RVT_AN_FMT_LCOV,     RVT_AN_FMT_HTML};
    memset(out, 0, sizeof *out);
    CHECK_MSG(rvt_an_finish(a) == 0, "analysis: %s", rvt_an_error(a));
    for (int i = 0; i < 8; i++) {
        out->v[i] = write_view(a, fmts[i], source_dir);
        if (fmts[i] != RVT_AN_FMT_LCOV)
            CHECK_MSG(out->v[i] != NULL, "writing %s failed", view_names[i]);
    }
    out->v[8] = counts_of(a);
}

void views_free(struct views *v)
{
    for (int i = 0; i < NVIEWS; i++)
        free(v->v[i]);
    memset(v, 0, sizeof *v);
}

int views_compare(const char *what, const struct views *want, const struct views *got)
{
    int bad = 0;
    for (int i = 0; i < NVIEWS; i++) {
        const char *x = want->v[i], *y = got->v[i];
        rvt_test_checks++;
        if (!x && !y)
            continue;
        if (!x || !y) {
            rvt_test_fail(__FILE__, __LINE__, "%s: %s: written on one side only", what, view_names[i]);
            bad = 1;
            continue;
        }
        if (strcmp(x, y) == 0)
            continue;
        /* the first differing line of each */
        size_t line = 1, k = 0;
        while (x[k] && x[k] == y[k]) {
            if (x[k] == '\n')
                line++;
            k++;
        }
        while (k && x[k - 1] != '\n')
            k--;
        int lx = (int)strcspn(x + k, "\n"), ly = (int)strcspn(y + k, "\n");
        rvt_test_fail(__FILE__, __LINE__, "%s: %s differs at line %zu:\n  ingress: %.*s\n  decoded: %.*s", what,
                      view_names[i], line, lx > 300 ? 300 : lx, x + k, ly > 300 ? 300 : ly, y + k);
        bad = 1;
    }
    return bad ? -1 : 0;
}

/* ---- the normaliser ---------------------------------------------------------------- */

/* Byte offsets (record numbers for the ingress) say where in a trace, not
 * what ran: cleared on both sides.  A gap note after the last block is the
 * end of the trace (N-Trace's encoder ends with a "trace stopped"
 * correlation message, an ingress just ends): held back, and dropped if no
 * block follows. */
struct norm {
    struct rvt_flow_sink inner;
    struct norm_opts o;
    bool held;
    struct rvt_note gap;
};

static int n_block(void *ctx, const struct rvt_block *b)
{
    struct norm *n = ctx;
    if (n->held) {
        n->held = false;
        int rc = n->inner.note(n->inner.ctx, &n->gap);
        if (rc)
            return rc;
    }
    struct rvt_block c = *b;
    c.trace_offset = 0;
    if (n->o.mask_cause) {
        c.cause = 0;
        c.tval = 0;
    }
    if (n->o.mask_intr)
        c.flags &= (uint8_t)~RVT_BLK_INTERRUPT;
    if (n->o.mask_time) {
        c.flags &= (uint8_t)~RVT_BLK_HAS_TIME;
        c.time = 0;
    }
    return n->inner.block(n->inner.ctx, &c);
}

static int n_note(void *ctx, const struct rvt_note *note)
{
    struct norm *n = ctx;
    struct rvt_note c = *note;
    c.offset = 0;
    if (c.kind == RVT_NOTE_TIME && n->o.mask_time)
        return 0;
    if (c.kind == RVT_NOTE_TRAP && n->o.mask_cause) {
        c.value = 0;
        c.tval = 0;
    }
    if (c.kind == RVT_NOTE_TRAP && n->o.mask_intr)
        c.reason = 0;
    if (n->held) {
        n->held = false;
        int rc = n->inner.note(n->inner.ctx, &n->gap);
        if (rc)
            return rc;
    }
    if (c.kind == RVT_NOTE_GAP && (c.reason == RVT_GAP_TRACE_OFF || c.reason == RVT_GAP_END)) {
        n->held = true;
        n->gap = c;
        n->gap.text = NULL; /* the decoder's buffer is not kept */
        return 0;
    }
    return n->inner.note(n->inner.ctx, &c);
}

static struct rvt_flow_sink norm_sink(struct norm *n)
{
    struct rvt_flow_sink s = {.block = n_block, .note = n_note, .ctx = n};
    return s;
}

/* ---- the two sides ------------------------------------------------------------------ */

struct rvt_analysis *analyse_records(const struct rvt_image *img, const struct rvt_srclines *lines,
                                     const struct rvt_recs *recs, enum rvt_flow_ecall ecall, const struct norm_opts *no)
{
    struct rvt_an_config ac = {.size = sizeof ac, .image = img, .lines = lines};
    struct rvt_analysis *a = rvt_an_new(&ac);
    struct rvt_flow *f[RVT_AN_MAX_HARTS] = {0};
    struct rvt_ingflow *x[RVT_AN_MAX_HARTS] = {0};
    struct norm *nm = calloc(RVT_AN_MAX_HARTS, sizeof *nm);
    if (!a || !nm) {
        free(nm);
        rvt_an_free(a);
        return NULL;
    }
    bool ok = true;
    for (size_t i = 0; i < recs->n && ok; i++) {
        struct rvt_ing_rec r = recs->r[i];
        unsigned h = r.hart;
        if (h >= RVT_AN_MAX_HARTS) {
            CHECK_MSG(0, "record %zu: hart %u", i, h);
            ok = false;
            break;
        }
        if (!x[h]) {
            nm[h].inner = rvt_an_sink(a, h);
            nm[h].o = *no;
            struct rvt_flow_config fc = {.size = sizeof fc, .image = img, .ecall = ecall, .sink = norm_sink(&nm[h])};
            f[h] = rvt_flow_new(&fc);
            x[h] = f[h] ? rvt_ingflow_new(f[h]) : NULL;
            if (!x[h]) {
                CHECK_MSG(0, "cannot create a flow");
                ok = false;
                break;
            }
        }
        int rc = rvt_ingflow_put(x[h], &r);
        CHECK_MSG(rc == 0, "ingress record %zu: %s (%s)", i, rvt_ingflow_error(x[h]), rvt_an_error(a));
        ok = rc == 0;
    }
    for (unsigned h = 0; h < RVT_AN_MAX_HARTS; h++) {
        if (x[h] && ok)
            CHECK_MSG(rvt_ingflow_finish(x[h]) == 0, "ingress end: %s", rvt_ingflow_error(x[h]));
        rvt_ingflow_free(x[h]);
        rvt_flow_free(f[h]);
    }
    free(nm);
    if (!ok) {
        rvt_an_free(a);
        return NULL;
    }
    return a;
}

void *family_cfg(const struct rvt_codec *c, const char *const *opts, const char *extra_key, const char *extra_val,
                 const struct rvt_image *img, char *msg, size_t msglen)
{
    void *cfg = rvt_codec_cfg_new(c);
    struct rvt_diag d = {0};
    for (const char *const *o = opts; o && o[0]; o += 2)
        if (c->cfg_set(cfg, o[0], o[1], &d) < 0) {
            snprintf(msg, msglen, "--%s %s: %s", o[0], o[1], d.msg);
            rvt_codec_cfg_free(cfg);
            return NULL;
        }
    if (extra_key && c->cfg_set(cfg, extra_key, extra_val, &d) < 0) {
        snprintf(msg, msglen, "--%s %s: %s", extra_key, extra_val, d.msg);
        rvt_codec_cfg_free(cfg);
        return NULL;
    }
    if (c->cfg_finish && c->cfg_finish(cfg, rvt_img_xlen(img), img, &d) < 0) {
        snprintf(msg, msglen, "options: %s", d.msg);
        rvt_codec_cfg_free(cfg);
        return NULL;
    }
    return cfg;
}

int decode_into(struct rvt_analysis *a, unsigned as_hart, const struct rvt_codec *c, const void *cfg,
                const struct rvt_image *img, const uint8_t *buf, size_t len, enum rvt_flow_ecall ecall,
                const struct norm_opts *no, char *msg, size_t msglen)
{
    struct norm nm = {.inner = rvt_an_sink(a, as_hart), .o = *no};
    struct rvt_flow_sink s = norm_sink(&nm);
    struct rvt_diag d = {0};
    int rc = rvt_decode_buffer(c, cfg, img, (int)ecall, buf, len, &s, &d);
    if (rc < 0)
        snprintf(msg, msglen, "decode: %s (%s)", d.msg, rvt_an_error(a));
    return rc;
}

int encode_decode_into(struct rvt_analysis *a, unsigned as_hart, const struct rvt_image *img,
                       const struct rvt_recs *recs, int hart, const char *family, const char *const *opts,
                       enum rvt_flow_ecall ecall, const struct norm_opts *no, char *msg, size_t msglen)
{
    const struct rvt_codec *c = rvt_codec_find(family);
    if (!c) {
        snprintf(msg, msglen, "no family %s", family);
        return -1;
    }
    void *cfg = family_cfg(c, opts, NULL, NULL, img, msg, msglen);
    if (!cfg)
        return -1;
    struct rvt_membuf mb;
    rvt_membuf_init(&mb);
    struct rvt_byte_sink sink = rvt_membuf_sink(&mb);
    void *enc = NULL;
    struct rvt_diag d = {0};
    int rc = c->enc_new(&enc, cfg, &sink, &d);
    if (rc < 0)
        snprintf(msg, msglen, "encoder: %s", d.msg);
    for (size_t i = 0; i < recs->n && rc >= 0; i++) {
        if (hart >= 0 && recs->r[i].hart != (unsigned)hart)
            continue;
        if ((rc = c->enc_put(enc, &recs->r[i])) < 0)
            snprintf(msg, msglen, "encode record %zu: %s", i, c->enc_error(enc));
    }
    if (rc >= 0 && (rc = c->enc_finish(enc)) < 0)
        snprintf(msg, msglen, "encode end: %s", c->enc_error(enc));
    if (enc)
        c->enc_free(enc);
    if (rc >= 0)
        rc = decode_into(a, as_hart, c, cfg, img, mb.data, mb.len, ecall, no, msg, msglen);
    rvt_membuf_free(&mb);
    rvt_codec_cfg_free(cfg);
    return rc < 0 ? rc : 0;
}

char *unxz(const char *rel)
{
    char *src = rvt_test_data(rel);
    const char *base = strrchr(rel, '/');
    base = base ? base + 1 : rel;
    size_t n = strlen(rvt_test_tmpdir()) + strlen(base) + 2;
    char *dst = malloc(n);
    snprintf(dst, n, "%s/%.*s", rvt_test_tmpdir(), (int)(strlen(base) - 3), base);
    int rc = rvt_test_sh("xz -dc '%s' > '%s'", src, dst);
    CHECK_MSG(rc == 0, "xz -dc %s failed", src);
    free(src);
    return dst;
}
