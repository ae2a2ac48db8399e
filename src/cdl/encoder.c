/* CDL compressed trace encoder: ingress records -> per-cycle trace ->
 * packed cycles -> nybble fields -> recorder (sync marks, word packing,
 * circular buffer that wraps or halts).
 *
 * One retired instruction is one cycle.  An ingress record is a run of
 * sequential cycles ended by the cycle of its last instruction (whose
 * non-sequential reason comes from itype) and, for itype 1/2, a trap cycle.
 * The record's optional register write and tracepoint describe its last
 * instruction.  Targets are the next record's address, so the last cycle of
 * a record is packed when the next record arrives (or at finish).
 */
#include "cdl/cdl.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Nybbles staged before packing them into words for the output. */
#define STAGE_NYBBLES 8192

struct cdl_enc {
    struct cdl_cfg cfg;
    struct rvt_byte_sink out;
    struct rvt_diag diag;
    struct rvt_bcache *bc;

    bool have_pending;
    struct rvt_ing_rec pend;

    unsigned unreported;   /* sequential instructions retired but not yet in a seq field */
    bool sync_due;         /* put a sync mark before the next cycle */
    uint64_t since_sync;   /* nybbles since the last sync mark */

    uint64_t insns, records, fields;
    uint64_t emitted;      /* nybbles produced by the compressor */

    /* Stream output (buffer == 0). */
    uint8_t stage[STAGE_NYBBLES];
    size_t nstage;
    uint64_t bytes_out, bytes_lost;

    /* Recorder buffer (buffer > 0): one nybble per byte, 2*buffer entries. */
    uint8_t *ram;
    uint64_t ram_nyb;
    uint64_t written;      /* nybbles offered to the recorder */
    uint64_t dropped;      /* nybbles refused (halt) */
    bool halted;

    struct cdl_sync_point *sp;
    size_t nsp, capsp;
    bool finished;
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
        st->lost = (e->dropped + (e->written > e->ram_nyb ? e->written - e->ram_nyb : 0) + 1) / 2;
    else
        st->lost = e->bytes_lost;
}

size_t cdl_enc_sync_points(const struct cdl_enc *e, const struct cdl_sync_point **pts)
{
    *pts = e->sp;
    return e->nsp;
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

static int flush_stage(struct cdl_enc *e, bool all)
{
    size_t n = all ? e->nstage : e->nstage & ~(size_t)7; /* whole 32-bit words */
    if (!n)
        return 0;
    uint8_t bytes[STAGE_NYBBLES / 2];
    cdl_pack(e->stage, n, bytes);
    size_t nb = n / 2;
    long w = e->out.write(e->out.ctx, bytes, nb);
    if (w < 0)
        return rvt_fail(&e->diag, (enum rvt_err)-w, "cdl: output write failed after %" PRIu64 " bytes",
                        e->bytes_out);
    e->bytes_out += (uint64_t)w;
    if ((size_t)w < nb) {
        /* The sink dropped data: the decoder will see a break, so put a sync
         * mark (and a full PC) at the next cycle boundary. */
        e->bytes_lost += nb - (size_t)w;
        e->sync_due = true;
    }
    memmove(e->stage, e->stage + n, e->nstage - n);
    e->nstage -= n;
    return 0;
}

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
    while (n) {
        size_t take = STAGE_NYBBLES - e->nstage;
        if (take > n)
            take = n;
        memcpy(e->stage + e->nstage, nyb, take);
        e->nstage += take;
        nyb += take;
        n -= take;
        if (e->nstage == STAGE_NYBBLES) {
            int r = flush_stage(e, false);
            if (r < 0)
                return r;
        }
    }
    return 0;
}

static int put_field(struct cdl_enc *e, const struct cdl_field *f)
{
    uint8_t nyb[CDL_MAX_FIELD_NYBBLES];
    unsigned n = cdl_field_encode(f, e->cfg.xlen, nyb);
    e->fields++;
    return record_nybbles(e, nyb, n);
}

/* ---- packer ------------------------------------------------------------- */

static bool flow_on(const struct cdl_enc *e)
{
    return (e->cfg.pack & CDL_PACK_FLOW) != 0;
}

/* Report all retired-but-unreported instructions in seq fields. */
static int flush_seq(struct cdl_enc *e)
{
    while (e->unreported) {
        unsigned s = e->unreported > 7 ? 7 : e->unreported;
        struct cdl_field f = {.kind = CDL_F_SEQ, .seq = (uint8_t)s};
        int r = put_field(e, &f);
        if (r < 0)
            return r;
        e->unreported -= s;
    }
    return 0;
}

/* Sequential instructions: counted, reported in 7s as the count fills. */
static int add_seq(struct cdl_enc *e, uint64_t n)
{
    if (!flow_on(e))
        return 0;
    while (n) {
        uint64_t room = 7 - e->unreported;
        uint64_t take = n < room ? n : room;
        e->unreported += (unsigned)take;
        n -= take;
        if (e->unreported == 7) {
            int r = flush_seq(e);
            if (r < 0)
                return r;
        }
    }
    return 0;
}

static int put_pc(struct cdl_enc *e, uint64_t pc)
{
    struct cdl_field f;
    cdl_field_pc(&f, pc, e->cfg.xlen);
    return put_field(e, &f);
}

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
    if (e->nsp == e->capsp) {
        size_t nc = e->capsp ? 2 * e->capsp : 64;
        struct cdl_sync_point *p = realloc(e->sp, nc * sizeof *p);
        if (!p)
            return rvt_fail(&e->diag, RVT_ERR_NOMEM, "cdl: out of memory");
        e->sp = p;
        e->capsp = nc;
    }
    e->sp[e->nsp].nybble = e->emitted;
    e->sp[e->nsp].insns = e->insns;
    e->nsp++;
    if (flow_on(e) && (r = put_pc(e, next_pc)) < 0)
        return r;
    e->since_sync = 0;
    e->sync_due = false;
    return 0;
}

static bool uninferable_itype(unsigned itype)
{
    return itype == RVT_ITYPE_UNINF_JUMP3 || itype == RVT_ITYPE_CALL_UNINF || itype == RVT_ITYPE_JUMP_UNINF ||
           itype == RVT_ITYPE_COSWAP || itype == RVT_ITYPE_RETURN || itype == RVT_ITYPE_OTHER_UNINF;
}

/* Data of the record's last instruction (already reported). */
static int put_insn_data(struct cdl_enc *e, const struct rvt_ing_rec *r)
{
    int rc;
    if ((e->cfg.pack & CDL_PACK_RFW) && (r->flags & RVT_ING_HAS_RD)) {
        struct cdl_field f;
        cdl_field_rfw(&f, r->rd, r->rd_value, e->cfg.xlen);
        if ((rc = put_field(e, &f)) < 0)
            return rc;
    }
    if ((e->cfg.pack & CDL_PACK_TRACEPOINTS) && (r->flags & RVT_ING_TRACEPOINT)) {
        struct cdl_field f = {.kind = CDL_F_TRACEPOINT, .tp = (uint8_t)(r->tp_type & 0xf)};
        if ((rc = put_field(e, &f)) < 0)
            return rc;
    }
    return 0;
}

static bool has_insn_data(const struct cdl_enc *e, const struct rvt_ing_rec *r)
{
    return ((e->cfg.pack & CDL_PACK_RFW) && (r->flags & RVT_ING_HAS_RD)) ||
           ((e->cfg.pack & CDL_PACK_TRACEPOINTS) && (r->flags & RVT_ING_TRACEPOINT));
}

/* Pack the last cycle (and trap cycle) of record p, whose successor is
 * `next` (valid if have_next). */
static int finish_record(struct cdl_enc *e, const struct rvt_ing_rec *p, bool have_next, uint64_t next)
{
    int rc;
    unsigned it = p->itype;
    bool retired = p->iretire > 0;
    bool trap = it == RVT_ITYPE_EXCEPTION || it == RVT_ITYPE_INTERRUPT;
    int nonseq = -1;
    if (retired && !trap) {
        if (it == RVT_ITYPE_TAKEN)
            nonseq = CDL_NS_BRANCH;
        else if (it == RVT_ITYPE_TRAPRET)
            nonseq = CDL_NS_TRAPRET;
        else if (it >= RVT_ITYPE_UNINF_JUMP3 && it != 7)
            nonseq = CDL_NS_JUMP;
    }

    if (!flow_on(e)) {
        if ((rc = put_insn_data(e, p)) < 0)
            return rc;
        if (trap && (e->cfg.pack & CDL_PACK_TRAPS)) {
            /* A trap log: the epc (the next instruction that would have
             * retired), the trap, the handler. */
            struct cdl_field f = {.kind = CDL_F_NONSEQ, .nonseq = CDL_NS_TRAP};
            if ((rc = put_pc(e, rvt_ing_next_addr(p))) < 0 || (rc = put_field(e, &f)) < 0)
                return rc;
            if (have_next && (rc = put_pc(e, next)) < 0)
                return rc;
        }
        return 0;
    }

    if (nonseq < 0) {
        /* The last instruction (if any) continues sequentially. */
        if (retired) {
            if ((rc = add_seq(e, 1)) < 0)
                return rc;
            if (has_insn_data(e, p) && (rc = flush_seq(e)) < 0)
                return rc;
            if ((rc = put_insn_data(e, p)) < 0)
                return rc;
        }
        if (trap) {
            if ((rc = flush_seq(e)) < 0)
                return rc;
            struct cdl_field f = {.kind = CDL_F_NONSEQ, .nonseq = CDL_NS_TRAP};
            if ((rc = put_field(e, &f)) < 0)
                return rc;
            if (have_next && (rc = put_pc(e, next)) < 0)
                return rc;
        }
        return 0;
    }

    if ((rc = flush_seq(e)) < 0)
        return rc;
    struct cdl_field f = {.kind = CDL_F_NONSEQ, .nonseq = (uint8_t)nonseq};
    if ((rc = put_field(e, &f)) < 0)
        return rc;
    bool need_pc = e->cfg.pc_mode == CDL_PC_ALL || nonseq == CDL_NS_TRAPRET ||
                   (nonseq == CDL_NS_JUMP && uninferable_itype(it));
    if (need_pc && have_next && (rc = put_pc(e, next)) < 0)
        return rc;
    return put_insn_data(e, p);
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

int cdl_enc_put(struct cdl_enc *e, const struct rvt_ing_rec *r)
{
    int rc;
    if (e->finished)
        return rvt_fail(&e->diag, RVT_ERR_INVAL, "cdl: record after finish");
    if (r->flags & RVT_ING_UNQUALIFIED) {
        /* Filtered out: not traced.  The next traced cycle starts with a
         * sync mark and its PC, which shows the decoder the gap. */
        if (e->have_pending && (rc = finish_record(e, &e->pend, true, r->iaddr)) < 0)
            return rc;
        e->have_pending = false;
        e->sync_due = true;
        return 0;
    }
    uint64_t n;
    if ((rc = count_insns(e, r, &n)) < 0)
        return rc;
    if (n == 0 && r->itype != RVT_ITYPE_EXCEPTION && r->itype != RVT_ITYPE_INTERRUPT)
        return 0; /* nothing retired, nothing happened */
    e->records++;
    if (e->have_pending && (rc = finish_record(e, &e->pend, true, r->iaddr)) < 0)
        return rc;
    if (e->sync_due || (e->cfg.sync_interval && e->since_sync >= e->cfg.sync_interval)) {
        if ((rc = sync_mark(e, r->iaddr)) < 0)
            return rc;
    }
    /* All but the last instruction retire sequentially (itype describes the
     * last one; for a trap record every instruction in it retired). */
    uint64_t body = n ? n - 1 : 0;
    if ((rc = add_seq(e, body)) < 0)
        return rc;
    e->insns += n;
    e->pend = *r;
    e->have_pending = true;
    return 0;
}

int cdl_enc_finish(struct cdl_enc *e)
{
    int rc;
    if (e->finished)
        return 0;
    e->finished = true;
    if (e->have_pending && (rc = finish_record(e, &e->pend, false, 0)) < 0)
        return rc;
    e->have_pending = false;
    if ((rc = flush_seq(e)) < 0)
        return rc;
    /* Complete the last 32-bit word with skip nybbles. */
    static const uint8_t pad[8] = {0};
    uint64_t total = e->emitted;
    if (total % 8 && (rc = record_nybbles(e, pad, (size_t)(8 - total % 8))) < 0)
        return rc;
    if (!e->cfg.buffer)
        return flush_stage(e, true);

    /* Write the recorder's memory out. */
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
        cdl_pack(nyb, chunk, bytes);
        long w = e->out.write(e->out.ctx, bytes, chunk / 2);
        if (w < 0)
            return rvt_fail(&e->diag, (enum rvt_err)-w, "cdl: output write failed");
        e->bytes_out += (uint64_t)w;
        if ((size_t)w < chunk / 2)
            e->bytes_lost += chunk / 2 - (size_t)w;
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
    e->out = *out;
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
    free(e->sp);
    free(e);
}
