/* A PC-list or PC INSN text read on several threads (rvt_ing_text_jobs,
 * rvtrace encode --jobs N): the text is cut at newlines into chunks, read
 * in order, and each chunk is parsed by whichever thread claims it into an
 * array of records (src/ingress/textchunk.h); the consumer takes the
 * chunks' records in order, and parses a chunk itself when the next one is
 * not ready, so that with two threads both parse and one also consumes.
 *
 * The records, the warning, the end and the first error (same code, same
 * message, same line) are the serial reader's: a chunk parser starts from
 * the last two instruction lines before its chunk, which leave the builder
 * as the serial reader has it there; a chunk counts its lines and its
 * error's line from its own start, and the consumer, who has seen every
 * chunk before it, adds them up.  An error in a chunk stops the consumer
 * there (later chunks, parsed meanwhile, are never looked at).
 *
 * A regular file is mapped, not read: a chunk's lines are parsed in place
 * but for its last RVT_TEXT_SLACK bytes or more (the chunk's `text`, a
 * copy with the padding the parser reads), so the text is not copied from
 * the page cache by read() (16 % of `encode --jobs 2`'s time, under the
 * reading lock).  The mapping's pages behind the chunks consumed are given
 * back as a decode gives back a trace's (rvt_trace_file_done_before).
 * RVT_TEXT_MAP=0 reads the file instead (the tests compare both).
 *
 * Memory: PT_SLOTS(jobs) chunks in flight, each its text (chunk_bytes and
 * the longest line) and its records. */
#include "rvtrace/codec.h"
#include "rvtrace/ingress.h"
#include "ingress/textchunk.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Chunks of 256 KiB: fewer hand-offs, each a wake-up of the other thread
 * at times, while the chunks' records (16 bytes a line, short) in the
 * 2N + 2 slots stay within a core's L2 (`encode --jobs 2` of the bzip2
 * capture's PC INSN text, medians of 9: 157 ms; 64 KiB 175, 128 KiB 158,
 * 512 KiB 159; with 88-byte records 64 KiB had been best). */
enum { PT_CHUNK = 256 * 1024, PT_MAX_THREADS = 64 };

enum slot_state { SLOT_FREE, SLOT_CLAIMED, SLOT_DONE };

struct slot {
    enum slot_state state;
    uint64_t seq;
    struct rvt_text_chunk c;
    char *text;            /* RVT_TEXT_LINE_MAX + 1 + chunk bytes + RVT_TEXT_PAD + 1 */
    char *pre[2];          /* the prefix lines' copies (RVT_TEXT_LINE_MAX + 1 + RVT_TEXT_PAD each) */
    int read_errno;        /* != 0: the input could not be read after this chunk */
    size_t end;            /* a mapped input's offset after the chunk */
};

struct partext {
    struct rvt_text_input in;
    size_t chunk;          /* bytes read at a time */
    unsigned nslots;
    struct slot *slots;
    struct text_src **parsers; /* [0]: the consumer's, [i]: worker i's */
    unsigned nparsers, nworkers;
    pthread_t *th;

    pthread_mutex_t mu;    /* the slots' states, next_claim, next_consume, input_end, stop */
    pthread_cond_t cv;     /* a chunk parsed, a slot freed, or stop */
    uint64_t next_claim, next_consume;
    bool input_end;        /* the last chunk has been claimed */
    bool stop;

    /* Reading, in chunk order (held while a claimer reads its chunk). */
    pthread_mutex_t rmu;
    struct rvt_trace_file *map; /* the input mapped (else read from in.f) */
    const char *map_data;
    size_t map_len, map_pos;    /* its size; where the next chunk starts */
    char *carry;           /* a partial last line, for the next chunk */
    size_t ncarry;
    char *last[2];         /* the last two instruction lines read so far (oldest first) */
    size_t nlast[2];
    unsigned havelast;

    /* The consumer. */
    struct slot *cur;
    size_t pos, end;       /* cur's records up to end (its warning's place, or all) */
    size_t fpos;           /* cur's full records before pos */
    /* The batch handed out: made from the chunk's short records into the
     * consumer's own array, which stays in its cache. */
    struct rvt_text_batch batch;
    uint64_t lines;        /* in the chunks consumed before cur */
    bool warned;           /* the input's warning has been given */
    bool warn_pending;     /* cur's warning comes before its record end */
    int final;             /* once the end (1) or an error (< 0) is reached */
    struct rvt_diag diag;
};

static unsigned pt_slots(unsigned jobs)
{
    return 2 * jobs + 2;
}

/* Keep the last two instruction lines of text[0, len) (after those kept
 * before): the prefix of the next chunk. */
static void note_last_lines(struct partext *a, const char *text, size_t len)
{
    const char *found[2];
    size_t flen[2];
    unsigned nf = 0;
    size_t end = len;
    while (end > 0 && nf < 2) {
        size_t start = end - 1; /* text[end - 1] is the newline (or the text's last byte) */
        size_t e = text[end - 1] == '\n' ? end - 1 : end;
        while (start > 0 && text[start - 1] != '\n')
            start--;
        if (rvt_text_is_insn_line(text + start, e - start)) {
            found[nf] = text + start;
            flen[nf++] = e - start;
        }
        end = start;
    }
    /* found[0] is the newest */
    for (unsigned k = nf; k-- > 0;) {
        /* shift: last[0] <- last[1], last[1] <- the line */
        char *t = a->last[0];
        a->last[0] = a->last[1];
        a->nlast[0] = a->nlast[1];
        a->last[1] = t;
        size_t n = flen[k] > RVT_TEXT_LINE_MAX + 1 ? RVT_TEXT_LINE_MAX + 1 : flen[k]; /* (longer: an earlier error) */
        memcpy(a->last[1], found[k], n);
        a->last[1][n] = 0;
        memset(a->last[1] + n + 1, 0, RVT_TEXT_PAD);
        a->nlast[1] = n;
        if (a->havelast < 2)
            a->havelast++;
    }
}

/* The next chunk's prefix: the last two instruction lines before it. */
static void take_prefix(struct partext *a, struct slot *s)
{
    struct rvt_text_chunk *c = &s->c;
    c->nprefix = 0;
    for (unsigned k = 2 - a->havelast; k < 2; k++) {
        memcpy(s->pre[c->nprefix], a->last[k], a->nlast[k] + 1 + RVT_TEXT_PAD);
        c->prefix[c->nprefix] = s->pre[c->nprefix];
        c->nprefix++;
    }
}

/* Read the next chunk into s (under rmu): the carried partial line, then
 * chunk bytes, cut after the last newline; without a newline it reads on
 * while the line may still be short enough. */
static void read_chunk(struct partext *a, struct slot *s)
{
    struct rvt_text_chunk *c = &s->c;
    c->body_len = 0;
    memcpy(s->text, a->carry, a->ncarry);
    size_t len = a->ncarry;
    a->ncarry = 0;
    s->read_errno = 0;
    c->last = false;
    for (;;) {
        size_t want = a->chunk, got = 0, at = len;
        while (got < want) {
            size_t k = fread(s->text + len, 1, want - got, a->in.f);
            if (k == 0)
                break;
            got += k;
            len += k;
        }
        if (got < want && ferror(a->in.f)) {
            s->read_errno = errno ? errno : EIO;
            /* the whole lines before the error, then the error */
            len = rvt_text_after_newline(s->text, 0, len);
            break;
        }
        if (got < want) { /* the end of the input */
            c->last = true;
            break;
        }
        const size_t cut = rvt_text_after_newline(s->text, at, len);
        if (cut > at) {
            /* (a partial line longer than a line may be is an error at
             * that line, whatever follows: its start is enough) */
            a->ncarry = len - cut > RVT_TEXT_LINE_MAX + 1 ? RVT_TEXT_LINE_MAX + 1 : len - cut;
            memcpy(a->carry, s->text + cut, a->ncarry);
            len = cut;
            break;
        }
        if (len > RVT_TEXT_LINE_MAX)
            break; /* one line too long: the chunk parser says so, at its line */
    }
    c->text = s->text;
    c->len = len;
    note_last_lines(a, s->text, len);
}

/* read_chunk from the mapped input: the same cut (chunk bytes, after the
 * last newline; on while a line may still be short enough), its whole
 * lines up to RVT_TEXT_SLACK bytes or more before its end in place (the
 * body), the rest copied into the slot's text. */
static void read_mapped(struct partext *a, struct slot *s)
{
    struct rvt_text_chunk *c = &s->c;
    const char *m = a->map_data;
    const size_t start = a->map_pos;
    size_t end = start, at = start, cut = start;
    c->last = false;
    for (;;) {
        const size_t left = a->map_len - end, got = left < a->chunk ? left : a->chunk;
        end += got;
        if (got < a->chunk) { /* the end of the input */
            c->last = true;
            cut = end;
            break;
        }
        const size_t i = rvt_text_after_newline(m, at, end);
        if (i > at || end - start > RVT_TEXT_LINE_MAX) {
            cut = i > at ? i : end; /* (one line too long: the chunk parser says so, at its line) */
            break;
        }
        at = end;
    }
    const size_t body = rvt_text_body_end(m, start, cut);
    c->body = m + start;
    c->body_len = body - start;
    memcpy(s->text, m + body, cut - body);
    c->text = s->text;
    c->len = cut - body;
    s->read_errno = 0;
    s->end = cut;
    a->map_pos = cut;
    note_last_lines(a, m + start, cut - start);
}

/* Claim and read the next chunk, if a slot is free and the input goes on;
 * NULL otherwise. */
static struct slot *claim(struct partext *a)
{
    pthread_mutex_lock(&a->rmu);
    pthread_mutex_lock(&a->mu);
    struct slot *s = NULL;
    if (!a->stop && !a->input_end && a->next_claim < a->next_consume + a->nslots) {
        s = &a->slots[a->next_claim % a->nslots];
        s->seq = a->next_claim++;
        s->state = SLOT_CLAIMED;
    }
    pthread_mutex_unlock(&a->mu);
    if (s) {
        take_prefix(a, s);
        if (a->map)
            read_mapped(a, s);
        else
            read_chunk(a, s);
        if (s->c.last || s->read_errno) {
            pthread_mutex_lock(&a->mu);
            a->input_end = true;
            pthread_mutex_unlock(&a->mu);
        }
    }
    pthread_mutex_unlock(&a->rmu);
    return s;
}

static void parse(struct partext *a, struct text_src *p, struct slot *s)
{
    rvt_text_parse_chunk(p, &s->c);
    pthread_mutex_lock(&a->mu);
    s->state = SLOT_DONE;
    pthread_cond_broadcast(&a->cv);
    pthread_mutex_unlock(&a->mu);
}

struct worker_arg {
    struct partext *a;
    unsigned i;
};

static void *worker(void *arg)
{
    struct partext *a = ((struct worker_arg *)arg)->a;
    struct text_src *p = a->parsers[((struct worker_arg *)arg)->i];
    free(arg);
    for (;;) {
        struct slot *s = claim(a);
        if (s) {
            parse(a, p, s);
            continue;
        }
        pthread_mutex_lock(&a->mu);
        while (!a->stop && !a->input_end && a->next_claim >= a->next_consume + a->nslots)
            pthread_cond_wait(&a->cv, &a->mu);
        bool done = a->stop || a->input_end;
        pthread_mutex_unlock(&a->mu);
        if (done)
            return NULL;
    }
}

static int pt_next_chunk(struct partext *a, struct rvt_ing_rec *rec);

static int pt_next(void *self, struct rvt_ing_rec *rec)
{
    struct partext *a = self;
    if (a->pos < a->end) { /* once per record: nothing else here */
        rvt_text_chunk_rec(&a->cur->c, a->pos++, &a->fpos, rec);
        return 1;
    }
    return pt_next_chunk(a, rec);
}

/* The end of cur's records (or of those before its warning): the warning,
 * its end or error, or the next chunk. */
static __attribute__((noinline)) int pt_next_chunk(struct partext *a, struct rvt_ing_rec *rec)
{
    for (;;) {
        if (a->final)
            return a->final < 0 ? a->final : 0;
        struct slot *s = a->cur;
        if (s) {
            struct rvt_text_chunk *c = &s->c;
            if (a->warn_pending && a->pos == a->end) { /* the warning's place */
                if (a->in.warn)
                    a->in.warn(a->in.warn_ctx, c->warn);
                a->warned = true;
                a->warn_pending = false;
                a->end = c->n;
                continue;
            }
            if (a->pos < a->end) {
                rvt_text_chunk_rec(c, a->pos++, &a->fpos, rec);
                return 1;
            }
            if (c->err) {
                if (c->err_line)
                    rvt_fail(&a->diag, (enum rvt_err)-c->err, "%s: line %" PRIu64 ": %s", a->in.name,
                             a->lines + c->err_line, c->msg);
                else
                    rvt_fail(&a->diag, (enum rvt_err)-c->err, "%s", c->msg);
                return a->final = c->err;
            }
            a->lines += c->lines;
            if (s->read_errno)
                return a->final = rvt_fail(&a->diag, RVT_ERR_IO, "%s: read error after line %" PRIu64 ": %s",
                                           a->in.name, a->lines, strerror(s->read_errno));
            if (c->last) {
                a->final = 1;
                return 0;
            }
            if (a->map)
                rvt_trace_file_done_before(a->map, s->end);
            pthread_mutex_lock(&a->mu);
            s->state = SLOT_FREE;
            a->next_consume++;
            pthread_cond_broadcast(&a->cv);
            pthread_mutex_unlock(&a->mu);
            a->cur = NULL;
        }
        /* The next chunk: parsed, or parse one (it, or one after it). */
        struct slot *next = &a->slots[a->next_consume % a->nslots];
        for (;;) {
            pthread_mutex_lock(&a->mu);
            bool ready = next->state == SLOT_DONE && next->seq == a->next_consume;
            bool can = !a->input_end && a->next_claim < a->next_consume + a->nslots;
            if (!ready && !can)
                pthread_cond_wait(&a->cv, &a->mu);
            pthread_mutex_unlock(&a->mu);
            if (ready)
                break;
            if (can) {
                struct slot *mine = claim(a);
                if (mine)
                    parse(a, a->parsers[0], mine);
            }
        }
        a->cur = next;
        a->pos = 0;
        a->fpos = 0;
        a->warn_pending = next->c.warned && !a->warned;
        a->end = a->warn_pending ? next->c.warn_at : next->c.n;
    }
}

/* Records in cur to hand out (a->pos < a->end): 1; else the next chunk
 * (or the warning, end, error: <= 0). */
static int pt_more(struct partext *a)
{
    if (a->pos >= a->end) {
        struct rvt_ing_rec one;
        int rc = pt_next_chunk(a, &one); /* the next chunk (or warning, end, error), and its first record */
        if (rc <= 0)
            return rc;
        /* (given again, below) */
        if (!a->cur->c.recs[--a->pos].len)
            a->fpos--;
    }
    return 1;
}

/* The next of cur's records (up to its warning) at once, made into the
 * batch array: a short record writes only what differs from the one
 * there before it. */
static int pt_batch(void *self, const struct rvt_ing_rec **recs, size_t *n)
{
    struct partext *a = self;
    const int rc = pt_more(a);
    if (rc <= 0)
        return rc;
    const struct rvt_text_chunk *c = &a->cur->c;
    const size_t k = a->end - a->pos < RVT_TEXT_BATCH ? a->end - a->pos : RVT_TEXT_BATCH;
    const struct rvt_ing_fast *f = &c->recs[a->pos];
    struct rvt_text_batch *b = &a->batch;
    rvt_text_batch_start(b);
    for (size_t i = 0; i < k; i++) {
        if (f[i].len)
            rvt_ing_fast_rec_over(&f[i], &b->rec[i]);
        else
            *rvt_text_batch_full(b, i) = c->full[a->fpos++];
    }
    a->pos += k;
    *recs = b->rec;
    *n = k;
    return 1;
}

/* The rest of cur's records (up to its warning) as the parsers left them,
 * in short (rvt_ing_next_short): no record made or copied. */
static int pt_short(void *self, struct rvt_ing_short_batch *b)
{
    struct partext *a = self;
    const int rc = pt_more(a);
    if (rc <= 0)
        return rc;
    const struct rvt_text_chunk *c = &a->cur->c;
    *b = (struct rvt_ing_short_batch){&c->recs[a->pos], a->end - a->pos, c->full ? c->full + a->fpos : NULL,
                                      RVT_TEXT_PRIV, RVT_TEXT_CONTEXT};
    /* (Up to a warning, the records after it follow: where their full ones
     * start.  At the chunk's end the next chunk starts afresh.) */
    if (a->end < c->n)
        for (size_t i = a->pos; i < a->end; i++)
            a->fpos += !c->recs[i].len;
    a->pos = a->end;
    return 1;
}

static const char *pt_error(const void *self)
{
    return ((const struct partext *)self)->diag.msg;
}

static unsigned pt_xlen(const void *self)
{
    return ((const struct partext *)self)->in.xlen;
}

static void pt_free(struct partext *a)
{
    for (unsigned i = 0; a->slots && i < a->nslots; i++) {
        free(a->slots[i].text);
        free(a->slots[i].pre[0]);
        free(a->slots[i].pre[1]);
        free(a->slots[i].c.recs);
        free(a->slots[i].c.full);
    }
    free(a->slots);
    for (unsigned i = 0; a->parsers && i < a->nparsers; i++)
        rvt_text_parser_free(a->parsers[i]);
    free(a->parsers);
    free(a->th);
    free(a->carry);
    free(a->last[0]);
    free(a->last[1]);
    rvt_trace_file_close(a->map);
    rvt_text_input_free(&a->in);
    free(a);
}

static void pt_close(void *self)
{
    struct partext *a = self;
    pthread_mutex_lock(&a->mu);
    a->stop = true;
    pthread_cond_broadcast(&a->cv);
    pthread_mutex_unlock(&a->mu);
    for (unsigned i = 0; i < a->nworkers; i++)
        pthread_join(a->th[i], NULL);
    pthread_mutex_destroy(&a->mu);
    pthread_cond_destroy(&a->cv);
    pthread_mutex_destroy(&a->rmu);
    pt_free(a);
}

static const struct rvt_ing_source_ops g_pt_ops = {pt_next, pt_error, pt_close, pt_xlen};

int rvt_ing_text_jobs(struct rvt_ing_reader **out, struct rvt_ing_reader *in, unsigned jobs, size_t chunk_bytes,
                      struct rvt_diag *d)
{
    if (jobs < 2)
        return 0;
    if (jobs > PT_MAX_THREADS)
        jobs = PT_MAX_THREADS;
    struct partext *a = calloc(1, sizeof *a);
    if (!a)
        return rvt_fail(d, RVT_ERR_NOMEM, "text read on threads: out of memory");
    enum rvt_ing_format fmt = rvt_ing_reader_format(in);
    if (!rvt_text_take(in, &a->in)) {
        free(a);
        return 0;
    }
    /* from here on the input is ours: closed on failure */
    a->chunk = chunk_bytes ? chunk_bytes : PT_CHUNK;
    rvt_text_batch_init(&a->batch);
    if ((a->map = rvt_text_map_input(a->in.f, &a->map_pos)) != NULL) {
        a->map_data = (const char *)rvt_trace_file_data(a->map);
        a->map_len = rvt_trace_file_size(a->map);
    }
    a->nslots = pt_slots(jobs);
    a->nparsers = jobs;
    a->slots = calloc(a->nslots, sizeof *a->slots);
    a->parsers = calloc(jobs, sizeof *a->parsers);
    a->th = calloc(jobs, sizeof *a->th);
    a->carry = malloc(RVT_TEXT_LINE_MAX + 1);
    a->last[0] = malloc(RVT_TEXT_LINE_MAX + 2 + RVT_TEXT_PAD);
    a->last[1] = malloc(RVT_TEXT_LINE_MAX + 2 + RVT_TEXT_PAD);
    bool ok = a->slots && a->parsers && a->th && a->carry && a->last[0] && a->last[1];
    for (unsigned i = 0; ok && i < a->nslots; i++) {
        struct slot *s = &a->slots[i];
        s->text = malloc(RVT_TEXT_LINE_MAX + 1 + a->chunk + RVT_TEXT_PAD + 1);
        s->pre[0] = malloc(RVT_TEXT_LINE_MAX + 2 + RVT_TEXT_PAD);
        s->pre[1] = malloc(RVT_TEXT_LINE_MAX + 2 + RVT_TEXT_PAD);
        ok = s->text && s->pre[0] && s->pre[1];
    }
    for (unsigned i = 0; ok && i < jobs; i++)
        ok = (a->parsers[i] = rvt_text_parser_new(&a->in)) != NULL;
    if (!ok) {
        pt_free(a);
        return rvt_fail(d, RVT_ERR_NOMEM, "text read on threads: out of memory");
    }
    if (pthread_mutex_init(&a->mu, NULL) != 0 || pthread_mutex_init(&a->rmu, NULL) != 0 ||
        pthread_cond_init(&a->cv, NULL) != 0) {
        pt_free(a);
        return rvt_fail(d, RVT_ERR_NOMEM, "text read on threads: cannot make its locks");
    }
    struct rvt_ing_reader *r = rvt_ing_reader_wrap(&g_pt_ops, a, fmt);
    if (!r) {
        pt_close(a); /* (no thread yet) */
        return rvt_fail(d, RVT_ERR_NOMEM, "text read on threads: out of memory");
    }
    rvt_ing_reader_set_batch(r, pt_batch);
    rvt_ing_reader_set_short(r, pt_short);
    unsigned started = 0;
    for (; started + 1 < jobs; started++) {
        struct worker_arg *w = malloc(sizeof *w);
        if (!w)
            break;
        w->a = a;
        w->i = started + 1;
        if (pthread_create(&a->th[started], NULL, worker, w) != 0) {
            free(w);
            break;
        }
    }
    /* (fewer threads than asked: the consumer parses the rest) */
    a->nworkers = started;
    *out = r;
    return 1;
}
