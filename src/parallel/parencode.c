/* Parallel per-hart encode through a funnel (docs/parallel.md).
 *
 * The serial encode (rvt_encode_funnel_via) hands each record to its
 * hart's encoder, which writes whole packets into its funnel input at
 * once, so the funnel's output is the encoders' writes in record order.
 * The encoders are independent (one per hart, own state), so here each
 * hart's records of a batch are encoded on a worker thread into a capture
 * that remembers which record every write belongs to; the calling thread
 * then replays the writes into the funnel in record order.  The output is
 * the serial one byte for byte as long as the funnel's output takes every
 * byte: an encoder that learns of a refused write (a full RAM in stop
 * mode) reacts to it, which a capture cannot reproduce, so a refused
 * replay is an error (use jobs = 1 there).  Memory: a batch of records
 * and their packets. */
#define _GNU_SOURCE /* sched_getaffinity */
#include "rvtrace/codec.h"
#include "rvtrace/sink.h"
#include "core/encstats.h"

#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { BATCH = 1 << 16, MAXH = RVT_FUNNEL_MAX_INPUTS };

struct wr {
    uint64_t seq; /* the record being encoded (UINT64_MAX: the encoder's finish) */
    size_t len;
};

/* One hart: its encoder and the writes of the current batch. */
struct hart {
    const struct rvt_codec *c;
    void *enc, *cfg;
    struct rvt_membuf bytes;
    struct wr *w;
    size_t nw, capw, cursor, off;
    uint64_t cur_seq;
    uint64_t insns, records;
    int err;          /* the first enc_put error of the batch */
    uint64_t err_seq; /* ...at this record */
    char err_text[400];
};

static long capture(void *ctx, const uint8_t *p, size_t n)
{
    struct hart *h = ctx;
    if (h->nw == h->capw) {
        size_t cap = h->capw ? 2 * h->capw : 256;
        struct wr *w = realloc(h->w, cap * sizeof *w);
        if (!w)
            return -RVT_ERR_NOMEM;
        h->w = w;
        h->capw = cap;
    }
    if (rvt_membuf_append(&h->bytes, p, n) < 0)
        return -RVT_ERR_NOMEM;
    h->w[h->nw++] = (struct wr){h->cur_seq, n};
    return (long)n;
}

struct job {
    struct hart *harts;
    unsigned nharts, jobs, me;
    const struct rvt_ing_rec *recs;
    size_t n;
    uint64_t seq0;
    const struct rvt_image *img;
};

static void *worker(void *arg)
{
    struct job *j = arg;
    struct rvt_bcache *bc = j->img ? rvt_bcache_new(j->img, 0) : NULL;
    for (unsigned hn = j->me; hn < j->nharts; hn += j->jobs) {
        struct hart *h = &j->harts[hn];
        if (!h->enc || h->err)
            continue;
        for (size_t i = 0; i < j->n; i++) {
            const struct rvt_ing_rec *r = &j->recs[i];
            if (r->hart != hn)
                continue;
            uint64_t k = 0;
            if (r->iretire && rvt_ing_count_insns(r, bc, &k) < 0)
                k = 0; /* (as the serial encode counts) */
            h->insns += k;
            h->records++;
            h->cur_seq = j->seq0 + i;
            int rc = h->c->enc_put(h->enc, r);
            if (rc < 0) {
                h->err = rc;
                h->err_seq = j->seq0 + i;
                snprintf(h->err_text, sizeof h->err_text, "%s", h->c->enc_error(h->enc));
                break;
            }
        }
    }
    rvt_bcache_free(bc);
    return NULL;
}

/* Replay hart h's writes of record seq into its funnel input. */
static int replay(struct hart *h, struct rvt_byte_sink *in, uint64_t seq, struct rvt_diag *d)
{
    while (h->cursor < h->nw && h->w[h->cursor].seq == seq) {
        const struct wr *w = &h->w[h->cursor++];
        long r = in->write(in->ctx, h->bytes.data + h->off, w->len);
        h->off += w->len;
        if (r < 0)
            return rvt_fail(d, (enum rvt_err)-r, "writing the trace: %s", rvt_errstr((int)r));
        if ((size_t)r != w->len)
            return rvt_fail(d, RVT_ERR_UNSUPPORTED,
                            "the funnel's output refused %zu bytes: a parallel encode needs an output that takes "
                            "every byte (encode with one job into a RAM sink)",
                            w->len - (size_t)r);
    }
    return 0;
}

static void batch_reset(struct hart *h)
{
    h->bytes.len = 0;
    h->nw = h->cursor = h->off = 0;
}

unsigned rvt_jobs_default(void)
{
#ifdef CPU_COUNT
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) {
        int n = CPU_COUNT(&set);
        return n > 64 ? 64 : (unsigned)n;
    }
#endif
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 64 ? 64 : (unsigned)n;
}

int rvt_encode_funnel_jobs(const struct rvt_codec *c, rvt_make_cfg_fn make_cfg, void *ctx, struct rvt_ing_reader *in,
                           const struct rvt_image *img, const struct rvt_byte_sink *out, unsigned max_harts,
                           unsigned jobs, struct rvt_codec_stats *st, struct rvt_codec_stats *per_hart,
                           struct rvt_diag *d)
{
    if (jobs == 0)
        jobs = rvt_jobs_default();
    if (jobs == 1)
        return rvt_encode_funnel(c, make_cfg, ctx, in, img, out, max_harts, st, per_hart, d);
    if (max_harts == 0 || max_harts > MAXH)
        max_harts = MAXH;
    if (jobs > max_harts)
        jobs = max_harts;
    memset(st, 0, sizeof *st);
    struct rvt_funnel *fun = NULL;
    struct rvt_funnel_config fc = {.size = sizeof fc, .n_inputs = max_harts, .out = *out};
    int rc = rvt_funnel_new(&fc, &fun, d);
    if (rc < 0)
        return rc;
    struct hart harts[MAXH];
    memset(harts, 0, sizeof harts);
    struct rvt_byte_sink fin[MAXH];
    for (unsigned h = 0; h < max_harts; h++) {
        harts[h].c = c;
        rvt_membuf_init(&harts[h].bytes);
        fin[h] = rvt_funnel_input(fun, h);
    }
    struct rvt_ing_rec *recs = malloc(BATCH * sizeof *recs);
    if (!recs) {
        rc = rvt_fail(d, RVT_ERR_NOMEM, "out of memory");
        goto out;
    }
    uint64_t seq0 = 0;
    int end_rc = 1; /* what stopped the reading: 0 the end, <0 an error (end_diag) */
    struct rvt_diag end_diag = {0};
    while (end_rc > 0) {
        /* Read a batch; encoders are made in record order, as serially. */
        size_t n = 0;
        while (n < BATCH) {
            int r = rvt_ing_next(in, &recs[n]);
            if (r <= 0) {
                end_rc = r;
                if (r < 0)
                    rvt_fail(&end_diag, (enum rvt_err)-r, "%s", rvt_ing_error(in));
                break;
            }
            unsigned h = recs[n].hart;
            if (h >= max_harts) {
                end_rc = rvt_fail(&end_diag, RVT_ERR_UNSUPPORTED, "record %" PRIu64 ": hart %u, but the funnel has %u inputs",
                                  seq0 + n, h, max_harts);
                break;
            }
            if (!harts[h].enc) {
                struct rvt_diag ed = {0};
                harts[h].cfg = make_cfg(ctx, h, &ed);
                if (!harts[h].cfg) {
                    end_rc = rvt_fail_from(&end_diag, &ed, "hart %u", h);
                    break;
                }
                struct rvt_byte_sink cs = {capture, &harts[h]};
                harts[h].cur_seq = seq0 + n;
                if ((r = c->enc_new(&harts[h].enc, harts[h].cfg, &cs, &ed)) < 0) {
                    end_rc = rvt_fail_from(&end_diag, &ed, "%s encoder for hart %u", c->name, h);
                    break;
                }
            }
            n++;
        }
        pthread_t tid[MAXH];
        struct job jb[MAXH];
        unsigned started = 0;
        for (unsigned t = 0; t < jobs; t++) {
            jb[t] = (struct job){harts, max_harts, jobs, t, recs, n, seq0, img};
            if (t + 1 < jobs && pthread_create(&tid[t], NULL, worker, &jb[t]) == 0)
                started |= 1u << t;
            else
                worker(&jb[t]); /* the last share (or a thread that could not start) runs here */
        }
        for (unsigned t = 0; t < jobs; t++)
            if (started >> t & 1)
                pthread_join(tid[t], NULL);
        /* Replay in record order, up to the first failing record. */
        for (size_t i = 0; i < n; i++) {
            struct hart *h = &harts[recs[i].hart];
            if ((rc = replay(h, &fin[recs[i].hart], seq0 + i, d)) < 0)
                goto out;
            if (h->err && h->err_seq == seq0 + i) {
                rc = rvt_fail(d, (enum rvt_err)-h->err, "record %" PRIu64 " (hart %u, iaddr 0x%" PRIx64 "): %s",
                              seq0 + i, recs[i].hart, recs[i].iaddr, h->err_text);
                goto out;
            }
        }
        for (unsigned h = 0; h < max_harts; h++)
            batch_reset(&harts[h]);
        seq0 += n;
    }
    if (end_rc < 0) {
        *d = end_diag;
        rc = end_rc;
        goto out;
    }
    for (unsigned h = 0; h < max_harts; h++) {
        struct hart *hh = &harts[h];
        if (!hh->enc)
            continue;
        hh->cur_seq = UINT64_MAX;
        if ((rc = c->enc_finish(hh->enc)) < 0) {
            rvt_fail(d, (enum rvt_err)-rc, "hart %u at the end of the input: %s", h, c->enc_error(hh->enc));
            goto out;
        }
        if ((rc = replay(hh, &fin[h], UINT64_MAX, d)) < 0)
            goto out;
        rvt_hart_stats_add(c, hh->enc, hh->insns, hh->records, per_hart ? &per_hart[h] : NULL, st);
    }
    rc = rvt_funnel_flush(fun);
    if (rc < 0)
        rvt_fail(d, (enum rvt_err)-rc, "funnel flush failed");
    else
        rc = 0;
out:
    for (unsigned h = 0; h < max_harts; h++) {
        if (harts[h].enc)
            c->enc_free(harts[h].enc);
        if (harts[h].cfg)
            rvt_codec_cfg_free(harts[h].cfg);
        rvt_membuf_free(&harts[h].bytes);
        free(harts[h].w);
    }
    free(recs);
    rvt_funnel_free(fun);
    return rc;
}
