/* Compare a decoded flow with the ingress it came from, streaming.
 *
 * Expected records are pulled on demand by whichever side needs them: the
 * instruction side (decoded blocks, compared as address ranges [start,
 * end) of contiguously retired code, with their privilege) or the data
 * side (decoded RVT_NOTE_DATA / RVT_NOTE_TIME notes, each kind compared in
 * order with the values the records carry).  Each pulled record feeds one
 * FIFO per kind; a FIFO holds only what one side is ahead of the other, so
 * memory stays bounded however long the trace.  The first difference
 * aborts the decode and names its kind. */
#include "rvtrace/analysis.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* One expected item: an instruction range or a data value. */
struct item {
    uint64_t a, b;  /* range: start, end; data: value, register number */
    uint64_t index; /* data: instruction index (UINT64_MAX: unknown) */
    uint64_t mask;  /* data: the bits the trace must carry */
    uint8_t priv;   /* range: privilege of its instructions */
};

/* A FIFO of items (a ring that grows). */
struct fifo {
    struct item *v;
    size_t head, n, cap;
};

static int fifo_push(struct fifo *q, const struct item *it)
{
    if (q->n == q->cap) {
        size_t cap = q->cap ? 2 * q->cap : 64;
        struct item *v = malloc(cap * sizeof *v);
        if (!v)
            return -RVT_ERR_NOMEM;
        for (size_t i = 0; i < q->n; i++)
            v[i] = q->v[(q->head + i) % q->cap];
        free(q->v);
        q->v = v;
        q->cap = cap;
        q->head = 0;
    }
    q->v[(q->head + q->n) % q->cap] = *it;
    q->n++;
    return 0;
}

static struct item *fifo_front(struct fifo *q)
{
    return q->n ? &q->v[q->head] : NULL;
}

static void fifo_pop(struct fifo *q)
{
    q->head = (q->head + 1) % q->cap;
    q->n--;
}

struct rvt_seqcmp {
    rvt_seqcmp_pull_fn pull;
    void *ctx;
    uint64_t mask;
    unsigned xlen, traced;
    const struct rvt_image *image;
    struct rvt_bcache *bc;   /* instruction counts (indices) of longer records, with an image */

    struct fifo q[RVT_CMP__COUNT]; /* RVT_CMP_INSN: ranges; data kinds; RVT_CMP_TIME: timestamps */
    bool ended;              /* expected stream exhausted */
    uint64_t exp_insns;      /* instructions in the records pulled so far */
    bool index_known;        /* ...counted exactly so far */
    bool exp_have_time, dec_have_time;
    uint64_t exp_time, dec_time;
    uint64_t exp_hart, dec_hart;

    uint64_t insns;          /* decoded instructions fully compared */
    uint64_t count[RVT_CMP__COUNT];
    unsigned failed;
    struct rvt_diag diag;
};

static const char *const g_kind_names[RVT_CMP__COUNT] = {
    "instructions",  "register writes", "load addresses", "store addresses", "load values",
    "store values",  "tracepoints",     "hart changes",   "CSR addresses",   "CSR values",
    "operands",      "failed store-conditionals", "lost accesses", "privilege", "timestamps"};

const char *rvt_cmp_kind_name(unsigned kind)
{
    return kind < RVT_CMP__COUNT ? g_kind_names[kind] : "?";
}

unsigned rvt_cmp_kind_traced(unsigned kind)
{
    static const unsigned flags[RVT_CMP__COUNT] = {
        0,
        RVT_TRACED_REG_WRITE,
        RVT_TRACED_LOAD_ADDR,
        RVT_TRACED_STORE_ADDR,
        RVT_TRACED_LOAD_VALUE,
        RVT_TRACED_STORE_VALUE,
        RVT_TRACED_TRACEPOINT,
        RVT_TRACED_HART,
        RVT_TRACED_CSR_ADDR,
        RVT_TRACED_CSR_VALUE,
        RVT_TRACED_OPERAND,
        RVT_TRACED_SC_FAIL,
        0, /* (lost accesses: a failure, not a count) */
        RVT_TRACED_PRIV,
        RVT_TRACED_TIME | RVT_TRACED_TIME_SAMPLED};
    return kind < RVT_CMP__COUNT ? flags[kind] : 0;
}

struct rvt_seqcmp *rvt_seqcmp_new_ex(rvt_seqcmp_pull_fn pull, void *ctx, const struct rvt_seqcmp_config *cfg)
{
    struct rvt_seqcmp *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->pull = pull;
    c->ctx = ctx;
    c->xlen = cfg->xlen;
    c->mask = cfg->xlen == 32 ? 0xffffffffull : ~0ull;
    c->traced = cfg->traced;
    c->image = cfg->image;
    c->failed = RVT_CMP__COUNT;
    if (c->image && (c->traced & (RVT_TRACED_DATA_INDEX | RVT_TRACED_CSR_VALUES))) {
        c->bc = rvt_bcache_new(c->image, 0);
        if (!c->bc) {
            free(c);
            return NULL;
        }
    }
    c->index_known = true;
    return c;
}

struct rvt_seqcmp *rvt_seqcmp_new(rvt_seqcmp_pull_fn pull, void *ctx, unsigned xlen)
{
    struct rvt_seqcmp_config cfg = {.size = sizeof cfg, .xlen = xlen};
    return rvt_seqcmp_new_ex(pull, ctx, &cfg);
}

void rvt_seqcmp_free(struct rvt_seqcmp *c)
{
    if (!c)
        return;
    for (unsigned k = 0; k < RVT_CMP__COUNT; k++)
        free(c->q[k].v);
    rvt_bcache_free(c->bc);
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

uint64_t rvt_seqcmp_count(const struct rvt_seqcmp *c, unsigned kind)
{
    if (kind == RVT_CMP_INSN)
        return c->insns;
    return kind < RVT_CMP__COUNT ? c->count[kind] : 0;
}

unsigned rvt_seqcmp_failed_kind(const struct rvt_seqcmp *c)
{
    return c->failed;
}

static int differ(struct rvt_seqcmp *c, unsigned kind, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int differ(struct rvt_seqcmp *c, unsigned kind, const char *fmt, ...)
{
    if (c->diag.code)
        return -c->diag.code;
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    c->failed = kind;
    return rvt_fail(&c->diag, RVT_ERR_MISMATCH, "%s differ: %s", rvt_cmp_kind_name(kind), what);
}

/* ---- the expected side ------------------------------------------------------- */

static uint8_t priv_as_traced(const struct rvt_seqcmp *c, uint8_t priv)
{
    if (!(c->traced & RVT_TRACED_PRIV_UMS))
        return priv;
    switch (priv) {
    case RVT_PRIV_VU:
        return RVT_PRIV_U;
    case RVT_PRIV_VS:
        return RVT_PRIV_S;
    case RVT_PRIV_D:
        return RVT_PRIV_M;
    default:
        return priv;
    }
}

static int push_data(struct rvt_seqcmp *c, unsigned kind, uint64_t value, uint64_t reg, uint64_t mask,
                     uint64_t index)
{
    struct item it = {.a = value & mask, .b = reg, .index = index, .mask = mask};
    return fifo_push(&c->q[kind], &it);
}

static bool is_csr(const struct rvt_seqcmp *c, const struct rvt_ing_rec *r)
{
    struct rvt_insn in;
    return c->image && rvt_img_insn(c->image, rvt_ing_last_addr(r), &in) == 0 && (in.flags & RVT_IF_CSR);
}

/* The bits of a memory value: the access's. */
static uint64_t size_mask(unsigned bytes)
{
    return bytes && bytes < 8 ? (1ull << (8 * bytes)) - 1 : ~0ull;
}

/* What one record contributes to each expected stream. */
static int put_record(struct rvt_seqcmp *c, const struct rvt_ing_rec *r)
{
    int rc;
    unsigned t = c->traced;
    bool trap = r->itype == RVT_ITYPE_EXCEPTION || r->itype == RVT_ITYPE_INTERRUPT;
    if (!r->iretire && !trap)
        return 0; /* nothing happened */
    uint64_t k = 0;
    if (r->iretire && !(t & RVT_TRACED_NO_INSNS)) {
        struct item it = {.a = r->iaddr & c->mask, .b = (r->iaddr + 2ull * r->iretire) & c->mask,
                          .priv = priv_as_traced(c, r->priv)};
        if ((rc = fifo_push(&c->q[RVT_CMP_INSN], &it)) < 0)
            return rc;
        if (r->iretire == 1u << r->ilastsize)
            k = 1; /* one instruction: no code needed to count it */
        else if (!c->bc || rvt_ing_count_insns(r, c->bc, &k) < 0)
            c->index_known = false;
    }
    uint64_t at = c->index_known && k ? c->exp_insns + k - 1 : UINT64_MAX;
    c->exp_insns += k;
    /* A format that samples time (N-Trace TSTAMP on every message it sends)
     * reports some time for every event, so a record without one has the
     * time of the record before it (0 at the start), as its encoder takes
     * it; a format that sends exact times sends only the records' own. */
    bool have_t = (r->flags & RVT_ING_HAS_TIME) || (t & RVT_TRACED_TIME_SAMPLED);
    uint64_t rtime = (r->flags & RVT_ING_HAS_TIME) ? r->time : c->exp_have_time ? c->exp_time : 0;
    if ((t & (RVT_TRACED_TIME | RVT_TRACED_TIME_SAMPLED)) && have_t && (!c->exp_have_time || rtime != c->exp_time)) {
        c->exp_have_time = true;
        c->exp_time = rtime;
        if ((rc = push_data(c, RVT_CMP_TIME, rtime, 0, ~0ull, at)) < 0)
            return rc;
    }
    if ((t & RVT_TRACED_HART) && r->hart != c->exp_hart) {
        c->exp_hart = r->hart;
        if ((rc = push_data(c, RVT_DATA_HART, r->hart, 0, ~0ull, at)) < 0)
            return rc;
    }
    if (!r->iretire)
        return 0;
    /* Register values: integer registers XLEN wide, f registers 64 bits. */
    if ((t & RVT_TRACED_REG_WRITE) && (r->flags & RVT_ING_HAS_RD) &&
        (rc = push_data(c, RVT_DATA_REG_WRITE, r->rd_value, r->rd, r->rd < 32 ? c->mask : ~0ull, at)) < 0)
        return rc;
    if ((t & RVT_TRACED_TRACEPOINT) && (r->flags & RVT_ING_TRACEPOINT) &&
        (rc = push_data(c, RVT_DATA_TRACEPOINT, r->tp_type, 0, ~0ull, at)) < 0)
        return rc;
    bool store = (r->flags & RVT_ING_MEM_STORE) != 0;
    if ((t & RVT_TRACED_CSR_VALUES) && is_csr(c, r)) {
        if ((t & RVT_TRACED_LOAD_VALUE) && (r->flags & RVT_ING_HAS_RD) &&
            (rc = push_data(c, RVT_DATA_LOAD_VALUE, r->rd_value, 0, c->mask, at)) < 0)
            return rc;
        if ((t & RVT_TRACED_STORE_VALUE) && store && (r->flags & RVT_ING_HAS_MEMVAL) &&
            (rc = push_data(c, RVT_DATA_STORE_VALUE, r->mem_value, 0, c->mask, at)) < 0)
            return rc;
        return 0;
    }
    /* The data trace interface's accesses that touch no memory, and the
     * operands (ingress.h, enum rvt_dtype). */
    int dt = (r->flags & RVT_ING_HAS_DTYPE) ? r->dtype : -1;
    bool vals = (r->flags & RVT_ING_HAS_MEMVAL) != 0;
    if (dt >= 0 && rvt_dtype_is_csr((unsigned)dt)) {
        uint64_t csr = r->mem_addr & 0xfff;
        if ((t & RVT_TRACED_CSR_ADDR) && (rc = push_data(c, RVT_DATA_CSR_ADDR, csr, 0, ~0ull, at)) < 0)
            return rc;
        if ((t & RVT_TRACED_CSR_VALUE) && vals &&
            (rc = push_data(c, RVT_DATA_CSR_VALUE, r->mem_value, 0, c->mask, at)) < 0)
            return rc;
        if ((t & RVT_TRACED_OPERAND) && vals && ((csr >> 10) & 3) != 3 &&
            (rc = push_data(c, RVT_DATA_OPERAND, r->mem_operand, 0, c->mask, at)) < 0)
            return rc;
        return 0;
    }
    if (dt == RVT_DTYPE_SC_FAIL) {
        if ((t & RVT_TRACED_SC_FAIL) && (rc = push_data(c, RVT_DATA_SC_FAIL, r->mem_addr, 0, c->mask, at)) < 0)
            return rc;
        if ((t & RVT_TRACED_OPERAND) && vals &&
            (rc = push_data(c, RVT_DATA_OPERAND, r->mem_operand, 0, size_mask(r->mem_size), at)) < 0)
            return rc;
        return 0;
    }
    if (dt >= 0 && rvt_dtype_is_amo((unsigned)dt) && (t & RVT_TRACED_OPERAND) && vals &&
        (rc = push_data(c, RVT_DATA_OPERAND, r->mem_operand, 0, size_mask(r->mem_size), at)) < 0)
        return rc;
    if (!(r->flags & RVT_ING_HAS_MEM))
        return 0;
    if ((t & (store ? RVT_TRACED_STORE_ADDR : RVT_TRACED_LOAD_ADDR)) &&
        (rc = push_data(c, store ? RVT_DATA_STORE_ADDR : RVT_DATA_LOAD_ADDR, r->mem_addr, 0, c->mask, at)) < 0)
        return rc;
    if ((t & (store ? RVT_TRACED_STORE_VALUE : RVT_TRACED_LOAD_VALUE)) && (r->flags & RVT_ING_HAS_MEMVAL) &&
        (rc = push_data(c, store ? RVT_DATA_STORE_VALUE : RVT_DATA_LOAD_VALUE, r->mem_value, 0,
                        size_mask(r->mem_size), at)) < 0)
        return rc;
    return 0;
}

/* Pull records until the FIFO of `kind` holds one; false at the end or on
 * error. */
static bool need(struct rvt_seqcmp *c, unsigned kind)
{
    while (!c->q[kind].n && !c->ended && !c->diag.code) {
        struct rvt_ing_rec r;
        int rc = c->pull(c->ctx, &r);
        if (rc < 0) {
            rvt_fail(&c->diag, (enum rvt_err)-rc, "reading the expected records failed");
            return false;
        }
        if (rc == 0) {
            c->ended = true;
            break;
        }
        if (r.flags & RVT_ING_UNQUALIFIED)
            continue; /* filtered out: not traced */
        if ((rc = put_record(c, &r)) < 0) {
            rvt_fail(&c->diag, (enum rvt_err)-rc, "out of memory comparing the decode");
            return false;
        }
    }
    return c->q[kind].n != 0;
}

/* ---- the decoded side ----------------------------------------------------------- */

static int cmp_block(void *ctx, const struct rvt_block *b)
{
    struct rvt_seqcmp *c = ctx;
    if (c->diag.code)
        return 1;
    if (c->traced & RVT_TRACED_NO_INSNS) {
        differ(c, RVT_CMP_INSN,
               "decoded %" PRIu64 " at 0x%" PRIx64 " from a trace that holds none (trace offset 0x%" PRIx64 ")",
               b->ninsns, b->start, b->trace_offset);
        return 1;
    }
    uint64_t ds = b->start, de = (b->last + b->last_len) & c->mask;
    uint64_t done = 0; /* halfwords of this block already matched */
    while (ds != de) {
        if (!need(c, RVT_CMP_INSN)) {
            if (!c->diag.code)
                differ(c, RVT_CMP_INSN,
                       "decoded more than the input: instruction at 0x%" PRIx64 " after all %" PRIu64
                       " expected instructions (trace offset 0x%" PRIx64 ")",
                       ds, c->insns, b->trace_offset);
            return 1;
        }
        struct item *e = fifo_front(&c->q[RVT_CMP_INSN]);
        if (e->a != ds) {
            differ(c, RVT_CMP_INSN,
                   "after %" PRIu64 " matching instructions (+%" PRIu64 " halfwords of the block at 0x%" PRIx64
                   "): decoded 0x%" PRIx64 ", expected 0x%" PRIx64 " (trace offset 0x%" PRIx64 ")",
                   c->insns, done, b->start, ds, e->a, b->trace_offset);
            return 1;
        }
        if ((c->traced & RVT_TRACED_PRIV) && e->priv != b->priv) {
            differ(c, RVT_CMP_PRIV,
                   "the instruction at 0x%" PRIx64 " (after %" PRIu64 " matching instructions) was decoded in "
                   "privilege %u, expected %u (trace offset 0x%" PRIx64 ")",
                   ds, c->insns, b->priv, e->priv, b->trace_offset);
            return 1;
        }
        uint64_t k = (e->b - e->a) & c->mask, kd = (de - ds) & c->mask;
        if (kd < k)
            k = kd;
        ds = (ds + k) & c->mask;
        e->a = (e->a + k) & c->mask;
        done += k / 2;
        if (e->a == e->b)
            fifo_pop(&c->q[RVT_CMP_INSN]);
    }
    c->insns += b->ninsns;
    if (c->traced & RVT_TRACED_PRIV)
        c->count[RVT_CMP_PRIV] += b->ninsns;
    return 0;
}

static void reg_name(char *buf, size_t n, uint64_t reg)
{
    snprintf(buf, n, "%s%u = ", reg >= 32 ? "f" : "x", (unsigned)(reg & 31));
}

/* One decoded value of `kind` against the next expected one. */
static int cmp_value(struct rvt_seqcmp *c, unsigned kind, const struct rvt_note *n, uint64_t value)
{
    uint64_t nth = c->count[kind];
    if (!need(c, kind)) {
        if (!c->diag.code)
            differ(c, kind,
                   "decoded more than the input: value 0x%" PRIx64 " after all %" PRIu64
                   " expected ones (trace offset 0x%" PRIx64 ")",
                   value, nth, n->offset);
        return 1;
    }
    struct item *e = fifo_front(&c->q[kind]);
    char dreg[16] = "", ereg[16] = "";
    if (kind == RVT_DATA_REG_WRITE) {
        reg_name(dreg, sizeof dreg, n->addr);
        reg_name(ereg, sizeof ereg, e->b);
    }
    char at[48] = "";
    if (e->index != UINT64_MAX)
        snprintf(at, sizeof at, " (instruction %" PRIu64 ")", e->index);
    bool same = (value & e->mask) == e->a && (kind != RVT_DATA_REG_WRITE || n->addr == e->b);
    if (!same) {
        differ(c, kind, "#%" PRIu64 "%s: decoded %s0x%" PRIx64 ", expected %s0x%" PRIx64 "%s (trace offset 0x%" PRIx64 ")",
               nth, at, dreg, value, ereg, e->a, e->mask != ~0ull && e->mask != c->mask ? " in the access's bits" : "",
               n->offset);
        return 1;
    }
    if ((c->traced & RVT_TRACED_DATA_INDEX) && n->index != UINT64_MAX && e->index != UINT64_MAX &&
        n->index != e->index) {
        differ(c, kind,
               "#%" PRIu64 " (%s0x%" PRIx64 "): decoded for instruction %" PRIu64 ", expected %" PRIu64
               " (trace offset 0x%" PRIx64 ")",
               nth, dreg, value, n->index, e->index, n->offset);
        return 1;
    }
    fifo_pop(&c->q[kind]);
    c->count[kind]++;
    return 0;
}


static int cmp_note(void *ctx, const struct rvt_note *n)
{
    struct rvt_seqcmp *c = ctx;
    if (c->diag.code)
        return 1;
    /* Tracing switched off by a filter is not a loss: the expected stream
     * (filtered the same way) has no instructions there either. */
    if (n->kind == RVT_NOTE_ERROR ||
        (n->kind == RVT_NOTE_GAP && n->reason != RVT_GAP_END && n->reason != RVT_GAP_TRACE_OFF)) {
        rvt_fail(&c->diag, RVT_ERR_MISMATCH,
                 "the decoder reported a %s at trace offset 0x%" PRIx64 " after %" PRIu64 " instructions%s%s",
                 n->kind == RVT_NOTE_ERROR ? "decode error" : "gap", n->offset, c->insns, n->text ? ": " : "",
                 n->text ? n->text : "");
        c->failed = RVT_CMP_INSN;
        return 1;
    }
    if (n->kind == RVT_NOTE_TIME && (c->traced & (RVT_TRACED_TIME | RVT_TRACED_TIME_SAMPLED))) {
        /* The sequence of distinct timestamps (a format may repeat one, e.g.
         * at a synchronisation point). */
        if (c->dec_have_time && n->value == c->dec_time)
            return 0;
        c->dec_have_time = true;
        c->dec_time = n->value;
        if (!(c->traced & RVT_TRACED_TIME)) {
            /* Sampled: skip the record times the format did not send. */
            while (need(c, RVT_CMP_TIME) && fifo_front(&c->q[RVT_CMP_TIME])->a != n->value)
                fifo_pop(&c->q[RVT_CMP_TIME]);
        }
        return cmp_value(c, RVT_CMP_TIME, n, n->value) ? 1 : 0;
    }
    if (n->kind == RVT_NOTE_DATA && n->reason == RVT_DATA_LOST && (c->traced & RVT_TRACED_DATA_INDEX)) {
        /* an access the trace should have held is missing */
        rvt_fail(&c->diag, RVT_ERR_MISMATCH, "the decoder reported a data access lost at trace offset 0x%" PRIx64
                 " (instruction %" PRIu64 "): %s", n->offset, n->index, n->text ? n->text : "");
        c->failed = RVT_DATA_LOST;
        return 1;
    }
    if (n->kind != RVT_NOTE_DATA || n->reason < 1 || n->reason >= RVT_DATA_LOST ||
        !(c->traced & rvt_cmp_kind_traced(n->reason)))
        return 0;
    if (n->reason == RVT_DATA_HART) {
        if (n->value == c->dec_hart)
            return 0; /* restated (synchronisation) */
        c->dec_hart = n->value;
    }
    return cmp_value(c, n->reason, n, n->value) ? 1 : 0;
}

struct rvt_flow_sink rvt_seqcmp_sink(struct rvt_seqcmp *c)
{
    struct rvt_flow_sink s = {.block = cmp_block, .note = cmp_note, .ctx = c};
    return s;
}

int rvt_seqcmp_finish(struct rvt_seqcmp *c)
{
    if (c->diag.code)
        return -c->diag.code;
    if (!(c->traced & RVT_TRACED_NO_INSNS) && need(c, RVT_CMP_INSN))
        return differ(c, RVT_CMP_INSN, "the decode ended after %" PRIu64 " instructions; the input continues at 0x%" PRIx64,
                      c->insns, fifo_front(&c->q[RVT_CMP_INSN])->a);
    if (c->diag.code)
        return -c->diag.code;
    /* Every record was pulled (without instructions: up to the next one of
     * each kind): what is left was not decoded. */
    for (unsigned k = 1; k < RVT_CMP__COUNT; k++) {
        if ((c->traced & RVT_TRACED_NO_INSNS) && (c->traced & rvt_cmp_kind_traced(k)))
            (void)need(c, k);
        if (k == RVT_CMP_PRIV || !c->q[k].n || (k == RVT_CMP_TIME && !(c->traced & RVT_TRACED_TIME)))
            continue;
        const struct item *e = fifo_front(&c->q[k]);
        char reg[16] = "";
        if (k == RVT_DATA_REG_WRITE)
            reg_name(reg, sizeof reg, e->b);
        char at[48] = "";
        if (e->index != UINT64_MAX)
            snprintf(at, sizeof at, " (instruction %" PRIu64 ")", e->index);
        return differ(c, k, "the decode reported %" PRIu64 "; %zu more are in the input, the first %s0x%" PRIx64 "%s",
                      c->count[k], c->q[k].n, reg, e->a, at);
    }
    return 0;
}
