/* N-Trace decoder: messages -> calls on the shared flow engine.
 *
 * A message with I-CNT ends a *range*: the instructions retired since the
 * previous one.  HIST outcomes (from ResourceFull RCODE 1/2 and from the
 * message itself) are given to the flow as they arrive; the flow walks
 * through them and stops at the branch needing the next outcome, which
 * the decoder holds back — so the walk never passes the end of the range
 * however long the history is, and memory stays bounded.  The rest of
 * the range is then walked by halfword count (I-CNT, plus RCODE 0
 * amounts), and the last instruction's successor is resolved from the
 * message: U-ADDR/F-ADDR target, trap (B-TYPE 1..3), or, in BTM, the
 * taken branch.  Returns inside a range are implicit (the call stack
 * predicts them); one that ends a range was sent explicitly.
 *
 * Decoding starts at the first synchronising message; after an error the
 * decoder reports it (flow gap with the message's byte offset) and waits
 * for the next one.  Every message is checked against what N-Trace and
 * the configuration can produce before it is applied (check_msg): reserved
 * codes, fields beyond the spec's maximum sizes or the configured I-CNT
 * width, BTM and HTM messages mixed.  A trace must end with
 * ProgTraceCorrelation; one that does not is reported as cut off.
 */
#include "ntrace/ntrace.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>


struct nt_decoder {
    struct nt_cfg cfg;
    struct nt_wire wire;
    struct rvt_flow *flow;
    struct rvt_diag diag;
    uint64_t addr_mask;
    uint32_t walk_flags;
    uint64_t icnt_max;   /* largest I-CNT the configured counter holds */

    bool started;        /* a synchronising message has been applied */
    bool synced;
    bool off;            /* ProgTraceCorrelation stopped the trace: only a sync may follow */
    bool ended;          /* the last message of this source was an end of trace */
    bool htm;            /* the trace has shown HIST: every branch has an outcome */
    bool btm;            /* the trace has shown DirectBranch */
    /* Trap messages seen with B-TYPE 1 and with B-TYPE 2/3: an encoder
     * reports one way only (check_btype). */
    uint64_t traps_bt1, traps_bt23;
    /* Without --callstack: returns sent although this decoder's stack
     * predicted them (no_callstack). */
    uint64_t returns_sent_predicted;
    /* Without --sijump: sequentially inferable jumps sent (no_sijump). */
    uint64_t sijumps_sent;
    /* Since the last synchronising message, for the placement of periodic
     * syncs (--sync-period, --sync-msgs): halfwords retired, messages sent,
     * and how many of the latest are ResourceFull/RepeatBranch (which the
     * encoder may write after deciding on the message that follows). */
    uint64_t hw_since_sync, msgs_since_sync, trailing_held;
    bool want_ownership; /* --context: Ownership follows every sync */
    /* Bytes before the first synchronising message (not decodable). */
    size_t prefix_start, prefix_bytes;
    /* The buffer's first message: a sync to an address without code
     * (a wrong ELF, or a message cut at the start of the buffer). */
    bool first_nocode;
    size_t first_nocode_off;
    char first_nocode_text[sizeof(((struct rvt_diag *)0)->msg)];
    uint64_t last_addr;  /* U-ADDR reference */
    uint64_t icnt_acc;   /* RCODE 0 amounts in this range */
    uint64_t walked;     /* halfwords walked in this range while consuming HIST */
    uint64_t qbits;      /* outcomes not yet given to the flow, oldest in bit 0 */
    unsigned qn;

    /* The last branch message, for RepeatBranch. */
    bool rb_valid;
    uint8_t rb_tcode, rb_btype;
    uint64_t rb_icnt, rb_hist, rb_target;

    uint64_t time;
    uint8_t priv;
    uint64_t context;
    uint64_t offset; /* byte offset of the message being applied */
    bool last_msg;   /* only idle bytes follow the message being applied */

    /* nt_dec_run_part: stop before the first unit after this offset that
     * is not an Ownership message (SIZE_MAX: never); where it stopped. */
    size_t part_until, part_next;
    bool part_stopped;
    /* A field added above that decides what the decoder does from then on
     * must be compared in nt_dec_state_equal (the parallel decode's join
     * check, docs/parallel.md). */
};

/* A range's end: what the last retired instruction still needs. */
struct range_end {
    bool pending;   /* an instruction retired whose successor is not resolved */
    uint8_t cf;     /* its class */
    uint64_t target;/* static target (branch) */
    uint64_t last;  /* its address */
    bool at_hist_branch; /* the range ends at the branch of its last HIST outcome */
};

static int dec_fail(struct nt_decoder *x, enum rvt_err code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int dec_fail(struct nt_decoder *x, enum rvt_err code, const char *fmt, ...)
{
    char text[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return rvt_fail(&x->diag, code, "offset 0x%" PRIx64 ": %s", x->offset, text);
}

static int flow_fail(struct nt_decoder *x, int rc, const char *what)
{
    const char *fe = rvt_flow_error(x->flow);
    return rvt_fail(&x->diag, (enum rvt_err)(rc < 0 ? -rc : RVT_ERR_MISMATCH), "offset 0x%" PRIx64 ": %s: %s",
                    x->offset, what, fe && *fe ? fe : rvt_errstr(rc));
}

static void reset_range(struct nt_decoder *x)
{
    x->icnt_acc = 0;
    x->walked = 0;
    x->qbits = 0;
    x->qn = 0;
}

/* ---- history ----------------------------------------------------------- */

/* Outcomes travel through a 64-bit word into the flow's branch queue; the
 * newest one always stays in the word.  Draining gives the flow all but
 * that one, walks until the branch needing it, and resolves it. */
static int drain(struct nt_decoder *x)
{
    if (!x->qn)
        return 0;
    unsigned n = x->qn;
    bool held = (x->qbits >> (n - 1)) & 1u;
    int rc;
    if (n > 1 && (rc = rvt_flow_push_branches(x->flow, x->qbits, n - 1)) < 0)
        return flow_fail(x, rc, "queueing branch outcomes");
    x->qbits = 0;
    x->qn = 0;
    unsigned queued = rvt_flow_queued_branches(x->flow);
    /* Bounded by the configuration: the branches of these outcomes retired
     * before the I-CNT counter (icnt_max) overflowed again, so they lie
     * within the ResourceFull I-CNT amounts received so far plus one
     * counter's worth.  (A damaged trace can lead into a loop without any
     * branch.) */
    uint64_t room = x->icnt_acc + x->icnt_max > x->walked ? x->icnt_acc + x->icnt_max - x->walked : 0;
    /* (Limited in instructions, at least one halfword each, so that the
     * limit never ends inside one; the halfwords are checked after.) */
    struct rvt_walk w = {.flags = x->walk_flags | RVT_WALK_INSNS, .insns = room};
    struct rvt_stop s;
    if (!room)
        return dec_fail(x, RVT_ERR_MISMATCH, "HIST has more outcomes than the I-CNT counter (%u bits) can cover",
                        x->cfg.icnt_bits);
    if ((rc = rvt_flow_walk(x->flow, &w, &s)) < 0)
        return flow_fail(x, rc, "following HIST outcomes");
    x->walked += s.halfwords;
    if (s.reason == RVT_STOP_COUNT || s.halfwords > room)
        return dec_fail(x, RVT_ERR_MISMATCH,
                        "HIST has %u more outcome(s) but the code has no conditional branch within the %" PRIu64
                        " halfwords a %u-bit I-CNT counter allows from 0x%" PRIx64,
                        rvt_flow_queued_branches(x->flow) + 1, room, x->cfg.icnt_bits, s.last);
    if (s.reason != RVT_STOP_BRANCH)
        return dec_fail(x, RVT_ERR_MISMATCH,
                        "HIST has %u more outcome(s) (of %u) but the code reached %s at 0x%" PRIx64
                        " (an uninferable instruction) before the next conditional branch",
                        rvt_flow_queued_branches(x->flow) + 1, queued + 1, rvt_cf_name(s.cf), s.last);
    if ((rc = rvt_flow_branch(x->flow, held)) < 0)
        return flow_fail(x, rc, "resolving a branch from HIST");
    return 0;
}

/* Flow branch queue capacity we rely on (it holds 4096). */
#define NT_FLOW_QUEUE 4000u

/* Append outcomes, oldest first in bit 0 of `bits`. */
static int queue_bits(struct nt_decoder *x, uint64_t bits, unsigned n)
{
    if (n < 64 - x->qn) { /* the usual case: they fit without filling the word */
        x->qbits |= (bits & ((1ull << n) - 1)) << x->qn;
        x->qn += n;
        return 0;
    }
    while (n) {
        unsigned take = 64 - x->qn;
        if (take > n)
            take = n;
        uint64_t chunk = take >= 64 ? bits : bits & ((1ull << take) - 1);
        x->qbits |= chunk << x->qn;
        x->qn += take;
        bits = take >= 64 ? 0 : bits >> take;
        n -= take;
        if (x->qn == 64) {
            int rc;
            if (rvt_flow_queued_branches(x->flow) + 63 > NT_FLOW_QUEUE) {
                if ((rc = drain(x)) < 0)
                    return rc;
            } else {
                /* Hand over 63, keep the newest. */
                if ((rc = rvt_flow_push_branches(x->flow, x->qbits, 63)) < 0)
                    return flow_fail(x, rc, "queueing branch outcomes");
                x->qbits >>= 63;
                x->qn = 1;
            }
        }
    }
    return 0;
}

/* A HIST value (stop bit, then outcomes with the oldest most significant),
 * `repeat` times. */
static int add_hist(struct nt_decoder *x, uint64_t hist, uint64_t repeat)
{
    if (hist == 0)
        return dec_fail(x, RVT_ERR_FORMAT, "HIST value 0 has no stop bit");
    unsigned n = 63u - (unsigned)__builtin_clzll(hist);
    if (n == 0)
        return 0;
    /* Oldest outcome in bit 0: the n outcome bits reversed (all 64 bits
     * reversed by swapping halves, then the top n kept; n < 64). */
    uint64_t rev = hist;
    rev = (rev >> 1 & 0x5555555555555555ull) | (rev & 0x5555555555555555ull) << 1;
    rev = (rev >> 2 & 0x3333333333333333ull) | (rev & 0x3333333333333333ull) << 2;
    rev = (rev >> 4 & 0x0F0F0F0F0F0F0F0Full) | (rev & 0x0F0F0F0F0F0F0F0Full) << 4;
    rev = __builtin_bswap64(rev) >> (64 - n);
    for (uint64_t r = 0; r < repeat; r++) {
        int rc = queue_bits(x, rev, n);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* ---- ranges and resolutions ---------------------------------------------- */

static int end_range(struct nt_decoder *x, uint64_t icnt, struct range_end *re)
{
    int rc = drain(x);
    if (rc < 0)
        return rc;
    memset(re, 0, sizeof *re);
    uint64_t total = x->icnt_acc + icnt;
    if (x->walked > total)
        return dec_fail(x, RVT_ERR_MISMATCH,
                        "I-CNT %" PRIu64 " is less than the %" PRIu64 " halfwords the HIST outcomes already cover",
                        total, x->walked);
    uint64_t rem = total - x->walked;
    re->at_hist_branch = total && !rem;
    x->hw_since_sync += total;
    x->icnt_acc = 0;
    x->walked = 0;
    if (!rem)
        return 0;
    /* BTM (or not known yet): a branch I-CNT passes was not taken.  HTM:
     * every branch had its outcome in HIST, so one here is an error —
     * which also stops a damaged, huge I-CNT early. */
    struct rvt_walk w = {.flags = x->walk_flags | (x->htm ? 0 : RVT_WALK_NT_DEFAULT) | RVT_WALK_HALFWORDS,
                         .halfwords = rem};
    struct rvt_stop s;
    if ((rc = rvt_flow_walk(x->flow, &w, &s)) < 0)
        return flow_fail(x, rc, "walking I-CNT");
    if (s.halfwords != rem) {
        if (s.reason == RVT_STOP_BRANCH)
            return dec_fail(x, RVT_ERR_MISMATCH,
                            "conditional branch at 0x%" PRIx64 " has no HIST outcome (%" PRIu64 " of %" PRIu64
                            " halfwords of I-CNT walked)",
                            s.last, s.halfwords, rem);
        if (s.reason == RVT_STOP_TRAPINSN)
            return dec_fail(x, RVT_ERR_MISMATCH,
                            "ecall/ebreak at 0x%" PRIx64 " traps but I-CNT has %" PRIu64 " more halfwords", s.pc,
                            rem - s.halfwords);
        return dec_fail(x, RVT_ERR_MISMATCH,
                        "%s at 0x%" PRIx64 " needs a message but I-CNT goes on for %" PRIu64 " more halfwords",
                        rvt_cf_name(s.cf), s.last, rem - s.halfwords);
    }
    re->pending = true;
    re->cf = s.cf;
    re->target = s.target;
    re->last = s.last;
    return 0;
}

/* Did the encoder have no implicit-return stack?  Told (--callstack 0),
 * or learnt: without --callstack the decoder predicts with the deepest
 * stack; an encoder with a stack sends a return only when its own stack is
 * empty or predicts wrongly, and it predicts returns (implicitly) before
 * its stack can run out of the entries this one holds.  So a trace that
 * sent a return this decoder's stack predicted, and never left one
 * implicit, comes from an encoder without a stack. */
static bool no_callstack(struct nt_decoder *x)
{
    if (x->cfg.given & NT_GIVEN_CALLSTACK)
        return x->cfg.callstack == 0;
    return x->returns_sent_predicted && !rvt_flow_implicit_returns(x->flow);
}

/* Did the encoder send sequentially inferable jumps?  Told (--sijump), or
 * learnt in the same way: without --sijump the decoder infers every one;
 * an encoder with the option sends none (but the first instruction after
 * a sync, which the decoder does not infer either), so a trace that sent
 * one and never left one out comes from an encoder without it. */
static bool no_sijump(struct nt_decoder *x)
{
    if (x->cfg.given & NT_GIVEN_SIJUMP)
        return !x->cfg.sijump;
    return x->sijumps_sent && !rvt_flow_sijumps(x->flow);
}

/* Classes whose successor a message gives as an address.  An ecall ending
 * a range with an address was traced as an uninferable call (the flow
 * pushes its return address if its ecall mode says so, as the encoder's
 * ingress did with itype 8). */
static bool cf_needs_address(unsigned cf)
{
    return rvt_cf_uninferable(cf) || cf == RVT_CF_ECALL || cf == RVT_CF_EBREAK;
}

/* Continue at `target` after the range: through the pending instruction
 * (B-TYPE 0), or by a trap. */
static int resolve(struct nt_decoder *x, const struct range_end *re, unsigned btype, uint64_t target)
{
    int rc;
    target &= x->addr_mask;
    if (btype != NT_BTYPE_INDIRECT) {
        /* The last instruction completed before the trap: an inferable
         * call pushed its return address, an implicit return popped one
         * (the encoder did the same); its target is where the trap hit.
         * An uninferable one cannot be the last of a trap's range: "each
         * program counter discontinuity results in one trace message"
         * (Trace Control Interface, Branch Trace Messaging), so its target
         * went in a message of its own before the trap's (seed 003's
         * corner case "Exception/Interrupt immediately following trap
         * return" shows it for MRET/SRET).  A flipped B-TYPE 0 -> 1/2/3
         * turns that message into a trap. */
        if (re->pending && ((re->cf == RVT_CF_RETURN && no_callstack(x)) ||
                            (rvt_flow_pending_sijump(x->flow) && no_sijump(x)) || rvt_flow_continue(x->flow) < 0))
            return dec_fail(x, RVT_ERR_MISMATCH,
                            "B-TYPE=%u (%s) after %s at 0x%" PRIx64
                            ", whose target the trace has not given: an encoder sends that target before the trap",
                            btype, nt_btype_name(btype), rvt_cf_name(re->cf), re->last);
        if ((rc = rvt_flow_trap(x->flow, btype == NT_BTYPE_INTERRUPT, 0, 0, true, target)) < 0)
            return flow_fail(x, rc, "applying a trap");
        return 0;
    }
    if (re->pending) {
        if (cf_needs_address(re->cf))
            rc = rvt_flow_jump(x->flow, target);
        else if (re->cf == RVT_CF_BRANCH)
            rc = rvt_flow_branch(x->flow, target == re->target);
        else
            rc = rvt_flow_continue(x->flow);
        if (rc < 0)
            return flow_fail(x, rc, "resolving the last instruction");
    }
    if (!rvt_flow_have_pc(x->flow) || rvt_flow_pc(x->flow) != target)
        return dec_fail(x, RVT_ERR_MISMATCH,
                        "message goes to 0x%" PRIx64 " but %s at 0x%" PRIx64 " continues at 0x%" PRIx64, target,
                        re->pending ? rvt_cf_name(re->cf) : "the code", re->pending ? re->last : target,
                        rvt_flow_have_pc(x->flow) ? rvt_flow_pc(x->flow) : 0);
    return 0;
}

/* ---- messages -------------------------------------------------------------- */

static void apply_time(struct nt_decoder *x, const struct nt_msg *m)
{
    if (!nt_has(m, NT_F_TSTAMP))
        return;
    if (nt_tcode_is_sync(m->tcode))
        x->time = m->v[NT_F_TSTAMP];
    else
        x->time += m->v[NT_F_TSTAMP];
    rvt_flow_set_time(x->flow, x->time);
}

/* Periodic synchronisation replaces the message due at the first record
 * boundary after the period (trTeInstSyncMode/trTeInstSyncMax): a branch
 * message sent when a sync was due cannot come from an encoder with the
 * --sync-period/--sync-msgs the decoder was given. */
static int check_not_due(struct nt_decoder *x, unsigned tcode)
{
    if (x->cfg.sync_period && x->hw_since_sync >= x->cfg.sync_period)
        return dec_fail(x, RVT_ERR_FORMAT,
                        "%s after %" PRIu64 " halfwords since the last sync: with --sync-period %" PRIu64
                        " a synchronising message is due",
                        nt_tcode_name(tcode), x->hw_since_sync, x->cfg.sync_period);
    if (x->cfg.sync_msgs && x->msgs_since_sync - x->trailing_held >= x->cfg.sync_msgs)
        return dec_fail(x, RVT_ERR_FORMAT,
                        "%s after %" PRIu64 " messages since the last sync: with --sync-msgs %" PRIu64
                        " a synchronising message is due",
                        nt_tcode_name(tcode), x->msgs_since_sync - x->trailing_held, x->cfg.sync_msgs);
    return 0;
}

/* A SYNC=2 (periodic) message before its period. */
static int check_periodic(struct nt_decoder *x, const struct nt_msg *m)
{
    if (m->v[NT_F_SYNC] != NT_SYNC_PERIODIC || (!x->cfg.sync_period && !x->cfg.sync_msgs))
        return 0;
    if ((x->cfg.sync_period && x->hw_since_sync >= x->cfg.sync_period) ||
        (x->cfg.sync_msgs && x->msgs_since_sync >= x->cfg.sync_msgs))
        return 0;
    return dec_fail(x, RVT_ERR_FORMAT,
                    "%s SYNC=2 (periodic) after only %" PRIu64 " halfwords and %" PRIu64
                    " messages since the last sync (--sync-period %" PRIu64 ", --sync-msgs %" PRIu64 ")",
                    nt_tcode_name(m->tcode), x->hw_since_sync, x->msgs_since_sync, x->cfg.sync_period,
                    x->cfg.sync_msgs);
}

/* DirectBranch / IndirectBranch / IndirectBranchHist, also when repeated. */
static int branch_msg(struct nt_decoder *x, unsigned tcode, unsigned btype, uint64_t icnt, uint64_t hist,
                      uint64_t target)
{
    int rc;
    struct range_end re;
    if (tcode == NT_TC_INDIRECT_BRANCH_HIST && (rc = add_hist(x, hist, 1)) < 0)
        return rc;
    if ((rc = end_range(x, icnt, &re)) < 0)
        return rc;
    if ((rc = check_not_due(x, tcode)) < 0)
        return rc;
    if (tcode == NT_TC_DIRECT_BRANCH) {
        if (!re.pending || re.cf != RVT_CF_BRANCH)
            return dec_fail(x, RVT_ERR_MISMATCH, "DirectBranch: the instruction I-CNT ends at (%s at 0x%" PRIx64
                                                 ") is not a conditional branch",
                            re.pending ? rvt_cf_name(re.cf) : "none", re.last);
        if ((rc = rvt_flow_branch(x->flow, true)) < 0)
            return flow_fail(x, rc, "taking the branch");
        return 0;
    }
    if (btype == NT_BTYPE_INDIRECT && (!re.pending || !cf_needs_address(re.cf)))
        return dec_fail(x, RVT_ERR_MISMATCH,
                        "%s to 0x%" PRIx64 ": the instruction I-CNT ends at (%s at 0x%" PRIx64
                        ") has no uninferable target",
                        nt_tcode_name(tcode), target, re.pending ? rvt_cf_name(re.cf) : "none", re.last);
    if (btype == NT_BTYPE_INDIRECT && re.pending && rvt_flow_pending_sijump(x->flow))
        x->sijumps_sent++;
    if (btype == NT_BTYPE_INDIRECT && re.pending && re.cf == RVT_CF_RETURN && !(x->cfg.given & NT_GIVEN_CALLSTACK)) {
        uint64_t top;
        if (rvt_cs_peek(rvt_flow_callstack(x->flow), &top) && (top & x->addr_mask) == target)
            x->returns_sent_predicted++;
    }
    /* (A sync after an implicit return on linear code also ends a range
     * at it: only branch messages are checked.) */
    if (btype == NT_BTYPE_INDIRECT && re.pending && re.cf == RVT_CF_RETURN && (x->cfg.given & NT_GIVEN_CALLSTACK) && x->cfg.callstack) {
        /* The encoder sends a return only when its stack (the flow's, of
         * the same depth) is empty or predicts another address; with the
         * counter, only when the count is 0. */
        uint64_t top;
        if (rvt_cs_peek(rvt_flow_callstack(x->flow), &top) && (x->cfg.cs_mode == NT_CS_COUNT || (top & x->addr_mask) == target))
            return dec_fail(x, RVT_ERR_FORMAT,
                            "return at 0x%" PRIx64 " to 0x%" PRIx64 " sent explicitly, but --callstack %u%s predicts it",
                            re.last, target, x->cfg.callstack, x->cfg.cs_mode == NT_CS_COUNT ? " (counter)" : "");
    }
    /* The N-Trace reference tool ends a trace whose last instruction is
     * uninferable by sending that message "to" the instruction's own
     * address, without ProgTraceCorrelation: as the last message it marks
     * the end of the trace. */
    if (x->last_msg && btype == NT_BTYPE_INDIRECT && re.pending && (target & x->addr_mask) == re.last)
        x->ended = true;
    return resolve(x, &re, btype, target);
}

/* Is the code image holding an instruction at addr? */
static bool has_code(struct nt_decoder *x, uint64_t addr)
{
    const struct rvt_block_info *bi = rvt_bcache_get(rvt_flow_bcache(x->flow), addr);
    return bi && !(bi->flags & RVT_BI_EMPTY);
}

static int sync_msg(struct nt_decoder *x, const struct nt_msg *m)
{
    uint64_t target = (m->v[NT_F_FADDR] << 1) & x->addr_mask;
    unsigned btype = nt_has(m, NT_F_BTYPE) ? (unsigned)m->v[NT_F_BTYPE] : NT_BTYPE_INDIRECT;
    int rc;
    if (x->synced) {
        /* Finish the range like the plain message would, then check that
         * the code arrives where the sync says. */
        struct range_end re;
        if (nt_has(m, NT_F_HIST) && (rc = add_hist(x, m->v[NT_F_HIST], 1)) < 0)
            return rc;
        if ((rc = end_range(x, m->v[NT_F_ICNT], &re)) < 0)
            return rc;
        if (m->tcode == NT_TC_DIRECT_BRANCH_SYNC) {
            if (!re.pending || re.cf != RVT_CF_BRANCH)
                return dec_fail(x, RVT_ERR_MISMATCH, "DirectBranchSync: I-CNT does not end at a branch");
            if ((rc = rvt_flow_branch(x->flow, true)) < 0)
                return flow_fail(x, rc, "taking the branch");
            if (rvt_flow_pc(x->flow) != target)
                return dec_fail(x, RVT_ERR_MISMATCH, "DirectBranchSync F-ADDR 0x%" PRIx64 " is not the branch target 0x%" PRIx64,
                                target, rvt_flow_pc(x->flow));
        } else if (btype != NT_BTYPE_INDIRECT && re.at_hist_branch && m->v[NT_F_SYNC] == NT_SYNC_PERIODIC &&
                   (x->cfg.sync_period || x->cfg.sync_msgs)) {
            /* A periodic sync replaces the message due at a record
             * boundary.  A trap after a branch is reported in a record of
             * its own (the branch's outcome is the other record's), and the
             * boundary before that record already had the sync due:
             * neither halfwords nor messages grow across it. */
            return dec_fail(x, RVT_ERR_FORMAT,
                            "%s SYNC=2 (periodic) with B-TYPE=%u after a conditional branch: the sync was due before "
                            "the trap, at the branch",
                            nt_tcode_name(m->tcode), btype);
        } else if ((rc = resolve(x, &re, btype, target)) < 0) {
            return rc;
        }
        if ((rc = check_periodic(x, m)) < 0)
            return rc;
        /* Every sync resets the encoder's state, call stack included. */
        rvt_cs_clear(rvt_flow_callstack(x->flow));
    } else {
        if (!has_code(x, target))
            return dec_fail(x, RVT_ERR_NOCODE,
                            "%s SYNC=%u goes to 0x%" PRIx64 ", where the program has no code (wrong ELF, or "
                            "--src-bits/--addr-ext other than the encoder's?)",
                            nt_tcode_name(m->tcode), (unsigned)m->v[NT_F_SYNC], target);
        reset_range(x);
        rvt_flow_clear_branches(x->flow);
        if ((rc = rvt_flow_sync(x->flow, target, x->priv, x->context, true)) < 0)
            return flow_fail(x, rc, "synchronising");
        x->synced = true;
        x->started = true;
        x->off = false;
    }
    x->last_addr = target;
    x->rb_valid = false;
    x->hw_since_sync = 0;
    x->msgs_since_sync = 0;
    x->trailing_held = 0;
    x->want_ownership = x->cfg.context;
    return 0;
}

/* Messages only HTM sends. */
static bool is_htm_msg(const struct nt_msg *m)
{
    return nt_has(m, NT_F_HIST) ||
           (m->tcode == NT_TC_RESOURCE_FULL && (m->v[NT_F_RCODE] == NT_RCODE_HIST || m->v[NT_F_RCODE] == NT_RCODE_HIST_REPEAT));
}

/* BTM and HTM are not mixed within a trace: DirectBranch is BTM only, HIST
 * fields are HTM only. */
static int check_mode(struct nt_decoder *x, const struct nt_msg *m)
{
    bool direct = m->tcode == NT_TC_DIRECT_BRANCH || m->tcode == NT_TC_DIRECT_BRANCH_SYNC;
    if (direct && x->htm)
        return dec_fail(x, RVT_ERR_FORMAT, "%s in a trace that sent HIST before: BTM messages cannot follow HTM ones",
                        nt_tcode_name(m->tcode));
    if (is_htm_msg(m) && x->btm)
        return dec_fail(x, RVT_ERR_FORMAT, "%s with HIST in a trace that sent DirectBranch before: HTM messages cannot "
                                           "follow BTM ones",
                        nt_tcode_name(m->tcode));
    if (direct)
        x->btm = true;
    if (is_htm_msg(m))
        x->htm = true;
    return 0;
}

/* "Either 1-only or both 2 and 3 should be implemented and consistently
 * reported" (B-TYPE field): a trap message of the other kind than the
 * trace's earlier ones is damage (a flipped bit turns 3 into 1).  Unless
 * --btype-compat says which kind (nt_msg_check), the kind seen more often
 * so far is the trace's, the newer one on a tie: a damaged first trap
 * then costs one error at the next one, not one at every later trap. */
static int check_btype(struct nt_decoder *x, const struct nt_msg *m)
{
    if (!nt_has(m, NT_F_BTYPE) || m->v[NT_F_BTYPE] == NT_BTYPE_INDIRECT || (x->cfg.given & NT_GIVEN_BTYPE_COMPAT))
        return 0;
    bool one = m->v[NT_F_BTYPE] == NT_BTYPE_TRAP;
    uint64_t same = one ? x->traps_bt1 : x->traps_bt23, other = one ? x->traps_bt23 : x->traps_bt1;
    if (one)
        x->traps_bt1++;
    else
        x->traps_bt23++;
    /* (The text names the difference, not the counts: the difference is
     * what decides, and what a decode in pieces compares at its joins.) */
    if (other > same)
        return dec_fail(x, RVT_ERR_FORMAT,
                        "%s B-TYPE=%u after %" PRIu64 " more trap message(s) with B-TYPE %s than with B-TYPE %s: "
                        "an encoder reports traps either as 1 only or as 2 and 3",
                        nt_tcode_name(m->tcode), (unsigned)m->v[NT_F_BTYPE], other - same, one ? "2/3" : "1",
                        one ? "1" : "2/3");
    return 0;
}

/* A ProgTraceCorrelation that covers no instruction. */
static bool ptc_empty(const struct nt_msg *m)
{
    return m->v[NT_F_ICNT] == 0 && (!nt_has(m, NT_F_HIST) || m->v[NT_F_HIST] == 1);
}

/* ProgTraceCorrelation: the trace stops here; I-CNT and HIST say where. */
static int correlation_msg(struct nt_decoder *x, const struct nt_msg *m)
{
    int rc;
    unsigned ev = (unsigned)m->v[NT_F_EVCODE];
    bool empty = ptc_empty(m);
    x->ended = true;
    x->rb_valid = false;
    if (!x->synced) {
        /* Seed 003, "Corner Cases and Sequences": a trace that starts
         * disabled begins with EVCODE=4, and a hart halted while trace is
         * disabled ends with EVCODE=0 and I-CNT=0: nothing was retired. */
        if (x->off && !empty)
            return dec_fail(x, RVT_ERR_FORMAT,
                            "ProgTraceCorrelation with I-CNT %" PRIu64 " while trace is stopped (nothing is traced "
                            "until a synchronising message)",
                            m->v[NT_F_ICNT]);
        if (!x->started && empty)
            x->off = true; /* (nothing traced yet: no gap to report) */
        return 0;
    }
    struct range_end re;
    if (nt_has(m, NT_F_HIST) && (rc = add_hist(x, m->v[NT_F_HIST], 1)) < 0)
        return rc;
    if ((rc = end_range(x, m->v[NT_F_ICNT], &re)) < 0)
        return rc;
    char text[96];
    snprintf(text, sizeof text, "trace stopped (ProgTraceCorrelation EVCODE=%u: %s)", ev, nt_evcode_name(ev));
    /* At the end of the buffer this is simply how the trace ends;
     * before more messages, or when tracing was disabled (EVCODE 4,
     * e.g. by a filter), it is a gap until the next sync. */
    if (x->last_msg && ev != 4)
        rc = rvt_flow_finish(x->flow);
    else
        rc = rvt_flow_gap(x->flow, RVT_GAP_TRACE_OFF, text);
    if (rc < 0)
        return flow_fail(x, rc, "ending the trace");
    x->synced = false;
    x->off = true;
    return 0;
}

static int apply_msg(struct nt_decoder *x, const struct nt_msg *m)
{
    int rc;
    if (!nt_tcode_known(m->tcode))
        return 0; /* a vendor message the user asked to ignore */
    if ((rc = check_mode(x, m)) < 0 || (rc = check_btype(x, m)) < 0)
        return rc;
    /* "An Ownership message (if enabled) must be emitted immediately after
     * all synchronizing messages." */
    if (x->want_ownership && x->synced) {
        x->want_ownership = false;
        if (m->tcode != NT_TC_OWNERSHIP)
            return dec_fail(x, RVT_ERR_FORMAT, "%s right after a synchronising message: with --context (trTeContext) "
                                               "Ownership comes first",
                            nt_tcode_name(m->tcode));
    }

    if (m->tcode != NT_TC_OWNERSHIP && m->tcode != NT_TC_PROG_TRACE_CORRELATION)
        x->ended = false;
    if (m->tcode == NT_TC_OWNERSHIP) {
        uint8_t priv;
        uint64_t ctx;
        bool has_ctx;
        nt_process_decode(m->v[NT_F_PROCESS], &priv, &ctx, &has_ctx); /* FORMAT checked */
        x->priv = priv;
        if (has_ctx)
            x->context = ctx;
        if (x->synced && (rc = rvt_flow_set_context(x->flow, x->priv, x->context)) < 0)
            return flow_fail(x, rc, "changing context");
        return 0;
    }
    if (nt_tcode_is_sync(m->tcode)) {
        apply_time(x, m);
        return sync_msg(x, m);
    }
    if (m->tcode == NT_TC_PROG_TRACE_CORRELATION) {
        if (x->synced)
            apply_time(x, m);
        return correlation_msg(x, m);
    }
    if (m->tcode == NT_TC_ERROR) {
        char text[128];
        snprintf(text, sizeof text, "trace lost (Error message ETYPE=%u ECODE=0x%" PRIx64 ")",
                 (unsigned)m->v[NT_F_ETYPE], m->v[NT_F_ECODE]);
        if ((rc = rvt_flow_gap(x->flow, RVT_GAP_LOST, text)) < 0)
            return flow_fail(x, rc, "reporting loss");
        x->synced = false;
        x->off = false;
        x->rb_valid = false;
        reset_range(x);
        rvt_flow_clear_branches(x->flow);
        return 0;
    }
    if (x->off)
        return dec_fail(x, RVT_ERR_FORMAT,
                        "%s after ProgTraceCorrelation: a stopped trace restarts with a synchronising message",
                        nt_tcode_name(m->tcode));
    if (!x->synced)
        return 0; /* after an error: waiting for a sync (the error said so) */
    apply_time(x, m);
    switch (m->tcode) {
    case NT_TC_DIRECT_BRANCH:
    case NT_TC_INDIRECT_BRANCH:
    case NT_TC_INDIRECT_BRANCH_HIST: {
        unsigned btype = nt_has(m, NT_F_BTYPE) ? (unsigned)m->v[NT_F_BTYPE] : 0;
        uint64_t hist = nt_has(m, NT_F_HIST) ? m->v[NT_F_HIST] : 1;
        uint64_t target = x->last_addr;
        if (nt_has(m, NT_F_UADDR))
            target = (x->last_addr ^ (m->v[NT_F_UADDR] << 1)) & x->addr_mask;
        if ((rc = branch_msg(x, m->tcode, btype, m->v[NT_F_ICNT], hist, target)) < 0)
            return rc;
        x->last_addr = target;
        x->rb_valid = true;
        x->rb_tcode = m->tcode;
        x->rb_btype = (uint8_t)btype;
        x->rb_icnt = m->v[NT_F_ICNT];
        x->rb_hist = hist;
        x->rb_target = target;
        return 0;
    }
    case NT_TC_REPEAT_BRANCH:
        if (!x->rb_valid)
            return dec_fail(x, RVT_ERR_FORMAT, "RepeatBranch without a preceding branch message to repeat");
        for (uint64_t i = 0; i < m->v[NT_F_BCNT]; i++)
            if ((rc = branch_msg(x, x->rb_tcode, x->rb_btype, x->rb_icnt, x->rb_hist, x->rb_target)) < 0)
                return rc;
        return 0;
    case NT_TC_RESOURCE_FULL:
        x->rb_valid = false;
        switch (m->v[NT_F_RCODE]) {
        case NT_RCODE_ICNT:
            if (x->icnt_acc > UINT64_MAX - m->v[NT_F_RDATA])
                return dec_fail(x, RVT_ERR_FORMAT, "ResourceFull I-CNT amounts of one range overflow 64 bits");
            x->icnt_acc += m->v[NT_F_RDATA];
            return 0;
        case NT_RCODE_HIST: return add_hist(x, m->v[NT_F_RDATA], 1);
        default: return add_hist(x, m->v[NT_F_RDATA], m->v[NT_F_HREPEAT]);
        }
    default: return 0;
    }
}

static int apply(struct nt_decoder *x, const struct nt_msg *m)
{
    int rc = apply_msg(x, m);
    if (rc < 0 || nt_tcode_is_sync(m->tcode))
        return rc;
    /* Count what the encoder had written when it decided on the next
     * message (check_not_due). */
    x->msgs_since_sync++;
    if (m->tcode == NT_TC_RESOURCE_FULL || m->tcode == NT_TC_REPEAT_BRANCH)
        x->trailing_held++;
    else
        x->trailing_held = 0;
    return 0;
}

/* After an error: report it, drop the flow's position and wait for a sync. */
static int report_error(struct nt_decoder *x, int rc, enum rvt_gap_reason reason)
{
    x->synced = false;
    x->off = false;
    x->rb_valid = false;
    reset_range(x);
    rvt_flow_clear_branches(x->flow);
    rvt_flow_set_offset(x->flow, x->offset);
    int grc = rvt_flow_gap(x->flow, reason, x->diag.msg);
    if (grc < 0 && grc != rc)
        return grc;
    return x->cfg.strict ? rc : 0;
}

/* Before the first sync point: bytes that cannot be decoded.  The buffer's
 * first message may be the tail of one cut off (a wrapped buffer), and the
 * messages up to the next sync describe trace whose start is missing. */
static void skip_prefix(struct nt_decoder *x, size_t start, size_t end)
{
    if (!x->prefix_bytes)
        x->prefix_start = start;
    x->prefix_bytes = end - x->prefix_start;
}

/* The first sync point is reached: say what was skipped before it. */
static int report_prefix(struct nt_decoder *x, size_t sync_off)
{
    if (!x->prefix_bytes)
        return 0;
    char text[300];
    /* (Whether that is damage only the caller knows: the flow engine's
     * starts_at_trace_start.) */
    snprintf(text, sizeof text, "%zu bytes before the first synchronising message (offset 0x%zx) cannot be decoded%s",
             x->prefix_bytes, sync_off, x->first_nocode ? " (the first message is a sync to an address without code)" : "");
    rvt_flow_set_offset(x->flow, x->prefix_start);
    int rc = rvt_flow_gap(x->flow, RVT_GAP_WRAP, text);
    x->prefix_bytes = 0;
    return rc;
}

static bool fatal(int rc)
{
    return rc == -RVT_ERR_NOMEM || rc == -RVT_ERR_LIMIT; /* out of memory, or the consumer stopped us */
}

/* The trace is cut off inside a range: the branches whose outcomes arrived
 * did retire, so the code up to the last of them is still decoded. */
static int drain_at_end(struct nt_decoder *x)
{
    if (!x->synced || !x->qn)
        return 0;
    int rc = drain(x);
    if (rc < 0) {
        if (fatal(rc))
            return rc;
        return report_error(x, rc, RVT_GAP_ERROR);
    }
    return 0;
}

int nt_dec_run(struct nt_decoder *x, const uint8_t *buf, size_t len)
{
    return nt_dec_run_segment(x, buf, len, 0, len);
}

/* A segment (docs/parallel.md) starts at a sync point, where a decode
 * starts afresh: "All synchronizing messages MUST fully reset the encoder
 * state, so decoding can be started from any of synchronizing messages"
 * (N-Trace, Synchronizing Messages).  It ends with the next segment's sync
 * message, whose I-CNT/HIST still belong to it: "Before resetting the
 * encoder state, the trace up to the current location must be emitted".
 * That message is applied as the whole decode applies it (when synced)
 * and the decode stops there, without the end-of-trace checks. */
int nt_dec_run_segment(struct nt_decoder *x, const uint8_t *buf, size_t len, size_t from, size_t until)
{
    size_t pos = from, units = 0, end_off = from;
    bool truncated = false, seam = until < len;
    struct rvt_diag fd;
    for (;;) {
        size_t start = pos, n = 0;
        rvt_diag_clear(&fd);
        int rc = nt_frame_next(buf, len, &pos, &start, &n, &fd);
        if (rc == 0)
            break;
        if (seam && start > until)
            break;
        bool seam_msg = seam && start == until;
        if (seam_msg && !x->synced)
            break; /* the next segment's sync starts afresh there */
        if (start > x->part_until && rc < 0) {
            x->part_stopped = true; /* (nt_dec_run_part) */
            x->part_next = start;
            break;
        }
        bool first = units++ == 0 && from == 0;
        x->offset = start;
        end_off = pos;
        if (rc == -RVT_ERR_TRUNCATED) {
            /* Reported in every mode, also before the first sync.  The
             * outcomes received in the cut range are decoded first. */
            truncated = true;
            int drc = drain_at_end(x);
            if (drc < 0)
                return drc;
            x->diag = fd;
            if ((rc = report_error(x, rc, RVT_GAP_END)) < 0)
                return rc;
            break;
        }
        struct nt_msg m;
        if (rc > 0) {
            rc = nt_msg_decode(&x->wire, buf + start, n, start, &m, &x->diag);
            if (rc == 0 && x->cfg.src_bits && m.v[NT_F_SRC] != x->cfg.src_id)
                continue; /* another source's message */
            if (rc == 0)
                rc = nt_msg_check(&x->cfg, &m, start, &x->diag);
        } else {
            x->diag = fd;
        }
        if (start > x->part_until && (rc < 0 || m.tcode != NT_TC_OWNERSHIP)) {
            x->part_stopped = true; /* (nt_dec_run_part) */
            x->part_next = start;
            break;
        }
        if (rc < 0) {
            if (!x->started) {
                skip_prefix(x, start, pos);
                continue;
            }
            if ((rc = report_error(x, rc, RVT_GAP_ERROR)) < 0)
                return rc;
            x->ended = false;
            continue;
        }
        bool sync = nt_tcode_is_sync(m.tcode);
        if (!x->started && !sync && m.tcode != NT_TC_ERROR && m.tcode != NT_TC_OWNERSHIP &&
            !(m.tcode == NT_TC_PROG_TRACE_CORRELATION && ptc_empty(&m))) {
            skip_prefix(x, start, pos);
            continue;
        }
        rvt_flow_set_offset(x->flow, start);
        size_t rest = pos;
        while (rest < len && buf[rest] == 0xFF)
            rest++;
        x->last_msg = rest >= len;
        if (!x->started && sync) {
            /* A sync to an address without code as the buffer's first
             * message may be a cut-off message: decided at the end. */
            if (first && !has_code(x, (m.v[NT_F_FADDR] << 1) & x->addr_mask)) {
                x->first_nocode = true;
                x->first_nocode_off = start;
                (void)sync_msg(x, &m);
                snprintf(x->first_nocode_text, sizeof x->first_nocode_text, "%s", x->diag.msg);
                skip_prefix(x, start, pos);
                continue;
            }
            if ((rc = report_prefix(x, start)) < 0)
                return rc;
            rvt_flow_set_offset(x->flow, start);
        }
        rc = apply(x, &m);
        if (seam_msg) {
            /* Its range is this segment's; the fresh start is the next's. */
            if (rc < 0 && (fatal(rc) || (rc = report_error(x, rc, RVT_GAP_ERROR)) < 0))
                return rc;
            break;
        }
        if (rc < 0) {
            if (fatal(rc))
                return rc;
            if ((rc = report_error(x, rc, RVT_GAP_ERROR)) < 0)
                return rc;
            x->ended = false;
            /* A sync message that did not fit the trace before it still
             * gives a fresh start. */
            if (sync && (rc = apply(x, &m)) < 0) {
                if (fatal(rc))
                    return rc;
                if ((rc = report_error(x, rc, RVT_GAP_ERROR)) < 0)
                    return rc;
            }
        }
    }
    if (x->part_stopped)
        return 0; /* (nt_dec_run_part: the next part goes on from here) */
    if (!units)
        return 0; /* empty, or only idle bytes */
    if (seam) {
        /* The trace goes on in the next segment: no end-of-trace checks. */
        if (x->synced) {
            int rc = rvt_flow_finish(x->flow);
            if (rc < 0)
                return flow_fail(x, rc, "finishing the segment");
        }
        return 0;
    }
    if (!x->started && x->first_nocode) {
        /* No later sync point: the first message was a sync after all, and
         * the program given is not the traced one. */
        x->offset = x->first_nocode_off;
        rvt_diag_clear(&x->diag);
        rvt_fail(&x->diag, RVT_ERR_NOCODE, "%s", x->first_nocode_text);
        int rc = report_error(x, -RVT_ERR_NOCODE, RVT_GAP_ERROR);
        if (rc < 0)
            return rc;
    }
    if (!truncated && !x->ended) {
        int rc = drain_at_end(x);
        if (rc < 0)
            return rc;
        /* N-Trace ends a trace with ProgTraceCorrelation ("When tracing is
         * stopped or disabled, a ProgTraceCorrelation message is
         * generated"): without it the rest of the trace is missing. */
        x->offset = end_off;
        rvt_diag_clear(&x->diag);
        rvt_fail(&x->diag, RVT_ERR_TRUNCATED,
                 "offset 0x%zx: trace ends without ProgTraceCorrelation: what ran after the last message is not in "
                 "the trace (cut off, or read while tracing)",
                 end_off);
        rc = report_error(x, -RVT_ERR_TRUNCATED, RVT_GAP_END);
        if (rc < 0)
            return rc;
        return 0;
    }
    if (x->synced) {
        int rc = rvt_flow_finish(x->flow);
        if (rc < 0)
            return flow_fail(x, rc, "finishing");
    }
    return 0;
}

int nt_dec_new(struct nt_decoder **out, const struct nt_cfg *cfg, struct rvt_flow *flow, struct rvt_diag *d)
{
    *out = NULL;
    if (!flow)
        return rvt_fail(d, RVT_ERR_INVAL, "ntrace decoder: no flow engine");
    struct nt_decoder *x = calloc(1, sizeof *x);
    if (!x)
        return rvt_fail(d, RVT_ERR_NOMEM, "ntrace decoder: out of memory");
    x->cfg = *cfg;
    if (!x->cfg.xlen)
        x->cfg.xlen = rvt_flow_xlen(flow) ? rvt_flow_xlen(flow) : 64;
    nt_cfg_wire(&x->cfg, &x->wire);
    x->flow = flow;
    x->addr_mask = nt_addr_mask(x->cfg.xlen);
    x->icnt_max = x->cfg.icnt_bits >= 64 ? UINT64_MAX : (1ull << x->cfg.icnt_bits) - 1;
    /* Mode-agnostic: HIST outcomes are consumed by walks that stop at the
     * branch needing the next one; the I-CNT walk after them treats any
     * branch as not taken (BTM's rule, and the spec's decoding algorithm
     * for the part of a range after the last HIST outcome). */
    x->walk_flags = RVT_WALK_IMPLICIT_RET;
    x->priv = cfg->priv;
    x->part_until = SIZE_MAX;
    if (cfg->given & NT_GIVEN_MODE) {
        x->htm = cfg->mode == NT_MODE_HTM;
        x->btm = !x->htm;
    }
    *out = x;
    return 0;
}

const char *nt_dec_error(const struct nt_decoder *x)
{
    return x->diag.msg;
}

void nt_dec_free(struct nt_decoder *x)
{
    free(x);
}

int nt_sync_points(const struct nt_cfg *cfg, const uint8_t *buf, size_t len, size_t from,
                   int (*fn)(void *ctx, const struct rvt_sync_point *sp), void *ctx, struct rvt_diag *d)
{
    (void)d;
    struct nt_wire wire;
    nt_cfg_wire(cfg, &wire);
    const uint64_t mask = nt_addr_mask(cfg->xlen ? cfg->xlen : 64);
    size_t pos = from;
    struct rvt_diag fd;
    for (;;) {
        size_t start = pos, n = 0;
        rvt_diag_clear(&fd);
        int rc = nt_frame_next(buf, len, &pos, &start, &n, &fd);
        if (rc == 0 || rc == -RVT_ERR_TRUNCATED)
            return 0;
        if (rc < 0)
            continue;
        /* The TCODE is the first 6 bits of the message's first byte (MDO
         * above MSEO): any other message is passed over without decoding
         * its fields, which is most of the scan's work. */
        if (n == 0 || !nt_tcode_is_sync(buf[start] >> 2))
            continue;
        /* The decoder's own acceptance of a message (nt_dec_run). */
        struct nt_msg m;
        if (nt_msg_decode(&wire, buf + start, n, start, &m, &fd) < 0 || nt_msg_check(cfg, &m, start, &fd) < 0)
            continue;
        if ((cfg->src_bits && m.v[NT_F_SRC] != cfg->src_id) || !nt_tcode_is_sync(m.tcode))
            continue;
        struct rvt_sync_point sp = {.offset = start,
                                    .addr = (m.v[NT_F_FADDR] << 1) & mask,
                                    .has_addr = true,
                                    .unit = nt_tcode_name(m.tcode),
                                    .needs = "none"};
        if ((rc = fn(ctx, &sp)) != 0)
            return rc < 0 ? rc : 0;
    }
}

/* ---- speculative decode (docs/parallel.md, src/parallel/specdecode.c) ----- */

/* The decode of bytes from..., as the whole decode (nt_dec_run) decodes
 * them, in parts: from `from` (0, or where the previous part stopped) on,
 * through the synchronising message at `until` and the Ownership messages
 * right after it ("An Ownership message (if enabled) must be emitted
 * immediately after all synchronizing messages"), stopping before the next
 * unit: *next is its offset, or len when the trace ended (until == len: to
 * the end, with the end-of-trace checks).  The state is kept between parts:
 * the parts of a trace, in order, are its whole decode.  A fresh decoder
 * with from == until decodes the sync point alone: its state then is what
 * a decode that starts there knows. */
int nt_dec_run_part(struct nt_decoder *x, const uint8_t *buf, size_t len, size_t from, size_t until, size_t *next)
{
    x->part_until = until < len ? until : SIZE_MAX;
    x->part_stopped = false;
    x->part_next = len;
    int rc = nt_dec_run_segment(x, buf, len, from, len);
    *next = x->part_stopped ? x->part_next : len;
    x->part_until = SIZE_MAX;
    return rc;
}

/* Do a and b (same configuration) decode the same from here on?  "All
 * synchronizing messages MUST fully reset the encoder state, so decoding
 * can be started from any of synchronizing messages" (N-Trace,
 * Synchronizing Messages), but a decoder also keeps what it learnt from
 * the trace before: each such field is compared as what it decides (the
 * B-TYPE balance, whether a learnt setting has been decided), so a
 * decode that started at the sync point is taken only where it cannot
 * differ from the whole decode. */
bool nt_dec_state_equal(const struct nt_decoder *a, const struct nt_decoder *b)
{
    if (a->started != b->started || a->synced != b->synced || a->off != b->off || a->ended != b->ended ||
        a->htm != b->htm || a->btm != b->btm || a->want_ownership != b->want_ownership)
        return false;
    /* check_btype decides by the difference of the two counts. */
    if (!(a->cfg.given & NT_GIVEN_BTYPE_COMPAT) &&
        (int64_t)(a->traps_bt1 - a->traps_bt23) != (int64_t)(b->traps_bt1 - b->traps_bt23))
        return false;
    /* no_callstack / no_sijump: counters that only matter as zero or not. */
    if (!(a->cfg.given & NT_GIVEN_CALLSTACK) &&
        ((a->returns_sent_predicted != 0) != (b->returns_sent_predicted != 0) ||
         (rvt_flow_implicit_returns(a->flow) != 0) != (rvt_flow_implicit_returns(b->flow) != 0)))
        return false;
    if (!(a->cfg.given & NT_GIVEN_SIJUMP) && ((a->sijumps_sent != 0) != (b->sijumps_sent != 0) ||
                                              (rvt_flow_sijumps(a->flow) != 0) != (rvt_flow_sijumps(b->flow) != 0)))
        return false;
    if (a->hw_since_sync != b->hw_since_sync || a->msgs_since_sync != b->msgs_since_sync ||
        a->trailing_held != b->trailing_held)
        return false;
    /* Before the first sync point: what was skipped, and the first message's
     * deferred verdict. */
    if (!a->started && (a->prefix_bytes != b->prefix_bytes || (a->prefix_bytes && a->prefix_start != b->prefix_start) ||
                        a->first_nocode != b->first_nocode))
        return false;
    if (a->last_addr != b->last_addr || a->icnt_acc != b->icnt_acc || a->walked != b->walked ||
        a->qbits != b->qbits || a->qn != b->qn || a->rb_valid != b->rb_valid)
        return false;
    if (a->rb_valid && (a->rb_tcode != b->rb_tcode || a->rb_btype != b->rb_btype || a->rb_icnt != b->rb_icnt ||
                        a->rb_hist != b->rb_hist || a->rb_target != b->rb_target))
        return false;
    return a->time == b->time && a->priv == b->priv && a->context == b->context &&
           rvt_flow_state_equal(a->flow, b->flow);
}
