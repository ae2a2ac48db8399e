/* Debug-spec trace module encoder: ingress records -> trace events (the
 * seed's event table, per the emit-* bits of the `trace` register) ->
 * packet groups -> 4-bit packets in 32-bit words, with 8 evenly spaced
 * synchronisation points per buffer, into a RAM buffer (wrap / stop) or an
 * off-chip stream, optionally through a FIFO that drops whole groups when
 * stalling is off.
 *
 * One group holds every packet of one ingress record (its last
 * instruction's event).  Groups never straddle a synchronisation point:
 * Nops pad up to it, and the group is preceded there by the sync fields
 * (full timestamp, hart, privilege, full PC of the instruction the decoder
 * resumes at); load/store addresses are sent in full once after it.
 * Targets are the next record's address, so a record's group is built when
 * the next record arrives (or at finish).
 *
 * Gaps (docs/dbg.md, "Trace off, dropped data and the end of the trace"):
 *   - trace off (an unqualified record): the last traced record's group,
 *     the PC of its last instruction unless those packets take the decoder
 *     there, then Trace Disabled; the next traced record starts with Trace
 *     Enabled and the sync fields;
 *   - dropped data (the FIFO model, or an output sink that refuses bytes):
 *     Trace Disabled and the sync fields, without Trace Enabled ("not
 *     necessary"), with the next group that gets through;
 *   - the end of the trace: Trace Disabled with nothing after it (after the
 *     one of a stop, if tracing was off), so a stream cut short is told
 *     from a complete one;
 *   - notify: Trace Enabled and the sync fields at the notified instruction
 *     (its address explicitly, as a sync point would give it).
 */
#include "dbg/dbg.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define GROUP_MAX 256

/* Last values the decoder will hold ("missing bits come from the last
 * value") and which must next be sent in full. */
struct vstate {
    uint64_t pc, la, sa, ts, hart;
    bool full_pc, full_la, full_sa, full_ts;
    bool have_ts;
    bool hart_unknown; /* data was lost: the decoder's hart must be restated */
};

struct group {
    uint8_t n[GROUP_MAX];
    unsigned len, packets;
    unsigned last;  /* start of the last packet */
    bool flow;    /* the group moves the decoder's walk (branch or PC packets) */
    bool covered; /* its packets take the decoder up to (or past) the last instruction */
};

struct dbg_enc {
    struct dbg_cfg cfg;
    struct rvt_diag diag;
    struct rvt_bcache *bc;
    unsigned xlen, pc_shift, pc_width;
    uint64_t spacing;       /* nybbles between sync points */
    uint64_t ram_nyb;       /* RAM buffer size in nybbles (0: off-chip stream) */

    bool have_pending;
    struct rvt_ing_rec pend;
    struct vstate vs;
    uint64_t resume_pc;     /* where the decoder's walk continues */
    uint64_t resume_insns;  /* instructions retired before resume_pc */
    uint8_t resume_priv;
    bool started, resync_due, off;
    bool misaligned;        /* a PC the packet cannot hold (bit 1 set without C) */
    uint64_t misaligned_pc;

    uint64_t pos;           /* nybbles written to the stream (buffer position = pos mod ram) */
    /* Off-chip stream, whole packets.  After the sink refused data
     * (stream.lost) packets are dropped up to the next group, which starts
     * with Trace Disabled and the sync fields. */
    struct rvt_nyb_writer stream;
    uint8_t *ram;
    bool halted;

    uint64_t fifo_level, insns_since_group;

    uint64_t insns, records, packets, dropped_groups, dropped_nybbles, bytes_lost;
    uint64_t produced;      /* off-chip: nybbles offered to the stream */
    uint64_t pend_before;   /* instructions retired before the pending record */
    /* The first PC of the pending record's trap (seed: an interrupt names
     * the last instruction executed), and whether that instruction is
     * behind the decoder's walk (no instruction retired since resume_pc). */
    uint64_t pend_src;
    bool pend_src_behind;
    bool pend_src_ahead_again; /* ...ahead, but the same instruction the walk retired last */
    uint64_t last_insn;     /* the last instruction executed (traced) */
    bool have_last_insn;
    uint64_t dec_last;      /* the instruction the decoder's walk retired last (the last one executed when
                               resume_pc was set) */
    bool have_dec_last;
    struct rvt_nyb_syncs sp;
    bool finished;
    unsigned seen; /* the data the records carried (SEEN_*): what the emit bits had to trace */
    uint8_t plain_group[16]; /* by itype: what a plain record's group holds (dbg_enc_put_plain) */
};

const char *dbg_enc_error(const struct dbg_enc *e)
{
    return e->diag.msg;
}

/* The data a record can carry for the emit bits (build_group). */
enum { SEEN_LOAD = 1, SEEN_STORE = 2, SEEN_LOAD_VALUE = 4, SEEN_STORE_VALUE = 8, SEEN_TIME = 16 };

/* The emit bits that asked for data no record carried: the trace has none
 * of it, which the user is told (rvt_codec_stats.unfed), not left to find
 * out from a trace that looks like one without those emit bits. */
static void unfed_emits(const struct dbg_enc *e, char *buf, size_t len)
{
    static const struct {
        unsigned bit, need;
        const char *opt, *what;
    } k[] = {
        {DBG_TRACE_EMITLOADADDR, SEEN_LOAD, "loadaddr", "load addresses"},
        {DBG_TRACE_EMITSTOREADDR, SEEN_STORE, "storeaddr", "store addresses"},
        {DBG_TRACE_EMITLOADDATA, SEEN_LOAD_VALUE, "loaddata", "load values"},
        {DBG_TRACE_EMITSTOREDATA, SEEN_STORE_VALUE, "storedata", "store values"},
        {DBG_TRACE_EMITTIMESTAMP, SEEN_TIME, "timestamp", "times"},
    };
    char opts[80] = "", whats[120] = "";
    size_t no = 0, nw = 0;
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        if (!dbg_emits(&e->cfg, k[i].bit) || (e->seen & k[i].need))
            continue;
        no += (size_t)snprintf(opts + no, sizeof opts - no, "%s%s", no ? "," : "", k[i].opt);
        nw += (size_t)snprintf(whats + nw, sizeof whats - nw, "%s%s", nw ? ", " : "", k[i].what);
    }
    if (!no) {
        *buf = 0;
        return;
    }
    snprintf(buf, len, "--dbg-emit %s: the records traced carry no %s%s, so the trace has none", opts, whats,
             (e->seen & (SEEN_LOAD | SEEN_STORE)) ? "" : " (rvtrace capture --mem records memory accesses)");
}

void dbg_enc_stats(const struct dbg_enc *e, struct rvt_codec_stats *st)
{
    memset(st, 0, sizeof *st);
    st->insns = e->insns;
    st->records = e->records;
    st->packets = e->packets;
    st->bytes = ((e->ram_nyb ? e->pos : e->produced) + 1) / 2;
    st->lost = (e->dropped_nybbles + 1) / 2 + e->bytes_lost;
    if (!e->ram_nyb) /* nybbles that never reached the sink */
        st->lost += (e->produced - 2 * e->stream.bytes_out - (e->finished ? 0 : e->stream.nstage) + 1) / 2;
    unfed_emits(e, st->unfed, sizeof st->unfed);
}

size_t dbg_enc_sync_points(const struct dbg_enc *e, const struct rvt_nyb_sync_point **pts)
{
    *pts = e->sp.p;
    return e->sp.n;
}

void dbg_enc_regs(const struct dbg_enc *e, struct dbg_regs *r)
{
    *r = e->cfg.regs;
    r->trace &= DBG_TRACE_DEFINED & ~DBG_TRACE_DISCARD;
    r->trace |= DBG_TRACE_SUPPORTED;
    if (e->ram_nyb) {
        bool wrapped = e->pos > e->ram_nyb;
        if (wrapped)
            r->trace |= DBG_TRACE_WRAPPED;
        else
            r->trace &= ~(uint32_t)DBG_TRACE_WRAPPED;
        uint64_t at = wrapped ? e->pos % e->ram_nyb : e->pos;
        /* A stopped buffer is full: nothing more can be written. */
        r->tbufwrite = e->halted ? r->tbufend : r->tbufstart + at / 2;
    } else {
        r->trace &= ~(uint32_t)DBG_TRACE_WRAPPED;
        r->tbufwrite = r->tbufstart;
    }
}

/* ---- output ----------------------------------------------------------------- */

/* The writer's unit: a packet. */
static unsigned packet_len(const uint8_t *nyb, size_t avail, const void *ctx)
{
    (void)ctx;
    return dbg_packet_len(nyb, avail);
}

/* Write whole packets (a group, or a run of Nops); `last` is the start of
 * the last packet in nyb. */
static int write_nybbles(struct dbg_enc *e, const uint8_t *nyb, size_t n, size_t last)
{
    if (!n)
        return 0;
    if (e->ram_nyb) {
        for (size_t i = 0; i < n; i++)
            e->ram[(e->pos + i) % e->ram_nyb] = nyb[i];
        e->pos += n;
        return 0;
    }
    e->produced += n;
    bool nops = nyb[0] == DBG_NOP && last == n - 1;
    int rc = rvt_nyb_writer_put(&e->stream, nyb, n, last, nops);
    /* What was staged; after a refusal, the grid of sync points continues
     * from what the sink holds. */
    e->pos = rvt_nyb_writer_pos(&e->stream);
    return rc;
}

static int write_group(struct dbg_enc *e, const struct group *g)
{
    return write_nybbles(e, g->n, g->len, g->last);
}

/* ---- packets ---------------------------------------------------------------- */

static void g_put(struct group *g, const struct dbg_packet *p)
{
    g->last = g->len;
    g->len += dbg_packet_encode(p, g->n + g->len);
    g->packets++;
}

static void g_simple(struct group *g, unsigned hdr)
{
    struct dbg_packet p = {.hdr = (uint8_t)hdr};
    g_put(g, &p);
}

static void g_value(struct group *g, unsigned hdr, uint64_t v, unsigned n)
{
    struct dbg_packet p = {.hdr = (uint8_t)hdr, .nval = (uint8_t)n, .bits = v & dbg_mask(4 * n)};
    g_put(g, &p);
}

static void g_pc(struct dbg_enc *e, struct group *g, struct vstate *vs, uint64_t pc)
{
    if (pc & ((1u << e->pc_shift) - 1) && !e->misaligned) {
        e->misaligned = true;
        e->misaligned_pc = pc;
    }
    uint64_t v = (pc >> e->pc_shift) & dbg_mask(e->pc_width);
    unsigned n = vs->full_pc ? (e->pc_width + 3) / 4 : dbg_nyb_from_last(v, vs->pc);
    g_value(g, DBG_PC, v, n);
    vs->pc = v;
    vs->full_pc = false;
    g->flow = true;
}

static void g_addr(const struct dbg_enc *e, struct group *g, unsigned hdr, uint64_t *last, bool *full, uint64_t a)
{
    uint64_t v = a & dbg_mask(e->xlen);
    unsigned n = *full ? e->xlen / 4 : dbg_nyb_from_last(v, *last);
    g_value(g, hdr, v, n);
    *last = v;
    *full = false;
}

/* Load/Store Data: "missing bits must be filled in by sign extending the
 * value", so the fewest nybbles whose sign extension gives the `bytes`-wide
 * value.  The decoder extends to XLEN, except that on RV32 more than 8
 * nybbles are a 64-bit value (FLD/FSD): an 8-byte value goes out with at
 * least 9 nybbles there, so that all its bits arrive (docs/dbg.md). */
static void g_data(const struct dbg_enc *e, struct group *g, unsigned hdr, uint64_t v, unsigned bytes)
{
    unsigned width = bytes && bytes <= 8 ? 8 * bytes : e->xlen; /* (size unknown: XLEN) */
    v &= dbg_mask(width);
    unsigned n = dbg_nyb_signed(v, width);
    if (e->xlen == 32 && width == 64 && n < 9)
        n = 9;
    g_value(g, hdr, v, n);
}

static void g_ts(struct group *g, struct vstate *vs, uint64_t t)
{
    unsigned n = vs->full_ts || !vs->have_ts ? 16 : dbg_nyb_from_last(t, vs->ts);
    g_value(g, DBG_TIMESTAMP, t, n);
    vs->ts = t;
    vs->have_ts = true;
    vs->full_ts = false;
}

static void g_priv(struct group *g, bool interrupt, unsigned priv)
{
    /* PRV[1:0] holds U/S/M; the virtualised modes have no encoding here
     * (VU -> U, VS -> S); debug mode is reported as M. */
    unsigned prv = priv == RVT_PRIV_VU ? 0 : priv == RVT_PRIV_VS ? 1 : priv == RVT_PRIV_D ? 3 : (priv & 3);
    struct dbg_packet p = {.hdr = DBG_PRIV, .arg = dbg_priv_packet(interrupt, prv, false)};
    g_put(g, &p);
}

/* Sync fields: what a decoder starting here needs (the walk resumes at
 * pc with privilege priv). */
static void build_sync(struct dbg_enc *e, struct group *g, struct vstate *vs, const struct rvt_ing_rec *p, uint64_t pc,
                       uint8_t priv)
{
    const struct dbg_cfg *c = &e->cfg;
    vs->full_pc = vs->full_la = vs->full_sa = vs->full_ts = true;
    if (dbg_emits(c, DBG_TRACE_EMITTIMESTAMP) && p && (p->flags & RVT_ING_HAS_TIME))
        g_ts(g, vs, p->time);
    uint64_t hart = p ? p->hart : vs->hart;
    if (hart || hart != vs->hart || vs->hart_unknown)
        g_value(g, DBG_HART, hart, dbg_nyb_zero(hart));
    vs->hart = hart;
    vs->hart_unknown = false;
    if (dbg_emits(c, DBG_TRACE_EMITPRIV))
        g_priv(g, false, priv);
    if (dbg_emits(c, DBG_TRACE_EMITPC))
        g_pc(e, g, vs, pc);
}

static bool is_csr(struct dbg_enc *e, const struct rvt_ing_rec *r)
{
    if (!e->cfg.image || !r->iretire)
        return false;
    struct rvt_insn in;
    if (rvt_img_insn(e->cfg.image, rvt_ing_last_addr(r), &in) < 0)
        return false;
    return (in.flags & RVT_IF_CSR) != 0;
}

static bool uninferable_itype(unsigned it)
{
    return it == RVT_ITYPE_UNINF_JUMP3 || it == RVT_ITYPE_CALL_UNINF || it == RVT_ITYPE_JUMP_UNINF ||
           it == RVT_ITYPE_COSWAP || it == RVT_ITYPE_RETURN || it == RVT_ITYPE_OTHER_UNINF;
}
static bool inferable_itype(unsigned it)
{
    return it == RVT_ITYPE_CALL_INF || it == RVT_ITYPE_JUMP_INF || it == RVT_ITYPE_OTHER_INF;
}

/* The packets of record p's last instruction (the seed's trace events). */
static void build_group(struct dbg_enc *e, struct group *g, struct vstate *vs, const struct rvt_ing_rec *p,
                        bool have_next, uint64_t next, uint8_t next_priv)
{
    const struct dbg_cfg *c = &e->cfg;
    bool epc = dbg_emits(c, DBG_TRACE_EMITPC), ebr = dbg_emits(c, DBG_TRACE_EMITBRANCH);
    bool epriv = dbg_emits(c, DBG_TRACE_EMITPRIV);
    /* (a record with data never goes through dbg_enc_put_plain: it has flags) */
    if (p->flags & RVT_ING_HAS_TIME)
        e->seen |= SEEN_TIME;
    if (p->flags & RVT_ING_HAS_MEM)
        e->seen |= (p->flags & RVT_ING_MEM_STORE)
                       ? SEEN_STORE | ((p->flags & RVT_ING_HAS_MEMVAL) ? SEEN_STORE_VALUE : 0)
                       : SEEN_LOAD | ((p->flags & RVT_ING_HAS_MEMVAL) ? SEEN_LOAD_VALUE : 0);
    if ((p->flags & RVT_ING_HAS_RD) && !(e->seen & SEEN_LOAD_VALUE) && dbg_emits(c, DBG_TRACE_EMITLOADDATA) &&
        is_csr(e, p)) /* (a CSR read's value is load data) */
        e->seen |= SEEN_LOAD_VALUE;
    if ((p->flags & RVT_ING_MEM_STORE) && (p->flags & RVT_ING_HAS_MEMVAL)) /* (a CSR write's) */
        e->seen |= SEEN_STORE_VALUE;

    if (dbg_emits(c, DBG_TRACE_EMITTIMESTAMP) && (p->flags & RVT_ING_HAS_TIME) && (!vs->have_ts || p->time != vs->ts))
        g_ts(g, vs, p->time);
    if (p->hart != vs->hart) {
        g_value(g, DBG_HART, p->hart, dbg_nyb_zero(p->hart));
        vs->hart = p->hart;
    }

    /* LOAD / STORE / CSR data of the last retired instruction (the code
     * is only consulted when a value could be a CSR's). */
    bool csr_data = ((p->flags & RVT_ING_HAS_RD) && dbg_emits(c, DBG_TRACE_EMITLOADDATA)) ||
                    ((p->flags & RVT_ING_MEM_STORE) && dbg_emits(c, DBG_TRACE_EMITSTOREDATA));
    if (p->iretire) {
        if (csr_data && is_csr(e, p)) {
            /* CSR instructions: reads emit Load Data, writes Store Data
             * (the write value comes in the record's memory value). */
            if ((p->flags & RVT_ING_HAS_RD) && dbg_emits(c, DBG_TRACE_EMITLOADDATA))
                g_data(e, g, DBG_LOAD_DATA, p->rd_value, e->xlen / 8);
            if ((p->flags & RVT_ING_MEM_STORE) && (p->flags & RVT_ING_HAS_MEMVAL) &&
                dbg_emits(c, DBG_TRACE_EMITSTOREDATA))
                g_data(e, g, DBG_STORE_DATA, p->mem_value, e->xlen / 8);
        } else if (p->flags & RVT_ING_HAS_MEM) {
            if (p->flags & RVT_ING_MEM_STORE) {
                if (dbg_emits(c, DBG_TRACE_EMITSTOREADDR))
                    g_addr(e, g, DBG_STORE_ADDR, &vs->sa, &vs->full_sa, p->mem_addr);
                if ((p->flags & RVT_ING_HAS_MEMVAL) && dbg_emits(c, DBG_TRACE_EMITSTOREDATA))
                    g_data(e, g, DBG_STORE_DATA, p->mem_value, p->mem_size);
            } else {
                if (dbg_emits(c, DBG_TRACE_EMITLOADADDR))
                    g_addr(e, g, DBG_LOAD_ADDR, &vs->la, &vs->full_la, p->mem_addr);
                if ((p->flags & RVT_ING_HAS_MEMVAL) && dbg_emits(c, DBG_TRACE_EMITLOADDATA))
                    g_data(e, g, DBG_LOAD_DATA, p->mem_value, p->mem_size);
            }
        }
    }

    unsigned it = p->itype;
    uint64_t src = rvt_ing_last_addr(p);
    if (it == RVT_ITYPE_EXCEPTION || it == RVT_ITYPE_INTERRUPT) {
        /* PC, Privilege Level, new PC.  The first PC (e->pend_src, see
         * trap_source) is the last instruction executed for interrupts (the
         * seed's table), the trap's epc for ecall/ebreak ("the same as if
         * they were jal") -- or the epc for every trap (--dbg-trap-pc epc). */
        if (epc)
            g_pc(e, g, vs, e->pend_src);
        if (epriv)
            g_priv(g, it == RVT_ITYPE_INTERRUPT, have_next ? next_priv : p->priv);
        if (epc && have_next)
            g_pc(e, g, vs, next);
        g->covered = true;
        return;
    }
    if (!p->iretire)
        return;
    if (it == RVT_ITYPE_NOT_TAKEN) {
        if (ebr) {
            g_simple(g, DBG_BRANCH_NOT_TAKEN);
            g->flow = g->covered = true;
        }
    } else if (it == RVT_ITYPE_TAKEN) {
        if (ebr) {
            g_simple(g, DBG_BRANCH_TAKEN);
            g->flow = g->covered = true;
        } else if (epc) {
            g_pc(e, g, vs, src);
            if (have_next)
                g_pc(e, g, vs, next);
            g->covered = true;
        }
    } else if (inferable_itype(it)) {
        if (!ebr && epc) {
            g_pc(e, g, vs, src);
            if (have_next)
                g_pc(e, g, vs, next);
            g->covered = true;
        }
    } else if (uninferable_itype(it) || it == RVT_ITYPE_TRAPRET) {
        /* jalr: with emitbranch the destination alone (the seed's
         * "if emitstoredata is enabled" read as emitpc); trap returns are
         * the same plus a Privilege Level sequence after the PCs. */
        if (epc) {
            if (!ebr)
                g_pc(e, g, vs, src);
            if (have_next)
                g_pc(e, g, vs, next);
            g->covered = !ebr || have_next;
        }
        /* (Without a successor the new privilege is unknown, and a
         * Privilege Level after a lone source PC would read as a trap.) */
        if (it == RVT_ITYPE_TRAPRET && epriv && have_next)
            g_priv(g, false, next_priv);
    }
}

/* An ecall/ebreak exception: by the code when the encoder has it, else by
 * the cause (breakpoint, environment calls). */
static bool ecall_trap(const struct dbg_enc *e, const struct rvt_ing_rec *t)
{
    if (t->itype != RVT_ITYPE_EXCEPTION)
        return false;
    struct rvt_insn in;
    if (e->cfg.image && rvt_img_insn(e->cfg.image, t->iaddr, &in) == 0)
        return in.cf == RVT_CF_ECALL || in.cf == RVT_CF_EBREAK;
    return t->cause == 3 || (t->cause >= 8 && t->cause <= 11);
}

/* Does trap record t name the last instruction executed (rather than its
 * epc)?  The seed: interrupts do; ecall and ebreak name themselves ("the
 * same as if they were jal").  The seed lists no other exception: with
 * emitpriv they name the faulting instruction (the Privilege Level's
 * interrupt bit tells the two readings apart); without it they are named
 * like interrupts, so that where a trap falls never depends on whether it
 * was an interrupt (docs/dbg.md). */
static bool names_last(const struct dbg_enc *e, const struct rvt_ing_rec *t)
{
    if (e->cfg.trap_pc == DBG_TRAP_PC_EPC)
        return false;
    if (t->itype == RVT_ITYPE_INTERRUPT)
        return true;
    return t->itype == RVT_ITYPE_EXCEPTION && !ecall_trap(e, t) && !dbg_emits(&e->cfg, DBG_TRACE_EMITPRIV);
}

/* Nybbles a trap group may take (timestamp, hart, PC, Privilege Level, PC,
 * and a tail's PC and Trace Disabled). */
#define TRAP_GROUP_MAX 96

/* Does record p's group (with a successor) take the decoder's walk to its
 * end?  The same cases as build_group's `flow`, without building it (the
 * packets go out whether or not the FIFO drops them). */
static bool moves_walk(const struct dbg_enc *e, const struct rvt_ing_rec *p)
{
    const struct dbg_cfg *c = &e->cfg;
    bool epc = dbg_emits(c, DBG_TRACE_EMITPC), ebr = dbg_emits(c, DBG_TRACE_EMITBRANCH);
    unsigned it = p->itype;
    if (it == RVT_ITYPE_EXCEPTION || it == RVT_ITYPE_INTERRUPT)
        return epc;
    if (!p->iretire)
        return false;
    if (it == RVT_ITYPE_NOT_TAKEN)
        return ebr;
    if (it == RVT_ITYPE_TAKEN)
        return ebr || epc;
    if (inferable_itype(it))
        return !ebr && epc;
    if (uninferable_itype(it) || it == RVT_ITYPE_TRAPRET)
        return epc;
    return false;
}

static int note_sync_point(struct dbg_enc *e)
{
    if (rvt_nyb_syncs_add(&e->sp, e->pos, e->resume_insns) < 0)
        return rvt_fail(&e->diag, RVT_ERR_NOMEM, "dbg: out of memory");
    return 0;
}

/* What follows a record's group. */
enum tail {
    TAIL_NONE = 0,
    TAIL_STOP, /* tracing stops (unqualified records follow) */
    TAIL_END   /* the trace ends */
};

/* Write record p's group (built against the value state) at the current
 * position, inserting Nop padding and the sync fields at synchronisation
 * points, or dropping it when the FIFO or a stopped buffer has no room.
 * With a tail, the decoder is taken to p's last instruction (a PC packet
 * if the group does not get it there) and Trace Disabled follows. */
static int emit_record(struct dbg_enc *e, const struct rvt_ing_rec *p, bool have_next, uint64_t next,
                       uint8_t next_priv, enum tail tail, unsigned reserve)
{
    int rc;
    struct group s, g;
    struct vstate vs;
    bool stop_mode = e->ram_nyb && dbg_regs_fullaction(&e->cfg.regs) != DBG_FULL_WRAP;
    bool epc = dbg_emits(&e->cfg, DBG_TRACE_EMITPC);
    /* Data the sink refused before this group: Trace Disabled and the sync
     * fields (after a stop whose Trace Disabled may be among the lost
     * data: Trace Disabled before Trace Enabled). */
    bool lost_before = e->stream.lost;
    if (lost_before) {
        rvt_nyb_writer_resume(&e->stream);
        e->vs.hart_unknown = true;
        e->resync_due = e->started;
    }
    /* A trigger's notify: the instruction's address, as a sync point would
     * give it (Trace Enabled, sync fields), before its own packets. */
    uint64_t notify_pc = p ? rvt_ing_last_addr(p) : 0;
    bool notify = p && (p->flags & RVT_ING_NOTIFY) && p->iretire && epc;
    if (p && p->itype == RVT_ITYPE_TRAPRET && p->iretire && have_next && next == e->resume_pc && epc &&
        dbg_emits(&e->cfg, DBG_TRACE_EMITBRANCH) && dbg_emits(&e->cfg, DBG_TRACE_EMITPRIV)) {
        /* An xRET back to where the decoder's walk stands: its PC and
         * Privilege Level would read like an exception there.  Say where
         * the xRET is first, as a notify would. */
        notify = true;
        notify_pc = rvt_ing_last_addr(p);
    }
    if (p == &e->pend && e->pend_src_ahead_again && epc) {
        /* A trap after an instruction that is both the decoder's last
         * retired one and, after a loop, the next one on its path: say
         * where the walk is, as a notify would (docs/dbg.md). */
        notify = true;
        notify_pc = e->pend_src;
    }

    for (;;) {
        bool at_sync = e->pos % e->spacing == 0;
        vs = e->vs;
        s.len = s.packets = s.last = g.len = g.packets = g.last = 0; /* (the nybble arrays need no clearing) */
        s.flow = s.covered = g.flow = g.covered = false;
        bool synced_at = false; /* the sync fields in s name the notified instruction */
        if (!e->started) {
            if (lost_before)
                g_simple(&s, DBG_TRACE_DISABLED);
            struct dbg_packet te = {.hdr = DBG_TRACE_ENABLED, .arg = 0};
            g_put(&s, &te);
        } else if (e->resync_due) {
            g_simple(&s, DBG_TRACE_DISABLED); /* packets were dropped */
        }
        if (at_sync || !e->started || e->resync_due) {
            build_sync(e, &s, &vs, p, e->resume_pc, e->resume_priv);
            synced_at = e->resume_pc == notify_pc;
        }
        if (notify && !synced_at) {
            struct dbg_packet te = {.hdr = DBG_TRACE_ENABLED, .arg = 0};
            g_put(&s, &te);
            build_sync(e, &s, &vs, p, notify_pc, p->priv);
        }
        if (p && p->hart != vs.hart && epc)
            /* Another hart's data follows: its sync fields (Change Hart,
             * Privilege Level, full PC), so that the change is never a lone
             * packet a damaged stream could fake. */
            build_sync(e, &s, &vs, p, e->resume_pc, e->resume_priv);
        if (p)
            build_group(e, &g, &vs, p, have_next, next, next_priv);
        if (tail) {
            /* Tracing stops or ends: the last instruction, unless its own
             * packets already take the decoder there, then Trace
             * Disabled. */
            if (p && p->iretire && !g.covered && epc)
                g_pc(e, &g, &vs, rvt_ing_last_addr(p));
            g_simple(&g, DBG_TRACE_DISABLED);
        }
        if (e->misaligned)
            return rvt_fail(&e->diag, RVT_ERR_INVAL,
                            "dbg: PC 0x%" PRIx64 " is not 4-byte aligned, but PC packets hold PC[XLEN-1:2] "
                            "(the C extension is declared absent: --dbg-rvc off)",
                            e->misaligned_pc);
        if (s.len + g.len == 0)
            return 0;
        /* `reserve`: room for the trap group that follows, so that a trap
         * naming an instruction behind the decoder's walk is not the first
         * group after a sync point (a decoder starting there would not know
         * that instruction). */
        uint64_t next_sync = (e->pos / e->spacing + 1) * e->spacing;
        if (at_sync || e->pos + s.len + g.len + reserve <= next_sync)
            break;
        if (!e->ram_nyb && e->stream.lost && e->pos + s.len + g.len <= next_sync)
            break; /* (dropped anyway: no padding for the reservation) */
        /* The group would straddle a sync point: Nops up to it, then the
         * group is rebuilt after fresh sync fields. */
        if (stop_mode && (e->halted || next_sync >= e->ram_nyb))
            break; /* no room before the end: stops below */
        static const uint8_t nops[GROUP_MAX] = {0};
        size_t npad = (size_t)(next_sync - e->pos);
        if ((rc = write_nybbles(e, nops, npad, npad - 1)) < 0)
            return rc;
        if (!e->ram_nyb && e->stream.lost)
            break; /* the sink refused the padding: the group is dropped too (the loss is resolved later) */
    }

    uint64_t total = (uint64_t)s.len + g.len;
    /* A stopped RAM buffer: no room for the whole group -> trace is off. */
    if (stop_mode && (e->halted || e->pos + total > e->ram_nyb)) {
        if (!e->halted && e->pos < e->ram_nyb) {
            /* Trace turns off: say so where the data ends ("trace was
             * purposefully disabled, or ... the buffer overflowed"). */
            static const uint8_t td = DBG_TRACE_DISABLED;
            if ((rc = write_nybbles(e, &td, 1, 0)) < 0)
                return rc;
        }
        e->halted = true;
        e->dropped_nybbles += total;
        e->dropped_groups++;
        return 0;
    }
    /* FIFO without stalling: drop whole groups that do not fit; Trace
     * Disabled and fresh sync fields go out before the next group. */
    if (!(e->cfg.regs.trace & DBG_TRACE_STALL) && e->cfg.fifo) {
        uint64_t drained = e->insns_since_group * e->cfg.drain;
        e->fifo_level = drained >= e->fifo_level ? 0 : e->fifo_level - drained;
        e->insns_since_group = 0;
        if (total > e->cfg.fifo)
            return rvt_fail(&e->diag, RVT_ERR_INVAL,
                            "dbg: a packet group of %" PRIu64 " nybbles cannot pass a FIFO of %" PRIu64
                            " nybbles (--dbg-fifo)",
                            total, e->cfg.fifo);
        if (e->fifo_level + total > e->cfg.fifo) {
            e->dropped_nybbles += total;
            e->dropped_groups++;
            e->resync_due = e->started;
            return 0;
        }
        e->fifo_level += total;
    }
    if (e->pos % e->spacing == 0 && (rc = note_sync_point(e)) < 0)
        return rc;
    if ((rc = write_group(e, &s)) < 0 || (rc = write_group(e, &g)) < 0)
        return rc;
    e->packets += s.packets + g.packets;
    e->vs = vs;
    e->started = true;
    e->resync_due = false;
    if (notify) {
        /* The decoder's walk is at the notified instruction now. */
        e->resume_pc = notify_pc;
        e->resume_priv = p->priv;
        e->resume_insns = e->pend_before + (e->insns - e->pend_before ? e->insns - e->pend_before - 1 : 0);
    }
    return 0;
}

/* Trace Disabled alone: the end of a trace that was already stopped. */
static int emit_end_only(struct dbg_enc *e)
{
    bool stop_mode = e->ram_nyb && dbg_regs_fullaction(&e->cfg.regs) != DBG_FULL_WRAP;
    if (stop_mode && (e->halted || e->pos + 1 > e->ram_nyb))
        return 0;
    if (e->stream.lost) /* nothing after it to resynchronise: the end is lost too */
        return 0;
    static const uint8_t td = DBG_TRACE_DISABLED;
    e->packets++;
    return write_nybbles(e, &td, 1, 0);
}

/* The pending trap names an instruction the decoder cannot know: one that
 * retired before the trace (re)starts with fresh sync fields (before the
 * start, before trace was turned off, or in dropped data).  It retires
 * nothing, so it is left out: the next sync fields name its handler. */
static bool pending_trap_unplaceable(const struct dbg_enc *e)
{
    return e->have_pending && e->pend_src_behind && (!e->started || e->resync_due || e->stream.lost);
}

int dbg_enc_put(struct dbg_enc *e, const struct rvt_ing_rec *r)
{
    int rc;
    if (e->finished)
        return rvt_fail(&e->diag, RVT_ERR_INVAL, "dbg: record after finish");
    if (r->flags & RVT_ING_UNQUALIFIED) {
        /* Filtered out: the last traced record's group and Trace Disabled;
         * Trace Enabled and the sync fields come with the next traced
         * record. */
        if (e->have_pending && !pending_trap_unplaceable(e)) {
            if ((rc = emit_record(e, &e->pend, true, r->iaddr, r->priv, e->off ? TAIL_NONE : TAIL_STOP, 0)) < 0)
                return rc;
        } else if (e->started && !e->off && (rc = emit_record(e, NULL, false, 0, 0, TAIL_STOP, 0)) < 0) {
            return rc;
        }
        e->have_pending = false;
        e->off = true;
        return 0;
    }
    if (!r->iretire && r->itype != RVT_ITYPE_EXCEPTION && r->itype != RVT_ITYPE_INTERRUPT)
        return 0;
    e->records++;
    if (e->off) {
        e->off = false;
        e->started = false;
    }
    bool trap = r->itype == RVT_ITYPE_EXCEPTION || r->itype == RVT_ITYPE_INTERRUPT;
    if (!e->have_pending) {
        e->resume_pc = r->iaddr;
        e->resume_priv = r->priv;
        e->resume_insns = e->insns;
        e->have_dec_last = false;
    } else if (pending_trap_unplaceable(e)) {
        /* (The sync fields name its handler instead.) */
        e->resume_pc = r->iaddr;
        e->resume_priv = r->priv;
        e->resume_insns = e->insns;
        e->have_dec_last = false;
    } else {
        /* The pending record's successor is r.  A trap that will name an
         * instruction the walk has already passed stays in this group's
         * sync segment. */
        unsigned reserve = trap && !r->iretire && names_last(e, r) && moves_walk(e, &e->pend) ? TRAP_GROUP_MAX : 0;
        if ((rc = emit_record(e, &e->pend, true, r->iaddr, r->priv, TAIL_NONE, reserve)) < 0)
            return rc;
        if (moves_walk(e, &e->pend)) {
            e->resume_pc = r->iaddr;
            e->resume_priv = r->priv;
            e->resume_insns = e->insns;
            e->dec_last = e->last_insn;
            e->have_dec_last = e->have_last_insn;
        }
    }
    /* The first PC of r's trap, and whether it is behind the walk (or, at
     * the start, not known at all). */
    e->pend_src = rvt_ing_next_addr(r);
    e->pend_src_behind = e->pend_src_ahead_again = false;
    if (trap && names_last(e, r)) {
        if (r->iretire) {
            e->pend_src = rvt_ing_last_addr(r);
        } else {
            e->pend_src = e->last_insn;
            e->pend_src_behind = !e->have_last_insn || e->insns == e->resume_insns;
        }
        e->pend_src_ahead_again = !e->pend_src_behind && e->have_dec_last && e->dec_last == e->pend_src;
    }
    if (r->iretire) {
        e->last_insn = rvt_ing_last_addr(r);
        e->have_last_insn = true;
    }
    /* Instructions retired, for the FIFO drain model and the statistics
     * only (no packet depends on it): exact with an image, else a lower
     * bound counting 4-byte instructions. */
    uint64_t n = r->iretire == (1u << r->ilastsize) ? 1 : 0;
    if (!n && r->iretire && (!e->bc || rvt_ing_count_insns(r, e->bc, &n) < 0))
        n = (r->iretire + 1) / 2;
    e->pend_before = e->insns;
    e->insns += n;
    e->insns_since_group += n;
    e->pend = *r;
    e->have_pending = true;
    return 0;
}

/* What the group of a plain record (one that dbg_enc_put_plain takes: no
 * flags, the hart of the value state) holds, by its itype, as build_group
 * makes it with a successor: nothing, one Branch Taken / Not Taken packet,
 * or more (the general path).  The traps, trap returns and the unused
 * itype 7 go to the general path. */
enum plain_group { PLAIN_NOTHING, PLAIN_BRANCH, PLAIN_GENERAL };

static void plain_groups(struct dbg_enc *e)
{
    bool epc = dbg_emits(&e->cfg, DBG_TRACE_EMITPC), ebr = dbg_emits(&e->cfg, DBG_TRACE_EMITBRANCH);
    for (unsigned it = 0; it < 16; it++) {
        uint8_t g = PLAIN_GENERAL;
        if (it == RVT_ITYPE_NONE)
            g = PLAIN_NOTHING;
        else if (it == RVT_ITYPE_NOT_TAKEN)
            g = ebr ? PLAIN_BRANCH : PLAIN_NOTHING;
        else if (it == RVT_ITYPE_TAKEN)
            g = ebr ? PLAIN_BRANCH : epc ? PLAIN_GENERAL : PLAIN_NOTHING;
        else if (inferable_itype(it))
            g = !ebr && epc ? PLAIN_GENERAL : PLAIN_NOTHING;
        else if (uninferable_itype(it))
            g = epc ? PLAIN_GENERAL : PLAIN_NOTHING;
        e->plain_group[it] = g;
    }
}

/* Runs of plain records: one instruction each, no flags, the hart the
 * decoder holds, not a trap.  dbg_enc_put builds the pending record's
 * group when the next record comes; where that group holds nothing (an
 * instruction no trace event names: the seed's event table has none for
 * it) or a lone Branch Taken / Not Taken, and no sync fields are due
 * (tracing, the last group got out, not at a synchronisation point, no
 * FIFO model, room in a stopped buffer and in the output's stage), this
 * loop does what dbg_enc_put does there: the branch packet, the decoder's
 * walk moved past it, the record made pending.  The record it stops at
 * goes to dbg_enc_put with the encoder as the records one by one leave
 * it.  Returns how many records it took from the front of rs[0..n).  (The
 * bytes equal those of the records one by one: tests/cdl/test_nybble_runs.c
 * compares them on every emit set and buffer mode.) */
size_t dbg_enc_put_plain(struct dbg_enc *e, const struct rvt_ing_rec *rs, size_t n)
{
    /* (After an unqualified record nothing is pending: tracing is off.  A
     * PC the packets cannot hold is an error at once: diag.) */
    if (e->finished || e->diag.code || !e->have_pending || !e->started || e->resync_due || e->stream.lost)
        return 0;
    const bool stop_mode = e->ram_nyb && dbg_regs_fullaction(&e->cfg.regs) != DBG_FULL_WRAP;
    const bool fifo = !(e->cfg.regs.trace & DBG_TRACE_STALL) && e->cfg.fifo;
    const uint64_t hart = e->vs.hart;
    const struct rvt_ing_rec *p = &e->pend; /* the pending record, whose group the next one sends */
    uint64_t last_insn = e->last_insn;
    /* (pos moves only with a branch's packet: its offset from a sync
     * point follows it) */
    uint64_t into_sync = e->pos % e->spacing;
    size_t i = 0;
    for (; i < n; i++) {
        const struct rvt_ing_rec *r = &rs[i];
        if (p->flags || p->hart != hart || p->itype >= 16 || into_sync == 0)
            break;
        /* (no flags: qualified; a trap, even one after an instruction it
         * retired, names its first PC when it arrives) */
        if (r->flags || r->ilastsize > 3 || r->iretire != 1u << r->ilastsize || r->itype == RVT_ITYPE_EXCEPTION ||
            r->itype == RVT_ITYPE_INTERRUPT)
            break;
        unsigned g = e->plain_group[p->itype];
        if (g == PLAIN_GENERAL)
            break;
        if (g == PLAIN_BRANCH) {
            /* build_group's packet, written as emit_record writes a group
             * that needs no sync fields or padding: it fits before the next
             * sync point (into_sync != 0), the stage takes it without a
             * write (so the sink can neither fail nor refuse it here). */
            if (fifo || (stop_mode && (e->halted || e->pos + 1 > e->ram_nyb)) ||
                (!e->ram_nyb && e->stream.nstage >= RVT_NYB_STAGE))
                break;
            const uint8_t nyb = p->itype == RVT_ITYPE_TAKEN ? DBG_BRANCH_TAKEN : DBG_BRANCH_NOT_TAKEN;
            (void)write_nybbles(e, &nyb, 1, 0); /* (cannot fail: see above) */
            e->packets++;
            if (++into_sync == e->spacing)
                into_sync = 0;
            /* moves_walk: the decoder's walk is past p now */
            e->resume_pc = r->iaddr;
            e->resume_priv = r->priv;
            e->resume_insns = e->insns;
            e->dec_last = last_insn;
            e->have_dec_last = true;
        }
        last_insn = r->iaddr;
        e->records++;
        e->pend_before = e->insns;
        e->insns++;
        e->insns_since_group++;
        p = r;
    }
    if (i) {
        e->pend = *p;
        e->pend_src = rvt_ing_next_addr(p);
        e->pend_src_behind = e->pend_src_ahead_again = false;
        e->last_insn = last_insn; /* (have_last_insn: set when the first pending record retired) */
    }
    return i;
}

int dbg_enc_finish(struct dbg_enc *e)
{
    int rc;
    if (e->finished)
        return 0;
    /* The trace ends with Trace Disabled: after the last group (and the PC
     * of the last instruction if needed), or alone after a stop.  Tracing
     * has ended, so the FIFO drains before it (the end always gets out). */
    e->fifo_level = 0;
    e->insns_since_group = 0;
    if (pending_trap_unplaceable(e))
        e->have_pending = false; /* a trap the decoder could not place, retiring nothing: left out */
    if (e->have_pending || (e->started && !e->off))
        rc = emit_record(e, e->have_pending ? &e->pend : NULL, false, 0, 0, TAIL_END, 0);
    else
        rc = e->started ? emit_end_only(e) : 0;
    if (rc < 0)
        return rc;
    e->have_pending = false;
    e->finished = true;
    /* Complete the last word with Nops (not past a stopped buffer's end). */
    if (e->pos % 8) {
        static const uint8_t nops[8] = {0};
        size_t pad = (size_t)(8 - e->pos % 8);
        if (!e->ram_nyb || dbg_regs_fullaction(&e->cfg.regs) == DBG_FULL_WRAP || e->pos + pad <= e->ram_nyb) {
            if ((rc = write_nybbles(e, nops, pad, pad - 1)) < 0)
                return rc;
        }
    }
    if (e->ram_nyb) {
        /* The RAM image [tbufstart, tbufend) as a debugger reads it (to the
         * sink, not through the stage). */
        uint8_t *bytes = malloc((size_t)e->ram_nyb / 2);
        if (!bytes)
            return rvt_fail(&e->diag, RVT_ERR_NOMEM, "dbg: out of memory");
        rvt_nyb_pack(e->ram, (size_t)e->ram_nyb, bytes);
        long w = e->stream.out.write(e->stream.out.ctx, bytes, (size_t)e->ram_nyb / 2);
        free(bytes);
        if (w < 0)
            return rvt_fail(&e->diag, (enum rvt_err)-w, "dbg: output write failed");
        if ((uint64_t)w < e->ram_nyb / 2)
            e->bytes_lost += e->ram_nyb / 2 - (uint64_t)w;
    } else if ((rc = rvt_nyb_writer_flush(&e->stream)) < 0) {
        return rc;
    }
    if (e->cfg.regs_path[0]) {
        struct dbg_regs r;
        dbg_enc_regs(e, &r);
        if ((rc = dbg_regs_write(e->cfg.regs_path, &r, &e->diag)) < 0)
            return rc;
    }
    return 0;
}

int dbg_enc_new(struct dbg_enc **ep, const struct dbg_cfg *cfg, const struct rvt_byte_sink *out, struct rvt_diag *d)
{
    *ep = NULL;
    if (cfg->xlen != 32 && cfg->xlen != 64)
        return rvt_fail(d, RVT_ERR_INVAL, "dbg: xlen must be 32 or 64 (got %u)", cfg->xlen);
    struct dbg_enc *e = calloc(1, sizeof *e);
    if (!e)
        return rvt_fail(d, RVT_ERR_NOMEM, "dbg: out of memory");
    e->cfg = *cfg;
    rvt_nyb_writer_init(&e->stream, out, "dbg", &e->diag, packet_len, NULL, &e->sp);
    e->xlen = cfg->xlen;
    e->pc_shift = dbg_pc_shift(cfg->rvc);
    e->pc_width = cfg->xlen - e->pc_shift;
    e->spacing = dbg_cfg_sync_spacing(cfg);
    plain_groups(e);
    if (e->spacing < GROUP_MAX) {
        free(e);
        return rvt_fail(d, RVT_ERR_INVAL,
                        "dbg: the buffer (%" PRIu64 " bytes) is too small for 8 sync points with whole packet "
                        "groups between them, expected at least %u bytes",
                        dbg_cfg_buffer(cfg), 8 * GROUP_MAX / 2);
    }
    if (cfg->image && !(e->bc = rvt_bcache_new(cfg->image, 0))) {
        free(e);
        return rvt_fail(d, RVT_ERR_NOMEM, "dbg: out of memory");
    }
    if (dbg_regs_dest(&cfg->regs) != DBG_DEST_OFFCHIP) {
        e->ram_nyb = 2 * dbg_cfg_buffer(cfg);
        e->ram = calloc((size_t)e->ram_nyb, 1);
        if (!e->ram) {
            dbg_enc_free(e);
            return rvt_fail(d, RVT_ERR_NOMEM, "dbg: cannot allocate a %" PRIu64 "-byte trace buffer",
                            dbg_cfg_buffer(cfg));
        }
    }
    *ep = e;
    return 0;
}

void dbg_enc_free(struct dbg_enc *e)
{
    if (!e)
        return;
    if (e->bc)
        rvt_bcache_free(e->bc);
    free(e->ram);
    rvt_nyb_syncs_free(&e->sp);
    free(e);
}
