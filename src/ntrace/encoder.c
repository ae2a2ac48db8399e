/* N-Trace encoder: ingress records -> messages.
 *
 * Each ingress record is a run of retired instructions whose last one has
 * the record's itype.  The encoder keeps the spec's counters — I-CNT
 * (halfwords since the last message with I-CNT), HIST (branch outcomes
 * behind a stop bit), the U-ADDR reference — and decides per record:
 *
 *   - a message the previous record's last instruction needs (uninferable
 *     jump, trap, trap return, mispredicted return, BTM taken branch) is
 *     sent when this record's first address — the target — is known;
 *   - periodic or forced synchronisation replaces that message by its
 *     ...Sync counterpart (or ProgTraceSync on linear code) with F-ADDR;
 *   - I-CNT and HIST overflow send ResourceFull (RCODE 0, 1, or 2 with
 *     HREPEAT when the repeated-history option finds repeats);
 *   - identical branch messages collapse into RepeatBranch (option).
 *
 * Message choices follow the N-Trace reference encoder where the spec
 * leaves a choice (ProgTraceSync SYNC=1 first, IndirectBranch instead of
 * IndirectBranchHist when HIST is empty, 31-outcome HIST, the 31/30/28-bit
 * repeated-history detection), so that its golden vector is reproduced
 * byte for byte; docs/ntrace.md lists every choice.
 */
#include "ntrace/ntrace.h"

#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#define NT_NOINLINE __attribute__((noinline))
#else
#define NT_NOINLINE
#endif

/* What the last instruction of the previous record still needs. */
enum ev_kind {
    EV_NONE = 0,
    EV_JUMP,     /* uninferable jump / trap return: IndirectBranch(Hist) to the next address */
    EV_TRAP,     /* exception or interrupt: the same with B-TYPE 1/2/3 */
    EV_RETCHECK, /* return (or swap) with a predicted address: a message only if it differs */
    EV_COUNTRET, /* return implicit by the counter alone: no message; checked only to warn (misled) */
    EV_DBRANCH   /* BTM taken branch: DirectBranch */
};

/* How write_msg treats a message. */
enum {
    W_NORMAL = 0,
    W_HR_FLUSH = 1u << 0, /* the repeated-history ResourceFull itself (do not flush it again) */
    W_RESYNC = 1u << 1    /* the sync that ends a loss (allowed while need_resync) */
};

struct nt_encoder {
    struct nt_cfg cfg;
    struct nt_wire wire;
    struct rvt_byte_sink sink;
    struct rvt_diag diag;
    struct rvt_codec_stats st;
    struct rvt_bcache *bc; /* instruction counts for the stats (needs an image) */
    bool seen_time;        /* a record had a time (--timestamps has something to send) */

    bool started, finished;

    uint8_t ev;
    uint8_t ev_btype;
    uint64_t ev_pred;
    uint64_t ev_at, ev_insns; /* EV_COUNTRET: the return's address, and the instructions up to it */

    uint64_t icnt;      /* halfwords since the last message carrying I-CNT */
    uint64_t icnt_full; /* the counter's overflow bit */
    uint64_t icnt_max;  /* the largest value the counter holds */
    bool icnt_sync_due; /* --icnt-sync: send SYNC=4 at the next address */
    bool fresh;         /* nothing retired since the last sync point */
    bool notify_due;    /* a trigger asked for the last instruction's address */
    bool off;           /* tracing is off (filtered out) since a ProgTraceCorrelation */
    bool seen_off;      /* an unqualified record came before the first traced one */
    uint64_t hist;      /* outcomes below a stop bit; 1 = empty */
    uint64_t last_addr; /* U-ADDR reference: the last address sent */
    uint64_t addr_mask;
    struct rvt_callstack cs;

    /* Repeated history (RCODE 2): a full HIST pattern and how often it
     * occurred, not yet sent. */
    bool hr_active;
    unsigned hr_shift; /* 0, or the bits the pattern is shorter than a full HIST */
    uint64_t hr_prev;  /* pattern with its stop bit */
    uint64_t hr_count;

    /* RepeatBranch: the last branch message and the repeats not yet sent. */
    bool rb_valid;
    uint8_t rb_tcode, rb_btype;
    uint64_t rb_icnt, rb_hist;
    uint64_t bcnt;

    uint64_t since_sync_hw, since_sync_msgs;

    uint8_t priv;
    uint64_t context;

    uint64_t now;      /* time of the event being reported */
    uint64_t ev_time;  /* time of the previous record */
    uint64_t time_ref; /* time the decoder has reconstructed */

    bool lost;          /* the sink refused bytes; report with Error */
    unsigned lost_mask; /* ECODE bits */
    bool need_resync;   /* Error sent: drop messages until the SYNC=7 message */
    bool quiet;         /* a plain record only counts (update_quiet) */
    bool general_only;  /* nt_enc_general_only: never quiet */
};

/* ---- writing ------------------------------------------------------------ */

static bool is_sync_tcode(unsigned tcode)
{
    return nt_tcode_is_sync(tcode);
}

static int sink_write(struct nt_encoder *e, const uint8_t *p, size_t n, size_t *accepted)
{
    long w = e->sink.write(e->sink.ctx, p, n);
    if (w < 0)
        return rvt_fail(&e->diag, (enum rvt_err)(-w < RVT_ERR__COUNT ? -w : RVT_ERR_IO),
                        "ntrace encoder: output error after %llu bytes: %s", (unsigned long long)e->st.bytes,
                        rvt_errstr((int)w));
    *accepted = (size_t)w > n ? n : (size_t)w;
    return 0;
}

/* Encode and write one message, handling SRC, TSTAMP and output loss: once
 * the sink refuses bytes, messages are dropped until an Error message gets
 * through; then everything but the resynchronising message is dropped. */
static int write_raw(struct nt_encoder *e, struct nt_msg *m, unsigned flags)
{
    e->rb_valid = false; /* a RepeatBranch run needs adjacent identical messages */
    if (e->cfg.src_bits)
        nt_set(m, NT_F_SRC, e->cfg.src_id);
    bool sync = is_sync_tcode(m->tcode);
    if (e->cfg.timestamps)
        nt_set(m, NT_F_TSTAMP, sync ? e->now : e->now - e->time_ref);
    uint8_t buf[NT_MSG_MAX];
    int n = nt_msg_encode(&e->wire, m, buf, &e->diag);
    if (n < 0)
        return n;
    e->st.bytes += (uint64_t)n;
    unsigned lost_bit = m->tcode == NT_TC_OWNERSHIP ? NT_ECODE_OWNERSHIP_LOST : NT_ECODE_PROGRAM_LOST;
    size_t acc = 0;
    int rc;
    if (e->lost) {
        struct nt_msg err;
        nt_msg_init(&err, NT_TC_ERROR);
        nt_set(&err, NT_F_ETYPE, NT_ETYPE_OVERRUN);
        nt_set(&err, NT_F_ECODE, e->lost_mask);
        if (e->cfg.src_bits)
            nt_set(&err, NT_F_SRC, e->cfg.src_id);
        if (e->cfg.timestamps)
            nt_set(&err, NT_F_TSTAMP, e->now - e->time_ref);
        uint8_t ebuf[NT_MSG_MAX];
        int en = nt_msg_encode(&e->wire, &err, ebuf, &e->diag);
        if (en < 0)
            return en;
        e->st.bytes += (uint64_t)en;
        if ((rc = sink_write(e, ebuf, (size_t)en, &acc)) < 0)
            return rc;
        e->st.lost += (uint64_t)en - acc;
        if (acc == (size_t)en) {
            e->st.packets++;
            e->lost = false;
            e->lost_mask = 0;
            e->need_resync = true;
            if (e->cfg.timestamps)
                e->time_ref = e->now;
        }
        e->st.lost += (uint64_t)n; /* this message is dropped either way */
        if (e->lost)
            e->lost_mask |= lost_bit;
        return 0;
    }
    if (e->need_resync && !(flags & W_RESYNC)) {
        e->st.lost += (uint64_t)n;
        return 0;
    }
    if ((rc = sink_write(e, buf, (size_t)n, &acc)) < 0)
        return rc;
    if (acc < (size_t)n) {
        e->st.lost += (uint64_t)n - acc;
        e->lost = true;
        e->lost_mask |= lost_bit;
        return 0;
    }
    e->st.packets++;
    e->since_sync_msgs++;
    if (e->cfg.timestamps)
        e->time_ref = e->now;
    return 0;
}

/* Send the RepeatBranch count that is still held back. */
static int flush_bcnt(struct nt_encoder *e, unsigned flags)
{
    if (!e->bcnt)
        return 0;
    struct nt_msg rb;
    nt_msg_init(&rb, NT_TC_REPEAT_BRANCH);
    nt_set(&rb, NT_F_BCNT, e->bcnt);
    e->bcnt = 0;
    return write_raw(e, &rb, flags & W_RESYNC);
}

/* Send the repeated-history ResourceFull that is still held back (after
 * the RepeatBranch count, which describes earlier trace). */
static int flush_hr(struct nt_encoder *e)
{
    if (!e->hr_active)
        return 0;
    int rc = flush_bcnt(e, W_NORMAL);
    if (rc < 0)
        return rc;
    struct nt_msg m;
    nt_msg_init(&m, NT_TC_RESOURCE_FULL);
    nt_set(&m, NT_F_RDATA, e->hr_prev);
    if (e->hr_count > 1) {
        nt_set(&m, NT_F_RCODE, NT_RCODE_HIST_REPEAT);
        nt_set(&m, NT_F_HREPEAT, e->hr_count);
    } else {
        nt_set(&m, NT_F_RCODE, NT_RCODE_HIST);
    }
    e->hr_active = false;
    e->hr_count = 0;
    return write_raw(e, &m, W_HR_FLUSH);
}

/* Every message goes through here: what is held back (RepeatBranch count,
 * repeated HIST) describes trace before it, so it is sent first. */
static int write_msg(struct nt_encoder *e, struct nt_msg *m, unsigned flags)
{
    int rc = flush_bcnt(e, flags);
    if (rc < 0)
        return rc;
    if (!(flags & W_HR_FLUSH) && (rc = flush_hr(e)) < 0)
        return rc;
    return write_raw(e, m, flags);
}

/* ---- state resets ----------------------------------------------------------- */

static void reset_after_sync(struct nt_encoder *e, uint64_t addr)
{
    e->icnt = 0;
    e->hist = 1;
    e->last_addr = addr;
    rvt_cs_clear(&e->cs);
    e->rb_valid = false;
    e->bcnt = 0;
    e->hr_active = false;
    e->hr_count = 0;
    e->since_sync_hw = 0;
    e->since_sync_msgs = 0;
    e->icnt_sync_due = false;
    e->fresh = true;
    e->notify_due = false;
}

static int write_ownership(struct nt_encoder *e, bool with_context, uint8_t priv, uint64_t context)
{
    struct nt_msg m;
    nt_msg_init(&m, NT_TC_OWNERSHIP);
    nt_set(&m, NT_F_PROCESS, nt_process_encode(with_context ? 2u : 0u, priv, context));
    return write_msg(e, &m, W_NORMAL);
}

/* A synchronising message at the point before the instruction at `addr`,
 * carrying what the previous instruction needs (ev). */
static int write_sync(struct nt_encoder *e, unsigned ev, unsigned btype, unsigned reason, uint64_t addr)
{
    struct nt_msg m;
    bool hist = e->cfg.mode == NT_MODE_HTM && e->hist > 1;
    unsigned tcode;
    if (ev == EV_DBRANCH)
        tcode = NT_TC_DIRECT_BRANCH_SYNC;
    else if (hist)
        tcode = NT_TC_INDIRECT_BRANCH_HIST_SYNC;
    else if (ev == EV_JUMP || ev == EV_TRAP)
        tcode = NT_TC_INDIRECT_BRANCH_SYNC;
    else
        tcode = NT_TC_PROG_TRACE_SYNC;
    nt_msg_init(&m, tcode);
    nt_set(&m, NT_F_SYNC, reason);
    if (tcode == NT_TC_INDIRECT_BRANCH_SYNC || tcode == NT_TC_INDIRECT_BRANCH_HIST_SYNC)
        nt_set(&m, NT_F_BTYPE, ev == EV_TRAP ? btype : NT_BTYPE_INDIRECT);
    nt_set(&m, NT_F_ICNT, e->icnt);
    nt_set(&m, NT_F_FADDR, (addr & e->addr_mask) >> 1);
    if (tcode == NT_TC_INDIRECT_BRANCH_HIST_SYNC)
        nt_set(&m, NT_F_HIST, e->hist);
    int rc = write_msg(e, &m, reason == NT_SYNC_OVERRUN ? W_RESYNC : W_NORMAL);
    if (rc < 0)
        return rc;
    if (reason == NT_SYNC_OVERRUN && !e->lost)
        e->need_resync = false;
    reset_after_sync(e, addr);
    return 0;
}

/* ---- branch messages and RepeatBranch ------------------------------------- */

static int write_branch(struct nt_encoder *e, unsigned ev, unsigned btype, uint64_t target)
{
    struct nt_msg m;
    unsigned tcode;
    if (ev == EV_DBRANCH)
        tcode = NT_TC_DIRECT_BRANCH;
    else if (e->cfg.mode == NT_MODE_HTM && e->hist > 1)
        tcode = NT_TC_INDIRECT_BRANCH_HIST;
    else
        tcode = NT_TC_INDIRECT_BRANCH; /* BTM, or HTM with an empty HIST (spec allows; saves a byte) */
    unsigned bt = ev == EV_TRAP ? btype : NT_BTYPE_INDIRECT;
    target &= e->addr_mask;
    bool same_target = tcode == NT_TC_DIRECT_BRANCH || target == e->last_addr;

    /* An identical branch message right after the previous one: count it.
     * Repeated HIST held back belongs to this range, so it breaks the run. */
    if ((e->cfg.repeat & 1) && e->rb_valid && !e->hr_active && same_target && e->rb_tcode == tcode &&
        e->rb_btype == bt && e->rb_icnt == e->icnt && e->rb_hist == e->hist && e->bcnt < NT_MAX_BCNT) {
        e->bcnt++;
    } else {
        nt_msg_init(&m, tcode);
        if (tcode != NT_TC_DIRECT_BRANCH)
            nt_set(&m, NT_F_BTYPE, bt);
        nt_set(&m, NT_F_ICNT, e->icnt);
        if (tcode != NT_TC_DIRECT_BRANCH)
            nt_set(&m, NT_F_UADDR, ((e->last_addr ^ target) & e->addr_mask) >> 1);
        if (tcode == NT_TC_INDIRECT_BRANCH_HIST)
            nt_set(&m, NT_F_HIST, e->hist);
        int rc = write_msg(e, &m, W_NORMAL);
        if (rc < 0)
            return rc;
        e->rb_valid = true;
        e->rb_tcode = (uint8_t)tcode;
        e->rb_btype = (uint8_t)bt;
        e->rb_icnt = e->icnt;
        e->rb_hist = e->hist;
    }
    if (tcode != NT_TC_DIRECT_BRANCH)
        e->last_addr = target;
    e->icnt = 0;
    e->hist = 1;
    return 0;
}

/* ---- HIST full and repeated history ---------------------------------------- */

/* Does the stream prev-outcomes, hist-outcomes (H each, oldest first)
 * start with a pattern of H-s outcomes repeated twice?  Then the
 * pattern is prev's first H-s outcomes and hist keeps 2s left over. */
static bool repeats_shorter(uint64_t prev, uint64_t hist, unsigned H, unsigned s)
{
    if (H <= 2 * s)
        return false;
    uint64_t ms = (1ull << s) - 1, mid = (1ull << (H - 2 * s)) - 1;
    return (prev & ms) == ((prev >> (H - s)) & ms) && ((prev >> s) & mid) == ((hist >> (2 * s)) & mid);
}

static int hist_full(struct nt_encoder *e)
{
    struct nt_msg m;
    const unsigned H = e->cfg.hist_bits;
    if (!(e->cfg.repeat & 2)) {
        nt_msg_init(&m, NT_TC_RESOURCE_FULL);
        nt_set(&m, NT_F_RCODE, NT_RCODE_HIST);
        nt_set(&m, NT_F_RDATA, e->hist);
        e->hist = 1;
        return write_msg(e, &m, W_NORMAL);
    }
    e->rb_valid = false; /* hidden history breaks a RepeatBranch run */
    if (e->hr_active && (e->hist >> e->hr_shift) == e->hr_prev) {
        uint64_t keep = e->hist & ((1ull << e->hr_shift) - 1);
        e->hist = (1ull << e->hr_shift) | keep;
        if (++e->hr_count >= NT_MAX_HREPEAT)
            return flush_hr(e);
        return 0;
    }
    if (e->hr_active && e->hr_count == 1) {
        /* Second full HIST: a shorter pattern may repeat across both (the
         * reference tool tries 28 then 30 outcomes for 31-outcome HIST). */
        static const unsigned shifts[] = {3, 1};
        for (unsigned i = 0; i < 2; i++) {
            unsigned s = shifts[i];
            if (!repeats_shorter(e->hr_prev, e->hist, H, s))
                continue;
            e->hr_shift = s;
            e->hr_prev >>= s;
            e->hist = (1ull << (2 * s)) | (e->hist & ((1ull << (2 * s)) - 1));
            e->hr_count = 2;
            return 0;
        }
    }
    int rc = flush_hr(e);
    if (rc < 0)
        return rc;
    e->hr_active = true;
    e->hr_shift = 0;
    e->hr_prev = e->hist;
    e->hr_count = 1;
    e->hist = 1;
    return 0;
}

/* ---- records ---------------------------------------------------------------- */

static int write_end(struct nt_encoder *e, unsigned evcode);
static int put_record(struct nt_encoder *e, const struct rvt_ing_rec *r);
static int put_general(struct nt_encoder *e, const struct rvt_ing_rec *r);

static uint64_t count_insns(struct nt_encoder *e, const struct rvt_ing_rec *r)
{
    uint32_t last = 1u << r->ilastsize;
    if (r->iretire <= last)
        return r->iretire ? 1 : 0;
    if (e->bc) {
        uint64_t n;
        if (rvt_ing_count_insns(r, e->bc, &n) == 0)
            return n;
    }
    /* Without code: assume the other instructions are 32-bit. */
    return 1 + (r->iretire - last + 1) / 2;
}

/* The point between the previous record and r: send what the previous
 * record's last instruction needs, or a sync in its place. */
static int boundary(struct nt_encoder *e, const struct rvt_ing_rec *r)
{
    uint64_t next = r->iaddr & e->addr_mask;
    unsigned ev = e->ev, btype = e->ev_btype;
    e->ev = EV_NONE;
    if (ev == EV_RETCHECK)
        ev = e->ev_pred == next ? EV_NONE : EV_JUMP;
    const bool count_ret = ev == EV_COUNTRET;
    if (count_ret)
        ev = EV_NONE;
    bool priv_change = r->priv != e->priv;
    bool ctx_change = r->context != e->context && r->ctype != RVT_CTYPE_UNREPORTED;
    bool report_change = e->cfg.context && (priv_change || ctx_change);
    unsigned reason = 16;
    if (e->need_resync && !e->lost)
        reason = NT_SYNC_OVERRUN;
    else if (e->icnt_sync_due)
        reason = NT_SYNC_ICNT;
    else if (e->notify_due)
        reason = NT_SYNC_TRACE_EVENT; /* a watchpoint: report where execution is */
    else if ((e->cfg.sync_period && e->since_sync_hw >= e->cfg.sync_period) ||
             (e->cfg.sync_msgs && e->since_sync_msgs >= e->cfg.sync_msgs))
        reason = NT_SYNC_PERIODIC;
    else if (report_change && ev == EV_NONE)
        reason = NT_SYNC_TRACE_EVENT; /* pins a change on linear code to an exact place */
    /* A return the counter made implicit that went elsewhere: the trace is
     * as the spec's counting mode makes it, and every decoder follows the
     * return to the call's successor.  Unless a sync message comes here:
     * its I-CNT ends at the return and its address says where it went. */
    if (count_ret && reason >= 16 && e->ev_pred != next) {
        if (!e->st.misled_returns++) {
            e->st.misled_at = e->ev_at;
            e->st.misled_to = next;
            e->st.misled_predicted = e->ev_pred;
            e->st.misled_insns = e->ev_insns;
        }
    }
    e->now = e->ev_time;
    int rc;
    if (reason < 16) {
        if ((rc = write_sync(e, ev, btype, reason, next)) < 0)
            return rc;
        if (e->cfg.context && (rc = write_ownership(e, true, r->priv, r->context)) < 0)
            return rc;
    } else {
        if (ev == EV_DBRANCH || ev == EV_JUMP || ev == EV_TRAP) {
            if ((rc = write_branch(e, ev, btype, next)) < 0)
                return rc;
        }
        if (report_change && (rc = write_ownership(e, ctx_change, r->priv, r->context)) < 0)
            return rc;
    }
    e->priv = r->priv;
    if (r->ctype != RVT_CTYPE_UNREPORTED || !e->cfg.context)
        e->context = r->context;
    return 0;
}

/* Is the encoder where a plain record changes nothing but its counters?
 * Tracing, nothing the previous record needs, no resync, no I-CNT, notify
 * or message-count sync due.  (I-CNT room and the halfword period are
 * checked per record: they move with each one.) */
static void update_quiet(struct nt_encoder *e)
{
    e->quiet = !e->general_only && e->started && !e->off && !e->finished && e->ev == EV_NONE && !e->need_resync &&
               !e->icnt_sync_due && !e->notify_due && (!e->cfg.sync_msgs || e->since_sync_msgs < e->cfg.sync_msgs);
}

/* The records at the front of rs[0..n) that only count: each one
 * instruction (iretire the size of its last), no flags, the same
 * privilege and context, I-CNT staying below its full value and the sync
 * period not reached before it; a plain instruction (itype 0) or, in HTM,
 * a conditional branch whose outcome fits in HIST.  Exactly what the
 * general path does for such a record while quiet: boundary() sends
 * nothing (no event, resync, sync due, privilege or context change),
 * I-CNT and the halfwords since the sync count it, a branch shifts its
 * outcome into HIST, and nothing else changes.  Returns how many it took;
 * the next record, if any, needs the general path.  nt_enc_put_plain and
 * nt_enc_put_short (records in short): one loop, made for each (`shorts`)
 * where it is inlined. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline size_t plain_run(struct nt_encoder *e, const bool shorts, const struct rvt_ing_rec *rs,
                               const struct rvt_ing_fast *fs, size_t n)
{
    if (!e->quiet)
        return 0;
    const uint64_t icnt_full = e->icnt_full, ctx = e->context;
    const uint64_t period = e->cfg.sync_period ? e->cfg.sync_period : UINT64_MAX;
    const unsigned priv = e->priv;
    /* A conditional branch is plain only in HTM (BTM sends a taken one). */
    const unsigned branch_max = e->cfg.mode == NT_MODE_HTM ? RVT_ITYPE_TAKEN : RVT_ITYPE_NONE;
    const unsigned hist_bits = e->cfg.hist_bits;
    uint64_t icnt = e->icnt, since = e->since_sync_hw, hist = e->hist;
    size_t i = 0;
    for (; i < n; i++) {
        uint32_t ir;
        unsigned it;
        if (shorts) { /* (rvt_ing_fast_rec: no flags, the batch's privilege and context) */
            ir = rvt_ing_fast_insn_hw(&fs[i]);
            it = fs[i].itype;
            if (!ir)
                break;
        } else {
            const struct rvt_ing_rec *r = &rs[i];
            ir = r->iretire;
            it = r->itype;
            if (r->flags != 0 || ir != 1u << r->ilastsize || r->priv != priv || r->context != ctx)
                break;
        }
        if (icnt + ir >= icnt_full || since >= period)
            break;
        if (it != RVT_ITYPE_NONE) {
            if (it < RVT_ITYPE_NOT_TAKEN || it > branch_max)
                break;
            uint64_t h = (hist << 1) | (it == RVT_ITYPE_TAKEN);
            if (h >> hist_bits)
                break; /* HIST full: ResourceFull or repeated history, the general path's */
            hist = h;
        }
        icnt += ir;
        since += ir;
    }
    if (i) {
        e->st.records += i;
        e->st.insns += i;
        e->now = e->ev_time;
        e->icnt = icnt;
        e->since_sync_hw = since;
        e->hist = hist;
        e->fresh = false;
    }
    return i;
}

size_t nt_enc_put_plain(struct nt_encoder *e, const struct rvt_ing_rec *rs, size_t n)
{
    return plain_run(e, false, rs, NULL, n);
}

/* The same over records in short, which carry the privilege and context
 * of their batch: a run only if those are the encoder's. */
size_t nt_enc_put_short(struct nt_encoder *e, const struct rvt_ing_fast *fs, size_t n, uint8_t priv, uint64_t context)
{
    return priv == e->priv && context == e->context ? plain_run(e, true, NULL, fs, n) : 0;
}

int nt_enc_put(struct nt_encoder *e, const struct rvt_ing_rec *r)
{
    /* One record: the same test as nt_enc_put_plain, read from e in place so
     * that this stays a leaf that saves no registers. */
    if (!e->quiet || r->flags != 0 || r->iretire != 1u << r->ilastsize || r->priv != e->priv ||
        r->context != e->context || e->icnt + r->iretire >= e->icnt_full ||
        (e->cfg.sync_period && e->since_sync_hw >= e->cfg.sync_period))
        return put_general(e, r);
    if (r->itype != RVT_ITYPE_NONE) {
        if (e->cfg.mode != NT_MODE_HTM || (r->itype != RVT_ITYPE_NOT_TAKEN && r->itype != RVT_ITYPE_TAKEN))
            return put_general(e, r);
        uint64_t h = (e->hist << 1) | (r->itype == RVT_ITYPE_TAKEN);
        if (h >> e->cfg.hist_bits)
            return put_general(e, r);
        e->hist = h;
    }
    e->st.records++;
    e->st.insns++;
    e->now = e->ev_time;
    e->icnt += r->iretire;
    e->since_sync_hw += r->iretire;
    e->fresh = false;
    return 0;
}

/* Every record that is not plain.  It leaves quiet false on an error, so
 * that every later record comes here too.  (Not inlined: nt_enc_put's
 * fast path would save the registers this one needs.) */
NT_NOINLINE static int put_general(struct nt_encoder *e, const struct rvt_ing_rec *r)
{
    e->quiet = false;
    int rc = put_record(e, r);
    if (rc == 0)
        update_quiet(e);
    return rc;
}

static int put_record(struct nt_encoder *e, const struct rvt_ing_rec *r)
{
    int rc;
    if (e->finished)
        return rvt_fail(&e->diag, RVT_ERR_INVAL, "ntrace encoder: record after finish");
    if (r->itype == 7)
        return rvt_fail(&e->diag, RVT_ERR_FORMAT, "ntrace encoder: record %llu at 0x%llx: reserved itype 7",
                        (unsigned long long)e->st.records, (unsigned long long)r->iaddr);
    if (r->iretire && r->iretire < (1u << r->ilastsize))
        return rvt_fail(&e->diag, RVT_ERR_FORMAT,
                        "ntrace encoder: record %llu at 0x%llx: iretire %u halfwords is less than the last "
                        "instruction (%u halfwords)",
                        (unsigned long long)e->st.records, (unsigned long long)r->iaddr, r->iretire,
                        1u << r->ilastsize);
    if (r->iretire == 0 && r->itype != RVT_ITYPE_EXCEPTION && r->itype != RVT_ITYPE_INTERRUPT)
        return 0; /* nothing retired, nothing happened */
    e->st.records++;
    e->st.insns += count_insns(e, r);
    uint64_t rtime = (r->flags & RVT_ING_HAS_TIME) ? r->time : e->ev_time;
    e->seen_time |= (r->flags & RVT_ING_HAS_TIME) != 0; /* (plain runs take no record with flags) */

    if (r->flags & RVT_ING_UNQUALIFIED) {
        /* Filtered out: tracing stops after the last qualified instruction
         * (ProgTraceCorrelation EVCODE 4 with what I-CNT and HIST hold). */
        if (e->started && !e->off) {
            e->now = e->ev_time;
            if ((rc = write_end(e, 4)) < 0)
                return rc;
            e->off = true;
        }
        if (!e->started && !e->seen_off) {
            /* Seed 003, "Corner Cases and Sequences": "Trace starts
             * disabled: ProgTraceCorrelation with EVCODE=4 (Trace
             * Disabled).  Once trace is enabled message with SYNC=5." */
            e->now = rtime;
            if ((rc = write_end(e, 4)) < 0)
                return rc;
            e->seen_off = true;
        }
        e->ev = EV_NONE;
        e->priv = r->priv;
        e->context = r->context;
        e->ev_time = rtime;
        return 0;
    }
    if (!e->started || e->off) {
        /* Trace (re)starts: a ProgTraceSync with the full address; SYNC=5
         * after a stretch that was filtered out. */
        e->now = rtime;
        bool restart = e->started || e->seen_off;
        e->started = true;
        e->off = false;
        uint64_t start = r->iaddr & e->addr_mask;
        struct nt_msg m;
        nt_msg_init(&m, NT_TC_PROG_TRACE_SYNC);
        nt_set(&m, NT_F_SYNC, restart ? NT_SYNC_TRACE_ENABLE : e->cfg.start_sync);
        nt_set(&m, NT_F_ICNT, 0);
        nt_set(&m, NT_F_FADDR, start >> 1);
        if ((rc = write_msg(e, &m, W_NORMAL)) < 0)
            return rc;
        reset_after_sync(e, start);
        e->priv = r->priv;
        e->context = r->context;
        if (e->cfg.context && (rc = write_ownership(e, true, r->priv, r->context)) < 0)
            return rc;
    } else if ((rc = boundary(e, r)) < 0) {
        return rc;
    }
    e->now = rtime;

    /* I-CNT: the counter's most significant bit is an overflow flag; when
     * it sets, the whole count is reported (ResourceFull RCODE 0 now, or,
     * with --icnt-sync, a SYNC=4 message at the next address). */
    e->icnt += r->iretire;
    e->since_sync_hw += r->iretire;
    /* A counter holds at most icnt_max: a merged record wider than the
     * counter (hardware counts one instruction at a time, so it never
     * goes past) reports whole counters first. */
    while (e->icnt > e->icnt_max) {
        struct nt_msg m;
        nt_msg_init(&m, NT_TC_RESOURCE_FULL);
        nt_set(&m, NT_F_RCODE, NT_RCODE_ICNT);
        nt_set(&m, NT_F_RDATA, e->icnt_full);
        if ((rc = write_msg(e, &m, W_NORMAL)) < 0)
            return rc;
        e->icnt -= e->icnt_full;
    }
    if (e->icnt >= e->icnt_full) {
        if (e->cfg.icnt_sync) {
            e->icnt_sync_due = true;
        } else {
            struct nt_msg m;
            nt_msg_init(&m, NT_TC_RESOURCE_FULL);
            nt_set(&m, NT_F_RCODE, NT_RCODE_ICNT);
            nt_set(&m, NT_F_RDATA, e->icnt);
            if ((rc = write_msg(e, &m, W_NORMAL)) < 0)
                return rc;
            e->icnt = 0;
        }
    }

    uint64_t ret = (rvt_ing_last_addr(r) + (2u << r->ilastsize)) & e->addr_mask;
    /* A decoder infers a sequential jump from the auipc/lui before it in
     * the code it walks; one that is the first instruction after a sync
     * point has none before it there, so it is sent. */
    bool sij = e->cfg.sijump && rvt_ing_sijump(r) && !(e->fresh && r->iretire == (1u << r->ilastsize));
    if (r->iretire)
        e->fresh = false;
    bool cs = e->cfg.callstack != 0;
    uint64_t pred = 0;
    e->ev = EV_NONE;
    switch (r->itype) {
    case RVT_ITYPE_EXCEPTION:
        e->ev = EV_TRAP;
        e->ev_btype = e->cfg.btype_compat ? NT_BTYPE_TRAP : NT_BTYPE_EXCEPTION;
        break;
    case RVT_ITYPE_INTERRUPT:
        e->ev = EV_TRAP;
        e->ev_btype = e->cfg.btype_compat ? NT_BTYPE_TRAP : NT_BTYPE_INTERRUPT;
        break;
    case RVT_ITYPE_TRAPRET: e->ev = EV_JUMP; break;
    case RVT_ITYPE_NOT_TAKEN:
    case RVT_ITYPE_TAKEN:
        if (e->cfg.mode == NT_MODE_HTM) {
            e->hist = (e->hist << 1) | (r->itype == RVT_ITYPE_TAKEN);
            if ((e->hist >> e->cfg.hist_bits) != 0 && (rc = hist_full(e)) < 0)
                return rc;
        } else if (r->itype == RVT_ITYPE_TAKEN) {
            e->ev = EV_DBRANCH;
        }
        break;
    case RVT_ITYPE_CALL_UNINF:
        if (cs)
            rvt_cs_push(&e->cs, ret);
        if (!sij)
            e->ev = EV_JUMP;
        break;
    case RVT_ITYPE_CALL_INF:
        if (cs)
            rvt_cs_push(&e->cs, ret);
        break;
    case RVT_ITYPE_UNINF_JUMP3:
    case RVT_ITYPE_JUMP_UNINF:
    case RVT_ITYPE_OTHER_UNINF:
        if (!sij)
            e->ev = EV_JUMP;
        break;
    case RVT_ITYPE_COSWAP:
    case RVT_ITYPE_RETURN: {
        bool popped = cs && rvt_cs_pop(&e->cs, &pred);
        if (r->itype == RVT_ITYPE_COSWAP && cs)
            rvt_cs_push(&e->cs, ret);
        if (r->itype == RVT_ITYPE_COSWAP) {
            /* The flow engine predicts returns only; a swap is always
             * sent (unless sequentially inferable), after pop and push. */
            if (!sij)
                e->ev = EV_JUMP;
            break;
        }
        if (popped && e->cfg.cs_mode == NT_CS_COUNT) {
            /* counter only: any return with a non-zero count is implicit
             * ("Returns will be treated as inferable and will not generate
             * a trace message if the count is non-zero"); boundary() checks
             * it against the stack only to say when that misleads */
            e->ev = EV_COUNTRET;
            e->ev_pred = pred;
            e->ev_at = rvt_ing_last_addr(r) & e->addr_mask;
            e->ev_insns = e->st.insns;
            break;
        }
        if (popped) {
            e->ev = EV_RETCHECK;
            e->ev_pred = pred;
        } else {
            e->ev = EV_JUMP;
        }
        break;
    }
    default: break;
    }
    if (r->flags & RVT_ING_NOTIFY)
        e->notify_due = true;
    e->ev_time = e->now;
    return 0;
}

/* ProgTraceCorrelation: tracing stops; I-CNT and HIST cover every
 * instruction up to here (what the last one needed has no target). */
static int write_end(struct nt_encoder *e, unsigned evcode)
{
    struct nt_msg m;
    nt_msg_init(&m, NT_TC_PROG_TRACE_CORRELATION);
    nt_set(&m, NT_F_EVCODE, evcode);
    nt_set(&m, NT_F_CDF, e->cfg.mode == NT_MODE_HTM ? 1 : 0);
    nt_set(&m, NT_F_ICNT, e->icnt);
    if (e->cfg.mode == NT_MODE_HTM)
        nt_set(&m, NT_F_HIST, e->hist);
    int rc = write_msg(e, &m, W_NORMAL);
    if (rc < 0)
        return rc;
    e->icnt = 0;
    e->hist = 1;
    e->ev = EV_NONE;
    return 0;
}

int nt_enc_finish(struct nt_encoder *e)
{
    if (e->finished)
        return 0;
    e->finished = true;
    e->quiet = false;
    e->now = e->ev_time;
    if (!e->started && !e->seen_off)
        return 0; /* nothing was retired: no trace */
    if (!e->started || e->off) {
        /* "Hart halted with trace disabled: ProgTraceCorrelation with
         * EVCODE=0 (Enter Debug mode) and I-CNT=0 (nothing executed)."  A
         * trace ending disabled (EVCODE 4) was said so already. */
        if (e->cfg.end_evcode == 4)
            return 0;
        return write_end(e, e->cfg.end_evcode);
    }
    return write_end(e, e->cfg.end_evcode);
}

int nt_enc_new(struct nt_encoder **out, const struct nt_cfg *cfg, const struct rvt_byte_sink *sink,
               struct rvt_diag *d)
{
    *out = NULL;
    if (!cfg->xlen)
        return rvt_fail(d, RVT_ERR_INVAL, "ntrace encoder: configuration not finished (no xlen)");
    struct nt_encoder *e = calloc(1, sizeof *e);
    if (!e)
        return rvt_fail(d, RVT_ERR_NOMEM, "ntrace encoder: out of memory");
    e->cfg = *cfg;
    nt_cfg_wire(cfg, &e->wire);
    e->sink = *sink;
    e->addr_mask = nt_addr_mask(cfg->xlen);
    e->icnt_full = 1ull << (cfg->icnt_bits - 1);
    e->icnt_max = 2 * e->icnt_full - 1;
    e->hist = 1;
    rvt_cs_init(&e->cs, cfg->callstack, RVT_CS_DROP_OLDEST);
    if (cfg->image) {
        e->bc = rvt_bcache_new(cfg->image, 0);
        if (!e->bc) {
            free(e);
            return rvt_fail(d, RVT_ERR_NOMEM, "ntrace encoder: out of memory");
        }
    }
    *out = e;
    return 0;
}

void nt_enc_general_only(struct nt_encoder *e)
{
    e->general_only = true;
    e->quiet = false;
}

void nt_enc_stats(const struct nt_encoder *e, struct rvt_codec_stats *st)
{
    *st = e->st;
    /* every TSTAMP is then 0: said (rvt_codec_stats.unfed), not left to be
     * found out */
    if (e->cfg.timestamps && !e->seen_time)
        snprintf(st->unfed, sizeof st->unfed, "--timestamps: the records traced carry no times, so every TSTAMP is 0");
}

const char *nt_enc_error(const struct nt_encoder *e)
{
    return e->diag.msg;
}

void nt_enc_free(struct nt_encoder *e)
{
    if (!e)
        return;
    rvt_bcache_free(e->bc);
    free(e);
}
