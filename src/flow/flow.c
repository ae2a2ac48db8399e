/* The flow engine: walks the code image one cached block at a time under
 * the limits a decoder gives, follows what the code alone determines, stops
 * where the trace must say something, and emits blocks of sequentially
 * retired instructions. */
#include "rvtrace/flow.h"

#include "image/bcache_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define BQ_WORDS 64 /* branch queue capacity: 4096 outcomes */
/* Blocks held for a sink that takes batches (rvt_flow_sink.blocks): large
 * enough that the call is a small part of a block's cost, small enough to
 * stay in the cache. */
#define BATCH_BLOCKS 128

#if defined(__GNUC__)
#define RVT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define RVT_UNLIKELY(x) (x)
#endif

struct pending {
    uint64_t addr;     /* the retired instruction whose successor is undecided */
    uint64_t next;     /* its fall-through */
    uint64_t target;   /* static target (branch/jal) or sijump target */
    uint8_t cf;
    uint8_t len;
    bool sij;          /* uninferable jump with a sequentially inferred target */
};

/* The counting walk's memo (walk_fast): from a block start, with the next
 * MEMO_K branch outcomes known, the whole chain of cache blocks up to and
 * including the block of the MEMO_K-th branch, summed: a loop the code runs
 * again with the same outcomes is retired in one step instead of block by
 * block.  The fast loop records an entry itself: on a lookup that finds
 * none it walks on block by block as always and, after each block it
 * retires, notes what that block was (struct memo_rec, memo_record); its
 * own counts since the chain's first block (instructions, halfwords, ends
 * by kind, the open output block) are the chain's sums when its MEMO_K-th
 * outcome has been used.  Only blocks the fast loop continues by itself
 * (no control flow, branches, inferable jumps and calls that push nothing)
 * are in a chain: a return, a call that pushes, a block across the end of
 * the address space, more than MEMO_MAX_BLOCKS blocks or a block the loop
 * hands back or stops at make an entry that says "no chain" (n = 0); a
 * walk that ends inside the chain for its own reasons (a limit, the cache
 * grown) keeps nothing.  So an entry holds what the fast loop did, which
 * is exact whatever the walk's limits are as long as none of them falls
 * inside the chain (walk_fast checks: fewer instructions than the walk may
 * still retire, the stop address outside [lo, hi]).  Fixed size; an entry
 * is overwritten by the next key that hashes to it. */
#define MEMO_K 6                      /* branch outcomes a chain consumes */
#define MEMO_LOG2 12                  /* 4096 entries */
#define MEMO_MAX_BLOCKS 64            /* longer chains are not kept */
struct memo_entry {
    uint64_t pc;      /* key: the chain's first block */
    uint32_t key;     /* key: the MEMO_K outcomes (bit 0 first, 1 taken) | memo_gen << MEMO_K */
    uint32_t hint;    /* the successor hint for `end` (as a cache slot's succ[]; the loop sets it) */
    uint64_t end;     /* where execution goes after the chain */
    uint64_t lo;      /* the chain's blocks lie within [lo, lo + hi_off] (starts and last instructions) */
    uint64_t bstart;  /* the target of its last discontinuity (disc) */
    uint32_t hi_off;
    uint32_t last_off; /* the last block's last instruction (a branch), from lo */
    uint16_t n;       /* instructions (0: no chain from here with these outcomes) */
    uint16_t hw;      /* halfwords */
    uint16_t tail;    /* instructions after its last discontinuity (or all, without one) */
    uint8_t ends[3];  /* blocks it ends: taken branches, jumps, calls */
    bool disc;        /* it has a discontinuity */
};
/* One cache line an entry; the sums fit (at most 64 blocks of at most
 * RVT_BLOCK_MAX_INSNS instructions of at most 2 halfwords). */
_Static_assert(sizeof(struct memo_entry) <= 64, "a memo entry is one cache line");
_Static_assert(MEMO_MAX_BLOCKS * RVT_BLOCK_MAX_INSNS * 2 <= UINT16_MAX, "a chain's halfwords fit 16 bits");

/* What an engine has learnt about the program, not about the trace: it
 * decides no output, only how fast the engine gets there.  Any engine of
 * the same configuration may use it (rvt_flow_swap_caches: the parallel
 * decode keeps one per thread, warm, and lends it to the engine the thread
 * runs). */
struct flow_caches {
    struct rvt_bcache *bc;
    /* The walk's fast path: what it does per class of last instruction,
     * for the walk flags in action_flags. */
    bool action_valid;
    uint32_t action_flags;
    uint8_t action[RVT_CF_EBREAK + 1];
    /* The counting walk's memo (struct memo_entry): MEMO_SLOTS entries,
     * keyed by block start, the next MEMO_K branch outcomes and memo_gen
     * (the fast-path action table they were made under; changes with it). */
    struct memo_entry *memo;
    void *memo_mem; /* (what memo is in) */
    uint32_t memo_gen;
};

/* A field added here that decides what the engine does from then on must be
 * compared in rvt_flow_state_equal (the parallel decode's join check). */
struct rvt_flow {
    struct rvt_flow_config cfg;
    struct rvt_diag diag;
    struct flow_caches cache;
    unsigned xlen;
    uint64_t mask;

    bool have_pc;
    uint64_t pc;
    bool pending;
    struct pending p;
    uint32_t wflags;  /* flags of the last walk, used to resolve pending naturally */
    const struct rvt_walk *walk; /* the walk in progress (its branch-outcome callback), else NULL */

    uint64_t bq[BQ_WORDS];
    unsigned bq_head, bq_len; /* in bits */

    struct rvt_callstack cs;

    bool blk_open;
    struct rvt_block blk;
    uint64_t blk_end; /* address after the open block's last instruction */
    /* The counting fast loop's last retired cache block, whose last
     * instruction and class (and end, the output block open) blk and
     * blk_end get when the loop hands back: one store a block instead of
     * three (NULL: they have them). */
    const struct rvt_block_info *cnt_last;

    /* The last retired instruction, for sequentially inferable jumps whose
     * auipc/lui/c.lui ended the previous cache block or walk. */
    bool lr_valid;
    uint64_t lr_addr;

    uint8_t priv;
    uint64_t context;
    bool have_time;
    uint64_t time;
    uint64_t offset;
    uint64_t insns;
    uint64_t implicit_returns; /* returns the call stack predicted */
    uint64_t sijumps;          /* sequentially inferable jumps followed */
    uint64_t insn_cap; /* max_insns, or UINT64_MAX for none */
    bool limited;     /* max_insns reached: the decode is over */
    uint64_t limit_offset;
    char limit_text[160];

    uint64_t progress_next, progress_every; /* cfg.progress: when next */

    char lead_text[640]; /* a damaged start's note (classify_lead) */

    /* Emitted blocks not yet handed to a batch sink (deliver()):
     * batch[0] .. bnext - 1. */
    struct rvt_block *bnext;
    /* The batch sink stopped the decode: every later delivery fails (a
     * stop a call could not return, or that the decoder did not heed, ends
     * the decode at the next). */
    bool stopped;
    struct rvt_block batch[BATCH_BLOCKS];
    /* Emitted blocks not yet handed to a counting sink
     * (rvt_flow_sink.counts): ends and insns (deliver() adds up blocks);
     * also those of the runs not yet handed over (below). */
    struct rvt_block_counts tally;
    /* A sink that takes runs (rvt_flow_sink.runs, runs_mode()): run[0 ..
     * run_n - 1] written into the room it lent, run_cap runs in all (0:
     * none lent). */
    struct rvt_block_run *run;
    size_t run_n, run_cap;
    uint64_t run_index; /* the stream index of run[0] */
};

static int deliver(struct rvt_flow *f);
static void deliver_now(struct rvt_flow *f);

/* ---- call stack ----------------------------------------------------------- */

void rvt_cs_init(struct rvt_callstack *cs, unsigned depth, enum rvt_cs_overflow overflow)
{
    cs->depth = depth > RVT_CALLSTACK_MAX ? RVT_CALLSTACK_MAX : depth;
    cs->overflow = overflow;
    cs->count = 0;
    cs->top = 0;
}

void rvt_cs_clear(struct rvt_callstack *cs)
{
    cs->count = 0;
    cs->top = 0;
}

bool rvt_cs_push(struct rvt_callstack *cs, uint64_t ret)
{
    if (!cs->depth)
        return false;
    bool lost = false;
    if (cs->count == cs->depth) {
        if (cs->overflow == RVT_CS_IGNORE_NEW)
            return true;
        lost = true; /* the oldest entry is overwritten */
    } else {
        cs->count++;
    }
    cs->entry[cs->top] = ret;
    cs->top = (cs->top + 1) % cs->depth;
    return lost;
}

bool rvt_cs_pop(struct rvt_callstack *cs, uint64_t *ret)
{
    if (!cs->count)
        return false;
    cs->top = (cs->top + cs->depth - 1) % cs->depth;
    cs->count--;
    *ret = cs->entry[cs->top];
    return true;
}

bool rvt_cs_peek(const struct rvt_callstack *cs, uint64_t *ret)
{
    if (!cs->count)
        return false;
    *ret = cs->entry[(cs->top + cs->depth - 1) % cs->depth];
    return true;
}

/* ---- names ---------------------------------------------------------------- */

const char *rvt_block_end_name(unsigned end)
{
    static const char *const names[] = {"seq", "branch", "jump", "call", "return",
                                        "coswap", "trap", "trapret", "ecall", "gap"};
    return end < sizeof names / sizeof names[0] ? names[end] : "?";
}

static uint8_t end_of_cf(unsigned cf)
{
    switch (cf) {
    case RVT_CF_BRANCH:
        return RVT_END_BRANCH;
    case RVT_CF_CALL_INF:
    case RVT_CF_CALL_UNINF:
    case RVT_CF_OTHER_INF:
    case RVT_CF_OTHER_UNINF:
        return RVT_END_CALL;
    case RVT_CF_JUMP_INF:
    case RVT_CF_JUMP_UNINF:
        return RVT_END_JUMP;
    case RVT_CF_RETURN:
        return RVT_END_RETURN;
    case RVT_CF_COSWAP:
        return RVT_END_COSWAP;
    case RVT_CF_TRAPRET:
        return RVT_END_TRAPRET;
    case RVT_CF_ECALL:
    case RVT_CF_EBREAK:
        return RVT_END_ECALL;
    default:
        return RVT_END_SEQ;
    }
}

/* ---- lifecycle ------------------------------------------------------------ */

struct rvt_flow *rvt_flow_new(const struct rvt_flow_config *cfg)
{
    if (!cfg || cfg->size < sizeof *cfg || !cfg->image)
        return NULL;
    struct rvt_flow *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->cfg = *cfg;
    f->xlen = cfg->xlen ? cfg->xlen : rvt_img_xlen(cfg->image);
    if (f->xlen != 32 && f->xlen != 64) {
        free(f);
        return NULL;
    }
    f->mask = f->xlen == 32 ? 0xffffffffull : ~0ull;
    f->bnext = f->batch;
    f->cache.bc = rvt_bcache_new(cfg->image, 0);
    /* (calloc: its pages stay untouched until a counting walk uses them;
     * the entries start at a cache line) */
    f->cache.memo_mem = calloc(((size_t)1 << MEMO_LOG2) * sizeof *f->cache.memo + 64, 1);
    if (f->cache.memo_mem)
        f->cache.memo = (struct memo_entry *)(((uintptr_t)f->cache.memo_mem + 63) & ~(uintptr_t)63);
    if (!f->cache.bc || !f->cache.memo_mem) {
        rvt_bcache_free(f->cache.bc);
        free(f->cache.memo_mem);
        free(f);
        return NULL;
    }
    rvt_cs_init(&f->cs, cfg->callstack_depth, cfg->callstack_overflow);
    f->priv = RVT_PRIV_M;
    f->insn_cap = cfg->max_insns ? cfg->max_insns : UINT64_MAX;
    f->progress_every = cfg->progress_every ? cfg->progress_every : 1u << 20;
    f->progress_next = cfg->progress ? f->progress_every : UINT64_MAX;
    return f;
}

void rvt_flow_free(struct rvt_flow *f)
{
    if (!f)
        return;
    (void)deliver(f); /* the last blocks of a decode that stopped without finishing */
    rvt_bcache_free(f->cache.bc);
    free(f->cache.memo_mem);
    free(f);
}

const char *rvt_flow_error(const struct rvt_flow *f)
{
    return f->diag.msg;
}

void rvt_flow_reset(struct rvt_flow *f)
{
    deliver_now(f); /* blocks emitted before the reset are part of the history */
    f->have_pc = false;
    f->pending = false;
    f->lr_valid = false;
    f->bq_head = f->bq_len = 0;
    f->blk_open = false;
    rvt_cs_clear(&f->cs);
    rvt_diag_clear(&f->diag);
}

void rvt_flow_set_offset(struct rvt_flow *f, uint64_t offset)
{
    f->offset = offset;
    if (offset >= f->progress_next) {
        f->progress_next = offset + f->progress_every;
        f->cfg.progress(f->cfg.progress_ctx, offset);
    }
}

bool rvt_flow_have_pc(const struct rvt_flow *f)
{
    return f->have_pc;
}

bool rvt_flow_pending(const struct rvt_flow *f)
{
    return f->pending;
}

uint64_t rvt_flow_pc(const struct rvt_flow *f)
{
    return f->pc;
}

uint64_t rvt_flow_insns(const struct rvt_flow *f)
{
    return f->insns;
}

bool rvt_flow_limit_reached(const struct rvt_flow *f)
{
    return f->limited;
}

struct rvt_callstack *rvt_flow_callstack(struct rvt_flow *f)
{
    return &f->cs;
}

uint64_t rvt_flow_implicit_returns(const struct rvt_flow *f)
{
    return f->implicit_returns;
}

uint64_t rvt_flow_sijumps(const struct rvt_flow *f)
{
    return f->sijumps;
}

bool rvt_flow_pending_sijump(const struct rvt_flow *f)
{
    const struct pending *p = &f->p;
    return f->pending && p->sij && f->cfg.sijump && p->cf != RVT_CF_TRAPRET && p->cf != RVT_CF_RETURN;
}

void rvt_flow_buffer_wrapped(struct rvt_flow *f)
{
    f->cfg.starts_at_trace_start = false;
}

struct rvt_bcache *rvt_flow_bcache(struct rvt_flow *f)
{
    return f->cache.bc;
}

unsigned rvt_flow_xlen(const struct rvt_flow *f)
{
    return f->xlen;
}

bool rvt_flow_reference(const struct rvt_flow *f)
{
    return f->cfg.no_fast_walk;
}

/* ---- errors and output ------------------------------------------------------ */

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int ffail(struct rvt_flow *f, enum rvt_err code, const char *fmt, ...)
{
    /* The blocks before the failure go out before the decoder reacts to it
     * (a consumer that stops the decode there: that is the failure). */
    if (!f->stopped) {
        int rc = deliver(f);
        if (rc < 0)
            return rc;
    }
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return rvt_fail(&f->diag, code, "trace offset 0x%" PRIx64 ": %s", f->offset, what);
}

static void describe_at(struct rvt_flow *f, uint64_t addr, char *buf, size_t n)
{
    struct rvt_insn in;
    if (rvt_img_insn(f->cfg.image, addr, &in) < 0) {
        snprintf(buf, n, "no code");
        return;
    }
    if (!(in.flags & RVT_IF_VALID)) {
        snprintf(buf, n, "invalid instruction 0x%08" PRIx32, in.bits);
        return;
    }
    rvt_isa_disasm(&in, f->xlen, buf, n);
}

static int limit_error(struct rvt_flow *f);

/* Decoders report the bytes they cannot decode before their first sync
 * point as RVT_GAP_WRAP: the older part of a wrapped trace RAM, or a
 * damaged start, which the bytes alone cannot tell apart.  The caller can:
 * a trace that starts where tracing started has a sync point first, so
 * there the note is an error. */
static const struct rvt_note *classify_lead(struct rvt_flow *f, const struct rvt_note *n, struct rvt_note *tmp)
{
    if (!f->cfg.starts_at_trace_start || n->kind != RVT_NOTE_GAP || n->reason != RVT_GAP_WRAP)
        return n;
    *tmp = *n;
    tmp->kind = RVT_NOTE_ERROR;
    tmp->reason = RVT_GAP_ERROR;
    snprintf(f->lead_text, sizeof f->lead_text,
             "damaged start: %s; this trace is not a wrapped trace RAM, so it begins with a sync point (decode a "
             "wrapped RAM with its .sink description, or --wp ADDR --wrap 1)",
             n->text ? n->text : "bytes before the first sync point cannot be decoded");
    tmp->text = f->lead_text;
    return tmp;
}

/* The counts held to a counting sink (none: nothing to do). */
static int deliver_counts(struct rvt_flow *f)
{
    struct rvt_block_counts c = f->tally;
    for (unsigned e = 0; e < 16; e++)
        c.blocks += c.ends[e];
    if (!c.blocks)
        return 0;
    memset(&f->tally, 0, sizeof f->tally);
    return f->cfg.sink.counts(f->cfg.sink.ctx, &c);
}

/* The sink takes runs (rvt_flow_sink.runs): it lists this engine's image. */
static inline bool runs_mode(const struct rvt_flow *f)
{
    return f->cfg.sink.runs && f->cfg.sink.runs_image == f->cfg.image && !f->cfg.sink.counts;
}

/* Hand the runs written so far and their counts to the sink, and (more)
 * take the room it lends for the next ones.  Nonzero: the sink stops the
 * decode. */
static int hand_runs(struct rvt_flow *f, bool more)
{
    /* The room lent is given back whatever happens: the sink's next entry
     * goes where the runs written into it end. */
    const size_t n = f->run_n;
    f->run = NULL;
    f->run_n = f->run_cap = 0;
    struct rvt_block_counts c = f->tally;
    for (unsigned e = 0; e < 16; e++)
        c.blocks += c.ends[e];
    if (!n && !c.blocks && !more)
        return 0;
    memset(&f->tally, 0, sizeof f->tally);
    struct rvt_block_run *room = NULL;
    size_t cap = 0;
    int rc = f->cfg.sink.runs(f->cfg.sink.ctx, n, &c, f->run_index, more ? &room : NULL, &cap);
    if (rc)
        return rc;
    if (more) {
        if (!room || !cap)
            return 1;
        f->run = room;
        f->run_cap = cap;
    }
    return 0;
}

/* Room for the next run (the lent room is full): out of line, once per
 * lending. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int runs_room(struct rvt_flow *f)
{
    if (!f->stopped && hand_runs(f, true) == 0)
        return 0;
    f->stopped = true;
    return ffail(f, RVT_ERR_LIMIT, "output consumer stopped the decode");
}

/* A block to a sink that takes runs that is not a run (a decoder's, which
 * may lie outside the code; for runs_plain, one that ends in a trap or an
 * implicit return): on its own, after the runs before it, so that a sink
 * that refuses it stops the decode here. */
static int emit_alone(struct rvt_flow *f, const struct rvt_block *b)
{
    int rc = deliver(f);
    if (rc < 0)
        return rc;
    if (f->cfg.sink.block(f->cfg.sink.ctx, b))
        return ffail(f, RVT_ERR_LIMIT, "output consumer stopped the decode");
    return 0;
}

/* Hand the batch to the sink (nothing held: nothing to do).  Once per
 * batch: out of line. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int deliver(struct rvt_flow *f)
{
    size_t n = (size_t)(f->bnext - f->batch);
    f->bnext = f->batch;
    if (!f->stopped) {
        /* (one of them at most: rvt_flow_set_sink delivers before the sink changes) */
        if (runs_mode(f) ? hand_runs(f, false) == 0
                         : (!n || f->cfg.sink.blocks(f->cfg.sink.ctx, f->batch, n) == 0) &&
                               (!f->cfg.sink.counts || deliver_counts(f) == 0))
            return 0;
        f->stopped = true;
    }
    return ffail(f, RVT_ERR_LIMIT, "output consumer stopped the decode");
}

/* A delivery whose failure cannot be returned: the next one fails. */
static void deliver_now(struct rvt_flow *f)
{
    (void)deliver(f);
}

/* One block to the sink: into the batch, or the per-block callback. */
static inline int emit(struct rvt_flow *f, const struct rvt_block *b)
{
    if (f->cfg.sink.counts) {
        f->tally.ends[b->end & 15]++;
        f->tally.insns += b->ninsns;
        return f->stopped ? deliver(f) : 0;
    }
    if (runs_mode(f)) { /* (a block retired from the code: rvt_flow_emit_block's do not come here) */
        if (f->cfg.sink.runs_plain && (b->end == RVT_END_TRAP || (b->flags & RVT_BLK_IMPLICIT)))
            return emit_alone(f, b);
        if (f->run_n == f->run_cap) {
            int rc = runs_room(f);
            if (rc < 0)
                return rc;
        }
        if (!f->run_n)
            f->run_index = b->index;
        f->run[f->run_n++] = (struct rvt_block_run){b->start, b->ninsns};
        f->tally.ends[b->end & 15]++;
        f->tally.insns += b->ninsns;
        return 0;
    }
    if (f->cfg.sink.blocks) {
        memcpy(f->bnext++, b, sizeof *b);
        return f->bnext == f->batch + BATCH_BLOCKS || f->stopped ? deliver(f) : 0;
    }
    if (f->cfg.sink.block && f->cfg.sink.block(f->cfg.sink.ctx, b))
        return ffail(f, RVT_ERR_LIMIT, "output consumer stopped the decode");
    return 0;
}

static int note(struct rvt_flow *f, struct rvt_note *n)
{
    if (f->limited)
        return limit_error(f);
    int rc = deliver(f); /* the blocks before it first */
    if (rc < 0)
        return rc;
    if (!f->cfg.sink.note)
        return 0;
    n->offset = f->offset;
    n->index = f->insns;
    struct rvt_note tmp;
    rc = f->cfg.sink.note(f->cfg.sink.ctx, classify_lead(f, n, &tmp));
    return rc ? ffail(f, RVT_ERR_LIMIT, "output consumer stopped the decode") : 0;
}

static inline int flush(struct rvt_flow *f, uint8_t end, uint64_t next)
{
    if (!f->blk_open)
        return 0;
    if (f->limited) { /* everything up to the limit was emitted when it was reached */
        f->blk_open = false;
        return limit_error(f);
    }
    f->blk_open = false;
    f->blk.end = end;
    f->blk.next = next;
    f->blk.trace_offset = f->offset;
    return emit(f, &f->blk);
}

/* Append n instructions of cache block b (from its first) to the open block.
 * Always inlined: it is the walk's inner step. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int retire(struct rvt_flow *f, const struct rvt_block_info *b, uint32_t n)
{
    uint32_t hw;
    uint64_t last;
    uint8_t last_len;
    if (n == b->ninsns) { /* the common case: the cache block has it all */
        hw = b->halfwords;
        last = b->last;
        last_len = (uint8_t)(b->next - b->last);
    } else {
        hw = rvt_block_hw_offset(b, n);
        uint32_t lasthw = rvt_block_hw_offset(b, n - 1);
        last = (b->start + 2ull * lasthw) & f->mask;
        last_len = (uint8_t)(2 * (hw - lasthw));
    }
    if (f->blk_open && f->blk_end == b->start) {
        f->blk.ninsns += n;
        f->blk.last = last;
        f->blk.last_len = last_len;
        f->blk.cf = n == b->ninsns ? b->cf : RVT_CF_NONE;
    } else {
        int rc = flush(f, RVT_END_SEQ, b->start);
        if (rc < 0)
            return rc;
        f->blk_open = true;
        memset(&f->blk, 0, sizeof f->blk);
        f->blk.start = b->start;
        f->blk.last = last;
        f->blk.last_len = last_len;
        f->blk.ninsns = n;
        f->blk.index = f->insns;
        f->blk.priv = f->priv;
        f->blk.context = f->context;
        f->blk.cf = n == b->ninsns ? b->cf : RVT_CF_NONE;
        if (f->have_time) {
            f->blk.time = f->time;
            f->blk.flags |= RVT_BLK_HAS_TIME;
        }
    }
    f->blk_end = (b->start + 2ull * hw) & f->mask;
    f->insns += n;
    f->lr_valid = true;
    f->lr_addr = last;
    return 0;
}

/* Control leaves the open block for `to` (a discontinuity). */
static int transfer(struct rvt_flow *f, uint8_t end, uint64_t to, uint8_t flags)
{
    to &= f->mask;
    if (f->blk_open)
        f->blk.flags |= flags;
    int rc = flush(f, end, to);
    f->pc = to;
    f->have_pc = true;
    return rc;
}

/* ---- branch queue ------------------------------------------------------------ */

int rvt_flow_push_branches(struct rvt_flow *f, uint64_t bits, unsigned n)
{
    if (n > 64)
        return ffail(f, RVT_ERR_INVAL, "more than 64 branch outcomes pushed at once");
    if (f->bq_len + n > BQ_WORDS * 64)
        return ffail(f, RVT_ERR_OVERFLOW, "%u branch outcomes queued that the code never used", f->bq_len);
    const uint64_t m = n == 64 ? ~0ull : (1ull << n) - 1;
    bits &= m;
    if (f->bq_len == 0) { /* (the usual case: an empty queue starts at its first word again) */
        f->bq_head = 0;
        f->bq[0] = bits;
        f->bq_len = n;
        return 0;
    }
    if (n == 0)
        return 0;
    /* Whole words: the outcomes land at the tail, the bits around them
     * (the head may share the tail's word) stay. */
    unsigned pos = (f->bq_head + f->bq_len) % (BQ_WORDS * 64), word = pos / 64, sh = pos % 64;
    f->bq[word] = (f->bq[word] & ~(m << sh)) | bits << sh;
    if (sh + n > 64) {
        unsigned w2 = (word + 1) % BQ_WORDS, r = 64 - sh;
        f->bq[w2] = (f->bq[w2] & ~(m >> r)) | bits >> r;
    }
    f->bq_len += n;
    return 0;
}

unsigned rvt_flow_queued_branches(const struct rvt_flow *f)
{
    return f->bq_len;
}

void rvt_flow_clear_branches(struct rvt_flow *f)
{
    f->bq_head = f->bq_len = 0;
}

static bool bq_pop(struct rvt_flow *f)
{
    bool t = (f->bq[f->bq_head / 64] >> (f->bq_head % 64)) & 1;
    f->bq_head = (f->bq_head + 1) % (BQ_WORDS * 64);
    f->bq_len--;
    return t;
}

/* ---- state changes ---------------------------------------------------------- */

int rvt_flow_sync(struct rvt_flow *f, uint64_t addr, uint8_t priv, uint64_t context, bool clear_stack)
{
    addr &= f->mask;
    int rc = flush(f, RVT_END_SEQ, addr);
    if (rc < 0)
        return rc;
    f->pending = false;
    f->lr_valid = false;
    f->bq_head = f->bq_len = 0;
    if (clear_stack)
        rvt_cs_clear(&f->cs);
    f->pc = addr;
    f->have_pc = true;
    f->priv = priv;
    f->context = context;
    struct rvt_note n = {.kind = RVT_NOTE_SYNC, .addr = addr, .priv = priv, .value = context};
    return note(f, &n);
}

int rvt_flow_set_context(struct rvt_flow *f, uint8_t priv, uint64_t context)
{
    if (priv == f->priv && context == f->context)
        return 0;
    /* A block has one privilege and context: close the open one. */
    if (f->blk_open) {
        int rc = flush(f, RVT_END_SEQ, f->blk_end);
        if (rc < 0)
            return rc;
    }
    f->priv = priv;
    f->context = context;
    struct rvt_note n = {.kind = RVT_NOTE_CONTEXT, .addr = f->pc, .priv = priv, .value = context};
    return note(f, &n);
}

void rvt_flow_set_time(struct rvt_flow *f, uint64_t time)
{
    f->have_time = true;
    f->time = time;
    if (f->blk_open && !f->blk.ninsns) { /* a placeholder takes what its first instruction's block would */
        f->blk.time = time;
        f->blk.flags |= RVT_BLK_HAS_TIME;
    }
    deliver_now(f); /* (this call returns nothing: a sink that stops here is told at the next delivery) */
    struct rvt_note n = {.kind = RVT_NOTE_TIME, .addr = f->pc, .priv = f->priv, .value = time};
    note(f, &n);
}

/* ---- resolving the pending instruction ------------------------------------- */

/* Calls push their return address.  "Other jumps with linkage" link a
 * register that is not x1/x5 and are not calls for the implicit-return
 * stack.  An ecall treated as an uninferable call is a call (ingress itype
 * 8), so encoder and decoder push for it alike.  A co-routine swap pushes
 * unless swap_keeps_stack. */
static void push_call(struct rvt_flow *f, const struct pending *p)
{
    bool ecall_call = (p->cf == RVT_CF_ECALL || p->cf == RVT_CF_EBREAK) &&
                      f->cfg.ecall == RVT_FLOW_ECALL_UNINFERABLE;
    if ((rvt_cf_is_call(p->cf) && !(p->cf == RVT_CF_COSWAP && f->cfg.swap_keeps_stack)) || ecall_call)
        rvt_cs_push(&f->cs, p->next & f->mask);
}

/* A branch without a queued outcome: ask the walk's callback (kept out of
 * resolve_natural, which is on every block's path). */
static int branch_by_callback(struct rvt_flow *f, uint32_t wflags)
{
    struct pending *p = &f->p;
    bool taken = false;
    if (f->walk->branch_outcome(f->walk->branch_ctx, p->addr, &taken) <= 0) {
        if (!(wflags & RVT_WALK_NT_DEFAULT))
            return 0;
        taken = false; /* declined: the walk's default, not taken */
    }
    f->pending = false;
    if (taken)
        return transfer(f, RVT_END_BRANCH, p->target, 0) < 0 ? -1 : 1;
    f->pc = p->next;
    return 1;
}

/* Resolve by the code alone if possible (or by the branch-outcome callback
 * of the walk in progress): 1 = resolved, 0 = needs the trace. */
static int resolve_natural(struct rvt_flow *f, uint32_t wflags)
{
    struct pending *p = &f->p;
    switch (p->cf) {
    case RVT_CF_NONE:
        f->pending = false;
        f->pc = p->next;
        return 1;
    case RVT_CF_BRANCH:
        if (f->bq_len) {
            f->pending = false;
            if (bq_pop(f))
                return transfer(f, RVT_END_BRANCH, p->target, 0) < 0 ? -1 : 1;
            f->pc = p->next;
            return 1;
        }
        if (f->walk && f->walk->branch_outcome)
            return branch_by_callback(f, wflags);
        if (wflags & RVT_WALK_NT_DEFAULT) {
            f->pending = false;
            f->pc = p->next;
            return 1;
        }
        return 0;
    case RVT_CF_CALL_INF:
    case RVT_CF_JUMP_INF:
    case RVT_CF_OTHER_INF:
        f->pending = false;
        push_call(f, p);
        return transfer(f, end_of_cf(p->cf), p->target, 0) < 0 ? -1 : 1;
    case RVT_CF_ECALL:
    case RVT_CF_EBREAK:
        if (f->cfg.ecall == RVT_FLOW_ECALL_SEQUENTIAL) {
            f->pending = false;
            f->pc = p->next;
            return 1;
        }
        return 0;
    case RVT_CF_RETURN:
        if ((wflags & RVT_WALK_IMPLICIT_RET) && f->cs.count) {
            uint64_t ret;
            rvt_cs_pop(&f->cs, &ret);
            f->pending = false;
            f->implicit_returns++;
            return transfer(f, RVT_END_RETURN, ret, RVT_BLK_IMPLICIT) < 0 ? -1 : 1;
        }
        /* fall through: maybe sequentially inferable */
        /* FALLTHROUGH */
    default:
        /* The ingress sijump signal only applies to itypes 6, 8, 10, 12 and
         * 14: never to returns (13) or trap returns (3). */
        if (p->sij && f->cfg.sijump && p->cf != RVT_CF_TRAPRET && p->cf != RVT_CF_RETURN) {
            f->pending = false;
            f->sijumps++;
            if (p->cf == RVT_CF_COSWAP && f->cfg.pop_on_explicit_return && !f->cfg.swap_keeps_stack) {
                uint64_t ret;
                rvt_cs_pop(&f->cs, &ret);
            }
            push_call(f, p);
            return transfer(f, end_of_cf(p->cf), p->target, 0) < 0 ? -1 : 1;
        }
        return 0;
    }
}

int rvt_flow_branch(struct rvt_flow *f, bool taken)
{
    if (!f->pending)
        return ffail(f, RVT_ERR_MISMATCH, "branch outcome given but no instruction is waiting for one");
    if (f->p.cf != RVT_CF_BRANCH) {
        char t[96];
        describe_at(f, f->p.addr, t, sizeof t);
        return ffail(f, RVT_ERR_MISMATCH, "trace says branch %s, but '%s' at 0x%" PRIx64 " is not a conditional branch",
                     taken ? "taken" : "not taken", t, f->p.addr);
    }
    f->pending = false;
    if (taken)
        return transfer(f, RVT_END_BRANCH, f->p.target, 0);
    f->pc = f->p.next;
    return 0;
}

int rvt_flow_jump(struct rvt_flow *f, uint64_t target)
{
    target &= f->mask;
    if (!f->pending)
        return ffail(f, RVT_ERR_MISMATCH, "jump target 0x%" PRIx64 " given but no jump is waiting for one", target);
    struct pending *p = &f->p;
    bool uninf = rvt_cf_uninferable(p->cf) || p->cf == RVT_CF_ECALL || p->cf == RVT_CF_EBREAK;
    if (!uninf) {
        /* An explicit address for something the code determines is only
         * acceptable when it agrees with the code. */
        uint64_t natural = p->cf == RVT_CF_NONE ? p->next : p->target;
        if (target != natural || p->cf == RVT_CF_BRANCH) {
            char t[96];
            describe_at(f, p->addr, t, sizeof t);
            if (p->cf == RVT_CF_BRANCH && (target == p->target || target == p->next))
                return rvt_flow_branch(f, target == p->target && target != p->next);
            return ffail(f, RVT_ERR_MISMATCH,
                         "trace says execution went from 0x%" PRIx64 " to 0x%" PRIx64 ", but '%s' there goes to 0x%" PRIx64,
                         p->addr, target, t, natural);
        }
        f->pending = false;
        push_call(f, p);
        return transfer(f, end_of_cf(p->cf), target, 0);
    }
    f->pending = false;
    if ((p->cf == RVT_CF_RETURN || (p->cf == RVT_CF_COSWAP && !f->cfg.swap_keeps_stack)) &&
        f->cfg.pop_on_explicit_return) {
        uint64_t ret;
        rvt_cs_pop(&f->cs, &ret);
    }
    push_call(f, p);
    return transfer(f, end_of_cf(p->cf), target, 0);
}

int rvt_flow_continue(struct rvt_flow *f)
{
    if (!f->pending)
        return 0;
    int rc = resolve_natural(f, f->wflags);
    if (rc < 0)
        return -f->diag.code;
    if (rc == 0) {
        char t[96];
        describe_at(f, f->p.addr, t, sizeof t);
        return ffail(f, RVT_ERR_MISMATCH, "the trace gives no %s for '%s' at 0x%" PRIx64,
                     f->p.cf == RVT_CF_BRANCH ? "branch outcome" : "target", t, f->p.addr);
    }
    return 0;
}

int rvt_flow_trap(struct rvt_flow *f, bool interrupt, uint32_t cause, uint64_t tval, bool have_handler,
                  uint64_t handler)
{
    f->pending = false;
    handler &= f->mask;
    if (f->blk_open) { /* the trap follows the block's last instruction */
        f->blk.cause = cause;
        f->blk.tval = tval;
        if (interrupt)
            f->blk.flags |= RVT_BLK_INTERRUPT;
        int rc = flush(f, RVT_END_TRAP, have_handler ? handler : 0);
        if (rc < 0)
            return rc;
    } else {
        struct rvt_note n = {.kind = RVT_NOTE_TRAP, .addr = f->pc, .priv = f->priv, .value = cause,
                             .reason = interrupt, .tval = tval};
        int rc = note(f, &n);
        if (rc < 0)
            return rc;
    }
    f->have_pc = have_handler;
    f->pc = handler;
    f->lr_valid = false; /* the handler's first instruction follows the trap, not the code before it */
    return 0;
}

int rvt_flow_gap(struct rvt_flow *f, enum rvt_gap_reason reason, const char *text)
{
    if (f->limited)
        return limit_error(f);
    int rc = flush(f, RVT_END_GAP, 0);
    f->pending = false;
    f->have_pc = false;
    f->lr_valid = false;
    f->bq_head = f->bq_len = 0;
    struct rvt_note n = {.kind = reason == RVT_GAP_ERROR ? RVT_NOTE_ERROR : RVT_NOTE_GAP,
                         .reason = (uint8_t)reason,
                         .addr = f->pc,
                         .text = text,
                         .priv = f->priv};
    int rc2 = note(f, &n);
    return rc < 0 ? rc : rc2;
}

int rvt_flow_finish(struct rvt_flow *f)
{
    int rc = flush(f, RVT_END_SEQ, f->have_pc && !f->pending ? f->pc : f->pending ? f->p.next : 0);
    int rc2 = deliver(f);
    return rc < 0 ? rc : rc2;
}

/* ---- the instruction limit ------------------------------------------------------- */

static int limit_error(struct rvt_flow *f)
{
    return rvt_fail(&f->diag, RVT_ERR_LIMIT, "trace offset 0x%" PRIx64 ": %s", f->limit_offset, f->limit_text);
}

/* The walk must retire more than max_insns: end the output here, once. */
static int limit_reached(struct rvt_flow *f)
{
    if (f->limited)
        return limit_error(f);
    int rc = flush(f, RVT_END_GAP, 0);
    f->limit_offset = f->offset;
    snprintf(f->limit_text, sizeof f->limit_text,
             "the decode stops at its limit of %" PRIu64 " instructions, with more to retire", f->cfg.max_insns);
    struct rvt_note n = {.kind = RVT_NOTE_GAP, .reason = RVT_GAP_LIMIT, .addr = f->pc, .text = f->limit_text,
                         .priv = f->priv, .value = f->cfg.max_insns};
    int rc2 = note(f, &n);
    f->limited = true;
    f->pending = false;
    f->have_pc = false;
    if (rc < 0 || rc2 < 0)
        return rc < 0 ? rc : rc2;
    return limit_error(f);
}

/* The walk would retire past max_insns: retire up to it (whole
 * instructions of cache block b), then stop.  Out of line: it happens once. */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static int retire_to_limit(struct rvt_flow *f, const struct rvt_block_info *b)
{
    uint32_t k = (uint32_t)(f->insn_cap - f->insns);
    if (k && retire(f, b, k) < 0)
        return -f->diag.code;
    return limit_reached(f);
}

/* ---- the walk ------------------------------------------------------------------- */

/* The last instruction of cache block b waits for the trace, as class cf. */
static inline void pend_last(struct rvt_flow *f, const struct rvt_block_info *b, uint8_t cf, bool sij)
{
    struct pending *p = &f->p;
    f->pending = true;
    p->addr = b->last;
    p->next = b->next;
    p->cf = cf;
    p->target = b->target;
    p->sij = sij;
    p->len = (uint8_t)(b->next - b->last);
}

static void set_pending(struct rvt_flow *f, const struct rvt_block_info *b, uint32_t n)
{
    struct pending *p = &f->p;
    if (n == b->ninsns) {
        pend_last(f, b, b->cf, (b->flags & RVT_BI_SIJUMP) != 0);
    } else {
        f->pending = true;
        uint32_t hw = rvt_block_hw_offset(b, n), lhw = rvt_block_hw_offset(b, n - 1);
        p->addr = (b->start + 2ull * lhw) & f->mask;
        p->next = (b->start + 2ull * hw) & f->mask;
        p->cf = RVT_CF_NONE;
        p->target = 0;
        p->sij = false;
        p->len = (uint8_t)(2 * (hw - lhw));
    }
}

static int no_code(struct rvt_flow *f, const struct rvt_block_info *b, uint64_t pc)
{
    if (b->flags & RVT_BI_STOP_BADINSN) {
        char t[96];
        describe_at(f, pc, t, sizeof t);
        return ffail(f, RVT_ERR_BADINSN, "execution reaches 0x%" PRIx64 " where the code has an %s", pc, t);
    }
    return ffail(f, RVT_ERR_NOCODE, "execution reaches 0x%" PRIx64 " where the image has no code", pc);
}

/* A jump that starts its cache block: was the instruction retired just
 * before it (ending the previous block or walk) the auipc/lui/c.lui that set
 * its rs1?  Rare, so decoded here rather than cached. */
static void cross_block_sijump(struct rvt_flow *f, uint64_t prev_addr)
{
    struct rvt_insn prev, jump;
    uint64_t t;
    if (rvt_img_insn(f->cfg.image, prev_addr, &prev) < 0 || rvt_img_insn(f->cfg.image, f->p.addr, &jump) < 0)
        return;
    if (rvt_isa_sijump_target(&prev, &jump, f->xlen, &t)) {
        f->p.sij = true;
        f->p.target = t;
    }
}

static void fill_stop(struct rvt_flow *f, struct rvt_stop *st, uint8_t reason)
{
    st->reason = reason;
    if (f->pending) {
        st->cf = f->p.cf;
        st->last = f->p.addr;
        st->target = f->p.target;
        st->pc = f->p.next;
    } else {
        st->cf = RVT_CF_NONE;
        st->pc = f->pc;
    }
}

#if defined(__GNUC__)
#define RVT_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define RVT_ALWAYS_INLINE inline
#endif

/* The branch queue read in words: `word` holds the next outcomes, bit 0
 * first, above them a 1 that marks where they end (word == 1: none left);
 * `loaded` counts the outcomes taken from the queue into a word so far. */
struct bq_reader {
    uint64_t word;
    unsigned loaded;
};

/* Refill an empty reader and take an outcome: 1 taken, 0 not, -1 none. */
static int bq_refill(const struct rvt_flow *f, struct bq_reader *r)
{
    if (r->loaded == f->bq_len)
        return -1;
    unsigned pos = (f->bq_head + r->loaded) % (BQ_WORDS * 64), left = f->bq_len - r->loaded;
    unsigned k = 64 - pos % 64;
    if (k > 63)
        k = 63;
    if (k > left)
        k = left;
    r->word = ((f->bq[pos / 64] >> (pos % 64)) & ((1ull << k) - 1)) | 1ull << k;
    r->loaded += k;
    int t = (int)(r->word & 1);
    r->word >>= 1;
    return t;
}

/* Write back what was used. */
static void bq_done(struct rvt_flow *f, const struct bq_reader *r)
{
    unsigned unused = 0;
#if defined(__GNUC__)
    unused = 63u - (unsigned)__builtin_clzll(r->word); /* the marker's position */
#else
    for (uint64_t w = r->word; w > 1; w >>= 1)
        unused++;
#endif
    unsigned used = r->loaded - unused;
    f->bq_head = (f->bq_head + used) % (BQ_WORDS * 64);
    f->bq_len -= used;
}

/* What the fast path does after a cache block, by the class of its last
 * instruction (a table per walk: the walk's flags decide). */
enum fast_action { FA_HANDBACK = 0, FA_SEQ, FA_BRANCH, FA_CALL, FA_OTHER, FA_JUMP, FA_RETURN };
/* The limits a walk has (the fast path is instantiated per combination). */
enum {
    LIM_HW = 1,
    LIM_IN = 2,
    LIM_ADDR = 4,
    LIM_BATCH = 8, /* not a limit: the sink takes batches */
    LIM_COUNT = 16, /* not a limit: the sink counts blocks */
    LIM_UNINF = 32, /* not a limit: stop at an uninferable jump itself (else hand it back) */
    LIM_RUNS = 64   /* not a limit: the sink takes runs (as LIM_COUNT, and each block's start and length) */
};

struct fast_state {
    uint64_t hw_left, in_left; /* the walk's limits (UINT64_MAX: none) */
    uint64_t stop;             /* RVT_WALK_ADDR's address (else odd: in no block) */
};

/* A branch with no queued outcome: the walk's callback or its default;
 * -1 if neither decides. */
static int branch_default(const struct rvt_walk *w, uint64_t addr)
{
    bool taken = false;
    if (w->branch_outcome && w->branch_outcome(w->branch_ctx, addr, &taken) > 0)
        return taken;
    return (w->flags & RVT_WALK_NT_DEFAULT) ? 0 : -1;
}

static inline size_t memo_index(uint64_t pc, uint32_t bits)
{
    return (size_t)((((pc >> 1) ^ ((uint64_t)bits << 40)) * 0x9E3779B97F4A7C15ull) >> (64 - MEMO_LOG2));
}

/* A chain the fast loop is recording (struct memo_entry): where its entry
 * goes, and the loop's counts when it began, which its own counts then
 * go on from. */
struct memo_rec {
    struct memo_entry *e;
    uint64_t pc;       /* its first block */
    uint32_t key;
    unsigned blocks;   /* retired so far */
    uint64_t word_end; /* the branch-queue word once the chain's MEMO_K outcomes are used */
    uint64_t in, hw;   /* the loop's instructions and halfwords left at its start */
    uint64_t ends[3];  /* f->tally's branch, jump and call ends at its start */
    uint64_t lo, hi;   /* the lowest block start and highest last instruction so far */
};

static void memo_rec_start(struct rvt_flow *f, struct memo_rec *r, struct memo_entry *e, uint64_t pc, uint32_t key,
                           uint64_t word, uint64_t in, uint64_t hw)
{
    r->e = e;
    r->pc = r->lo = r->hi = pc;
    r->key = key;
    r->blocks = 0;
    r->word_end = word >> MEMO_K;
    r->in = in;
    r->hw = hw;
    r->ends[0] = f->tally.ends[RVT_END_BRANCH];
    r->ends[1] = f->tally.ends[RVT_END_JUMP];
    r->ends[2] = f->tally.ends[RVT_END_CALL];
}

/* The recorded chain's key holds no chain: the same key makes none again. */
static void memo_rec_none(const struct memo_rec *r)
{
    memset(r->e, 0, sizeof *r->e);
    r->e->pc = r->pc;
    r->e->key = r->key;
}

/* The recorded chain is whole: its entry, from the loop's counts after its
 * last block b (the loop at pc; bstart, in_open: its open output block). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void memo_rec_store(struct rvt_flow *f, const struct memo_rec *r, const struct rvt_block_info *b, uint64_t pc,
                           uint64_t in, uint64_t hw, uint64_t bstart, uint64_t in_open)
{
    if (r->hi - r->lo > UINT32_MAX) { /* (code more than 4 GiB apart: not kept) */
        memo_rec_none(r);
        return;
    }
    struct memo_entry *e = r->e;
    e->pc = r->pc;
    e->key = r->key;
    e->hint = 0;
    e->end = pc;
    e->lo = r->lo;
    e->hi_off = (uint32_t)(r->hi - r->lo);
    e->last_off = (uint32_t)(b->last - r->lo);
    e->n = (uint16_t)(r->in - in);
    e->hw = (uint16_t)(r->hw - hw);
    e->ends[0] = (uint8_t)(f->tally.ends[RVT_END_BRANCH] - r->ends[0]);
    e->ends[1] = (uint8_t)(f->tally.ends[RVT_END_JUMP] - r->ends[1]);
    e->ends[2] = (uint8_t)(f->tally.ends[RVT_END_CALL] - r->ends[2]);
    /* every discontinuity in a chain ends a block of one of those kinds */
    e->disc = e->ends[0] || e->ends[1] || e->ends[2];
    e->bstart = e->disc ? bstart : 0;
    e->tail = (uint16_t)(e->disc ? in_open - in : e->n);
}

/* The recording fast loop has retired block b and its branch-queue word
 * is now `word`: 0 while the chain goes on, 1 when its MEMO_K-th outcome
 * has been used (the chain is whole), -1 when b is a block no chain may
 * hold (the key is then stored as no chain). */
static RVT_ALWAYS_INLINE int memo_record(struct rvt_flow *f, struct memo_rec *r, const struct rvt_block_info *b,
                                         uint64_t word)
{
    const enum fast_action act = (enum fast_action)f->cache.action[b->cf];
    /* a return pops the implicit-return stack and a call pushes on it: not
     * the same chain for every stack */
    if (act == FA_RETURN || (act == FA_CALL && f->cs.depth) || b->last < b->start ||
        ++r->blocks > MEMO_MAX_BLOCKS) {
        memo_rec_none(r);
        return -1;
    }
    if (b->start < r->lo)
        r->lo = b->start;
    if (b->last > r->hi)
        r->hi = b->last;
    return word == r->word_end;
}

/* The counting loop's last retired cache block into f->blk: its last
 * instruction and class, and (the output block is open: the block went on
 * sequentially) where it ends. */
static inline void set_last(struct rvt_flow *f, const struct rvt_block_info *b, bool open)
{
    f->blk.last = b->last;
    f->blk.cf = b->cf;
    if (open)
        f->blk_end = b->next;
}

/* The walk's fast path: whole cache blocks that no limit of the walk cuts
 * and whose successor the code, the branch queue, the call stack or the
 * walk's branch-outcome callback decides.  It does what the general step in
 * walk() (retire, set_pending, resolve_natural, transfer) does for such
 * blocks, with the walk's state and the open output block in registers, and
 * hands back (returning 0, nothing of that block retired) at the first
 * block that needs anything else.  Returns 1 when the walk stopped at a
 * branch nothing decides, or with a halfword limit reached exactly at the
 * end of a block (st filled, the last instruction pending, as the general
 * step leaves it), <0 on an error.  A decode spends most of its time in this
 * loop: keep anything rare out of it. */
static RVT_ALWAYS_INLINE int walk_fast(struct rvt_flow *f, const struct rvt_walk *w, struct rvt_stop *st,
                                       struct fast_state *fs, const unsigned lim)
{
    const uint64_t pc0 = f->pc;
    /* Every block this loop ends has the flow's privilege, context and
     * time.  A block this walk does not continue is flushed by the general
     * step's retire() (and only if something retires); one it continues
     * must have those fields too (a time that changed since it opened
     * stays with it: the general step ends it). */
    const uint64_t ctx = f->context, time = f->have_time ? f->time : 0;
    const uint8_t priv = f->priv, base_flags = f->have_time ? RVT_BLK_HAS_TIME : 0;
    if (f->blk_open && (f->blk_end != pc0 || f->blk.time != time || f->blk.flags != base_flags ||
                        f->blk.context != ctx || f->blk.priv != priv))
        return 0;
    struct rvt_bcache *const bc = f->cache.bc;
    struct bc_slot *const slots = bc->slots;
    const unsigned shift = bc->shift;
    const uint64_t stop = fs->stop;
    /* hw and in count down what is walked, limited or not; the flow's
     * instruction count is insns_base - in. */
    /* in also stops the loop before a block that would pass the decode's
     * instruction limit (the general step retires up to it and stops):
     * it counts down from the smaller of the walk's limit and one more than
     * what the decode may still retire. */
    const uint64_t cap_left = f->insn_cap - f->insns;
    const uint64_t in0 = cap_left < fs->in_left ? cap_left + 1 : fs->in_left;
    const uint64_t hw0 = fs->hw_left, insns_base = f->insns + in0;
    uint64_t pc = pc0, hw = hw0, in = in0;
    /* The open output block: from bstart, in_open - in instructions (none
     * yet after a discontinuity); f->blk holds the fields that stay. */
    uint64_t bstart = pc0, in_open = in0;
    if (f->blk_open) {
        bstart = f->blk.start;
        in_open = in0 + f->blk.ninsns; /* modulo 2^64, like in */
    } else {
        f->blk.context = ctx;
        f->blk.time = time;
        f->blk.tval = 0;
        f->blk.cause = 0;
        f->blk.priv = priv;
    }
    /* Every block this loop hands over ends with a packet of this walk;
     * any other flush sets its own. */
    const uint64_t offset = f->offset;
    f->blk.trace_offset = offset;
    /* A sink that takes batches gets the blocks written straight into the
     * batch; the flow's own state (f->insns, f->blk_open) is brought up to
     * date when the loop hands back. */
    const bool batched = (lim & LIM_BATCH) != 0;
    /* A sink that counts gets each block's end counted, nothing written;
     * their instructions are added up when the loop hands back.  A sink
     * that takes runs gets the same, and each block's start and
     * instruction count written into the room it lent (rvt_flow_sink.runs:
     * two stores a block). */
    const bool counting = (lim & (LIM_COUNT | LIM_RUNS)) != 0;
    /* The fields every block of this loop has alike, from context to
     * priv (copied as one piece; end, cf and flags are written after),
     * filled at the first block it emits (many walks emit none): until
     * then its `end` is 0xff, which no block has (a flag in memory, not a
     * loop variable of its own: gcc copied that one every block). */
    struct rvt_block same;
    same.end = 0xff;
    const size_t same_at = offsetof(struct rvt_block, context),
                 same_len = offsetof(struct rvt_block, priv) + sizeof same.priv - same_at;
    struct bq_reader q = {1, 0};
    int rc = 0;
    /* The previous block's successor hint for pc (NULL: none, as after a
     * return): a hit there costs a load and a compare, no hash. */
    /* Without one it points here: at slot 0, checked like any hint (no
     * test for "none" in the loop). */
    uint32_t nohint = 0;
    uint32_t *hint = &nohint;
    if (counting)
        f->cnt_last = NULL;
    /* The memo (struct memo_entry): for the counting walk without a
     * halfword limit.  The loop looks a chain up where its branch-queue
     * word is at least memo_min (1 << MEMO_K: it holds MEMO_K outcomes or
     * more); while it records one (rec), memo_min is 0: it notes every
     * block it retires (one compare a block for both). */
    const bool memo = (lim & LIM_COUNT) && !(lim & LIM_HW);
    uint64_t memo_min = 1u << MEMO_K;
    const uint32_t memo_gen = f->cache.memo_gen << MEMO_K; /* (the table stays during a walk) */
    struct memo_rec rec;
    for (;;) {
        if (memo && q.word >= memo_min) {
            if (RVT_UNLIKELY(!memo_min)) {
                const int k = memo_record(f, &rec, f->cnt_last, q.word);
                if (!k)
                    goto walk_block;
                if (k > 0)
                    memo_rec_store(f, &rec, f->cnt_last, pc, in, hw, bstart, in_open);
                memo_min = 1u << MEMO_K; /* the chain is over: look up from here */
                if (q.word < memo_min)
                    goto walk_block;
            }
            const uint32_t bits = (uint32_t)q.word & ((1u << MEMO_K) - 1), key = bits | memo_gen;
            struct memo_entry *e = &f->cache.memo[memo_index(pc, bits)];
            if (e->pc != pc || e->key != key) { /* none: the loop walks the chain and records it */
                memo_rec_start(f, &rec, e, pc, key, q.word, in, hw);
                memo_min = 0;
            } else if ((uint64_t)e->n - 1 < in - 1 && (!(lim & LIM_ADDR) || stop - e->lo > e->hi_off)) {
                /* the chain exists (n > 0), the walk's instruction
                 * limit is not within it, nor is the stop address */
                hw -= e->hw;
                in -= e->n;
                f->tally.ends[RVT_END_BRANCH] += e->ends[0];
                f->tally.ends[RVT_END_JUMP] += e->ends[1];
                f->tally.ends[RVT_END_CALL] += e->ends[2];
                if (e->disc) {
                    bstart = e->bstart;
                    in_open = in + e->tail;
                }
                /* (set_last of its last block) */
                f->cnt_last = NULL;
                f->blk.last = e->lo + e->last_off;
                f->blk.cf = RVT_CF_BRANCH; /* (a chain ends with its MEMO_K-th branch) */
                if (in_open != in)
                    f->blk_end = e->end;
                pc = e->end;
                q.word >>= MEMO_K;
                hint = &e->hint;
                continue;
            }
        }
    walk_block:;
        struct bc_slot *s = (struct bc_slot *)((char *)slots + *hint);
        /* A successor hint that holds is a link followed, not a lookup: not
         * counted as a hit (it was 2 host instructions a block, hits
         * spilled to memory). */
        if (s->b.start != pc) {
            s = &slots[rvt_bc_home(shift, pc)];
            if (s->b.start == pc) {
                bc->hits++; /* seldom: no register for it */
            } else {
                if (counting && f->cnt_last) { /* (the miss may move the cache) */
                    set_last(f, f->cnt_last, in_open != in);
                    f->cnt_last = NULL;
                }
                const struct rvt_block_info *m = rvt_bcache_miss(bc, pc);
                if (bc->slots != slots)
                    break; /* the table grew: the general step takes this block */
                if (m == &bc->spare)
                    break; /* not a slot: no code there (BC_EMPTY is odd), the general step reports it */
                s = (struct bc_slot *)((char *)m - offsetof(struct bc_slot, b));
            }
            *hint = (uint32_t)((char *)s - (char *)slots);
        }
        const struct rvt_block_info *b = &s->b;
        /* An empty block (no code) has no halfwords: 0 - 1 is never below
         * hw - 1.  A limit reached exactly leaves the last instruction
         * pending: the general step does that. */
        const uint32_t bhw = b->halfwords, n = b->ninsns;
        if ((lim & LIM_HW) ? (uint64_t)bhw - 1 >= hw - 1 : bhw == 0) {
            /* The halfword limit ends exactly with this block (and nothing
             * else stops inside it): it retires and its last instruction
             * waits (the general step's count_hit). */
            if ((lim & LIM_HW) && bhw == hw && !((lim & LIM_IN) && n >= in) &&
                !((lim & LIM_ADDR) && stop - pc <= b->last - pc))
                goto count_hit;
            break;
        }
        if ((lim & LIM_IN) && n >= in)
            break;
        if ((lim & LIM_ADDR) && stop - pc <= b->last - pc)
            break;
        /* Room for the run this block may end, before anything of it is
         * done (a call pushes, a branch outcome is used). */
        if ((lim & LIM_RUNS) && RVT_UNLIKELY(f->run_n == f->run_cap)) {
            if (f->cnt_last) { /* (the sink may use the cache) */
                set_last(f, f->cnt_last, in_open != in);
                f->cnt_last = NULL;
            }
            if ((rc = runs_room(f)) < 0)
                break;
            if (bc->slots != slots)
                break; /* the table grew: the general step takes this block */
        }

        /* The successor of the block's last instruction (targets and
         * fall-throughs in the cache are within xlen). */
        const unsigned cf = b->cf, act = f->cache.action[cf]; /* addressed from f: no register of its own */
        uint64_t to;
        uint8_t end, flags = 0;
        if (act == FA_BRANCH) {
            int t;
            if (q.word > 1) {
                t = (int)(q.word & 1);
                q.word >>= 1;
            } else if ((t = bq_refill(f, &q)) < 0 && (t = branch_default(w, b->last)) < 0) {
                goto wait; /* nothing decides: it waits for the trace */
            }
            if (!t)
                goto seq;
            to = b->target;
            end = RVT_END_BRANCH;
            hint = &s->succ[1];
        } else if (act == FA_SEQ) { /* no control flow, or an ecall that falls through */
            goto seq;
        } else {
            hint = &s->succ[1];
            switch ((enum fast_action)act) {
            case FA_CALL:
                rvt_cs_push(&f->cs, b->next);
                to = b->target;
                end = RVT_END_CALL;
                break;
            case FA_OTHER:
                to = b->target;
                end = RVT_END_CALL;
                break;
            case FA_JUMP:
                to = b->target;
                end = RVT_END_JUMP;
                break;
            case FA_RETURN:
                /* (an implicit return is not a run for a runs_plain sink:
                 * the general step hands it over whole) */
                if ((lim & LIM_RUNS) && f->cfg.sink.runs_plain)
                    goto handback;
                if (!rvt_cs_pop(&f->cs, &to)) {
                    /* not implicit: the general step stops there */
                    if (memo && !memo_min)
                        memo_rec_none(&rec); /* (no chain holds a return) */
                    if ((lim & LIM_UNINF) && n > 1)
                        goto uninf;
                    goto handback;
                }
                to &= f->mask;
                hint = &nohint; /* a return goes wherever its call came from */
                end = RVT_END_RETURN;
                flags = RVT_BLK_IMPLICIT;
                break;
            default:
                /* An uninferable jump: the general step would retire the
                 * block and stop there (RVT_STOP_UNINF), unless the jump is
                 * sequentially inferable (within the block, or across from
                 * the previous one: a block of one instruction), which it
                 * resolves.  A walk with LIM_UNINF stops there itself. */
                if (memo && !memo_min)
                    memo_rec_none(&rec); /* (a chain holds only blocks the loop continues) */
                if ((lim & LIM_UNINF) && rvt_cf_uninferable(cf) && n > 1 &&
                    !((b->flags & RVT_BI_SIJUMP) && f->cfg.sijump))
                    goto uninf;
                goto handback;
            }
        }

        /* retire(), then transfer(): the block ends with a discontinuity */
        hw -= bhw;
        in -= n;
        if (counting) {
            f->tally.ends[end]++;
            if (lim & LIM_RUNS) {
                if (!f->run_n)
                    f->run_index = insns_base - in_open;
                f->run[f->run_n++] = (struct rvt_block_run){bstart, in_open - in};
                f->tally.insns += in_open - in;
            }
            f->cnt_last = b; /* (the last retired: handback needs it) */
            bstart = pc = to;
            in_open = in;
            continue;
        }
        if (batched) {
            if (RVT_UNLIKELY(same.end == 0xff)) {
                memset(&same, 0, sizeof same);
                same.context = ctx;
                same.time = time;
                same.trace_offset = offset;
                same.priv = priv;
            }
            struct rvt_block *k = f->bnext;
            f->bnext = k + 1;
            k->start = bstart;
            k->last = b->last;
            k->next = to;
            k->ninsns = in_open - in;
            k->index = insns_base - in_open;
            memcpy((char *)k + same_at, (const char *)&same + same_at, same_len);
            k->end = end;
            k->cf = (uint8_t)cf;
            k->flags = base_flags | flags;
            k->last_len = (uint8_t)(b->next - b->last);
            bstart = pc = to;
            in_open = in;
            if (k + 1 == f->batch + BATCH_BLOCKS) {
                f->insns = insns_base - in;
                if ((rc = deliver(f)) < 0)
                    break;
                /* The sink may have used this cache: a table that grew is
                 * the general step's. */
                if (bc->slots != slots)
                    break;
            }
            continue;
        }
        {
            struct rvt_block *k = &f->blk;
            k->start = bstart;
            k->last = b->last;
            k->next = to;
            k->ninsns = in_open - in;
            k->index = insns_base - in_open;
            k->end = end;
            k->cf = (uint8_t)cf;
            k->flags = base_flags | flags;
            k->last_len = (uint8_t)(b->next - b->last);
            f->blk_end = b->next;
            f->blk_open = false;
            f->insns = insns_base - in;
            bstart = pc = to;
            in_open = in;
            if (f->cfg.sink.block && f->cfg.sink.block(f->cfg.sink.ctx, k)) {
                rc = ffail(f, RVT_ERR_LIMIT, "output consumer stopped the decode");
                break;
            }
        }
        /* The sink may have used this cache: a table that grew is the
         * general step's. */
        if (bc->slots != slots)
            break;
        continue;
    seq: /* retire(); the output block goes on */
        hw -= bhw;
        in -= n;
        if (counting) {
            f->cnt_last = b;
            pc = b->next;
        } else {
            f->blk.last = b->last;
            f->blk.cf = (uint8_t)cf;
            pc = f->blk_end = b->next;
        }
        hint = &s->succ[0];
        continue;
    wait:
        if (counting)
            f->cnt_last = NULL; /* (f->blk gets this block's) */
        hw -= bhw;
        in -= n;
        f->blk.last = b->last;
        f->blk.cf = (uint8_t)cf;
        f->blk_end = b->next;
        pend_last(f, b, RVT_CF_BRANCH, false);
        rc = 1;
        break;
    uninf:
        if (counting)
            f->cnt_last = NULL;
        hw -= bhw;
        in -= n;
        f->blk.last = b->last;
        f->blk.cf = (uint8_t)cf;
        f->blk_end = b->next;
        pend_last(f, b, (uint8_t)cf, (b->flags & RVT_BI_SIJUMP) != 0);
        rc = 3;
        break;
    count_hit:
        /* The block retires and its last instruction waits for the trace
         * (the general step's count_hit), unless it is an environment call
         * that traps: that one does not retire. */
        if ((b->cf == RVT_CF_ECALL || b->cf == RVT_CF_EBREAK) && f->cfg.ecall == RVT_FLOW_ECALL_TRAP)
            break;
        if (counting)
            f->cnt_last = NULL;
        hw -= bhw;
        in -= n;
        f->blk.last = b->last;
        f->blk.cf = b->cf;
        f->blk_end = b->next;
        pend_last(f, b, b->cf, (b->flags & RVT_BI_SIJUMP) != 0);
        rc = 2;
        break;
    }
handback:
    if (counting && f->cnt_last) {
        set_last(f, f->cnt_last, in_open != in);
        f->cnt_last = NULL;
    }
    bq_done(f, &q);
    if (lim & LIM_COUNT) /* the blocks it ended had the instructions from the open one's start to in_open */
        f->tally.insns += in0 + (f->blk_open ? f->blk.ninsns : 0) - in_open;
    f->insns = insns_base - in;
    f->pc = pc;
    if (in != in0) {
        /* f->blk.last, .cf and blk_end are the last retired cache block's
         * (a block that went to the batch last: the batch's last) */
        if (batched && in_open == in) {
            const struct rvt_block *k = f->bnext == f->batch ? &f->batch[BATCH_BLOCKS - 1] : f->bnext - 1;
            f->blk.last = k->last;
            f->blk.cf = k->cf;
        }
        f->blk_open = false;
        if (in_open != in) {
            struct rvt_block *k = &f->blk;
            f->blk_open = true;
            k->start = bstart;
            k->ninsns = in_open - in;
            k->index = insns_base - in_open;
            k->flags = base_flags;
            k->last_len = (uint8_t)(f->blk_end - k->last);
        }
        f->lr_valid = true;
        f->lr_addr = f->blk.last;
        st->last = f->blk.last;
        st->insns += in0 - in;
        st->halfwords += hw0 - hw;
    }
    fs->hw_left = (lim & LIM_HW) ? hw : hw0;
    if (fs->in_left != UINT64_MAX)
        fs->in_left -= in0 - in;
    if (rc == 1)
        fill_stop(f, st, RVT_STOP_BRANCH);
    if (rc == 2) {
        fill_stop(f, st, RVT_STOP_COUNT);
        rc = 1;
    }
    if ((lim & LIM_UNINF) && rc == 3) {
        fill_stop(f, st, RVT_STOP_UNINF);
        rc = 1;
    }
    return rc;
}

/* The counting walk to an address (E-Trace's walk to a reported address)
 * stops at an uninferable jump itself.  In a function of its own: inlined
 * beside the other loops it cost every walk of N-Trace BTM a host
 * instruction (gcc allocates registers per function). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int walk_fast_count_addr(struct rvt_flow *f, const struct rvt_walk *w, struct rvt_stop *st,
                                struct fast_state *fs)
{
    return walk_fast(f, w, st, fs, LIM_ADDR | LIM_IN | LIM_COUNT | LIM_UNINF);
}

/* The walk for a sink that takes runs, in a function of its own (as
 * walk_fast_count_addr: its loops beside the others would change how gcc
 * allocates their registers). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int walk_fast_runs(struct rvt_flow *f, const struct rvt_walk *w, struct rvt_stop *st, struct fast_state *fs,
                          unsigned lim)
{
    switch (lim & (LIM_HW | LIM_ADDR)) {
    case 0:
        return walk_fast(f, w, st, fs, LIM_IN | LIM_RUNS);
    case LIM_HW:
        return walk_fast(f, w, st, fs, LIM_HW | LIM_IN | LIM_RUNS);
    case LIM_ADDR:
        return walk_fast(f, w, st, fs, LIM_ADDR | LIM_IN | LIM_RUNS);
    default:
        return walk_fast(f, w, st, fs, LIM_HW | LIM_ADDR | LIM_IN | LIM_RUNS);
    }
}

static int walk(struct rvt_flow *f, const struct rvt_walk *w, struct rvt_stop *st)
{
    memset(st, 0, sizeof *st);
    if (f->limited)
        return limit_error(f);
    if (f->diag.code)
        rvt_diag_clear(&f->diag);
    if (f->pending) {
        /* Either the walk that stopped here or this one may allow the
         * natural resolution (e.g. a default not-taken branch). */
        int rc = resolve_natural(f, w->flags | f->wflags);
        if (rc < 0)
            return -f->diag.code;
        if (rc == 0) {
            char t[96];
            describe_at(f, f->p.addr, t, sizeof t);
            return ffail(f, RVT_ERR_MISMATCH, "walk requested while '%s' at 0x%" PRIx64 " still needs a %s from the trace",
                         t, f->p.addr, f->p.cf == RVT_CF_BRANCH ? "branch outcome" : "target");
        }
    }
    f->wflags = w->flags;
    if (!f->have_pc)
        return ffail(f, RVT_ERR_NOSYNC, "walk requested before any address is known");

    const uint32_t fl = w->flags;
    uint64_t hw_left = (fl & RVT_WALK_HALFWORDS) ? w->halfwords : UINT64_MAX;
    uint64_t in_left = (fl & RVT_WALK_INSNS) ? w->insns : UINT64_MAX;
    if (hw_left == 0 || in_left == 0) {
        fill_stop(f, st, RVT_STOP_COUNT);
        return 0;
    }
    const bool addr_lim = (fl & RVT_WALK_ADDR) != 0;
    const uint64_t stop_addr = w->addr & f->mask;
    bool first = true;

    /* What the fast path does with each class of last instruction (the
     * flow keeps the table of the last walk flags that matter). */
    const uint32_t afl = fl & (RVT_WALK_STOP_BRANCH | RVT_WALK_STOP_JUMP | RVT_WALK_IMPLICIT_RET);
    if (!f->cache.action_valid || f->cache.action_flags != afl) {
        memset(f->cache.action, FA_HANDBACK, sizeof f->cache.action);
        f->cache.action[RVT_CF_NONE] = FA_SEQ;
        if (!(afl & RVT_WALK_STOP_BRANCH))
            f->cache.action[RVT_CF_BRANCH] = FA_BRANCH;
        if (!(afl & RVT_WALK_STOP_JUMP)) {
            f->cache.action[RVT_CF_CALL_INF] = FA_CALL;
            f->cache.action[RVT_CF_OTHER_INF] = FA_OTHER;
            f->cache.action[RVT_CF_JUMP_INF] = FA_JUMP;
        }
        if (afl & RVT_WALK_IMPLICIT_RET)
            f->cache.action[RVT_CF_RETURN] = FA_RETURN;
        if (f->cfg.ecall == RVT_FLOW_ECALL_SEQUENTIAL)
            f->cache.action[RVT_CF_ECALL] = f->cache.action[RVT_CF_EBREAK] = FA_SEQ;
        f->cache.action_flags = afl;
        f->cache.action_valid = true;
        /* The memo's chains were made under the old table. */
        if (++f->cache.memo_gen == 1u << (32 - MEMO_K)) {
            memset(f->cache.memo, 0, ((size_t)1 << MEMO_LOG2) * sizeof *f->cache.memo);
            f->cache.memo_gen = 1;
        }
    }
    struct fast_state fs = {.hw_left = hw_left,
                            .in_left = in_left,
                            .stop = addr_lim ? stop_addr : UINT64_MAX}; /* never inside a block: odd */
    /* The instruction count always limits: the decode's own limit. */
    const unsigned lim = (hw_left != UINT64_MAX ? LIM_HW : 0) | (addr_lim ? LIM_ADDR : 0);

    /* A walk of one instruction skips the fast path: it would stop at
     * once (a whole block is never less than one instruction). */
    const bool fast = !f->cfg.no_fast_walk && in_left > 1;
    for (;;) {
        uint64_t before = st->insns;
        int frc = 0;
        fs.hw_left = hw_left;
        fs.in_left = in_left;
        /* The usual combinations (and a batch or counting sink or not) get a loop of their own. */
        switch (fast ? (lim & (LIM_HW | LIM_ADDR)) | (f->cfg.sink.counts ? LIM_COUNT
                                                      : runs_mode(f)      ? LIM_RUNS
                                                      : f->cfg.sink.blocks ? LIM_BATCH
                                                                           : 0)
                     : 32u) {
        case 32: /* no fast path */
            break;
        case LIM_RUNS:
        case LIM_RUNS | LIM_HW:
        case LIM_RUNS | LIM_ADDR:
        case LIM_RUNS | LIM_HW | LIM_ADDR:
            frc = walk_fast_runs(f, w, st, &fs, lim);
            break;
        case 0:
            frc = walk_fast(f, w, st, &fs, LIM_IN);
            break;
        case LIM_HW:
            frc = walk_fast(f, w, st, &fs, LIM_HW | LIM_IN);
            break;
        case LIM_ADDR:
            frc = walk_fast(f, w, st, &fs, LIM_ADDR | LIM_IN);
            break;
        case LIM_HW | LIM_ADDR:
            frc = walk_fast(f, w, st, &fs, LIM_HW | LIM_IN | LIM_ADDR);
            break;
        case LIM_BATCH:
            frc = walk_fast(f, w, st, &fs, LIM_IN | LIM_BATCH);
            break;
        case LIM_BATCH | LIM_HW:
            frc = walk_fast(f, w, st, &fs, LIM_HW | LIM_IN | LIM_BATCH);
            break;
        case LIM_BATCH | LIM_ADDR:
            frc = walk_fast(f, w, st, &fs, LIM_ADDR | LIM_IN | LIM_BATCH);
            break;
        case LIM_BATCH | LIM_HW | LIM_ADDR:
            frc = walk_fast(f, w, st, &fs, LIM_HW | LIM_IN | LIM_ADDR | LIM_BATCH);
            break;
        case LIM_COUNT:
            frc = walk_fast(f, w, st, &fs, LIM_IN | LIM_COUNT);
            break;
        case LIM_COUNT | LIM_HW:
            frc = walk_fast(f, w, st, &fs, LIM_HW | LIM_IN | LIM_COUNT);
            break;
        case LIM_COUNT | LIM_ADDR:
            frc = walk_fast_count_addr(f, w, st, &fs);
            break;
        case LIM_COUNT | LIM_HW | LIM_ADDR:
            frc = walk_fast(f, w, st, &fs, LIM_HW | LIM_IN | LIM_ADDR | LIM_COUNT);
            break;
        }
        hw_left = fs.hw_left;
        in_left = fs.in_left;
        if (frc)
            return frc < 0 ? frc : 0;
        if (st->insns != before)
            first = false;
        uint64_t pc = f->pc;
        if (addr_lim && pc == stop_addr && !(first && (fl & RVT_WALK_ADDR_NOT_FIRST))) {
            fill_stop(f, st, RVT_STOP_ADDR);
            return 0;
        }
        /* A copy: the cache entry may move when the output callbacks that
         * retire() triggers use the same cache. */
        const struct rvt_block_info bi = *rvt_bcache_get(f->cache.bc, pc);
        const struct rvt_block_info *b = &bi;
        if (b->ninsns == 0)
            return no_code(f, b, pc);
        uint32_t n = b->ninsns;
        uint8_t reason = 0;

        /* An environment call that traps does not retire. */
        bool trapinsn = (b->cf == RVT_CF_ECALL || b->cf == RVT_CF_EBREAK) && f->cfg.ecall == RVT_FLOW_ECALL_TRAP;
        if (trapinsn) {
            n--;
            reason = RVT_STOP_TRAPINSN;
        }
        /* Stop before the instruction at the requested address. */
        if (addr_lim && stop_addr > pc && stop_addr <= b->last) {
            uint32_t off = (uint32_t)((stop_addr - pc) / 2);
            for (uint32_t i = 1; i < n; i++) {
                uint32_t o = rvt_block_hw_offset(b, i);
                if (o == off) {
                    n = i;
                    reason = RVT_STOP_ADDR;
                    break;
                }
                if (o > off)
                    break;
            }
        }
        /* Instruction limit. */
        if (in_left < n) {
            n = (uint32_t)in_left;
            reason = RVT_STOP_COUNT;
        }
        /* Halfword limit: must end on an instruction boundary. */
        if (hw_left < (n == b->ninsns ? b->halfwords : rvt_block_hw_offset(b, n))) {
            uint32_t i = 0;
            while (i < n && rvt_block_hw_offset(b, i + 1) <= hw_left)
                i++;
            if (rvt_block_hw_offset(b, i) != hw_left) {
                uint64_t at = (b->start + 2ull * rvt_block_hw_offset(b, i)) & f->mask;
                char t[96];
                describe_at(f, at, t, sizeof t);
                return ffail(f, RVT_ERR_MISMATCH,
                             "instruction count ends inside '%s' at 0x%" PRIx64 " (%" PRIu64 " halfwords after 0x%" PRIx64 ")",
                             t, at, hw_left, pc);
            }
            n = i;
            reason = RVT_STOP_COUNT;
        }
        if (n == 0) {
            /* Nothing retires here: the stop is at pc itself. */
            if (reason == RVT_STOP_COUNT) {
                fill_stop(f, st, RVT_STOP_COUNT);
                return 0;
            }
            fill_stop(f, st, reason ? reason : RVT_STOP_TRAPINSN);
            return 0;
        }
        if (RVT_UNLIKELY(f->insns + n > f->insn_cap))
            return retire_to_limit(f, b);
        const bool had_lr = f->lr_valid;
        const uint64_t lr_before = f->lr_addr;
        int rc = retire(f, b, n);
        if (rc < 0)
            return rc;
        st->last = f->lr_addr;
        uint32_t hw = n == b->ninsns ? b->halfwords : rvt_block_hw_offset(b, n);
        st->insns += n;
        st->halfwords += hw;
        if (in_left != UINT64_MAX)
            in_left -= n;
        if (hw_left != UINT64_MAX)
            hw_left -= hw;
        first = false;
        bool count_hit = in_left == 0 || hw_left == 0;

        if (n < b->ninsns || count_hit) {
            if (count_hit) {
                set_pending(f, b, n);
                fill_stop(f, st, RVT_STOP_COUNT);
                return 0;
            }
            /* ADDR or TRAPINSN inside the block */
            f->pc = (b->start + 2ull * hw) & f->mask;
            fill_stop(f, st, reason);
            return 0;
        }

        /* The whole block retired: decide its last instruction's successor. */
        set_pending(f, b, n);
        if (b->ninsns == 1 && rvt_cf_uninferable(b->cf) && !f->p.sij && had_lr && !f->cfg.sijump_no_across)
            cross_block_sijump(f, lr_before);
        if (b->cf == RVT_CF_NONE) {
            /* capped, or the code ends: the next block (or its absence) decides */
            f->pending = false;
            f->pc = b->next;
            continue;
        }
        if (b->cf == RVT_CF_BRANCH && (fl & RVT_WALK_STOP_BRANCH)) {
            fill_stop(f, st, RVT_STOP_BRANCH);
            return 0;
        }
        if (rvt_cf_inferable_jump(b->cf) && (fl & RVT_WALK_STOP_JUMP)) {
            fill_stop(f, st, RVT_STOP_JUMP);
            return 0;
        }
        rc = resolve_natural(f, fl);
        if (rc < 0)
            return -f->diag.code;
        if (rc == 0) {
            fill_stop(f, st, b->cf == RVT_CF_BRANCH ? RVT_STOP_BRANCH : RVT_STOP_UNINF);
            return 0;
        }
    }
}

/* rvt_flow_walk_one: a walk of exactly one instruction with no other limit
 * or flag (E-Trace retires the instruction an address packet reports with
 * one, about one walk in three there): what the general step in walk() does for it
 * (retire the instruction, leave it pending, stop with RVT_STOP_COUNT)
 * without walk()'s set-up, which cost several times the retirement.
 * Returns 1, having changed nothing, for any other case (no code there, an
 * environment call that traps, the decode's instruction limit): walk()
 * handles those. */
static RVT_ALWAYS_INLINE int walk_one(struct rvt_flow *f, struct rvt_stop *st)
{
    const struct rvt_block_info *c = rvt_bcache_get(f->cache.bc, f->pc);
    if (c->ninsns == 0 || f->insns >= f->insn_cap ||
        (c->ninsns == 1 && (c->cf == RVT_CF_ECALL || c->cf == RVT_CF_EBREAK) && f->cfg.ecall == RVT_FLOW_ECALL_TRAP))
        return 1;
    /* A copy: the cache entry may move when the output callbacks that
     * retire() triggers use the same cache. */
    const struct rvt_block_info b = *c;
    memset(st, 0, sizeof *st);
    int rc = retire(f, &b, 1);
    if (rc < 0)
        return rc;
    /* set_pending(f, &b, 1), with the first instruction's length read
     * from the block's compressed-instruction mask */
    if (b.ninsns == 1) {
        set_pending(f, &b, 1);
    } else {
        struct pending *p = &f->p;
        const uint8_t len = (b.rvc_mask & 1) ? 2 : 4;
        f->pending = true;
        p->addr = b.start & f->mask;
        p->next = (b.start + len) & f->mask;
        p->cf = RVT_CF_NONE;
        p->target = 0;
        p->sij = false;
        p->len = len;
    }
    st->last = f->lr_addr;
    st->insns = 1;
    st->halfwords = f->p.len / 2;
    fill_stop(f, st, RVT_STOP_COUNT);
    return 0;
}

int rvt_flow_walk(struct rvt_flow *f, const struct rvt_walk *w, struct rvt_stop *st)
{
    f->walk = w; /* its branch-outcome callback applies during this walk only */
    int rc = walk(f, w, st);
    f->walk = NULL;
    return rc;
}

int rvt_flow_walk_one(struct rvt_flow *f, struct rvt_stop *st)
{
    /* (the fast walk's reference, no_fast_walk, takes the general step) */
    if (!f->pending && f->have_pc && !f->limited && !f->diag.code && !f->cfg.no_fast_walk) {
        f->wflags = RVT_WALK_INSNS;
        int rc = walk_one(f, st);
        if (rc <= 0)
            return rc;
    }
    const struct rvt_walk w = {.flags = RVT_WALK_INSNS, .insns = 1};
    return rvt_flow_walk(f, &w, st);
}

/* ---- per-instruction adapter ------------------------------------------------------ */

int rvt_block_insns(struct rvt_bcache *bc, unsigned xlen, const struct rvt_block *blk, rvt_insn_fn fn, void *ctx)
{
    const uint64_t mask = xlen == 32 ? 0xffffffffull : ~0ull;
    uint64_t addr = blk->start, left = blk->ninsns;
    while (left) {
        const struct rvt_block_info bi = *rvt_bcache_get(bc, addr); /* fn may use the cache */
        const struct rvt_block_info *b = &bi;
        if (b->ninsns == 0)
            return -RVT_ERR_NOCODE;
        uint32_t k = left < b->ninsns ? (uint32_t)left : b->ninsns;
        for (uint32_t i = 0; i < k; i++) {
            int rc = fn(ctx, (addr + 2ull * rvt_block_hw_offset(b, i)) & mask, blk);
            if (rc)
                return rc;
        }
        addr = (addr + 2ull * rvt_block_hw_offset(b, k)) & mask;
        left -= k;
    }
    return 0;
}

int rvt_flow_block_insns(struct rvt_flow *f, const struct rvt_block *blk, rvt_insn_fn fn, void *ctx)
{
    int rc = rvt_block_insns(f->cache.bc, f->xlen, blk, fn, ctx);
    if (rc == -RVT_ERR_NOCODE)
        return ffail(f, RVT_ERR_NOCODE, "block at 0x%" PRIx64 " covers addresses without code", blk->start);
    return rc;
}

/* ---- pass-through for decoders without code ------------------------------------- */

struct rvt_flow_sink rvt_flow_get_sink(const struct rvt_flow *f)
{
    return f->cfg.sink;
}

void rvt_flow_set_sink(struct rvt_flow *f, const struct rvt_flow_sink *sink)
{
    deliver_now(f); /* blocks held are the old sink's */
    f->cfg.sink = *sink;
}

int rvt_flow_note(struct rvt_flow *f, const struct rvt_note *n)
{
    if (f->limited)
        return limit_error(f);
    int rc = deliver(f);
    if (rc < 0)
        return rc;
    if (!f->cfg.sink.note)
        return 0;
    struct rvt_note tmp;
    return f->cfg.sink.note(f->cfg.sink.ctx, classify_lead(f, n, &tmp))
               ? ffail(f, RVT_ERR_LIMIT, "output consumer stopped the decode")
               : 0;
}

int rvt_flow_emit_block(struct rvt_flow *f, const struct rvt_block *b)
{
    int rc = flush(f, RVT_END_SEQ, b->start);
    if (rc < 0)
        return rc;
    /* Without code the block cannot be cut at the limit: it is left out. */
    if (!(b->flags & RVT_BLK_COUNT_UNKNOWN) && b->ninsns > f->insn_cap - f->insns)
        return limit_reached(f);
    rc = runs_mode(f) ? emit_alone(f, b) : emit(f, b);
    if (rc < 0)
        return rc;
    if (!(b->flags & RVT_BLK_COUNT_UNKNOWN))
        f->insns += b->ninsns;
    return 0;
}

/* ---- speculative decode (docs/parallel.md, src/parallel/specdecode.c) ---------- */

/* What the sequentially-inferable-jump check makes of the last retired
 * instruction (lr_valid/lr_addr): it matters only when the next walk's
 * first cache block is a lone uninferable jump that lr_addr's auipc/lui/
 * c.lui sets up (walk: cross_block_sijump).  Returns whether it does, and
 * the target; with a pending instruction the next block is not known yet,
 * so the raw fields are what count. */
static bool lr_effect(const struct rvt_flow *f, uint64_t *target)
{
    *target = 0;
    if (!f->lr_valid || f->cfg.sijump_no_across)
        return false;
    if (f->pending || !f->have_pc) {
        *target = f->lr_addr;
        return true;
    }
    struct rvt_insn prev, jump;
    if (rvt_img_insn(f->cfg.image, f->lr_addr, &prev) < 0 || rvt_img_insn(f->cfg.image, f->pc, &jump) < 0)
        return false;
    return rvt_isa_sijump_target(&prev, &jump, f->xlen, target);
}

bool rvt_flow_state_equal(const struct rvt_flow *a, const struct rvt_flow *b)
{
    /* Every field of struct rvt_flow that decides what the engine does or
     * emits from here on.  Left out: the configuration (the same for both
     * by construction), positions (offset, progress), the instruction count
     * (rebased, rvt_flow_rebase), the learnt-setting counters
     * implicit_returns and sijumps (the decoder that consults them compares
     * what it makes of them), caches (block cache, fast-path actions) and
     * texts.  A field added to struct rvt_flow must be added here. */
    if (a->have_pc != b->have_pc || (a->have_pc && a->pc != b->pc) || a->pending != b->pending)
        return false;
    if (a->pending && (a->p.addr != b->p.addr || a->p.next != b->p.next || a->p.target != b->p.target ||
                       a->p.cf != b->p.cf || a->p.len != b->p.len || a->p.sij != b->p.sij || a->wflags != b->wflags))
        return false;
    if (a->bq_len != b->bq_len)
        return false;
    for (unsigned i = 0; i < a->bq_len; i++) {
        unsigned ia = a->bq_head + i, ib = b->bq_head + i;
        if (((a->bq[ia / 64 % BQ_WORDS] >> (ia % 64)) & 1) != ((b->bq[ib / 64 % BQ_WORDS] >> (ib % 64)) & 1))
            return false;
    }
    if (a->cs.depth != b->cs.depth || a->cs.count != b->cs.count)
        return false;
    for (unsigned i = 1; i <= a->cs.count; i++)
        if (a->cs.entry[(a->cs.top + a->cs.depth - i) % a->cs.depth] !=
            b->cs.entry[(b->cs.top + b->cs.depth - i) % b->cs.depth])
            return false;
    /* A placeholder (rvt_flow_placeholder) stands for the real decode's
     * open block ending at the pc, or for none. */
    const bool pha = a->blk_open && a->blk.ninsns == 0, phb = b->blk_open && b->blk.ninsns == 0;
    if (pha || phb) {
        const struct rvt_flow *ph = pha ? a : b, *o = pha ? b : a;
        if (o->blk_open && o->blk_end != ph->blk_end)
            return false;
    } else if (a->blk_open != b->blk_open) {
        return false;
    } else if (a->blk_open) {
        struct rvt_block x = a->blk, y = b->blk;
        x.index = y.index = 0;
        x.trace_offset = y.trace_offset = 0;
        /* (set when the block ends: the fast walk leaves the last ended
         * block's there) */
        x.end = y.end = 0;
        x.next = y.next = 0;
        if (memcmp(&x, &y, sizeof x) != 0 || a->blk_end != b->blk_end)
            return false;
    }
    uint64_t ta, tb;
    bool la = lr_effect(a, &ta), lb = lr_effect(b, &tb);
    if (la != lb || ta != tb)
        return false;
    return a->priv == b->priv && a->context == b->context && a->have_time == b->have_time &&
           (!a->have_time || a->time == b->time) && a->limited == b->limited && a->stopped == b->stopped &&
           a->cfg.starts_at_trace_start == b->cfg.starts_at_trace_start;
}

void rvt_flow_rebase(struct rvt_flow *f, uint64_t insns)
{
    if (runs_mode(f))
        deliver_now(f); /* (the runs held follow on from the indexes before it) */
    f->insns += insns;
    if (f->blk_open)
        f->blk.index += insns;
}

void rvt_flow_refresh(struct rvt_flow *f)
{
    deliver_now(f);
    const struct rvt_flow_config cfg = f->cfg;
    const unsigned xlen = f->xlen;
    const uint64_t mask = f->mask;
    /* The caches stay: the fast path's action table depends on the
     * configuration and the walk flags alone, so the memo's chains (keyed
     * by its generation) stay valid too. */
    const struct flow_caches cache = f->cache;
    memset(f, 0, sizeof *f);
    f->cache = cache;
    f->cfg = cfg;
    f->xlen = xlen;
    f->mask = mask;
    /* (as rvt_flow_new) */
    f->bnext = f->batch;
    rvt_cs_init(&f->cs, cfg.callstack_depth, cfg.callstack_overflow);
    f->priv = RVT_PRIV_M;
    f->insn_cap = cfg.max_insns ? cfg.max_insns : UINT64_MAX;
    f->progress_every = cfg.progress_every ? cfg.progress_every : 1u << 20;
    f->progress_next = cfg.progress ? f->progress_every : UINT64_MAX;
}

void rvt_flow_swap_caches(struct rvt_flow *a, struct rvt_flow *b)
{
    /* Between walks no pointer into the block cache is held (the counting
     * loop's cnt_last is cleared when it hands back), and the memo's
     * entries point into nothing but their own cache's slots (hints that
     * are checked), so the two sets move whole.  The action table goes
     * with its memo: the memo's keys carry the generation it was made
     * under. */
    const struct flow_caches t = a->cache;
    a->cache = b->cache;
    b->cache = t;
}

void rvt_flow_placeholder(struct rvt_flow *f)
{
    if (f->blk_open || !f->have_pc || f->pending)
        return;
    /* (as retire opens a block) */
    f->blk_open = true;
    memset(&f->blk, 0, sizeof f->blk);
    f->blk.start = f->pc;
    f->blk.last = f->pc;
    f->blk.index = f->insns;
    f->blk.priv = f->priv;
    f->blk.context = f->context;
    if (f->have_time) {
        f->blk.time = f->time;
        f->blk.flags |= RVT_BLK_HAS_TIME;
    }
    f->blk_end = f->pc;
}

bool rvt_flow_open_block(const struct rvt_flow *f, struct rvt_block *b)
{
    if (f->blk_open)
        *b = f->blk;
    return f->blk_open;
}

void rvt_flow_set_open_block(struct rvt_flow *f, const struct rvt_block *b)
{
    if (!f->blk_open)
        return;
    if (b)
        f->blk = *b;
    else
        f->blk_open = false;
}
