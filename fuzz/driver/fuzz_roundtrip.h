/* Round-trip fuzzing, shared by fuzz_rt_<family>.c: the input picks a
 * generated program and execution (rvt_gen: seed, xlen, features, length)
 * and one of the family's option sets; the execution is encoded, and
 *   1. the decode must equal it: the same instruction addresses in order
 *      (rvt_seqcmp), the same traps (cause, interrupt), no error or gap;
 *   2. the bytes damaged by the rest of the input (bit flips, byte runs
 *      inserted or deleted, a cut) must decode without crashing, within the
 *      instruction limit, with every error saying where;
 *   3. both decodes again with a counting sink (rvt_flow_sink.counts: the
 *      flow engine's counting walk and its memo) must give the same
 *      instructions, blocks and block ends, and the same notes, as the
 *      block by block decode.
 *
 * Option sets whose decode rvt_seqcmp cannot compare (blocks rebuilt without
 * code, whose last address is unknown) or that cannot carry what the
 * generated programs do (dbg without emitpriv loses interrupts) are left out.
 *
 * Input layout (every byte optional; missing ones read as zero):
 *   [0..3]  generator seed (little endian)
 *   [4]     bit 0: RV32; bits 1-3: feature mix; bits 4-7: length (100 + 60 * n instructions)
 *   [5]     bits 0-6: option set (index into the family's table, modulo its size); bit 7: records
 *           merge sequential instructions
 *   [6..]   damage, 4 bytes per step: kind (flip, flip byte, insert, delete, cut), position (2 bytes,
 *           a fraction of the length), value
 */
#ifndef RVT_FUZZ_ROUNDTRIP_H
#define RVT_FUZZ_ROUNDTRIP_H

#include "rvtrace/rvtrace.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One option set: name, value pairs (flags "1"), NULL-terminated. */
struct rvt_fuzz_optset {
    const char *opt[24];
};

/* What is being tried, for the message when a check fails. */
static char rvt_fuzz_rt_what[400];

static inline void rvt_fuzz_rt_check(int cond, const char *what, const char *detail)
{
    if (!cond) {
        fprintf(stderr, "round trip (%s): %s%s%s\n", rvt_fuzz_rt_what, what, detail && detail[0] ? ": " : "",
                detail ? detail : "");
        abort();
    }
}

struct rvt_fuzz_recs {
    struct rvt_ing_rec *r;
    size_t n, cap, next;
    uint64_t traps;
};

static inline int rvt_fuzz_recs_push(void *ctx, const struct rvt_ing_rec *r)
{
    struct rvt_fuzz_recs *v = ctx;
    if (v->n == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 512;
        struct rvt_ing_rec *p = realloc(v->r, cap * sizeof *p);
        if (!p)
            return -RVT_ERR_NOMEM;
        v->r = p;
        v->cap = cap;
    }
    v->r[v->n++] = *r;
    if (r->itype == RVT_ITYPE_EXCEPTION || r->itype == RVT_ITYPE_INTERRUPT)
        v->traps++;
    return 0;
}

static inline int rvt_fuzz_recs_pull(void *ctx, struct rvt_ing_rec *r)
{
    struct rvt_fuzz_recs *v = ctx;
    if (v->next == v->n)
        return 0;
    *r = v->r[v->next++];
    return 1;
}

/* What a decode's blocks and notes add up to (3. above). */
struct rvt_fuzz_sums {
    struct rvt_block_counts blocks;
    uint64_t notes[8];
};

static inline void rvt_fuzz_sum_block(struct rvt_fuzz_sums *s, const struct rvt_block *b)
{
    s->blocks.blocks++;
    s->blocks.insns += b->ninsns;
    s->blocks.ends[b->end & 15]++;
}

static inline void rvt_fuzz_sum_note(struct rvt_fuzz_sums *s, const struct rvt_note *n)
{
    s->notes[n->kind & 7]++;
}

static inline int rvt_fuzz_sums_block(void *ctx, const struct rvt_block *b)
{
    rvt_fuzz_sum_block(ctx, b);
    return 0;
}

static inline int rvt_fuzz_sums_note(void *ctx, const struct rvt_note *n)
{
    rvt_fuzz_sum_note(ctx, n);
    return 0;
}

static inline int rvt_fuzz_sums_counts(void *ctx, const struct rvt_block_counts *c)
{
    struct rvt_fuzz_sums *s = ctx;
    s->blocks.blocks += c->blocks;
    s->blocks.insns += c->insns;
    for (unsigned e = 0; e < 16; e++)
        s->blocks.ends[e] += c->ends[e];
    return 0;
}

/* The decode of (data, len) with a counting sink must add up to `want`. */
static inline void rvt_fuzz_rt_counting(const struct rvt_codec *c, const void *cfg, const struct rvt_image *img,
                                        const struct rvt_decode_options *o, const uint8_t *data, size_t len,
                                        const struct rvt_fuzz_sums *want, const char *which)
{
    struct rvt_fuzz_sums got = {0};
    struct rvt_flow_sink s = {
        .block = rvt_fuzz_sums_block, .note = rvt_fuzz_sums_note, .counts = rvt_fuzz_sums_counts, .ctx = &got};
    struct rvt_diag d = {0};
    (void)rvt_decode(c, cfg, img, o, data, len, &s, &d);
    char detail[200];
    snprintf(detail, sizeof detail, "%s: %llu instructions in %llu blocks, counted %llu in %llu", which,
             (unsigned long long)want->blocks.insns, (unsigned long long)want->blocks.blocks,
             (unsigned long long)got.blocks.insns, (unsigned long long)got.blocks.blocks);
    rvt_fuzz_rt_check(memcmp(&got, want, sizeof got) == 0, "the counting decode differs", detail);
}

/* The clean decode: compared as it goes, plus traps and reports counted. */
struct rvt_fuzz_clean {
    struct rvt_flow_sink cmp;
    uint64_t traps, reports;
    struct rvt_fuzz_sums sums;
    char first[300];
};

static inline int rvt_fuzz_clean_block(void *ctx, const struct rvt_block *b)
{
    struct rvt_fuzz_clean *c = ctx;
    if (b->end == RVT_END_TRAP)
        c->traps++;
    rvt_fuzz_sum_block(&c->sums, b);
    return c->cmp.block(c->cmp.ctx, b);
}

static inline int rvt_fuzz_clean_note(void *ctx, const struct rvt_note *n)
{
    struct rvt_fuzz_clean *c = ctx;
    if (n->kind == RVT_NOTE_TRAP)
        c->traps++;
    rvt_fuzz_sum_note(&c->sums, n);
    if ((n->kind == RVT_NOTE_ERROR || n->kind == RVT_NOTE_GAP) && !c->reports++)
        snprintf(c->first, sizeof c->first, "note %u reason %u at offset 0x%llx: %s", n->kind, n->reason,
                 (unsigned long long)n->offset, n->text ? n->text : "");
    return c->cmp.note ? c->cmp.note(c->cmp.ctx, n) : 0;
}

/* The damaged decode: well-formed blocks, errors with offsets, the limit. */
struct rvt_fuzz_damaged {
    uint64_t insns, limit, len;
    struct rvt_fuzz_sums sums;
};

static inline int rvt_fuzz_damaged_block(void *ctx, const struct rvt_block *b)
{
    struct rvt_fuzz_damaged *d = ctx;
    rvt_fuzz_rt_check(b->ninsns >= 1 && b->end <= RVT_END_GAP, "malformed block", NULL);
    rvt_fuzz_sum_block(&d->sums, b);
    d->insns += b->ninsns;
    rvt_fuzz_rt_check(d->insns <= d->limit, "decoded past the instruction limit", NULL);
    return 0;
}

static inline int rvt_fuzz_damaged_note(void *ctx, const struct rvt_note *n)
{
    struct rvt_fuzz_damaged *d = ctx;
    rvt_fuzz_sum_note(&d->sums, n);
    if (n->kind == RVT_NOTE_ERROR || n->kind == RVT_NOTE_GAP)
        rvt_fuzz_rt_check(n->offset <= d->len, "a report at an offset past the end of the trace", n->text);
    return 0;
}

static inline void *rvt_fuzz_rt_cfg(const struct rvt_codec *c, const struct rvt_fuzz_optset *os, unsigned xlen,
                                    const struct rvt_image *img)
{
    void *cfg = rvt_codec_cfg_new(c);
    struct rvt_diag d = {0};
    for (size_t k = 0; os->opt[k]; k += 2)
        rvt_fuzz_rt_check(c->cfg_set(cfg, os->opt[k], os->opt[k + 1], &d) == 0, "option set", d.msg);
    /* Generated programs trap on ecall (with traps, privilege or context). */
    for (const struct rvt_codec_opt *o = c->options; o && o->name; o++)
        if (strcmp(o->name, "ecall") == 0)
            rvt_fuzz_rt_check(c->cfg_set(cfg, "ecall", "trap", &d) == 0, "--ecall trap", d.msg);
    rvt_fuzz_rt_check(!c->cfg_finish || c->cfg_finish(cfg, xlen, img, &d) == 0, "options", d.msg);
    return cfg;
}

static inline uint8_t rvt_fuzz_byte(const uint8_t *data, size_t size, size_t i)
{
    return i < size ? data[i] : 0;
}

static inline int rvt_fuzz_roundtrip(const struct rvt_codec *c, const struct rvt_fuzz_optset *sets, size_t nsets,
                                     const uint8_t *data, size_t size)
{
    static const uint32_t mixes[8] = {
        RVT_GEN_DEFAULT_FEATURES,
        RVT_GEN_DEFAULT_FEATURES | RVT_GEN_TRAPS,
        RVT_GEN_DEFAULT_FEATURES | RVT_GEN_INTERRUPTS | RVT_GEN_NESTED,
        RVT_GEN_DEFAULT_FEATURES | RVT_GEN_PRIV,
        RVT_GEN_DEFAULT_FEATURES | RVT_GEN_PRIV | RVT_GEN_CONTEXT | RVT_GEN_TRAPS,
        RVT_GEN_DEFAULT_FEATURES | RVT_GEN_TIME | RVT_GEN_DATA,
        RVT_GEN_COMPRESSED | RVT_GEN_LOOPS | RVT_GEN_TABLES,
        RVT_GEN_ALL_FEATURES,
    };
    uint8_t sel = rvt_fuzz_byte(data, size, 4);
    struct rvt_gen_config gc;
    rvt_gen_config_init(&gc);
    gc.seed = 1 + ((uint64_t)rvt_fuzz_byte(data, size, 0) | (uint64_t)rvt_fuzz_byte(data, size, 1) << 8 |
                   (uint64_t)rvt_fuzz_byte(data, size, 2) << 16 | (uint64_t)rvt_fuzz_byte(data, size, 3) << 24);
    gc.xlen = (sel & 1) ? 32 : 64;
    gc.features = mixes[(sel >> 1) & 7];
    gc.insns = 100 + 60u * (sel >> 4);
    /* A small program: generation is most of an execution's cost. */
    gc.functions = 8;
    gc.max_stmts = 10;
    gc.interrupt_interval = 200;
    const struct rvt_fuzz_optset *os = &sets[(rvt_fuzz_byte(data, size, 5) & 0x7f) % nsets];
    const bool merge = (rvt_fuzz_byte(data, size, 5) & 0x80) != 0;

    int w = snprintf(rvt_fuzz_rt_what, sizeof rvt_fuzz_rt_what,
                     "%s, gen seed %llu rv%u features 0x%x %llu instructions%s, options", c->name,
                     (unsigned long long)gc.seed, gc.xlen, gc.features, (unsigned long long)gc.insns,
                     merge ? " merged" : "");
    for (size_t k = 0; os->opt[k] && w > 0 && (size_t)w < sizeof rvt_fuzz_rt_what; k += 2)
        w +=
            snprintf(rvt_fuzz_rt_what + w, sizeof rvt_fuzz_rt_what - (size_t)w, " --%s %s", os->opt[k], os->opt[k + 1]);

    struct rvt_gen_program *p = NULL;
    struct rvt_diag d = {0};
    if (rvt_gen_program_new(&p, &gc, &d) < 0)
        return 0; /* a configuration the generator refuses (none of ours should) */
    struct rvt_image *img = rvt_gen_image(p);
    struct rvt_fuzz_recs recs = {0};
    rvt_fuzz_rt_check(img && rvt_gen_run_ex(p, &gc, merge, rvt_fuzz_recs_push, &recs, &d) == 0,
                      "generating the execution", d.msg);
    void *cfg = rvt_fuzz_rt_cfg(c, os, gc.xlen, img);

    /* Encode. */
    struct rvt_membuf mb;
    rvt_membuf_init(&mb);
    struct rvt_byte_sink sink = rvt_membuf_sink(&mb);
    void *enc = NULL;
    rvt_fuzz_rt_check(c->enc_new(&enc, cfg, &sink, &d) == 0, "encoder", d.msg);
    for (size_t i = 0; i < recs.n; i++)
        rvt_fuzz_rt_check(c->enc_put(enc, &recs.r[i]) == 0, "encode", c->enc_error(enc));
    rvt_fuzz_rt_check(c->enc_finish(enc) == 0, "encode finish", c->enc_error(enc));
    c->enc_free(enc);

    /* 0. The encoder's fast path over runs (enc_put_plain, as text input
     * takes it), in batches of 1 to 300 records (from bytes 0 and 3), the
     * record each run stops at to enc_put: the same bytes. */
    if (c->enc_put_plain) {
        struct rvt_membuf rb;
        rvt_membuf_init(&rb);
        struct rvt_byte_sink rsink = rvt_membuf_sink(&rb);
        rvt_fuzz_rt_check(c->enc_new(&enc, cfg, &rsink, &d) == 0, "encoder", d.msg);
        const size_t batch = 1 + (size_t)(rvt_fuzz_byte(data, size, 0) * 31u + rvt_fuzz_byte(data, size, 3)) % 300;
        for (size_t i = 0; i < recs.n;) {
            const size_t end = i + batch < recs.n ? i + batch : recs.n;
            while (i < end) {
                if ((i += c->enc_put_plain(enc, recs.r + i, end - i)) == end)
                    break;
                rvt_fuzz_rt_check(c->enc_put(enc, &recs.r[i]) == 0, "encode (runs)", c->enc_error(enc));
                i++;
            }
        }
        rvt_fuzz_rt_check(c->enc_finish(enc) == 0, "encode finish (runs)", c->enc_error(enc));
        c->enc_free(enc);
        rvt_fuzz_rt_check(rb.len == mb.len && !memcmp(rb.data, mb.data, mb.len),
                          "the encoder's runs (enc_put_plain) give other bytes than its records one by one", NULL);
        rvt_membuf_free(&rb);
    }

    /* 1. The clean decode equals the execution. */
    struct rvt_seqcmp *cmp = rvt_seqcmp_new(rvt_fuzz_recs_pull, &recs, gc.xlen);
    struct rvt_fuzz_clean cl = {.cmp = rvt_seqcmp_sink(cmp)};
    struct rvt_flow_sink cs = {.block = rvt_fuzz_clean_block, .note = rvt_fuzz_clean_note, .ctx = &cl};
    struct rvt_decode_options o = {.size = sizeof o, .ecall = RVT_FLOW_ECALL_TRAP};
    int drc = rvt_decode(c, cfg, img, &o, mb.data, mb.len, &cs, &d);
    int crc = rvt_seqcmp_finish(cmp);
    rvt_fuzz_rt_check(cl.reports == 0, "the clean decode reports damage", cl.first);
    rvt_fuzz_rt_check(crc == 0, "decoded instructions differ", rvt_seqcmp_error(cmp));
    rvt_fuzz_rt_check(drc == 0, "decode", d.msg);
    rvt_fuzz_rt_check(cl.traps == recs.traps, "decoded traps differ", NULL);
    uint64_t clean_insns = rvt_seqcmp_insns(cmp);
    rvt_seqcmp_free(cmp);
    rvt_fuzz_rt_counting(c, cfg, img, &o, mb.data, mb.len, &cl.sums, "clean");

    /* 2. The damaged decode ends, within the limit. */
    if (size > 6 && mb.len) {
        size_t len = mb.len;
        uint8_t *b = malloc(len + 16 * ((size - 6) / 4 + 1));
        memcpy(b, mb.data, len);
        for (size_t i = 6; i + 3 < size && len; i += 4) {
            size_t at = (size_t)((((uint64_t)data[i + 1] << 8) | data[i + 2]) * len >> 16);
            uint8_t v = data[i + 3];
            switch (data[i] % 5) {
            case 0:
                b[at] ^= (uint8_t)(1u << (v & 7));
                break;
            case 1:
                b[at] ^= 0xff;
                break;
            case 2: { /* insert (v & 15) + 1 bytes of value v */
                size_t k = (v & 15) + 1u;
                memmove(b + at + k, b + at, len - at);
                memset(b + at, v, k);
                len += k;
                break;
            }
            case 3: { /* delete up to (v & 15) + 1 bytes */
                size_t k = (v & 15) + 1u;
                if (k > len - at)
                    k = len - at;
                memmove(b + at, b + at + k, len - at - k);
                len -= k;
                break;
            }
            default:
                len = at;
                break;
            }
        }
        struct rvt_fuzz_damaged dd = {.limit = 4 * clean_insns + 10000, .len = len};
        struct rvt_flow_sink ds = {.block = rvt_fuzz_damaged_block, .note = rvt_fuzz_damaged_note, .ctx = &dd};
        struct rvt_decode_options od = {.size = sizeof od, .ecall = RVT_FLOW_ECALL_TRAP, .max_insns = dd.limit};
        if (rvt_decode(c, cfg, img, &od, b, len, &ds, &d) < 0)
            rvt_fuzz_rt_check(d.msg[0] != 0, "a failed decode without a message", NULL);
        rvt_fuzz_rt_counting(c, cfg, img, &od, b, len, &dd.sums, "damaged");
        free(b);
    }
    rvt_membuf_free(&mb);
    rvt_codec_cfg_free(cfg);
    free(recs.r);
    rvt_img_free(img);
    rvt_gen_program_free(p);
    return 0;
}

#endif
