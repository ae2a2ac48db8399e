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
 * Memory: at most threads + 1 pieces are in flight, each recording at most
 * REC_MAX events; pieces are sized so that a recording holds about
 * REC_TARGET events (from the events per byte of the pieces so far). */
#include "rvtrace/codec.h"
#include "core/decode.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
    REC_MAX = 1 << 16,    /* events a piece may record (96 bytes each) */
    REC_TARGET = 1 << 14, /* events a piece is sized for */
    PIECE_MIN = 1 << 10,  /* bytes: the least and first piece size */
    PIECE_FIRST = 8 << 10,
    PIECE_MAX = 1 << 20
};

struct entry {
    uint32_t text; /* a note's text: offset in the arena + 1 (0: none) */
    uint8_t is_note;
    union {
        struct rvt_block b;
        struct rvt_note n;
    } u;
};

/* A decoder and its flow engine. */
struct pair {
    void *dec;
    struct rvt_flow *flow;
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
    struct entry *e;
    size_t n;
    char *arena;
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
    bool fixed;                          /* RVT_JOBS_SEGMENT_BYTES */
    bool quit;
    struct pair **pool; /* engines to reuse (their block caches are warm) */
    size_t npool, poolcap;
    int err; /* out of memory in a worker: speculation stops */
};

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

/* A fresh decoder feeding sink (lock not held). */
static struct pair *pair_get(struct jobs *j, const struct rvt_flow_sink *sink)
{
    struct pair *p = NULL;
    pthread_mutex_lock(&j->mu);
    if (j->npool)
        p = j->pool[--j->npool];
    pthread_mutex_unlock(&j->mu);
    if (p) {
        j->c->dec_free(p->dec);
        p->dec = NULL;
        rvt_flow_refresh(p->flow);
        rvt_flow_set_sink(p->flow, sink);
    } else {
        if (!(p = calloc(1, sizeof *p)))
            return NULL;
        struct rvt_flow_config fc = j->fc;
        fc.sink = *sink;
        if (!(p->flow = rvt_flow_new(&fc))) {
            free(p);
            return NULL;
        }
    }
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

/* ---- recording --------------------------------------------------------- */

static int rec_block(void *ctx, const struct rvt_block *b)
{
    struct piece *p = ctx;
    if (!p->recording)
        return 0;
    if (p->n == REC_MAX)
        return 1; /* past the bound: stop; the real decoder decodes this piece */
    struct entry *e = &p->e[p->n++];
    e->is_note = 0;
    e->text = 0;
    e->u.b = *b;
    return 0;
}

static int rec_note(void *ctx, const struct rvt_note *n)
{
    struct piece *p = ctx;
    if (!p->recording)
        return 0;
    if (p->n == REC_MAX)
        return 1;
    uint32_t text = 0;
    if (n->text) {
        size_t k = strlen(n->text) + 1;
        if (p->alen + k > p->acap) {
            size_t cap = p->acap ? 2 * p->acap : 4096;
            while (cap < p->alen + k)
                cap *= 2;
            char *a = cap < UINT32_MAX ? realloc(p->arena, cap) : NULL;
            if (!a)
                return 1;
            p->arena = a;
            p->acap = cap;
        }
        memcpy(p->arena + p->alen, n->text, k);
        text = (uint32_t)p->alen + 1;
        p->alen += k;
    }
    struct entry *e = &p->e[p->n++];
    e->is_note = 1;
    e->text = text;
    e->u.n = *n;
    e->u.n.text = NULL;
    return 0;
}

/* Piece p's speculative decode and probe (no lock held). */
static void run_piece(struct jobs *j, struct piece *p)
{
    struct rvt_flow_sink none = {.block = rec_block, .note = rec_note, .ctx = p};
    p->ok = false;
    p->n = p->alen = 0;
    p->recording = false;
    if (!p->e && !(p->e = malloc(REC_MAX * sizeof *p->e)))
        return;
    p->probe = pair_get(j, &none);
    p->spec = pair_get(j, &none);
    if (!p->probe || !p->spec)
        return;
    size_t join2;
    if (j->c->dec_run_part(p->probe->dec, j->buf, j->len, p->from, p->from, &p->join) < 0 ||
        j->c->dec_run_part(p->spec->dec, j->buf, j->len, p->from, p->from, &join2) < 0 || join2 != p->join ||
        p->join >= j->len)
        return;
    p->mark = rvt_flow_insns(p->spec->flow);
    rvt_flow_placeholder(p->probe->flow);
    rvt_flow_placeholder(p->spec->flow);
    p->recording = true;
    if (j->c->dec_run_part(p->spec->dec, j->buf, j->len, p->join, p->until, &p->next) < 0)
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
    size_t at = p->from + (j->target ? j->target : 1);
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
    if (j->err || j->quit)
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

static void *worker(void *arg)
{
    struct jobs *j = arg;
    pthread_mutex_lock(&j->mu);
    while (!j->quit) {
        struct piece *p = claim(j);
        if (!p) {
            pthread_cond_wait(&j->cv, &j->mu);
            continue;
        }
        pthread_mutex_unlock(&j->mu);
        run_piece(j, p);
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
    uint64_t sent = 0;
    bool first = true;
    for (size_t i = 0; i < p->n; i++) {
        const struct entry *e = &p->e[i];
        int rc;
        if (e->is_note) {
            struct rvt_note n = e->u.n;
            if (n.index != UINT64_MAX)
                n.index += delta;
            n.text = e->text ? p->arena + e->text - 1 : NULL;
            rc = out_event(o, NULL, &n);
        } else if (first) {
            first = false;
            const struct rvt_block *b = &e->u.b;
            if (open) {
                struct rvt_block m = merge(open, b);
                rc = out_event(o, &m, NULL);
            } else if (b->ninsns) {
                struct rvt_block m = *b;
                m.index += delta;
                rc = out_event(o, &m, NULL);
            } else if (b->end == RVT_END_TRAP) {
                struct rvt_note n = {.kind = RVT_NOTE_TRAP, .addr = b->start, .priv = b->priv, .value = b->cause,
                                     .reason = (b->flags & RVT_BLK_INTERRUPT) != 0, .tval = b->tval,
                                     .offset = b->trace_offset, .index = b->index + delta};
                rc = out_event(o, NULL, &n);
            } else {
                continue; /* (nothing was open) */
            }
        } else {
            struct rvt_block b = e->u.b;
            b.index += delta;
            rc = out_event(o, &b, NULL);
        }
        if (rc) {
            *refusal = rc;
            *ph_seen = !first;
            return sent;
        }
        sent++;
    }
    *ph_seen = !first;
    return sent;
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
    if (threads == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n > 0 ? (unsigned)n : 1;
    }
    if (threads > 64)
        threads = 64;
    if (threads == 1 || !c->dec_run_part || !c->dec_state_equal || !c->sync_points || !len)
        return rvt_decode(c, cfg, img, opt, buf, len, sink, d);

    struct jobs J = {.c = c, .cfg = cfg, .buf = buf, .len = len, .target = PIECE_FIRST};
    struct jobs *j = &J;
    struct out o = {.user = *sink};
    struct rvt_flow_sink osink = {.block = out_block, .note = out_note, .ctx = &o};
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
    j->nring = threads + 1;
    pthread_mutex_init(&j->mu, NULL);
    pthread_cond_init(&j->cv, NULL);
    pthread_t th[64];
    unsigned started = 0;
    struct pair *real = NULL;
    j->ring = calloc(j->nring, sizeof *j->ring);
    if (!j->ring || !(real = pair_get(j, &osink))) {
        rc = rvt_fail(d, RVT_ERR_NOMEM, "cannot create the decoder (out of memory)");
        goto out;
    }
    pthread_mutex_lock(&j->mu);
    define_next(j); /* piece 0 */
    pthread_mutex_unlock(&j->mu);
    for (unsigned i = 0; i + 1 < threads; i++)
        if (pthread_create(&th[i], NULL, worker, j) == 0)
            started++;

    size_t pos = 0;
    rc = c->dec_run_part(real->dec, buf, len, 0, j->ring[0].until, &pos);
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
                run_piece(j, q);
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
            if (!p->ok && p->n == REC_MAX)
                t = j->target / 4;
            else
                t = p->n ? (size_t)((double)bytes * REC_TARGET / (double)p->n) : PIECE_MAX;
            j->target = t < PIECE_MIN ? PIECE_MIN : t > PIECE_MAX ? PIECE_MAX : t;
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
            rc = c->dec_run_part(real->dec, buf, len, pos, p->until, &pos);
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
            free(j->ring[i].e);
            free(j->ring[i].arena);
        }
    }
    pair_free(j, real);
    for (size_t i = 0; i < j->npool; i++)
        pair_free(j, j->pool[i]);
    free(j->pool);
    free(j->ring);
    pthread_mutex_destroy(&j->mu);
    pthread_cond_destroy(&j->cv);
    return rc < 0 ? rc : 0;
}
