/* The ingress builder's state and its inline fast step, for the text
 * readers (reader.c): the usual line is a plain instruction that follows
 * the one before it, and retiring that one needs none of the builder's
 * general checks. */
#ifndef RVT_INGRESS_BUILDER_INTERNAL_H
#define RVT_INGRESS_BUILDER_INTERNAL_H

#include "rvtrace/ingress.h"

#include <string.h>

#define DCACHE_LOG2 13
/* A decoded instruction by address: text inputs give the same few thousand
 * instructions millions of times. */
struct decoded {
    uint64_t pc;       /* UINT64_MAX (odd): empty */
    uint64_t fall;     /* rvt_isa_next_pc */
    uint32_t bits;     /* the bits given, or read from the image */
    bool from_image;   /* bits were read from the image (a PC list) */
    /* How rvt_ing_builder_step retires this instruction: FAST_FALL, its
     * successor at `fall`, with itype fall_itype; FAST_TARGET, at
     * in.target, with target_itype.  0: only the general path can (an
     * uninferable jump, ecall, data to derive, merged blocks). */
    uint8_t fast, fall_itype, target_itype;
    struct rvt_insn in;
};
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
    /* rvt_ing_builder_step may retire `held`, which is held_dc's entry:
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

    struct decoded *dcache; /* direct-mapped, 1 << DCACHE_LOG2 entries */
};

static inline struct decoded *rvt_ing_builder_dc(const struct rvt_ing_builder *b, uint64_t pc)
{
    return &b->dcache[((pc >> 1) * 0x9E3779B97F4A7C15ull) >> (64 - DCACHE_LOG2)];
}

/* rvt_ing_builder_insn(b, pc, bits, priv, context, NULL) in the common
 * case, with the record it retires written to *out instead of emitted:
 * the held instruction is plain and `pc` is where it falls through to, or
 * it is a branch or a jump with a static target and `pc` is one of its
 * successors; priv and context are unchanged and (pc, bits) is in the
 * decode cache.  The record is the one the general path makes (resolve_prev
 * and retire_prev in builder.c).  Returns true when it did that; false
 * when it did nothing (the caller then calls rvt_ing_builder_insn). */
static inline bool rvt_ing_builder_step(struct rvt_ing_builder *b, uint64_t pc, int64_t bits, uint8_t priv,
                                        uint64_t context, struct rvt_ing_rec *out)
{
    if (!b->fast)
        return false;
    pc &= b->mask;
    const struct decoded *h = b->held_dc;
    uint8_t itype;
    if (pc == h->fall && (h->fast & FAST_FALL))
        itype = h->fall_itype;
    else if (pc == h->in.target && (h->fast & FAST_TARGET))
        itype = h->target_itype;
    else
        return false;
    if (priv != b->prev_priv || context != b->prev_context)
        return false;
    const struct decoded *dc = rvt_ing_builder_dc(b, pc);
    if (dc->pc != pc || (bits < 0 ? !dc->from_image : dc->from_image || dc->bits != (uint64_t)bits))
        return false;
    *out = (struct rvt_ing_rec){
        .iaddr = h->pc,
        .iretire = h->in.len / 2u,
        .ilastsize = (uint8_t)(h->in.len >> 2), /* 2 bytes: 0, 4 bytes: 1 */
        .itype = itype,
        .priv = priv,
        .context = context,
    };
    b->insns++;
    b->before = &h->in;
    b->have_before = true;
    b->held = &dc->in;
    b->held_dc = dc;
    b->fast = dc->fast != 0;
    return true;
}

#endif
