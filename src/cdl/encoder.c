/* CDL compressed trace encoder, in the seed's layers:
 *
 *   ingress record -> per-cycle trace (cdl_record_cycles: one retired
 *   instruction or one trap per cycle, with its non-sequential reason,
 *   target, register write, tracepoint) -> packer (pack_cycle: successive
 *   cycles combined into packed records: a count of sequential
 *   instructions, the non-sequential reason, PC/RFW data, tracepoint) ->
 *   compressor (compress: packed record -> fields in the order sequential,
 *   non-sequential, data, tracepoint) -> recorder (sync marks between
 *   cycles, little-endian nybbles in 32-bit words, circular buffer that
 *   wraps or halts).
 *
 * A record's last instruction's target is the next record's address, so
 * a record's cycles are produced when the next record arrives (or at
 * finish).
 *
 * Gaps (docs/cdl.md, "Trace off, loss and the end of a recording"):
 *   - an unqualified (filtered-out) record after traced ones: the pending
 *     count is flushed, then the stop marker (1100 0000); the next traced
 *     record starts with a sync mark and its full PC;
 *   - the output sink refuses bytes: the field the refusal cut is completed
 *     first (its remaining nybbles are offered again), everything after it
 *     up to the next record boundary is dropped, and there the lost marker
 *     (1100 1000) and a sync mark with the full PC go out;
 *   - every recording ends with a stop marker, so a recording cut short
 *     (a sink that stopped taking data) is told from a complete one.
 */
#include "cdl/cdl.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct cdl_enc {
    struct cdl_cfg cfg;
    struct rvt_diag diag;
    struct rvt_bcache *bc;

    bool have_pending;
    struct rvt_ing_rec pend;  /* the record whose successor is not known yet */
    uint64_t pend_insns;

    unsigned unreported;   /* sequential instructions retired but not yet in a seq field */
    bool sync_due;         /* put a sync mark before the next cycle */
    uint64_t since_sync;   /* nybbles since the last sync mark */
    bool after_nonseq;     /* the last cycle changed the flow: a periodic mark may come next */
    uint64_t done_insns;   /* instructions whose cycles went to the packer */
    bool started;          /* a traced record was recorded (the recording gets an end marker) */
    bool off;              /* tracing is stopped (unqualified records) */

    uint64_t insns, records, fields;
    uint64_t emitted;      /* nybbles produced by the compressor */

    /* Stream output (buffer == 0), whole fields.  After the sink refused
     * data (stream.lost) fields are dropped up to the next record boundary,
     * where the lost marker goes out. */
    struct rvt_nyb_writer stream;
    uint64_t image_lost;   /* recorder image bytes the sink refused at finish */

    /* Recorder buffer (buffer > 0): one nybble per byte, 2*buffer entries. */
    uint8_t *ram;
    uint64_t ram_nyb;
    uint64_t written;      /* nybbles offered to the recorder */
    uint64_t dropped;      /* nybbles refused (halt) */
    bool halted;

    struct rvt_nyb_syncs sp;
    bool finished;
    uint16_t seen; /* the data flags the traced records carried (RVT_ING_HAS_RD) */
};

const char *cdl_enc_error(const struct cdl_enc *e)
{
    return e->diag.msg;
}

void cdl_enc_stats(const struct cdl_enc *e, struct rvt_codec_stats *st)
{
    memset(st, 0, sizeof *st);
    st->insns = e->insns;
    st->records = e->records;
    st->packets = e->fields;
    st->bytes = (e->emitted + 1) / 2;
    if (e->cfg.buffer)
        st->lost = (e->dropped + (e->written > e->ram_nyb ? e->written - e->ram_nyb : 0) + 1) / 2 + e->image_lost;
    else /* produced but never taken by the sink (refused, or dropped after a refusal) */
        st->lost = (e->emitted - 2 * e->stream.bytes_out - (e->finished ? 0 : e->stream.nstage) + 1) / 2;
    /* register writes asked for that no traced record carried: said
     * (rvt_codec_stats.unfed), not left to be found out.  (Tracepoints,
     * which only records made through the library carry, are passed
     * through when there are any: their absence is the rule, not news.) */
    if ((e->cfg.pack & CDL_PACK_RFW) && !(e->seen & RVT_ING_HAS_RD))
        snprintf(st->unfed, sizeof st->unfed,
                 "--cdl-pack rfw: the records traced carry no register writes, so the trace has none");
}

/* Nybbles of the output stream so far (what a decoder of it sees): in
 * stream mode those the sink took plus those staged. */
static uint64_t stream_pos(const struct cdl_enc *e)
{
    return e->cfg.buffer ? e->emitted : rvt_nyb_writer_pos(&e->stream);
}

size_t cdl_enc_sync_points(const struct cdl_enc *e, const struct rvt_nyb_sync_point **pts)
{
    *pts = e->sp.p;
    return e->sp.n;
}

void cdl_enc_state(const struct cdl_enc *e, struct cdl_state *st)
{
    memset(st, 0, sizeof *st);
    st->buffer = e->cfg.buffer;
    if (!e->cfg.buffer)
        return;
    st->halted = e->halted;
    st->wrapped = e->written > e->ram_nyb;
    /* The next word the recorder would write (the buffer size when it is
     * exactly full or halted). */
    st->write_offset = (st->wrapped ? e->written % e->ram_nyb : e->written) / 2;
    st->lost_nybbles = e->dropped + (st->wrapped ? e->written - e->ram_nyb : 0);
}

/* ---- recorder ----------------------------------------------------------- */

/* The writer's unit: a field (ctx: the wide flag). */
static unsigned field_len(const uint8_t *nyb, size_t avail, const void *wide)
{
    return cdl_field_len(nyb, avail, *(const bool *)wide);
}

/* Record one field, or a run of skip nybbles (each its own field). */
static int record_nybbles(struct cdl_enc *e, const uint8_t *nyb, size_t n)
{
    e->emitted += n;
    e->since_sync += n;
    if (e->cfg.buffer) {
        for (size_t i = 0; i < n; i++) {
            if (e->cfg.overflow == CDL_OVF_HALT && e->written >= e->ram_nyb) {
                e->halted = true;
                e->dropped += n - i;
                return 0;
            }
            e->ram[e->written % e->ram_nyb] = nyb[i];
            e->written++;
        }
        return 0;
    }
    bool skips = nyb[0] == 0; /* a run of skip nybbles, each its own field */
    return rvt_nyb_writer_put(&e->stream, nyb, n, skips ? n - 1 : 0, skips);
}

static int put_field(struct cdl_enc *e, const struct cdl_field *f)
{
    uint8_t nyb[CDL_MAX_FIELD_NYBBLES];
    unsigned n = cdl_field_encode(f, cdl_cfg_fmt(&e->cfg), nyb);
    e->fields++;
    return record_nybbles(e, nyb, n);
}

/* ---- per-cycle trace: ingress record -> cycles ----------------------------- */

static bool uninferable_itype(unsigned itype)
{
    return itype == RVT_ITYPE_UNINF_JUMP3 || itype == RVT_ITYPE_CALL_UNINF || itype == RVT_ITYPE_JUMP_UNINF ||
           itype == RVT_ITYPE_COSWAP || itype == RVT_ITYPE_RETURN || itype == RVT_ITYPE_OTHER_UNINF;
}

int cdl_record_cycles(const struct rvt_ing_rec *r, uint64_t n, bool have_next, uint64_t next,
                      int (*fn)(void *ctx, const struct cdl_cycle *c), void *ctx)
{
    int rc;
    struct cdl_cycle c;
    unsigned it = r->itype;
    bool trap = it == RVT_ITYPE_EXCEPTION || it == RVT_ITYPE_INTERRUPT;
    /* All but the last instruction retire sequentially. */
    if (n > 1) {
        memset(&c, 0, sizeof c);
        c.count = n - 1;
        c.retired = true;
        c.nonseq = -1;
        c.first = r->iaddr;
        if ((rc = fn(ctx, &c)) < 0)
            return rc;
    }
    if (n) {
        memset(&c, 0, sizeof c);
        c.count = 1;
        c.retired = true;
        c.nonseq = -1;
        if (!trap) {
            if (it == RVT_ITYPE_TAKEN)
                c.nonseq = CDL_NS_BRANCH;
            else if (it == RVT_ITYPE_TRAPRET)
                c.nonseq = CDL_NS_TRAPRET;
            else if (it >= RVT_ITYPE_UNINF_JUMP3 && it != 7)
                c.nonseq = CDL_NS_JUMP;
        }
        c.uninferable = c.nonseq == CDL_NS_TRAPRET || (c.nonseq == CDL_NS_JUMP && uninferable_itype(it));
        c.have_target = c.nonseq >= 0 && have_next;
        c.target = next;
        c.rfw = (r->flags & RVT_ING_HAS_RD) != 0;
        c.rd = r->rd;
        c.rfw_value = r->rd_value;
        c.tracepoint = (r->flags & RVT_ING_TRACEPOINT) != 0;
        c.tp_type = (uint8_t)(r->tp_type & 0xf);
        c.notify = (r->flags & RVT_ING_NOTIFY) != 0;
        c.addr = rvt_ing_last_addr(r);
        c.first = c.addr;
        if ((rc = fn(ctx, &c)) < 0)
            return rc;
    }
    if (trap) {
        /* The trap follows the retired instructions; a synchronous
         * exception's faulting instruction (epc) did not retire. */
        memset(&c, 0, sizeof c);
        c.count = 1;
        c.nonseq = CDL_NS_TRAP;
        c.uninferable = true;
        c.have_target = have_next;
        c.target = next;
        c.epc = rvt_ing_next_addr(r);
        c.first = c.epc;
        if ((rc = fn(ctx, &c)) < 0)
            return rc;
    }
    return 0;
}

/* ---- compressor: packed record -> fields in the seed's order ---------------- */

/* A value longer than the seed's longest data field is refused, never cut
 * (docs/cdl.md, "Data lengths"). */
static int too_wide(struct cdl_enc *e, const char *what, unsigned bytes)
{
    return rvt_fail(&e->diag, RVT_ERR_UNSUPPORTED,
                    "cdl: %s needs %u data bytes, but a data field holds at most %u (length code 7 = 14 nybbles, the "
                    "seed's reading); --cdl-data wide (an rvtrace extension: code 7 = 9 bytes) records it",
                    what, bytes, CDL_SEED_MAX_DATA_BYTES);
}

static int put_pc(struct cdl_enc *e, uint64_t pc)
{
    struct cdl_field f;
    if (!cdl_field_pc(&f, pc, cdl_cfg_fmt(&e->cfg))) {
        char what[64];
        snprintf(what, sizeof what, "PC 0x%" PRIx64, pc);
        return too_wide(e, what, cdl_pc_bytes(pc, e->cfg.xlen));
    }
    return put_field(e, &f);
}

/* A field of one nybble (a count, a non-sequential reason): most of a
 * trace's fields, put without the general field encoder (its encoding is
 * cdl_field_encode's: 0ccc, 10rr). */
static int put_nybble_field(struct cdl_enc *e, uint8_t nyb)
{
    e->fields++;
    return record_nybbles(e, &nyb, 1);
}

static int compress(struct cdl_enc *e, const struct cdl_packed *p)
{
    int rc;
    struct cdl_field f;
    if (p->seq && (rc = put_nybble_field(e, (uint8_t)(p->seq & 7))) < 0)
        return rc;
    if (p->nonseq >= 0 && (rc = put_nybble_field(e, (uint8_t)(0x8 | (p->nonseq & 3)))) < 0)
        return rc;
    if (p->has_pc && (rc = put_pc(e, p->pc)) < 0)
        return rc;
    if (p->has_rfw) {
        if (!cdl_field_rfw(&f, p->rd, p->rfw_value, cdl_cfg_fmt(&e->cfg))) {
            char what[96];
            snprintf(what, sizeof what, "the register write %s%u = 0x%" PRIx64 " (register number + value)",
                     p->rd >= 32 ? "f" : "x", p->rd & 31u, p->rfw_value);
            return too_wide(e, what, cdl_rfw_bytes(p->rd, p->rfw_value, e->cfg.xlen));
        }
        if ((rc = put_field(e, &f)) < 0)
            return rc;
    }
    if (p->has_tp) {
        f = (struct cdl_field){.kind = CDL_F_TRACEPOINT, .tp = p->tp_type};
        if ((rc = put_field(e, &f)) < 0)
            return rc;
    }
    return 0;
}

/* ---- packer: cycles -> packed records ----------------------------------------- */

static bool flow_on(const struct cdl_enc *e)
{
    return (e->cfg.pack & CDL_PACK_FLOW) != 0;
}

static void packed_init(struct cdl_packed *p)
{
    memset(p, 0, sizeof *p);
    p->nonseq = -1;
}

/* A record of only the retired-but-unreported count (prior cycles). */
static int flush_seq(struct cdl_enc *e)
{
    if (!e->unreported)
        return 0;
    struct cdl_packed p;
    packed_init(&p);
    p.seq = (uint8_t)e->unreported;
    e->unreported = 0;
    return compress(e, &p);
}

static int sync_mark(struct cdl_enc *e, uint64_t next_pc);

/* Periodic sync marks go "between cycles of data from the packed trace at
 * regular intervals" (seed 000, "Recording a compressed trace"): rvtrace
 * puts one at the first cycle boundary after a non-sequential field once
 * --cdl-sync-interval nybbles were written since the last mark.  That
 * boundary is in the trace itself (the decoder checks that the mark is
 * there), not where the ingress happened to split its records: a record
 * boundary for a privilege or context change, which CDL does not carry,
 * would put the mark where re-encoding the decoded instructions does not.
 * (The logs without the flow have no such boundaries: there every record
 * boundary is one, cdl_enc_put.) */
static int periodic_mark(struct cdl_enc *e, const struct cdl_cycle *c)
{
    bool due = e->after_nonseq && e->cfg.sync_interval && e->since_sync >= e->cfg.sync_interval;
    e->after_nonseq = c->nonseq >= 0;
    return due ? sync_mark(e, c->first) : 0;
}

static int pack_cycle(void *ctx, const struct cdl_cycle *c)
{
    struct cdl_enc *e = ctx;
    int rc;
    struct cdl_packed p;
    packed_init(&p);
    if (flow_on(e) && (rc = periodic_mark(e, c)) < 0)
        return rc;
    if (c->retired)
        e->done_insns += c->count;
    bool rfw = c->retired && c->rfw && (e->cfg.pack & CDL_PACK_RFW);
    bool tp = c->retired && c->tracepoint && (e->cfg.pack & CDL_PACK_TRACEPOINTS);

    if (!flow_on(e)) {
        /* Logs: register writes and tracepoints in order; a trap as its
         * epc (the next instruction that would have retired), the trap,
         * its handler. */
        if (c->nonseq == CDL_NS_TRAP && (e->cfg.pack & CDL_PACK_TRAPS)) {
            p.has_pc = true;
            p.pc = c->epc;
            if ((rc = compress(e, &p)) < 0)
                return rc;
            packed_init(&p);
            p.nonseq = CDL_NS_TRAP;
            p.has_pc = c->have_target;
            p.pc = c->target;
            return compress(e, &p);
        }
        p.has_rfw = rfw;
        p.rd = c->rd;
        p.rfw_value = c->rfw_value;
        p.has_tp = tp;
        p.tp_type = c->tp_type;
        return rfw || tp ? compress(e, &p) : 0;
    }

    if (c->notify && c->retired) {
        /* A trigger's notify: the instruction's address, explicitly (the
         * PC of the next instruction to retire, after the count before
         * it). */
        if ((rc = flush_seq(e)) < 0 || (rc = put_pc(e, c->addr)) < 0)
            return rc;
    }
    if (c->nonseq < 0) {
        /* Sequential: counted; reported when the count reaches 7, or at
         * once (before its data) if the instruction has data. */
        uint64_t n = c->count;
        while (n) {
            uint64_t take = 7 - e->unreported < n ? 7 - e->unreported : n;
            e->unreported += (unsigned)take;
            n -= take;
            if (e->unreported == 7 && (rc = flush_seq(e)) < 0)
                return rc;
        }
        if (!rfw && !tp)
            return 0;
        p.seq = (uint8_t)e->unreported;
        e->unreported = 0;
    } else {
        /* Non-sequential: the prior count, the reason, the target when the
         * configuration asks for it, then the instruction's data. */
        p.seq = (uint8_t)e->unreported;
        e->unreported = 0;
        p.nonseq = (int8_t)c->nonseq;
        p.has_pc = c->have_target && (e->cfg.pc_mode == CDL_PC_ALL || c->uninferable);
        p.pc = c->target;
    }
    p.has_rfw = rfw;
    p.rd = c->rd;
    p.rfw_value = c->rfw_value;
    p.has_tp = tp;
    p.tp_type = c->tp_type;
    return compress(e, &p);
}

/* ---- recorder: sync marks between cycles -------------------------------------- */

static int sync_mark(struct cdl_enc *e, uint64_t next_pc)
{
    int r = flush_seq(e);
    if (r < 0)
        return r;
    uint8_t zeros[64] = {0};
    unsigned n = e->cfg.sync_nybbles;
    while (n) {
        unsigned k = n > sizeof zeros ? (unsigned)sizeof zeros : n;
        if ((r = record_nybbles(e, zeros, k)) < 0)
            return r;
        n -= k;
    }
    if (rvt_nyb_syncs_add(&e->sp, stream_pos(e), e->done_insns) < 0)
        return rvt_fail(&e->diag, RVT_ERR_NOMEM, "cdl: out of memory");
    if (flow_on(e) && (r = put_pc(e, next_pc)) < 0)
        return r;
    e->since_sync = 0;
    e->sync_due = false;
    return 0;
}

/* The cycles of the pending record, now that its successor is known. */
static int finish_record(struct cdl_enc *e, bool have_next, uint64_t next)
{
    e->have_pending = false;
    return cdl_record_cycles(&e->pend, e->pend_insns, have_next, next, pack_cycle, e);
}

static int count_insns(struct cdl_enc *e, const struct rvt_ing_rec *r, uint64_t *n)
{
    if (r->iretire == 0) {
        *n = 0;
        return 0;
    }
    if (r->iretire == 1u << r->ilastsize) {
        *n = 1;
        return 0;
    }
    if (!e->bc)
        return rvt_fail(&e->diag, RVT_ERR_INVAL,
                        "cdl: record at 0x%" PRIx64 " retires %u halfwords: counting its instructions needs the "
                        "program image (--elf)",
                        r->iaddr, r->iretire);
    int rc = rvt_ing_count_insns(r, e->bc, n);
    if (rc < 0)
        return rvt_fail(&e->diag, (enum rvt_err)-rc,
                        "cdl: cannot count the instructions of the record at 0x%" PRIx64 " (%u halfwords)",
                        r->iaddr, r->iretire);
    return 0;
}

/* Data was dropped after a refused write: the instructions counted since
 * belong to the dropped stretch; the lost marker says so, and the next
 * cycle starts at a sync mark. */
static int resolve_loss(struct cdl_enc *e)
{
    e->unreported = 0;
    rvt_nyb_writer_resume(&e->stream);
    e->sync_due = true;
    struct cdl_field f = {.kind = CDL_F_LOST};
    return put_field(e, &f);
}

/* Everything traced so far is reported: the pending count, then (a stop
 * or the end of the recording) the stop marker. */
static int put_stop(struct cdl_enc *e)
{
    int rc = e->stream.lost ? resolve_loss(e) : flush_seq(e);
    if (rc < 0)
        return rc;
    struct cdl_field f = {.kind = CDL_F_STOP};
    return put_field(e, &f);
}

int cdl_enc_put(struct cdl_enc *e, const struct rvt_ing_rec *r)
{
    int rc;
    if (e->finished)
        return rvt_fail(&e->diag, RVT_ERR_INVAL, "cdl: record after finish");
    if (r->flags & RVT_ING_UNQUALIFIED) {
        /* Filtered out: not traced.  The last traced record's cycles (its
         * successor is this record), the stop marker; the next traced
         * cycle starts with a sync mark and its full PC. */
        if (e->have_pending && (rc = finish_record(e, true, r->iaddr)) < 0)
            return rc;
        if (e->started && !e->off && (rc = put_stop(e)) < 0)
            return rc;
        e->off = true;
        e->sync_due = true;
        return 0;
    }
    uint64_t n;
    if ((rc = count_insns(e, r, &n)) < 0)
        return rc;
    if (n == 0 && r->itype != RVT_ITYPE_EXCEPTION && r->itype != RVT_ITYPE_INTERRUPT)
        return 0; /* nothing retired, nothing happened */
    e->seen |= r->flags & RVT_ING_HAS_RD; /* (the plain runs take no record with flags) */
    e->records++;
    if (e->have_pending && (rc = finish_record(e, true, r->iaddr)) < 0)
        return rc;
    if (e->stream.lost && (rc = resolve_loss(e)) < 0)
        return rc;
    /* Between records: a sync mark when due (the start, after a stop or a
     * loss; the logs' periodic one), with the next cycle's PC. */
    if (e->sync_due || (!flow_on(e) && e->cfg.sync_interval && e->since_sync >= e->cfg.sync_interval)) {
        if ((rc = sync_mark(e, r->iaddr)) < 0)
            return rc;
    }
    e->off = false;
    e->started = true;
    e->insns += n;
    e->pend = *r;
    e->pend_insns = n;
    e->have_pending = true;
    return 0;
}

/* The non-sequential reason of a one-instruction record's cycle (-1:
 * sequential), as cdl_record_cycles gives it for an instruction that
 * retired and did not trap. */
static int nonseq_of(unsigned it)
{
    if (it == RVT_ITYPE_TAKEN)
        return CDL_NS_BRANCH;
    if (it == RVT_ITYPE_TRAPRET)
        return CDL_NS_TRAPRET;
    return it >= RVT_ITYPE_UNINF_JUMP3 && it != 7 ? CDL_NS_JUMP : -1;
}

/* Runs of plain records: one instruction each, no flags, not a trap.
 * cdl_enc_put sends the pending record's cycle when the next record
 * comes; with the flow traced and no sync mark due there (the start,
 * after a stop or a loss, or the periodic one after a non-sequential
 * field), that cycle is a count or one packed record (the count so far,
 * the reason, the target's PC), and this loop packs it as pack_cycle does
 * (a count reported at 7; compress for the non-sequential ones) and makes
 * the next record pending.  It stops where a field could not be written
 * without a write to the sink (the stage's room: a refusal is resolved at
 * the next record) or a PC would not fit a field (an error), so the
 * record it stops at goes to cdl_enc_put with the encoder as the records
 * one by one leave it.  Returns how many records it took from the front
 * of rs[0..n).  (The bytes equal those of the records one by one:
 * tests/cdl/test_nybble_runs.c.)  cdl_enc_put_plain and cdl_enc_put_short
 * (records in short): one loop, made for each (`shorts`) where it is
 * inlined. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline size_t plain_run(struct cdl_enc *e, const bool shorts, const struct rvt_ing_rec *rs,
                               const struct rvt_ing_fast *fs, size_t n, uint8_t priv, uint64_t context)
{
    /* (A sync mark due -- the start, after a stop or a loss -- goes out
     * before a record becomes pending: none is due here.  A loss may be,
     * when the sink refused that mark.) */
    if (e->finished || e->diag.code || !e->have_pending || e->pend_insns != 1 || !flow_on(e) || e->stream.lost ||
        e->pend.flags || e->pend.itype == RVT_ITYPE_EXCEPTION || e->pend.itype == RVT_ITYPE_INTERRUPT)
        return 0;
    const struct cdl_fmt fmt = cdl_cfg_fmt(&e->cfg);
    const unsigned interval = e->cfg.sync_interval;
    /* (at most three fields: count, reason, PC) */
    const size_t room_max = e->cfg.buffer ? SIZE_MAX : RVT_NYB_STAGE - 3 * CDL_MAX_FIELD_NYBBLES;
    unsigned it = e->pend.itype; /* the pending record's, whose cycle the next one sends */
    size_t i = 0;
    for (; i < n; i++) {
        /* (no flags: qualified, no data or notify; a trap's cycles are
         * more than one) */
        uint64_t iaddr;
        unsigned itype;
        if (shorts) {
            /* (rvt_ing_fast_rec: no flags; one instruction of at most
             * 8 halfwords) */
            const struct rvt_ing_fast *f = &fs[i];
            if (!rvt_ing_fast_insn_hw(f))
                break;
            iaddr = f->iaddr;
            itype = f->itype;
        } else {
            const struct rvt_ing_rec *r = &rs[i];
            if (r->flags || r->ilastsize > 3 || r->iretire != 1u << r->ilastsize)
                break;
            iaddr = r->iaddr;
            itype = r->itype;
        }
        if (itype == RVT_ITYPE_EXCEPTION || itype == RVT_ITYPE_INTERRUPT)
            break;
        if (e->after_nonseq && interval && e->since_sync >= interval)
            break; /* periodic_mark's sync mark */
        if (e->stream.nstage > room_max)
            break;
        /* pack_cycle */
        int nonseq = nonseq_of(it);
        if (nonseq < 0) {
            if (++e->unreported == 7)
                (void)flush_seq(e); /* (room checked above: no write to the sink) */
        } else {
            struct cdl_packed pk;
            packed_init(&pk);
            pk.nonseq = (int8_t)nonseq;
            bool uninferable = nonseq == CDL_NS_TRAPRET || (nonseq == CDL_NS_JUMP && uninferable_itype(it));
            pk.has_pc = e->cfg.pc_mode == CDL_PC_ALL || uninferable;
            pk.pc = iaddr;
            if (pk.has_pc && !cdl_pc_fits(pk.pc, fmt))
                break; /* (put_pc's error) */
            pk.seq = (uint8_t)e->unreported;
            e->unreported = 0;
            (void)compress(e, &pk);
        }
        e->after_nonseq = nonseq >= 0;
        it = itype;
    }
    /* cdl_enc_put: each record pending in turn */
    if (i) {
        e->done_insns += i;
        e->records += i;
        e->insns += i;
        if (shorts)
            rvt_ing_fast_rec(&fs[i - 1], priv, context, &e->pend);
        else
            e->pend = rs[i - 1];
    }
    return i;
}

size_t cdl_enc_put_plain(struct cdl_enc *e, const struct rvt_ing_rec *rs, size_t n)
{
    return plain_run(e, false, rs, NULL, n, 0, 0);
}

/* The same over records in short (CDL carries no privilege or context:
 * the pending record keeps them). */
size_t cdl_enc_put_short(struct cdl_enc *e, const struct rvt_ing_fast *fs, size_t n, uint8_t priv, uint64_t context)
{
    return plain_run(e, true, NULL, fs, n, priv, context);
}

int cdl_enc_finish(struct cdl_enc *e)
{
    int rc;
    if (e->finished)
        return 0;
    if (e->have_pending && (rc = finish_record(e, false, 0)) < 0)
        return rc;
    /* The recording ends with a stop marker (after the one of a stop, if
     * tracing was off: a stop followed by nothing would read as the end). */
    if (e->started && (rc = put_stop(e)) < 0)
        return rc;
    e->finished = true;
    /* Complete the last 32-bit word with skip nybbles. */
    static const uint8_t pad[8] = {0};
    uint64_t total = stream_pos(e);
    if (total % 8 && (rc = record_nybbles(e, pad, (size_t)(8 - total % 8))) < 0)
        return rc;
    if (!e->cfg.buffer)
        return rvt_nyb_writer_flush(&e->stream);

    /* Write the recorder's memory out (to the sink, not through the stage). */
    uint64_t count, start;
    bool wrapped = e->written > e->ram_nyb;
    if (e->cfg.image_kind == CDL_IMAGE_RAW) {
        start = 0;
        count = e->ram_nyb;
    } else if (wrapped) {
        start = e->written % e->ram_nyb;
        count = e->ram_nyb;
    } else {
        start = 0;
        count = e->written;
    }
    uint8_t bytes[4096];
    uint64_t done = 0;
    while (done < count) {
        size_t chunk = count - done > 2 * sizeof bytes ? 2 * sizeof bytes : (size_t)(count - done);
        uint8_t nyb[2 * sizeof bytes];
        for (size_t i = 0; i < chunk; i++)
            nyb[i] = e->ram[(start + done + i) % e->ram_nyb];
        rvt_nyb_pack(nyb, chunk, bytes);
        long w = e->stream.out.write(e->stream.out.ctx, bytes, chunk / 2);
        if (w < 0)
            return rvt_fail(&e->diag, (enum rvt_err)-w, "cdl: output write failed");
        if ((size_t)w < chunk / 2)
            e->image_lost += chunk / 2 - (size_t)w;
        done += chunk;
    }
    if (e->cfg.state_path[0]) {
        struct cdl_state st;
        cdl_enc_state(e, &st);
        if ((rc = cdl_state_write(e->cfg.state_path, &st, &e->diag)) < 0)
            return rc;
    }
    return 0;
}

int cdl_enc_new(struct cdl_enc **ep, const struct cdl_cfg *cfg, const struct rvt_byte_sink *out, struct rvt_diag *d)
{
    *ep = NULL;
    if (cfg->xlen != 32 && cfg->xlen != 64)
        return rvt_fail(d, RVT_ERR_INVAL, "cdl: xlen must be 32 or 64 (got %u)", cfg->xlen);
    struct cdl_enc *e = calloc(1, sizeof *e);
    if (!e)
        return rvt_fail(d, RVT_ERR_NOMEM, "cdl: out of memory");
    e->cfg = *cfg;
    rvt_nyb_writer_init(&e->stream, out, "cdl", &e->diag, field_len, &e->cfg.wide, &e->sp);
    e->sync_due = true; /* the trace starts with a sync mark and a full PC */
    if (cfg->image && !(e->bc = rvt_bcache_new(cfg->image, 0))) {
        free(e);
        return rvt_fail(d, RVT_ERR_NOMEM, "cdl: out of memory");
    }
    if (cfg->buffer) {
        e->ram_nyb = 2 * cfg->buffer;
        e->ram = calloc((size_t)e->ram_nyb, 1);
        if (!e->ram) {
            cdl_enc_free(e);
            return rvt_fail(d, RVT_ERR_NOMEM, "cdl: cannot allocate a %" PRIu64 "-byte recorder buffer",
                            cfg->buffer);
        }
    }
    *ep = e;
    return 0;
}

void cdl_enc_free(struct cdl_enc *e)
{
    if (!e)
        return;
    if (e->bc)
        rvt_bcache_free(e->bc);
    free(e->ram);
    rvt_nyb_syncs_free(&e->sp);
    free(e);
}
