/* Whole-stream encode and decode through any family: what the CLI, the
 * tests and the benchmarks all run. */
#include "rvtrace/codec.h"
#include "rvtrace/sink.h"
#include "core/encstats.h"
#include "core/decode.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One record to the encoder, counting its instructions. */
static inline int put_record(const struct rvt_codec *c, void *enc, const struct rvt_ing_rec *r,
                             struct rvt_bcache *bc, uint64_t records, uint64_t *insns, struct rvt_diag *d)
{
    uint64_t n = 1; /* one instruction: the usual record */
    if (r->iretire != 1u << r->ilastsize && (r->iretire == 0 || rvt_ing_count_insns(r, bc, &n) < 0))
        n = 0; /* none, or a multi-instruction record without code: count unknown */
    *insns += n;
    int rc = c->enc_put(enc, r);
    if (rc < 0)
        return rvt_fail(d, (enum rvt_err)-rc, "record %" PRIu64 " (iaddr 0x%" PRIx64 "): %s", records, r->iaddr,
                        c->enc_error(enc));
    return 0;
}

/* The records of `in` in short batches to the encoder (enc_put_short),
 * each it does not take, and each full record, to enc_put: 0 at the end
 * of the input, < 0 (d says why) on an error. */
static int encode_short(const struct rvt_codec *c, void *enc, struct rvt_ing_reader *in, struct rvt_bcache *bc,
                        uint64_t *records, uint64_t *insns, struct rvt_diag *d)
{
    struct rvt_ing_short_batch b;
    int rc;
    while ((rc = rvt_ing_next_short(in, &b)) > 0) {
        size_t full = 0;
        for (size_t i = 0; i < b.n; i++) {
            if (b.fast[i].len) {
                const size_t k = c->enc_put_short(enc, b.fast + i, b.n - i, b.priv, b.context);
                *records += k;
                *insns += k;
                if ((i += k) == b.n)
                    break;
            }
            struct rvt_ing_rec one;
            rvt_ing_short_rec(&b, i, &full, &one);
            if ((rc = put_record(c, enc, &one, bc, *records, insns, d)) < 0)
                return rc;
            ++*records;
        }
    }
    if (rc < 0)
        return rvt_fail(d, (enum rvt_err)-rc, "%s", rvt_ing_error(in));
    return 0;
}

int rvt_encode_stream(const struct rvt_codec *c, const void *cfg, struct rvt_ing_reader *in,
                      const struct rvt_image *img, const struct rvt_byte_sink *out, struct rvt_codec_stats *st,
                      struct rvt_diag *d)
{
    void *enc = NULL;
    struct rvt_diag ed = {0};
    memset(st, 0, sizeof *st);
    int rc = c->enc_new(&enc, cfg, out, &ed);
    if (rc < 0)
        return rvt_fail_from(d, &ed, "%s encoder", c->name);
    struct rvt_bcache *bc = img ? rvt_bcache_new(img, 0) : NULL;
    uint64_t records = 0, insns = 0;
    const struct rvt_ing_rec *rs = NULL;
    size_t nb = 0;
    struct rvt_ing_rec one;
    const bool batched = rvt_ing_has_batches(in);
    /* One encoder traces one flow: another hart's records would be sent as
     * if they continued the first hart's, a trace that no decoder reads
     * back.  A family that traces hart changes (dbg: Change Hart) follows
     * one flow through them — a hart's program continued on another — but
     * not harts that run at once, interleaved: a hart that comes back after
     * another ran would continue the other's flow.  (Text read on threads,
     * the batched path, has no harts.) */
    const bool one_hart = !(c->traced && (c->traced(cfg) & RVT_TRACED_HART));
    int hart0 = -1;           /* the last record's hart */
    uint64_t harts_left[1024] = {0}; /* harts < 65536 the flow has left (bit per hart) */
    /* (A record at a time gains nothing from it: enc_put has the same.) */
    size_t (*const put_plain)(void *, const struct rvt_ing_rec *, size_t) = batched ? c->enc_put_plain : NULL;
    /* Text read on threads gives its records in short, as parsed, to an
     * encoder that takes them so: no 88-byte record made for most of them
     * (E-Trace from PC INSN text with --jobs 2: bench/RESULTS.md, "What
     * the lead's twenty-eighth round changed"). */
    if (c->enc_put_short && rvt_ing_has_short(in)) {
        rc = encode_short(c, enc, in, bc, &records, &insns, d);
        goto ended;
    }
    /* In batches where the reader has them (text read on threads hands its
     * records out in place), otherwise a record at a time (one copy). */
    for (;;) {
        if (!batched) {
            if ((rc = rvt_ing_next(in, &one)) <= 0)
                break;
            if (one.hart != hart0 && hart0 >= 0) {
                if (one_hart || (harts_left[one.hart >> 6] >> (one.hart & 63) & 1)) {
                    rc = rvt_fail(d, RVT_ERR_UNSUPPORTED,
                                  "record %" PRIu64 " (iaddr 0x%" PRIx64 ") is hart %u's, after hart %d's: %s; "
                                  "encode one hart's records (--hart N)%s",
                                  records, one.iaddr, one.hart, hart0,
                                  one_hart ? "a trace of this family holds one hart"
                                           : "harts that run at once, interleaved, are not one flow",
                                  one_hart ? " or every hart through a funnel (--funnel)" : "");
                    goto out;
                }
                harts_left[hart0 >> 6] |= 1ull << (hart0 & 63);
            }
            hart0 = one.hart;
            if ((rc = put_record(c, enc, &one, bc, records, &insns, d)) < 0)
                goto out;
            records++;
            continue;
        }
        if ((rc = rvt_ing_next_batch(in, &rs, &nb)) <= 0)
            break;
        if (!put_plain) {
            for (size_t i = 0; i < nb; i++) {
                if ((rc = put_record(c, enc, &rs[i], bc, records, &insns, d)) < 0)
                    goto out;
                records++;
            }
            continue;
        }
        for (size_t i = 0; i < nb; i++) {
            /* The encoder's fast path over the run of one-instruction
             * records, then the record it stops at. */
            size_t k = put_plain(enc, rs + i, nb - i);
            records += k;
            insns += k;
            if ((i += k) == nb)
                break;
            if ((rc = put_record(c, enc, &rs[i], bc, records, &insns, d)) < 0)
                goto out;
            records++;
        }
    }
    if (rc < 0)
        rvt_fail(d, (enum rvt_err)-rc, "%s", rvt_ing_error(in));
ended:
    if (rc < 0)
        goto out;
    rc = c->enc_finish(enc);
    if (rc < 0) {
        rvt_fail(d, (enum rvt_err)-rc, "at the end of the input: %s", c->enc_error(enc));
        goto out;
    }
    if (c->enc_stats)
        c->enc_stats(enc, st);
    st->records = records;
    st->insns = insns;
    rc = 0;
out:
    c->enc_free(enc);
    rvt_bcache_free(bc);
    return rc;
}

int rvt_codec_stats_warning(const struct rvt_codec_stats *st, char *buf, size_t len)
{
    if (!st->misled_returns) {
        if (st->unfed[0])
            return snprintf(buf, len, "%s", st->unfed);
        return len ? (*buf = 0) : 0;
    }
    if (st->unfed[0]) { /* (both: each its own sentence) */
        struct rvt_codec_stats returns_only = *st;
        returns_only.unfed[0] = 0;
        const int n = rvt_codec_stats_warning(&returns_only, buf, len);
        if (n < 0 || (size_t)n >= len)
            return n;
        return n + snprintf(buf + n, len - (size_t)n, ".  Also %s", st->unfed);
    }
    /* The spec's counting mode: "will work as long as programs are 'well
     * behaved' ... any program that modifies return addresses cannot be
     * traced using this mode" (N-Trace, Implicit Return). */
    return snprintf(buf, len,
                    "%" PRIu64 " return%s did not go back to %s caller%s (the first: the return at 0x%" PRIx64
                    ", instruction %" PRIu64 ", went to 0x%" PRIx64 "; the call stack predicts 0x%" PRIx64
                    ").  The counting implicit return (callstack-mode count) sends no message for %s, so every "
                    "decoder follows %s to the predicted address: the spec's counting mode works only for programs "
                    "whose returns go back to their callers (no longjmp, exceptions or changed return addresses); "
                    "callstack-mode addr traces every program",
                    st->misled_returns, st->misled_returns == 1 ? "" : "s", st->misled_returns == 1 ? "its" : "their",
                    st->misled_returns == 1 ? "" : "s", st->misled_at, st->misled_insns, st->misled_to,
                    st->misled_predicted, st->misled_returns == 1 ? "it" : "them",
                    st->misled_returns == 1 ? "it" : "them");
}

uint64_t rvt_decode_default_limit(size_t trace_bytes)
{
    uint64_t per = (uint64_t)trace_bytes;
    if (per > (UINT64_MAX - RVT_DECODE_LIMIT_BASE) / RVT_DECODE_LIMIT_PER_BYTE)
        return RVT_DECODE_UNLIMITED;
    return RVT_DECODE_LIMIT_BASE + per * RVT_DECODE_LIMIT_PER_BYTE;
}

/* The flow configuration of a decode of a len-byte buffer (rvt_decode, and
 * the threaded decode's engines: core/decode.h). */
int rvt_decode_flow_config(const struct rvt_codec *c, const void *cfg, const struct rvt_image *img,
                           const struct rvt_decode_options *opt, size_t len, const struct rvt_flow_sink *sink,
                           struct rvt_flow_config *out, struct rvt_diag *d)
{
    struct rvt_decode_options o = {.size = sizeof o, .ecall = -1};
    if (opt) {
        /* (A caller built before starts_at_trace_start passes a smaller
         * struct: the fields it has are copied, the rest keep defaults.) */
        const size_t first = offsetof(struct rvt_decode_options, max_insns) + sizeof o.max_insns;
        if (opt->size < first)
            return rvt_fail(d, RVT_ERR_INVAL, "struct rvt_decode_options: size %zu, expected %zu", opt->size,
                            sizeof o);
        memcpy(&o, opt, opt->size < sizeof o ? opt->size : sizeof o);
    }
    struct rvt_flow_config fc;
    memset(&fc, 0, sizeof fc);
    fc.size = sizeof fc;
    /* (A family whose own options describe a wrapped buffer clears it:
     * flow_config, or rvt_flow_buffer_wrapped once it knows.) */
    fc.starts_at_trace_start = o.starts_at_trace_start;
    if (c->flow_config)
        c->flow_config(cfg, &fc);
    fc.size = sizeof fc;
    fc.image = img;
    fc.sink = *sink;
    if (o.ecall >= 0)
        fc.ecall = (enum rvt_flow_ecall)o.ecall;
    uint64_t lim = o.max_insns ? o.max_insns : rvt_decode_default_limit(len);
    fc.max_insns = lim == RVT_DECODE_UNLIMITED ? 0 : lim;
    fc.progress = o.progress;
    fc.progress_ctx = o.progress_ctx;
    fc.progress_every = o.progress_every;
    *out = fc;
    return 0;
}

/* The whole trace (seg NULL) or one segment of it. */
static int decode_range(const struct rvt_codec *c, const void *cfg, const struct rvt_image *img,
                        const struct rvt_decode_options *opt, const uint8_t *buf, size_t len,
                        const struct rvt_trace_segment *seg, const struct rvt_flow_sink *sink, struct rvt_diag *d)
{
    struct rvt_flow_config fc;
    int src = rvt_decode_flow_config(c, cfg, img, opt, len, sink, &fc, d);
    if (src < 0)
        return src;
    struct rvt_flow *f = rvt_flow_new(&fc);
    if (!f)
        return rvt_fail(d, RVT_ERR_NOMEM, "cannot create the flow engine (image and xlen needed)");
    void *dec = NULL;
    struct rvt_diag dd = {0};
    int rc = c->dec_new(&dec, cfg, f, &dd);
    if (rc < 0) {
        rvt_flow_free(f);
        return rvt_fail_from(d, &dd, "%s decoder", c->name);
    }
    if (!seg || !c->dec_run_segment)
        rc = c->dec_run(dec, buf, len);
    else
        rc = c->dec_run_segment(dec, buf, len, (size_t)seg->offset, (size_t)seg->end);
    /* The limit ends a decode the way the end of the trace does: the note
     * says where, whatever the decoder made of the error. */
    if (rc < 0 && rvt_flow_limit_reached(f))
        rc = 0;
    if (rc < 0)
        rvt_fail(d, (enum rvt_err)-rc, "%s", c->dec_error(dec));
    c->dec_free(dec);
    rvt_flow_free(f);
    return rc < 0 ? rc : 0;
}

int rvt_decode(const struct rvt_codec *c, const void *cfg, const struct rvt_image *img,
               const struct rvt_decode_options *opt, const uint8_t *buf, size_t len, const struct rvt_flow_sink *sink,
               struct rvt_diag *d)
{
    return decode_range(c, cfg, img, opt, buf, len, NULL, sink, d);
}

int rvt_decode_segment(const struct rvt_codec *c, const void *cfg, const struct rvt_image *img,
                       const struct rvt_decode_options *opt, const uint8_t *buf, size_t len,
                       const struct rvt_trace_segment *s, const struct rvt_flow_sink *sink, struct rvt_diag *d)
{
    if (s->offset > s->end || s->end > len)
        return rvt_fail(d, RVT_ERR_INVAL, "segment 0x%" PRIx64 "..0x%" PRIx64 " is not inside the %zu-byte trace",
                        s->offset, s->end, len);
    /* A family without segments has one, the whole trace. */
    if (!c->dec_run_segment && (s->offset != 0 || s->end != len))
        return rvt_fail(d, RVT_ERR_UNSUPPORTED, "%s traces are not decoded in segments", c->name);
    return decode_range(c, cfg, img, opt, buf, len, s, sink, d);
}

int rvt_decode_buffer(const struct rvt_codec *c, const void *cfg, const struct rvt_image *img, int ecall,
                      const uint8_t *buf, size_t len, const struct rvt_flow_sink *sink, struct rvt_diag *d)
{
    struct rvt_decode_options o = {.size = sizeof o, .ecall = ecall};
    return rvt_decode(c, cfg, img, &o, buf, len, sink, d);
}

int rvt_encode_funnel(const struct rvt_codec *c, rvt_make_cfg_fn make_cfg, void *ctx, struct rvt_ing_reader *in,
                      const struct rvt_image *img, const struct rvt_byte_sink *out, unsigned max_harts,
                      struct rvt_codec_stats *st, struct rvt_codec_stats *per_hart, struct rvt_diag *d)
{
    if (max_harts == 0 || max_harts > RVT_FUNNEL_MAX_INPUTS)
        max_harts = RVT_FUNNEL_MAX_INPUTS;
    struct rvt_funnel *fun = NULL;
    struct rvt_funnel_config fc = {.size = sizeof fc, .n_inputs = max_harts, .out = *out};
    int rc = rvt_funnel_new(&fc, &fun, d);
    if (rc < 0)
        return rc;
    rc = rvt_encode_funnel_via(c, make_cfg, ctx, in, img, fun, st, per_hart, d);
    rvt_funnel_free(fun);
    return rc;
}

int rvt_encode_funnel_via(const struct rvt_codec *c, rvt_make_cfg_fn make_cfg, void *ctx, struct rvt_ing_reader *in,
                          const struct rvt_image *img, struct rvt_funnel *fun, struct rvt_codec_stats *st,
                          struct rvt_codec_stats *per_hart, struct rvt_diag *d)
{
    enum { MAX = RVT_FUNNEL_MAX_INPUTS };
    const unsigned max_harts = rvt_funnel_n_inputs(fun);
    memset(st, 0, sizeof *st);
    void *enc[MAX] = {0}, *cfg[MAX] = {0};
    uint64_t insns[MAX] = {0}, records[MAX] = {0};
    int rc;
    struct rvt_bcache *bc = img ? rvt_bcache_new(img, 0) : NULL;
    struct rvt_ing_rec r;
    uint64_t n = 0;
    while ((rc = rvt_ing_next(in, &r)) > 0) {
        unsigned h = r.hart;
        if (h >= max_harts) {
            rc = rvt_fail(d, RVT_ERR_UNSUPPORTED, "record %" PRIu64 ": hart %u, but the funnel has %u inputs", n, h,
                          max_harts);
            goto out;
        }
        if (!enc[h]) {
            struct rvt_diag ed = {0};
            cfg[h] = make_cfg(ctx, h, &ed);
            if (!cfg[h]) {
                rc = rvt_fail_from(d, &ed, "hart %u", h);
                goto out;
            }
            struct rvt_byte_sink s = rvt_funnel_input(fun, h);
            if ((rc = c->enc_new(&enc[h], cfg[h], &s, &ed)) < 0) {
                rvt_fail_from(d, &ed, "%s encoder for hart %u", c->name, h);
                goto out;
            }
        }
        uint64_t k = 0;
        if (r.iretire && rvt_ing_count_insns(&r, bc, &k) < 0)
            k = 0;
        insns[h] += k;
        records[h]++;
        if ((rc = c->enc_put(enc[h], &r)) < 0) {
            rvt_fail(d, (enum rvt_err)-rc, "record %" PRIu64 " (hart %u, iaddr 0x%" PRIx64 "): %s", n, h, r.iaddr,
                     c->enc_error(enc[h]));
            goto out;
        }
        n++;
    }
    if (rc < 0) {
        rvt_fail(d, (enum rvt_err)-rc, "%s", rvt_ing_error(in));
        goto out;
    }
    for (unsigned h = 0; h < max_harts; h++) {
        if (!enc[h])
            continue;
        if ((rc = c->enc_finish(enc[h])) < 0) {
            rvt_fail(d, (enum rvt_err)-rc, "hart %u at the end of the input: %s", h, c->enc_error(enc[h]));
            goto out;
        }
        rvt_hart_stats_add(c, enc[h], insns[h], records[h], per_hart ? &per_hart[h] : NULL, st);
    }
    rc = rvt_funnel_flush(fun);
    if (rc < 0)
        rvt_fail(d, (enum rvt_err)-rc, "funnel flush failed");
    else
        rc = 0;
out:
    for (unsigned h = 0; h < max_harts; h++) {
        if (enc[h])
            c->enc_free(enc[h]);
        if (cfg[h])
            rvt_codec_cfg_free(cfg[h]);
    }
    rvt_bcache_free(bc);
    return rc;
}
