/* Compare a decoded flow with the ingress it came from, streaming: both
 * sides become address ranges [start, end) of contiguously retired code,
 * consumed in step, so memory stays bounded however long the trace. */
#include "rvtrace/analysis.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct rvt_seqcmp {
    rvt_seqcmp_pull_fn pull;
    void *ctx;
    uint64_t mask;
    bool have;         /* a partly consumed expected range */
    uint64_t es, ee;   /* expected range */
    bool ended;        /* expected stream exhausted */
    uint64_t insns;    /* decoded instructions fully compared */
    uint64_t records;
    struct rvt_diag diag;
};

struct rvt_seqcmp *rvt_seqcmp_new(rvt_seqcmp_pull_fn pull, void *ctx, unsigned xlen)
{
    struct rvt_seqcmp *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->pull = pull;
    c->ctx = ctx;
    c->mask = xlen == 32 ? 0xffffffffull : ~0ull;
    return c;
}

void rvt_seqcmp_free(struct rvt_seqcmp *c)
{
    free(c);
}

const char *rvt_seqcmp_error(const struct rvt_seqcmp *c)
{
    return c->diag.msg;
}

uint64_t rvt_seqcmp_insns(const struct rvt_seqcmp *c)
{
    return c->insns;
}

/* Make sure an expected range is available; false at the end or on error. */
static bool need_expected(struct rvt_seqcmp *c)
{
    while (!c->have && !c->ended) {
        struct rvt_ing_rec r;
        int rc = c->pull(c->ctx, &r);
        if (rc < 0) {
            rvt_fail(&c->diag, (enum rvt_err)-rc, "reading the expected instructions failed");
            return false;
        }
        if (rc == 0) {
            c->ended = true;
            break;
        }
        c->records++;
        if (r.iretire == 0)
            continue;
        c->es = r.iaddr & c->mask;
        c->ee = (r.iaddr + 2ull * r.iretire) & c->mask;
        c->have = true;
    }
    return c->have;
}

static int cmp_block(void *ctx, const struct rvt_block *b)
{
    struct rvt_seqcmp *c = ctx;
    if (c->diag.code)
        return 1;
    uint64_t ds = b->start, de = (b->last + b->last_len) & c->mask;
    uint64_t done = 0; /* halfwords of this block already matched */
    while (ds != de) {
        if (!need_expected(c)) {
            if (!c->diag.code)
                rvt_fail(&c->diag, RVT_ERR_MISMATCH,
                         "decoded more than the input: instruction at 0x%" PRIx64 " after all %" PRIu64
                         " expected instructions (trace offset 0x%" PRIx64 ")",
                         ds, c->insns, b->trace_offset);
            return 1;
        }
        if (c->es != ds) {
            rvt_fail(&c->diag, RVT_ERR_MISMATCH,
                     "after %" PRIu64 " matching instructions (+%" PRIu64 " halfwords of the block at 0x%" PRIx64
                     "): decoded 0x%" PRIx64 ", expected 0x%" PRIx64 " (trace offset 0x%" PRIx64 ")",
                     c->insns, done, b->start, ds, c->es, b->trace_offset);
            return 1;
        }
        uint64_t k = (c->ee - c->es) & c->mask, kd = (de - ds) & c->mask;
        if (kd < k)
            k = kd;
        ds = (ds + k) & c->mask;
        c->es = (c->es + k) & c->mask;
        done += k / 2;
        if (c->es == c->ee)
            c->have = false;
    }
    c->insns += b->ninsns;
    return 0;
}

static int cmp_note(void *ctx, const struct rvt_note *n)
{
    struct rvt_seqcmp *c = ctx;
    /* Tracing switched off by a filter is not a loss: the expected stream
     * (filtered the same way) has no instructions there either. */
    if (n->kind == RVT_NOTE_ERROR ||
        (n->kind == RVT_NOTE_GAP && n->reason != RVT_GAP_END && n->reason != RVT_GAP_TRACE_OFF)) {
        if (!c->diag.code)
            rvt_fail(&c->diag, RVT_ERR_MISMATCH, "the decoder reported a %s at trace offset 0x%" PRIx64
                     " after %" PRIu64 " instructions%s%s",
                     n->kind == RVT_NOTE_ERROR ? "decode error" : "gap", n->offset, c->insns,
                     n->text ? ": " : "", n->text ? n->text : "");
        return 1;
    }
    return 0;
}

struct rvt_flow_sink rvt_seqcmp_sink(struct rvt_seqcmp *c)
{
    struct rvt_flow_sink s = {cmp_block, cmp_note, c};
    return s;
}

int rvt_seqcmp_finish(struct rvt_seqcmp *c)
{
    if (c->diag.code)
        return -c->diag.code;
    if (need_expected(c))
        return rvt_fail(&c->diag, RVT_ERR_MISMATCH,
                        "the decode ended after %" PRIu64 " instructions; the input continues at 0x%" PRIx64, c->insns,
                        c->es);
    return c->diag.code ? -c->diag.code : 0;
}
