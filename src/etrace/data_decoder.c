/* E-Trace decoder, data side: te_data packets back to accesses, each tied
 * to the instruction that made it.
 *
 * Packets carry no instruction address, so the tie is by order: the
 * encoder sends one packet (a split load: a request, then its response) per
 * traced data access, in retirement order, and the decoder, walking the
 * code the instruction trace describes, gives the next access to each
 * instruction that makes one (the ISA classifier says which: loads, stores,
 * AMOs, LR/SC, Zicsr) and that the data filters select.  This layer sits in
 * front of the consumer's flow sink: a block whose accesses have not all
 * been decoded yet is held (with whatever follows it) until they are, and
 * its accesses go to the consumer as RVT_NOTE_DATA notes just before it.
 *
 * Data packets are decoded when the deframer meets them, which is ahead of
 * the instruction decoder; the order rules of data.h bound what a block can
 * wait for: at a synchronisation, gap or error note (offset o) every access
 * of the instructions before it is in a packet before o.  So there, held
 * blocks whose accesses did not come are released with RVT_DATA_LOST
 * notes, and decoded accesses before o that no instruction took are
 * reported without an instruction (index UINT64_MAX).  Nothing is dropped
 * without a note. */
#include "etrace/data_decoder.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum { Q_DONE = 0, Q_WAIT, Q_BAD };

struct dq {
    struct et_access a;
    uint64_t offset;
    uint32_t lrid;
    uint8_t st;
    char why[120]; /* Q_BAD */
};

struct held {
    bool is_block;
    struct rvt_block b;
    struct rvt_note n;
    char *text;
};

struct dins {
    uint64_t pc, index;
    unsigned cls;
    uint8_t size; /* bytes (0: unknown) */
};

/* Which instructions make a data access: a direct-mapped cache of the
 * classifier's answer by address (decoding every instruction of every block
 * costs more than the rest of the decode). */
#define CLS_SLOTS 4096
struct cls_slot {
    uint64_t pc;
    uint8_t valid, cls, size;
};

/* The data instructions of recently seen blocks (a loop's blocks recur):
 * by start and last address, up to BLK_MAX of them as (position in the
 * block, pc, class, size). */
#define BLK_SLOTS 1024
#define BLK_MAX 12
struct blk_slot {
    uint64_t start, last, ninsns;
    uint8_t valid, n;
    struct {
        uint32_t pos;
        uint8_t cls, size;
        uint64_t pc;
    } d[BLK_MAX];
};

/* At most this many blocks and notes wait for their data before the oldest
 * is released without it (only a damaged trace gets there). */
#define HELD_MAX 65536
/* At most this many accesses wait for an instruction. */
#define QUEUE_MAX (1u << 20)

struct et_dside {
    struct et_params *p;
    struct rvt_flow *f;
    struct rvt_bcache *bc;
    unsigned xlen;
    struct et_ddec dd;
    struct rvt_flow_sink down;
    bool installed;
    bool active;      /* data packets are in the trace (denable, or the option) */
    bool only;        /* no instruction trace (ienable 0): accesses are not tied to instructions */
    bool misaligned;  /* an access did not fit its instruction: none is tied until the next boundary */
    struct dq *q;
    size_t qhead, qn, qcap;
    /* held blocks and notes: h[h0 .. h0+hn); releasing from the front only
     * moves h0, so a queue kept full (HELD_MAX) costs O(1) per block */
    struct held *h;
    size_t h0, hn, hcap;
    struct dins *di;
    size_t dn, dcap;
    uint64_t bad_count, bad_offset; /* packets not decoded (no base) since the last boundary */
    uint64_t stats_accesses, stats_lost, stats_orphans;
    struct cls_slot cls[CLS_SLOTS];
    struct blk_slot blk[BLK_SLOTS];
    int err;
    char text[300];
};

/* ---- the queue of decoded accesses ------------------------------------------ */

static struct dq *qat(struct et_dside *s, size_t i)
{
    return &s->q[(s->qhead + i) % s->qcap];
}

static struct dq *qpush(struct et_dside *s)
{
    if (s->qn == s->qcap) {
        size_t cap = s->qcap ? 2 * s->qcap : 256;
        struct dq *v = malloc(cap * sizeof *v);
        if (!v)
            return NULL;
        for (size_t i = 0; i < s->qn; i++)
            v[i] = *qat(s, i);
        free(s->q);
        s->q = v;
        s->qcap = cap;
        s->qhead = 0;
    }
    struct dq *e = &s->q[(s->qhead + s->qn) % s->qcap];
    e->why[0] = 0;
    e->lrid = 0;
    s->qn++;
    return e;
}

static void qpop(struct et_dside *s)
{
    s->qhead = (s->qhead + 1) % s->qcap;
    s->qn--;
}

/* ---- output -------------------------------------------------------------------- */

static int down_note(struct et_dside *s, const struct rvt_note *n)
{
    if (!s->down.note)
        return 0;
    int rc = s->down.note(s->down.ctx, n);
    if (rc)
        s->err = rc;
    return rc;
}

static int down_block(struct et_dside *s, const struct rvt_block *b)
{
    if (!s->down.block)
        return 0;
    int rc = s->down.block(s->down.ctx, b);
    if (rc)
        s->err = rc;
    return rc;
}

static int data_note(struct et_dside *s, unsigned kind, uint64_t addr, uint64_t value, uint64_t index,
                     uint64_t offset, uint8_t priv)
{
    struct rvt_note n = {.kind = RVT_NOTE_DATA,
                         .reason = (uint8_t)kind,
                         .addr = addr,
                         .value = value,
                         .index = index,
                         .offset = offset,
                         .priv = priv};
    return down_note(s, &n);
}

/* The notes of one access. */
static int access_notes(struct et_dside *s, const struct et_access *a, uint64_t index, uint64_t offset, uint8_t priv)
{
    int rc = 0;
    s->stats_accesses++;
    if (rvt_dtype_is_csr(a->dtype)) {
        rc = data_note(s, RVT_DATA_CSR_ADDR, a->addr, a->addr, index, offset, priv);
        if (!rc && a->has_data)
            rc = data_note(s, RVT_DATA_CSR_VALUE, a->addr, a->data, index, offset, priv);
    } else if (a->dtype == RVT_DTYPE_SC_FAIL) {
        rc = data_note(s, RVT_DATA_SC_FAIL, a->addr, a->has_addr ? a->addr : 0, index, offset, priv);
    } else {
        bool load = a->dtype == RVT_DTYPE_LOAD;
        if (a->has_addr)
            rc = data_note(s, load ? RVT_DATA_LOAD_ADDR : RVT_DATA_STORE_ADDR, a->addr, a->addr, index, offset, priv);
        if (!rc && a->has_data)
            rc = data_note(s, load ? RVT_DATA_LOAD_VALUE : RVT_DATA_STORE_VALUE, a->addr, a->data, index, offset,
                           priv);
    }
    if (!rc && a->has_operand)
        rc = data_note(s, RVT_DATA_OPERAND, a->addr, a->operand, index, offset, priv);
    return rc;
}

static int lost_note(struct et_dside *s, uint64_t pc, uint64_t index, uint64_t offset, uint8_t priv, const char *why)
{
    s->stats_lost++;
    struct rvt_note n = {.kind = RVT_NOTE_DATA,
                         .reason = RVT_DATA_LOST,
                         .addr = pc,
                         .index = index,
                         .offset = offset,
                         .priv = priv,
                         .text = why};
    return down_note(s, &n);
}

/* ---- tying accesses to instructions --------------------------------------------- */

struct collect_ctx {
    struct et_dside *s;
    uint64_t n; /* instructions of the block so far */
};

static int collect_insn(void *ctx, uint64_t pc, const struct rvt_block *b)
{
    struct collect_ctx *c = ctx;
    struct et_dside *s = c->s;
    uint64_t index = b->index + c->n++;
    struct cls_slot *slot = &s->cls[(pc >> 1) % CLS_SLOTS];
    if (!slot->valid || slot->pc != pc) {
        struct rvt_insn in;
        slot->pc = pc;
        slot->valid = 1;
        slot->cls = 0;
        slot->size = 0;
        if (rvt_img_insn(rvt_bcache_image(s->bc), pc, &in) == 0) {
            slot->cls = (uint8_t)et_dclass_of_isa(rvt_isa_data_access(&in));
            slot->size = in.mem_size;
        }
    }
    unsigned cls = slot->cls;
    if (!cls || !et_dtraced(&s->p->d, cls, pc))
        return 0;
    if (s->dn == s->dcap) {
        size_t cap = s->dcap ? 2 * s->dcap : 64;
        struct dins *v = realloc(s->di, cap * sizeof *v);
        if (!v)
            return -RVT_ERR_NOMEM;
        s->di = v;
        s->dcap = cap;
    }
    s->di[s->dn++] = (struct dins){.pc = pc, .index = index, .cls = cls, .size = slot->size};
    return 0;
}

/* The data instructions of block b, with their stream indices. */
static int collect(struct et_dside *s, const struct rvt_block *b)
{
    s->dn = 0;
    if (b->flags & (RVT_BLK_COUNT_UNKNOWN | RVT_BLK_LAST_UNKNOWN))
        return 0;
    struct blk_slot *k = &s->blk[((b->start >> 1) ^ (b->last >> 3)) % BLK_SLOTS];
    if (k->valid && k->start == b->start && k->last == b->last && k->ninsns == b->ninsns) {
        if (s->dcap < BLK_MAX) {
            struct dins *v = realloc(s->di, BLK_MAX * sizeof *v);
            if (!v)
                return -RVT_ERR_NOMEM;
            s->di = v;
            s->dcap = BLK_MAX;
        }
        for (unsigned i = 0; i < k->n; i++) /* (the filters were applied when it was cached) */
            s->di[i] = (struct dins){.pc = k->d[i].pc, .index = b->index + k->d[i].pos, .cls = k->d[i].cls,
                                     .size = k->d[i].size};
        s->dn = k->n;
        return 0;
    }
    struct collect_ctx c = {s, 0};
    int rc = rvt_block_insns(s->bc, s->xlen, b, collect_insn, &c);
    if (rc < 0 || s->dn > BLK_MAX)
        return rc;
    k->valid = 1;
    k->start = b->start;
    k->last = b->last;
    k->ninsns = b->ninsns;
    k->n = (uint8_t)s->dn;
    for (size_t i = 0; i < s->dn; i++) {
        k->d[i].pos = (uint32_t)(s->di[i].index - b->index);
        k->d[i].pc = s->di[i].pc;
        k->d[i].cls = (uint8_t)s->di[i].cls;
        k->d[i].size = s->di[i].size;
    }
    return 0;
}

/* Are the accesses of the collected instructions all decoded? */
static bool ready(struct et_dside *s)
{
    if (s->misaligned)
        return true; /* (they are reported lost) */
    if (s->dn > s->qn)
        return false;
    for (size_t i = 0; i < s->dn; i++)
        if (qat(s, i)->st == Q_WAIT)
            return false;
    return true;
}

static bool class_fits(const struct dins *d, const struct et_access *a)
{
    if (et_dclass_of_dtype(a->dtype) != d->cls)
        return false;
    if (d->size && !rvt_dtype_is_csr(a->dtype) && (1u << a->size) != d->size)
        return false;
    return true;
}

/* Give the collected instructions their accesses (force: the ones not
 * decoded are lost), then the block. */
static int emit_block(struct et_dside *s, const struct rvt_block *b, bool force)
{
    int rc;
    for (size_t i = 0; i < s->dn; i++) {
        const struct dins *d = &s->di[i];
        if (s->misaligned) {
            if ((rc = lost_note(s, d->pc, d->index, b->trace_offset, b->priv,
                                "the data trace is out of step with the instructions since an earlier access did "
                                "not fit its instruction")))
                return rc;
            continue;
        }
        if (!s->qn || qat(s, 0)->st == Q_WAIT) {
            if (!force)
                return 0; /* (ready() was checked: not reached) */
            const char *why = s->qn ? "its split load response is not in the trace"
                                    : "no data packet for it in the trace (lost)";
            if ((rc = lost_note(s, d->pc, d->index, b->trace_offset, b->priv, why)))
                return rc;
            if (s->qn && qat(s, 0)->st == Q_WAIT)
                qpop(s);
            continue;
        }
        struct dq *e = qat(s, 0);
        if (e->st == Q_BAD) {
            snprintf(s->text, sizeof s->text, "the data packet at offset 0x%" PRIx64 " could not be decoded: %s",
                     e->offset, e->why);
            rc = lost_note(s, d->pc, d->index, e->offset, b->priv, s->text);
            qpop(s);
            if (rc)
                return rc;
            continue;
        }
        if (!class_fits(d, &e->a)) {
            char ab[120];
            et_access_format(&e->a, ab, sizeof ab);
            snprintf(s->text, sizeof s->text,
                     "the data packet at offset 0x%" PRIx64 " (%s) does not fit the instruction at 0x%" PRIx64
                     " (trace damaged or encoded with other data options)",
                     e->offset, ab, d->pc);
            s->misaligned = true;
            rc = lost_note(s, d->pc, d->index, e->offset, b->priv, s->text);
            if (rc)
                return rc;
            continue;
        }
        rc = access_notes(s, &e->a, d->index, e->offset, b->priv);
        qpop(s);
        if (rc)
            return rc;
    }
    return down_block(s, b);
}

static int hold(struct et_dside *s, const struct rvt_block *b, const struct rvt_note *n)
{
    if (s->h0 && s->h0 + s->hn == s->hcap && s->h0 >= s->hn) {
        /* (moves at most as many entries as were released since the last move) */
        memmove(s->h, s->h + s->h0, s->hn * sizeof *s->h);
        s->h0 = 0;
    }
    if (s->h0 + s->hn == s->hcap) {
        size_t cap = s->hcap ? 2 * s->hcap : 16;
        struct held *v = realloc(s->h, cap * sizeof *v);
        if (!v)
            return -RVT_ERR_NOMEM;
        s->h = v;
        s->hcap = cap;
    }
    struct held *h = &s->h[s->h0 + s->hn];
    memset(h, 0, sizeof *h);
    if (b) {
        h->is_block = true;
        h->b = *b;
    } else {
        h->n = *n;
        if (n->text && !(h->text = strdup(n->text)))
            return -RVT_ERR_NOMEM;
        h->n.text = h->text;
    }
    s->hn++;
    return 0;
}

/* Release held blocks and notes in order while their data is there (all
 * of them with force). */
static int release(struct et_dside *s, bool force)
{
    size_t i = 0;
    int rc = 0;
    for (; i < s->hn && !rc; i++) {
        struct held *h = &s->h[s->h0 + i];
        if (!h->is_block) {
            rc = down_note(s, &h->n);
            continue;
        }
        if ((rc = collect(s, &h->b)) < 0)
            break;
        if (!force && !ready(s) && s->hn - i <= HELD_MAX)
            break;
        rc = emit_block(s, &h->b, true);
    }
    if (!i)
        return rc;
    for (size_t j = 0; j < i; j++)
        free(s->h[s->h0 + j].text);
    s->h0 = s->hn == i ? 0 : s->h0 + i;
    s->hn -= i;
    return rc;
}

/* Report the accesses before `offset` no instruction took, and the packets
 * that could not be decoded. */
static int orphans(struct et_dside *s, uint64_t offset, bool all, uint8_t priv)
{
    int rc = 0;
    while (s->qn && !rc && (all || qat(s, 0)->offset < offset)) {
        struct dq *e = qat(s, 0);
        if (e->st == Q_DONE) {
            s->stats_orphans++;
            rc = access_notes(s, &e->a, UINT64_MAX, e->offset, priv);
        } else {
            snprintf(s->text, sizeof s->text,
                     e->st == Q_WAIT ? "a split load request at offset 0x%" PRIx64 " without its response"
                                     : "the data packet at offset 0x%" PRIx64 " could not be decoded",
                     e->offset);
            rc = lost_note(s, 0, UINT64_MAX, e->offset, priv, s->text);
        }
        qpop(s);
    }
    if (!rc && s->bad_count) {
        snprintf(s->text, sizeof s->text,
                 "%" PRIu64 " data packet(s) from offset 0x%" PRIx64
                 " could not be decoded: their compression base is in trace not decoded",
                 s->bad_count, s->bad_offset);
        struct rvt_note n = {.kind = RVT_NOTE_DATA,
                             .reason = RVT_DATA_LOST,
                             .index = UINT64_MAX,
                             .value = s->bad_count,
                             .offset = s->bad_offset,
                             .priv = priv,
                             .text = s->text};
        s->stats_lost += s->bad_count;
        s->bad_count = 0;
        rc = down_note(s, &n);
    }
    return rc;
}

/* ---- the sink in front of the consumer's ------------------------------------------ */

static int on_block(void *ctx, const struct rvt_block *b)
{
    struct et_dside *s = ctx;
    if (s->err)
        return s->err;
    if (s->only || !s->active)
        return down_block(s, b);
    int rc;
    if (!s->hn) {
        if ((rc = collect(s, b)) < 0)
            return rc;
        if (ready(s))
            return emit_block(s, b, false) ? 1 : 0;
    }
    if ((rc = hold(s, b, NULL)) < 0)
        return rc;
    return release(s, false) ? 1 : 0;
}

static bool boundary(const struct rvt_note *n)
{
    return n->kind == RVT_NOTE_SYNC || n->kind == RVT_NOTE_GAP || n->kind == RVT_NOTE_ERROR;
}

static int on_note(void *ctx, const struct rvt_note *n)
{
    struct et_dside *s = ctx;
    if (s->err)
        return s->err;
    if (s->only || !s->active)
        return down_note(s, n);
    if (boundary(n)) {
        /* everything before it has had its data packets */
        if (release(s, true) || orphans(s, n->offset, false, n->priv))
            return 1;
        s->misaligned = false;
        return down_note(s, n) ? 1 : 0;
    }
    if (!s->hn)
        return down_note(s, n) ? 1 : 0;
    int rc = hold(s, NULL, n);
    return rc < 0 ? rc : 0;
}

/* ---- the deframer's side: packets as they are met ----------------------------------- */

static void install(struct et_dside *s)
{
    if (s->installed)
        return;
    s->installed = true;
    s->down = rvt_flow_get_sink(s->f);
    struct rvt_flow_sink mine = {.block = on_block, .note = on_note, .ctx = s};
    rvt_flow_set_sink(s->f, &mine);
}

int et_dside_new(struct et_dside **out, struct et_params *p, struct rvt_flow *f, struct rvt_diag *d)
{
    *out = NULL;
    struct et_dside *s = calloc(1, sizeof *s);
    if (!s)
        return rvt_fail(d, RVT_ERR_NOMEM, "out of memory");
    s->p = p;
    s->f = f;
    s->xlen = rvt_flow_xlen(f);
    s->bc = rvt_bcache_new(rvt_bcache_image(rvt_flow_bcache(f)), 10);
    if (!s->bc) {
        free(s);
        return rvt_fail(d, RVT_ERR_NOMEM, "out of memory");
    }
    et_ddec_init(&s->dd, &p->d);
    if (p->d.mode != ET_DATA_OFF) {
        s->active = true;
        s->only = p->d.mode == ET_DATA_ONLY || p->d.n_dranges;
        install(s);
    }
    *out = s;
    return 0;
}

bool et_dside_installed(const struct et_dside *s)
{
    return s && s->installed;
}

void et_dside_free(struct et_dside *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->hn; i++)
        free(s->h[s->h0 + i].text);
    free(s->h);
    free(s->q);
    free(s->di);
    rvt_bcache_free(s->bc);
    free(s);
}

int et_dside_inst(struct et_dside *s, const struct et_packet *k, uint64_t offset, struct rvt_diag *d)
{
    (void)offset;
    if (k->msg != ET_MSG_TE_INST || k->format != ET_F3)
        return 0;
    /* "Following a synchronization instruction trace packet, the first data
     * trace packet for a given access size must include the full ..." */
    et_ddec_reset(&s->dd);
    memset(s->dd.lrid_size, 0xff, sizeof s->dd.lrid_size); /* (responses never cross a format 3 packet) */
    if (k->subformat != ET_SF_SUPPORT || !s->p->denable_p)
        return 0;
    if (k->denable) {
        unsigned classes = et_dclasses(&s->p->d);
        int rc = et_apply_doptions(&s->p->d, k->doptions, s->p->doptions_width, d);
        if (rc < 0)
            return rc;
        if (et_dclasses(&s->p->d) != classes)
            for (unsigned i = 0; i < BLK_SLOTS; i++)
                s->blk[i].valid = 0; /* (they hold what the old classes traced) */
        s->active = true;
        s->only = !k->ienable || s->p->d.n_dranges;
        install(s);
    }
    return 0;
}

int et_dside_frame(struct et_dside *s, const struct et_frame *fr)
{
    if (!s->active) {
        /* data packets in a trace said to have none: the option was not given
         * and no support packet was seen */
        s->active = true;
        s->only = s->p->d.mode == ET_DATA_ONLY || s->p->d.n_dranges;
        install(s);
    }
    struct et_dpkt k;
    struct et_access a;
    struct rvt_diag d = {0};
    uint32_t lrid = 0;
    int r = et_dpkt_unpack(&s->p->d, &fr->bits, s->dd.lrid_size, &k, &d);
    if (r >= 0)
        r = et_ddec_packet(&s->dd, &k, &a, &lrid, &d);
    if (s->only) {
        if (r == ET_DR_ACCESS || r == ET_DR_RESPONSE)
            return access_notes(s, &a, UINT64_MAX, fr->offset, 0) ? -RVT_ERR_LIMIT : 0;
        if (r == ET_DR_REQUEST)
            return 0; /* its response completes it */
        if (!s->dd.valid) {
            if (!s->bad_count++)
                s->bad_offset = fr->offset;
            return 0;
        }
        snprintf(s->text, sizeof s->text, "offset 0x%" PRIx64 ": %.250s", fr->offset, d.msg);
        return lost_note(s, 0, UINT64_MAX, fr->offset, 0, s->text) ? -RVT_ERR_LIMIT : 0;
    }
    if (r == ET_DR_RESPONSE) {
        for (size_t i = 0; i < s->qn; i++) {
            struct dq *e = qat(s, i);
            if (e->st == Q_WAIT && e->lrid == lrid) {
                e->a.data = a.data;
                e->a.has_data = true;
                e->st = Q_DONE;
                goto done;
            }
        }
        /* its request was reported already (an orphan) */
        return 0;
    }
    if (r < 0 && !s->dd.valid) {
        /* not decodable before a format 3 packet (a trace that starts after
         * its beginning, or after a resynchronisation) */
        if (!s->bad_count++)
            s->bad_offset = fr->offset;
        return 0;
    }
    if (s->qn >= QUEUE_MAX) {
        struct dq *e = qat(s, 0);
        if (orphans(s, e->offset + 1, false, 0))
            return -RVT_ERR_LIMIT;
    }
    struct dq *e = qpush(s);
    if (!e)
        return -RVT_ERR_NOMEM;
    e->offset = fr->offset;
    if (r < 0) {
        e->st = Q_BAD;
        snprintf(e->why, sizeof e->why, "%.110s", d.msg);
    } else {
        e->a = a;
        e->lrid = lrid;
        e->st = r == ET_DR_REQUEST ? Q_WAIT : Q_DONE;
    }
done:
    if (s->installed && s->hn && release(s, false))
        return -RVT_ERR_LIMIT;
    return 0;
}

void et_dside_lost_sync(struct et_dside *s)
{
    et_ddec_invalidate(&s->dd);
}

int et_dside_finish(struct et_dside *s)
{
    if (!s->installed || s->err)
        return s->err ? -RVT_ERR_LIMIT : 0;
    if (release(s, true) || orphans(s, 0, true, 0))
        return -RVT_ERR_LIMIT;
    return 0;
}

void et_dside_stats(const struct et_dside *s, uint64_t *accesses, uint64_t *lost, uint64_t *orphaned)
{
    *accesses = s->stats_accesses;
    *lost = s->stats_lost;
    *orphaned = s->stats_orphans;
}
