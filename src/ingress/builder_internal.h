/* The ingress builder's state and its inline fast step, for the text
 * readers (reader.c): the usual line is a plain instruction that follows
 * the one before it, and retiring that one needs none of the builder's
 * general checks. */
#ifndef RVT_INGRESS_BUILDER_INTERNAL_H
#define RVT_INGRESS_BUILDER_INTERNAL_H

#include "rvtrace/ingress.h"

#include <stddef.h>
#include <string.h>

/* Decoded instructions by address: text inputs give the same few thousand
 * instructions millions of times.  Direct-mapped by address, so that the
 * entries of straight code share cache lines: a small entry with what the
 * fast step needs, the whole decoded instruction in a parallel array. */
#define DCACHE_LOG2 14
struct decoded {
    uint64_t pc;       /* UINT64_MAX (odd): empty */
    uint64_t key;      /* dc_key(): the bits given, or that they were read from the image */
    uint64_t fall;     /* rvt_isa_next_pc */
    int32_t tdelta;    /* in.target - pc (FAST_TARGET) */
    uint8_t len;       /* bytes: 2 or 4 */
    /* How the fast step (rvt_ing_run_advance) retires this instruction: FAST_FALL, its
     * successor at `fall`, with itype fall_itype; FAST_TARGET, at
     * pc + tdelta, with target_itype.  0: only the general path can (an
     * uninferable jump, ecall, data to derive, merged blocks). */
    uint8_t fast, fall_itype, target_itype;
};

/* What besides the address selects a cache entry: the instruction bits
 * given (>= 0), or none given (< 0: they are read from the image, a PC
 * list). */
static inline uint64_t rvt_ing_dc_key(int64_t bits)
{
    return bits < 0 ? 1ull << 63 : (uint64_t)bits;
}
enum { FAST_FALL = 1, FAST_TARGET = 2 };

struct rvt_ing_builder {
    struct rvt_ing_builder_config cfg;
    struct rvt_diag diag;
    unsigned xlen;
    uint64_t mask;
    enum rvt_ctype ctype_on_change;

    /* The instruction waiting for its successor (`held`) and the one that
     * retired before it (`before`, for sequentially inferable jumps) point
     * into the decode cache, never copied; an entry about to be refilled
     * while one of them points to it is first copied to own[]. */
    const struct rvt_insn *held, *before;
    struct rvt_insn own[2];

    /* The instruction waiting for its successor. */
    bool have_prev;
    uint8_t prev_priv;
    uint64_t prev_context;
    struct rvt_ing_extra prev_extra;
    bool prev_ctx_changed;
    /* The fast step (rvt_ing_run_advance) may retire `held`, which is held_dc's entry:
     * it has a fast way (decoded.fast), no side data, no context change,
     * and there was no error. */
    bool fast;
    const struct decoded *held_dc;

    /* The instruction retired before `held` (for sequentially inferable jumps). */
    bool have_before;

    /* A merged block of itype-0 instructions not yet emitted. */
    bool have_blk;
    struct rvt_ing_rec blk;
    /* blk may hold side data (fill_extra): the next record starts from
     * zeros.  Otherwise only the fields a record always sets differ from
     * zero, and it just sets them again (once per instruction). */
    bool blk_extra;

    bool have_last_ctx;
    uint64_t last_context;
    uint64_t insns;
    bool warned_cause; /* the ecall/ebreak trap cause assumption was reported */

    struct decoded *dcache;  /* 1 << DCACHE_LOG2 entries */
    struct rvt_insn *dinsn;  /* dcache[i]'s instruction is dinsn[i] */
};

/* Back to a new builder's state (nothing held, no error, nothing warned),
 * keeping the decode cache: a text chunk parser (reader.c) starts each
 * chunk with it. */
void rvt_ing_builder_restart(struct rvt_ing_builder *b);

static inline size_t rvt_ing_dc_index(uint64_t pc)
{
    return (size_t)(pc >> 1) & ((1u << DCACHE_LOG2) - 1);
}

static inline struct decoded *rvt_ing_builder_dc(const struct rvt_ing_builder *b, uint64_t pc)
{
    return &b->dcache[rvt_ing_dc_index(pc)];
}

/* The fast step: rvt_ing_builder_insn(b, pc, bits, priv, context, NULL)
 * in the common case, the record it retires described in *f
 * (rvt_ing_fast_rec makes it) instead of emitted: the held instruction is
 * plain and `pc` is where it falls through to, or it is a branch or a jump
 * with a static target and `pc` is one of its successors; priv and
 * context are unchanged and (pc, bits) is in the decode cache.  The record
 * is the one the general path makes (resolve_prev and retire_prev in
 * builder.c).  rvt_ing_run_advance returns true when it did that, false
 * when it did nothing (the caller then ends the run and calls
 * rvt_ing_builder_insn).
 *
 * Over a run of lines its state is in locals (the caller's registers: the
 * records it stores could alias the builder's fields, which would then be
 * read again after each): rvt_ing_run_begin, rvt_ing_run_advance for each
 * line, then rvt_ing_run_end, which leaves the builder as the general
 * path would. */
struct rvt_ing_run {
    const struct decoded *held_dc, *before_dc; /* before_dc: NULL while nothing was retired */
    const struct decoded *dcache;
    uint64_t mask, prev_context, insns;
    uint8_t prev_priv;
    bool fast;
};

static inline void rvt_ing_run_begin(const struct rvt_ing_builder *b, struct rvt_ing_run *r)
{
    r->held_dc = b->held_dc;
    r->before_dc = NULL;
    r->dcache = b->dcache;
    r->mask = b->mask;
    r->prev_context = b->prev_context;
    r->prev_priv = b->prev_priv;
    r->insns = 0;
    r->fast = b->fast;
}

static inline bool rvt_ing_run_advance(struct rvt_ing_run *r, uint64_t pc, int64_t bits, uint8_t priv,
                                       uint64_t context, struct rvt_ing_fast *f)
{
    if (!r->fast)
        return false;
    pc &= r->mask;
    const struct decoded *h = r->held_dc;
    uint8_t itype;
    if (pc == h->fall && (h->fast & FAST_FALL))
        itype = h->fall_itype;
    else if (pc == ((h->pc + (uint64_t)(int64_t)h->tdelta) & r->mask) && (h->fast & FAST_TARGET))
        itype = h->target_itype;
    else
        return false;
    if (priv != r->prev_priv || context != r->prev_context)
        return false;
    const struct decoded *dc = &r->dcache[rvt_ing_dc_index(pc)];
    if (dc->pc != pc || dc->key != rvt_ing_dc_key(bits))
        return false;
    f->iaddr = h->pc;
    f->itype = itype;
    f->len = h->len;
    r->insns++;
    r->before_dc = h;
    r->held_dc = dc;
    r->fast = dc->fast != 0;
    return true;
}

static inline void rvt_ing_run_end(struct rvt_ing_builder *b, const struct rvt_ing_run *r)
{
    if (!r->insns)
        return;
    /* (a fast step only retires an instruction held from its entry, and
     * refills none: both pointers are the entries' instructions) */
    b->insns += r->insns;
    b->before = &b->dinsn[r->before_dc - b->dcache];
    b->have_before = true;
    b->held = &b->dinsn[r->held_dc - b->dcache];
    b->held_dc = r->held_dc;
    b->fast = r->fast;
}

/* rvt_ing_fast_rec into an *out that holds one of its records already
 * (with the same priv and context): only the fields that differ. */
static inline void rvt_ing_fast_rec_over(const struct rvt_ing_fast *f, struct rvt_ing_rec *out)
{
    out->iaddr = f->iaddr;
    out->iretire = f->len / 2u;
    out->itype = f->itype;
    out->ilastsize = (uint8_t)(f->len >> 2);
}

#endif
