/* Which family and framing do these bytes look like?  When a decode finds
 * nothing, or errors from the start, every family (and each framing variant
 * its codec lists) decodes the first few KiB: if another one decodes
 * instructions without an error, the user gets a hint instead of a wall of
 * errors.  Generic: it asks the codec table, not per-family rules. */
#include "rvtrace/analysis.h"
#include "rvtrace/codec.h"

#include <stdlib.h>
#include <string.h>

struct tally {
    uint64_t insns, syncs, errors;
};

static int t_block(void *ctx, const struct rvt_block *b)
{
    ((struct tally *)ctx)->insns += b->ninsns;
    return 0;
}

static int t_note(void *ctx, const struct rvt_note *n)
{
    struct tally *t = ctx;
    if (n->kind == RVT_NOTE_SYNC)
        t->syncs++;
    /* Only errors count: the prefix ends where it was cut (usually inside
     * a unit, which some families report as lost trace), and the trial's
     * own limit is not damage. */
    else if (n->kind == RVT_NOTE_ERROR)
        t->errors++;
    return 0;
}

/* Decode the prefix with one configuration. */
static void trial(const struct rvt_codec *c, const void *cfg, const struct rvt_image *img, int ecall,
                  const uint8_t *buf, size_t len, struct tally *t)
{
    memset(t, 0, sizeof *t);
    struct rvt_flow_sink sink = {.block = t_block, .note = t_note, .ctx = t};
    struct rvt_decode_options o = {.size = sizeof o, .ecall = ecall, .max_insns = 1u << 20};
    struct rvt_diag d = {0};
    if (rvt_decode(c, cfg, img, &o, buf, len, &sink, &d) < 0 && !t->errors)
        t->errors = 1; /* a strict or failed decode is not a clean one */
}

/* A configuration of family c with `opt` ("name=value", or NULL): a copy of
 * `base` (the user's, so that its other options stay) or the defaults.
 * Configurations are plain structs (rvt_codec_cfg_free is free()). */
static void *config(const struct rvt_codec *c, const void *base, const char *opt, const struct rvt_image *img)
{
    void *cfg = base ? malloc(c->cfg_size ? c->cfg_size : 1) : rvt_codec_cfg_new(c);
    if (!cfg)
        return NULL;
    if (base)
        memcpy(cfg, base, c->cfg_size);
    struct rvt_diag d = {0};
    if (opt) {
        char key[64];
        const char *eq = strchr(opt, '=');
        size_t n = eq ? (size_t)(eq - opt) : strlen(opt);
        if (n >= sizeof key)
            n = sizeof key - 1;
        memcpy(key, opt, n);
        key[n] = 0;
        if (c->cfg_set(cfg, key, eq ? eq + 1 : "1", &d) < 0)
            goto fail;
    }
    if (c->cfg_finish && c->cfg_finish(cfg, rvt_img_xlen(img), img, &d) < 0)
        goto fail;
    return cfg;
fail:
    rvt_codec_cfg_free(cfg);
    return NULL;
}

int rvt_decode_probe(const struct rvt_codec *c, const void *cfg, const struct rvt_image *img, int ecall,
                     const uint8_t *buf, size_t len, struct rvt_probe_result *res, struct rvt_diag *d)
{
    (void)d;
    memset(res, 0, sizeof *res);
    res->bytes = len < RVT_PROBE_BYTES ? len : RVT_PROBE_BYTES;
    if (!res->bytes)
        return 0;
    struct tally cur, t;
    trial(c, cfg, img, ecall, buf, res->bytes, &cur);
    res->cur_insns = cur.insns;
    res->cur_errors = cur.errors;
    if (cur.errors == 0 && cur.insns > 0)
        return 0; /* the chosen one is fine here: the damage is further on */
    int found = 0;
    for (const struct rvt_codec *const *k = rvt_codec_list(); *k; k++) {
        const struct rvt_codec *o = *k;
        size_t nv = 0;
        while (o->probe_options && o->probe_options[nv])
            nv++;
        for (size_t v = 0; v <= nv; v++) { /* the defaults, then each variant */
            const char *opt = v ? o->probe_options[v - 1] : NULL;
            if (o == c && !opt)
                continue; /* a hint must name what to change */
            void *oc = o == c ? config(o, cfg, opt, img) : NULL;
            if (!oc)
                oc = config(o, NULL, opt, img);
            if (!oc)
                continue;
            /* The user's ecall choice only applies to the same family. */
            trial(o, oc, img, o == c ? ecall : -1, buf, res->bytes, &t);
            rvt_codec_cfg_free(oc);
            if (t.errors || !t.insns || t.insns <= cur.insns)
                continue;
            if (!found || t.insns > res->insns) {
                res->codec = o;
                res->option = opt;
                res->insns = t.insns;
                res->syncs = t.syncs;
                found = 1;
            }
        }
    }
    return found;
}
