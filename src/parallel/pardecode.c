/* A decode's output made on several threads (`rvtrace decode --jobs N`,
 * docs/parallel.md).
 *
 * The decode itself (family decoder and flow engine) stays on the calling
 * thread: it is the cheap part.  Its blocks and notes go into batches (a
 * fixed ring of them: memory does not grow with the trace).
 *
 * pcs, insn, blocks: the calling thread keeps what the serial sink keeps
 * (statistics, damage reports on stderr, the errors that stop the decode:
 * rvt_outj_account_*), so the decode stops where the serial one stops and
 * stderr is the serial one.  Worker threads — and the calling thread when
 * the ring is full, and for every batch before the workers start (submit)
 * — format whole batches with the serial sink's own
 * formatting code; the calling thread writes the texts in batch order.  A
 * listing remembers a little from one block to the next (the function of
 * the last line, the last source line, the next instruction index, data
 * notes waiting for their instruction): a batch is formatted from the
 * state the previous batch's last block gives, and written only if that is
 * the state the serial listing has there (the previous batch's final
 * state); otherwise the output's own formatter, which holds the serial
 * state, formats the batch again.  So the text is the serial text by
 * construction, whatever the guess.  A PC list's and a listing's blocks
 * come from the engine as runs (rvt_flow_sink.runs: where each starts and
 * how many instructions it has, written by the walk itself), so that the
 * decoding thread's share per block is a few stores.
 *
 * count, the analysis kinds and jsonl stay serial (rvt_outj_mode): a
 * count's sink is the statistics, and an analysis's or JSON Lines' work
 * per block is less than handing the block to another core costs (run
 * there batch after batch beside the decode, they took 1.1-2 times as
 * long as on one thread; bench/RESULTS.md, "What the lead's fifteenth
 * round changed"). */
#include "analysis/outjobs.h"
#include "parallel/evict.h"
#include "rvtrace/codec.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A batch ends after this many blocks and notes, or instructions.  The
 * environment variable RVT_JOBS_BATCH=N (1 .. BATCH_ENTRIES) makes batches
 * of N entries and 8 N instructions: the tests cut traces at many more
 * places with it. */
enum { BATCH_ENTRIES = 4096, BATCH_INSNS = 1 << 15 };
/* A formatter whose batch is at the head of the output (every batch before
 * it written) writes its text out whenever it has grown by this much, and
 * goes on in the same bytes of its buffer (spill_text): the text it copies
 * into stays in its core's cache.  A batch's whole text (0.6 MB of a PC
 * list, 1.3 MB of a listing) kept until its end took a core's 2 MiB L2
 * beside the tables it copies from: `pcs --jobs 2` took 303 ms instead of
 * 285, `insn` 486 instead of 470 (one thread 518 and 831; steps of
 * 64 KiB: more writes and tries, `insn` 493 against 458).  A listing's
 * batch is then best at 32 Ki instructions too.  RVT_JOBS_SPILL=N: steps
 * of N bytes (0: never; the tests).  (bench/RESULTS.md, "What the lead's
 * twenty-first round changed".) */
#define SPILL_STEP ((size_t)256 << 10)
/* A PC list written in place into a regular file goes out in steps of
 * this much: in practice each batch whole at its end (32 Ki instructions
 * are 0.6 MB of text).  A file's writes hold its inode lock, so the two
 * threads' writes never overlap, and each write costs the file system
 * more than its bytes (the lock, the file's size and times): in 256 KiB
 * steps `pcs --jobs 2` of the bzip2 capture into a new file took 107-116
 * ms, whole batches 88-105 (medians of three sets of alternating rounds,
 * the AMD VM; over an existing file no change; to /dev/null, where a
 * write costs nothing, the step stays SPILL_STEP).  bench/RESULTS.md, "What the lead's twenty-ninth round
 * measured".  RVT_JOBS_SPILL sets both. */
#define POSITIONAL_FILE_STEP ((size_t)1 << 20)
/* The workers of a PC list or listing start after this many batches'
 * worth of instructions (start_now): 0.5 M instructions, 3-8 ms of a
 * listing on one thread. */
enum { LAZY_BATCHES = 16 };
/* ... and, when the caller says how long the trace is
 * (rvt_out_jobs_expect), only if at least this many instructions are
 * left, extrapolated from the trace bytes decoded so far: below about
 * 8 M instructions in all, the workers' start (a thread, the second
 * formatter's lines, its text buffers' pages) cost more than they gave
 * (`--jobs 2` against one thread, listing: 2 M instructions 21.5 against
 * 14.4 ms, 4 M 25.9 against 18.8, 8 M 34.3 against 34.2, 12 M 40.9
 * against 50.1; a PC list alike; bench/RESULTS.md, "What the lead's
 * fifteenth round changed"). */
#define MIN_LEFT_INSNS 8e6

enum slot_state { S_FREE = 0, S_FILLING, S_READY, S_BUSY, S_DONE };

/* A note as the decoder gave it, after the batch's first `at` blocks. */
struct noted {
    size_t at;
    uint32_t text; /* its text: its offset in the batch's arena + 1 (0: none) */
    struct rvt_note n;
};

/* A batch: its blocks in an array, taken from the decoder one by one with
 * a plain store (the decoding thread's share is what limits the speed-up:
 * it must stay small), and its notes beside them in order. */
struct slot {
    struct rvt_block *blk;      /* blocks: the blocks (insn: the whole ones runs names) ... */
    struct rvt_block_run *runs; /* ... pcs: where each starts and how many instructions (all its text needs);
                                 * insn: runs and entries that are not blocks (RVT_OUTJ_SET_INDEX, _WHOLE) */
    size_t nb, nwhole;          /* entries in blk or runs; whole blocks in blk (insn) */
    uint64_t first_index, end_index; /* insn: the index of the first run's first instruction, and after the last */
    struct noted *notes;
    size_t nn;
    char *arena; /* note texts (the decoder's own live only during the call) */
    size_t alen, acap;
    struct rvt_block ctx; /* listing: the previous batches' last block (its state) */
    bool has_ctx;
    int state;                     /* enum slot_state */
    /* evict.h: whether the worker evicts its lines after reading them;
     * whether a worker formatted it, whether it evicted it and in how
     * many ns (what the slot's next batch is measured by) */
    bool evict, by_worker, evicted;
    uint64_t evict_ns;
    bool direct; /* written as formatted (help_or_wait, a positional batch): no text */
    uint64_t at, at_end; /* positional: the offset its text goes at, and where it ended */
    /* formatted: */
    char *text;
    size_t tlen, tcap;
    unsigned owner; /* the formatter that wrote text */
    struct rvt_outj_state init; /* the state the text was formatted from */
    size_t init_waiting;
    struct rvt_outj_state fin;  /* ...and the state after it */
    int err;
};

struct rvt_out_jobs {
    struct rvt_output *o;
    enum rvt_outj_mode mode;
    bool pcs;  /* a PC list: notes have no text, blocks are runs */
    bool insn; /* a listing: blocks are runs and RVT_OUTJ_ entries (outjobs.h) */
    /* A PC list to a file or /dev/null: each batch's text written where
     * it goes as it is made (positional; decided at the first batch):
     * the offset of the next batch's, a line's bytes, the end so far. */
    bool positional, positional_asked;
    uint64_t at_next, at_end;
    size_t line_bytes;
    size_t batch_entries;
    uint64_t batch_insns;
    unsigned nworkers;
    pthread_t *th;
    unsigned started;
    /* Until the workers start (start_now), every block, run and
     * note goes straight to the output's own sink, as in the serial
     * decode; the instructions so far, the room that sink lent for runs
     * (the engine's last runs are there), and the last block, as the
     * first batch's formatting needs it (its ctx). */
    bool fwd;
    struct rvt_flow_sink serial;
    struct rvt_block_run *fwd_room;
    struct rvt_block fwd_last;
    bool fwd_have_last;
    uint64_t lazy_insns; /* the workers start after this many instructions (LAZY_BATCHES batches) */
    /* rvt_out_jobs_expect, rvt_out_jobs_progress: the trace's length and
     * instruction limit (0: not known), where the decode is in it, and
     * the instructions so far (forwarded, or in batches handed over) */
    uint64_t expect_bytes, expect_insns, at_offset, insns_done;
    double min_left; /* MIN_LEFT_INSNS, or RVT_JOBS_MIN_LEFT */
    unsigned launched; /* worker threads started, in all */
    struct rvt_out_fmt **fmt; /* one per worker, and the calling thread's */
    struct slot *ring;
    unsigned nslots;
    struct slot *cur;   /* the batch being filled (NULL: none) */
    /* The decoding thread's cursor in it: the next block's place, how many
     * more entries the batch takes (0: no batch), and the statistics of its
     * blocks so far (rvt_outj_account_counts at submit). */
    struct rvt_block_run *run_next; /* pcs, insn */
    struct rvt_block *blk_next;     /* the other kinds */
    uint64_t next_index;            /* insn: the index the next run follows on from */
    size_t left;
    struct rvt_block_counts tally;
    const struct rvt_outj_listed *listed; /* blocks known listable (NULL: nothing to check) */
    int out_err;        /* the output's error as last seen (rvt_outj_error): a block's return */
    /* the batch being filled or to be filled next (changed under mu;
     * atomic: a worker out of work watches it without the lock) */
    _Atomic uint64_t fill_seq;
    /* Workers may watch for work (spin_for_work): only when every thread
     * has a core of its own, and one at a time — a spinning thread on a
     * core that the decoding thread needs delays the very batch it waits
     * for (--jobs 8 on 2 cores: 45 % slower with all workers spinning). */
    bool may_spin;
    /* The decoding thread formats batches when the ring is full (help_or_wait);
     * RVT_JOBS_HELP=0 leaves them all to the workers (the tests: the
     * workers then write every batch they may, however busy the machine). */
    bool helps;
    /* text buffers written out, on a stack per formatter (the one
     * that wrote them; take_buffer): spares[f * (nslots + 1) ...], nspare[f]. */
    struct spare {
        char *buf;
        size_t cap;
    } *spares;
    unsigned *nspare;
    atomic_flag spinning;
    uint64_t claim_seq; /* the next batch to format */
    uint64_t write_seq; /* the next batch to write */
    bool writing;       /* a thread is writing the batches at the head (drain) */
    int write_err;      /* a worker's write failed (drain: the calling thread gives it) */
    size_t spill_step;  /* SPILL_STEP, or RVT_JOBS_SPILL */
    size_t place_step;  /* a positional batch's steps: POSITIONAL_FILE_STEP into a file, else spill_step */
    /* the decoding thread's policy, the time it began filling the
     * current batch, and its slot's previous batch (evict.h) */
    struct rvt_evict_policy evict;
    uint64_t direct; /* batches this thread formatted straight into the output (help_or_wait) */
    uint64_t by_workers; /* batches whose text a worker wrote (drain, spill_text) */
    uint64_t spilled;    /* batches written out while they were formatted (spill_text) */
    uint64_t in_place;   /* batches written where they go (positional) */
    uint64_t fill_t0;
    bool prev_by_worker, prev_evicted;
    uint64_t prev_evict_ns;
    pthread_mutex_t mu;
    pthread_cond_t work, done;
    bool quit;
    int err;
};

static struct slot *slot_of(struct rvt_out_jobs *j, uint64_t seq)
{
    return &j->ring[seq % j->nslots];
}

/* A note as the decoder gave it, its text from the batch's arena. */
static const struct rvt_note *note_of(const struct slot *s, const struct noted *e, struct rvt_note *tmp)
{
    *tmp = e->n;
    tmp->text = e->text ? s->arena + e->text - 1 : NULL;
    return tmp;
}

/* The blocks and notes of batch s in order through formatter f. */
static void replay(const struct slot *s, struct rvt_out_fmt *f)
{
    if (s->runs && !s->notes) { /* (a PC list's batch: runs, no notes) */
        rvt_outj_fmt_pcs(f, s->runs, s->nb);
        return;
    }
    size_t i = 0; /* blocks done */
    uint64_t index = s->first_index;
    for (size_t k = 0; k <= s->nn; k++) {
        /* the blocks before note k (or the rest), then note k */
        const size_t upto = k < s->nn ? s->notes[k].at : s->nb;
        if (upto > i && s->runs)
            rvt_outj_fmt_listing(f, s->runs + i, upto - i, s->blk, &index);
        else if (upto > i)
            rvt_outj_fmt_blocks(f, s->blk + i, upto - i);
        i = upto;
        if (k == s->nn)
            break;
        struct rvt_note tmp;
        rvt_outj_fmt_note(f, note_of(s, &s->notes[k], &tmp));
    }
}

/* The cache lines of batch s that the decoding thread writes (its
 * entries and notes), evicted by the worker that read them (no lock
 * held), when the policy chose so for this batch (evict.h: it pays on one
 * machine and ruins the speed-up on another). */
static void evict_batch(const struct slot *s)
{
    if (s->runs)
        rvt_evict_lines(s->runs, s->nb * sizeof *s->runs);
    if (s->blk)
        rvt_evict_lines(s->blk, (s->runs ? s->nwhole : s->nb) * sizeof *s->blk);
    if (s->notes)
        rvt_evict_lines(s->notes, s->nn * sizeof *s->notes);
}

/* A text buffer for formatter `me` (lock held): the last one it wrote that
 * has been written out — the one most likely still in this core's cache,
 * and in no other core's.  Before, a formatter took the buffer of the
 * batch it formatted, written a ring's length before by either thread:
 * on this VM, when its two cores are far apart (evict(), above), `insn
 * --jobs 2` took 606-609 ms with this instead of 667-695 (one thread
 * 964-1,007), and the same when they are near (bench/RESULTS.md, "What
 * the lead's twelfth round changed").  Else another formatter's (no more
 * buffers than before: one per batch and per formatter); else none (a new
 * one). */
static struct spare take_buffer(struct rvt_out_jobs *j, unsigned me)
{
    for (unsigned k = 0; k <= j->nworkers; k++) {
        const unsigned f = (me + k) % (j->nworkers + 1);
        if (j->nspare[f])
            return j->spares[(size_t)f * (j->nslots + 1) + --j->nspare[f]];
    }
    return (struct spare){NULL, 0};
}

/* Whether batch s was formatted from the state the serial listing has now,
 * every batch before it written (the writing turn held, or the lock held
 * and no thread writing). */
static bool from_serial_state(const struct rvt_out_jobs *j, const struct slot *s)
{
    struct rvt_outj_state now;
    size_t waiting;
    rvt_outj_fmt_peek_state(rvt_outj_serial_fmt(j->o), &now, &waiting);
    return rvt_outj_state_equal(&s->init, s->init_waiting, &now, waiting);
}

/* What writing batch s's text as it was formatted leaves (the writing
 * turn held): the serial listing in the state after it, and on the
 * calling thread the batch's error in the output (a worker's is left to
 * the calling thread: drain). */
static void formatted_written(struct rvt_out_jobs *j, struct slot *s, bool caller)
{
    rvt_outj_fmt_swap_state(rvt_outj_serial_fmt(j->o), &s->fin);
    if (caller)
        rvt_outj_set_error(j->o, s->err);
}

/* A batch being formatted, whose text goes out as it grows once the batch
 * is at the head (spill_text). */
struct spill {
    struct rvt_out_jobs *j;
    struct slot *s;
    struct rvt_out_fmt *f;
    uint64_t seq;  /* the batch's place in the output */
    bool caller;   /* formatted by the calling thread */
    bool holding;  /* has the writing turn: at the head, formatted from the serial state */
    int werr;      /* a worker's first write error (the calling thread gives it: drain) */
};

/* The text so far of the batch being formatted (rvt_outj_fmt_spill):
 * written out if the batch is at the head, as drain would write it there
 * (formatted from the serial listing's state, no error), and then the
 * rest of it too, holding the writing turn until the batch ends
 * (format_batch).  Returns whether it wrote the text. */
static int spill_text(void *ctx, const char *text, size_t len)
{
    struct spill *c = ctx;
    struct rvt_out_jobs *j = c->j;
    if (!c->holding) {
        pthread_mutex_lock(&j->mu);
        if (!j->writing && j->write_seq == c->seq && !j->write_err && !rvt_outj_fmt_error(c->f) &&
            from_serial_state(j, c->s)) {
            j->writing = true;
            c->holding = true;
        }
        pthread_mutex_unlock(&j->mu);
        if (!c->holding)
            return 0;
    }
    if (c->caller)
        rvt_outj_write(j->o, text, len);
    else if (!c->werr)
        c->werr = rvt_outj_write_quiet(j->o, text, len);
    return 1;
}

/* A positional batch's text so far, written where it goes. */
struct place {
    struct rvt_output *o;
    uint64_t at;
    int err;
};
static int write_at(void *ctx, const char *text, size_t len)
{
    struct place *c = ctx;
    if (!c->err)
        c->err = rvt_outj_pwrite(c->o, text, len, c->at);
    c->at += len;
    return 1;
}

/* Format a positional batch with f (its text restarted), writing it at
 * its place as it grows: it goes out of the formatter's buffer while that
 * is in this core's cache, and no thread waits for its turn to write or
 * keeps text for it.  Keeping a batch's text until the batches before it
 * are written is what bounded `pcs --jobs 2` (the same decode with the
 * text thrown away was 1.84-1.94x one thread; bench/RESULTS.md, "What the
 * lead's sixteenth round changed").  Its error and end: drain. */
static void format_positional(struct rvt_out_jobs *j, struct slot *s, struct rvt_out_fmt *f)
{
    struct place c = {j->o, s->at, 0};
    rvt_outj_fmt_spill(f, j->place_step, write_at, &c);
    replay(s, f);
    rvt_outj_fmt_spill(f, 0, NULL, NULL);
    size_t len;
    const char *text = rvt_outj_fmt_text(f, &len);
    (void)write_at(&c, text, len);
    rvt_outj_fmt_clear_text(f);
    s->err = c.err ? c.err : rvt_outj_fmt_error(f);
    s->at_end = c.at;
    s->direct = true;
}

/* Format batch s, at place seq of the output, with formatter `me` (worker
 * or calling thread; no lock held), into buffer sp (take_buffer).  Returns
 * false if its text is left to drain; true if it has been written: this
 * thread then has the writing turn (the caller gives it back under the
 * lock), and *err is the error a worker leaves to the calling thread (0:
 * none).
 * One function under its own name: bench/speed.sh counts the threads'
 * host instructions in it (the formatting, on either thread). */
#if defined(__clang__)
__attribute__((noinline))
#elif defined(__GNUC__)
__attribute__((noinline, noclone))
#endif
static bool format_batch(struct rvt_out_jobs *j, struct slot *s, unsigned me, struct spare sp, uint64_t seq, int *err)
{
    struct rvt_out_fmt *f = j->fmt[me];
    rvt_outj_fmt_restart(f);
    if (j->positional) {
        format_positional(j, s, f);
        return false;
    }
    /* Into sp, the buffer this formatter's text went out from last: its
     * lines are still in this core's cache.  The formatter keeps its own
     * buffer meanwhile, untouched, and takes it back below.  (Swapping
     * only after formatting, the formatter alternated between two
     * buffers, 2.8 MB for a listing's batches of 32 Ki instructions, more
     * than the core's cache holds: `insn --jobs 2` 548 ms instead of 519,
     * one thread 850; bench/RESULTS.md, "What the lead's twentieth round
     * changed".) */
    char *own = sp.buf;
    size_t own_len = 0, own_cap = sp.cap;
    if (own)
        (void)rvt_outj_fmt_swap_text(f, &own, &own_len, &own_cap); /* (cannot fail: own is a buffer) */
    if (s->has_ctx) { /* the state its last block leaves (the text is the previous batch's) */
        rvt_outj_fmt_block(f, &s->ctx);
        rvt_outj_fmt_clear_text(f);
    }
    rvt_outj_fmt_peek_state(f, &s->init, &s->init_waiting);
    struct spill c = {j, s, f, seq, me == j->nworkers, false, 0};
    rvt_outj_fmt_spill(f, j->spill_step, spill_text, &c);
    replay(s, f);
    rvt_outj_fmt_spill(f, 0, NULL, NULL);
    rvt_outj_fmt_swap_state(f, &s->fin);
    s->err = rvt_outj_fmt_error(f);
    /* The text to the batch, its own buffer back to the formatter (a new
     * one if it had none). */
    s->text = own;
    s->tlen = 0;
    s->tcap = own_cap;
    s->owner = me;
    if (rvt_outj_fmt_swap_text(f, &s->text, &s->tlen, &s->tcap) < 0) {
        free(s->text);
        s->text = NULL;
        s->tlen = s->tcap = 0;
        if (!s->err)
            s->err = -RVT_ERR_NOMEM;
    }
    if (!c.holding)
        return false;
    /* Written as it grew: the rest of it, and what drain does after
     * writing a batch (write_batch). */
    if (s->tlen)
        (void)spill_text(&c, s->text, s->tlen);
    s->tlen = 0;
    formatted_written(j, s, c.caller);
    s->direct = true;
    if (!c.caller)
        *err = c.werr ? c.werr : s->err;
    return true;
}

/* How long a worker out of work watches for the next batch before it
 * sleeps.  The decoding thread hands a batch over every 20-60 us; a
 * worker that sleeps must be woken through the kernel, and on a virtual
 * machine its idle core too, which costs both threads tens of us each
 * time (bench/RESULTS.md, "What textjobs' round changed": a PC list's
 * worker slept 879 times in 10,041 batches). */
enum { SPIN_NS = 200 * 1000 };

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Watch (without the lock) for a batch after `claim` to be handed over,
 * for at most SPIN_NS; the caller checks again under the lock. */
static void spin_for_work(struct rvt_out_jobs *j, uint64_t claim)
{
    const uint64_t until = now_ns() + SPIN_NS;
    for (unsigned i = 1;; i++) {
        if (atomic_load_explicit(&j->fill_seq, memory_order_acquire) > claim)
            return;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
        /* (a core shared with another thread — the decoding thread, or
         * another process on a busy machine — goes to it: spinning there
         * made --jobs 2 60-70 % slower than --jobs 1, bench/RESULTS.md) */
        if (!(i & 63))
            sched_yield();
        if (!(i & 255) && now_ns() >= until)
            return;
    }
}

static void drain(struct rvt_out_jobs *j, unsigned me);

struct worker_arg {
    struct rvt_out_jobs *j;
    unsigned me;
};

static void *worker(void *arg)
{
    struct rvt_out_jobs *j = ((struct worker_arg *)arg)->j;
    unsigned me = ((struct worker_arg *)arg)->me;
    free(arg);
    pthread_mutex_lock(&j->mu);
    for (;;) {
        if (j->may_spin && !j->quit && j->claim_seq >= j->fill_seq &&
            !atomic_flag_test_and_set_explicit(&j->spinning, memory_order_acquire)) {
            const uint64_t claim = j->claim_seq;
            pthread_mutex_unlock(&j->mu);
            spin_for_work(j, claim);
            atomic_flag_clear_explicit(&j->spinning, memory_order_release);
            pthread_mutex_lock(&j->mu);
        }
        while (!j->quit && !(j->claim_seq < j->fill_seq && slot_of(j, j->claim_seq)->state == S_READY))
            pthread_cond_wait(&j->work, &j->mu);
        if (j->claim_seq < j->fill_seq && slot_of(j, j->claim_seq)->state == S_READY) {
            struct slot *s = slot_of(j, j->claim_seq++);
            s->state = S_BUSY;
            const uint64_t seq = j->claim_seq - 1;
            const struct spare sp = j->positional ? (struct spare){NULL, 0} : take_buffer(j, me);
            pthread_mutex_unlock(&j->mu);
            int err = 0;
            const bool written = format_batch(j, s, me, sp, seq, &err);
            s->by_worker = true;
            s->evicted = s->evict;
            s->evict_ns = 0;
            if (s->evict) {
                const uint64_t t = now_ns();
                evict_batch(s);
                s->evict_ns = now_ns() - t;
            }
            pthread_mutex_lock(&j->mu);
            s->state = S_DONE;
            if (written) { /* (the writing turn back; an error for the calling thread) */
                if (err && !j->write_err)
                    j->write_err = err;
                j->writing = false;
                j->by_workers++;
                j->spilled++;
            }
            drain(j, me);
            pthread_cond_broadcast(&j->done);
            continue;
        }
        break; /* quit, nothing left */
    }
    pthread_mutex_unlock(&j->mu);
    return NULL;
}

/* Write batch s (calling thread, no lock held): its text if it was
 * formatted from the serial listing's state here, else formatted again by
 * the output's own formatter, which holds that state. */
static void write_batch(struct rvt_out_jobs *j, struct slot *s)
{
    if (from_serial_state(j, s)) {
        rvt_outj_write(j->o, s->text, s->tlen);
        formatted_written(j, s, true);
        return;
    }
    replay(s, rvt_outj_serial_fmt(j->o));
}

/* Whether a worker may write batch s at the head (lock and the writing
 * turn held): only as it was formatted — formatting again goes through
 * the output's own formatter, whose caches the calling thread's batch
 * formatter shares, and errors are the calling thread's to give. */
static bool worker_may_write(const struct rvt_out_jobs *j, const struct slot *s)
{
    if (s->direct)
        return true; /* (written already: nothing to do) */
    return !s->err && !j->write_err && from_serial_state(j, s);
}

/* Write the finished batches at the head, in order, on thread `me` (a
 * worker, or the calling thread: me == nworkers).  One thread writes at a
 * time (j->writing); whichever finishes a batch at the head writes it, so
 * that its text goes out while it is in that core's cache and the buffer
 * is taken again from there.  Before, only the calling thread wrote, when
 * it next handed a batch over: a worker then found the head written in 20
 * of 6,348 batches, every text was kept until its turn, and each formatter
 * cycled through three or four buffers of 1.4 MB (a listing's batch),
 * more than its core's cache holds: `insn --jobs 2` took 567 ms where
 * the same work without the text kept took 472 (bench/RESULTS.md, "What
 * the lead's twentieth round changed").  A worker leaves a batch it may
 * not write (worker_may_write) to the calling thread.  Called with the
 * lock held; returns with it held. */
static void drain(struct rvt_out_jobs *j, unsigned me)
{
    const bool caller = me == j->nworkers;
    if (j->writing)
        return; /* (the thread writing takes what is done after it) */
    j->writing = true;
    if (caller && j->write_err) {
        rvt_outj_set_error(j->o, j->write_err);
        j->out_err = rvt_outj_error(j->o);
    }
    while (j->write_seq < j->claim_seq && slot_of(j, j->write_seq)->state == S_DONE) {
        struct slot *s = slot_of(j, j->write_seq);
        if (!caller && !worker_may_write(j, s))
            break;
        const bool worker_writes = !caller && !s->direct;
        if (j->positional) { /* (written where it goes already) */
            if (s->err && !j->write_err)
                j->write_err = s->err;
            if (s->at_end > j->at_end)
                j->at_end = s->at_end;
            j->in_place++;
        }
        pthread_mutex_unlock(&j->mu);
        int werr = 0;
        if (worker_writes) {
            werr = rvt_outj_write_quiet(j->o, s->text, s->tlen);
            formatted_written(j, s, false);
        } else if (!s->direct) {
            write_batch(j, s);
        }
        s->direct = false;
        if (caller)
            j->out_err = rvt_outj_error(j->o); /* (a write error: the blocks from now on return it) */
        pthread_mutex_lock(&j->mu);
        if (werr && !j->write_err)
            j->write_err = werr; /* (given by the calling thread: drain) */
        j->by_workers += worker_writes;
        if (s->text) { /* (back to its formatter: take_buffer) */
            j->spares[(size_t)s->owner * (j->nslots + 1) + j->nspare[s->owner]++] = (struct spare){s->text, s->tcap};
            s->text = NULL;
        }
        s->state = S_FREE;
        j->write_seq++;
    }
    j->writing = false;
}

/* Wait for progress at the head: format the next batch on this thread if
 * no worker has taken it, else sleep until a batch is done.  Lock held. */
static void help_or_wait(struct rvt_out_jobs *j)
{
    if (j->helps && j->claim_seq < j->fill_seq && slot_of(j, j->claim_seq)->state == S_READY) {
        struct slot *s = slot_of(j, j->claim_seq++);
        s->state = S_BUSY;
        /* Every batch before it written: formatted straight into the
         * output by the output's own formatter, as the serial decode does
         * (its state is the serial listing's here), not into a text kept
         * for its turn.  With another process busy on the worker's core,
         * where this thread formats most batches: `insn --jobs 2` 0.96 s
         * instead of 1.07 (one thread 0.84); elsewhere the same
         * (bench/RESULTS.md, "What the lead's nineteenth round changed"). */
        if (j->write_seq + 1 == j->claim_seq && !j->positional) {
            pthread_mutex_unlock(&j->mu);
            replay(s, rvt_outj_serial_fmt(j->o));
            s->direct = true;
            s->by_worker = s->evicted = false;
            j->direct++;
            pthread_mutex_lock(&j->mu);
            s->state = S_DONE;
            return;
        }
        const uint64_t seq = j->claim_seq - 1;
        const struct spare sp = j->positional ? (struct spare){NULL, 0} : take_buffer(j, j->nworkers);
        pthread_mutex_unlock(&j->mu);
        int err_unused = 0; /* (the calling thread's errors are the output's already) */
        const bool written = format_batch(j, s, j->nworkers, sp, seq, &err_unused);
        s->by_worker = s->evicted = false;
        pthread_mutex_lock(&j->mu);
        s->state = S_DONE;
        if (written) { /* (the writing turn back) */
            j->writing = false;
            j->spilled++;
        }
        return;
    }
    pthread_cond_wait(&j->done, &j->mu);
}

/* The blocks filled so far in the current batch (notes need their place). */
static size_t blocks_so_far(const struct rvt_out_jobs *j)
{
    return j->pcs || j->insn ? (size_t)(j->run_next - j->cur->runs) : (size_t)(j->blk_next - j->cur->blk);
}

/* The block a run is, as formatting needs it (its state), the index after
 * it being end_index. */
static struct rvt_block run_as_block(const struct rvt_block_run *e, uint64_t end_index)
{
    return (struct rvt_block){.start = e->start, .ninsns = e->ninsns, .index = end_index - e->ninsns, .end = RVT_END_SEQ};
}

/* A listing's last block in batch p (which has one), as formatting it
 * needs it: its last entry is a run or a whole block (an RVT_OUTJ_SET_INDEX
 * entry always has a run after it). */
static struct rvt_block insn_last_block(const struct slot *p)
{
    const struct rvt_block_run *e = &p->runs[p->nb - 1];
    return e->ninsns == RVT_OUTJ_WHOLE ? p->blk[e->start] : run_as_block(e, p->end_index);
}

/* Start the worker threads (none started yet; lock not held): -1 if
 * none could be. */
static int start_workers(struct rvt_out_jobs *j)
{
    for (unsigned i = 0; i < j->nworkers; i++) {
        struct worker_arg *a = malloc(sizeof *a);
        if (!a)
            break;
        *a = (struct worker_arg){j, i};
        if (pthread_create(&j->th[i], NULL, worker, a) != 0) {
            free(a);
            break;
        }
        j->started++;
        j->launched++;
    }
    return j->started ? 0 : -1;
}

/* Whether the decode has enough left for the workers to gain (no length
 * given: yes).  Asked at each hand-over from LAZY_BATCHES batches' worth
 * of instructions on until they start: a trace whose first part is sparse
 * says so later. */
static bool enough_left(const struct rvt_out_jobs *j)
{
    if (!j->expect_bytes || !j->at_offset || !j->insns_done)
        return true;
    const uint64_t bytes_left = j->expect_bytes > j->at_offset ? j->expect_bytes - j->at_offset : 0;
    double left = (double)j->insns_done * (double)bytes_left / (double)j->at_offset;
    if (j->expect_insns && j->expect_insns != RVT_DECODE_UNLIMITED) {
        const double limit_left = j->expect_insns > j->insns_done ? (double)(j->expect_insns - j->insns_done) : 0;
        if (limit_left < left)
            left = limit_left;
    }
    return left >= j->min_left;
}

/* Hand the batch being filled to the formatters (once per batch). */
static void submit(struct rvt_out_jobs *j)
{
    struct slot *s = j->cur;
    s->nb = blocks_so_far(j);
    s->end_index = j->next_index;
    j->tally.blocks = 0;
    for (unsigned e = 0; e < 16; e++)
        j->tally.blocks += j->tally.ends[e];
    rvt_outj_account_counts(j->o, &j->tally);
    j->insns_done += j->tally.insns;
    if (j->pcs && !j->positional_asked) { /* (the output's own sink has written its last) */
        j->positional_asked = true;
        bool regular = false;
        j->positional = rvt_outj_positional_begin(j->o, &j->at_next, &j->line_bytes, &regular) == 0;
        if (!regular)
            j->place_step = j->spill_step; /* (/dev/null) */
        j->at_end = j->at_next;
    }
    if (j->positional) {
        s->at = j->at_next;
        j->at_next += j->line_bytes * j->tally.insns;
        rvt_outj_reserve(j->o, j->at_next);
    }
    s->evict = rvt_evict_policy_next(&j->evict, now_ns() - j->fill_t0, j->tally.insns, j->prev_by_worker,
                                     j->prev_evicted, j->prev_evict_ns);
    memset(&j->tally, 0, sizeof j->tally);
    j->cur = NULL;
    j->left = 0;
    pthread_mutex_lock(&j->mu);
    s->state = S_READY;
    atomic_store_explicit(&j->fill_seq, j->fill_seq + 1, memory_order_release);
    pthread_cond_signal(&j->work);
    drain(j, j->nworkers);
    pthread_mutex_unlock(&j->mu);
}

/* The next batch to fill, on a free slot (the ring bounds the work in
 * flight). */
static struct slot *start_batch(struct rvt_out_jobs *j)
{
    struct slot *s = slot_of(j, j->fill_seq);
    pthread_mutex_lock(&j->mu);
    for (;;) {
        drain(j, j->nworkers);
        if (s->state == S_FREE)
            break;
        help_or_wait(j);
    }
    pthread_mutex_unlock(&j->mu);
    /* (what its slot's previous batch was: the slot is this thread's now) */
    j->prev_by_worker = s->by_worker;
    j->prev_evicted = s->evicted;
    j->prev_evict_ns = s->evict_ns;
    s->state = S_FILLING;
    s->nb = 0;
    s->nwhole = 0;
    s->nn = 0;
    s->alen = 0;
    /* The previous batch is not reused before this one (ring order).  A PC
     * list carries nothing from block to block. */
    const struct slot *p = j->fill_seq && !j->pcs ? slot_of(j, j->fill_seq - 1) : NULL;
    s->has_ctx = p && (p->nb || p->has_ctx);
    if (s->has_ctx)
        s->ctx = !p->nb ? p->ctx : j->insn ? insn_last_block(p) : p->blk[p->nb - 1];
    else if (!j->fill_seq && !j->pcs && j->fwd_have_last) { /* (the serial sink's last block: fwd) */
        s->has_ctx = true;
        s->ctx = j->fwd_last;
    }
    s->first_index = j->next_index;
    j->run_next = s->runs;
    j->blk_next = s->blk;
    j->left = j->batch_entries;
    j->cur = s;
    j->fill_t0 = now_ns();
    return s;
}

/* The serial sink's return value for block b, which the table of listable
 * blocks does not answer. */
static int check(struct rvt_out_jobs *j, const struct rvt_block *b)
{
    return j->listed && !rvt_outj_known_listable(j->listed, b) ? (j->out_err = rvt_outj_check_block(j->o, b))
                                                                : j->out_err;
}

/* A listing's block whose line names more than a run holds (a trap, an
 * implicit return), or whose count is an RVT_OUTJ_ entry's (none is). */
static inline bool insn_needs_whole(const struct rvt_block *b)
{
    return b->end == RVT_END_TRAP || (b->flags & RVT_BLK_IMPLICIT) || b->ninsns >= RVT_OUTJ_WHOLE;
}

static int runs_taken(struct rvt_out_jobs *j, const struct rvt_block_counts *c, struct rvt_block_run **room,
                      size_t *cap);

/* The batches and formatters, made when the workers start (start_now): a
 * decode that never starts them touches none of their pages.  -1: out of
 * memory (what was made is freed with j). */
static int prepare(struct rvt_out_jobs *j)
{
    struct rvt_output *o = j->o;
    j->ring = calloc(j->nslots, sizeof *j->ring);
    j->fmt = calloc(j->nworkers + 1, sizeof *j->fmt);
    j->spares = calloc((size_t)(j->nworkers + 1) * (j->nslots + 1), sizeof *j->spares);
    j->nspare = calloc(j->nworkers + 1, sizeof *j->nspare);
    if (!j->spares || !j->nspare)
        return -1;
    j->th = calloc(j->nworkers, sizeof *j->th);
    if (!j->ring || !j->fmt || !j->th)
        return -1;
    for (unsigned i = 0; i < j->nslots; i++) {
        struct slot *s = &j->ring[i];
        /* (a listing's batch may hold one entry more than batch_entries:
         * the index its last runs start at) */
        if (j->pcs ? !(s->runs = malloc(j->batch_entries * sizeof *s->runs))
                   : !(s->blk = malloc(j->batch_entries * sizeof *s->blk)) ||
                         !(s->notes = malloc(j->batch_entries * sizeof *s->notes)) ||
                         (j->insn && !(s->runs = malloc((j->batch_entries + 1) * sizeof *s->runs))))
            return -1;
        if (rvt_outj_state_init(o, &s->fin) < 0)
            return -1;
    }
    if (rvt_outj_check_init(o) < 0)
        return -1;
    j->listed = rvt_outj_listed_table(o);
    j->out_err = rvt_outj_error(o);
    /* (the calling thread's formatter, the last, shares the output's own
     * formatter's tables: that thread runs both) */
    for (unsigned i = 0; i <= j->nworkers; i++)
        if (!(j->fmt[i] = rvt_outj_fmt_new(o, i == j->nworkers)))
            return -1;
    return 0;
}

/* Until the workers start, the output's own sink takes every block, run
 * and note, as in the serial decode (fwd): a decode too short for the
 * workers to gain costs what it costs on one thread.  (In the fourteenth
 * round the first batches went through the batch path on the decoding
 * thread: 1-7 % more; bench/RESULTS.md, "What the lead's fifteenth round
 * changed".)  The workers start once LAZY_BATCHES batches' worth of
 * instructions have gone by and enough is left (enough_left); the first
 * batch is formatted from the last block the serial sink took (its ctx),
 * and written by the rule of every batch (write_batch: formatted again if
 * that was not the serial listing's state).  If no worker can be started,
 * the serial sink keeps everything. */
static bool start_now(struct rvt_out_jobs *j)
{
    if (j->insns_done < j->lazy_insns || !enough_left(j))
        return false;
    if (prepare(j) < 0 || start_workers(j) < 0) {
        j->lazy_insns = UINT64_MAX;
        return false;
    }
    j->fwd = false;
    j->out_err = rvt_outj_error(j->o);
    return true;
}

/* fwd: a block.  The engine holds no room for runs when it gives one
 * (it hands over the runs before it first), so the workers may start
 * after it. */
static int fwd_block(struct rvt_out_jobs *j, const struct rvt_block *b)
{
    const int rc = j->serial.block(j->serial.ctx, b);
    j->insns_done += b->ninsns;
    j->fwd_last = *b;
    j->fwd_have_last = true;
    j->next_index = b->index + b->ninsns;
    if (!rc)
        (void)start_now(j);
    return rc;
}

/* fwd: n runs in the room the serial sink lent last; the room for the
 * next ones is the serial sink's, or a batch's once the workers start. */
static int fwd_runs(struct rvt_out_jobs *j, size_t n, const struct rvt_block_counts *c, uint64_t index,
                    struct rvt_block_run **room, size_t *cap)
{
    if (n) {
        j->next_index = index + c->insns;
        j->fwd_last = run_as_block(&j->fwd_room[n - 1], j->next_index);
        j->fwd_have_last = true;
    }
    j->insns_done += c->insns;
    const bool go = room && start_now(j);
    const int rc = j->serial.runs(j->serial.ctx, n, c, index, go ? NULL : room, cap);
    if (!go) {
        if (room)
            j->fwd_room = *room;
        return rc;
    }
    if (rc)
        return rc;
    static const struct rvt_block_counts none;
    return runs_taken(j, &none, room, cap);
}

/* insn: block b into the batch (which has room for two entries): whole
 * beside if it needs to be, else a run, after the index it starts at when
 * that does not follow on. */
static void insn_entry(struct rvt_out_jobs *j, const struct rvt_block *b)
{
    struct slot *s = j->cur;
    if (insn_needs_whole(b)) {
        s->blk[s->nwhole] = *b;
        *j->run_next++ = (struct rvt_block_run){s->nwhole++, RVT_OUTJ_WHOLE};
    } else {
        if (b->index != j->next_index)
            *j->run_next++ = (struct rvt_block_run){b->index, RVT_OUTJ_SET_INDEX};
        *j->run_next++ = (struct rvt_block_run){b->start, b->ninsns};
    }
    j->next_index = b->index + b->ninsns;
}

/* What on_block_* leave to a call: a batch to start or to end, a block the
 * table does not answer.  Out of line, so that theirs is short. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int on_block_slow(struct rvt_out_jobs *j, const struct rvt_block *b)
{
    int rc = check(j, b);
    if (!j->cur)
        start_batch(j);
    j->tally.ends[b->end & 15]++;
    j->tally.insns += b->ninsns;
    if (j->pcs)
        *j->run_next++ = (struct rvt_block_run){b->start, b->ninsns};
    else if (j->insn)
        insn_entry(j, b);
    else
        *j->blk_next++ = *b;
    /* (notes count: a batch ends at batch_entries entries, or instructions) */
    if (blocks_so_far(j) + j->cur->nn >= j->batch_entries || j->tally.insns >= j->batch_insns)
        submit(j);
    else
        j->left = j->batch_entries - blocks_so_far(j) - j->cur->nn;
    return rc;
}

/* A batch full of instructions (rc: the block's return value, taken before
 * the batch's text is written). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int end_batch(struct rvt_out_jobs *j, int rc)
{
    submit(j);
    return rc;
}

/* Block b is in the batch; its statistics, and the batch ends
 * when it holds enough instructions.  Returns the serial sink's answer. */
static inline int taken(struct rvt_out_jobs *j, const struct rvt_block *b)
{
    j->left--;
    j->tally.ends[b->end & 15]++;
    if ((j->tally.insns += b->ninsns) >= j->batch_insns)
        return end_batch(j, j->out_err);
    return j->out_err;
}

/* pcs: one block that is not a run (a decoder's own, or any
 * block when the engine cannot give runs): the serial sink's return value,
 * its statistics, where it starts and how many instructions it has. */
static int on_block_pcs(void *ctx, const struct rvt_block *b)
{
    struct rvt_out_jobs *j = ctx;
    if (j->fwd)
        return fwd_block(j, b);
    if (j->left < 2 || !rvt_outj_known_listable(j->listed, b))
        return on_block_slow(j, b);
    *j->run_next++ = (struct rvt_block_run){b->start, b->ninsns};
    return taken(j, b);
}

/* At most this many runs are lent at a time (rvt_flow_sink.runs), so that
 * a batch ends close to BATCH_INSNS instructions: its text stays bounded. */
enum { RUNS_LENT = 256 };

/* pcs and insn: the runs just put into the batch (their counts c):
 * the batch ends when it is full; then (room) room for more, at most
 * RUNS_LENT runs, where the batch's next block goes — a listing's one
 * entry on, where on_runs_insn puts the index they start at. */
static int runs_taken(struct rvt_out_jobs *j, const struct rvt_block_counts *c, struct rvt_block_run **room,
                      size_t *cap)
{
    if (c->blocks) {
        for (unsigned e = 0; e < 16; e++)
            j->tally.ends[e] += c->ends[e];
        j->tally.insns += c->insns;
        if (blocks_so_far(j) + j->cur->nn >= j->batch_entries || j->tally.insns >= j->batch_insns)
            submit(j);
        else
            j->left = j->batch_entries - blocks_so_far(j) - j->cur->nn;
    }
    if (!room)
        return j->out_err;
    if (!j->cur)
        start_batch(j);
    const size_t left = j->batch_entries - blocks_so_far(j) - j->cur->nn; /* (>= 1: a full batch ends) */
    *room = j->insn ? j->run_next + 1 : j->run_next;
    *cap = left < RUNS_LENT ? left : RUNS_LENT;
    return j->out_err;
}

/* pcs: the n runs the engine wrote where the batch's next block
 * goes (the room lent last).  The engine gives runs only when it walks
 * the output's image (rvt_flow_sink.runs_image): every run is in the code
 * the output lists, so none needs the check that stops the serial decode
 * at a block outside the code (a decoder's own blocks, which may be, come
 * one at a time to on_block_pcs). */
static int on_runs_pcs(void *ctx, size_t n, const struct rvt_block_counts *c, uint64_t index,
                       struct rvt_block_run **room, size_t *cap)
{
    struct rvt_out_jobs *j = ctx;
    if (j->fwd)
        return fwd_runs(j, n, c, index, room, cap);
    if (n) /* (no batch may be open: run_next is then NULL) */
        j->run_next += n;
    return runs_taken(j, c, room, cap);
}

/* insn: the n runs the engine wrote one entry after the batch's
 * next entry (the room lent last); that entry says the index they start
 * at (each next one's follows on: rvt_flow_sink.runs).  Like a PC list's,
 * every run is in the code the output lists; a block that ends in a trap
 * or an implicit return, whose line names more, comes whole to
 * on_block_insn (runs_plain). */
static int on_runs_insn(void *ctx, size_t n, const struct rvt_block_counts *c, uint64_t index,
                        struct rvt_block_run **room, size_t *cap)
{
    struct rvt_out_jobs *j = ctx;
    if (j->fwd)
        return fwd_runs(j, n, c, index, room, cap);
    if (n) { /* (no batch may be open: run_next is then NULL) */
        *j->run_next = (struct rvt_block_run){index, RVT_OUTJ_SET_INDEX};
        j->run_next += 1 + n;
        j->next_index = index + c->insns; /* (c: the counts of these runs) */
    }
    return runs_taken(j, c, room, cap);
}

/* insn: one block that is not a run, as a listing needs it. */
static int on_block_insn(void *ctx, const struct rvt_block *b)
{
    struct rvt_out_jobs *j = ctx;
    if (j->fwd)
        return fwd_block(j, b);
    if (j->left < 2 || !rvt_outj_known_listable(j->listed, b) || insn_needs_whole(b) || b->index != j->next_index)
        return on_block_slow(j, b);
    *j->run_next++ = (struct rvt_block_run){b->start, b->ninsns};
    j->next_index += b->ninsns;
    return taken(j, b);
}

/* blocks: one block, whole. */
static int on_block_fmt(void *ctx, const struct rvt_block *b)
{
    struct rvt_out_jobs *j = ctx;
    if (j->fwd)
        return fwd_block(j, b);
    if (j->left < 2 || (j->listed && !rvt_outj_known_listable(j->listed, b)))
        return on_block_slow(j, b);
    *j->blk_next++ = *b;
    return taken(j, b);
}

static int append_note(struct rvt_out_jobs *j, const struct rvt_note *n)
{
    struct slot *s = j->cur ? j->cur : start_batch(j);
    const size_t nb = blocks_so_far(j);
    uint32_t text = 0;
    if (n->text) {
        size_t k = strlen(n->text) + 1;
        if (s->alen + k > s->acap || s->alen + k > UINT32_MAX - 1) {
            size_t cap = s->acap ? 2 * s->acap : 4096;
            while (cap < s->alen + k)
                cap *= 2;
            char *a = cap < UINT32_MAX - 1 ? realloc(s->arena, cap) : NULL;
            if (!a)
                return -RVT_ERR_NOMEM;
            s->arena = a;
            s->acap = cap;
        }
        memcpy(s->arena + s->alen, n->text, k);
        text = (uint32_t)s->alen + 1;
        s->alen += k;
    }
    struct noted *e = &s->notes[s->nn++];
    e->at = nb;
    e->text = text;
    e->n = *n;
    e->n.text = NULL;
    /* A note takes a block's place in the batch (j->left).  A batch
     * ends after a block: a decoder sends data notes before the block of
     * their instruction, so the listing has none waiting there and the next
     * batch's guessed state holds (a full batch ends anyway: the batch's
     * arrays hold batch_entries entries in all). */
    if (j->left)
        j->left--;
    if (nb + s->nn == j->batch_entries)
        submit(j);
    return 0;
}

static int on_note(void *ctx, const struct rvt_note *n)
{
    struct rvt_out_jobs *j = ctx;
    if (j->fwd)
        return j->serial.note(j->serial.ctx, n);
    int rc = rvt_outj_account_note(j->o, n);
    /* A PC list has no note text: only the statistics above. */
    if (j->pcs)
        return rc;
    int arc = append_note(j, n);
    if (arc < 0 && !j->err)
        j->err = arc;
    return rc ? rc : arc;
}

struct rvt_out_jobs *rvt_out_jobs_new(struct rvt_output *o, unsigned threads)
{
    if (!o)
        return NULL;
    struct rvt_out_jobs *j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    j->o = o;
    j->batch_entries = BATCH_ENTRIES;
    j->batch_insns = BATCH_INSNS;
    uint64_t lazy_batches = LAZY_BATCHES;
    const char *env = getenv("RVT_JOBS_BATCH");
    if (env) {
        long n = strtol(env, NULL, 10);
        if (n >= 1 && n <= BATCH_ENTRIES) {
            j->batch_entries = (size_t)n;
            j->batch_insns = 8 * (uint64_t)n;
        }
    }
    j->spill_step = SPILL_STEP;
    j->place_step = POSITIONAL_FILE_STEP;
    if ((env = getenv("RVT_JOBS_SPILL")) != NULL && *env)
        j->spill_step = j->place_step = (size_t)strtoull(env, NULL, 10);
    /* RVT_JOBS_LAZY=K: the workers start after K batches' worth of
     * instructions (0: at the decode's first block or runs);
     * RVT_JOBS_MIN_LEFT=N: if N instructions are left (0: whatever is
     * left).  The tests and the fuzz target meet every switch with them. */
    if ((env = getenv("RVT_JOBS_LAZY")) != NULL && *env) {
        long n = strtol(env, NULL, 10);
        if (n >= 0)
            lazy_batches = (uint64_t)n;
    }
    j->lazy_insns = lazy_batches * j->batch_insns;
    j->min_left = MIN_LEFT_INSNS;
    if ((env = getenv("RVT_JOBS_MIN_LEFT")) != NULL && *env) {
        long n = strtol(env, NULL, 10);
        if (n >= 0)
            j->min_left = (double)n;
    }
    const unsigned cores = rvt_jobs_default();
    if (threads == 0)
        threads = cores;
    if (threads > 64)
        threads = 64;
    j->may_spin = threads <= cores;
    env = getenv("RVT_JOBS_HELP");
    j->helps = !env || strcmp(env, "0") != 0;
    atomic_flag_clear(&j->spinning);
    j->mode = threads > 1 ? rvt_outj_mode(o) : RVT_OUTJ_SERIAL;
    if (j->mode == RVT_OUTJ_SERIAL)
        return j;
    j->pcs = rvt_outj_kind(o) == RVT_OUT_PCS;
    j->insn = rvt_outj_kind(o) == RVT_OUT_INSN; /* (listed: as for pcs) */
    j->fwd = true; /* (until the workers start: start_now) */
    j->serial = rvt_out_sink(o);
    j->nworkers = threads - 1; /* (the calling thread formats too) */
    pthread_mutex_init(&j->mu, NULL);
    pthread_cond_init(&j->work, NULL);
    pthread_cond_init(&j->done, NULL);
    j->nslots = 2 * threads + 2; /* (the batches and formatters: prepare) */
    rvt_evict_policy_init(&j->evict);
    return j;
}

void rvt_out_jobs_expect(struct rvt_out_jobs *j, uint64_t trace_bytes, uint64_t max_insns)
{
    j->expect_bytes = trace_bytes;
    j->expect_insns = max_insns;
}

void rvt_out_jobs_progress(void *jobs, uint64_t offset)
{
    ((struct rvt_out_jobs *)jobs)->at_offset = offset;
}

void rvt_out_jobs_stats(const struct rvt_out_jobs *j, struct rvt_out_jobs_stats *st)
{
    *st = (struct rvt_out_jobs_stats){0};
    if (j && j->mode != RVT_OUTJ_SERIAL)
        *st = (struct rvt_out_jobs_stats){j->evict.batches, j->evict.evicted, j->evict.probes, j->evict.won_evict,
                                          j->direct, j->by_workers, j->spilled, j->in_place};
}

unsigned rvt_out_jobs_launched(const struct rvt_out_jobs *j)
{
    return j ? j->launched : 0;
}

struct rvt_flow_sink rvt_out_jobs_sink(struct rvt_out_jobs *j)
{
    if (j->mode == RVT_OUTJ_SERIAL)
        return rvt_out_sink(j->o);
    /* (one block at a time, not .blocks: each block's return value is the
     * serial sink's, which stops the decode at that block; the engine's
     * error names the trace offset where it stopped.  A PC list and a
     * listing take runs: none of them can stop the decode but a write
     * error, which the threaded decode learns of a batch later anyway) */
    return (struct rvt_flow_sink){
        .block = j->pcs ? on_block_pcs : j->insn ? on_block_insn : on_block_fmt,
        .note = on_note,
        .runs = !j->serial.runs ? NULL : j->pcs ? on_runs_pcs : j->insn ? on_runs_insn : NULL, /* (as the output's own) */
        .runs_image = rvt_outj_image(j->o),
        .runs_plain = j->insn,
        .ctx = j};
}

/* Stop the workers (after every batch is done, or on failure). */
static void stop(struct rvt_out_jobs *j)
{
    if (!j->started)
        return;
    pthread_mutex_lock(&j->mu);
    j->quit = true;
    pthread_cond_broadcast(&j->work);
    pthread_mutex_unlock(&j->mu);
    for (unsigned i = 0; i < j->started; i++)
        pthread_join(j->th[i], NULL);
    j->started = 0;
}

int rvt_out_jobs_finish(struct rvt_out_jobs *j)
{
    if (j->mode == RVT_OUTJ_SERIAL)
        return 0;
    if (j->cur)
        submit(j);
    pthread_mutex_lock(&j->mu);
    for (;;) {
        drain(j, j->nworkers);
        if (j->write_seq == j->fill_seq)
            break;
        help_or_wait(j);
    }
    pthread_mutex_unlock(&j->mu);
    stop(j);
    if (j->positional) { /* (the output goes on after the text, and a file written over is cut there) */
        rvt_outj_set_error(j->o, j->write_err);
        rvt_outj_positional_end(j->o, j->at_end);
    }
    rvt_outj_set_error(j->o, j->err);
    return j->err;
}

void rvt_out_jobs_free(struct rvt_out_jobs *j)
{
    if (!j)
        return;
    if (j->mode != RVT_OUTJ_SERIAL) {
        stop(j);
        for (unsigned i = 0; j->ring && i < j->nslots; i++) {
            struct slot *s = &j->ring[i];
            free(s->blk);
            free(s->runs);
            free(s->notes);
            free(s->arena);
            free(s->text);
            rvt_outj_state_free(&s->fin);
        }
        for (unsigned i = 0; j->fmt && i <= j->nworkers; i++)
            rvt_outj_fmt_free(j->fmt[i]);
        for (unsigned i = 0; j->nspare && i <= j->nworkers; i++)
            for (unsigned k = 0; k < j->nspare[i]; k++)
                free(j->spares[(size_t)i * (j->nslots + 1) + k].buf);
        free(j->spares);
        free(j->nspare);
        free(j->ring);
        free(j->fmt);
        free(j->th);
        pthread_mutex_destroy(&j->mu);
        pthread_cond_destroy(&j->work);
        pthread_cond_destroy(&j->done);
    }
    free(j);
}
