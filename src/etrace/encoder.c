/* E-Trace encoder: the spec's reference compressed branch trace algorithm
 * (exampleAlgorithm.adoc) on ingress records.
 *
 * Records are expanded into the "interesting" instructions of each block
 * (its first and its last; the ones in between never change the encoder's
 * state), which pass through a 3-stage pipeline: every decision is made for
 * the current instruction with the previous and next ones visible, so the
 * packets equal those of a single-retirement hart whatever the block sizes.
 *
 * Decision order per instruction (the flowchart):
 *   previous was a trap ............ format 3.1 (thaddr 1/0), or 3.0 if already reported
 *   current is a trap only ......... format 3.1 thaddr 0 (EPC) after an uninferable jump
 *   first traced / priv or precise context change / resync expired ... format 3.0
 *   previous was an uninferable discontinuity ........................ format 0/1/2
 *   resync due with unreported branches, trap after this one, notify .. format 0/1/2
 *   next is a trap only, next changes privilege with branches pending,
 *     next not traced ............................................... format 0/1/2
 *   branch map full (or a mispredicted branch in branch-count mode) ... format 1 / 0.0
 *   imprecise context change ........................................... format 3.2
 * Implicit return, branch prediction and the jump target cache change what
 * counts as an uninferable discontinuity and which format carries it.
 */
#include "etrace/encoder.h"

#include <inttypes.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* One interesting instruction (or a trap with nothing retired). */
struct ent {
    uint64_t addr;    /* this instruction (or the faulting / resuming pc of a trap-only entry) */
    uint64_t next;    /* fall-through of the last instruction of a block */
    uint64_t tval, context, time;
    uint32_t cause;
    uint8_t itype;    /* 0 for the first instruction of a multi-instruction block */
    uint8_t priv, ctype;
    bool retired;
    bool sijump;
    bool has_time;
    bool qualified;
    bool last_of_rec; /* the last instruction of its record (or its only one) */
    bool notify;      /* a trigger asks for this instruction to be reported (RVT_ING_NOTIFY) */
    bool misret;      /* a return the implicit-return stack predicts wrongly */
    uint64_t rec_lo, rec_hi; /* the record's first and last instruction */
    /* decided when processed as the current instruction */
    bool updiscon;    /* its successor must be reported with an address */
    bool reported;    /* a packet reported this instruction's address */
    bool synced;      /* a format 3 sync packet reported it */
    bool trap_epc;    /* a trap-only entry reported by a format 3.1 with thaddr 0 (its EPC):
                       * the handler comes with a format 3.0.  Kept per entry, not per
                       * encoder: when the handler is not traced, the flag must not reach
                       * a later trap. */
    bool has_da, da_sent; /* data trace: the access of the last instruction of its record */
    struct et_access da;
};

static inline bool is_trap(unsigned itype)
{
    return itype == RVT_ITYPE_EXCEPTION || itype == RVT_ITYPE_INTERRUPT;
}

enum akind { AK_UPDISCON, AK_INFERRED, AK_NOTIFY };

struct win_range {
    uint64_t lo, hi;
    unsigned tag; /* implicit returns counted when added (the fixed irdepth tells passes apart) */
};

/* An implicit return, for report_earlier_return. */
struct ir_ret {
    uint32_t gen, pgen;  /* when it ran: e->gen, e->pgen */
    uint8_t branches;    /* map bits up to its target, the target's own if a branch */
    uint64_t target, time;
};

struct et_encoder {
    struct et_params p;
    struct et_framer fr;
    struct rvt_diag diag;
    et_packet_fn obs;
    void *obs_ctx;

    struct ent win[3]; /* prev, cur, next */
    unsigned nwin;

    bool started;      /* initial support packet sent */
    bool tracing;      /* a sync packet has been sent and tracing did not stop since */
    bool lost_sent;    /* after a loss the sink took the trace_lost support packet: a sync resumes */
    bool finished;

    uint64_t last_addr;
    /* Address ranges run since the last branch or address (the decoder's
     * candidates for a reported address). */
    struct win_range seen[32];
    unsigned nwin_r;
    bool win_full;
    /* The last packet reported an uninferable target without the updiscon
     * flag: a format 3 must not follow it directly (the decoder would take
     * that address for the last instruction before it). */
    bool upd_open;
    bool last_inferred; /* the last address packet did not follow an uninferable discontinuity */
    bool pkt_addr_valid; /* the last packet reported pkt_addr */
    bool pkt_ret;        /* ...which is a return instruction */
    uint64_t pkt_addr;

    /* branches not yet reported */
    unsigned branches;
    uint32_t map;
    bool all_correct;  /* every branch in the map was predicted correctly */
    uint32_t miss;     /* (branch prediction) the map's mispredicted branches */
    uint64_t pbc;      /* >= 31: branch-count mode (correctly predicted branches) */
    bool bp_fail;      /* the current branch failed its prediction in branch-count mode */

    uint64_t resync_count, resync_max;
    bool general_only; /* et_enc_set_general_only */

    /* implicit return */
    struct rvt_callstack *cs;
    bool ir_on;
    bool pop_explicit;
    unsigned ir_max;   /* largest irdepth value */
    unsigned seg_implicit;   /* implicit returns since the last branch or address */
    unsigned pend_count;     /* seg_implicit before the explicit return (fixed irdepth) */
    bool ret_since_branch;   /* an implicit return after the last branch of this segment */
    bool pend_ret;           /* the previous instruction was a return reported explicitly with a non-empty stack */
    unsigned pend_depth;     /* its stack depth (2.0 irdepth) */
    uint32_t gen;            /* a new one after each branch or packet */
    uint32_t pgen;           /* a new one after each packet the decoder walks to */
    /* 2.0 irdepth: the last implicit return since the last packet from
     * each stack depth (indexed by the depth before it popped) */
    struct ir_ret *ir_rets;

    struct et_bpred bp;
    struct et_jtc jtc;

    uint64_t addr_bad; /* address bits the address field cannot carry (above the width, below the lsb) */
    /* the context of the last record (0.026: a notification keeps it) */
    uint64_t last_ctx;
    bool have_ctx;

    /* cause filter: nesting of traps; bit i set = level i is a traced handler */
    uint32_t handler_bits;
    unsigned handler_depth;

    /* data trace (data_codec.c) */
    struct et_denc denc;
    uint64_t dlost;    /* data packets dropped while the sink refused bytes, not yet reported (dloss) */

    /* statistics */
    uint64_t packets, records;
    uint64_t fmt_count[8];
};

/* ---- small helpers ----------------------------------------------------------- */

static inline uint64_t mask64(unsigned w)
{
    return w >= 64 ? ~0ull : ((1ull << w) - 1);
}

const char *et_enc_error(const struct et_encoder *e)
{
    return e->diag.msg;
}

void et_enc_set_general_only(struct et_encoder *e)
{
    e->general_only = true;
}

void et_enc_set_observer(struct et_encoder *e, et_packet_fn fn, void *ctx)
{
    e->obs = fn;
    e->obs_ctx = ctx;
}

/* packets and bytes: what the encoder produced, each packet once; while
 * the sink refuses bytes it keeps producing (and dropping) the packets it
 * would produce without the overflow.  lost: the bytes of those the sink
 * did not take, so bytes - lost is what the sink holds.  Offers of the owed
 * trace_lost packet that the sink refuses are not packets. */
void et_enc_stats(const struct et_encoder *e, struct rvt_codec_stats *st)
{
    memset(st, 0, sizeof *st);
    st->packets = e->packets;
    st->bytes = e->fr.bytes;
    st->lost = e->fr.lost;
    st->records = e->records;
    if (e->denc.atomic_responses)
        snprintf(st->unfed, sizeof st->unfed,
                 "--data_split_p 1: the %" PRIu64 " split atomic data packets carry the value each atomic wrote, not "
                 "the value it loaded (the records carry store data and operand only)",
                 e->denc.atomic_responses);
}

static void seg_reset(struct et_encoder *e)
{
    e->nwin_r = 0;
    e->win_full = false;
    e->seg_implicit = 0;
    e->ret_since_branch = false;
    e->pend_ret = false;
    e->gen++;
    e->pgen++;
}

static void map_reset(struct et_encoder *e)
{
    e->branches = 0;
    e->map = 0;
    e->miss = 0;
    e->all_correct = true;
    e->pbc = 0;
    e->bp_fail = false;
}

static void support_packet(const struct et_encoder *e, struct et_packet *k, bool enable, unsigned qual)
{
    memset(k, 0, sizeof *k);
    k->format = ET_F3;
    k->subformat = ET_SF_SUPPORT;
    k->ienable = enable && e->p.d.mode != ET_DATA_ONLY;
    if (e->p.d.mode != ET_DATA_OFF) {
        k->denable = enable;
        k->dloss = qual == ET_QUAL_TRACE_LOST && e->dlost;
        k->doptions = et_doptions(&e->p.d);
    }
    if (e->p.version == ET_V0_026) {
        /* (the draft's te_support has no trace_lost: "ended") */
        k->msg = ET_MSG_TE_SUPPORT;
        k->qual_status = (uint8_t)(qual == ET_QUAL_TRACE_LOST ? ET_QUAL_ENDED_REP : qual);
    } else {
        k->encoder_mode = 0; /* branch trace */
        k->qual_status = (uint8_t)qual;
        k->ioptions = et_ioptions(&e->p);
    }
}

/* ---- data trace: the te_data packets of an instruction ----------------- */

static int offer_lost(struct et_encoder *e);

/* A format 3 packet went out: the compression state starts over.  lost: it
 * was the trace_lost support packet; responses still owed were lost. */
static void data_sync(struct et_encoder *e, bool lost)
{
    if (e->p.d.mode == ET_DATA_OFF)
        return;
    et_dstate_reset(&e->denc.st);
    if (lost)
        e->denc.npend = 0;
}

static int send_dpkt(struct et_encoder *e, struct et_dpkt *k)
{
    struct et_bits b;
    int rc = et_dpkt_bits(&e->p.d, k, &b, &e->diag);
    if (rc < 0)
        return rc;
    if (e->fr.hold && !e->lost_sent && (rc = offer_lost(e)) < 0)
        return rc;
    if (e->fr.hold && !e->lost_sent)
        e->dlost++; /* dropped before the trace_lost packet: its dloss */
    if ((rc = et_framer_put(&e->fr, &b, ET_MSG_TE_DATA, 0, &e->diag)) < 0)
        return rc;
    e->packets++;
    return 0;
}

static int flush_responses(struct et_encoder *e)
{
    struct et_dpkt k;
    int rc;
    while ((rc = et_denc_response(&e->denc, true, &k, &e->diag)) == 1)
        if ((rc = send_dpkt(e, &k)) < 0)
            return rc;
    return rc;
}

/* The packets of one access (and the split responses it makes due). */
static int send_access(struct et_encoder *e, const struct et_access *a)
{
    struct et_dpkt k[2];
    unsigned n;
    int rc = et_denc_access(&e->denc, a, k, &n, &e->diag);
    if (rc < 0)
        return rc;
    for (unsigned i = 0; i < n; i++)
        if ((rc = send_dpkt(e, &k[i])) < 0)
            return rc;
    et_denc_tick(&e->denc);
    struct et_dpkt r;
    while ((rc = et_denc_response(&e->denc, false, &r, &e->diag)) == 1)
        if ((rc = send_dpkt(e, &r)) < 0)
            return rc;
    return rc;
}

/* Instruction c's access, once, after the te_inst packets that report it. */
static int emit_data(struct et_encoder *e, struct ent *c)
{
    if (!c->has_da || c->da_sent || !c->qualified || !c->retired)
        return 0;
    c->da_sent = true;
    if (!et_dtraced(&e->p.d, et_dclass_of_dtype(c->da.dtype), c->addr) || !et_dtraced_addr(&e->p.d, &c->da))
        return 0;
    return send_access(e, &c->da);
}

/* After the sink refused bytes a trace_lost support packet is owed: offer
 * it (in place of a packet the encoder produces) until the sink takes it. */
static int offer_lost(struct et_encoder *e)
{
    struct et_packet k;
    support_packet(e, &k, true, ET_QUAL_TRACE_LOST);
    struct et_bits b;
    int rc = et_pkt_bits(&e->p, &k, &b, &e->diag);
    if (rc < 0)
        return rc;
    bool taken;
    if ((rc = et_framer_offer(&e->fr, &b, k.msg, 0, &taken, &e->diag)) < 0)
        return rc;
    if (taken) {
        e->lost_sent = true;
        e->dlost = 0;
        data_sync(e, true);
        e->packets++;
        e->fmt_count[ET_F3]++;
        if (e->obs)
            e->obs(e->obs_ctx, &k, b.n, et_bits_compressed_len(&b));
    }
    return 0;
}

/* Serialise, frame and write one packet.  While the sink refuses bytes the
 * packet is produced but dropped (counted as lost); the owed trace_lost
 * support packet is offered first, and once the sink took it the packets
 * are dropped until the sync packet that resumes tracing (the next
 * qualified instruction, see step). */
static int send(struct et_encoder *e, struct et_packet *k, uint64_t time)
{
    struct et_bits b;
    const bool f3 = k->format == ET_F3 || k->msg == ET_MSG_TE_SUPPORT;
    int rc;
    /* split responses outstanding go before a sync packet (whose reset they
     * must not cross: see data.h) */
    if (f3 && e->p.d.mode != ET_DATA_OFF && (rc = flush_responses(e)) < 0)
        return rc;
    rc = et_pkt_bits(&e->p, k, &b, &e->diag);
    if (rc < 0)
        return rc;
    if (e->fr.hold && !e->lost_sent && (rc = offer_lost(e)) < 0)
        return rc;
    rc = et_framer_put(&e->fr, &b, k->msg, time, &e->diag);
    if (rc < 0)
        return rc;
    if (f3)
        data_sync(e, false);
    e->packets++;
    e->upd_open = false;
    if (k->msg == ET_MSG_TE_INST && !(k->format == ET_F3 && k->subformat >= ET_SF_CONTEXT)) {
        /* (context and support packets do not move the decoder) */
        e->pkt_addr_valid = false;
        e->pkt_ret = false;
    }
    e->resync_count++;
    e->fmt_count[k->format & 3]++;
    if (e->obs)
        e->obs(e->obs_ctx, k, b.n, et_bits_compressed_len(&b));
    return 0;
}

static int send_support(struct et_encoder *e, bool enable, unsigned qual)
{
    struct et_packet k;
    support_packet(e, &k, enable, qual);
    return send(e, &k, 0);
}

/* The address field: full (>> lsb) or the difference from the last one. */
static uint64_t addr_field(const struct et_encoder *e, uint64_t addr, bool full)
{
    unsigned lsb = e->p.iaddress_lsb_p;
    if (full)
        return (addr >> lsb) & mask64(et_addr_bits(&e->p));
    int64_t diff = (int64_t)(addr - e->last_addr);
    if (e->p.iaddress_width_p < 64) {
        /* differences wrap at the address width */
        unsigned w = e->p.iaddress_width_p;
        uint64_t u = (addr - e->last_addr) & mask64(w);
        if (u >> (w - 1))
            u |= ~mask64(w);
        diff = (int64_t)u;
    }
    return ((uint64_t)(diff >> lsb)) & mask64(et_addr_bits(&e->p));
}

/* Reset the state a synchronisation packet restarts. */
static void sync_reset(struct et_encoder *e)
{
    map_reset(e);
    seg_reset(e);
    if (e->cs)
        rvt_cs_clear(e->cs);
    et_bpred_reset(&e->bp);
    et_jtc_reset(&e->jtc);
}

/* ---- format 3 ----------------------------------------------------------------- */

static int send_start(struct et_encoder *e, struct ent *c)
{
    struct et_packet k;
    memset(&k, 0, sizeof k);
    k.format = ET_F3;
    k.subformat = ET_SF_START;
    k.branch = c->itype == RVT_ITYPE_TAKEN ? 0 : 1;
    k.privilege = c->priv;
    k.time = c->time;
    k.context = et_ctx_bits(&e->p) ? c->context : 0;
    k.address = addr_field(e, c->addr, true);
    if (e->p.framing == ET_FRAME_ENCAP && e->p.sync_period == 0 && e->tracing) {
        /* e-trace-encap synchronisation sequence before each resync */
        int rc = et_framer_sync(&e->fr, &e->diag);
        if (rc < 0)
            return rc;
    }
    int rc = send(e, &k, c->time);
    if (rc < 0)
        return rc;
    e->last_addr = c->addr;
    sync_reset(e);
    e->resync_count = 0;
    e->tracing = true;
    c->reported = c->synced = true;
    return 0;
}

/* Format 3 subformat 1: trap `t` reported at entry c. */
static int send_trap(struct et_encoder *e, struct ent *c, const struct ent *t, bool thaddr)
{
    struct et_packet k;
    memset(&k, 0, sizeof k);
    k.format = ET_F3;
    k.subformat = ET_SF_TRAP;
    k.branch = c->itype == RVT_ITYPE_TAKEN && c->retired ? 0 : 1;
    k.privilege = c->priv;
    k.time = c->time;
    k.context = et_ctx_bits(&e->p) ? c->context : 0;
    k.ecause = t->cause;
    k.interrupt = t->itype == RVT_ITYPE_INTERRUPT;
    k.thaddr = thaddr;
    k.tval = k.interrupt ? 0 : t->tval & mask64(e->p.iaddress_width_p);
    k.address = addr_field(e, c->addr, true);
    if (e->p.ecause_width_p < 32 && (t->cause >> e->p.ecause_width_p))
        return rvt_fail(&e->diag, RVT_ERR_OVERFLOW, "trap cause %" PRIu32 " does not fit ecause_width_p = %u",
                        t->cause, e->p.ecause_width_p);
    if (e->p.implicit_except && thaddr) {
        uint64_t h;
        if (!et_implied_handler(&e->p, c->priv, k.interrupt, t->cause, &h) || h != c->addr) {
            /* The decoder could not infer this handler: report the trap
             * without an address, then the handler with a sync packet. */
            k.thaddr = 0;
            int rc = send(e, &k, c->time);
            if (rc < 0)
                return rc;
            return send_start(e, c);
        }
    }
    int rc = send(e, &k, c->time);
    if (rc < 0)
        return rc;
    e->last_addr = c->addr;
    sync_reset(e);
    e->resync_count = 0;
    e->tracing = true;
    if (thaddr)
        c->reported = c->synced = true;
    return 0;
}

static int send_context(struct et_encoder *e, const struct ent *c)
{
    struct et_packet k;
    memset(&k, 0, sizeof k);
    k.format = ET_F3;
    k.subformat = ET_SF_CONTEXT;
    k.privilege = c->priv;
    k.time = c->time;
    k.context = c->context;
    return send(e, &k, c->time);
}

/* ---- formats 0, 1, 2 ------------------------------------------------------------ */

/* irreport/irdepth of an address packet.  payload.adoc: irreport "indicates
 * that this packet is reporting an instruction that is either: following a
 * return because its address differs from the predicted return address
 * ..., or the last retired before an exception, interrupt, privilege
 * change or resync because it is necessary to report the current address
 * stack depth".  So not a notification (2.0): decoder.adoc's notify stop
 * does not read irdepth, and its is_implicit_return would take a return at
 * that depth on the way for an unpredicted one.  The fixed scheme's count
 * goes with every report (its decoder counts the returns to any stop). */
static void set_ir(struct et_encoder *e, struct et_packet *k, enum akind kind, unsigned depth_now)
{
    k->irreport = 0;
    k->irdepth = 0;
    if (!e->ir_on)
        return;
    bool fixed = e->p.implicit_return == ET_IR_FIXED;
    if (kind == AK_UPDISCON && e->pend_ret) {
        k->irreport = 1;
        k->irdepth = fixed ? e->pend_count : e->pend_depth;
    } else if (kind != AK_UPDISCON && e->ret_since_branch && (fixed || kind != AK_NOTIFY)) {
        k->irreport = 1;
        k->irdepth = fixed ? e->seg_implicit : depth_now;
    }
}

static int bits_len(struct et_encoder *e, struct et_packet *k, unsigned *n)
{
    struct et_bits b;
    int rc = et_pkt_bits(&e->p, k, &b, &e->diag);
    if (rc < 0)
        return rc;
    *n = et_bits_compressed_len(&b);
    return 0;
}

static int send_address_at(struct et_encoder *e, uint64_t addr, enum akind kind, bool updiscon, uint64_t time,
                           unsigned depth_now);

/* decoder.adoc's is_implicit_return takes the first return that the walk
 * from the last packet meets at the packet's stack depth for the one the
 * packet reports:
 *     if ((te_inst.irreport != get_preceding_bit(te_inst, "irreport")) and
 *          te_inst.irdepth == irstack_depth)
 *       return FALSE
 * and its stop before a format 3 tests the same depth.  So an implicit
 * return since the last packet from that depth (recursion; a call after
 * the return) is reported first, as a notification at its target with the
 * branches up to there; the packet then carries the branches after.
 * (payload.adoc's "the entry number of the return that failed" does not
 * say which of two such returns: spec issue 254.)  A branch count (branch
 * prediction, format 0) cannot be cut there: then only a return after the
 * last branch is, and rvtrace's decoder applies irdepth once the packet's
 * branches are used, which keeps the trace lossless (decoder.adoc assumes
 * no branch predictor). */
static int report_earlier_return(struct et_encoder *e, unsigned depth)
{
    const struct ir_ret r = e->ir_rets[depth];
    const bool whole = r.gen == e->gen; /* no branch since: the notification takes them all */
    const unsigned nb = e->branches;
    const uint32_t map = e->map, miss = e->miss;
    if (!whole) {
        if (e->pbc || e->bp_fail || r.branches > nb)
            return 0;
        e->branches = r.branches;
        e->map = map & (uint32_t)mask64(r.branches);
        e->miss = miss & (uint32_t)mask64(r.branches);
    }
    /* what the packet after it reports */
    const bool since = e->ret_since_branch, pend = e->pend_ret;
    const unsigned pend_depth = e->pend_depth, pend_count = e->pend_count, seg = e->seg_implicit;
    int rc = send_address_at(e, r.target, AK_NOTIFY, false, r.time, depth - 1);
    if (rc < 0)
        return rc;
    e->ret_since_branch = since;
    e->pend_ret = pend;
    e->pend_depth = pend_depth;
    e->pend_count = pend_count;
    e->seg_implicit = seg;
    if (!whole) {
        e->branches = nb - r.branches;
        e->map = map >> r.branches;
        e->miss = miss >> r.branches;
        e->all_correct = e->miss == 0;
    }
    return 0;
}

/* Report `addr` (the current instruction) with the unreported branches. */
static int send_address_at(struct et_encoder *e, uint64_t addr, enum akind kind, bool updiscon, uint64_t time,
                           unsigned depth_now)
{
    struct et_packet k;
    memset(&k, 0, sizeof k);
    k.notify = kind == AK_NOTIFY;
    k.updiscon = updiscon;
    set_ir(e, &k, kind, depth_now);
    bool v026 = e->p.version == ET_V0_026;
    int rc;
    if (k.irreport && k.irdepth && e->ir_rets && e->p.disambiguate && e->ir_rets[k.irdepth].pgen == e->pgen &&
        (rc = report_earlier_return(e, k.irdepth)) < 0)
        return rc;

    /* The jump target cache is consulted for every reported uninferable target. */
    bool jtc_hit = false;
    unsigned index = 0;
    if (kind == AK_UPDISCON && e->p.jump_target_cache)
        jtc_hit = et_jtc_lookup_update(&e->jtc, addr, &index);

    if (e->pbc >= 31) {
        /* branch-count mode: format 0 subformat 0 with address */
        k.format = ET_F0;
        k.subformat = ET_SF0_BPRED;
        k.branch_count = (uint32_t)(e->pbc - 31);
        k.branch_fmt = e->bp_fail ? ET_BFMT_ADDR_FAIL : ET_BFMT_ADDR;
        k.address = addr_field(e, addr, e->p.full_address);
    } else if (v026) {
        if (e->branches) {
            k.branches = (uint8_t)e->branches;
            k.branch_map = e->map;
            k.format = ET_F1;
            k.address = addr_field(e, addr, false);
            if (e->p.full_address) {
                k.format = ET_F0;
                k.address = addr_field(e, addr, true);
            } else {
                /* format 0 carries the full address: use it when shorter */
                struct et_packet full = k;
                full.format = ET_F0;
                full.address = addr_field(e, addr, true);
                unsigned a, b;
                if ((rc = bits_len(e, &k, &a)) < 0 || (rc = bits_len(e, &full, &b)) < 0)
                    return rc;
                if (b < a)
                    k = full;
            }
        } else {
            k.format = ET_F2;
            k.address = addr_field(e, addr, e->p.full_address);
        }
    } else {
        if (e->branches) {
            k.format = ET_F1;
            k.branches = (uint8_t)e->branches;
            k.branch_map = e->map;
        } else {
            k.format = ET_F2;
        }
        k.address = addr_field(e, addr, e->p.full_address);
        if (jtc_hit && !k.notify && !k.updiscon) {
            struct et_packet j;
            memset(&j, 0, sizeof j);
            j.format = ET_F0;
            j.subformat = ET_SF0_JTC;
            j.index = index;
            j.branches = (uint8_t)e->branches;
            j.branch_map = e->map;
            j.irreport = k.irreport;
            j.irdepth = k.irdepth;
            unsigned a, b;
            if ((rc = bits_len(e, &k, &a)) < 0 || (rc = bits_len(e, &j, &b)) < 0)
                return rc;
            if (b <= a)
                k = j;
        }
    }
    rc = send(e, &k, time);
    if (rc < 0)
        return rc;
    e->last_addr = addr;
    e->last_inferred = kind != AK_UPDISCON;
    e->pkt_addr_valid = true;
    e->pkt_addr = addr;
    map_reset(e);
    seg_reset(e);
    return 0;
}

static int send_address(struct et_encoder *e, uint64_t addr, enum akind kind, bool updiscon, uint64_t time)
{
    /* payload.adoc, format 1/2 notify: "If the value of this bit is
     * different from the MSB of address, it indicates that this packet is
     * reporting an instruction that is not the target of an uninferable
     * discontinuity because a notification was requested via trigger[2]".
     * So a repeat of the last reported address is an ordinary packet when
     * branch outcomes come with it: they show that execution went round (the
     * reference model's resync packets).  Only a repeat with no decision since
     * the last report is a re-entry into code run since then, which
     * --disambiguate reports as a notification like every other such
     * re-entry (see the window below); without it the repeat would read as the
     * reference model's duplicate final packet. */
    if (kind == AK_INFERRED && addr == e->last_addr && e->p.version == ET_V2_0 && e->packets &&
        e->p.disambiguate && !e->branches && !e->pbc && !e->bp_fail)
        kind = AK_NOTIFY;
    return send_address_at(e, addr, kind, updiscon, time, e->cs ? e->cs->count : 0);
}

/* Format 1 without address (full map) or format 0.0 without address. */
static int send_branches_only(struct et_encoder *e, uint64_t time)
{
    struct et_packet k;
    memset(&k, 0, sizeof k);
    if (e->bp_fail) {
        k.format = ET_F0;
        k.subformat = ET_SF0_BPRED;
        k.branch_count = (uint32_t)(e->pbc - 31);
        k.branch_fmt = ET_BFMT_NOADDR;
    } else {
        k.format = ET_F1;
        k.branches = 0; /* 31 branches, no address */
        k.branch_map = e->map;
        /* 0.026: the format code says full (00) or differential (01); an
         * encoder "configured to only use full-address" (seed 001 table
         * 6.2) sends no format 01, even where "the address is invalid"
         * (table 6.1, branches = 0) */
        if (e->p.version == ET_V0_026 && e->p.full_address)
            k.format = ET_F0;
    }
    int rc = send(e, &k, time);
    if (rc < 0)
        return rc;
    map_reset(e);
    e->gen++; /* branches reported: earlier returns can no longer be confused */
    e->pgen++;
    e->ret_since_branch = false;
    return 0;
}

/* ---- branches -------------------------------------------------------------- */

static void add_branch(struct et_encoder *e, uint64_t addr, bool taken)
{
    /* a branch after implicit returns separates them from later reports
     * (the decoder only counts returns once all reported branches are used) */
    e->ret_since_branch = false;
    e->seg_implicit = 0;
    e->nwin_r = 0;
    e->win_full = false;
    e->gen++;
    if (!e->p.branch_prediction) {
        if (!taken)
            e->map |= 1u << e->branches;
        e->branches++;
        return;
    }
    bool pred = et_bpred_predict(&e->bp, addr);
    et_bpred_update(&e->bp, addr, taken);
    bool ok = pred == taken;
    if (!ok && e->pbc < 31)
        e->miss |= 1u << e->branches;
    if (e->pbc >= 31) {
        if (ok)
            e->pbc++;
        else
            e->bp_fail = true;
        return;
    }
    if (!taken)
        e->map |= 1u << e->branches;
    e->branches++;
    e->all_correct &= ok;
    if (e->branches == 31 && e->all_correct) {
        /* 31 correct predictions: count instead of mapping */
        e->pbc = 31;
        e->branches = 0;
        e->map = 0;
    }
}

/* ---- the window of code run since the last branch or address ------------- */

static void win_add(struct et_encoder *e, uint64_t lo, uint64_t hi)
{
    unsigned tag = e->p.implicit_return == ET_IR_FIXED ? e->seg_implicit : 0;
    if (e->nwin_r) {
        /* extend the last range when contiguous */
        struct win_range *w = &e->seen[e->nwin_r - 1];
        if (w->tag == tag && lo <= w->hi + 4 && hi + 4 >= w->lo) {
            if (lo < w->lo)
                w->lo = lo;
            if (hi > w->hi)
                w->hi = hi;
            return;
        }
    }
    if (e->nwin_r == sizeof e->seen / sizeof e->seen[0]) {
        e->win_full = true;
        return;
    }
    e->seen[e->nwin_r].lo = lo;
    e->seen[e->nwin_r].hi = hi;
    e->seen[e->nwin_r].tag = tag;
    e->nwin_r++;
}

static bool win_hits(const struct et_encoder *e, uint64_t lo, uint64_t hi)
{
    if (e->win_full)
        return true;
    unsigned tag = e->p.implicit_return == ET_IR_FIXED ? e->seg_implicit : 0;
    for (unsigned i = 0; i < e->nwin_r; i++)
        if (e->seen[i].tag == tag && lo <= e->seen[i].hi && hi >= e->seen[i].lo)
            return true;
    return false;
}

/* ---- the algorithm --------------------------------------------------------- */

static bool ctx_reported(const struct et_encoder *e)
{
    return et_ctx_bits(&e->p) != 0;
}

/* Privilege change, or context change to report precisely (or as an
 * asynchronous discontinuity): needs a sync packet at `c`.  In the 0.026
 * draft a trace-notify trigger ("trace single", seed 001 table 4.1: a
 * synchronisation point is recorded) is one too: the draft has no notify
 * bit, and an address packet at an instruction that is not the target of
 * an uninferable jump would read as one. */
static bool ppccd(const struct et_encoder *e, const struct ent *prev, const struct ent *c)
{
    if (!prev)
        return false;
    if (c->priv != prev->priv)
        return true;
    if (e->p.version == ET_V0_026 && c->notify)
        return true;
    return ctx_reported(e) && c->context != prev->context && c->ctype >= RVT_CTYPE_PRECISE;
}

static bool pending_branches(const struct et_encoder *e)
{
    return e->branches || e->pbc || e->bp_fail || e->ret_since_branch;
}

/* An uninferable discontinuity by its class (before implicit-return and
 * sequentially-inferable refinements). */
static bool uninferable_itype(const struct ent *c)
{
    if (!c->retired)
        return false;
    switch (c->itype) {
    case RVT_ITYPE_TRAPRET:
    case RVT_ITYPE_UNINF_JUMP3:
    case RVT_ITYPE_CALL_UNINF:
    case RVT_ITYPE_JUMP_UNINF:
    case RVT_ITYPE_COSWAP:
    case RVT_ITYPE_RETURN:
    case RVT_ITYPE_OTHER_UNINF:
        return true;
    default:
        return false;
    }
}

static bool mispredicted_ret(const struct et_encoder *e, const struct ent *c, const struct ent *n);

/* Will the packet after one reporting the uninferable target c be a format
 * 3 sync or trap packet?  That is when payload.adoc sets updiscon: "the
 * instruction following an uninferable discontinuity and is also the
 * instruction before an exception, privilege change or resync (i.e. it will
 * be followed immediately by a format 3 te_inst)".  The end of tracing is
 * not among them: the support packet's qual_status says it (ended_ntr, see
 * step), as the spec's encoder without early access to the filter results
 * does ("a different mechanism is required, and that is provided by having
 * two codes").  A resync that waits for a mispredicted return (see
 * mispredicted_ret) does not follow at once either. */
static bool next_is_f3(const struct et_encoder *e, const struct ent *c, const struct ent *n)
{
    if (c->retired && is_trap(c->itype))
        return true;
    if (!n || !n->qualified)
        return false;
    if (!n->retired && is_trap(n->itype))
        return true;
    if (ppccd(e, c, n))
        return true;
    if (e->resync_max && e->resync_count >= e->resync_max && !mispredicted_ret(e, c, n))
        return true;
    return false;
}

/* Will c's successor be an uninferable target (what the bookkeeping at the
 * end of step() decides, without its side effects)? */
static bool will_updiscon(const struct et_encoder *e, const struct ent *c, const struct ent *n)
{
    if (!c->retired || !uninferable_itype(c))
        return false;
    bool sij = c->sijump && e->p.sijump && !c->synced;
    if (c->itype == RVT_ITYPE_TRAPRET)
        return true;
    if (c->itype != RVT_ITYPE_RETURN)
        return !sij;
    if (e->cs && e->ir_on && e->cs->count) {
        uint64_t top;
        rvt_cs_peek(e->cs, &top);
        bool room = e->p.implicit_return != ET_IR_FIXED || e->seg_implicit < e->ir_max;
        return !(n && top == n->addr && room);
    }
    return !sij;
}

/* A return the implicit-return stack predicts wrongly (its successor is
 * reported with irreport).  A format 3 has no irreport, so a resync sync
 * right after such a return would leave the decoder's walk to it with the
 * stack's prediction: the resync waits one packet (the return's target is
 * reported with format 1/2), and the resync's "branches first" packet is
 * not sent at the return (a format 1 at the return not followed by a format
 * 3 would read as an uninferable target; the target's packet carries the
 * branches).  A sync packet that follows a packet reporting a return's own
 * address (a privilege or precise context change right after it) is always
 * at that return's successor: the decoder takes such a return as resolved
 * by the sync address. */
static bool mispredicted_ret(const struct et_encoder *e, const struct ent *c, const struct ent *n)
{
    return c->retired && c->itype == RVT_ITYPE_RETURN && e->cs && e->ir_on && e->cs->count &&
           will_updiscon(e, c, n);
}

static bool after_misret(const struct ent *prev)
{
    return prev && prev->updiscon && prev->misret;
}

static int step(struct et_encoder *e, struct ent *prev, struct ent *c, struct ent *n, bool last)
{
    int rc = 0;
    if (!c->qualified)
        return 0;
    const bool v026 = e->p.version == ET_V0_026;
    if (!e->started) {
        e->started = true;
        if ((rc = send_support(e, true, ET_QUAL_NO_CHANGE)) < 0)
            return rc;
    }
    if (e->lost_sent) {
        /* The sink took the trace_lost support packet: tracing resumes
         * here with a sync packet (the decoder knows nothing before it). */
        e->fr.hold = false;
        e->lost_sent = false;
        e->tracing = false;
    }
    const bool is_branch = c->retired && (c->itype == RVT_ITYPE_TAKEN || c->itype == RVT_ITYPE_NOT_TAKEN);
    if (is_branch && e->tracing)
        add_branch(e, c->addr, c->itype == RVT_ITYPE_TAKEN);
    if (prev && !prev->qualified)
        prev = NULL;
    const bool first = !e->tracing || !prev;
    const bool exc_only = !c->retired && is_trap(c->itype);
    const bool prev_upd = prev && prev->updiscon;
    bool handled = false;
    bool inferred = false; /* c was reported by a packet not following an uninferable discontinuity */

    if (!first && is_trap(prev->itype)) {
        if (exc_only) {
            /* a second trap before the handler's first instruction: report
             * the first one now, unless its EPC packet did (then this one is
             * reported with its own handler).  The 0.026 draft has no thaddr;
             * it wants every trap traced with "the next valid instruction
             * address (the first of the interrupt or exception handler)"
             * (seed 001, 2.1.4): the first trap's packet carries its handler
             * address, where the second trap was taken; the decoder knows it
             * did not retire because another trap packet follows at once. */
            if (v026)
                rc = send_trap(e, c, prev, true);
            else if (!prev->trap_epc)
                rc = send_trap(e, c, prev, false);
        } else if (prev->trap_epc) {
            rc = send_start(e, c);
        } else {
            rc = send_trap(e, c, prev, true);
            /* 0.026: the handler's first instruction retired and then
             * trapped: "the final instruction executed beforehand must be
             * traced" (2.1.4), so repeat its address, which also tells this
             * case from a trap taken before it retired (above). */
            bool traps_next = (c->retired && is_trap(c->itype)) ||
                              (n && n->qualified && !n->retired && is_trap(n->itype));
            if (rc >= 0 && v026 && traps_next)
                rc = send_address(e, c->addr, AK_INFERRED, false, c->time);
        }
        handled = true;
    } else if (exc_only) {
        if ((first || prev_upd) && !v026) {
            /* exception at the target of an uninferable jump, or a trap as
             * the first traced event (its record qualified, the code before
             * it not): the EPC (payload.adoc, thaddr) */
            rc = send_trap(e, c, c, false);
            c->trap_epc = true;
        }
        handled = true;
    } else if (first || ppccd(e, prev, c) ||
               (e->resync_max && e->resync_count > e->resync_max && !after_misret(prev))) {
        /* A 0.026 trace-notify start (nothing else changes there and no
         * resync is due) leaves the resync count running: the periodic
         * resyncs stay where the period puts them, so the decoder can tell
         * one that comes early (packets lost) from a notification. */
        bool notify_only = v026 && !first && c->notify && c->priv == prev->priv &&
                           !(ctx_reported(e) && c->context != prev->context) &&
                           !(e->resync_max && e->resync_count > e->resync_max);
        uint64_t count = e->resync_count;
        rc = send_start(e, c);
        if (notify_only)
            e->resync_count = count + 1;
        handled = true;
    }
    if (rc < 0)
        return rc;

    if (!handled && prev_upd) {
        bool upd = next_is_f3(e, c, n);
        if (v026 && upd) {
            /* 0.026 has no updiscon bit: an address followed by a format 3 is
             * taken as the last instruction before it, so repeat the address. */
            if ((rc = send_address(e, c->addr, AK_UPDISCON, false, c->time)) < 0)
                return rc;
            rc = send_address(e, c->addr, AK_INFERRED, false, c->time);
            inferred = true;
        } else {
            rc = send_address(e, c->addr, AK_UPDISCON, upd, c->time);
            e->upd_open = !upd;
        }
        c->reported = true;
        handled = true;
    } else if (!handled) {
        /* The resync's "format 0/1 packet for the preceding instruction"
         * (exampleAlgorithm.adoc): the sync packet goes to the next entry,
         * so only at the last instruction of a record, whose successor is
         * that entry (the first of a multi-instruction record is followed
         * by instructions an ingress block does not show one by one). */
        bool resync_br = e->resync_max && e->resync_count == e->resync_max && pending_branches(e) &&
                         c->last_of_rec && !mispredicted_ret(e, c, n);
        bool er_n = c->retired && is_trap(c->itype);
        bool next_exc_only = n && n->qualified && !n->retired && is_trap(n->itype);
        bool next_async = n && ctx_reported(e) && n->context != c->context && n->ctype == RVT_CTYPE_ASYNC;
        /* Before a sync for a privilege or precise context change, report
         * this instruction if the decoder could not otherwise tell where the
         * path to the sync address ends: branches or implicit returns to
         * report (the reference algorithm's ppccd_br), and, the
         * --disambiguate extension, an uninferable jump that keeps the
         * privilege (a fall-through arrival at its target would look the
         * same) or an uninferable target reported just before without the
         * updiscon flag (looplabel case 1 read as case 3), or a return
         * reported by the last packet (see mispredicted_ret). */
        bool ppccd_br = n && ppccd(e, c, n) &&
                        (pending_branches(e) ||
                         (e->p.disambiguate && (e->upd_open || (uninferable_itype(c) && n->priv == c->priv))) ||
                         e->pkt_ret);
        if (resync_br || er_n || next_exc_only || next_async || ppccd_br) {
            rc = send_address(e, c->addr, AK_INFERRED, false, c->time);
            c->reported = true;
            inferred = true;
            handled = true;
        } else if (e->bp_fail || e->branches == 31) {
            /* a full map at the last traced instruction goes with its
             * address (branches = 31) in the final packet instead */
            if (!(n ? !n->qualified : last))
                rc = send_branches_only(e, c->time);
        } else if (e->pbc >= 31 && e->pbc - 31 == 0xffffffffu) {
            /* the branch count is at its maximum: report with an address */
            rc = send_address(e, c->addr, AK_INFERRED, false, c->time);
            c->reported = true;
            inferred = true;
            handled = true;
        }
        if (rc < 0)
            return rc;
        if (!handled && prev && ctx_reported(e) && c->context != prev->context &&
            c->ctype == RVT_CTYPE_IMPRECISE)
            rc = send_context(e, c);
    }
    if (rc < 0)
        return rc;

    /* Execution about to re-enter code already run since the last branch
     * or address: a later report there would be ambiguous (a loop without
     * decisions, a function called twice); report this instruction. */
    if (c->retired && c->last_of_rec) {
        if (!c->reported && !is_branch)
            win_add(e, c->rec_lo, c->rec_hi);
        /* (an uninferable jump reports its target anyway) */
        if (!c->reported && !v026 && e->p.disambiguate && n && n->retired && n->qualified &&
            !will_updiscon(e, c, n) && win_hits(e, n->rec_lo, n->rec_hi)) {
            if ((rc = send_address(e, c->addr, AK_NOTIFY, false, c->time)) < 0)
                return rc;
            c->reported = true;
            inferred = true;
        }
    } else if (c->retired && c->reported && c->rec_hi > c->addr) {
        /* first instruction of a block reported: the rest is still ahead */
        win_add(e, c->addr + 2, c->rec_hi);
    }

    /* Trace-notify trigger (ingress port trigger value 4): report this
     * instruction explicitly, with notify != address[MSB] (payload.adoc). */
    if (c->notify && !c->reported && c->retired) {
        if ((rc = send_address(e, c->addr, AK_NOTIFY, false, c->time)) < 0)
            return rc;
        c->reported = true;
        inferred = true;
    }

    /* what a sync packet right after this one may rely on (see mispredicted_ret) */
    c->misret = mispredicted_ret(e, c, n);
    if (e->pkt_addr_valid && e->pkt_addr == c->addr && c->retired && c->itype == RVT_ITYPE_RETURN)
        e->pkt_ret = true;

    /* End of tracing: report the final instruction, then say so. */
    if (n ? !n->qualified : last) {
        /* ended_rep: the preceding packet was sent only because tracing
         * ends (it does not follow an uninferable discontinuity) */
        unsigned qual = (inferred || (!c->reported && e->last_inferred)) ? ET_QUAL_ENDED_REP : ET_QUAL_ENDED_NTR;
        if (!c->reported && c->retired) {
            if ((rc = send_address(e, c->addr, AK_INFERRED, false, c->time)) < 0)
                return rc;
            c->reported = true;
            qual = ET_QUAL_ENDED_REP;
        }
        /* the data of the final instruction goes before the end of tracing */
        if ((rc = emit_data(e, c)) < 0)
            return rc;
        /* (nothing to end when nothing was traced: a lone trap in 0.026,
         * which cannot report a trap without its handler) */
        if (e->tracing && (rc = send_support(e, !last, qual)) < 0)
            return rc;
        e->tracing = false;
        return 0;
    }

    /* Calls and returns: what makes the next instruction an uninferable target. */
    c->updiscon = false;
    if (!c->retired)
        return 0;
    unsigned it = c->itype;
    bool sij = c->sijump && e->p.sijump && !c->synced;
    uint64_t tmp;
    switch (it) {
    case RVT_ITYPE_TRAPRET:
        c->updiscon = true;
        break;
    case RVT_ITYPE_UNINF_JUMP3:
    case RVT_ITYPE_JUMP_UNINF:
    case RVT_ITYPE_OTHER_UNINF:
        c->updiscon = !sij;
        break;
    case RVT_ITYPE_CALL_UNINF:
        c->updiscon = !sij;
        if (e->cs)
            rvt_cs_push(e->cs, c->next);
        break;
    case RVT_ITYPE_CALL_INF:
        if (e->cs)
            rvt_cs_push(e->cs, c->next);
        break;
    case RVT_ITYPE_COSWAP:
        /* "The counter increments on calls (but not tail calls), and
         * decrements on returns (see <<JumpClasses>> for definitions)"
         * (branchTrace.adoc): a swap is neither (decoder.adoc's is_call,
         * which pushes for `jalr x1, x5`, reads jalr's rd alone). */
        c->updiscon = !sij;
        break;
    case RVT_ITYPE_RETURN: {
        uint64_t top;
        bool have_target = n != NULL;
        if (e->cs && e->ir_on && e->cs->count) {
            unsigned depth = e->cs->count;
            rvt_cs_peek(e->cs, &top);
            bool fixed = e->p.implicit_return == ET_IR_FIXED;
            bool room = !fixed || e->seg_implicit < e->ir_max;
            if (have_target && top == n->addr && room) {
                /* implicit: not reported */
                rvt_cs_pop(e->cs, &tmp);
                e->seg_implicit++;
                e->ret_since_branch = true;
                if (e->ir_rets) {
                    struct ir_ret *ir = &e->ir_rets[depth];
                    ir->gen = e->gen;
                    ir->pgen = e->pgen;
                    ir->target = n->addr;
                    ir->time = n->time;
                    ir->branches = (uint8_t)(e->branches + (n->retired && (n->itype == RVT_ITYPE_TAKEN ||
                                                                            n->itype == RVT_ITYPE_NOT_TAKEN)));
                }
                break;
            }
            c->updiscon = true;
            e->pend_ret = true;
            e->pend_depth = depth;
            e->pend_count = e->seg_implicit;
            if (e->pop_explicit)
                rvt_cs_pop(e->cs, &tmp);
            break;
        }
        /* empty (or no) stack: the flow engine infers it when sequentially inferable */
        c->updiscon = !sij;
        if (sij && e->cs && e->pop_explicit)
            rvt_cs_pop(e->cs, &tmp);
        break;
    }
    default:
        break;
    }
    return 0;
}

/* ---- filters ------------------------------------------------------------------- */

static bool cause_match(const struct et_params *p, const struct rvt_ing_rec *r)
{
    for (unsigned i = 0; i < p->n_causes; i++)
        if (p->cause[i] == r->cause && p->cause_interrupt[i] == (r->itype == RVT_ITYPE_INTERRUPT))
            return true;
    return false;
}

static bool qualify(struct et_encoder *e, const struct rvt_ing_rec *r)
{
    const struct et_params *p = &e->p;
    bool q = !(r->flags & RVT_ING_UNQUALIFIED); /* filtered out upstream */
    if (p->n_ranges) {
        uint64_t lo = r->iaddr, hi = r->iretire ? rvt_ing_last_addr(r) : r->iaddr;
        bool any = false;
        for (unsigned i = 0; i < p->n_ranges && !any; i++)
            any = lo <= p->range[i].hi && hi >= p->range[i].lo;
        q = any;
    }
    if (p->priv_mask && r->priv < 32 && !((p->priv_mask >> r->priv) & 1u))
        q = false;
    if (p->n_causes) {
        /* trace the handlers of the selected causes, up to their trap return */
        bool in = e->handler_depth && ((e->handler_bits >> (e->handler_depth - 1)) & 1u);
        if (is_trap(r->itype)) {
            /* the block before the trap keeps the current level */
            bool cq = in;
            if (e->handler_depth < 32) {
                bool m = cause_match(p, r);
                e->handler_bits = (e->handler_bits & ~(1u << e->handler_depth)) | ((m ? 1u : 0u) << e->handler_depth);
                e->handler_depth++;
                cq = cq || (r->iretire == 0 && m);
            }
            q = q && cq;
        } else if (r->itype == RVT_ITYPE_TRAPRET) {
            q = q && in;
            if (e->handler_depth)
                e->handler_depth--;
        } else {
            q = q && in;
        }
    }
    return q;
}

/* ---- record intake -------------------------------------------------------------- */

static int push_ent(struct et_encoder *e, const struct ent *x)
{
    if (e->nwin == 3) {
        e->win[0] = e->win[1];
        e->win[1] = e->win[2];
        e->nwin = 2;
    }
    e->win[e->nwin++] = *x;
    if (e->nwin >= 2) {
        struct ent *prev = e->nwin == 3 ? &e->win[0] : NULL;
        struct ent *cur = &e->win[e->nwin - 2];
        int rc = step(e, prev, cur, &e->win[e->nwin - 1], false);
        if (rc < 0 || (rc = emit_data(e, cur)) < 0)
            return rc;
    }
    return 0;
}

/* With the program known: a traced data instruction whose record has no
 * access would leave the decoder waiting for a packet that never comes. */
static int data_check(struct et_encoder *e, const struct rvt_ing_rec *r, const struct ent *x)
{
    if (!e->p.d.image || x->has_da || !x->qualified)
        return 0;
    struct rvt_insn in;
    if (rvt_img_insn(e->p.d.image, x->addr, &in) < 0)
        return 0;
    unsigned cls = et_dclass_of_isa(rvt_isa_data_access(&in));
    if (!cls || !et_dtraced(&e->p.d, cls, x->addr))
        return 0;
    char text[96];
    rvt_isa_disasm(&in, e->p.xlen, text, sizeof text);
    return rvt_fail(&e->diag, RVT_ERR_INVAL,
                    "the data access of '%s' at 0x%" PRIx64 " is not in the ingress record (record flags 0x%x): data "
                    "trace needs accesses in the input (rvtrace gen --data, rvtrace capture --mem)",
                    text, x->addr, r->flags);
}

/* Data trace without instruction trace: every record's access, in order. */
static int data_only_put(struct et_encoder *e, const struct rvt_ing_rec *r)
{
    int rc;
    if (!e->started) {
        e->started = true;
        if ((rc = send_support(e, true, ET_QUAL_NO_CHANGE)) < 0)
            return rc;
    }
    if (e->lost_sent) {
        e->fr.hold = false; /* the trace_lost packet went out: continue */
        e->lost_sent = false;
    }
    struct et_access a;
    bool has;
    if ((rc = et_access_from_rec(&e->p.d, r, &a, &has, &e->diag)) < 0 || !has)
        return rc;
    uint64_t iaddr = r->iretire ? rvt_ing_last_addr(r) : r->iaddr;
    if ((r->flags & RVT_ING_UNQUALIFIED) || !et_dtraced(&e->p.d, et_dclass_of_dtype(a.dtype), iaddr) ||
        !et_dtraced_addr(&e->p.d, &a))
        return 0;
    return send_access(e, &a);
}

static uint8_t map_itype(const struct et_params *p, uint8_t it)
{
    if (p->itype_width_p != 3)
        return it;
    switch (it) {
    case RVT_ITYPE_CALL_UNINF:
    case RVT_ITYPE_JUMP_UNINF:
    case RVT_ITYPE_COSWAP:
    case RVT_ITYPE_RETURN:
    case RVT_ITYPE_OTHER_UNINF:
        return RVT_ITYPE_UNINF_JUMP3;
    case RVT_ITYPE_CALL_INF:
    case RVT_ITYPE_JUMP_INF:
    case RVT_ITYPE_OTHER_INF:
        return RVT_ITYPE_NONE;
    default:
        return it;
    }
}

static bool put_quiet(struct et_encoder *e, const struct rvt_ing_rec *r);

int et_enc_put(struct et_encoder *e, const struct rvt_ing_rec *r)
{
    if (put_quiet(e, r))
        return 0;
    if (e->diag.code)
        return -e->diag.code;
    if (e->finished)
        return rvt_fail(&e->diag, RVT_ERR_INVAL, "record after the end of the trace");
    e->records++;
    if (e->p.d.mode == ET_DATA_ONLY)
        return data_only_put(e, r);
    if (r->iretire == 0 && !is_trap(r->itype)) {
        if (rvt_ing_dtype(r) >= 0 && e->p.d.mode == ET_DATA_ON)
            return rvt_fail(&e->diag, RVT_ERR_INVAL,
                            "a data access without an instruction (a data-only input?): encode it with --data-trace only");
        return 0;
    }
    if (r->iretire && r->iretire < (1u << r->ilastsize))
        return rvt_fail(&e->diag, RVT_ERR_INVAL, "iretire %" PRIu32 " halfwords is shorter than its last instruction",
                        r->iretire);
    if (r->itype == 7 || (r->itype == RVT_ITYPE_UNINF_JUMP3 && e->p.itype_width_p == 4) || r->itype > 15)
        return rvt_fail(&e->diag, RVT_ERR_INVAL, "itype %u is reserved", r->itype);
    if (r->priv >> e->p.privilege_width_p)
        return rvt_fail(&e->diag, RVT_ERR_OVERFLOW, "privilege %u does not fit privilege_width_p = %u", r->priv,
                        e->p.privilege_width_p);
    if (et_ctx_bits(&e->p) && et_ctx_bits(&e->p) < 64 && (r->context >> et_ctx_bits(&e->p)))
        return rvt_fail(&e->diag, RVT_ERR_OVERFLOW, "context 0x%" PRIx64 " does not fit context_width_p = %u",
                        r->context, e->p.context_width_p);
    /* Every address a packet may report (the first and last instruction
     * of a record, the EPC of a trap) must fit the address field: its width
     * and its alignment, iaddress_lsb_p bits are not sent.  A stream that
     * cannot represent them would decode with errors far from the cause. */
    uint64_t last = r->iretire ? rvt_ing_last_addr(r) : r->iaddr;
    if (((r->iaddr | last) & e->addr_bad) != 0) {
        uint64_t a = (r->iaddr & e->addr_bad) ? r->iaddr : last;
        if (e->p.iaddress_width_p < 64 && (a >> e->p.iaddress_width_p))
            return rvt_fail(&e->diag, RVT_ERR_OVERFLOW, "address 0x%" PRIx64 " wider than iaddress_width_p = %u",
                            a, e->p.iaddress_width_p);
        return rvt_fail(&e->diag, RVT_ERR_INVAL,
                        "instruction address 0x%" PRIx64 " is not a multiple of %u: iaddress_lsb_p = %u cannot "
                        "represent it (code with compressed instructions needs iaddress_lsb_p <= 1)",
                        a, 1u << e->p.iaddress_lsb_p, e->p.iaddress_lsb_p);
    }
    bool q = qualify(e, r);
    struct ent x;
    memset(&x, 0, sizeof x);
    x.tval = r->tval;
    x.context = r->context;
    uint8_t ctype = r->ctype;
    bool ctx_notify = false;
    if (e->p.version == ET_V0_026) {
        /* The draft's context_type values (seed 001 table 3.3) differ from
         * 2.0's ctype: 0 context change with discontinuity ("treated the
         * same as an exception"), 1 precise, 2 imprecise ("reported without
         * any address information"), 3 notification ("output the address of
         * the watchpoint instruction ... The context itself is not
         * output"). */
        static const uint8_t draft[4] = {RVT_CTYPE_ASYNC, RVT_CTYPE_PRECISE, RVT_CTYPE_IMPRECISE,
                                         RVT_CTYPE_UNREPORTED};
        ctype = draft[r->ctype & 3];
        if ((r->ctype & 3) == 3 && e->have_ctx && r->context != e->last_ctx) {
            ctx_notify = r->iretire != 0;
            x.context = e->last_ctx;
        }
    }
    e->last_ctx = x.context;
    e->have_ctx = true;
    x.time = (r->flags & RVT_ING_HAS_TIME) ? r->time & mask64(et_time_bits(&e->p)) : 0;
    x.has_time = (r->flags & RVT_ING_HAS_TIME) != 0;
    x.cause = r->cause;
    x.priv = r->priv;
    x.qualified = q;
    x.rec_lo = r->iaddr;
    x.rec_hi = last;
    uint8_t itype = map_itype(&e->p, r->itype);
    if (r->iretire > (1u << r->ilastsize)) {
        /* first instruction of a multi-instruction block */
        x.addr = r->iaddr;
        x.itype = RVT_ITYPE_NONE;
        x.retired = true;
        x.ctype = ctype;
        int rc = push_ent(e, &x);
        if (rc < 0)
            return rc;
        x.ctype = 0;
    } else {
        x.ctype = ctype;
    }
    x.retired = r->iretire != 0;
    x.last_of_rec = true;
    x.addr = r->iretire ? rvt_ing_last_addr(r) : r->iaddr;
    x.next = rvt_ing_next_addr(r);
    x.itype = itype;
    x.sijump = rvt_ing_sijump(r);
    x.notify = ((r->flags & RVT_ING_NOTIFY) != 0 || ctx_notify) && x.retired;
    if (e->p.d.mode == ET_DATA_ON && x.retired) {
        int rc = et_access_from_rec(&e->p.d, r, &x.da, &x.has_da, &e->diag);
        if (rc < 0 || (rc = data_check(e, r, &x)) < 0)
            return rc;
    }
    return push_ent(e, &x);
}

/* The lowest address above `a` where a range of code run since the last
 * packet (win_hits' ranges: the current implicit-return tag) may be hit:
 * a sequential run from `a` up re-enters that code no earlier. */
static uint64_t seen_from(const struct et_encoder *e, uint64_t a)
{
    const unsigned tag = e->p.implicit_return == ET_IR_FIXED ? e->seg_implicit : 0;
    uint64_t at = UINT64_MAX;
    for (unsigned k = 0; k < e->nwin_r; k++) {
        const struct win_range *w = &e->seen[k];
        if (w->tag == tag && w->hi > a) {
            const uint64_t from = w->lo > a ? w->lo : a + 1;
            if (from < at)
                at = from;
        }
    }
    return at;
}

/* The ent of a plain record (one instruction, no flags) as
 * et_enc_put makes it, E-Trace 2.0, qualified: what a run of them leaves
 * in the window (et_enc_put_plain). */
static void plain_ent(struct ent *x, const struct rvt_ing_rec *r)
{
    memset(x, 0, sizeof *x);
    x->tval = r->tval;
    x->context = r->context;
    x->cause = r->cause;
    x->priv = r->priv;
    x->ctype = r->ctype;
    x->itype = r->itype;
    x->qualified = true;
    x->retired = true;
    x->last_of_rec = true;
    x->addr = x->rec_lo = x->rec_hi = r->iaddr;
    x->next = rvt_ing_next_addr(r);
}

/* The last conditional branch itype a quiet record may end with: a
 * branch's outcome goes into the map, unless branch prediction decides. */
static unsigned quiet_branch_max(const struct et_params *p)
{
    return p->branch_prediction ? RVT_ITYPE_NONE : RVT_ITYPE_TAKEN;
}

/* A record's own fields as a quiet one has them: no flags, instructions of
 * at most 4 bytes, the privilege and context of the one before, itype 0
 * or a conditional branch up to a branch_max.  flags, itype, ilastsize and
 * priv lie in one 8-byte word of the record, compared at once under a
 * mask (itype below 8 there, then looked up in `itypes`): field by field
 * the run loop took 24 host instructions a record for these checks. */
#define QUIET_WORD (offsetof(struct rvt_ing_rec, flags))
_Static_assert(offsetof(struct rvt_ing_rec, itype) < QUIET_WORD + 8 &&
                   offsetof(struct rvt_ing_rec, ilastsize) < QUIET_WORD + 8 &&
                   offsetof(struct rvt_ing_rec, priv) < QUIET_WORD + 8 && QUIET_WORD + 8 <= sizeof(struct rvt_ing_rec),
               "flags, itype, ilastsize and priv lie in one 8-byte word of a record");
struct quiet_check {
    uint64_t mask, want; /* the word at QUIET_WORD */
    uint32_t itypes;     /* bit t: itype t may end a quiet record */
};

static inline struct quiet_check quiet_check_of(uint8_t priv, unsigned branch_max)
{
#define QUIET_AT(field) (offsetof(struct rvt_ing_rec, field) - QUIET_WORD)
    uint8_t m[8] = {0}, w[8] = {0}; /* (bytes, as the word lies in memory) */
    memset(m + QUIET_AT(flags), 0xff, sizeof(uint16_t));
    m[QUIET_AT(itype)] = 0xf8;     /* itype < 8 */
    m[QUIET_AT(ilastsize)] = 0xfe; /* ilastsize <= 1 */
    m[QUIET_AT(priv)] = 0xff;
    w[QUIET_AT(priv)] = priv;
#undef QUIET_AT
    struct quiet_check q;
    memcpy(&q.mask, m, 8);
    memcpy(&q.want, w, 8);
    q.itypes = 1u << RVT_ITYPE_NONE;
    for (unsigned t = RVT_ITYPE_NOT_TAKEN; t <= branch_max; t++)
        q.itypes |= 1u << t;
    return q;
}

static inline bool quiet_fields(const struct rvt_ing_rec *r, const struct quiet_check *q, uint64_t ctx)
{
    uint64_t word;
    memcpy(&word, (const char *)r + QUIET_WORD, 8);
    return (word & q->mask) == q->want && (q->itypes >> r->itype & 1) && r->context == ctx;
}

/* ... and one instruction: iretire its size (1 << ilastsize, ilastsize 0
 * or 1 here). */
static inline bool quiet_record(const struct rvt_ing_rec *r, const struct quiet_check *q, uint64_t ctx)
{
    return quiet_fields(r, q, ctx) && r->iretire == r->ilastsize + 1u;
}

/* The instruction a quiet record may follow, the window's last (stepped
 * when the next record comes), if the encoder is where a quiet record
 * sends nothing: tracing, no resync due, the branch map below full, no
 * filters or data trace; the instruction itself (c) sends nothing when
 * stepped but its own effect (a branch into the map, another instruction
 * into the ranges of code run), nor does the one before it decide
 * anything there (b: not a trap, an uninferable discontinuity, or a
 * change of privilege or context).  NULL otherwise. */
static const struct ent *quiet_window(const struct et_encoder *e)
{
    const struct et_params *p = &e->p;
    if (e->general_only || e->diag.code || e->finished || !e->started || !e->tracing || e->lost_sent ||
        e->nwin != 3 || p->version != ET_V2_0 || p->d.mode != ET_DATA_OFF || p->n_ranges || p->n_causes ||
        (e->resync_max && e->resync_count >= e->resync_max) || e->bp_fail || e->branches >= 31 ||
        (e->pbc >= 31 && e->pbc - 31 == 0xffffffffu))
        return NULL;
    const struct ent *b = &e->win[1], *c = &e->win[2];
    if (!b->qualified || is_trap(b->itype) || b->updiscon || b->priv != c->priv || b->context != c->context ||
        !c->qualified || !c->retired || !c->last_of_rec || c->notify || c->reported || c->has_da ||
        (c->itype != RVT_ITYPE_NONE && (c->itype < RVT_ITYPE_NOT_TAKEN || c->itype > quiet_branch_max(p))))
        return NULL;
    return c;
}

/* The records of a run: full ones (rs), or short ones (fs: a reader's
 * rvt_ing_short_batch, whose priv and context the caller found equal to
 * the instruction's before).  Record i as et_enc_put would see it. */
static inline const struct rvt_ing_rec *run_rec(const bool shorts, const struct rvt_ing_rec *rs,
                                                const struct rvt_ing_fast *fs, size_t i, const struct ent *c,
                                                struct rvt_ing_rec *tmp)
{
    if (!shorts)
        return &rs[i];
    rvt_ing_fast_rec(&fs[i], c->priv, c->context, tmp);
    return tmp;
}

/* Runs of plain records: each one instruction (iretire the size of its
 * last), no flags, the privilege and context of the instruction before,
 * itype 0 or (without branch prediction) a conditional branch.  Such a
 * record sends nothing whenever the encoder's state says so: tracing, no
 * resync due, the branch map below full, no filters or data trace, and
 * (--disambiguate) the instruction after it not in code run since the
 * last packet.  The spec's "uninteresting" instructions are of this kind
 * (exampleAlgorithm.adoc, "Multiple retirement considerations": "their
 * route through <<fig:algo>> does not pass through any of the rectangular
 * boxes"); a branch only goes into the map.  step() for the record before
 * each one then does no more than this loop does: a branch's outcome into
 * the map (add_branch, which also starts the ranges of code run afresh),
 * another instruction's address into the ranges of code run (win_add).
 * Everything that could stop the run is checked before the step's effects
 * are applied, so the record it stops at goes to et_enc_put with the
 * encoder as the records one by one leave it, and is sent whatever is due
 * there.  Returns how many records it took from the front of rs[0..n).
 * (The packets equal those of the records one by one:
 * tests/etrace/test_et_gen.c compares them on every option set.)
 * et_enc_put_plain and et_enc_put_short: one loop, made for each
 * (`shorts`: fs, else rs) where it is inlined. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline size_t plain_run(struct et_encoder *e, const struct ent *c, const bool shorts,
                               const struct rvt_ing_rec *rs, const struct rvt_ing_fast *fs, size_t n)
{
    const struct et_params *p = &e->p;
    const struct quiet_check q = quiet_check_of(c->priv, quiet_branch_max(p));
    const uint64_t ctx = c->context, addr_bad = e->addr_bad;
    /* the record before the next one (c first) */
    uint64_t at = c->addr, lo = c->rec_lo, hi = c->rec_hi, next = c->next;
    unsigned itype = c->itype;
    /* (--disambiguate) from this address up a sequential run may re-enter
     * code run since the last packet (win_hits): no earlier */
    uint64_t stop_at = UINT64_MAX;
    if (p->disambiguate && itype == RVT_ITYPE_NONE)
        stop_at = e->win_full ? 0 : seen_from(e, at);
    /* The range of code run that win_add extended last (the current
     * implicit-return tag; NULL: none known), its bounds held in locals
     * while the run extends it and stored back before anything else reads
     * it (win_add, add_branch, the run's end). */
    struct win_range *last = NULL;
    uint64_t last_lo = 0, last_hi = 0;
    size_t i = 0;
    for (; i < n; i++) {
        /* record i: quiet (quiet_record), its address, itype and the
         * address after it */
        uint64_t iaddr, after;
        unsigned it;
        if (shorts) {
            /* (rvt_ing_fast_rec: no flags, the batch's priv and context;
             * one instruction of 1 or 2 halfwords, rvt_ing_fast_insn_hw
             * 1 or 2: len 2-5, which is what this tests) */
            const struct rvt_ing_fast *f = &fs[i];
            const unsigned iretire = f->len >> 1;
            it = f->itype;
            iaddr = f->iaddr;
            if (iretire - 1u > 1u || it >= 8 || !(q.itypes >> it & 1) || (iaddr & addr_bad))
                break;
            after = iaddr + 2u * (uint64_t)iretire;
        } else {
            const struct rvt_ing_rec *r = &rs[i];
            if (!quiet_record(r, &q, ctx) || (r->iaddr & addr_bad))
                break;
            iaddr = r->iaddr;
            it = r->itype;
            after = rvt_ing_next_addr(r);
        }
        /* step() for the record before, with this one next */
        if (itype == RVT_ITYPE_NONE) {
            /* it follows the one before; that one's range to the code
             * run; it does not re-enter that code (else a packet is due) */
            if (iaddr != next || iaddr >= stop_at)
                break;
            if (last && at <= last_hi + 4 && at + 4 >= last_lo) {
                /* (win_add's extension of the last range, inline; with
                 * `last` known, the record before is one instruction:
                 * lo = hi = at) */
                if (at > last_hi)
                    last_hi = at;
                else if (at < last_lo)
                    last_lo = at;
            } else {
                if (last) {
                    last->lo = last_lo;
                    last->hi = last_hi;
                }
                win_add(e, lo, hi);
                last = e->win_full ? NULL : &e->seen[e->nwin_r - 1];
                if (last) {
                    last_lo = last->lo;
                    last_hi = last->hi;
                }
                if (e->win_full && p->disambiguate)
                    break; /* (the general path's step adds it again: no change) */
            }
        } else {
            /* a branch: a 31st would fill the map (a packet) */
            if (e->branches >= 30)
                break;
            if (last) {
                last->lo = last_lo;
                last->hi = last_hi;
            }
            add_branch(e, at, itype == RVT_ITYPE_TAKEN);
            last = NULL;
            /* The ranges start afresh: a sequential run from here only
             * adds ranges below where it is, which it cannot re-enter. */
            stop_at = UINT64_MAX;
        }
        at = lo = hi = iaddr;
        next = after;
        itype = it;
    }
    if (last) {
        last->lo = last_lo;
        last->hi = last_hi;
    }
    if (!i)
        return 0;
    /* The window the records one by one leave: [.., stepped, unstepped]. */
    struct ent *w = e->win;
    struct rvt_ing_rec tmp;
    if (i == 1) { /* [b, c stepped, rs[0]] */
        w[0] = w[1];
        w[1] = w[2];
        w[1].updiscon = w[1].misret = false; /* (what step() decided for c) */
    } else { /* [c stepped or rs[i-3], rs[i-2], rs[i-1]] */
        if (i == 2) {
            w[0] = w[2];
            w[0].updiscon = w[0].misret = false;
        } else {
            plain_ent(&w[0], run_rec(shorts, rs, fs, i - 3, c, &tmp));
        }
        plain_ent(&w[1], run_rec(shorts, rs, fs, i - 2, c, &tmp));
    }
    plain_ent(&w[2], run_rec(shorts, rs, fs, i - 1, c, &tmp));
    e->records += i;
    e->last_ctx = ctx;
    return i;
}

size_t et_enc_put_plain(struct et_encoder *e, const struct rvt_ing_rec *rs, size_t n)
{
    const struct ent *c = quiet_window(e);
    return c ? plain_run(e, c, false, rs, NULL, n) : 0;
}

/* The same over records in short, which carry the priv and context of
 * their batch: a run only if those are the instruction's before. */
size_t et_enc_put_short(struct et_encoder *e, const struct rvt_ing_fast *fs, size_t n, uint8_t priv,
                        uint64_t context)
{
    const struct ent *c = quiet_window(e);
    return c && c->priv == priv && c->context == context ? plain_run(e, c, true, NULL, fs, n) : 0;
}

/* One quiet record (et_enc_put's first try): a one-instruction record is
 * a run of one (et_enc_put_plain); a block of the native ingress format is
 * what the general path does with it when it sends nothing, without the
 * pipeline (the runs' conditions, with the block's range of code for the
 * ranges run).  The general path pushes a block's first instruction,
 * which steps the window's last (c), then its last instruction, which
 * steps the first: an instruction that is not the last of its record
 * sends nothing at its step here (no map full, no resync due).  Returns
 * false, with nothing changed that the general path does not do again the
 * same way, if the record is not quiet. */
static bool put_quiet(struct et_encoder *e, const struct rvt_ing_rec *r)
{
    if (r->ilastsize <= 1 && r->iretire <= 1u << r->ilastsize)
        return r->iretire == 1u << r->ilastsize && et_enc_put_plain(e, r, 1) == 1;
    const struct ent *c = quiet_window(e);
    if (!c)
        return false;
    const struct et_params *p = &e->p;
    const struct quiet_check q = quiet_check_of(c->priv, quiet_branch_max(p));
    if (!quiet_fields(r, &q, c->context))
        return false;
    const uint64_t last = rvt_ing_last_addr(r);
    if ((r->iaddr | last) & e->addr_bad)
        return false;
    /* step() for c, with the block's first instruction next */
    if (c->itype == RVT_ITYPE_NONE) {
        if (r->iaddr != c->next)
            return false;
        win_add(e, c->rec_lo, c->rec_hi);
        /* re-entering code run since the last packet: a report is due (the
         * general path's step adds c's range again, which changes nothing) */
        if (p->disambiguate && win_hits(e, r->iaddr, last))
            return false;
    } else {
        if (e->branches >= 30)
            return false; /* (a 31st fills the map: a packet) */
        add_branch(e, c->addr, c->itype == RVT_ITYPE_TAKEN);
    }
    /* The window: [c stepped, the first instruction stepped, the last]. */
    struct ent *w = e->win;
    w[0] = w[2];
    w[0].updiscon = w[0].misret = false;
    plain_ent(&w[1], r);
    w[1].rec_hi = last;
    w[1].itype = RVT_ITYPE_NONE;
    w[1].last_of_rec = false;
    w[1].next = 0;
    w[2] = w[1];
    w[2].ctype = 0;
    w[2].itype = r->itype;
    w[2].last_of_rec = true;
    w[2].addr = last;
    w[2].next = rvt_ing_next_addr(r);
    e->records++;
    e->last_ctx = r->context;
    return true;
}

int et_enc_finish(struct et_encoder *e)
{
    if (e->diag.code)
        return -e->diag.code;
    if (e->finished)
        return 0;
    e->finished = true;
    if (e->p.d.mode == ET_DATA_ONLY) {
        int rc = flush_responses(e);
        /* "When tracing ceases ... in order to inform the decoder"; the
         * reference data model never sends it */
        if (rc >= 0 && e->started && !e->p.d.model_compat)
            rc = send_support(e, false, ET_QUAL_NO_CHANGE);
        return rc < 0 ? rc : 0;
    }
    if (e->nwin >= 1) {
        struct ent *prev = e->nwin >= 2 ? &e->win[e->nwin - 2] : NULL;
        struct ent *cur = &e->win[e->nwin - 1];
        int rc = step(e, prev, cur, NULL, true);
        if (rc < 0 || (rc = emit_data(e, cur)) < 0)
            return rc;
    }
    return 0;
}

/* ---- lifecycle --------------------------------------------------------------- */

void et_enc_free(struct et_encoder *e)
{
    if (!e)
        return;
    et_bpred_free(&e->bp);
    et_jtc_free(&e->jtc);
    free(e->cs);
    free(e->ir_rets);
    free(e);
}

unsigned et_callstack_depth(const struct et_params *p)
{
    if (p->implicit_return == ET_IR_OFF)
        return 0;
    if (p->return_stack_size_p)
        return 1u << p->return_stack_size_p;
    if (p->call_counter_size_p)
        return (1u << p->call_counter_size_p) - 1;
    return 0;
}

int et_enc_new(struct et_encoder **out, const struct et_params *p, const struct rvt_byte_sink *sink,
               struct rvt_diag *d)
{
    *out = NULL;
    int rc = et_params_check(p, d);
    if (rc < 0)
        return rc;
    if (p->resync_max == ET_RESYNC_ANY)
        return rvt_fail(d, RVT_ERR_INVAL, "etrace: resync-max any is for decoding; the encoder needs a period or off");
    struct et_encoder *e = calloc(1, sizeof *e);
    if (!e)
        return rvt_fail(d, RVT_ERR_NOMEM, "out of memory");
    e->p = *p;
    et_framer_init(&e->fr, &e->p, sink);
    et_denc_init(&e->denc, &e->p.d);
    e->resync_max = p->resync_max < 0 ? 0 : (uint64_t)1 << (p->resync_max + 4);
    e->addr_bad = ~mask64(p->iaddress_width_p) | mask64(p->iaddress_lsb_p);
    map_reset(e);
    unsigned shift = p->iaddress_lsb_p >= 2 ? 2 : 1;
    if ((p->branch_prediction && et_bpred_init(&e->bp, p->bpred_size_p, shift) < 0) ||
        (p->jump_target_cache && et_jtc_init(&e->jtc, p->cache_size_p, shift) < 0)) {
        et_enc_free(e);
        return rvt_fail(d, RVT_ERR_NOMEM, "out of memory");
    }
    unsigned depth = et_callstack_depth(p);
    if (depth) {
        e->cs = malloc(sizeof *e->cs);
        if (p->implicit_return == ET_IR_20 && p->version == ET_V2_0)
            e->ir_rets = calloc(depth + 2, sizeof *e->ir_rets);
        if (!e->cs || (p->implicit_return == ET_IR_20 && p->version == ET_V2_0 && !e->ir_rets)) {
            et_enc_free(e);
            return rvt_fail(d, RVT_ERR_NOMEM, "out of memory");
        }
        rvt_cs_init(e->cs, depth, RVT_CS_DROP_OLDEST);
        e->ir_on = true;
        e->pop_explicit = p->implicit_return == ET_IR_FIXED;
        e->ir_max = (unsigned)mask64(et_irdepth_bits(p));
        e->gen = 1;
        e->pgen = 1;
    }
    *out = e;
    return 0;
}
