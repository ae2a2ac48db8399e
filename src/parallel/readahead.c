/* A reader that reads ahead on its own thread (rvt_ing_readahead): the
 * inner reader's records, in batches, through a ring of a few batches, so
 * that parsing text and building records run beside whatever consumes
 * them (an encoder).  The consumer sees exactly the inner reader's records
 * in its order, then its end or its error (same code, same message), only
 * after every record before it.  Memory: RA_BATCHES batches of RA_BATCH
 * records. */
#include "rvtrace/codec.h"
#include "rvtrace/ingress.h"

#include <pthread.h>
#include <stdlib.h>

enum { RA_BATCH = 16384, RA_BATCHES = 4 };

struct ra_batch {
    struct rvt_ing_rec *r;
    size_t n;
    int end; /* after the n records: 0 more to come, 1 the end of the input, < 0 the inner reader's error */
};

struct readahead {
    struct rvt_ing_reader *in;
    unsigned xlen;
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv; /* a batch filled, a batch given back, or stop */
    struct ra_batch b[RA_BATCHES];
    unsigned head, count; /* b[head] .. b[head + count - 1]: filled (b[head] is being read) */
    bool stop;            /* the consumer closes: the worker ends */
    /* consumer side */
    struct ra_batch *cur;
    size_t pos;
};

static void *ra_worker(void *arg)
{
    struct readahead *a = arg;
    for (;;) {
        pthread_mutex_lock(&a->mu);
        while (a->count == RA_BATCHES && !a->stop)
            pthread_cond_wait(&a->cv, &a->mu);
        bool stop = a->stop;
        struct ra_batch *b = &a->b[(a->head + a->count) % RA_BATCHES];
        pthread_mutex_unlock(&a->mu);
        if (stop)
            return NULL;
        /* b is the worker's until it is counted in */
        b->n = 0;
        b->end = 0;
        while (b->n < RA_BATCH) {
            int rc = rvt_ing_next(a->in, &b->r[b->n]);
            if (rc <= 0) {
                b->end = rc < 0 ? rc : 1;
                break;
            }
            b->n++;
        }
        pthread_mutex_lock(&a->mu);
        a->count++;
        pthread_cond_broadcast(&a->cv);
        pthread_mutex_unlock(&a->mu);
        if (b->end)
            return NULL;
    }
}

static int ra_next_batch(struct readahead *a, struct rvt_ing_rec *rec);

static int ra_next(void *self, struct rvt_ing_rec *rec)
{
    struct readahead *a = self;
    if (a->cur && a->pos < a->cur->n) { /* once per record: nothing else here */
        *rec = a->cur->r[a->pos++];
        return 1;
    }
    return ra_next_batch(a, rec);
}

/* The end of a batch: the next one, or the input's end or error. */
static __attribute__((noinline)) int ra_next_batch(struct readahead *a, struct rvt_ing_rec *rec)
{
    for (;;) {
        if (a->cur) {
            if (a->pos < a->cur->n) {
                *rec = a->cur->r[a->pos++];
                return 1;
            }
            if (a->cur->end) /* and it stays there */
                return a->cur->end < 0 ? a->cur->end : 0;
            pthread_mutex_lock(&a->mu);
            a->head = (a->head + 1) % RA_BATCHES;
            a->count--;
            pthread_cond_broadcast(&a->cv);
            pthread_mutex_unlock(&a->mu);
            a->cur = NULL;
        }
        pthread_mutex_lock(&a->mu);
        while (a->count == 0)
            pthread_cond_wait(&a->cv, &a->mu);
        a->cur = &a->b[a->head];
        pthread_mutex_unlock(&a->mu);
        a->pos = 0;
    }
}

/* Only once the worker has ended (after an error it does not read on). */
static const char *ra_error(const void *self)
{
    const struct readahead *a = self;
    return rvt_ing_error(a->in);
}

static unsigned ra_xlen(const void *self)
{
    return ((const struct readahead *)self)->xlen;
}

/* The batches and the state (not the inner reader). */
static void ra_discard(struct readahead *a)
{
    for (unsigned i = 0; i < RA_BATCHES; i++)
        free(a->b[i].r);
    free(a);
}

static void ra_close(void *self)
{
    struct readahead *a = self;
    pthread_mutex_lock(&a->mu);
    a->stop = true;
    pthread_cond_broadcast(&a->cv);
    pthread_mutex_unlock(&a->mu);
    pthread_join(a->th, NULL);
    pthread_mutex_destroy(&a->mu);
    pthread_cond_destroy(&a->cv);
    rvt_ing_close(a->in);
    ra_discard(a);
}

static const struct rvt_ing_source_ops g_ra_ops = {ra_next, ra_error, ra_close, ra_xlen};

int rvt_ing_readahead(struct rvt_ing_reader **out, struct rvt_ing_reader *in, struct rvt_diag *d)
{
    struct readahead *a = calloc(1, sizeof *a);
    if (!a)
        return rvt_fail(d, RVT_ERR_NOMEM, "read-ahead reader: out of memory");
    for (unsigned i = 0; i < RA_BATCHES; i++)
        if (!(a->b[i].r = malloc(RA_BATCH * sizeof *a->b[i].r))) {
            ra_discard(a);
            return rvt_fail(d, RVT_ERR_NOMEM, "read-ahead reader: out of memory");
        }
    a->in = in;
    a->xlen = rvt_ing_xlen(in);
    if (pthread_mutex_init(&a->mu, NULL) != 0) {
        ra_discard(a);
        return rvt_fail(d, RVT_ERR_NOMEM, "read-ahead reader: cannot make its lock");
    }
    if (pthread_cond_init(&a->cv, NULL) != 0) {
        pthread_mutex_destroy(&a->mu);
        ra_discard(a);
        return rvt_fail(d, RVT_ERR_NOMEM, "read-ahead reader: cannot make its lock");
    }
    struct rvt_ing_reader *r = rvt_ing_reader_wrap(&g_ra_ops, a, rvt_ing_reader_format(in));
    int rc = r ? pthread_create(&a->th, NULL, ra_worker, a) : -1;
    if (rc != 0) {
        pthread_mutex_destroy(&a->mu);
        pthread_cond_destroy(&a->cv);
        ra_discard(a);
        free(r); /* made by rvt_ing_reader_wrap: nothing else to close */
        return rvt_fail(d, RVT_ERR_NOMEM, "read-ahead reader: %s",
                        r ? "cannot start its thread" : "out of memory");
    }
    *out = r;
    return 0;
}
