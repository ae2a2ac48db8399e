/* Round-trip helpers (see rt.h). */
#include "rt.h"
#include "etrace/encoder.h"
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct rvt_codec rvt_codec_etrace;

void *rt_config(const char *const *opts, unsigned xlen, const struct rvt_image *img, char *err, size_t errlen)
{
    const struct rvt_codec *c = &rvt_codec_etrace;
    void *cfg = rvt_codec_cfg_new(c);
    struct rvt_diag d = {0};
    for (const char *const *o = opts; o && o[0]; o += 2) {
        if (c->cfg_set(cfg, o[0], o[1], &d) < 0) {
            snprintf(err, errlen, "option %s %s: %s", o[0], o[1], d.msg);
            rvt_codec_cfg_free(cfg);
            return NULL;
        }
    }
    if (c->cfg_finish(cfg, xlen, img, &d) < 0) {
        snprintf(err, errlen, "options: %s", d.msg);
        rvt_codec_cfg_free(cfg);
        return NULL;
    }
    return cfg;
}

static int encode(void *cfg, const struct rvt_ing_rec *recs, size_t n, unsigned runs, bool general, bool shorts,
                  struct rt_result *res, char *err, size_t errlen)
{
    const struct rvt_codec *c = &rvt_codec_etrace;
    struct rvt_membuf m;
    rvt_membuf_init(&m);
    struct rvt_byte_sink sink = rvt_membuf_sink(&m);
    void *enc;
    struct rvt_diag d = {0};
    if (c->enc_new(&enc, cfg, &sink, &d) < 0) {
        snprintf(err, errlen, "enc_new: %s", d.msg);
        rvt_membuf_free(&m);
        return -1;
    }
    if (general)
        et_enc_set_general_only(enc);
    /* runs != 0: as rvt_encode_stream takes batches, through the
     * encoder's fast path over runs (enc_put_plain), in batches of 1 to
     * `runs` records (a pseudo-random length from the seed), the record
     * it stops at to enc_put */
    uint64_t rnd = runs * 0x9e3779b97f4a7c15ull + 1;
    /* shorts: as rvt_encode_stream feeds a reader's short batches: the
     * records that can be put in short (with the priv and context of the
     * batch's first record) through enc_put_short, the others, and the
     * one it stops at, to enc_put */
    struct rvt_ing_fast *fs = shorts ? malloc((n ? n : 1) * sizeof *fs) : NULL;
    uint8_t priv = 0;
    uint64_t context = 0;
    for (size_t i = 0, end = 0; i < n; i++) {
        if (runs && shorts) {
            if (i >= end) {
                rnd = rnd * 6364136223846793005ull + 1442695040888963407ull;
                end = i + 1 + (size_t)((rnd >> 33) % runs);
                if (end > n)
                    end = n;
                priv = recs[i].priv;
                context = recs[i].context;
                for (size_t k = i; k < end; k++)
                    fs[k] = rvt_test_in_short(&recs[k], priv, context);
            }
            if (fs[i].len && (i += c->enc_put_short(enc, fs + i, end - i, priv, context)) == end) {
                i--; /* (the batch taken: the next one) */
                continue;
            }
        } else if (runs) {
            if (i >= end) {
                rnd = rnd * 6364136223846793005ull + 1442695040888963407ull;
                end = i + 1 + (size_t)((rnd >> 33) % runs);
                if (end > n)
                    end = n;
            }
            if ((i += c->enc_put_plain(enc, recs + i, end - i)) == end) {
                i--; /* (the batch taken: the next one) */
                continue;
            }
        }
        if (c->enc_put(enc, &recs[i]) < 0) {
            snprintf(err, errlen, "record %zu (iaddr 0x%llx): %s", i, (unsigned long long)recs[i].iaddr,
                     c->enc_error(enc));
            c->enc_free(enc);
            rvt_membuf_free(&m);
            free(fs);
            return -1;
        }
    }
    free(fs);
    if (c->enc_finish(enc) < 0) {
        snprintf(err, errlen, "finish: %s", c->enc_error(enc));
        c->enc_free(enc);
        rvt_membuf_free(&m);
        return -1;
    }
    struct rvt_codec_stats st;
    c->enc_stats(enc, &st);
    res->packets = st.packets;
    c->enc_free(enc);
    res->bytes = m.data;
    res->nbytes = m.len;
    return 0;
}

int rt_encode(void *cfg, const struct rvt_ing_rec *recs, size_t n, struct rt_result *res, char *err, size_t errlen)
{
    return encode(cfg, recs, n, 0, false, false, res, err, errlen);
}

int rt_encode_runs(void *cfg, const struct rvt_ing_rec *recs, size_t n, unsigned runs, struct rt_result *res, char *err,
                   size_t errlen)
{
    return encode(cfg, recs, n, runs, false, false, res, err, errlen);
}

int rt_encode_general(void *cfg, const struct rvt_ing_rec *recs, size_t n, struct rt_result *res, char *err,
                      size_t errlen)
{
    return encode(cfg, recs, n, 0, true, false, res, err, errlen);
}

int rt_encode_shorts(void *cfg, const struct rvt_ing_rec *recs, size_t n, unsigned runs, struct rt_result *res,
                     char *err, size_t errlen)
{
    return encode(cfg, recs, n, runs, false, true, res, err, errlen);
}

static int on_pc(void *ctx, uint64_t pc, const struct rvt_block *b)
{
    (void)b;
    struct rt_result *r = ctx;
    if (r->npcs == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 4096;
        r->pcs = realloc(r->pcs, r->cap * sizeof *r->pcs);
        if (!r->pcs)
            abort();
    }
    r->pcs[r->npcs++] = pc;
    return 0;
}

static int on_block(void *ctx, const struct rvt_block *b)
{
    struct rt_result *r = ctx;
    if (b->end == RVT_END_TRAP && r->ntraps < 64) {
        r->trap_epc[r->ntraps] = b->cf == RVT_CF_NONE ? b->last + b->last_len : ~0ull;
        r->trap_cause[r->ntraps++] = b->cause;
    }
    return rvt_block_insns(r->bc, r->xlen, b, on_pc, r) < 0 ? 1 : 0;
}

static int on_note(void *ctx, const struct rvt_note *n)
{
    struct rt_result *r = ctx;
    if (n->kind == RVT_NOTE_ERROR) {
        if (!r->errors) {
            snprintf(r->first_error, sizeof r->first_error, "offset 0x%llx: %s", (unsigned long long)n->offset,
                     n->text ? n->text : "?");
            r->first_error_offset = n->offset;
        }
        r->errors++;
    } else if (n->kind == RVT_NOTE_GAP) {
        r->gaps++;
        r->ends += n->reason == RVT_GAP_END;
    } else if (n->kind == RVT_NOTE_SYNC) {
        r->syncs++;
    } else if (n->kind == RVT_NOTE_TRAP && r->ntraps < 64) {
        r->trap_epc[r->ntraps] = n->addr;
        r->trap_cause[r->ntraps++] = (uint32_t)n->value;
    }
    return 0;
}

int rt_decode(void *cfg, const struct rvt_image *img, int ecall, const uint8_t *buf, size_t len,
              struct rt_result *res, char *err, size_t errlen)
{
    res->xlen = rvt_img_xlen(img);
    res->bc = rvt_bcache_new(img, 0);
    struct rvt_flow_sink sink = {.block = on_block, .note = on_note, .ctx = res};
    struct rvt_diag d = {0};
    int rc = rvt_decode_buffer(&rvt_codec_etrace, cfg, img, ecall, buf, len, &sink, &d);
    rvt_bcache_free(res->bc);
    res->bc = NULL;
    if (rc < 0) {
        snprintf(err, errlen, "decode: %s", d.msg);
        return -1;
    }
    return 0;
}

void rt_free(struct rt_result *res)
{
    free(res->bytes);
    free(res->pcs);
    memset(res, 0, sizeof *res);
}

size_t rt_first_diff(const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
    size_t n = na < nb ? na : nb;
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return i;
    return na == nb ? na : n;
}
