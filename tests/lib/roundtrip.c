#include "roundtrip.h"
#include "testlib.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rvt_recs_free(struct rvt_recs *v)
{
    free(v->r);
    memset(v, 0, sizeof *v);
}

int rvt_recs_push(void *ctx, const struct rvt_ing_rec *r)
{
    struct rvt_recs *v = ctx;
    if (v->n == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 1024;
        struct rvt_ing_rec *n = realloc(v->r, cap * sizeof *n);
        if (!n)
            return -RVT_ERR_NOMEM;
        v->r = n;
        v->cap = cap;
    }
    v->r[v->n++] = *r;
    return 0;
}

int rvt_recs_load(struct rvt_recs *v, const char *path, const struct rvt_image *img, struct rvt_diag *d)
{
    struct rvt_ing_reader_config rc = {.size = sizeof rc, .image = img};
    struct rvt_ing_reader *r;
    int rc2 = rvt_ing_open(&r, path, &rc, d);
    if (rc2 < 0)
        return rc2;
    struct rvt_ing_rec rec;
    while ((rc2 = rvt_ing_next(r, &rec)) > 0)
        if (rvt_recs_push(v, &rec) < 0) {
            rc2 = -RVT_ERR_NOMEM;
            break;
        }
    if (rc2 < 0)
        rvt_fail(d, (enum rvt_err)-rc2, "%s", rvt_ing_error(r));
    rvt_ing_close(r);
    return rc2 < 0 ? rc2 : 0;
}

int rvt_recs_bundled_capture(struct rvt_image **img, struct rvt_recs *recs)
{
    char path[600], ing[600];
    if (!rvt_test_unxz("real/bzip2.xz", "bzip2", path, sizeof path) ||
        !rvt_test_unxz("real/bzip2-9.ing.xz", "bzip2-9.ing", ing, sizeof ing)) {
        printf("  (no xz: the bundled real capture is not used)\n");
        return 0;
    }
    *img = rvt_img_new();
    int loaded = *img ? rvt_img_load_elf(*img, path) : -1;
    CHECK_MSG(loaded == 0, "loading %s", path);
    if (loaded != 0)
        return -1;
    struct rvt_diag d = {0};
    int rc = rvt_recs_load(recs, ing, *img, &d);
    CHECK_MSG(rc == 0, "loading %s: %s", ing, d.msg);
    return rc == 0 ? 1 : -1;
}

int rvt_recs_gen(struct rvt_recs *v, const struct rvt_gen_program *p, const struct rvt_gen_config *gc,
                 bool merge_blocks, struct rvt_diag *d)
{
    return rvt_gen_run_ex(p, gc, merge_blocks, rvt_recs_push, v, d);
}

/* Address ranges [s, e) of contiguous retired code; adjacent ones merged so
 * that block boundaries do not matter. */
struct ranges {
    uint64_t *s, *e;
    size_t n, cap;
    uint64_t mask;
};

static int range_add(struct ranges *g, uint64_t s, uint64_t e, bool nomerge)
{
    s &= g->mask;
    e &= g->mask;
    if (s == e)
        return 0;
    if (g->n && g->e[g->n - 1] == s && !nomerge) {
        g->e[g->n - 1] = e;
        return 0;
    }
    if (g->n == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 1024;
        uint64_t *ns = realloc(g->s, cap * sizeof *ns);
        if (!ns)
            return -RVT_ERR_NOMEM;
        g->s = ns;
        uint64_t *ne = realloc(g->e, cap * sizeof *ne);
        if (!ne)
            return -RVT_ERR_NOMEM;
        g->e = ne;
        g->cap = cap;
    }
    g->s[g->n] = s;
    g->e[g->n++] = e;
    return 0;
}

static void ranges_free(struct ranges *g)
{
    free(g->s);
    free(g->e);
}

struct dec_ctx {
    struct ranges got;
    struct rvt_rt_result *res;
    bool after_gap; /* the next block starts a new range even if adjacent */
    struct rvt_flow_sink cmp; /* the full comparison (exact round trips), or none */
};

static int dec_block(void *ctx, const struct rvt_block *b)
{
    struct dec_ctx *c = ctx;
    if (c->cmp.block)
        c->cmp.block(c->cmp.ctx, b); /* (its first difference is read at the end) */
    c->res->insns_out += b->ninsns;
    bool nomerge = c->after_gap;
    c->after_gap = false;
    return range_add(&c->got, b->start, b->last + b->last_len, nomerge) < 0;
}

static int dec_note(void *ctx, const struct rvt_note *n)
{
    struct dec_ctx *c = ctx;
    if (c->cmp.note)
        c->cmp.note(c->cmp.ctx, n);
    if (n->kind == RVT_NOTE_ERROR)
        c->res->errors++;
    else if (n->kind == RVT_NOTE_GAP)
        c->res->gaps++;
    else
        return 0;
    c->after_gap = true;
    return 0;
}

static void *cfg_with(const struct rvt_codec *codec, const char *const *opts, unsigned xlen,
                      const struct rvt_image *img, char *msg, size_t msglen)
{
    void *cfg = rvt_codec_cfg_new(codec);
    struct rvt_diag d = {0};
    for (const char *const *o = opts; o && o[0]; o += 2) {
        if (codec->cfg_set(cfg, o[0], o[1], &d) < 0) {
            snprintf(msg, msglen, "--%s %s: %s", o[0], o[1], d.msg);
            rvt_codec_cfg_free(cfg);
            return NULL;
        }
    }
    if (codec->cfg_finish && codec->cfg_finish(cfg, xlen, img, &d) < 0) {
        snprintf(msg, msglen, "options: %s", d.msg);
        rvt_codec_cfg_free(cfg);
        return NULL;
    }
    return cfg;
}

static int decode_to(const struct rvt_codec *codec, const void *cfg, const struct rvt_image *img,
                     const uint8_t *buf, size_t len, struct dec_ctx *c)
{
    struct rvt_flow_sink sink = {.block = dec_block, .note = dec_note, .ctx = c};
    struct rvt_diag d = {0};
    int rc = rvt_decode_buffer(codec, cfg, img, -1, buf, len, &sink, &d);
    if (rc < 0)
        snprintf(c->res->msg, sizeof c->res->msg, "decode: %s", d.msg);
    return rc;
}

/* The expected records for the full comparison, in order. */
struct rec_cursor {
    const struct rvt_recs *recs;
    size_t next;
};

static int pull_rec(void *ctx, struct rvt_ing_rec *r)
{
    struct rec_cursor *k = ctx;
    if (k->next >= k->recs->n)
        return 0;
    *r = k->recs->r[k->next++];
    return 1;
}

static void describe_diff(struct rvt_rt_result *res, const struct ranges *exp, size_t ei, const struct ranges *got,
                          size_t gi, const char *what)
{
    snprintf(res->msg, sizeof res->msg,
             "%s: decoded range %zu [0x%" PRIx64 ", 0x%" PRIx64 ") vs expected range %zu [0x%" PRIx64 ", 0x%" PRIx64
             ") (%zu/%zu decoded ranges, %zu expected)",
             what, gi, gi < got->n ? got->s[gi] : 0, gi < got->n ? got->e[gi] : 0, ei, ei < exp->n ? exp->s[ei] : 0,
             ei < exp->n ? exp->e[ei] : 0, gi, got->n, exp->n);
}

int rvt_roundtrip(const struct rvt_rt_opts *o, const struct rvt_image *img, const struct rvt_recs *recs,
                  struct rvt_rt_result *res, uint8_t **bytes_out, size_t *len_out)
{
    memset(res, 0, sizeof *res);
    const struct rvt_codec *codec = rvt_codec_find(o->format);
    if (!codec) {
        snprintf(res->msg, sizeof res->msg, "no family %s", o->format);
        return -RVT_ERR_INVAL;
    }
    unsigned xlen = rvt_img_xlen(img);
    void *cfg = cfg_with(codec, o->options, xlen, img, res->msg, sizeof res->msg);
    if (!cfg)
        return -RVT_ERR_INVAL;
    struct ranges exp = {.mask = xlen == 32 ? 0xffffffffull : ~0ull};
    struct dec_ctx *c = calloc(1, sizeof *c);
    struct rvt_membuf mb;
    rvt_membuf_init(&mb);
    struct rvt_byte_sink sink = rvt_membuf_sink(&mb);
    void *enc = NULL;
    struct rvt_diag d = {0};
    int rc = codec->enc_new(&enc, cfg, &sink, &d);
    struct rvt_bcache *bc = rvt_bcache_new(img, 0);
    if (rc < 0) {
        snprintf(res->msg, sizeof res->msg, "encoder: %s", d.msg);
        goto out;
    }
    for (size_t i = 0; i < recs->n; i++) {
        const struct rvt_ing_rec *r = &recs->r[i];
        uint64_t k = 0;
        if (r->iretire && rvt_ing_count_insns(r, bc, &k) < 0) {
            snprintf(res->msg, sizeof res->msg, "record %zu does not match the code", i);
            rc = -RVT_ERR_MISMATCH;
            goto out;
        }
        if (!(r->flags & RVT_ING_UNQUALIFIED)) {
            res->insns_in += k;
            range_add(&exp, r->iaddr, rvt_ing_next_addr(r), false);
        }
        if ((rc = codec->enc_put(enc, r)) < 0) {
            snprintf(res->msg, sizeof res->msg, "encode record %zu (0x%" PRIx64 "): %s", i, r->iaddr,
                     codec->enc_error(enc));
            goto out;
        }
    }
    if ((rc = codec->enc_finish(enc)) < 0) {
        snprintf(res->msg, sizeof res->msg, "encode finish: %s", codec->enc_error(enc));
        goto out;
    }
    struct rvt_codec_stats st = {0};
    if (codec->enc_stats)
        codec->enc_stats(enc, &st);
    res->bytes = mb.len;
    res->packets = st.packets;

    size_t from = o->cut < mb.len ? o->cut : (o->cut ? mb.len : 0);
    size_t to = o->truncate && o->truncate < mb.len ? o->truncate : mb.len;
    if (to < from)
        to = from;
    c->res = res;
    c->got.mask = exp.mask;
    /* An exact round trip compares everything the configuration traces
     * (rvt_seqcmp: privilege, timestamps, every data value at full width),
     * not only the instructions. */
    struct rec_cursor cur = {recs, 0};
    struct rvt_seqcmp *cmp = NULL;
    if (!o->cut && !o->truncate) {
        struct rvt_seqcmp_config scfg = {.size = sizeof scfg, .xlen = xlen,
                                         .traced = codec->traced ? codec->traced(cfg) : 0, .image = img};
        cmp = rvt_seqcmp_new_ex(pull_rec, &cur, &scfg);
        if (!cmp) {
            rc = -RVT_ERR_NOMEM;
            goto out;
        }
        c->cmp = rvt_seqcmp_sink(cmp);
        res->traced = scfg.traced;
    }
    rc = decode_to(codec, cfg, img, mb.data + from, to - from, c);
    if (cmp) {
        int crc = rc < 0 ? 0 : rvt_seqcmp_finish(cmp);
        for (unsigned k = 1; k < RVT_CMP__COUNT; k++)
            if (k != RVT_CMP_PRIV)
                res->values += rvt_seqcmp_count(cmp, k);
        if (crc < 0 && rc >= 0) {
            snprintf(res->msg, sizeof res->msg, "%s", rvt_seqcmp_error(cmp));
            rc = -RVT_ERR_MISMATCH;
        }
        rvt_seqcmp_free(cmp);
        if (rc < 0)
            goto out;
    }
    if (rc < 0)
        goto out;
    const struct ranges *got = &c->got;
    rc = 0;
    if (!o->cut && !o->truncate) {
        if (res->errors || res->gaps) {
            snprintf(res->msg, sizeof res->msg, "decoder reported %" PRIu64 " errors and %" PRIu64 " gaps", res->errors,
                     res->gaps);
            rc = -RVT_ERR_MISMATCH;
        } else if (got->n != exp.n || res->insns_out != res->insns_in) {
            size_t i = 0;
            while (i < got->n && i < exp.n && got->s[i] == exp.s[i] && got->e[i] == exp.e[i])
                i++;
            describe_diff(res, &exp, i, got, i, "instruction sequences differ");
            rc = -RVT_ERR_MISMATCH;
        } else {
            for (size_t i = 0; i < exp.n; i++)
                if (got->s[i] != exp.s[i] || got->e[i] != exp.e[i]) {
                    describe_diff(res, &exp, i, got, i, "instruction sequences differ");
                    rc = -RVT_ERR_MISMATCH;
                    break;
                }
        }
    } else if (got->n) {
        /* cut: a tail (the first decoded range may start inside an expected
         * one); truncation: a prefix (the last may end inside one) */
        if (o->cut) {
            if (got->n > exp.n) {
                describe_diff(res, &exp, 0, got, 0, "more decoded ranges than input");
                rc = -RVT_ERR_MISMATCH;
            } else {
                size_t off = exp.n - got->n;
                for (size_t i = 0; i < got->n && !rc; i++) {
                    size_t k = off + i;
                    bool first = i == 0, last = i + 1 == got->n && o->truncate;
                    bool ok = got->e[i] == exp.e[k] || last;
                    ok = ok && (got->s[i] == exp.s[k] ||
                                (first && got->s[i] > exp.s[k] && got->s[i] < exp.e[k]));
                    if (!ok) {
                        describe_diff(res, &exp, k, got, i, "decoded tail differs from the input");
                        rc = -RVT_ERR_MISMATCH;
                    }
                }
            }
        } else {
            for (size_t i = 0; i < got->n && !rc; i++) {
                bool last = i + 1 == got->n;
                if (i >= exp.n || got->s[i] != exp.s[i] || (got->e[i] != exp.e[i] && !(last && got->e[i] < exp.e[i]))) {
                    describe_diff(res, &exp, i, got, i, "decoded prefix differs from the input");
                    rc = -RVT_ERR_MISMATCH;
                }
            }
        }
    }
    if (bytes_out) {
        *bytes_out = mb.data;
        *len_out = mb.len;
        mb.data = NULL;
    }
out:
    if (enc)
        codec->enc_free(enc);
    rvt_bcache_free(bc);
    rvt_membuf_free(&mb);
    ranges_free(&exp);
    if (c)
        ranges_free(&c->got);
    free(c);
    rvt_codec_cfg_free(cfg);
    return rc;
}

int rvt_decode_segments(const struct rvt_rt_opts *o, const struct rvt_image *img, const uint8_t *buf, size_t len,
                        struct rvt_rt_result *res)
{
    memset(res, 0, sizeof *res);
    const struct rvt_codec *codec = rvt_codec_find(o->format);
    if (!codec)
        return -RVT_ERR_INVAL;
    void *cfg = cfg_with(codec, o->options, rvt_img_xlen(img), img, res->msg, sizeof res->msg);
    if (!cfg)
        return -RVT_ERR_INVAL;
    struct dec_ctx *c = calloc(1, sizeof *c);
    c->res = res;
    c->got.mask = rvt_img_xlen(img) == 32 ? 0xffffffffull : ~0ull;
    int rc = decode_to(codec, cfg, img, buf, len, c);
    int nseg = rc < 0 ? rc : (int)(res->errors + res->gaps + 1);
    ranges_free(&c->got);
    free(c);
    rvt_codec_cfg_free(cfg);
    return nseg;
}
