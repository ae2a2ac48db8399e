/* The decode itself on several threads (`rvtrace decode --jobs N`,
 * docs/parallel.md "Threads in one decode").
 *
 * The trace is cut at sync points into pieces.  The calling thread decodes
 * the first piece with the real decoder (a decoder and its flow engine).
 * The other pieces are decoded speculatively on worker threads — and on
 * the calling thread while it waits — each by a fresh decoder that starts
 * at the piece's sync point, its blocks and notes recorded in memory.  A
 * second fresh decoder decodes the sync point alone (the "probe"): its
 * state is what the speculative decode started from.
 *
 * The calling thread joins the pieces in order.  The real decoder decodes
 * up to piece k's sync point and through it (the family's dec_run_part:
 * the sync unit and what belongs to it), and stops before the next unit;
 * the probe stopped at the same byte.  If the two decoders' states are
 * equal there (the family's dec_state_equal, which compares the flow
 * engines too: everything that decides what follows, positions and the
 * instruction count aside), the speculative decode is what the real one
 * would do from there, event for event: its recording goes to the sink
 * with the instruction indexes rebased, and its decoder becomes the real
 * one.  Otherwise — or when the speculation failed, stopped, grew past its
 * memory bound or would pass the instruction limit — the real decoder
 * decodes the piece itself.  Either way the sink sees the serial decode's
 * events, and the result is the serial one, by construction: the state
 * comparison decides only how much work is done twice.
 *
 * A sink that refuses an event while a recording is replayed: the real
 * decoder decodes the piece again with the events already delivered
 * dropped and the refusal returned for the same event, so that it stops as
 * the serial decode stops (with its error message).
 *
 * Memory: at most threads + 1 pieces are in flight (2 threads + 1 for a
 * count, whose recordings are a few sums), each recording at most
 * REC_BYTES (a block that continues the one before it — the same
 * privilege, context and time, the next index — takes 33 bytes, others a
 * whole struct); pieces are sized so that a recording holds about
 * REC_TARGET bytes (from the bytes per trace byte of the pieces so far). */
#include "rvtrace/codec.h"
#include "core/decode.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
    REC_BYTES = 8 << 20,  /* the most a piece may record */
    REC_TARGET = 2 << 20, /* what a piece is sized for */
    PIECE_MIN = 1 << 10,  /* bytes of trace: the least and first piece size */
    PIECE_FIRST = 4 << 10,
    PIECE_MAX = 1 << 20,
    PIECE_TAIL = 32 << 10, /* the least a piece shrinks to toward the end */
    RUN = 256 /* blocks replayed in one call */
};

/* A recording is a byte stream of tagged events: */
enum { T_NOTE = 1, T_BLOCK, T_SMALL, T_SUMS };
/* T_SUMS: struct rvt_block_counts of the blocks since the last event, for a
 * sink that takes them (rvt_flow_sink.counts); the first block stays
 * whole (it may continue the whole decode's, replay()). */
/* T_SMALL: a block whose index, privilege, context, time, cause and tval
 * follow from the block before it. */
struct small {
    uint64_t start, next;
    uint32_t ninsns, last_off, offset_delta; /* last - start, trace_offset - the previous block's */
    uint8_t end, cf, flags, last_len;
};
/* T_NOTE: the note, then its text's offset in the arena + 1 (0: none). */

/* A decoder and its flow engine. */
struct pair {
    void *dec;
    struct rvt_flow *flow;
    bool probe;     /* decodes sync points alone (its block cache stays cold) */
    unsigned owner; /* the thread that decoded with it last (0: the calling thread) */
};

enum piece_state { P_FREE = 0, P_READY, P_RUNNING, P_DONE };

struct piece {
    size_t from, until; /* its sync point, the next piece's (or len) */
    int state;
    struct pair *spec, *probe;
    size_t join, next;  /* where the probe stopped (after the sync point), where the decode stopped */
    uint64_t mark;      /* the speculative flow's instruction count at `join` */
    bool ok;            /* both decodes ran as far as they should */
    bool recording;     /* the recorder takes events (after `join`) */
    bool full;          /* the recording passed REC_BYTES */
    uint8_t *rec;       /* the recording */
    size_t rlen, rcap;
    uint64_t blocks;    /* blocks in it */
    bool sums;          /* blocks are recorded as T_SUMS */
    struct rvt_block_counts acc;
    bool have_prev;     /* the last block recorded (for T_SMALL) */
    struct rvt_block prev;
    char *arena;        /* note texts */
    size_t alen, acap;
};

struct jobs {
    const struct rvt_codec *c;
    const void *cfg;
    const uint8_t *buf;
    size_t len;
    struct rvt_flow_config fc; /* (sink replaced per engine) */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct piece *ring;
    unsigned nring;
    uint64_t defined, claimed, stitched; /* pieces defined, taken by a thread, joined */
    size_t frontier;                     /* where the next piece starts (len: no more) */
    size_t target;                       /* bytes per piece */
    bool sums;                           /* the sink takes counts */
    size_t share;                        /* the largest piece: len / (4 threads) */
    unsigned threads;
    bool fixed;                          /* RVT_JOBS_SEGMENT_BYTES */
    bool quit;
    /* Engines to reuse (pair_get). */
    struct pair **pool;
    size_t npool, poolcap;
    /* Each thread's caches of the program (block cache, memo), lent to
     * every engine it runs (run_part); held by an engine of their own. */
    struct rvt_flow *caches[64];
};

/* A piece size within PIECE_MIN .. PIECE_MAX. */
static size_t piece_bytes(size_t t)
{
    return t < PIECE_MIN ? PIECE_MIN : t > PIECE_MAX ? PIECE_MAX : t;
}

/* ---- engines ---------------------------------------------------------- */

static void pair_free(const struct jobs *j, struct pair *p)
{
    if (!p)
        return;
    if (p->dec)
        j->c->dec_free(p->dec);
    rvt_flow_free(p->flow);
    free(p);
}

/* A fresh decoder feeding sink, for a probe or for thread `me`'s decode
 * (lock not held).  A decode takes the engine this thread used last if
 * there is one (its state, some 20 KB, is still in this core's cache).
 * Probes keep to their own engines. */
static struct pair *pair_get(struct jobs *j, const struct rvt_flow_sink *sink, bool probe, unsigned me)
{
    struct pair *p = NULL;
    pthread_mutex_lock(&j->mu);
    size_t pick = j->npool;
    for (size_t i = j->npool; i-- > 0;) {
        const struct pair *q = j->pool[i];
        if (q->probe == probe && (probe || q->owner == me)) {
            pick = i;
            break;
        }
        if (q->probe == probe && pick == j->npool)
            pick = i;
    }
    if (pick < j->npool) {
        p = j->pool[pick];
        memmove(&j->pool[pick], &j->pool[pick + 1], (j->npool - pick - 1) * sizeof *j->pool);
        j->npool--;
    }
    pthread_mutex_unlock(&j->mu);
    if (p) {
        j->c->dec_free(p->dec);
        p->dec = NULL;
        rvt_flow_refresh(p->flow);
        rvt_flow_set_sink(p->flow, sink);
    } else {
        if (!(p = calloc(1, sizeof *p)))
            return NULL;
        p->probe = probe;
        struct rvt_flow_config fc = j->fc;
        fc.sink = *sink;
        if (!(p->flow = rvt_flow_new(&fc))) {
            free(p);
            return NULL;
        }
    }
    p->owner = me;
    struct rvt_diag d = {0};
    if (j->c->dec_new(&p->dec, j->cfg, p->flow, &d) < 0) {
        p->dec = NULL;
        pair_free(j, p);
        return NULL;
    }
    return p;
}

static void pair_put(struct jobs *j, struct pair *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&j->mu);
    if (j->npool == j->poolcap) {
        size_t cap = j->poolcap ? 2 * j->poolcap : 8;
        struct pair **v = realloc(j->pool, cap * sizeof *v);
        if (!v) {
            pthread_mutex_unlock(&j->mu);
            pair_free(j, p);
            return;
        }
        j->pool = v;
        j->poolcap = cap;
    }
    j->pool[j->npool++] = p;
    pthread_mutex_unlock(&j->mu);
}

/* Decode [from, until) with p's decoder on thread `me` (the family's
 * dec_run_part), its engine using the thread's caches of the program.
 * An engine's own caches would start cold: every engine in a decode warms
 * them again (seven or so, each piece's first pass over the code costing
 * 10-15 % more, measured), where the serial decode warms one set once.
 * Whichever engine a thread runs, the caches it fills are its own; without
 * memory for them the engine uses its own. */
static int run_part(struct jobs *j, struct pair *p, unsigned me, size_t from, size_t until, size_t *next)
{
    struct rvt_flow *own = j->caches[me];
    if (!own)
        own = j->caches[me] = rvt_flow_new(&j->fc);
    if (own)
        rvt_flow_swap_caches(p->flow, own);
    int rc = j->c->dec_run_part(p->dec, j->buf, j->len, from, until, next);
    if (own)
        rvt_flow_swap_caches(p->flow, own);
    return rc;
}

/* ---- recording --------------------------------------------------------- */

/* Room for k more bytes of recording; false past the bound. */
static bool rec_room(struct piece *p, size_t k)
{
    if (p->rlen + k <= p->rcap)
        return true;
    size_t cap = p->rcap ? 2 * p->rcap : 64 << 10;
    while (cap < p->rlen + k)
        cap *= 2;
    if (cap > REC_BYTES)
        cap = REC_BYTES;
    if (p->rlen + k > cap) {
        p->full = true;
        return false;
    }
    uint8_t *r = realloc(p->rec, cap);
    if (!r) {
        p->full = true;
        return false;
    }
    p->rec = r;
    p->rcap = cap;
    return true;
}

static int rec_blocks(void *ctx, const struct rvt_block *b, size_t n);
static int rec_block(void *ctx, const struct rvt_block *b);
static int rec_note(void *ctx, const struct rvt_note *n);

/* T_SUMS recording: the engine's own counts (rvt_flow_sink.counts). */
static int rec_counts(void *ctx, const struct rvt_block_counts *c)
{
    struct piece *p = ctx;
    if (!p->recording)
        return 0;
    for (unsigned e = 0; e < 16; e++)
        p->acc.ends[e] += c->ends[e];
    p->acc.insns += c->insns;
    p->acc.blocks += c->blocks;
    p->blocks += c->blocks;
    return 0;
}

/* Blocks in runs (the flow's batches): one call per run, a tight loop. */
static int rec_blocks(void *ctx, const struct rvt_block *b, size_t n)
{
    struct piece *p = ctx;
    if (!p->recording)
        return 0;
    if (p->sums && p->have_prev) {
        for (size_t i = 0; i < n; i++) {
            p->acc.insns += b[i].ninsns;
            p->acc.ends[b[i].end & 15]++;
        }
        p->acc.blocks += n;
        p->blocks += n;
        return 0;
    }
    if (p->sums) {
        /* The first block (the placeholder's, replay()) whole, the others
         * summed — from here on by the engine itself, which then counts
         * instead of building blocks (the serial count's fast walk).  (A
         * sink may be changed while the engine delivers: it hands over
         * nothing more to the old one; blocks already in its batch still
         * come to rec_blocks.) */
        struct rvt_flow_sink cs = {
            .block = rec_block, .note = rec_note, .blocks = rec_blocks, .counts = rec_counts, .ctx = p};
        p->sums = false;
        int rc = rec_blocks(ctx, b, 1);
        p->sums = true;
        if (rc)
            return rc;
        rvt_flow_set_sink(p->spec->flow, &cs);
        return n > 1 ? rec_blocks(ctx, b + 1, n - 1) : 0;
    }
    if (!rec_room(p, n * (1 + sizeof *b)))
        return 1; /* past the bound: stop; the real decoder decodes this piece */
    uint8_t *w = p->rec + p->rlen;
    const struct rvt_block *q = p->have_prev ? &p->prev : NULL;
    for (size_t i = 0; i < n; q = &b[i], i++) {
        const struct rvt_block *x = &b[i];
        uint64_t last_off = x->last - x->start, delta = q ? x->trace_offset - q->trace_offset : 0;
        if (q && x->index == q->index + q->ninsns && x->priv == q->priv && x->context == q->context &&
            x->time == q->time && !(x->cause | x->tval) && x->ninsns <= UINT32_MAX && last_off <= UINT32_MAX &&
            x->trace_offset >= q->trace_offset && delta <= UINT32_MAX) {
            struct small m = {.start = x->start, .next = x->next, .ninsns = (uint32_t)x->ninsns,
                              .last_off = (uint32_t)last_off, .offset_delta = (uint32_t)delta, .end = x->end,
                              .cf = x->cf, .flags = x->flags, .last_len = x->last_len};
            *w = T_SMALL;
            memcpy(w + 1, &m, sizeof m);
            w += 1 + sizeof m;
        } else {
            *w = T_BLOCK;
            memcpy(w + 1, x, sizeof *x);
            w += 1 + sizeof *x;
        }
    }
    p->rlen = (size_t)(w - p->rec);
    p->prev = b[n - 1];
    p->have_prev = true;
    p->blocks += n;
    return 0;
}

static int rec_block(void *ctx, const struct rvt_block *b)
{
    return rec_blocks(ctx, b, 1);
}

/* The sums so far, as a T_SUMS event. */
static int rec_sums(struct piece *p)
{
    if (!p->acc.blocks)
        return 0;
    if (!rec_room(p, 1 + sizeof p->acc))
        return 1;
    p->rec[p->rlen] = T_SUMS;
    memcpy(p->rec + p->rlen + 1, &p->acc, sizeof p->acc);
    p->rlen += 1 + sizeof p->acc;
    memset(&p->acc, 0, sizeof p->acc);
    return 0;
}

static int rec_note(void *ctx, const struct rvt_note *n)
{
    struct piece *p = ctx;
    if (!p->recording)
        return 0;
    if (rec_sums(p))
        return 1;
    uint32_t text = 0;
    if (n->text) {
        size_t k = strlen(n->text) + 1;
        if (p->alen + k > p->acap) {
            size_t cap = p->acap ? 2 * p->acap : 4096;
            while (cap < p->alen + k)
                cap *= 2;
            char *a = cap < REC_BYTES ? realloc(p->arena, cap) : NULL;
            if (!a) {
                p->full = true;
                return 1;
            }
            p->arena = a;
            p->acap = cap;
        }
        memcpy(p->arena + p->alen, n->text, k);
        text = (uint32_t)p->alen + 1;
        p->alen += k;
    }
    if (!rec_room(p, 1 + sizeof *n + sizeof text))
        return 1;
    uint8_t *w = p->rec + p->rlen;
    *w = T_NOTE;
    memcpy(w + 1, n, sizeof *n);
    memcpy(w + 1 + sizeof *n, &text, sizeof text);
    p->rlen += 1 + sizeof *n + sizeof text;
    return 0;
}

/* Piece p's speculative decode and probe (no lock held). */
static void run_piece(struct jobs *j, struct piece *p, unsigned me)
{
    struct rvt_flow_sink none = {.block = rec_block, .note = rec_note, .blocks = rec_blocks, .ctx = p};
    p->ok = false;
    p->rlen = p->alen = 0;
    p->blocks = 0;
    p->recording = p->full = p->have_prev = false;
    p->sums = j->sums;
    memset(&p->acc, 0, sizeof p->acc);
    p->probe = pair_get(j, &none, true, me);
    p->spec = pair_get(j, &none, false, me);
    if (!p->probe || !p->spec)
        return;
    size_t join2;
    if (run_part(j, p->probe, me, p->from, p->from, &p->join) < 0 ||
        run_part(j, p->spec, me, p->from, p->from, &join2) < 0 || join2 != p->join ||
        p->join >= j->len)
        return;
    p->mark = rvt_flow_insns(p->spec->flow);
    rvt_flow_placeholder(p->probe->flow);
    rvt_flow_placeholder(p->spec->flow);
    p->recording = true;
    if (run_part(j, p->spec, me, p->join, p->until, &p->next) < 0)
        return;
    rvt_flow_set_sink(p->spec->flow, &none); /* (hands over the blocks it holds) */
    if (p->full || rec_sums(p))
        return;
    /* (The decoder stops at the unit after `until`'s sync point, or at the
     * trace's end.) */
    p->ok = p->until == j->len ? p->next == j->len : p->next > p->until || p->next == j->len;
}

/* ---- pieces ------------------------------------------------------------- */

struct first {
    bool found;
    size_t at;
};

static int first_point(void *ctx, const struct rvt_sync_point *sp)
{
    struct first *f = ctx;
    f->found = true;
    f->at = (size_t)sp->offset;
    return 1;
}

/* Define the next piece (lock held): it starts at the frontier and ends
 * at the first sync point `target` bytes on.  (A point found by reading
 * from the middle of a unit only costs a failed join: the probe then
 * stops elsewhere than the real decoder.) */
static bool define_next(struct jobs *j)
{
    if (j->frontier >= j->len || j->defined - j->stitched >= j->nring)
        return false;
    struct piece *p = &j->ring[j->defined % j->nring];
    p->from = j->frontier;
    /* Toward the end, pieces shrink with what is left (a fraction of it
     * per thread), so that the threads finish together: the last piece
     * to end is small.  With pieces of a quarter share to the end, the
     * other thread idled for half a piece on average (2-6 ms of a 60 ms
     * count, measured). */
    size_t size = j->target ? j->target : 1;
    if (!j->fixed) {
        const size_t left = (j->len - j->frontier) / (2 * (size_t)j->threads);
        if (size > left)
            size = left > PIECE_TAIL ? left : PIECE_TAIL < size ? PIECE_TAIL : size;
    }
    size_t at = p->from + size;
    struct first f = {0};
    struct rvt_diag d = {0};
    if (at < j->len && j->c->sync_points(j->cfg, j->buf, j->len, at, first_point, &f, &d) >= 0 && f.found &&
        f.at > p->from)
        p->until = f.at;
    else
        p->until = j->len;
    j->frontier = p->until;
    p->state = j->defined == 0 ? P_RUNNING : P_READY; /* (the first is the real decoder's) */
    j->defined++;
    return true;
}

/* Take the next piece to decode speculatively, if the window allows (lock held). */
static struct piece *claim(struct jobs *j)
{
    if (j->quit)
        return NULL;
    if (j->claimed == j->defined && !define_next(j))
        return NULL;
    if (j->claimed == j->defined)
        return NULL;
    struct piece *p = &j->ring[j->claimed % j->nring];
    if (p->state != P_READY) {
        j->claimed++; /* (piece 0) */
        return claim(j);
    }
    j->claimed++;
    p->state = P_RUNNING;
    return p;
}

struct worker_arg {
    struct jobs *j;
    unsigned me; /* 1, 2, ... (0: the calling thread) */
};

static void *worker(void *arg)
{
    struct jobs *j = ((struct worker_arg *)arg)->j;
    const unsigned me = ((struct worker_arg *)arg)->me;
    pthread_mutex_lock(&j->mu);
    while (!j->quit) {
        struct piece *p = claim(j);
        if (!p) {
            pthread_cond_wait(&j->cv, &j->mu);
            continue;
        }
        pthread_mutex_unlock(&j->mu);
        run_piece(j, p, me);
        pthread_mutex_lock(&j->mu);
        p->state = P_DONE;
        pthread_cond_broadcast(&j->cv);
    }
    pthread_mutex_unlock(&j->mu);
    return NULL;
}

/* ---- the real decode's sink ---------------------------------------------- */

/* In front of the caller's sink: one event at a time (a recording is
 * replayed so), and after a refusal during a replay, the events the
 * caller's sink already received dropped and the refusal given again. */
struct out {
    struct rvt_flow_sink user;
    uint64_t skip;
    bool refuse;
    int refusal;
};

static int out_event(struct out *o, const struct rvt_block *b, const struct rvt_note *n)
{
    if (o->skip) {
        o->skip--;
        return 0;
    }
    if (o->refuse) {
        o->refuse = false;
        return o->refusal;
    }
    if (b)
        return o->user.block(o->user.ctx, b);
    return o->user.note ? o->user.note(o->user.ctx, n) : 0;
}

static int out_block(void *ctx, const struct rvt_block *b)
{
    return out_event(ctx, b, NULL);
}

static int out_note(void *ctx, const struct rvt_note *n)
{
    return out_event(ctx, NULL, n);
}

/* A run of blocks as counts (rvt_flow_sink.counts), for a sink that
 * takes nothing else. */
static int send_counts(struct out *o, const struct rvt_block *b, size_t n)
{
    struct rvt_block_counts c;
    memset(&c, 0, sizeof c);
    for (size_t i = 0; i < n; i++) {
        c.insns += b[i].ninsns;
        c.ends[b[i].end & 15]++;
    }
    c.blocks = n;
    return o->user.counts(o->user.ctx, &c);
}

static int out_blocks(void *ctx, const struct rvt_block *b, size_t n)
{
    struct out *o = ctx;
    if (!o->skip && !o->refuse)
        return o->user.blocks ? o->user.blocks(o->user.ctx, b, n) : send_counts(o, b, n);
    for (size_t i = 0; i < n; i++) {
        int rc = out_event(o, &b[i], NULL);
        if (rc)
            return rc;
    }
    return 0;
}

/* Blocks b[0..n-1] to the caller's sink; *sent counts those delivered.  A
 * sink that takes runs (rvt_flow_sink.blocks) gets them so; its refusal is
 * taken as at the run's first block. */
static int send_run(struct out *o, const struct rvt_block *b, size_t n, uint64_t *sent)
{
    if (!n)
        return 0;
    if ((o->user.blocks || o->user.counts) && !o->skip && !o->refuse) {
        int rc = o->user.blocks ? o->user.blocks(o->user.ctx, b, n) : send_counts(o, b, n);
        if (!rc)
            *sent += n;
        return rc;
    }
    for (size_t i = 0; i < n; i++) {
        int rc = out_event(o, &b[i], NULL);
        if (rc)
            return rc;
        ++*sent;
    }
    return 0;
}

/* The whole decode's open block o continued by e, the block a placeholder
 * became (rvt_flow_placeholder): what the whole decode emits instead. */
static struct rvt_block merge(const struct rvt_block *o, const struct rvt_block *e)
{
    struct rvt_block m = *o;
    m.ninsns += e->ninsns;
    if (e->ninsns) {
        m.last = e->last;
        m.last_len = e->last_len;
        m.cf = e->cf;
    }
    m.end = e->end;
    m.next = e->next;
    m.trace_offset = e->trace_offset;
    m.cause = e->cause;
    m.tval = e->tval;
    m.flags = (uint8_t)(o->flags | (e->flags & ~RVT_BLK_HAS_TIME));
    return m;
}

/* Piece p's recording to the caller's sink, indexes rebased by delta; its
 * first block is the placeholder's: merged into the whole decode's open
 * block o, or (o NULL) the block the whole decode opens, if it holds
 * instructions — else nothing, or the trap note the whole decode gives
 * for a trap with no block open (rvt_flow_trap).  Returns the events
 * delivered (the whole decode's count) and, after a refusal, *refusal;
 * *ph_seen says whether the placeholder's block came. */
static uint64_t replay(struct out *o, const struct piece *p, uint64_t delta, const struct rvt_block *open,
                       int *refusal, bool *ph_seen)
{
    struct rvt_block run[RUN];
    /* The last block as recorded (before rebasing): what T_SMALL follows. */
    uint64_t pidx = 0, pn = 0, ptime = 0, pctx = 0, poff = 0;
    uint8_t ppriv = 0;
    size_t nr = 0;
    uint64_t sent = 0;
    bool first = true;
    int rc = 0;
    for (size_t at = 0; at < p->rlen && !rc;) {
        uint8_t tag = p->rec[at++];
        if (tag == T_NOTE) {
            struct rvt_note n;
            uint32_t text;
            memcpy(&n, p->rec + at, sizeof n);
            memcpy(&text, p->rec + at + sizeof n, sizeof text);
            at += sizeof n + sizeof text;
            if ((rc = send_run(o, run, nr, &sent)) != 0)
                break;
            nr = 0;
            if (n.index != UINT64_MAX)
                n.index += delta;
            n.text = text ? p->arena + text - 1 : NULL;
            if ((rc = out_event(o, NULL, &n)) == 0)
                sent++;
            continue;
        }
        if (tag == T_SUMS) {
            struct rvt_block_counts sum;
            memcpy(&sum, p->rec + at, sizeof sum);
            at += sizeof sum;
            if ((rc = send_run(o, run, nr, &sent)) != 0)
                break;
            nr = 0;
            if ((rc = o->user.counts(o->user.ctx, &sum)) == 0)
                sent += sum.blocks;
            continue;
        }
        struct rvt_block *b = &run[nr];
        if (tag == T_BLOCK) {
            memcpy(b, p->rec + at, sizeof *b);
            at += sizeof *b;
        } else {
            struct small m;
            memcpy(&m, p->rec + at, sizeof m);
            at += sizeof m;
            b->start = m.start;
            b->last = m.start + m.last_off;
            b->next = m.next;
            b->ninsns = m.ninsns;
            b->index = pidx + pn;
            b->context = pctx;
            b->time = ptime;
            b->tval = 0;
            b->trace_offset = poff + m.offset_delta;
            b->cause = 0;
            b->end = m.end;
            b->cf = m.cf;
            b->priv = ppriv;
            b->flags = m.flags;
            b->last_len = m.last_len;
        }
        pidx = b->index;
        pn = b->ninsns;
        ptime = b->time;
        pctx = b->context;
        poff = b->trace_offset;
        ppriv = b->priv;
        if (first) {
            first = false; /* (no block before it: the run is empty) */
            if (open) {
                *b = merge(open, b);
            } else if (b->ninsns) {
                b->index += delta;
            } else if (b->end == RVT_END_TRAP) {
                struct rvt_note n = {.kind = RVT_NOTE_TRAP, .addr = b->start, .priv = b->priv, .value = b->cause,
                                     .reason = (b->flags & RVT_BLK_INTERRUPT) != 0, .tval = b->tval,
                                     .offset = b->trace_offset, .index = b->index + delta};
                if ((rc = out_event(o, NULL, &n)) == 0)
                    sent++;
                continue;
            } else {
                continue; /* (nothing was open) */
            }
        } else {
            b->index += delta;
        }
        if (++nr == RUN) {
            rc = send_run(o, run, nr, &sent);
            nr = 0;
        }
    }
    if (!rc)
        rc = send_run(o, run, nr, &sent);
    *refusal = rc;
    *ph_seen = !first;
    return sent;
}

/* A count's sums passed on: the real decoder counts as the serial one does
 * (a count's sink refuses nothing, so nothing is ever skipped). */
static int out_counts(void *ctx, const struct rvt_block_counts *c)
{
    struct out *o = ctx;
    return o->user.counts(o->user.ctx, c);
}

/* ---- the join ------------------------------------------------------------ */

int rvt_decode_jobs(const struct rvt_codec *c, const void *cfg, const struct rvt_image *img,
                    const struct rvt_decode_options *opt, const uint8_t *buf, size_t len, unsigned threads,
                    const struct rvt_flow_sink *sink, struct rvt_jobs_stats *st, struct rvt_diag *d)
{
    struct rvt_jobs_stats dummy;
    if (!st)
        st = &dummy;
    memset(st, 0, sizeof *st);
    if (threads == 0)
        threads = rvt_jobs_default();
    if (threads > 64)
        threads = 64;
    if (threads == 1 || !c->dec_run_part || !c->dec_state_equal || !c->sync_points || !len)
        return rvt_decode(c, cfg, img, opt, buf, len, sink, d);

    struct jobs J = {.c = c, .cfg = cfg, .buf = buf, .len = len, .target = PIECE_FIRST, .sums = sink->counts != NULL};
    struct jobs *j = &J;
    struct out o = {.user = *sink};
    struct rvt_flow_sink osink = {.block = out_block,
                                  .note = out_note,
                                  .ctx = &o,
                                  .blocks = sink->blocks || sink->counts ? out_blocks : NULL,
                                  .counts = sink->counts ? out_counts : NULL};
    int rc = rvt_decode_flow_config(c, cfg, img, opt, len, &osink, &j->fc, d);
    if (rc < 0)
        return rc;
    /* Pages behind the join are given back by the caller's callback;
     * the engines themselves report nothing. */
    void (*progress)(void *, uint64_t) = j->fc.progress;
    void *progress_ctx = j->fc.progress_ctx;
    j->fc.progress = NULL;
    const uint64_t cap = j->fc.max_insns ? j->fc.max_insns : UINT64_MAX;
    const char *env = getenv("RVT_JOBS_SEGMENT_BYTES");
    if (env) {
        long v = strtol(env, NULL, 10);
        if (v >= 1) {
            j->target = (size_t)v;
            j->fixed = true;
        }
    }
    j->share = len / (4 * (size_t)threads);
    j->threads = threads;
    /* A count records a few sums a piece: its pieces are a quarter of a
     * thread's share from the start (no recording to size them by), and
     * more of them may be in flight.  With threads + 1, a worker that
     * finished a piece while the calling thread decodes one it claimed
     * waits for that one to be joined: the other thread idles for up to
     * a piece (measured: 14 ms of 75 on sync20.nt). */
    j->nring = j->sums ? 2 * threads + 1 : threads + 1;
    if (j->sums && !j->fixed)
        j->target = piece_bytes(j->share);
    pthread_mutex_init(&j->mu, NULL);
    pthread_cond_init(&j->cv, NULL);
    pthread_t th[64];
    struct worker_arg wargs[64];
    unsigned started = 0;
    struct pair *real = NULL;
    j->ring = calloc(j->nring, sizeof *j->ring);
    if (!j->ring || !(real = pair_get(j, &osink, false, 0))) {
        rc = rvt_fail(d, RVT_ERR_NOMEM, "cannot create the decoder (out of memory)");
        goto out;
    }
    pthread_mutex_lock(&j->mu);
    define_next(j); /* piece 0 */
    pthread_mutex_unlock(&j->mu);
    for (unsigned i = 0; i + 1 < threads; i++) {
        wargs[i] = (struct worker_arg){j, i + 1};
        if (pthread_create(&th[i], NULL, worker, &wargs[i]) == 0)
            started++;
    }

    size_t pos = 0;
    rc = run_part(j, real, 0, 0, j->ring[0].until, &pos);
    pthread_mutex_lock(&j->mu);
    j->stitched = 1;
    st->segments = 1;
    pthread_cond_broadcast(&j->cv);
    while (rc >= 0 && pos < len) {
        /* Piece k: wait for its speculative decode, decoding others meanwhile. */
        uint64_t k = j->stitched;
        if (k == j->defined && !define_next(j))
            break; /* (cannot happen: pos < len means a sync point follows) */
        struct piece *p = &j->ring[k % j->nring];
        while (p->state != P_DONE) {
            struct piece *q = p->state == P_READY ? p : claim(j);
            if (q) {
                if (q == p)
                    j->claimed++, p->state = P_RUNNING; /* (the next to join first) */
                pthread_mutex_unlock(&j->mu);
                run_piece(j, q, 0);
                pthread_mutex_lock(&j->mu);
                q->state = P_DONE;
                pthread_cond_broadcast(&j->cv);
            } else {
                pthread_cond_wait(&j->cv, &j->mu);
            }
        }
        if (!j->fixed && p->until > p->from) {
            /* Size the next pieces for REC_TARGET events. */
            size_t bytes = p->until - p->from, t;
            if (p->full)
                t = j->target / 4;
            else
                t = p->rlen ? (size_t)((double)bytes * REC_TARGET / (double)p->rlen) : PIECE_MAX;
            /* ...and at most a quarter of each thread's share, so that
             * the work balances. */
            if (t > j->share)
                t = j->share;
            j->target = piece_bytes(t);
        }
        pthread_mutex_unlock(&j->mu);

        uint64_t base = rvt_flow_insns(real->flow);
        uint64_t delta = base - p->mark;
        bool join = p->ok && pos == p->join && p->next >= pos && !rvt_flow_limit_reached(real->flow) &&
                    rvt_flow_insns(p->spec->flow) - p->mark <= cap - base &&
                    c->dec_state_equal(real->dec, p->probe->dec);
        if (join) {
            int refusal = 0;
            bool ph_seen = false;
            struct rvt_block ob, sb;
            const bool open = rvt_flow_open_block(real->flow, &ob);
            rvt_flow_set_sink(real->flow, &osink); /* (hands over the blocks it holds: they come first) */
            uint64_t sent = replay(&o, p, delta, open ? &ob : NULL, &refusal, &ph_seen);
            if (!refusal) {
                rvt_flow_rebase(p->spec->flow, delta);
                if (!ph_seen && rvt_flow_open_block(p->spec->flow, &sb)) {
                    /* The placeholder is open still: it continues the
                     * whole decode's block, or is the one it opened. */
                    struct rvt_block m = merge(&ob, &sb);
                    if (open)
                        rvt_flow_set_open_block(p->spec->flow, &m);
                    else if (!sb.ninsns)
                        rvt_flow_set_open_block(p->spec->flow, NULL);
                }
                rvt_flow_set_sink(p->spec->flow, &osink);
                pair_put(j, real);
                real = p->spec;
                p->spec = NULL;
                pos = p->next;
                st->joined++;
            } else {
                /* The sink refused: decode the piece here, giving the
                 * refusal again where it came (see above). */
                o.skip = sent;
                o.refuse = true;
                o.refusal = refusal;
                join = false;
            }
        }
        if (!join) {
            rc = run_part(j, real, 0, pos, p->until, &pos);
            st->redone++;
        }
        pair_put(j, p->spec);
        pair_put(j, p->probe);
        p->spec = p->probe = NULL;
        if (progress)
            progress(progress_ctx, p->from);
        pthread_mutex_lock(&j->mu);
        p->state = P_FREE;
        j->stitched++;
        st->segments++;
        pthread_cond_broadcast(&j->cv);
    }
    j->quit = true;
    pthread_cond_broadcast(&j->cv);
    pthread_mutex_unlock(&j->mu);
    for (unsigned i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    /* (A piece follows every stop before the end; should none, the real
     * decoder finishes the trace rather than leave it short.) */
    if (rc >= 0 && pos < len)
        rc = run_part(j, real, 0, pos, len, &pos);
    /* The limit ends a decode the way the end of the trace does (rvt_decode). */
    if (rc < 0 && rvt_flow_limit_reached(real->flow))
        rc = 0;
    if (rc < 0)
        rvt_fail(d, (enum rvt_err)-rc, "%s", c->dec_error(real->dec));
out:
    if (j->ring) {
        for (unsigned i = 0; i < j->nring; i++) {
            pair_free(j, j->ring[i].spec);
            pair_free(j, j->ring[i].probe);
            free(j->ring[i].rec);
            free(j->ring[i].arena);
        }
    }
    pair_free(j, real);
    for (size_t i = 0; i < j->npool; i++)
        pair_free(j, j->pool[i]);
    free(j->pool);
    free(j->ring);
    for (unsigned i = 0; i < 64; i++)
        rvt_flow_free(j->caches[i]);
    pthread_mutex_destroy(&j->mu);
    pthread_cond_destroy(&j->cv);
    return rc < 0 ? rc : 0;
}
