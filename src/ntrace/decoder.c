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
 * for the next one.
 */
#include "ntrace/ntrace.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Longest walk between two branches of one range, in halfwords. */
#define NT_DRAIN_LIMIT (1u << 24)
/* Largest count field accepted: far beyond any encoder's counter (the
 * spec's maximum I-CNT is 22 bits; some tools never check theirs). */
#define NT_COUNT_LIMIT 0xFFFFFFFFull

struct nt_decoder {
    struct nt_cfg cfg;
    struct nt_wire wire;
    struct rvt_flow *flow;
    struct rvt_diag diag;
    uint64_t addr_mask;
    uint32_t walk_flags;

    bool synced;
    bool htm;            /* the trace has shown HIST: every branch has an outcome */
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
};

/* A range's end: what the last retired instruction still needs. */
struct range_end {
    bool pending;   /* an instruction retired whose successor is not resolved */
    uint8_t cf;     /* its class */
    uint64_t target;/* static target (branch) */
    uint64_t last;  /* its address */
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
    /* Bounded: no code goes this far between two branches of one range
     * (a damaged trace can lead into a loop without any). */
    struct rvt_walk w = {.flags = x->walk_flags | RVT_WALK_HALFWORDS, .halfwords = NT_DRAIN_LIMIT};
    struct rvt_stop s;
    if ((rc = rvt_flow_walk(x->flow, &w, &s)) < 0)
        return flow_fail(x, rc, "following HIST outcomes");
    x->walked += s.halfwords;
    if (s.reason == RVT_STOP_COUNT)
        return dec_fail(x, RVT_ERR_MISMATCH,
                        "HIST has %u more outcome(s) but the code has no conditional branch within %u halfwords of "
                        "0x%" PRIx64,
                        rvt_flow_queued_branches(x->flow) + 1, NT_DRAIN_LIMIT, s.last);
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
    uint64_t rev = 0; /* oldest outcome in bit 0 */
    for (unsigned i = 0; i < n; i++)
        rev |= ((hist >> (n - 1 - i)) & 1u) << i;
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
         * (An uninferable one was sent by a message of its own.) */
        if (re->pending)
            (void)rvt_flow_continue(x->flow);
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
    return resolve(x, &re, btype, target);
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
        } else if ((rc = resolve(x, &re, btype, target)) < 0) {
            return rc;
        }
        /* Every sync resets the encoder's state, call stack included. */
        rvt_cs_clear(rvt_flow_callstack(x->flow));
    } else {
        reset_range(x);
        rvt_flow_clear_branches(x->flow);
        if ((rc = rvt_flow_sync(x->flow, target, x->priv, x->context, true)) < 0)
            return flow_fail(x, rc, "synchronising");
        x->synced = true;
    }
    x->last_addr = target;
    x->rb_valid = false;
    return 0;
}

/* Messages only HTM sends. */
static bool is_htm_msg(const struct nt_msg *m)
{
    return nt_has(m, NT_F_HIST) ||
           (m->tcode == NT_TC_RESOURCE_FULL && (m->v[NT_F_RCODE] == NT_RCODE_HIST || m->v[NT_F_RCODE] == NT_RCODE_HIST_REPEAT));
}

static int apply(struct nt_decoder *x, const struct nt_msg *m)
{
    int rc;
    static const enum nt_field counts[] = {NT_F_ICNT, NT_F_HREPEAT, NT_F_BCNT};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        if (nt_has(m, counts[i]) && m->v[counts[i]] > NT_COUNT_LIMIT)
            return dec_fail(x, RVT_ERR_FORMAT, "%s %s %" PRIu64 " is beyond any encoder's counter (damaged message?)",
                            nt_tcode_name(m->tcode), nt_field_name(counts[i]), m->v[counts[i]]);
    if (m->tcode == NT_TC_RESOURCE_FULL && m->v[NT_F_RCODE] == NT_RCODE_ICNT && m->v[NT_F_RDATA] > NT_COUNT_LIMIT)
        return dec_fail(x, RVT_ERR_FORMAT, "ResourceFull I-CNT %" PRIu64 " is beyond any encoder's counter (damaged message?)",
                        m->v[NT_F_RDATA]);
    if (is_htm_msg(m))
        x->htm = true;
    if (!nt_tcode_known(m->tcode)) {
        return 0; /* vendor/reserved: not program flow */
    }
    if (m->tcode == NT_TC_OWNERSHIP) {
        uint8_t priv;
        uint64_t ctx;
        bool has_ctx;
        if (!nt_process_decode(m->v[NT_F_PROCESS], &priv, &ctx, &has_ctx))
            return dec_fail(x, RVT_ERR_FORMAT, "Ownership PROCESS 0x%" PRIx64 " has the reserved FORMAT 1",
                            m->v[NT_F_PROCESS]);
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
    if (!x->synced)
        return 0;
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
        case NT_RCODE_ICNT: x->icnt_acc += m->v[NT_F_RDATA]; return 0;
        case NT_RCODE_HIST: return add_hist(x, m->v[NT_F_RDATA], 1);
        case NT_RCODE_HIST_REPEAT: return add_hist(x, m->v[NT_F_RDATA], m->v[NT_F_HREPEAT]);
        default:
            return dec_fail(x, RVT_ERR_UNSUPPORTED, "ResourceFull RCODE %" PRIu64 " (%s) is not understood",
                            m->v[NT_F_RCODE], nt_rcode_name((unsigned)m->v[NT_F_RCODE]));
        }
    case NT_TC_PROG_TRACE_CORRELATION: {
        struct range_end re;
        if (nt_has(m, NT_F_HIST) && (rc = add_hist(x, m->v[NT_F_HIST], 1)) < 0)
            return rc;
        if ((rc = end_range(x, m->v[NT_F_ICNT], &re)) < 0)
            return rc;
        char text[96];
        snprintf(text, sizeof text, "trace stopped (ProgTraceCorrelation EVCODE=%u: %s)",
                 (unsigned)m->v[NT_F_EVCODE], nt_evcode_name((unsigned)m->v[NT_F_EVCODE]));
        /* At the end of the buffer this is simply how the trace ends;
         * before more messages, or when tracing was disabled (EVCODE 4,
         * e.g. by a filter), it is a gap until the next sync. */
        if (x->last_msg && m->v[NT_F_EVCODE] != 4)
            rc = rvt_flow_finish(x->flow);
        else
            rc = rvt_flow_gap(x->flow, RVT_GAP_TRACE_OFF, text);
        if (rc < 0)
            return flow_fail(x, rc, "ending the trace");
        x->synced = false;
        x->rb_valid = false;
        return 0;
    }
    case NT_TC_ERROR: {
        char text[128];
        snprintf(text, sizeof text, "trace lost (Error message ETYPE=%u ECODE=0x%" PRIx64 ")",
                 (unsigned)m->v[NT_F_ETYPE], m->v[NT_F_ECODE]);
        if ((rc = rvt_flow_gap(x->flow, RVT_GAP_LOST, text)) < 0)
            return flow_fail(x, rc, "reporting loss");
        x->synced = false;
        x->rb_valid = false;
        reset_range(x);
        rvt_flow_clear_branches(x->flow);
        return 0;
    }
    default: return 0;
    }
}

/* After an error: report it, drop the flow's position and wait for a sync. */
static int report_error(struct nt_decoder *x, int rc, enum rvt_gap_reason reason)
{
    x->synced = false;
    x->rb_valid = false;
    reset_range(x);
    rvt_flow_clear_branches(x->flow);
    rvt_flow_set_offset(x->flow, x->offset);
    int grc = rvt_flow_gap(x->flow, reason, x->diag.msg);
    if (grc < 0 && grc != rc)
        return grc;
    return x->cfg.strict ? rc : 0;
}

/* The first message of a buffer may be the tail of one cut off: take it
 * only if it is a well-formed sync message whose address has code. */
static bool plausible_first(struct nt_decoder *x, const struct nt_msg *m)
{
    if (!nt_tcode_is_sync(m->tcode))
        return false;
    if (x->cfg.src_bits && m->v[NT_F_SRC] != x->cfg.src_id)
        return false;
    uint64_t a = (m->v[NT_F_FADDR] << 1) & x->addr_mask;
    const struct rvt_block_info *bi = rvt_bcache_get(rvt_flow_bcache(x->flow), a);
    return bi && !(bi->flags & RVT_BI_EMPTY);
}

int nt_dec_run(struct nt_decoder *x, const uint8_t *buf, size_t len)
{
    size_t pos = 0;
    bool first = true;
    struct rvt_diag fd;
    for (;;) {
        size_t start = pos, n = 0;
        rvt_diag_clear(&fd);
        int rc = nt_frame_next(buf, len, &pos, &start, &n, &fd);
        if (rc == 0)
            break;
        x->offset = start;
        if (rc < 0) {
            bool was_first = first;
            first = false;
            if (was_first)
                continue; /* a cut-off first message */
            x->diag = fd;
            rc = report_error(x, rc, rc == -RVT_ERR_TRUNCATED ? RVT_GAP_END : RVT_GAP_ERROR);
            if (rc < 0)
                return rc;
            continue;
        }
        struct nt_msg m;
        rc = nt_msg_decode(&x->wire, buf + start, n, start, &m, &x->diag);
        bool was_first = first;
        first = false;
        if (rc < 0) {
            if (was_first)
                continue;
            if ((rc = report_error(x, rc, RVT_GAP_ERROR)) < 0)
                return rc;
            continue;
        }
        if (was_first && !plausible_first(x, &m))
            continue; /* (a real sync to an address without code shows up at the next one) */
        if (x->cfg.src_bits && m.v[NT_F_SRC] != x->cfg.src_id)
            continue; /* another source's message */
        rvt_flow_set_offset(x->flow, start);
        size_t rest = pos;
        while (rest < len && buf[rest] == 0xFF)
            rest++;
        x->last_msg = rest >= len;
        rc = apply(x, &m);
        if (rc < 0) {
            if (rc == -RVT_ERR_NOMEM || rc == -RVT_ERR_LIMIT) /* out of memory, or the consumer stopped us */
                return rc;
            if ((rc = report_error(x, rc, RVT_GAP_ERROR)) < 0)
                return rc;
            /* A sync message that did not fit the trace before it still
             * gives a fresh start. */
            if (nt_tcode_is_sync(m.tcode) && (rc = apply(x, &m)) < 0) {
                if (rc == -RVT_ERR_NOMEM || rc == -RVT_ERR_LIMIT) /* out of memory, or the consumer stopped us */
                    return rc;
                if ((rc = report_error(x, rc, RVT_GAP_ERROR)) < 0)
                    return rc;
            }
        }
    }
    if (x->synced) {
        /* The trace ends without ProgTraceCorrelation: what follows the last
         * message is unknown. */
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
    /* Mode-agnostic: HIST outcomes are consumed by walks that stop at the
     * branch needing the next one; the I-CNT walk after them treats any
     * branch as not taken (BTM's rule, and the spec's decoding algorithm
     * for the part of a range after the last HIST outcome). */
    x->walk_flags = RVT_WALK_IMPLICIT_RET;
    x->priv = cfg->priv;
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
