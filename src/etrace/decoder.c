/* E-Trace decoder: packets -> the shared flow engine.
 *
 * The spec's decoder (decoder.adoc) follows the execution path one
 * instruction at a time until it reaches the reported address under a set
 * of conditions.  Here every packet with an address becomes one walk of the
 * flow engine "until the next instruction is the reported address"; each
 * time the walk stops there (or at a return, a branch, or an uninferable
 * jump) the conditions decide whether this is the reported instruction:
 *
 *  - a packet following an uninferable discontinuity ends at the first
 *    uninferable jump the walk meets (its target is the address);
 *  - a packet reporting the last instruction before a format 3 packet, the
 *    end of tracing, or a notification ends at the first arrival at the
 *    address with every reported branch used (and the implicit-return
 *    depth or count it gives);
 *  - which of the two a packet is: its notify and updiscon bits and the
 *    packet after it (the decoder sees the whole buffer).
 */
#include "etrace/decoder.h"
#include "etrace/data_decoder.h"
#include "etrace/fastrd.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum kind { K_UPDISCON, K_INFERRED };

struct et_decoder {
    struct et_params p;
    struct rvt_flow *f;
    struct rvt_diag diag;
    struct et_deframer df;
    struct et_fastrd fast; /* the one-pass reader of formats 1 and 2 (next_packet) */
    uint8_t fast_hdr;      /* the encapsulation header's flow and extend bits it reads */
    unsigned addr_sext;    /* 64 - the address field's width: its sign extension by two shifts */
    uint64_t addr_mask;    /* an address: xlen and iaddress_width_p bits */
    char note_text[600];

    bool synced;          /* the flow follows the trace */
    uint64_t last_addr;   /* last reported address (differential base) */
    bool have_single;     /* the instruction retired alone by the last retire_one */
    bool trap_open;       /* a trap was reported without its handler (thaddr=0) */
    bool trap_from_known; /* the privilege that trap was taken from is priv */
    bool upd_valid;       /* the flow went to upd_at, an uninferable target (at upd_insns retired) */
    uint64_t upd_at, upd_insns;
    uint64_t single_addr;
    uint8_t single_cf;

    bool before_f3;       /* the last packet reported an instruction before a start packet (K_INFERRED) */
    bool before_f3_via;   /* ... reached through an uninferable jump */
    bool sync_adjacent;   /* (before_f3 for the packet being processed) */
    uint64_t before_f3_addr;
    uint8_t priv;         /* privilege the trace last reported */
    bool held;            /* the flow's pending branch has this known outcome */
    bool held_taken;
    bool held_jump;       /* the flow's pending jump is sequentially inferable to held_target */
    uint64_t held_target;

    /* branch outcomes of the current packet (branch-prediction mode) */
    uint64_t src_map;
    unsigned src_nmap;
    uint64_t src_npred;
    bool src_fail;
    bool src_miss;        /* an outcome of the map differed from the predictor's */

    struct et_bpred bp;
    struct et_jtc jtc;
    bool ir_on;

    uint64_t packets;
    bool open; /* tracing is on: the trace must end with a support packet ending it */
    bool expect_sync; /* only a format 3 may come next (after a support packet, a trap without handler) */
    bool after_packet;    /* a normal packet was read (null runs after it are checked) */
    bool data_on;         /* the last support packet enabled data trace (its packets are skipped) */
    bool counting;        /* since_sync counts the packets after the last sync packet */
    uint64_t since_sync;
    uint64_t period;      /* the resync period in packets, from the first resync (0: not seen) */
    uint64_t ctx;         /* context the trace last reported */
    const char *expect_why;
    int frc;   /* last flow engine return code (FL) */
    struct et_dside *ds; /* data trace (data_decoder.c) */

    /* Before the first sync packet: bytes skipped to find packets, or
     * packets that describe execution from an unknown place (lead_note). */
    bool ever_synced, lead;
    uint64_t lead_off;
    /* Segment decode: the sync packet being applied is the next segment's
     * (et_dec_run_segment): walk to its address, retire nothing there. */
    bool seam;

    /* et_dec_run_part: stop inside the format 3 start packet at this offset
     * (SIZE_MAX: never) once its walk is done and the encoder state it
     * resets is reset, before its instruction retires (part_mid: mid_k at
     * mid_off is to be finished); else before the first packet (or damage)
     * after it.  The loop reads a packet ahead (process() looks at the
     * next one), so where it stopped it keeps that packet to go on with:
     * part_k at part_off (part_status, part_framed: struct pkt); also the
     * last processed packet's offset, the flow's instruction count (a join
     * rebases the flow: upd_insns follows) and where the next part goes on
     * (part_next). */
    size_t part_until;
    bool part_stopped, part_have, part_resume, part_mid;
    struct et_packet part_k, mid_k;
    uint64_t part_off, part_last, part_insns, part_next, mid_off;
    int part_status;
    bool part_framed;
    /* It started at a sync point (not at the trace's start), and how many
     * parts it has decoded: the first two of such a decoder are the
     * speculative ones (rvt_decode_jobs: the sync point, then the piece). */
    bool part_fresh;
    unsigned parts;
    /* A field added above that decides what the decoder does from then on
     * must be compared in et_dec_state_equal (the parallel decode's join
     * check, docs/parallel.md). */
};

/* Remember a flow engine call's result for flow_fail. */
#define FL(x) (dec->frc = (x))

const char *et_dec_error(const struct et_decoder *dec)
{
    return dec->diag.msg;
}

void et_dec_free(struct et_decoder *dec)
{
    if (!dec)
        return;
    et_bpred_free(&dec->bp);
    et_jtc_free(&dec->jtc);
    et_dside_free(dec->ds);
    free(dec);
}

int et_dec_new(struct et_decoder **out, const struct et_params *p, struct rvt_flow *f, struct rvt_diag *d)
{
    *out = NULL;
    int rc = et_params_check(p, d);
    if (rc < 0)
        return rc;
    struct et_decoder *dec = calloc(1, sizeof *dec);
    if (!dec)
        return rvt_fail(d, RVT_ERR_NOMEM, "out of memory");
    dec->p = *p;
    dec->f = f;
    unsigned shift = p->iaddress_lsb_p >= 2 ? 2 : 1;
    /* sized by the hardware parameters: the support packet may switch the modes on */
    if (et_bpred_init(&dec->bp, p->bpred_size_p, shift) < 0 || et_jtc_init(&dec->jtc, p->cache_size_p, shift) < 0) {
        et_dec_free(dec);
        return rvt_fail(d, RVT_ERR_NOMEM, "out of memory");
    }
    dec->ir_on = et_callstack_depth(p) > 0;
    et_fastrd_init(&dec->fast, p);
    if (rvt_flow_reference(f))
        dec->fast.on = false; /* (the reference decode: every packet through the general reader) */
    unsigned aw = et_addr_bits(p);
    dec->addr_sext = aw >= 1 && aw <= 64 ? 64 - aw : 0;
    dec->addr_mask = (rvt_flow_xlen(f) == 32 ? 0xffffffffull : ~0ull) & et_fmask64(p->iaddress_width_p);
    dec->fast_hdr = (uint8_t)((p->flow & 3) << 5); /* (extend 0: no timestamp) */
    dec->data_on = p->d.mode != ET_DATA_OFF; /* (a trace cut before its support packet) */
    dec->part_until = SIZE_MAX;
    if ((rc = et_dside_new(&dec->ds, &dec->p, f, d)) < 0) {
        et_dec_free(dec);
        return rc;
    }
    *out = dec;
    return 0;
}

/* ---- errors ------------------------------------------------------------------ */

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int dfail(struct et_decoder *dec, uint64_t offset, const char *fmt, ...)
{
    char what[480];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return rvt_fail(&dec->diag, RVT_ERR_MISMATCH, "trace offset 0x%" PRIx64 ": %s", offset, what);
}

static int flow_fail(struct et_decoder *dec)
{
    const char *m = rvt_flow_error(dec->f);
    int code = dec->frc < 0 ? -dec->frc : RVT_ERR_MISMATCH;
    return rvt_fail(&dec->diag, (enum rvt_err)code, "%s", m && *m ? m : "flow engine error");
}

/* ---- helpers ------------------------------------------------------------------- */

static bool insn_at(struct et_decoder *dec, uint64_t addr, struct rvt_insn *in)
{
    return rvt_img_insn(rvt_bcache_image(rvt_flow_bcache(dec->f)), addr, in) == 0 && (in->flags & RVT_IF_VALID);
}

/* The class of the instruction at addr (false: none), read from the flow's
 * block cache: a packet's address starts a block there, and only a block's
 * last instruction has control flow.  An empty block (no code, odd or
 * invalid) asks the image, as insn_at does.  Saves decoding the target of
 * every address packet (about 270 host instructions each). */
static bool cf_at(struct et_decoder *dec, uint64_t addr, uint8_t *cf)
{
    const struct rvt_block_info *b = rvt_bcache_get(rvt_flow_bcache(dec->f), addr);
    if (b->ninsns == 0) {
        struct rvt_insn in;
        if (!insn_at(dec, addr, &in))
            return false;
        *cf = in.cf;
        return true;
    }
    *cf = b->ninsns == 1 ? b->cf : (uint8_t)RVT_CF_NONE;
    return true;
}

static uint64_t xmask(const struct et_decoder *dec)
{
    return rvt_flow_xlen(dec->f) == 32 ? 0xffffffffull : ~0ull;
}

static void reset_sync_state(struct et_decoder *dec)
{
    rvt_cs_clear(rvt_flow_callstack(dec->f));
    et_bpred_reset(&dec->bp);
    et_jtc_reset(&dec->jtc);
    dec->held = false;
    dec->held_jump = false;
    dec->src_nmap = 0;
    dec->src_npred = 0;
    dec->src_fail = false;
    rvt_flow_clear_branches(dec->f);
}

static bool bp_on(const struct et_decoder *dec)
{
    return dec->p.branch_prediction && dec->bp.state;
}

static uint64_t src_remaining(const struct et_decoder *dec)
{
    if (bp_on(dec))
        return dec->src_nmap + dec->src_npred + (dec->src_fail ? 1 : 0);
    return rvt_flow_queued_branches(dec->f);
}

/* Outcome of the next branch (at addr) in branch-prediction mode. */
static int src_next(struct et_decoder *dec, uint64_t addr, bool *taken)
{
    bool pred = et_bpred_predict(&dec->bp, addr);
    if (dec->src_nmap) {
        *taken = !(dec->src_map & 1);
        dec->src_map >>= 1;
        dec->src_nmap--;
        dec->src_miss |= *taken != pred;
    } else if (dec->src_npred) {
        *taken = pred;
        dec->src_npred--;
    } else if (dec->src_fail) {
        *taken = !pred;
        dec->src_fail = false;
    } else {
        return -1;
    }
    et_bpred_update(&dec->bp, addr, *taken);
    return 0;
}

/* Retire exactly the instruction at the current pc (the reported one). */
static int retire_one(struct et_decoder *dec, uint64_t addr)
{
    struct rvt_stop st;
    if (FL(rvt_flow_walk_one(dec->f, &st)) < 0)
        return flow_fail(dec);
    if (st.insns != 1)
        return dfail(dec, 0, "the reported instruction at 0x%" PRIx64 " does not retire (the code traps there)",
                     addr);
    dec->have_single = true;
    dec->single_addr = addr;
    dec->single_cf = st.cf;
    return 0;
}

/* After retire_one of a branch: its outcome in branch-prediction mode. */
static int resolve_reported_branch(struct et_decoder *dec, uint64_t addr)
{
    if (!bp_on(dec) || dec->single_cf != RVT_CF_BRANCH)
        return 0;
    bool taken;
    if (src_next(dec, addr, &taken) < 0)
        return 0; /* outcome not in this packet: the next packet (or a trap) decides */
    if (FL(rvt_flow_branch(dec->f, taken)) < 0)
        return flow_fail(dec);
    return 0;
}

/* A held outcome for the flow's pending branch (from a packet without address). */
static int apply_held(struct et_decoder *dec)
{
    if (dec->held_jump) {
        dec->held_jump = false;
        if (FL(rvt_flow_jump(dec->f, dec->held_target)) < 0)
            return flow_fail(dec);
    }
    if (!dec->held)
        return 0;
    dec->held = false;
    if (FL(rvt_flow_branch(dec->f, dec->held_taken)) < 0)
        return flow_fail(dec);
    return 0;
}

/* Resolve the pending return implicitly (pop the call stack). */
static int pop_implicit(struct et_decoder *dec)
{
    struct rvt_walk w = {.flags = RVT_WALK_INSNS | RVT_WALK_IMPLICIT_RET, .insns = 0};
    struct rvt_stop st;
    if (FL(rvt_flow_walk(dec->f, &w, &st)) < 0)
        return flow_fail(dec);
    return 0;
}

/* Is the instruction retired at `prev_addr`, the last before the jump at
 * `jump`, the auipc/lui/c.lui right before it that sets its rs1?  Never for
 * a return: the hart's sijump signal is "Ignored for itype codes other than
 * 6, 8, 10, 12 or 14" (ingressPort.adoc), so the encoder does not pair it
 * (the reference decoder's next_pc() would: we follow the ingress rule, as
 * the flow engine does). */
static bool sij_pair_before(struct et_decoder *dec, uint64_t prev_addr, uint64_t jump, uint64_t *target)
{
    struct rvt_insn prev, j;
    if (!insn_at(dec, prev_addr, &prev) || !insn_at(dec, jump, &j) || j.cf == RVT_CF_RETURN)
        return false;
    if (((prev_addr + prev.len) & xmask(dec)) != jump)
        return false;
    return rvt_isa_sijump_target(&prev, &j, rvt_flow_xlen(dec->f), target);
}

/* Sequentially inferable jump whose auipc/lui was retired alone by the
 * previous walk (the flow engine only sees pairs inside one block). */
static bool sij_across(struct et_decoder *dec, bool had_single, const struct rvt_stop *st, uint64_t *target)
{
    return dec->p.sijump && had_single && st->insns == 1 && sij_pair_before(dec, dec->single_addr, st->last, target);
}

/* Is the flow waiting for the target of the uninferable jump retired alone
 * by retire_one (which a walk with these flags cannot resolve)? */
static bool pending_unresolvable(struct et_decoder *dec, uint32_t flags)
{
    if (!dec->have_single || !rvt_cf_uninferable(dec->single_cf) || !rvt_flow_pending(dec->f))
        return false;
    if (dec->single_cf == RVT_CF_RETURN && (flags & RVT_WALK_IMPLICIT_RET) && rvt_flow_callstack(dec->f)->count)
        return false;
    return true;
}

/* ---- the segment walk -------------------------------------------------------------- */

struct seg {
    uint64_t addr;       /* reported address */
    enum kind kind;
    bool irreport;
    uint32_t irdepth;
    uint64_t offset;
    bool sync;           /* a format 3 address: its branch outcome is not in any map */
    bool uninf_only;     /* only an uninferable jump (a trap return) can lead there */
    bool not_updiscon;   /* the packet says the address is not the target of an uninferable discontinuity */
    const char *not_updiscon_why;
};

/* (inline in do_address, the walk of most packets) */
static RVT_FASTRD_INLINE int walk_to_inline(struct et_decoder *dec, const struct seg *s, bool *via_jump, bool *retired)
{
    struct rvt_flow *f = dec->f;
    const bool fixed = dec->p.implicit_return == ET_IR_FIXED;
    const bool ir = dec->ir_on && dec->p.implicit_return != ET_IR_OFF;
    struct rvt_callstack *cs = ir ? rvt_flow_callstack(f) : NULL; /* (every use is with ir) */
    /* Returns must be seen one by one when the packet counts or names one. */
    const bool per_return = ir && s->irreport && (fixed || s->kind == K_UPDISCON);
    unsigned popped = 0; /* implicit returns once every reported branch is used (fixed irdepth) */
    bool not_first = false;

    uint8_t a_cf = RVT_CF_NONE;
    bool a_ok = cf_at(dec, s->addr, &a_cf);
    bool a_branch = !s->sync && a_ok && a_cf == RVT_CF_BRANCH;
    *via_jump = false;
    *retired = false;
    bool had_single = false;
    /* A reported uninferable jump that may follow an auipc/lui/c.lui
     * setting its rs1 (a sequentially inferable pair, --sijump): whether it
     * does is known only once the walk stops before it (sij_pair_before
     * with the instruction retired last), not from the bytes before it — a
     * 4-byte candidate may be the tail of another instruction (0x...ea of
     * a mulh at 0x...e8 can read as "lui t0") while the code reaches the
     * jump from a 2-byte instruction. */
    const uint64_t stop_at = s->addr;
    const bool may_pair = dec->p.sijump && !s->sync && a_ok && rvt_cf_uninferable(a_cf) && a_cf != RVT_CF_TRAPRET &&
                          a_cf != RVT_CF_RETURN;

    /* the walk stopped between the pair and passes the address: the jump
     * retired alone next goes to the pair's target */
    bool split = false;
    uint64_t split_target = 0;
    for (unsigned guard = 0;; guard++) {
        struct rvt_walk w = {.flags = RVT_WALK_ADDR, .addr = stop_at};
        if (not_first)
            w.flags |= RVT_WALK_ADDR_NOT_FIRST;
        if (ir && !per_return)
            w.flags |= RVT_WALK_IMPLICIT_RET;
        if (bp_on(dec))
            w.flags |= RVT_WALK_STOP_BRANCH;
        struct rvt_stop st;
        if (pending_unresolvable(dec, w.flags)) {
            /* the reported instruction before is an uninferable jump: it
             * retired on its own, its target is this packet's address */
            memset(&st, 0, sizeof st);
            st.reason = RVT_STOP_UNINF;
            st.cf = dec->single_cf;
            st.last = dec->single_addr;
        } else {
            had_single = dec->have_single;
            if (FL(rvt_flow_walk(f, &w, &st)) < 0)
                return flow_fail(dec);
            if (st.insns)
                dec->have_single = false;
        }
        switch (st.reason) {
        case RVT_STOP_ADDR: {
            uint64_t left = src_remaining(dec);
            bool ok = s->kind == K_INFERRED && !s->uninf_only && left == (a_branch ? 1u : 0u);
            if (ok && s->irreport && ir)
                ok = fixed ? popped == s->irdepth : cs->count == s->irdepth;
            uint64_t sij_t;
            /* the instruction before: this walk's last, or the one retired
             * alone before it (as sij_across) */
            if (ok && may_pair && (st.insns || had_single) &&
                sij_pair_before(dec, st.insns ? st.last : dec->single_addr, s->addr, &sij_t)) {
                /* the reported jump follows its auipc/lui: retire it, its
                 * target the pair's (followed at the next packet, as a pair
                 * across walks is) */
                struct rvt_walk w2 = {.flags = RVT_WALK_INSNS, .insns = 1};
                struct rvt_stop st2;
                if (FL(rvt_flow_walk(f, &w2, &st2)) < 0)
                    return flow_fail(dec);
                if (st2.insns != 1 || st2.last != s->addr)
                    return dfail(dec, s->offset, "the jump at 0x%" PRIx64 " does not retire", s->addr);
                dec->held_jump = true;
                dec->held_target = sij_t;
                dec->have_single = false;
                *retired = true;
                return 0;
            }
            if (ok)
                return 0;
            split = may_pair && (st.insns || had_single) &&
                    sij_pair_before(dec, st.insns ? st.last : dec->single_addr, s->addr, &split_target);
            not_first = true;
            break;
        }
        case RVT_STOP_BRANCH: {
            if (!bp_on(dec))
                return dfail(dec, s->offset,
                             "branch at 0x%" PRIx64 " needs an outcome, but the packet's branch map is used up "
                             "before reaching 0x%" PRIx64,
                             st.last, s->addr);
            bool taken;
            if (src_next(dec, st.last, &taken) < 0)
                return dfail(dec, s->offset,
                             "branch at 0x%" PRIx64 " needs an outcome, but the packet's branches are used up "
                             "before reaching 0x%" PRIx64,
                             st.last, s->addr);
            if (FL(rvt_flow_branch(f, taken)) < 0)
                return flow_fail(dec);
            not_first = false;
            split = false;
            break;
        }
        case RVT_STOP_UNINF: {
            uint64_t t;
            if (split && st.insns == 1 && st.last == s->addr) {
                split = false;
                if (FL(rvt_flow_jump(f, split_target)) < 0)
                    return flow_fail(dec);
                not_first = false;
                break;
            }
            if (may_pair && st.last == s->addr && st.insns) {
                /* the reported jump retired here, passed once (not_first) or
                 * reached without its auipc/lui: an ordinary uninferable jump
                 * unless sij_across pairs it */
                uint64_t left = src_remaining(dec);
                bool ok = s->kind == K_INFERRED && !s->uninf_only && left == 0;
                if (ok && s->irreport && ir)
                    ok = fixed ? popped == s->irdepth : cs->count == s->irdepth;
                if (ok) {
                    uint64_t sij_t;
                    if (sij_across(dec, had_single, &st, &sij_t)) {
                        /* it follows its auipc/lui after all: resolve it later */
                        dec->held_jump = true;
                        dec->held_target = sij_t;
                        dec->have_single = false;
                    } else {
                        dec->have_single = true;
                        dec->single_addr = s->addr;
                        dec->single_cf = st.cf;
                    }
                    *retired = true;
                    return 0;
                }
            }
            if (sij_across(dec, had_single, &st, &t)) {
                if (FL(rvt_flow_jump(f, t)) < 0)
                    return flow_fail(dec);
                not_first = false;
                break;
            }
            if (st.cf == RVT_CF_RETURN && ir && cs->count) {
                bool explicit_ret;
                if (!s->irreport)
                    explicit_ret = false;
                else if (fixed) /* (popping one more could never reach the count) */
                    explicit_ret = popped == s->irdepth && src_remaining(dec) == (a_branch ? 1u : 0u);
                else
                    explicit_ret = s->kind == K_UPDISCON && cs->count == s->irdepth &&
                                   src_remaining(dec) == (a_branch ? 1u : 0u);
                if (!explicit_ret) {
                    int rc = pop_implicit(dec);
                    if (rc < 0)
                        return rc;
                    if (src_remaining(dec) == (a_branch ? 1u : 0u))
                        popped++;
                    not_first = false;
                    break;
                }
            }
            /* irreport on an uninferable target: "following a return because
             * its address differs from the predicted return address at the
             * top of the implicit_return return address stack" (payload.adoc).
             * So the stack has a prediction there, and it is not this address
             * (unless, with the fixed count, the count field is full and the
             * return had to be reported). */
            if (ir && s->irreport && s->kind == K_UPDISCON) {
                uint64_t top = 0;
                if (st.cf != RVT_CF_RETURN)
                    return dfail(dec, s->offset,
                                 "irreport says 0x%" PRIx64 " follows a mispredicted return, but the code reaches it "
                                 "through the uninferable jump at 0x%" PRIx64 ", which is not a return",
                                 s->addr, st.last);
                if (fixed && popped != s->irdepth)
                    return dfail(dec, s->offset,
                                 "irdepth %u says %u implicit returns come before the mispredicted return at 0x%" PRIx64
                                 ", but the code has %u",
                                 (unsigned)s->irdepth, (unsigned)s->irdepth, st.last, popped);
                if (!cs->count)
                    return dfail(dec, s->offset,
                                 "irreport says the return at 0x%" PRIx64 " went elsewhere than the implicit-return "
                                 "stack predicts, but the stack is empty there",
                                 st.last);
                if (rvt_cs_peek(cs, &top) && top == s->addr && (!fixed || popped < (1ull << et_irdepth_bits(&dec->p)) - 1))
                    return dfail(dec, s->offset,
                                 "irreport says the return at 0x%" PRIx64 " went elsewhere than the implicit-return "
                                 "stack predicts, but 0x%" PRIx64 " is its prediction (an implicit return)",
                                 st.last, s->addr);
            }
            /* the uninferable discontinuity the packet reports: but
             * notify, and updiscon equal to notify before a format 3 or the
             * end of tracing, say the reported instruction "is not the
             * target of an uninferable discontinuity" (payload.adoc) */
            if (s->not_updiscon)
                return dfail(dec, s->offset,
                             "the packet says 0x%" PRIx64 " does not follow an uninferable discontinuity (%s), but "
                             "the code reaches it only through the uninferable jump at 0x%" PRIx64,
                             s->addr, s->not_updiscon_why, st.last);
            uint64_t left = src_remaining(dec);
            if (left != (a_branch ? 1u : 0u))
                return dfail(dec, s->offset,
                             "uninferable jump at 0x%" PRIx64 " to 0x%" PRIx64 " reached with %" PRIu64
                             " reported branch outcomes unused",
                             st.last, s->addr, left - (a_branch ? 1u : 0u));
            if (FL(rvt_flow_jump(f, s->addr)) < 0)
                return flow_fail(dec);
            dec->upd_valid = true;
            dec->upd_at = s->addr;
            dec->upd_insns = rvt_flow_insns(f);
            *via_jump = true;
            return 0;
        }
        case RVT_STOP_TRAPINSN:
            return dfail(dec, s->offset,
                         "execution reaches the environment call at 0x%" PRIx64
                         " (a trap) before the reported address 0x%" PRIx64,
                         st.pc, s->addr);
        default:
            return dfail(dec, s->offset, "walk to 0x%" PRIx64 " stopped unexpectedly (reason %u)", s->addr,
                         st.reason);
        }
        if (guard > 100000000u)
            return dfail(dec, s->offset, "reported address 0x%" PRIx64 " is never reached", s->addr);
    }
}

static int walk_to(struct et_decoder *dec, const struct seg *s, bool *via_jump, bool *retired)
{
    return walk_to_inline(dec, s, via_jump, retired);
}

/* ---- packets ----------------------------------------------------------------------- */

static uint64_t full_addr(const struct et_decoder *dec, uint64_t field)
{
    return (field << dec->p.iaddress_lsb_p) & xmask(dec);
}

static uint64_t diff_addr(const struct et_decoder *dec, uint64_t field)
{
    /* (et_addr_field_sext with the shift fixed at set-up) */
    uint64_t d = (uint64_t)((int64_t)(field << dec->addr_sext) >> dec->addr_sext) << dec->p.iaddress_lsb_p;
    return (dec->last_addr + d) & dec->addr_mask;
}

/* Start, resync, or (when already following) walk up to a sync address. */
static int do_sync(struct et_decoder *dec, const struct et_packet *k, uint64_t addr, uint64_t offset)
{
    struct rvt_flow *f = dec->f;
    int rc;
    if (dec->synced && rvt_flow_have_pc(f)) {
        if ((rc = apply_held(dec)) < 0)
            return rc;
        /* A return reported by the last packet (pending, or the target the
         * flow stands at) is followed by the sync at its successor (the
         * encoder makes sure): not the call stack's prediction, which a
         * format 3 cannot contradict (no irreport). */
        struct rvt_insn in;
        if (dec->have_single && rvt_flow_pending(f) && dec->single_cf == RVT_CF_RETURN) {
            if (FL(rvt_flow_jump(f, addr)) < 0)
                return flow_fail(dec);
            dec->have_single = false;
        } else if (dec->upd_valid && !rvt_flow_pending(f) && rvt_flow_pc(f) == dec->upd_at &&
                   rvt_flow_insns(f) == dec->upd_insns && insn_at(dec, dec->upd_at, &in) &&
                   in.cf == RVT_CF_RETURN) {
            if ((rc = retire_one(dec, dec->upd_at)) < 0)
                return rc;
            if (FL(rvt_flow_jump(f, addr)) < 0)
                return flow_fail(dec);
            dec->have_single = false;
        }
        /* a new privilege is only entered by a trap return */
        struct seg s = {.addr = addr, .kind = K_INFERRED, .offset = offset, .sync = true,
                        .uninf_only = k->privilege != dec->priv};
        bool via, ret;
        uint64_t n0 = rvt_flow_insns(f);
        rc = walk_to(dec, &s, &via, &ret);
        if (rc < 0)
            return rc;
        if (ret)
            return dfail(dec, offset, "sync address 0x%" PRIx64 " reached after it retired", addr);
        if (dec->sync_adjacent && !dec->before_f3_via && rvt_flow_insns(f) != n0)
            return dfail(dec, offset,
                         "the packet before reports 0x%" PRIx64 " as the last instruction before this sync packet, "
                         "but the sync address 0x%" PRIx64 " comes %" PRIu64 " instructions after it",
                         dec->before_f3_addr, addr, rvt_flow_insns(f) - n0);
        /* rvtrace's disambiguation (docs/etrace.md, "A format 3 that does
         * not follow at once"): after an uninferable target reported
         * without updiscon, the encoder reports the instruction before a
         * privilege or precise context change as well, so that such a
         * report before a start packet always reads as the instruction
         * before it.  Checked when the decoder is told the stream has these
         * packets (--disambiguate on given): the spec's reference algorithm
         * sends none. */
        if (dec->sync_adjacent && dec->before_f3_via && rvt_flow_insns(f) != n0 && dec->p.disambiguate_given &&
            dec->p.disambiguate && (k->privilege != dec->priv || (et_ctx_bits(&dec->p) && k->context != dec->ctx)))
            return dfail(dec, offset,
                         "privilege or context change right after the report of 0x%" PRIx64
                         ", an uninferable target without updiscon: with --disambiguate the encoder reports the "
                         "instruction before the change first",
                         dec->before_f3_addr);
        if (dec->sync_adjacent && dec->before_f3_via && rvt_flow_insns(f) == n0)
            return dfail(dec, offset,
                         "the packet before reports 0x%" PRIx64 ", the target of an uninferable jump, right before "
                         "this sync packet without %s",
                         dec->before_f3_addr,
                         dec->p.version == ET_V0_026 ? "repeating it" : "updiscon (payload.adoc: \"the instruction "
                                                                        "following an uninferable discontinuity and "
                                                                        "is also the instruction before an exception, "
                                                                        "privilege change or resync\")");
        if ((rc = FL(rvt_flow_set_context(f, k->privilege, k->context))) < 0)
            return flow_fail(dec);
    } else {
        if (FL(rvt_flow_sync(f, addr, k->privilege, k->context, true)) < 0)
            return flow_fail(dec);
    }
    return 0;
}

/* What a format 3 packet resets and reports before its instruction
 * retires (et_dec_run_part stops after it: a decoder that starts at the
 * packet has the same fields, whether the instruction retires or not).
 * When it does not retire, the error leaves the decoder unsynced, where
 * last_addr, priv and ctx are not read: only while synced, or with a trap
 * open, which a trap packet opens setting them itself. */
static void sync_reset(struct et_decoder *dec, const struct et_packet *k, uint64_t addr)
{
    reset_sync_state(dec);
    dec->last_addr = addr;
    dec->priv = k->privilege;
    dec->ctx = k->context;
}

/* Retire the instruction a format 3 packet reports; its branch bit. */
static int retire_sync_insn(struct et_decoder *dec, const struct et_packet *k, uint64_t addr, uint64_t offset)
{
    sync_reset(dec, k, addr);
    int rc = retire_one(dec, addr);
    if (rc < 0)
        return rc;
    /* "branch: Set to 0 if the address points to a branch instruction, and
     * the branch was taken.  Set to 1 if the instruction is not a branch"
     * (payload.adoc; the 0.026 draft: "Has no meaning if this instruction
     * is not a branch"). */
    if (k->branch == 0 && dec->single_cf != RVT_CF_BRANCH && dec->p.version == ET_V2_0)
        return dfail(dec, offset,
                     "%s packet with branch 0 (a taken branch) at 0x%" PRIx64
                     ", which is not a branch (branch is 1 for any other instruction)",
                     et_pkt_name(k, dec->p.version == ET_V0_026), addr);
    if (dec->single_cf == RVT_CF_BRANCH && FL(rvt_flow_branch(dec->f, k->branch == 0)) < 0)
        return flow_fail(dec);
    dec->synced = true;
    dec->trap_open = false;
    return 0;
}

/* A trap reported with its handler (thaddr 1) while the last retired
 * instruction's successor is open: the trap was taken there, so that
 * successor is the EPC and the decoder infers it as decoder.adoc's
 * exception_address() does (next_pc(): a held branch outcome, the
 * sequential jump target, the implicit-return stack's prediction).  An
 * exception "at the target of an uninferable PC discontinuity" the decoder
 * cannot infer is reported with thaddr 0 and the EPC instead (payload.adoc,
 * "Format 3 thaddr"), so with the jump still unresolved a thaddr 1 packet is
 * one the encoder cannot have sent. */
static int resolve_before_trap(struct et_decoder *dec, const struct et_packet *k, uint64_t offset)
{
    struct rvt_flow *f = dec->f;
    int rc;
    if (!dec->synced || !rvt_flow_have_pc(f) || !rvt_flow_pending(f)) {
        dec->held = dec->held_jump = false;
        return 0;
    }
    if ((rc = apply_held(dec)) < 0)
        return rc;
    /* A reported branch right before the trap (the address packet's map
     * holds its outcome): next_pc() takes the branch by that outcome, so
     * the EPC is its target when taken. */
    if (rvt_flow_pending(f) && dec->have_single && dec->single_cf == RVT_CF_BRANCH && rvt_flow_queued_branches(f) &&
        FL(rvt_flow_continue(f)) < 0)
        return flow_fail(dec);
    if (!rvt_flow_pending(f) || !dec->have_single || !rvt_cf_uninferable(dec->single_cf))
        return 0;
    bool ir = dec->ir_on && dec->p.implicit_return != ET_IR_OFF;
    if (dec->single_cf == RVT_CF_RETURN && ir && rvt_flow_callstack(f)->count)
        return pop_implicit(dec);
    if (dec->p.version != ET_V2_0)
        return 0; /* the 0.026 draft has no thaddr: the EPC there is not reported */
    return dfail(dec, offset,
                 "%s packet with its handler (thaddr 1) right after the uninferable jump at 0x%" PRIx64
                 ": a trap at the target of an uninferable discontinuity is reported with its EPC (thaddr 0)",
                 et_pkt_name(k, dec->p.version == ET_V0_026), dec->single_addr);
}

/* Privilege levels (ingressPort.adoc, priv encoding) in the order a trap
 * can only raise: U and VU, VS, S/HS, M, D; -1 for the reserved codes. */
static int priv_rank(unsigned p)
{
    static const int rank[8] = {0, 2, -1, 3, 4, 0, 1, -1};
    return p < 8 ? rank[p] : -1;
}

/* "Traps never transition from a more-privileged mode to a less-privileged
 * mode" (RISC-V privileged architecture, trap delegation), and "the
 * privilege value reported when thaddr is 0 will be the privilege level
 * prior to any change" (payload.adoc): a trap packet or the sync packet
 * reporting a handler names a privilege no lower than the one trapped from
 * (which is what the decoder last heard; after a trap without its handler
 * the handler's own privilege is not known, only that it is no lower). */
static int check_trap_priv(struct et_decoder *dec, const struct et_packet *k, uint64_t offset, bool handler)
{
    int from = priv_rank(dec->priv), to = priv_rank(k->privilege);
    if (dec->p.version != ET_V2_0)
        return 0; /* (the 0.026 draft does not define the privilege codes) */
    if (!dec->trap_open) {
        /* A trap right after an xRET is taken at the privilege the xRET
         * entered, which no packet reported (the ingress port gives a
         * trap-only block the privilege of the last retired instruction,
         * or of the one after it): nothing to compare with. */
        dec->trap_from_known = dec->synced && rvt_flow_have_pc(dec->f) &&
                               !(rvt_flow_pending(dec->f) && dec->have_single && dec->single_cf == RVT_CF_TRAPRET);
    }
    if (handler && (to == 0))
        return dfail(dec, offset,
                     "%s packet reporting a trap handler in %s-mode: traps are taken in M-, S/HS- or VS-mode "
                     "(the privileged architecture has no user-mode trap handling)",
                     et_pkt_name(k, dec->p.version == ET_V0_026), k->privilege == 5 ? "VU" : "U");
    if (from < 0 || to < 0 || !(dec->synced || dec->trap_open) || !dec->trap_from_known)
        return 0;
    if (!handler && dec->synced && !dec->trap_open && k->privilege != dec->priv)
        return dfail(dec, offset,
                     "trap packet without its handler (thaddr 0) with privilege %u, but the trace is at privilege %u "
                     "(thaddr 0 reports the privilege before the trap)",
                     k->privilege, dec->priv);
    if (to < from)
        return dfail(dec, offset,
                     "%s packet%s with privilege %u, lower than privilege %u the trap was taken from (a trap never "
                     "lowers the privilege)",
                     et_pkt_name(k, dec->p.version == ET_V0_026), k->format == ET_F3 && k->subformat == ET_SF_START ? " reporting a trap handler" : "",
                     k->privilege, dec->priv);
    return 0;
}

/* A trap packet without its handler (thaddr 0) is either an exception at
 * the target of an uninferable discontinuity or on the first traced
 * instruction ("address contains the EPC ... the trap handler address will
 * be reported via a subsequent format 3, subformat 0 packet"), or a trap
 * whose handler did not retire because "a second interrupt or exception
 * occurs immediately" (payload.adoc, thaddr): that second trap's packet
 * follows, not the handler's sync packet.  (With implicit_except the
 * encoder reports a handler it cannot imply with a sync packet.) */
static int check_unreported_epc(struct et_decoder *dec, const struct et_packet *k, const struct et_packet *next,
                                uint64_t offset)
{
    struct rvt_flow *f = dec->f;
    if (k->thaddr || dec->p.implicit_except || !next || next->msg != ET_MSG_TE_INST || next->format != ET_F3 ||
        next->subformat != ET_SF_START)
        return 0;
    bool epc = !dec->trap_open &&
               (!dec->synced || !rvt_flow_have_pc(f) ||
                (rvt_flow_pending(f) && dec->have_single && rvt_cf_uninferable(dec->single_cf)));
    if (epc)
        return 0;
    return dfail(dec, offset,
                 "trap packet without its handler (thaddr 0) followed by a sync packet, but the trap was not taken "
                 "at the target of an uninferable discontinuity nor on the first traced instruction: thaddr 0 "
                 "there means a second trap followed at once, and its trap packet must come next");
}

static int do_trap(struct et_decoder *dec, const struct et_packet *k, uint64_t offset, bool unretired)
{
    struct rvt_flow *f = dec->f;
    int prc = check_trap_priv(dec, k, offset, k->thaddr != 0);
    if (prc < 0)
        return prc;
    if (k->thaddr) {
        int rc = resolve_before_trap(dec, k, offset);
        if (rc < 0)
            return rc;
    }
    dec->held = false;
    dec->held_jump = false;
    rvt_flow_clear_branches(f);
    if (!k->thaddr) {
        if (dec->synced && rvt_flow_have_pc(f)) {
            dec->trap_open = true;
            bool after_xret = rvt_flow_pending(f) && dec->have_single && dec->single_cf == RVT_CF_TRAPRET;
            /* after an uninferable jump the address is the EPC: its target */
            if (rvt_flow_pending(f) && rvt_cf_uninferable(dec->single_cf) && k->has_address &&
                dec->have_single) {
                struct rvt_insn in;
                uint64_t epc = full_addr(dec, k->address);
                if (!insn_at(dec, epc, &in))
                    return dfail(dec, offset,
                                 "trap packet (thaddr 0) after an uninferable jump: its EPC 0x%" PRIx64
                                 ", the jump's target, is not an instruction of the program",
                                 epc);
                if (FL(rvt_flow_jump(f, epc)) < 0)
                    return flow_fail(dec);
            }
            /* "The privilege value reported when thaddr is 0 will be the
             * privilege level prior to any change" (payload.adoc): right
             * after an xRET that is the privilege the xRET entered, which
             * no other packet reports; the trap is taken from it. */
            if (after_xret && dec->p.version == ET_V2_0) {
                if (FL(rvt_flow_set_context(f, k->privilege, k->context)) < 0)
                    return flow_fail(dec);
                dec->priv = k->privilege;
                dec->ctx = k->context;
            }
            if (FL(rvt_flow_trap(f, k->interrupt, k->ecause, k->tval, false, 0)) < 0)
                return flow_fail(dec);
        } else if (k->has_address && (!dec->synced || !rvt_flow_have_pc(f)) && !dec->trap_open) {
            /* the first traced event is the trap (tracing starts at it): the
             * address is its EPC (payload.adoc) and the privilege the one
             * trapped from; no instruction retires before the handler */
            if (FL(rvt_flow_sync(f, full_addr(dec, k->address), k->privilege, k->context, true)) < 0)
                return flow_fail(dec);
            if (FL(rvt_flow_trap(f, k->interrupt, k->ecause, k->tval, false, 0)) < 0)
                return flow_fail(dec);
            dec->priv = k->privilege;
            dec->ctx = k->context;
            dec->trap_open = true;
        }
        dec->synced = false; /* the handler comes with the next sync packet */
        dec->have_single = false;
        return 0;
    }
    uint64_t handler;
    if (k->has_address)
        handler = full_addr(dec, k->address);
    else if (!et_implied_handler(&dec->p, k->privilege, k->interrupt, k->ecause, &handler))
        return dfail(dec, offset, "trap packet without handler address and no trap vector configured");
    if (FL(rvt_flow_trap(f, k->interrupt, k->ecause, k->tval, true, handler)) < 0)
        return flow_fail(dec);
    if (FL(rvt_flow_set_context(f, k->privilege, k->context)) < 0)
        return flow_fail(dec);
    if (unretired) {
        /* the next trap is taken at the handler address */
        reset_sync_state(dec);
        dec->last_addr = handler;
        dec->synced = true;
        dec->trap_open = false;
        dec->priv = k->privilege;
        dec->ctx = k->context;
        dec->have_single = false;
        return 0;
    }
    return retire_sync_insn(dec, k, handler, offset);
}

/* Does the packet following an address packet make it "the last instruction
 * before a format 3" (K_INFERRED) rather than an uninferable target? */
static enum kind classify(const struct et_decoder *dec, const struct et_packet *k, const struct et_packet *next)
{
    if (k->notify)
        return K_INFERRED;
    if (k->format == ET_F0 && k->subformat == ET_SF0_JTC && dec->p.version == ET_V2_0)
        return K_UPDISCON;
    bool v026 = dec->p.version == ET_V0_026;
    if (!next)
        return (!v026 && k->updiscon) ? K_UPDISCON : K_INFERRED;
    if (next->msg == ET_MSG_TE_SUPPORT || (next->format == ET_F3 && next->subformat == ET_SF_SUPPORT)) {
        if (next->qual_status == ET_QUAL_ENDED_NTR)
            return K_UPDISCON;
        if (next->qual_status == ET_QUAL_NO_CHANGE && next->ienable)
            return K_UPDISCON;
        return (!v026 && k->updiscon) ? K_UPDISCON : K_INFERRED;
    }
    if (next->format == ET_F3 && (next->subformat == ET_SF_START || next->subformat == ET_SF_TRAP))
        return (!v026 && k->updiscon) ? K_UPDISCON : K_INFERRED;
    return K_UPDISCON;
}

/* An uninferable target that is in the jump target cache reported with its
 * address: "the encoder may still choose to output the differential address
 * using format 1 or 2 if the resulting packet is shorter" (payload.adoc),
 * else "format 0, subformat 1 will be used" (exampleAlgorithm.adoc).  So
 * the format 1/2 packet must be shorter (in sign-compressed bits, the least
 * any byte-counting encoder also needs) than the format 0.1 one. */
static int check_jtc_choice(struct et_decoder *dec, const struct et_packet *k, unsigned idx, uint64_t addr,
                            uint64_t offset)
{
    struct et_packet a = *k, j;
    memset(&j, 0, sizeof j);
    j.format = ET_F0;
    j.subformat = ET_SF0_JTC;
    j.index = idx;
    j.branches = k->format == ET_F1 ? k->branches : 0;
    j.branch_map = k->format == ET_F1 ? k->branch_map : 0;
    j.irreport = k->irreport;
    j.irdepth = k->irdepth;
    struct et_bits ba, bj;
    struct rvt_diag d = {0};
    if (et_pkt_bits(&dec->p, &a, &ba, &d) < 0 || et_pkt_bits(&dec->p, &j, &bj, &d) < 0)
        return 0; /* (not comparable: nothing to check) */
    unsigned la = et_bits_compressed_len(&ba), lj = et_bits_compressed_len(&bj);
    if (lj > la)
        return 0;
    return dfail(dec, offset,
                 "format %u packet reports the uninferable target 0x%" PRIx64
                 " by its address although it is in the jump target cache (entry %u), whose format 0 subformat 1 "
                 "packet is no longer (%u bits, the address packet %u): the encoder reports a cached target by its "
                 "index unless the address packet is shorter",
                 (unsigned)k->format, addr, idx, lj, la);
}

static int do_address(struct et_decoder *dec, const struct et_packet *k, const struct et_packet *next,
                      uint64_t offset)
{
    struct rvt_flow *f = dec->f;
    int rc;
    if (!dec->synced || !rvt_flow_have_pc(f))
        return 0; /* waiting for a sync packet */
    if ((rc = apply_held(dec)) < 0)
        return rc;
    bool v026 = dec->p.version == ET_V0_026;
    enum kind kind = classify(dec, k, next);
    /* (the usual next packet: none of the format 3 and support cases below) */
    const bool next_plain = next && next->format != ET_F3;
    /* updiscon (payload.adoc): the instruction "before an exception,
     * privilege change or resync (i.e. it will be followed immediately by a
     * format 3 te_inst)" — or by the support packet that ends tracing. */
    if (!v026 && k->updiscon && next && next->msg == ET_MSG_TE_INST && next->format != ET_F3)
        return dfail(dec, offset,
                     "%s packet with updiscon set, but the next packet is a %s, not a format 3 (updiscon: \"it will be "
                     "followed immediately by a format 3 te_inst\")",
                     et_pkt_name(k, dec->p.version == ET_V0_026), et_pkt_name(next, dec->p.version == ET_V0_026));

    /* the reported address */
    uint64_t addr;
    if (k->format == ET_F0 && k->subformat == ET_SF0_JTC && !v026) {
        if (!et_jtc_get(&dec->jtc, k->index, &addr))
            return dfail(dec, offset, "jump target cache index %" PRIu32 " is empty", k->index);
    } else {
        bool full = dec->p.full_address || (v026 && k->format == ET_F0);
        addr = full ? full_addr(dec, k->address) : diff_addr(dec, k->address);
    }

    /* the branches it reports */
    unsigned nmap = 0;
    uint32_t map = 0;
    if (k->format == ET_F1 || (v026 && k->format == ET_F0) || (k->format == ET_F0 && k->subformat == ET_SF0_JTC)) {
        nmap = k->branches;
        map = k->branch_map;
    }
    if (bp_on(dec)) {
        dec->src_map = map;
        dec->src_nmap = nmap;
        dec->src_npred = 0;
        dec->src_fail = false;
        if (k->format == ET_F0 && k->subformat == ET_SF0_BPRED && !v026) {
            dec->src_npred = (uint64_t)k->branch_count + 31;
            dec->src_fail = k->branch_fmt == ET_BFMT_ADDR_FAIL;
        }
    } else if (nmap) {
        /* map: 0 = taken; flow: 1 = taken.  The whole map at once (the
         * flow keeps only the low nmap bits). */
        if (FL(rvt_flow_push_branches(f, ~(uint64_t)map, nmap)) < 0)
            return flow_fail(dec);
    }

    /* A repeat of the address just reported, with nothing in between: the
     * reference model's final packet, or the 0.026 encoder marking an
     * uninferable target followed by a format 3 (a notification in 2.0
     * would be a further pass through a loop instead). */
    bool before_end = !next_plain && (!next || next->msg == ET_MSG_TE_SUPPORT ||
                                      (next->format == ET_F3 && next->subformat == ET_SF_SUPPORT &&
                                       next->qual_status != ET_QUAL_NO_CHANGE));
    bool repeat_ok = v026 ? (!next || next->format == ET_F3 || next->msg == ET_MSG_TE_SUPPORT) : (!k->notify && before_end);
    if (repeat_ok && kind == K_INFERRED && nmap == 0 && dec->have_single && dec->single_addr == addr &&
        !(k->format == ET_F0 && k->subformat == ET_SF0_BPRED)) {
        dec->last_addr = addr;
        return 0;
    }

    if (kind == K_UPDISCON && dec->p.jump_target_cache && dec->jtc.valid && !v026 &&
        !(k->format == ET_F0 && k->subformat == ET_SF0_JTC)) {
        unsigned idx;
        if (et_jtc_lookup_update(&dec->jtc, addr, &idx) && !k->notify && !k->updiscon &&
            (k->format == ET_F1 || k->format == ET_F2) && (rc = check_jtc_choice(dec, k, idx, addr, offset)) < 0)
            return rc;
    }

    struct seg s = {.addr = addr, .kind = kind, .irreport = k->irreport, .irdepth = k->irdepth, .offset = offset};
    /* Packets that say their address is not an uninferable target: notify
     * ("not the target of an uninferable discontinuity"), updiscon equal to
     * notify right before a trap packet (the last instruction before a trap
     * is always reported, so an uninferable target there is case 2 of
     * payload.adoc's looplabel cases, with updiscon set) or before ended_rep
     * ("would not have been issued if tracing hadn't ended").  (Before a
     * start packet it may be an uninferable target reported for itself,
     * with the start some instructions later: case 3.)  In the 0.026 draft,
     * which has no updiscon, rvtrace repeats an uninferable target right
     * before a trap (docs/etrace.md). */
    bool next_trap = !next_plain && next && next->msg == ET_MSG_TE_INST && next->format == ET_F3 &&
                     next->subformat == ET_SF_TRAP;
    bool next_rep = !next_plain && next && !v026 && next->format == ET_F3 && next->subformat == ET_SF_SUPPORT &&
                    next->qual_status == ET_QUAL_ENDED_REP;
    if (kind == K_INFERRED && (k->notify || next_trap || next_rep)) {
        s.not_updiscon = true;
        s.not_updiscon_why = k->notify ? "notify"
                             : v026    ? "reported once before the trap packet"
                             : next_trap ? "updiscon not set before a trap packet"
                                         : "updiscon not set before a support packet with ended_rep";
    }
    bool via, done;
    rc = walk_to_inline(dec, &s, &via, &done);
    if (rc < 0)
        return rc;
    /* A start packet right after a packet that is neither a notification
     * nor has updiscon set (K_INFERRED).  An address that is not an
     * uninferable target is reported because "a format 3 packet will be
     * generated from the next instruction" (payload.adoc, qual_status;
     * exampleAlgorithm.adoc: the branches are reported "for the preceding
     * instruction" before a format 3): the start names its successor.  An
     * uninferable target with the start at its successor would have had
     * updiscon set ("the instruction following an uninferable discontinuity
     * and is also the instruction before an exception, privilege change or
     * resync"): the start comes later (looplabel case 3).  do_sync checks
     * which. */
    bool next_start = !next_plain && next && next->msg == ET_MSG_TE_INST && next->format == ET_F3 &&
                      next->subformat == ET_SF_START;
    dec->before_f3 = kind == K_INFERRED && !k->notify && next_start;
    dec->before_f3_via = via;
    dec->before_f3_addr = addr;
    if (!done && (rc = retire_one(dec, addr)) < 0)
        return rc;
    if ((rc = resolve_reported_branch(dec, addr)) < 0)
        return rc;
    dec->last_addr = addr;
    if (bp_on(dec) && src_remaining(dec))
        return dfail(dec, offset, "%" PRIu64 " reported branch outcomes left at 0x%" PRIx64, src_remaining(dec), addr);
    return 0;
}

/* A walk's branch-outcome callback in prediction mode: every outcome but
 * the packet's last, which the caller holds until the next packet. */
static int predicted_outcome(void *ctx, uint64_t addr, bool *taken)
{
    struct et_decoder *dec = ctx;
    if (src_remaining(dec) < 2)
        return 0;
    return src_next(dec, addr, taken) == 0;
}

/* Format 1 with a full map and no address, or format 0.0 without address:
 * follow the branches up to the last one, whose outcome is held. */
static int do_branches(struct et_decoder *dec, const struct et_packet *k, uint64_t offset)
{
    struct rvt_flow *f = dec->f;
    int rc;
    if (!dec->synced || !rvt_flow_have_pc(f))
        return 0;
    if ((rc = apply_held(dec)) < 0)
        return rc;
    bool bp = bp_on(dec);
    uint64_t total;
    if (k->format == ET_F0 && dec->p.version == ET_V2_0) {
        if (!bp)
            return dfail(dec, offset, "branch count packet but branch prediction is off");
        dec->src_nmap = 0;
        dec->src_npred = (uint64_t)k->branch_count + 31;
        dec->src_fail = true;
        total = dec->src_npred + 1;
    } else {
        uint32_t map = k->branch_map;
        if (bp) {
            dec->src_map = map;
            dec->src_nmap = 31;
            dec->src_npred = 0;
            dec->src_fail = false;
            dec->src_miss = false;
        } else {
            if (FL(rvt_flow_push_branches(f, ~(uint64_t)map, 30)) < 0) /* 0 = taken, as above */
                return flow_fail(dec);
            dec->held_taken = !((map >> 30) & 1);
        }
        total = 31;
    }
    (void)total;
    const bool ir = dec->ir_on && dec->p.implicit_return != ET_IR_OFF;
    for (;;) {
        /* With prediction the outcomes are given inside the walk, all but
         * the last (held back below): the walk stops at that one. */
        struct rvt_walk w = {.flags = ir ? RVT_WALK_IMPLICIT_RET : 0,
                             .branch_outcome = bp ? predicted_outcome : NULL,
                             .branch_ctx = dec};
        struct rvt_stop st;
        bool had_single = dec->have_single;
        if (pending_unresolvable(dec, w.flags)) {
            memset(&st, 0, sizeof st);
            st.reason = RVT_STOP_UNINF;
            st.cf = dec->single_cf;
            st.last = dec->single_addr;
            dec->have_single = false;
        } else {
            if (FL(rvt_flow_walk(f, &w, &st)) < 0)
                return flow_fail(dec);
            if (st.insns)
                dec->have_single = false;
        }
        if (st.reason == RVT_STOP_UNINF) {
            uint64_t t;
            if (sij_across(dec, had_single, &st, &t)) {
                if (FL(rvt_flow_jump(f, t)) < 0)
                    return flow_fail(dec);
                continue;
            }

        }
        if (st.reason != RVT_STOP_BRANCH)
            return dfail(dec, offset,
                         "while following the reported branches the code reaches %s at 0x%" PRIx64
                         " that the trace does not resolve",
                         st.reason == RVT_STOP_UNINF ? "an uninferable jump" : "a trap", st.reason == RVT_STOP_UNINF ? st.last : st.pc);
        if (!bp) {
            dec->held = true; /* the last branch: its successor is not known to retire yet */
            return 0;
        }
        bool taken;
        if (src_next(dec, st.last, &taken) < 0)
            return dfail(dec, offset, "branch outcomes used up");
        if (src_remaining(dec) == 0) {
            /* exampleAlgorithm.adoc, format selection: "Format 1 is used if
             * the outcome of at least one of those 31 branches was not
             * predicted correctly.  If all were predicted correctly, nothing
             * is output at this time" (the count goes on, format 0.0) */
            if (k->format == ET_F1 && !dec->src_miss)
                return dfail(dec, offset,
                             "format 1 packet with 31 branches that the branch predictor all predicts: the encoder "
                             "sends a branch map only when one of them was mispredicted");
            dec->held = true;
            dec->held_taken = taken;
            return 0;
        }
        if (FL(rvt_flow_branch(f, taken)) < 0)
            return flow_fail(dec);
    }
}

static int do_support(struct et_decoder *dec, const struct et_packet *k, bool at_end)
{
    struct rvt_flow *f = dec->f;
    if (k->msg != ET_MSG_TE_SUPPORT) {
        struct et_params np = dec->p;
        et_apply_ioptions(&np, k->ioptions);
        if (np.implicit_return != dec->p.implicit_return && (np.implicit_return == ET_IR_OFF || !dec->ir_on ||
                                                               dec->p.implicit_return == ET_IR_OFF))
            return rvt_fail(&dec->diag, RVT_ERR_UNSUPPORTED,
                            "the trace was encoded with implicit-return %s (support packet ioptions 0x%" PRIx32
                            "); decode with the same --implicit-return and return_stack_size_p/call_counter_size_p",
                            np.implicit_return == ET_IR_OFF ? "off" : np.implicit_return == ET_IR_FIXED ? "fixed" : "2.0",
                            k->ioptions);
        if (np.sijump != dec->p.sijump)
            return rvt_fail(&dec->diag, RVT_ERR_UNSUPPORTED,
                            "the trace was encoded with sijump %s (ioptions 0x%" PRIx32 "); decode with --sijump %s",
                            np.sijump ? "on" : "off", k->ioptions, np.sijump ? "true" : "false");
        if ((np.branch_prediction && !dec->bp.state) || (np.jump_target_cache && !dec->jtc.valid))
            return rvt_fail(&dec->diag, RVT_ERR_UNSUPPORTED,
                            "the trace uses %s (ioptions 0x%" PRIx32 ") but %s is 0",
                            np.branch_prediction && !dec->bp.state ? "branch prediction" : "the jump target cache",
                            k->ioptions, np.branch_prediction && !dec->bp.state ? "bpred_size_p" : "cache_size_p");
        dec->p.implicit_return = np.implicit_return;
        dec->p.implicit_except = np.implicit_except;
        dec->p.full_address = np.full_address;
        dec->p.branch_prediction = np.branch_prediction;
        dec->p.jump_target_cache = np.jump_target_cache;
    }
    if (k->qual_status != ET_QUAL_NO_CHANGE || !k->ienable) {
        dec->held = false;
        dec->held_jump = false;
        if (at_end && !k->ienable && k->qual_status != ET_QUAL_TRACE_LOST) {
            /* the encoder's end of the trace (ienable=0): nothing is missing.
             * A final support packet with ienable=1 is a filter turning tracing
             * off: the unqualified instructions that follow are a gap. */
            dec->synced = false;
            return 0;
        }
        if (dec->synced || dec->trap_open) { /* also after a trap without its handler */
            enum rvt_gap_reason why = k->qual_status == ET_QUAL_TRACE_LOST ? RVT_GAP_LOST : RVT_GAP_TRACE_OFF;
            if (FL(rvt_flow_gap(f, why, why == RVT_GAP_LOST ? "trace packets lost" : "tracing stopped")) < 0)
                return flow_fail(dec);
        } else if (k->qual_status == ET_QUAL_TRACE_LOST) {
            if (FL(rvt_flow_gap(f, RVT_GAP_LOST, "trace packets lost")) < 0)
                return flow_fail(dec);
        }
        dec->synced = false;
        dec->trap_open = false;
        dec->have_single = false;
    }
    return 0;
}

/* Fields the configured (and support-packet announced) options cannot
 * produce, and values the spec reserves. */
static int check_fields(struct et_decoder *dec, const struct et_packet *k, uint64_t offset)
{
    const bool v026 = dec->p.version == ET_V0_026;
    if (k->msg == ET_MSG_TE_INST && (k->format == ET_F1 || k->format == ET_F2))
        goto ir; /* (the checks before are of the other formats) */
    if (k->msg == ET_MSG_TE_SUPPORT) {
        if (k->support_type != 0)
            return dfail(dec, offset, "te_support support_type %u (only 0, itrace_status, is defined)",
                         k->support_type);
        if (k->qual_status == ET_QUAL_TRACE_LOST)
            return dfail(dec, offset, "te_support qual_status 2 is reserved in the 0.026 draft");
    }
    if ((k->msg == ET_MSG_TE_SUPPORT || (k->format == ET_F3 && k->subformat == ET_SF_SUPPORT)) && k->encoder_mode)
        return dfail(dec, offset, "support packet encoder_mode %u (only 0, branch trace, is defined)",
                     k->encoder_mode);
    if (k->format == ET_F0 && !v026 && k->msg == ET_MSG_TE_INST) {
        if (k->subformat == ET_SF0_BPRED && !bp_on(dec))
            return dfail(dec, offset, "format 0 branch-count packet, but branch prediction is off");
        if (k->subformat == ET_SF0_JTC && !(dec->p.jump_target_cache && dec->jtc.valid))
            return dfail(dec, offset, "format 0 jump-target-cache packet, but the jump target cache is off");
    }
    if (k->msg == ET_MSG_TE_INST && k->format == ET_F3 && k->subformat != ET_SF_SUPPORT &&
        priv_rank(k->privilege) < 0)
        return dfail(dec, offset, "%s packet with privilege %u, a reserved code (ingressPort.adoc: 0 U, 1 S/HS, 3 M, "
                     "4 D, 5 VU, 6 VS)", et_pkt_name(k, dec->p.version == ET_V0_026), k->privilege);
ir:
    if (k->has_ir && k->irreport) {
        if (!dec->ir_on || dec->p.implicit_return == ET_IR_OFF)
            return dfail(dec, offset, "%s packet with irreport set, but implicit return is off", et_pkt_name(k, dec->p.version == ET_V0_026));
        unsigned entries = et_callstack_depth(&dec->p);
        if (dec->p.implicit_return == ET_IR_20 && k->irdepth > entries)
            return dfail(dec, offset, "irdepth %" PRIu32 " is deeper than the return stack (%u entries)",
                         k->irdepth, entries);
    }
    return 0;
}

static int note_error(struct et_decoder *dec, uint64_t offset, const char *text);

/* Periodic resynchronisation (exampleAlgorithm.adoc): the encoder counts
 * the packets it sends; once the count passes the resync period, the next
 * instruction gets a format 3 start packet, which resets the count (as do
 * trap packets).  So the position of a resync start is fixed by the period:
 * one that comes early, or none when one is due, means packets were lost or
 * added (deleted or inserted bytes that still parse).  A start is a resync
 * when nothing else explains it: not the first after the decoder lost sync
 * (start of trace, support packet, trap without handler, error) and with the
 * same privilege and context.  The period is not in the trace (and
 * `rvtrace encode` into a wrapping RAM picks one), so the decoder takes it
 * from the first resync: a power of two of at least 16 packets
 * (2^(resync-max+4)), plus the few packets the encoder may send at the
 * instruction whose packet passed it; every later resync must match.  The
 * 0.026 draft also sends a start at a trace-notify trigger: there only the
 * missing resync is checked.
 * The spec lets an encoder's resync timer count "packets, cycle or
 * instruction half-words" (exampleAlgorithm.adoc), and a cycle or half-word
 * timer gives resyncs at any packet count, so the check runs only when the
 * decoder is told the timer counts packets: --resync-max N given to the
 * decoder (or trTeInstSyncMode = 1 in a register file).  Without it a
 * spec-valid stream from other hardware is never reported as damaged. */
#define ET_RESYNC_SLACK 8 /* packets the encoder may send at the instruction whose packet passed the period */
static int check_resync(struct et_decoder *dec, const struct et_packet *k, uint64_t offset)
{
    if (!dec->p.resync_counted || dec->p.resync_max == ET_RESYNC_ANY)
        return 0;
    static const char hint[] =
        "packets lost or added? (omit --resync-max when decoding if the encoder's resync is not a packet count)";
    uint64_t period = dec->period;
    bool sync = k->msg == ET_MSG_TE_INST && k->format == ET_F3 &&
                (k->subformat == ET_SF_START || k->subformat == ET_SF_TRAP);
    if (!sync) {
        if (!dec->counting || !dec->synced)
            return 0;
        dec->since_sync++;
        if (period && dec->since_sync > period + 1 + ET_RESYNC_SLACK) {
            dec->counting = false;
            return dfail(dec, offset,
                         "%" PRIu64 " packets since the last sync packet and no resync, where the trace resyncs after "
                         "%" PRIu64 ": %s",
                         dec->since_sync, period, hint);
        }
        return 0;
    }
    uint64_t n = dec->since_sync;
    bool counted = dec->counting;
    dec->counting = true;
    dec->since_sync = 0;
    if (k->subformat != ET_SF_START || !counted || !dec->synced ||
        k->privilege != dec->priv || (et_ctx_bits(&dec->p) && k->context != dec->ctx))
        return 0;
    if (dec->p.version != ET_V2_0) {
        /* 0.026: a trace-notify start ("trace single") may come at any time
         * and leaves the count running (the encoder's rule): a start
         * before the period, or before a period is known one that fits
         * none, is such a notification; the resyncs are then checked for
         * coming when due. */
        uint64_t p2 = n > 1 ? 1ull << (63 - __builtin_clzll(n - 1)) : 0;
        if (period ? n < period + 1 : (p2 < 16 || n - 1 - p2 > ET_RESYNC_SLACK)) {
            dec->since_sync = n + 1;
            return 0;
        }
        if (!period)
            dec->period = p2;
        return 0;
    }
    if (!period) {
        /* the first resync gives the period */
        uint64_t p2 = n > 1 ? 1ull << (63 - __builtin_clzll(n - 1)) : 0;
        if (p2 < 16 || n - 1 - p2 > ET_RESYNC_SLACK)
            return dfail(dec, offset,
                         "resync after %" PRIu64 " packets: a resync period of packets is a power of two of at "
                         "least 16 (2^(resync-max+4)): %s",
                         n, hint);
        dec->period = p2;
        return 0;
    }
    if (n < period + 1)
        return dfail(dec, offset,
                     "sync packet after %" PRIu64 " packets with nothing to explain it (no trap, privilege or "
                     "context change), where the trace resyncs after %" PRIu64 ": %s",
                     n, period, hint);
    return 0;
}

/* One packet (inline in the packet loop; process elsewhere). */
static RVT_FASTRD_INLINE int process_inline(struct et_decoder *dec, const struct et_packet *k, const struct et_packet *next,
                                    uint64_t offset)
{
    struct rvt_flow *f = dec->f;
    rvt_flow_set_offset(f, offset);
    dec->packets++;
    dec->sync_adjacent = dec->before_f3;
    dec->before_f3 = false;
    int crc = check_fields(dec, k, offset);
    if (crc < 0)
        return crc;
    /* What may follow: tracing (re)starts with a sync packet after a support
     * packet ("before the first sync packet", and after tracing ceased or
     * packets were lost), and a trap packet without its handler (thaddr 0)
     * is followed by the packet reporting the handler ("via a subsequent
     * format 3, subformat 0 packet") or by another trap. */
    bool f3 = k->msg == ET_MSG_TE_SUPPORT || (k->format == ET_F3 && k->subformat != ET_SF_CONTEXT);
    if (dec->expect_sync && !f3) {
        dec->expect_sync = false;
        return dfail(dec, offset, "%s packet where a format 3 packet must come (after %s)", et_pkt_name(k, dec->p.version == ET_V0_026),
                     dec->expect_why);
    }
    dec->expect_sync = false;
    if (dec->p.resync_counted && (crc = check_resync(dec, k, offset)) < 0) { /* (its first test, inline) */
        if (dec->p.strict || !(k->format == ET_F3 && k->msg == ET_MSG_TE_INST))
            return crc;
        /* the sync packet itself is sound: the decode starts again from it */
        char text[600];
        snprintf(text, sizeof text, "%s", dec->diag.msg);
        rvt_diag_clear(&dec->diag);
        if ((crc = note_error(dec, offset, text)) < 0)
            return crc;
        rvt_flow_set_offset(f, offset);
        dec->counting = true;
        dec->since_sync = 0;
    }
    if (k->msg == ET_MSG_TE_SUPPORT || (k->format == ET_F3 && k->subformat == ET_SF_SUPPORT)) {
        dec->open = k->ienable && (k->qual_status == ET_QUAL_NO_CHANGE || k->qual_status == ET_QUAL_TRACE_LOST);
        /* (data_on is set where the deframer meets the packet: the data
         * packets after it are read before it is processed) */
        int rc = do_support(dec, k, next == NULL);
        dec->expect_sync = rc == 0 && !dec->synced;
        dec->expect_why = "a support packet";
        return rc;
    }
    if (k->format == ET_F3 && k->subformat == ET_SF_TRAP && !k->thaddr && dec->p.version == ET_V2_0) {
        dec->expect_sync = true;
        dec->expect_why = "a trap packet without its handler address (thaddr 0)";
    }
    dec->open = true;
    switch (k->format) {
    case ET_F3:
        if (k->subformat == ET_SF_CONTEXT) {
            dec->priv = k->privilege;
            dec->ctx = k->context;
            if (FL(rvt_flow_set_context(f, k->privilege, k->context)) < 0)
                return flow_fail(dec);
            if (et_time_bits(&dec->p))
                rvt_flow_set_time(f, k->time);
            return 0;
        }
        if (et_time_bits(&dec->p))
            rvt_flow_set_time(f, k->time);
        if (k->subformat == ET_SF_TRAP && dec->p.version == ET_V2_0) {
            int rc = check_unreported_epc(dec, k, next, offset);
            return rc < 0 ? rc : do_trap(dec, k, offset, false);
        }
        if (k->subformat == ET_SF_TRAP) {
            /* 0.026: always the handler; another trap packet right after
             * says the handler's first instruction did not retire (a second
             * trap was taken there; the encoder repeats the handler address
             * when it retired and then trapped) */
            struct et_packet t = *k;
            t.thaddr = 1;
            bool unretired = next && next->msg == ET_MSG_TE_INST && next->format == ET_F3 &&
                             next->subformat == ET_SF_TRAP;
            return do_trap(dec, &t, offset, unretired);
        }
        {
            uint64_t a = full_addr(dec, k->address);
            int rc = dec->trap_open ? check_trap_priv(dec, k, offset, true) : 0;
            if (rc < 0)
                return rc;
            rc = do_sync(dec, k, a, offset);
            if (rc < 0 || dec->seam)
                return rc;
            if (offset == dec->part_until) {
                /* (et_dec_run_part: the rest when the next part starts) */
                sync_reset(dec, k, a);
                dec->part_mid = true;
                return 0;
            }
            return retire_sync_insn(dec, k, a, offset);
        }
    case ET_F0:
        if (dec->p.version == ET_V0_026 ? !k->has_address
                                        : (k->subformat == ET_SF0_BPRED && !(k->branch_fmt & 2)))
            return do_branches(dec, k, offset);
        return do_address(dec, k, next, offset);
    case ET_F1:
        if (!k->has_address)
            return do_branches(dec, k, offset);
        return do_address(dec, k, next, offset);
    default:
        return do_address(dec, k, next, offset);
    }
}

static int process(struct et_decoder *dec, const struct et_packet *k, const struct et_packet *next, uint64_t offset)
{
    return process_inline(dec, k, next, offset);
}

/* ---- the buffer loop ------------------------------------------------------------------ */

struct pkt {
    struct et_packet k;
    uint64_t offset;
    int status;   /* 1 ok, 0 end, <0 error */
    bool framed;  /* (error) the frame itself was delimited: the next one starts after it */
    bool fast;    /* k was filled by the one-pass reader (its other fields are zero) */
};

/* A frame's payload: the packet, checked against what the configuration
 * can produce. */
static int unpack_frame(struct et_decoder *dec, const struct et_frame *fr, struct et_packet *k, struct rvt_diag *d)
{
    int rc = et_pkt_unpack_bits(&dec->p, fr->msg, &fr->bits, k, d);
    if (rc == 0 && fr->sign_padded)
        rc = et_pkt_check_padding(&fr->bits, k, dec->p.version == ET_V0_026, d);
    if (rc == 0)
        rc = et_pkt_check_irdepth(&dec->p, k, d);
    if (rc == 0 && !dec->p.partial_compression)
        rc = et_pkt_check_compressed(&fr->bits, k, fr->lead_bits, dec->p.version == ET_V0_026, d);
    return rc;
}

#if defined(__GNUC__)
#define ET_NOINLINE __attribute__((noinline))
#else
#define ET_NOINLINE
#endif

/* next_packet through the frame and the general reader.  Null packets are
 * skipped, but a run of them before a packet must end with a
 * null.alignment (e-trace-encap: "a null.alignment packet must be
 * transmitted as the final null before a normal packet"); data packets and
 * other sources' packets are skipped. */
static ET_NOINLINE void next_packet_general(struct et_decoder *dec, struct pkt *out)
{
    struct et_frame fr;
    struct rvt_diag d; /* (read only after a failure, which fills it: not zeroed, 516 bytes a packet) */
    d.code = 0;
    d.msg[0] = '\0';
    bool nulls = false, aligned = false;
    uint64_t last_null = 0;
    for (;;) {
        int rc = et_deframer_next(&dec->df, &fr, &d);
        if (rc == 0) {
            out->status = 0;
            return;
        }
        if (rc < 0) {
            out->status = rc;
            out->offset = fr.offset;
            snprintf(dec->note_text, sizeof dec->note_text, "%s", d.msg);
            return;
        }
        if (fr.is_null) {
            nulls = true;
            aligned = fr.is_align;
            last_null = fr.offset;
            continue;
        }
        if (nulls && !aligned && dec->after_packet) {
            /* (the packet itself is fine: it is read again after the note) */
            dec->df.pos = (size_t)fr.offset;
            out->status = -RVT_ERR_FORMAT;
            out->offset = last_null;
            out->framed = true;
            snprintf(dec->note_text, sizeof dec->note_text,
                     "offset 0x%" PRIx64 ": null packet 0x00 before the packet at offset 0x%" PRIx64
                     " (expected a null.alignment 0x80 as the last null before a packet: a damaged "
                     "synchronisation sequence?)",
                     last_null, fr.offset);
            return;
        }
        nulls = false;
        dec->after_packet = true;
        if (fr.is_data && !dec->data_on) {
            out->status = -RVT_ERR_FORMAT;
            out->offset = fr.offset;
            out->framed = true;
            snprintf(dec->note_text, sizeof dec->note_text,
                     "offset 0x%" PRIx64 ": a data trace packet, but no support packet enabled data trace "
                     "(denable)",
                     fr.offset);
            return;
        }
        if (fr.is_data) {
            /* decoded where met: its compression state is the stream's */
            if ((rc = et_dside_frame(dec->ds, &fr)) < 0) {
                out->status = rc;
                out->offset = fr.offset;
                snprintf(dec->note_text, sizeof dec->note_text, "offset 0x%" PRIx64 ": data trace: %s", fr.offset,
                         rvt_errstr(rc));
                return;
            }
            continue;
        }
        if (fr.is_other)
            continue;
        out->offset = fr.offset;
        rc = unpack_frame(dec, &fr, &out->k, &d);
        if (rc >= 0)
            rc = et_dside_inst(dec->ds, &out->k, fr.offset, &d);
        if (rc >= 0 && out->k.msg == ET_MSG_TE_INST && out->k.format == ET_F3 && out->k.subformat == ET_SF_SUPPORT)
            dec->data_on = dec->p.denable_p && out->k.denable; /* (in stream order: data packets follow it) */
        if (rc < 0) {
            out->status = rc;
            out->framed = true;
            snprintf(dec->note_text, sizeof dec->note_text, "offset 0x%" PRIx64 ": %s", fr.offset, d.msg);
            return;
        }
        out->status = 1;
        return;
    }
}

/* Next te_inst packet (inline in the packet loop; next_packet elsewhere). */
static RVT_FASTRD_INLINE void next_packet_inline(struct et_decoder *dec, struct pkt *out)
{
    out->framed = false;
    if (dec->fast.on && dec->df.pos < dec->df.len) {
        /* A normal packet without timestamp, of this trace's flow, that
         * the one-pass reader takes (formats 1 and 2): what the frame and
         * the general reader below would give, without them. */
        size_t pos = dec->df.pos, left = dec->df.len - pos;
        uint8_t h = dec->df.buf[pos];
        unsigned len = h & 0x1fu;
        if (len && (h & 0xe0u) == dec->fast_hdr && len < left) {
            const uint8_t *pl = dec->df.buf + pos + 1;
            uint8_t tail[32];
            if (left - 1 < sizeof tail) { /* (it reads 32 bytes) */
                memset(tail, 0, sizeof tail);
                memcpy(tail, pl, len);
                pl = tail;
            }
            if (et_pkt_read_fast_inline(&dec->fast, pl, len, &out->k, out->fast)) {
                out->fast = true;
                dec->df.pos = pos + 1 + len;
                dec->after_packet = true;
                out->offset = pos;
                out->status = 1;
                return;
            }
        }
    }
    out->fast = false;
    next_packet_general(dec, out);
}

static ET_NOINLINE void next_packet(struct et_decoder *dec, struct pkt *out)
{
    next_packet_inline(dec, out);
}

/* Do the frames from pos on parse (n packets, or to the end)?  With
 * want_sync the first packet must be one the decoder can start from. */
static bool chain_ok(struct et_decoder *dec, size_t pos, int n, bool want_sync)
{
    struct et_deframer df = dec->df;
    df.pos = pos;
    struct et_frame fr;
    struct et_packet k;
    struct rvt_diag d = {0};
    for (int i = 0; i < n;) {
        int rc = et_deframer_next(&df, &fr, &d);
        if (rc == 0 || rc == -RVT_ERR_TRUNCATED) /* (the end of the trace) */
            return i > 0 || !want_sync;
        if (rc < 0)
            return false;
        if (fr.is_null || fr.is_data || fr.is_other)
            continue;
        if (unpack_frame(dec, &fr, &k, &d) < 0)
            return false;
        if (i == 0 && want_sync &&
            (k.msg == ET_MSG_TE_SUPPORT || k.format != ET_F3 ||
             !(k.subformat == ET_SF_START || (k.subformat == ET_SF_TRAP && k.thaddr))))
            return false;
        i++;
    }
    return true;
}

/* After damage: the next position to read packets from.  A packet whose
 * frame was delimited (its payload is damaged) is followed by the next
 * frame when the frames from there parse; otherwise, and after a damaged
 * frame, e-trace-encap resumes after the next synchronisation sequence and
 * the raw format at the next offset where a sync packet and the packets
 * after it parse. */
static void resync(struct et_decoder *dec, bool framed)
{
    if (framed && chain_ok(dec, dec->df.pos, 6, false))
        return;
    dec->after_packet = false;
    if (dec->p.framing == ET_FRAME_ENCAP) {
        et_deframer_resync(&dec->df);
        return;
    }
    size_t pos = dec->df.pos;
    while (pos < dec->df.len && !chain_ok(dec, pos, 7, true))
        pos++;
    dec->df.pos = pos;
}

static int note_error(struct et_decoder *dec, uint64_t offset, const char *text)
{
    rvt_flow_set_offset(dec->f, offset);
    et_dside_lost_sync(dec->ds);
    dec->expect_sync = false;
    dec->counting = false;
    dec->synced = false;
    dec->trap_open = false;
    dec->held = false;
    dec->held_jump = false;
    dec->have_single = false;
    if (FL(rvt_flow_gap(dec->f, RVT_GAP_ERROR, text)) < 0)
        return flow_fail(dec);
    return 0;
}

/* After process(): a packet the decoder could not apply is an error note
 * at its offset (the decode goes on from the next sync point); what stops
 * the decode (no memory, the instruction limit, --strict) is returned. */
static int packet_failed(struct et_decoder *dec, int rc, uint64_t offset)
{
    if (rc >= 0)
        return rc;
    if (rc == -RVT_ERR_NOMEM || rc == -RVT_ERR_LIMIT || dec->p.strict)
        return rc;
    char text[600];
    snprintf(text, sizeof text, "%s", dec->diag.msg);
    if ((rc = note_error(dec, offset, text)) < 0)
        return rc;
    rvt_diag_clear(&dec->diag);
    return 0;
}

/* The first sync packet: say what could not be decoded before it, as the
 * other families do (RVT_GAP_WRAP; the flow engine makes it an error when
 * the trace starts where tracing started). */
static int lead_note(struct et_decoder *dec, const struct et_packet *k, uint64_t offset)
{
    bool start = k->msg != ET_MSG_TE_SUPPORT && k->format == ET_F3 &&
                 (k->subformat == ET_SF_START || k->subformat == ET_SF_TRAP);
    if (!start) {
        /* (After a support packet such a packet is an error already.) */
        if (!dec->lead && !dec->expect_sync && k->msg != ET_MSG_TE_SUPPORT && k->format != ET_F3) {
            dec->lead = true;
            dec->lead_off = offset;
        }
        return 0;
    }
    dec->ever_synced = true;
    if (!dec->lead)
        return 0;
    snprintf(dec->note_text, sizeof dec->note_text,
             "etrace: %" PRIu64 " bytes before the first sync packet (format 3, offset 0x%" PRIx64 ") cannot be decoded",
             offset - dec->lead_off, offset);
    rvt_flow_set_offset(dec->f, dec->lead_off);
    if (FL(rvt_flow_gap(dec->f, RVT_GAP_WRAP, dec->note_text)) < 0)
        return flow_fail(dec);
    return 0;
}

/* Where the packets start.  A trace file begins with the encoder's first
 * byte: a synchronisation sequence (encap), or a packet.  A buffer that
 * begins inside a packet (a wrapped trace RAM, a cut) is read from its
 * first synchronisation sequence (encap) or sync packet (refraw) on.  Which
 * one it is: packets that parse from offset 0, or (encap) a buffer that
 * begins with mostly null bytes (a synchronisation sequence, perhaps
 * damaged), start at 0 and every error there is reported; otherwise the
 * bytes before the first synchronisation point are the tail of older
 * trace and are skipped. */
static size_t start_offset(struct et_decoder *dec, const uint8_t *buf, size_t len)
{
    if (len == 0 || chain_ok(dec, 0, 6, false))
        return 0;
    if (dec->p.framing == ET_FRAME_ENCAP) {
        /* (a synchronisation sequence is n = 32 + T + S null bytes) */
        size_t s = et_encap_find_sync(&dec->p, buf, len, 0);
        size_t n = 32 + dec->p.ts_bytes + dec->p.src_bits / 8, zero = 0;
        if (s <= 2 * n)
            return s; /* the tail of a packet before a synchronisation sequence */
        for (size_t i = 0; i < n && i < len; i++)
            zero += (buf[i] & 0x1f) == 0;
        if (zero * 4 >= (n < len ? n : len) * 3)
            return 0; /* a damaged synchronisation sequence */
        return s;
    }
    /* a raw file is written from its first packet on */
    size_t pos = 1;
    while (pos < len && !chain_ok(dec, pos, 7, true))
        pos++;
    return pos;
}

/* A raw file starts with a packet: bytes skipped at its start are damage. */
static int report_start(struct et_decoder *dec, size_t start)
{
    if (dec->p.framing != ET_FRAME_REFRAW || start == 0)
        return 0;
    struct pkt first;
    first.fast = false;
    dec->df.pos = 0;
    next_packet(dec, &first);
    dec->df.pos = start;
    char where[80], text[700];
    if (start < dec->df.len)
        snprintf(where, sizeof where, "the decode starts at the sync packet at offset 0x%zx", start);
    else
        snprintf(where, sizeof where, "no sync packet follows in the %zu bytes", dec->df.len);
    snprintf(text, sizeof text, "%.500s%sno packet chain parses from offset 0: %s",
             first.status < 0 ? dec->note_text : "", first.status < 0 ? "; " : "", where);
    return note_error(dec, first.status < 0 ? first.offset : 0, text);
}

static int run_from(struct et_decoder *dec, size_t len, size_t start, size_t until);

int et_dec_run(struct et_decoder *dec, const uint8_t *buf, size_t len)
{
    return et_dec_run_segment(dec, buf, len, 0, len);
}

/* Is the packet k one a segment starts at?  A format 3 start packet: "The
 * [branch predictor] lookup table entries are initialized to 01 when a
 * synchronization packet is sent", "The [jump target] cache entries are all
 * invalidated when a synchronization packet is sent", the implicit-return
 * counter "is reset to 0 whenever a synchronization packet is sent"
 * (branchTrace.adoc), and data trace starts over: "following a
 * synchronization instruction trace packet, the first data trace packet for
 * a given access size must include the full (unencoded) data access
 * address" (dataTracePayload.adoc).  (A trap packet is a sync packet too,
 * but the serial decode applies it differently when synced: not a seam.) */
static bool seam_packet(const struct et_packet *k)
{
    return k->msg == ET_MSG_TE_INST && k->format == ET_F3 && k->subformat == ET_SF_START;
}

/* Segments (docs/parallel.md): a segment after the first starts at a
 * format 3 start packet (`from`) and ends with the next one (`until`),
 * whose walk to its address still belongs to it; the packet itself and its
 * instruction are the next segment's. */
int et_dec_run_segment(struct et_decoder *dec, const uint8_t *buf, size_t len, size_t from, size_t until)
{
    et_deframer_init(&dec->df, &dec->p, buf, len);
    dec->df.only_src = dec->p.src_id_set;
    if (from > 0)
        return run_from(dec, len, from, until);
    size_t start = start_offset(dec, buf, len);
    int rc0 = report_start(dec, start);
    if (rc0 < 0)
        return rc0;
    if (dec->p.strict && start)
        return rvt_fail(&dec->diag, RVT_ERR_FORMAT, "the trace does not start with a packet");
    dec->df.pos = start;
    /* (Encap: the bytes skipped before the first synchronisation sequence
     * are reported at the first sync packet; raw: report_start did.) */
    dec->ever_synced = false;
    dec->lead = dec->p.framing == ET_FRAME_ENCAP && start > 0 && start < len;
    dec->lead_off = 0;
    return run_from(dec, len, start, until);
}

/* et_dec_run_part stops: before packet p, or (part_mid) before the rest
 * of the sync packet and then p. */
static void part_stop(struct et_decoder *dec, const struct pkt *p, uint64_t last_offset)
{
    dec->part_stopped = dec->part_have = true;
    dec->part_k = p->k;
    dec->part_off = p->offset;
    dec->part_status = p->status;
    dec->part_framed = p->framed;
    dec->part_last = last_offset;
    dec->part_insns = rvt_flow_insns(dec->f);
    /* (A packet is longer than a byte: mid_off + 1 is inside it.) */
    dec->part_next = dec->part_mid ? dec->mid_off + 1 : p->offset;
}

static int run_from(struct et_decoder *dec, size_t len, size_t start, size_t until)
{
    const bool seam = until < len;
    /* The packet and the one after it, swapped by pointer (a copy cost 16
     * host instructions a packet). */
    struct pkt pk[2];
    pk[0].fast = pk[1].fast = false;
    struct pkt *cur = &pk[0], *nxt = &pk[1];
    int rc = 0;
    bool cut = false;
    uint64_t last_offset = 0;
    if (dec->part_resume) {
        /* (et_dec_run_part: on from where it stopped: the rest of the sync
         * packet, then the packet read ahead) */
        dec->part_resume = dec->part_have = false;
        last_offset = dec->part_last;
        if (dec->part_mid) {
            dec->part_mid = false;
            rvt_flow_set_offset(dec->f, dec->mid_off);
            rc = retire_sync_insn(dec, &dec->mid_k, full_addr(dec, dec->mid_k.address), dec->mid_off);
            if ((rc = packet_failed(dec, rc, dec->mid_off)) < 0)
                return rc;
        }
        *cur = (struct pkt){.k = dec->part_k, .offset = dec->part_off, .status = dec->part_status,
                            .framed = dec->part_framed};
    } else {
        dec->df.pos = start;
        next_packet(dec, cur);
    }
    while (cur->status != 0) {
        if (cur->offset > dec->part_until) {
            part_stop(dec, cur, last_offset); /* (et_dec_run_part) */
            return 0;
        }
        if (cur->status == -RVT_ERR_TRUNCATED) {
            /* The trace ends inside a packet (a RAM sink that stopped when
             * full, a cut file): reported in every mode, not a decode error. */
            rvt_flow_set_offset(dec->f, cur->offset);
            if (FL(rvt_flow_gap(dec->f, RVT_GAP_END, dec->note_text)) < 0)
                return flow_fail(dec);
            cut = true;
            break;
        }
        if (cur->status < 0) {
            if ((rc = note_error(dec, cur->offset, dec->note_text)) < 0)
                return rc;
            if (dec->p.strict)
                return rvt_fail(&dec->diag, RVT_ERR_FORMAT, "%s", dec->note_text);
            if (!cur->framed && cur->offset >= dec->df.pos)
                dec->df.pos = (size_t)cur->offset;
            resync(dec, cur->framed);
            next_packet(dec, cur);
            continue;
        }
        if (seam && cur->offset >= until) {
            /* The next segment's sync packet: its walk is this segment's
             * when the decode follows the trace there. */
            if (cur->offset > until || !dec->synced || !rvt_flow_have_pc(dec->f) || !seam_packet(&cur->k))
                break;
            next_packet(dec, nxt);
            dec->seam = true;
            rc = process(dec, &cur->k, nxt->status > 0 ? &nxt->k : NULL, cur->offset);
            dec->seam = false;
            if ((rc = packet_failed(dec, rc, cur->offset)) < 0)
                return rc;
            break;
        }
        next_packet_inline(dec, nxt);
        if (!dec->ever_synced && (rc = lead_note(dec, &cur->k, cur->offset)) < 0)
            return rc;
        rc = process_inline(dec, &cur->k, nxt->status > 0 ? &nxt->k : NULL, cur->offset);
        last_offset = cur->offset;
        if ((rc = packet_failed(dec, rc, cur->offset)) < 0)
            return rc;
        if (dec->part_mid) {
            dec->mid_k = cur->k; /* (et_dec_run_part: inside the sync packet) */
            dec->mid_off = cur->offset;
            part_stop(dec, nxt, last_offset);
            return 0;
        }
        struct pkt *t = cur;
        cur = nxt;
        nxt = t;
    }
    if (!cut && dec->open && !seam) {
        /* payload.adoc: a support packet "must be issued ... When tracing
         * ceases for any reason"; without it the last instructions are not
         * known to be the last ones executed */
        char text[200];
        snprintf(text, sizeof text,
                 "trace ends at offset 0x%zx while tracing is on (the last packet, at offset 0x%" PRIx64
                 ", is not a support packet ending tracing)",
                 len, last_offset);
        rvt_flow_set_offset(dec->f, len);
        if (FL(rvt_flow_gap(dec->f, RVT_GAP_END, text)) < 0)
            return flow_fail(dec);
    }
    if (FL(rvt_flow_finish(dec->f)) < 0)
        return flow_fail(dec);
    if (et_dside_finish(dec->ds) < 0)
        return rvt_fail(&dec->diag, RVT_ERR_LIMIT, "output consumer stopped the decode");
    return 0;
}

int et_sync_points(const struct et_params *p, const uint8_t *buf, size_t len, size_t from,
                   int (*fn)(void *ctx, const struct rvt_sync_point *sp), void *ctx, struct rvt_diag *d)
{
    (void)d;
    /* The decoder's own frame reader and packet checks (unpack_frame,
     * chain_ok) need only its parameters and deframer. */
    struct et_decoder *dec = calloc(1, sizeof *dec);
    if (!dec)
        return -RVT_ERR_NOMEM;
    dec->p = *p;
    et_deframer_init(&dec->df, &dec->p, buf, len);
    dec->df.only_src = dec->p.src_id_set;
    dec->df.pos = from;
    const size_t need = 32 + p->ts_bytes + p->src_bits / 8; /* a synchronisation sequence and its alignment */
    int rc = 0;
    for (;;) {
        struct et_frame fr;
        struct et_packet k;
        struct rvt_diag fd = {0};
        int frc = et_deframer_next(&dec->df, &fr, &fd);
        if (frc == 0 || frc == -RVT_ERR_TRUNCATED)
            break;
        if (frc < 0) {
            if (!et_deframer_resync(&dec->df))
                break;
            continue;
        }
        if (fr.is_null || fr.is_data || fr.is_other || unpack_frame(dec, &fr, &k, &fd) < 0 || !seam_packet(&k))
            continue;
        /* Where the decoder resynchronises after damage: encap, right after
         * a synchronisation sequence; raw, where a sync packet and the six
         * packets after it parse. */
        size_t o = (size_t)fr.offset;
        bool at_sync;
        if (p->framing == ET_FRAME_ENCAP) {
            at_sync = o >= need;
            for (size_t i = o - (at_sync ? need : 0); at_sync && i < o; i++)
                at_sync = (buf[i] & 0x1f) == 0;
        } else {
            at_sync = chain_ok(dec, o, 7, true);
        }
        if (!at_sync)
            continue;
        struct rvt_sync_point sp = {.offset = o,
                                    .addr = (k.address << p->iaddress_lsb_p) & (p->xlen == 32 ? 0xffffffffull : ~0ull),
                                    .has_addr = true,
                                    .unit = "te_inst format 3 start",
                                    .needs = "none"};
        if ((rc = fn(ctx, &sp)) != 0)
            break;
    }
    free(dec);
    return rc < 0 ? rc : 0;
}

/* ---- speculative decode (docs/parallel.md, src/parallel/specdecode.c) ----- */

/* Data trace decoded here (the option, or a support packet that enabled
 * it): its side stands in front of the flow's sink and holds blocks until
 * their accesses come, which a decode in pieces (it swaps the flow's sink
 * at a join) cannot carry over, so such a decode is not split. */
static bool data_side(const struct et_decoder *dec)
{
    return dec->p.d.mode != ET_DATA_OFF || et_dside_installed(dec->ds);
}

/* The decode of bytes from..., as the whole decode (et_dec_run) decodes
 * them, in parts: from `from` (0, where the previous part stopped, or a
 * format 3 start packet for a fresh decoder) up to the format 3 start
 * packet at `until` and into it: its walk, and the state it resets, but
 * not its instruction, which retires in the next part (*next = until + 1,
 * inside the packet).  If that packet is not applied as a start (damage,
 * a decoder that resynchronised elsewhere) the part stops before the
 * first packet after `until` (*next: its offset).  *next = len: the trace
 * ended (until == len: to the end, with the end-of-trace checks).  The
 * packet the loop read ahead is kept, and the next part goes on with it:
 * the parts of a trace, in order, are its whole decode.  A fresh decoder
 * with from == until decodes into the sync packet alone: its state then is
 * what a decode that starts there knows. */
int et_dec_run_part(struct et_decoder *dec, const uint8_t *buf, size_t len, size_t from, size_t until, size_t *next)
{
    dec->part_until = until < len ? until : SIZE_MAX;
    dec->part_stopped = false;
    dec->parts++;
    int rc;
    if (dec->part_have && from == dec->part_next) {
        /* A join rebased the flow's instruction count (rvt_flow_rebase):
         * the one count the decoder keeps follows it. */
        dec->upd_insns += rvt_flow_insns(dec->f) - dec->part_insns;
        dec->part_resume = true;
        rc = run_from(dec, len, from, len);
    } else if (from > 0 && !dec->packets && data_side(dec)) {
        /* (a fresh decoder: see data_side; the calling thread decodes it all) */
        rc = rvt_fail(&dec->diag, RVT_ERR_UNSUPPORTED, "a decode in pieces does not split data trace");
    } else {
        dec->part_have = false;
        dec->part_fresh = from > 0;
        rc = et_dec_run_segment(dec, buf, len, from, len);
    }
    /* A speculative decode whose data side started (a support packet
     * enabled data trace) held blocks its recording did not get: it
     * fails, and the calling thread decodes the piece. */
    if (rc >= 0 && dec->part_fresh && dec->parts <= 2 && data_side(dec))
        rc = rvt_fail(&dec->diag, RVT_ERR_UNSUPPORTED, "a decode in pieces does not split data trace");
    *next = dec->part_stopped ? (size_t)dec->part_next : len;
    dec->part_until = SIZE_MAX;
    return rc;
}

static bool bits_equal(uint64_t a, uint64_t b, unsigned n)
{
    return n >= 64 ? a == b : ((a ^ b) & ((1ull << n) - 1)) == 0;
}

/* Do a and b (same configuration) decode the same from here on?  A
 * format 3 start packet resets what the encoder's packets depend on: the
 * branch predictor ("The lookup table entries are initialized to 01 when a
 * synchronization packet is sent"), the jump target cache ("The cache
 * entries are all invalidated when a synchronization packet is sent"), the
 * implicit-return count ("reset to 0 whenever a synchronization packet is
 * sent", branchTrace.adoc), the decoder's return stack (decoder.adoc, after
 * a format 3: "irstack_depth = 0") and the differential address base (the
 * format 3 address is full: "address = (te_inst.address << iaddress_lsb)").
 * What it does not reset is compared here as what it decides: the options
 * a support packet set (implicit return, full address, branch prediction,
 * jump target cache: a fresh decoder has only the configured ones), the
 * resync period learnt from the trace (--resync-max), whether tracing is
 * open and what must come next, the pending and held outcomes, the packet
 * read ahead, and the flow engine (rvt_flow_state_equal: call stack, pc,
 * pending instruction, open block, privilege, context, time).  The parts
 * stop inside a start packet, after its walk and resets and before its
 * instruction retires: there nothing of the new segment has been decoded
 * and the flow engine's open block (a fresh decode's placeholder) is what
 * it compares.  Positions and counts that decide nothing are left out.  A
 * decoder with data trace is never equal (data_side). */
bool et_dec_state_equal(const struct et_decoder *a, const struct et_decoder *b)
{
    if (data_side(a) || data_side(b) || a->data_on != b->data_on)
        return false;
    const struct et_params *pa = &a->p, *pb = &b->p;
    if (pa->implicit_return != pb->implicit_return || pa->implicit_except != pb->implicit_except ||
        pa->full_address != pb->full_address || pa->branch_prediction != pb->branch_prediction ||
        pa->jump_target_cache != pb->jump_target_cache || a->ir_on != b->ir_on)
        return false;
    if (a->part_mid != b->part_mid || a->last_addr != b->last_addr || a->before_f3 != b->before_f3 ||
        a->priv != b->priv || a->ctx != b->ctx || a->held != b->held || a->held_jump != b->held_jump ||
        a->open != b->open || a->expect_sync != b->expect_sync || a->after_packet != b->after_packet ||
        a->counting != b->counting || a->ever_synced != b->ever_synced)
        return false;
    /* Inside a sync packet (part_mid) its instruction retires next, which
     * sets these (or fails, and the error clears them) whatever they were. */
    if (!a->part_mid) {
        if (a->synced != b->synced || a->have_single != b->have_single || a->trap_open != b->trap_open)
            return false;
        if (a->have_single && (a->single_addr != b->single_addr || a->single_cf != b->single_cf))
            return false;
        if (a->trap_open && a->trap_from_known != b->trap_from_known)
            return false;
    }
    if (a->before_f3 && (a->before_f3_via != b->before_f3_via || a->before_f3_addr != b->before_f3_addr))
        return false;
    if ((a->held && a->held_taken != b->held_taken) || (a->held_jump && a->held_target != b->held_target))
        return false;
    if (a->expect_sync && a->expect_why != b->expect_why)
        return false;
    /* (lead_note runs until the first sync packet) */
    if (!a->ever_synced && (a->lead != b->lead || (a->lead && a->lead_off != b->lead_off)))
        return false;
    /* do_sync looks at the uninferable target only while no instruction
     * has retired since (upd_insns). */
    const bool ua = a->upd_valid && a->upd_insns == rvt_flow_insns(a->f);
    const bool ub = b->upd_valid && b->upd_insns == rvt_flow_insns(b->f);
    if (ua != ub || (ua && a->upd_at != b->upd_at))
        return false;
    if (a->src_nmap != b->src_nmap || !bits_equal(a->src_map, b->src_map, a->src_nmap) ||
        a->src_npred != b->src_npred || a->src_fail != b->src_fail)
        return false; /* (src_miss is set afresh before do_branches reads it) */
    if (pa->resync_counted && (a->period != b->period || (a->counting && a->since_sync != b->since_sync)))
        return false;
    if ((a->bp.state != NULL) != (b->bp.state != NULL) || a->bp.bits != b->bp.bits ||
        (a->bp.state && memcmp(a->bp.state, b->bp.state, (size_t)1 << a->bp.bits) != 0))
        return false;
    if ((a->jtc.valid != NULL) != (b->jtc.valid != NULL) || a->jtc.bits != b->jtc.bits)
        return false;
    for (size_t i = 0; a->jtc.valid && i < ((size_t)1 << a->jtc.bits); i++)
        if (a->jtc.valid[i] != b->jtc.valid[i] || (a->jtc.valid[i] && a->jtc.entry[i] != b->jtc.entry[i]))
            return false;
    /* The packet read ahead: the same bytes read the same way (the options
     * that decide how are compared above), and its error text. */
    if (a->part_have != b->part_have)
        return false;
    if (a->part_have &&
        (a->part_next != b->part_next || a->part_status != b->part_status || a->part_last != b->part_last ||
         (a->part_status != 0 && (a->part_off != b->part_off || a->part_framed != b->part_framed)) ||
         (a->part_status < 0 && strcmp(a->note_text, b->note_text) != 0)))
        return false;
    return rvt_flow_state_equal(a->f, b->f);
}
