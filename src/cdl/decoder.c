/* CDL compressed trace decoder: nybbles -> the shared flow engine, or,
 * without a code image, blocks rebuilt from the recorded counts and PCs.
 *
 * Replay first finds a sync point (see cdl_next_sync), then applies each
 * field: sequential counts and non-sequential reasons walk the image
 * through rvt_flow_walk; PC data resolves jump/trap targets or resyncs.
 * Any disagreement (a count running into a jump, a PC the code cannot
 * reach, a malformed field) is reported with its byte offset and decoding
 * resumes at the next sync point.
 *
 * The stop marker is a trace-off gap (RVT_GAP_TRACE_OFF), unless nothing
 * follows it: then it is the end of the recording.  The lost marker is a
 * loss (RVT_GAP_LOST); so is a recording that does not end with a stop
 * marker (the output stopped taking data, or the buffer halted).
 */
#include "cdl/cdl.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum pending {
    PEND_NONE = 0,
    PEND_CHECK,   /* target known from the code; a PC field may confirm it */
    PEND_TARGET,  /* uninferable jump / trap return: needs a PC field */
    PEND_TRAP     /* trap taken: the PC field is the handler */
};

struct cdl_dec {
    struct cdl_cfg cfg;
    struct rvt_flow *flow;
    struct rvt_diag diag;
    bool nocode;

    /* The stream being decoded (oldest nybble first) and where it came from. */
    const uint8_t *nyb;
    size_t len;
    uint64_t base, total; /* raw nybble offset of stream nybble 0; input nybbles */
    size_t field_pos;

    bool synced;
    bool ended;           /* a stop marker with nothing after it: the recording is complete */
    size_t data_end;      /* stream position after the last non-zero nybble */
    uint64_t seq_acc;     /* sequential instructions counted, not yet walked */
    size_t seq_pos;       /* position of the first of those counts */
    unsigned zero_run;    /* skip nybbles just before the current field */
    bool after_mark;      /* the current field follows a sync mark */
    bool expect_mark;     /* a stop or lost marker was read: a sync mark and PC (or a final stop) must follow */
    bool have_mark;       /* a sync mark was read since the last marker or error: mark_end is valid */
    size_t mark_end;      /* position after it (and its PC field) */
    uint8_t rec_state;    /* after a non-sequential field: 1 its target PC may follow, 2 its data; 0 else */
    uint64_t marker_off;  /* ...its byte offset */
    enum pending pending;
    uint64_t pend_addr;   /* address of the instruction that left `pending` */
    uint8_t pend_ns;      /* its non-sequential reason */
    bool data_first;      /* a register write or tracepoint came while the pending target's PC was still due */

    /* Without code: the block being rebuilt. */
    uint64_t blk_start, blk_n, blk_index, nc_index;

    uint64_t errors;
    char text[512];
};

const char *cdl_dec_error(const struct cdl_dec *dec)
{
    return dec->diag.msg;
}

/* Raw nybble offset in the input of stream position pos (a rotated raw
 * image wraps; the end of a linear one stays at its length). */
static uint64_t raw_nyb(const struct cdl_dec *dec, size_t pos)
{
    uint64_t raw = dec->base + pos;
    return dec->total && dec->base && raw >= dec->total ? raw % dec->total : raw;
}

static uint64_t byte_offset(const struct cdl_dec *dec, size_t pos)
{
    return raw_nyb(dec, pos) / 2;
}

static int note(struct cdl_dec *dec, uint8_t kind, uint8_t reason, uint64_t addr, uint64_t value, uint64_t index,
                const char *text)
{
    struct rvt_note n;
    memset(&n, 0, sizeof n);
    n.kind = kind;
    n.reason = reason;
    n.addr = addr;
    n.value = value;
    n.index = index;
    n.offset = byte_offset(dec, dec->field_pos);
    n.text = text;
    return rvt_flow_note(dec->flow, &n);
}

/* A data value for instruction `index` (UINT64_MAX: not known). */
static int data_note(struct cdl_dec *dec, uint8_t kind, uint64_t addr, uint64_t value, uint64_t index)
{
    int rc = note(dec, RVT_NOTE_DATA, kind, addr, value, index, NULL);
    return rc < 0 ? rc : 1;
}

/* A trace error at the current field: report it, drop the flow state; the
 * caller resynchronises.  Returns <0 only if the decode must stop. */
static int trace_error(struct cdl_dec *dec, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static int trace_error(struct cdl_dec *dec, const char *fmt, ...)
{
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    uint64_t raw = raw_nyb(dec, dec->field_pos);
    snprintf(dec->text, sizeof dec->text, "cdl: offset 0x%" PRIx64 " (nybble %u): %s", raw / 2, (unsigned)(raw & 1),
             what);
    if (dec->cfg.strict)
        rvt_fail(&dec->diag, RVT_ERR_MISMATCH, "%s", dec->text);
    dec->errors++;
    dec->synced = false;
    dec->expect_mark = dec->have_mark = false;
    dec->rec_state = 0;
    dec->seq_acc = 0;
    dec->pending = PEND_NONE;
    dec->data_first = false;
    int rc;
    if (dec->nocode) {
        rc = note(dec, RVT_NOTE_ERROR, RVT_GAP_ERROR, 0, 0, dec->nc_index, dec->text);
        dec->blk_n = 0;
    } else {
        rvt_flow_set_offset(dec->flow, byte_offset(dec, dec->field_pos));
        rc = rvt_flow_gap(dec->flow, RVT_GAP_ERROR, dec->text);
    }
    if (rc < 0)
        return rc;
    return dec->cfg.strict ? -RVT_ERR_MISMATCH : 0;
}

/* ---- with code ------------------------------------------------------------ */

static const char *ns_name(unsigned ns)
{
    static const char *const n[4] = {"taken branch", "jump", "trap", "trap return"};
    return n[ns & 3];
}

static int flow_failed(struct cdl_dec *dec, const char *what, int rc)
{
    if (rc == -RVT_ERR_NOMEM)
        return rvt_fail(&dec->diag, RVT_ERR_NOMEM, "cdl: out of memory");
    return trace_error(dec, "%s: %s", what, rvt_flow_error(dec->flow));
}

/* A field other than PC data arrived: a pending target must have been known. */
static int settle_pending(struct cdl_dec *dec)
{
    dec->data_first = false;
    if (dec->pending == PEND_TARGET || dec->pending == PEND_TRAP)
        return trace_error(dec, "expected PC data after the %s at 0x%" PRIx64 ", the code cannot tell its target",
                           ns_name(dec->pend_ns), dec->pend_addr);
    /* --cdl-pc all: the recorder writes "the target when the configuration
     * asks for it" after every non-sequential field (only a stop or lost
     * marker, which settle the record themselves, can come first). */
    if (dec->pending == PEND_CHECK && dec->cfg.pc_mode == CDL_PC_ALL)
        return trace_error(dec, "expected PC data after the %s at 0x%" PRIx64 " (--cdl-pc all: a PC follows every "
                                "non-sequential field)",
                           ns_name(dec->pend_ns), dec->pend_addr);
    dec->pending = PEND_NONE;
    return 1;
}


/* Does the instruction class end a run of sequential instructions?  An
 * ecall/ebreak does unless it fell through (user-mode emulation). */
static bool is_jump_cf(const struct cdl_dec *dec, unsigned cf)
{
    if (cf == RVT_CF_ECALL || cf == RVT_CF_EBREAK)
        return dec->cfg.ecall != RVT_FLOW_ECALL_SEQUENTIAL;
    return rvt_cf_inferable_jump(cf) || rvt_cf_uninferable(cf);
}

/* Retire `s` sequential instructions and then, if ns is a branch, jump or
 * trap return, the instruction that field reports — in one walk (the
 * instruction limit leaves that last one pending for its resolution). */
static int run_fields(struct cdl_dec *dec, uint64_t s, int ns)
{
    int rc = settle_pending(dec);
    if (rc <= 0)
        return rc;
    bool retiring = ns >= 0 && ns != CDL_NS_TRAP;
    uint64_t n = s + (retiring ? 1 : 0);
    struct rvt_stop st;
    memset(&st, 0, sizeof st);
    if (n) {
        struct rvt_walk w = {.flags = RVT_WALK_NT_DEFAULT | RVT_WALK_STOP_JUMP | RVT_WALK_INSNS, .insns = n};
        if ((rc = rvt_flow_walk(dec->flow, &w, &st)) < 0) {
            char what[64]; /* only built when needed: this is the hot path */
            snprintf(what, sizeof what, "seq %" PRIu64 "%s%s", s, retiring ? " + " : "",
                     retiring ? ns_name((unsigned)ns) : "");
            return flow_failed(dec, what, rc);
        }
        if (st.reason == RVT_STOP_TRAPINSN)
            return trace_error(dec, "%s at 0x%" PRIx64 " traps after %" PRIu64 " of %" PRIu64 " sequential "
                                    "instructions",
                               rvt_cf_name(st.cf == RVT_CF_EBREAK ? RVT_CF_EBREAK : RVT_CF_ECALL), st.pc, st.insns,
                               s);
        if (st.reason != RVT_STOP_COUNT || st.insns != n ||
            (!retiring && (is_jump_cf(dec, st.cf) || st.cf == RVT_CF_TRAPRET)))
            return trace_error(dec, "seq %" PRIu64 ": the instruction at 0x%" PRIx64 " (%s) changes the flow after %" PRIu64
                                    " sequential instructions, expected a non-sequential field for it",
                               s, st.last, rvt_cf_name(st.cf), st.insns);
    }
    if (ns < 0)
        return 1;
    dec->pend_ns = (uint8_t)ns;
    if (ns == CDL_NS_TRAP) {
        dec->pending = PEND_TRAP;
        dec->pend_addr = rvt_flow_pc(dec->flow);
        return 1;
    }
    dec->pend_addr = st.last;
    switch (ns) {
    case CDL_NS_BRANCH:
        if (st.cf != RVT_CF_BRANCH)
            return trace_error(dec, "taken branch: the instruction at 0x%" PRIx64 " is a %s, not a branch", st.last,
                               rvt_cf_name(st.cf));
        if ((rc = rvt_flow_branch(dec->flow, true)) < 0)
            return flow_failed(dec, "taken branch", rc);
        dec->pending = PEND_CHECK;
        return 1;
    case CDL_NS_JUMP:
        if (rvt_cf_inferable_jump(st.cf)) {
            if ((rc = rvt_flow_continue(dec->flow)) < 0)
                return flow_failed(dec, "jump", rc);
            dec->pending = PEND_CHECK;
            return 1;
        }
        if ((rvt_cf_uninferable(st.cf) && st.cf != RVT_CF_TRAPRET) ||
            ((st.cf == RVT_CF_ECALL || st.cf == RVT_CF_EBREAK) && dec->cfg.ecall == RVT_FLOW_ECALL_UNINFERABLE)) {
            dec->pending = PEND_TARGET;
            return 1;
        }
        return trace_error(dec, "jump: the instruction at 0x%" PRIx64 " is a %s, not a jal/jalr", st.last,
                           rvt_cf_name(st.cf));
    default: /* trap return */
        if (st.cf != RVT_CF_TRAPRET)
            return trace_error(dec, "trap return: the instruction at 0x%" PRIx64 " is a %s, not an xRET", st.last,
                               rvt_cf_name(st.cf));
        dec->pending = PEND_TARGET;
        return 1;
    }
}

/* Sequential counts accumulate until another field arrives (one walk for
 * a run of counts and the non-sequential field after them). */
static int flush_seq(struct cdl_dec *dec, int ns)
{
    uint64_t s = dec->seq_acc;
    size_t at = dec->field_pos;
    dec->seq_acc = 0;
    if (!s && ns < 0)
        return 1;
    if (s)
        dec->field_pos = dec->seq_pos; /* errors point at the first count */
    int rc = run_fields(dec, s, ns);
    dec->field_pos = at;
    return rc;
}

static int apply_pc(struct cdl_dec *dec, uint64_t pc)
{
    int rc = 0;
    if (!dec->synced) {
        if ((rc = rvt_flow_sync(dec->flow, pc, 0, 0, true)) < 0)
            return flow_failed(dec, "sync", rc);
        dec->synced = true;
        dec->pending = PEND_NONE;
        return 1;
    }
    enum pending p = dec->pending;
    dec->pending = PEND_NONE;
    switch (p) {
    case PEND_TARGET:
        if ((rc = rvt_flow_jump(dec->flow, pc)) < 0)
            return flow_failed(dec, "jump target", rc);
        return 1;
    case PEND_TRAP:
        if ((rc = rvt_flow_trap(dec->flow, false, 0, 0, true, pc)) < 0)
            return flow_failed(dec, "trap handler", rc);
        return 1;
    default: {
        /* The last walk's successor is decided by the code: settle it. */
        if (rvt_flow_pending(dec->flow) && (rc = rvt_flow_continue(dec->flow)) < 0)
            return flow_failed(dec, "PC data", rc);
        uint64_t at = rvt_flow_pc(dec->flow);
        if (rvt_flow_have_pc(dec->flow) && at == pc)
            return 1;
        /* Trace off and dropped data have their own markers: a sync mark
         * with another address means the trace in between is damaged. */
        if (dec->after_mark)
            rc = trace_error(dec, "the trace resumes at 0x%" PRIx64 " after a sync mark, but the code continues at "
                                  "0x%" PRIx64 " (data lost or damaged in between)",
                             pc, at);
        else
            rc = trace_error(dec, "PC data 0x%" PRIx64 " but the code continues at 0x%" PRIx64, pc, at);
        if (rc < 0)
            return rc;
        /* The PC field itself is sound: restart there. */
        if ((rc = rvt_flow_sync(dec->flow, pc, 0, 0, true)) < 0)
            return flow_failed(dec, "sync", rc);
        dec->synced = true;
        return 1;
    }
    }
}

/* ---- markers (all modes) ------------------------------------------------- */

static int nc_emit(struct cdl_dec *dec, uint8_t end, uint64_t next);

/* A stop or lost marker: everything before it is reported, then the gap.
 * A stop marker with nothing but skips after it ends the recording. */
static int apply_marker(struct cdl_dec *dec, const struct cdl_field *f)
{
    int rc;
    bool lost = f->kind == CDL_F_LOST;
    bool end = !lost && dec->field_pos + 2 >= dec->data_end;
    bool flow = (dec->cfg.pack & CDL_PACK_FLOW) != 0;
    bool was_synced = dec->synced;
    if (end)
        dec->ended = true;
    if (dec->synced && flow) {
        /* A jump or trap whose target was not traced before the trace
         * ended or stopped leaves nothing pending. */
        if (!dec->seq_acc && (dec->pending == PEND_TARGET || dec->pending == PEND_TRAP))
            dec->pending = PEND_NONE;
        if (dec->nocode) {
            dec->pending = PEND_NONE;
            if ((rc = nc_emit(dec, end ? RVT_END_SEQ : RVT_END_GAP, 0)) < 0)
                return rc;
        } else if ((rc = flush_seq(dec, -1)) <= 0) {
            return rc;
        }
    }
    dec->synced = false;
    dec->pending = PEND_NONE;
    dec->seq_acc = 0;
    if (!end) {
        dec->expect_mark = true;
        dec->marker_off = byte_offset(dec, dec->field_pos);
    }
    dec->have_mark = false; /* the next mark is due at once */
    if (end || (!lost && !was_synced))
        return 1; /* the end, or a stop where nothing was being traced */
    uint64_t off = byte_offset(dec, dec->field_pos);
    if (lost)
        snprintf(dec->text, sizeof dec->text,
                 "cdl: offset 0x%" PRIx64 ": trace data was dropped here (lost marker: the output refused it)", off);
    else
        snprintf(dec->text, sizeof dec->text, "cdl: offset 0x%" PRIx64 ": trace stopped (stop marker)", off);
    uint8_t reason = lost ? RVT_GAP_LOST : RVT_GAP_TRACE_OFF;
    if (dec->nocode || !flow)
        rc = note(dec, RVT_NOTE_GAP, reason, 0, 0, dec->nocode ? dec->nc_index : UINT64_MAX, dec->text);
    else
        rc = rvt_flow_gap(dec->flow, (enum rvt_gap_reason)reason, dec->text);
    return rc < 0 ? rc : 1;
}

static int apply_code(struct cdl_dec *dec, const struct cdl_field *f)
{
    int rc;
    if (f->kind == CDL_F_SKIP)
        return 1;
    if (f->kind == CDL_F_STOP || f->kind == CDL_F_LOST)
        return apply_marker(dec, f);
    if (!dec->synced && f->kind != CDL_F_DATA)
        return 1;
    if (f->kind == CDL_F_SEQ) {
        if (!dec->seq_acc)
            dec->seq_pos = dec->field_pos;
        dec->seq_acc += f->seq;
        return 1;
    }
    if (f->kind == CDL_F_NONSEQ)
        return flush_seq(dec, f->nonseq);
    if (dec->synced && (rc = flush_seq(dec, -1)) <= 0)
        return rc;
    uint64_t retired = rvt_flow_insns(dec->flow);
    /* A record is "the prior count, the reason, the target when the
     * configuration asks for it, then the instruction's data" (the
     * recorder): data before a due target is only right when no target
     * follows (the end of the trace or of tracing), so a PC after it is
     * out of order. */
    bool due = dec->pending == PEND_TARGET || dec->pending == PEND_TRAP ||
               (dec->pending == PEND_CHECK && dec->cfg.pc_mode == CDL_PC_ALL);
    if (f->kind == CDL_F_DATA && f->reason == CDL_DATA_PC) {
        bool late = dec->synced && due && dec->data_first;
        dec->data_first = false;
        if (late && (rc = trace_error(dec, "PC data for the %s at 0x%" PRIx64 " after that instruction's data (the "
                                           "recorder writes the target first)",
                                      ns_name(dec->pend_ns), dec->pend_addr)) <= 0)
            return rc;
    } else if (dec->synced && due) {
        dec->data_first = true;
    }
    switch (f->kind) {
    case CDL_F_DATA:
        if (f->reason == CDL_DATA_PC)
            return apply_pc(dec, f->value);
        return data_note(dec, RVT_DATA_REG_WRITE, f->rd, f->value, dec->synced && retired ? retired - 1 : UINT64_MAX);
    case CDL_F_TRACEPOINT:
        return data_note(dec, RVT_DATA_TRACEPOINT, 0, f->tp, dec->synced && retired ? retired - 1 : UINT64_MAX);
    }
    return 1;
}

/* ---- without code ------------------------------------------------------------ */

static int nc_emit(struct cdl_dec *dec, uint8_t end, uint64_t next)
{
    if (!dec->blk_n)
        return 1;
    struct rvt_block b;
    memset(&b, 0, sizeof b);
    b.start = dec->blk_start;
    b.next = next;
    b.ninsns = dec->blk_n;
    b.index = dec->blk_index;
    b.trace_offset = byte_offset(dec, dec->field_pos);
    b.end = end;
    b.flags = RVT_BLK_LAST_UNKNOWN;
    int rc = rvt_flow_emit_block(dec->flow, &b);
    if (rc < 0)
        return rc;
    dec->blk_index += dec->blk_n;
    dec->blk_n = 0;
    return 1;
}

static int apply_nocode(struct cdl_dec *dec, const struct cdl_field *f)
{
    static const uint8_t ends[4] = {RVT_END_BRANCH, RVT_END_JUMP, RVT_END_TRAP, RVT_END_TRAPRET};
    if (f->kind == CDL_F_SKIP)
        return 1;
    if (f->kind == CDL_F_STOP || f->kind == CDL_F_LOST)
        return apply_marker(dec, f);
    if (f->kind == CDL_F_DATA && f->reason == CDL_DATA_RFW)
        return data_note(dec, RVT_DATA_REG_WRITE, f->rd, f->value,
                         dec->synced && dec->nc_index ? dec->nc_index - 1 : UINT64_MAX);
    if (f->kind == CDL_F_TRACEPOINT)
        return data_note(dec, RVT_DATA_TRACEPOINT, 0, f->tp,
                         dec->synced && dec->nc_index ? dec->nc_index - 1 : UINT64_MAX);
    if (f->kind == CDL_F_DATA) { /* PC */
        if (!dec->synced) {
            dec->synced = true;
            dec->pending = PEND_NONE;
            dec->blk_start = f->value;
            dec->blk_n = 0;
            dec->blk_index = dec->nc_index;
            int rc = note(dec, RVT_NOTE_SYNC, 0, f->value, 0, dec->nc_index, NULL);
            return rc < 0 ? rc : 1;
        }
        uint8_t end = dec->pending ? ends[dec->pend_ns & 3] : RVT_END_SEQ;
        dec->pending = PEND_NONE;
        int rc = nc_emit(dec, end, f->value);
        if (rc < 0)
            return rc;
        dec->blk_start = f->value;
        dec->blk_index = dec->nc_index;
        return 1;
    }
    if (!dec->synced)
        return 1;
    if (dec->pending)
        return trace_error(dec, "%s without PC data: decoding without code needs a PC after every non-sequential "
                                "field (--cdl-pc all) or the ELF",
                           ns_name(dec->pend_ns));
    if (f->kind == CDL_F_SEQ) {
        dec->blk_n += f->seq;
        dec->nc_index += f->seq;
        return 1;
    }
    /* non-sequential */
    if (f->nonseq != CDL_NS_TRAP) {
        dec->blk_n++;
        dec->nc_index++;
    }
    dec->pending = PEND_TARGET;
    dec->pend_ns = f->nonseq;
    return 1;
}

/* ---- without the flow: a log of register writes, traps, tracepoints -------- */

static int apply_log(struct cdl_dec *dec, const struct cdl_field *f)
{
    int rc;
    switch (f->kind) {
    case CDL_F_STOP:
    case CDL_F_LOST:
        dec->synced = dec->synced || f->kind == CDL_F_STOP; /* a log is "traced" from its start */
        return apply_marker(dec, f);
    case CDL_F_DATA:
        if (f->reason == CDL_DATA_RFW)
            return data_note(dec, RVT_DATA_REG_WRITE, f->rd, f->value, UINT64_MAX);
        if (dec->pending == PEND_TRAP) {
            /* The trap at the last PC; this PC is its handler. */
            rc = note(dec, RVT_NOTE_TRAP, 0, dec->pend_addr, 0, UINT64_MAX, NULL);
            if (rc < 0)
                return rc;
        }
        dec->pending = PEND_NONE;
        dec->pend_addr = f->value;
        dec->synced = true;
        return 1;
    case CDL_F_NONSEQ:
        if (f->nonseq == CDL_NS_TRAP && dec->synced)
            dec->pending = PEND_TRAP;
        return 1;
    case CDL_F_TRACEPOINT:
        return data_note(dec, RVT_DATA_TRACEPOINT, 0, f->tp, UINT64_MAX);
    default:
        return 1;
    }
}

/* ---- stream ordering and the main loop ------------------------------------ */

int cdl_order_stream(const struct cdl_cfg *c, const uint8_t *buf, size_t len, uint8_t **nybp, size_t *nlen,
                     uint64_t *base_nybble, struct rvt_diag *d)
{
    *nybp = NULL;
    *nlen = 0;
    *base_nybble = 0;
    uint8_t *nyb = malloc(len ? 2 * len : 1);
    if (!nyb)
        return rvt_fail(d, RVT_ERR_NOMEM, "cdl: out of memory for %zu bytes of trace", len);
    size_t start = 0, count = len;
    if (c->image_kind == CDL_IMAGE_RAW) {
        uint64_t wo = c->write_offset;
        bool wrapped = c->wrapped, have = c->have_write_offset;
        if (c->state_path[0]) {
            struct cdl_state st;
            int rc = cdl_state_read(c->state_path, &st, d);
            if (rc < 0) {
                free(nyb);
                return rc;
            }
            wo = st.write_offset;
            wrapped = st.wrapped;
            have = true;
        }
        if (have && wo > len) {
            free(nyb);
            return rvt_fail(d, RVT_ERR_INVAL,
                            "cdl: write offset 0x%" PRIx64 " is beyond the %zu-byte buffer image", wo, len);
        }
        if (have && wrapped) {
            start = (size_t)wo;
            count = len;
        } else if (have) {
            count = (size_t)wo;
        }
    }
    rvt_nyb_unpack_ring(buf, len, start, count, nyb);
    *nybp = nyb;
    *nlen = 2 * count;
    *base_nybble = 2 * (uint64_t)start;
    return 0;
}

/* Does the stream start between cycles?  Not when it is what is left of a
 * wrapped buffer. */
static bool starts_at_boundary(const struct cdl_cfg *c, size_t len)
{
    if (c->image_kind == CDL_IMAGE_RAW)
        return !c->wrapped && !c->state_path[0];
    return !(c->buffer && c->overflow == CDL_OVF_WRAP && len >= c->buffer);
}

/* Zero nybbles just before pos. */
static unsigned zeros_before(const uint8_t *nyb, size_t pos)
{
    unsigned n = 0;
    while (pos > n && !nyb[pos - n - 1] && n < 0xffff)
        n++;
    return n;
}

/* After a record's non-sequential field (rec_state set): does field f
 * start the next record?  A count or non-sequential field does, and so does
 * a PC field that is not the record's own target (a trigger's notify PC of
 * the next record), which is the first PC after the non-sequential field
 * when the configuration records that target. */
static bool starts_record(const struct cdl_dec *dec, const struct cdl_field *f)
{
    if (f->kind == CDL_F_SEQ || f->kind == CDL_F_NONSEQ)
        return true;
    if (f->kind != CDL_F_DATA || f->reason != CDL_DATA_PC)
        return false;
    bool target = dec->pending == PEND_TARGET || dec->pending == PEND_TRAP ||
                  (dec->pending == PEND_CHECK && dec->cfg.pc_mode == CDL_PC_ALL);
    return dec->rec_state == 2 || !target;
}

int cdl_dec_run(struct cdl_dec *dec, const uint8_t *buf, size_t len)
{
    return cdl_dec_run_segment(dec, buf, len, 0, len);
}

/* Segments (docs/parallel.md) of a stream in write order (not a wrapped
 * image's rotation): one starts at the field after a sync mark, where "a
 * decoder can start at any sync point" (docs/cdl.md: every field's meaning
 * is independent of where a cycle starts; seed 000: "compressed data
 * sequences provides a decoder to synchronize back to"); `from`/`until`
 * are the byte offsets cdl_sync_points gives (the byte holding the field's
 * first nybble or the zero before it).  The next segment's first field
 * (its PC) is still applied here, as the whole decode applies it: it
 * walks the counts before the mark; then the segment stops. */
int cdl_dec_run_segment(struct cdl_dec *dec, const uint8_t *buf, size_t len, size_t from, size_t until)
{
    uint8_t *nyb;
    size_t nlen;
    int rc = cdl_order_stream(&dec->cfg, buf, len, &nyb, &nlen, &dec->base, &dec->diag);
    if (rc < 0)
        return rc;
    dec->nyb = nyb;
    dec->len = nlen;
    dec->total = 2 * (uint64_t)len;
    dec->synced = false;
    dec->ended = false;
    dec->pending = PEND_NONE;
    dec->data_end = 0;
    for (size_t i = nlen; i > 0; i--)
        if (nyb[i - 1]) {
            dec->data_end = i;
            break;
        }

    size_t pos;
    if (!nlen) {
        /* An empty trace: nothing to decode, nothing to report (the caller
         * says so). */
        free(nyb);
        dec->nyb = NULL;
        return 0;
    }
    const bool seam = until < len;
    const size_t stop_nyb = seam ? 2 * until : SIZE_MAX;
    if (from > 0) {
        /* A segment's mark: its first field follows the zeros. */
        pos = 2 * from;
        while (pos < nlen && !nyb[pos])
            pos++;
        goto decode;
    }
    bool boundary = starts_at_boundary(&dec->cfg, len);
    if (!boundary)
        rvt_flow_buffer_wrapped(dec->flow); /* what precedes the first sync mark was overwritten */
    if (!cdl_next_sync(nyb, nlen, 0, &dec->cfg, boundary, &pos)) {
        free(nyb);
        dec->nyb = NULL;
        return rvt_fail(&dec->diag, RVT_ERR_NOSYNC,
                        "cdl: no sync point in %zu bytes: expected a run of %u zero nybbles followed by %s (the "
                        "encoder writes one at the start and every --cdl-sync-interval nybbles)",
                        len, dec->cfg.sync_nybbles,
                        (dec->cfg.pack & CDL_PACK_FLOW) ? "a PC data field" : "a field");
    }
    if (pos) {
        /* Data before the first sync point (the older part of a wrapped
         * buffer, or a capture that started mid-stream) cannot be decoded. */
        size_t nz = 0, first_nz = 0;
        for (size_t i = 0; i < pos; i++)
            if (nyb[i] && !nz++)
                first_nz = i;
        if (nz) {
            /* (Reported where the undecodable data begins.) */
            dec->field_pos = first_nz;
            snprintf(dec->text, sizeof dec->text,
                     "cdl: %zu nybbles before the first sync point at offset 0x%" PRIx64 " cannot be decoded", pos,
                     byte_offset(dec, pos));
            if (dec->nocode)
                rc = note(dec, RVT_NOTE_GAP, RVT_GAP_WRAP, 0, 0, 0, dec->text);
            else {
                rvt_flow_set_offset(dec->flow, byte_offset(dec, first_nz));
                rc = rvt_flow_gap(dec->flow, RVT_GAP_WRAP, dec->text);
            }
            if (rc < 0)
                goto out;
        }
    }

decode:
    rc = 0;
    dec->zero_run = zeros_before(nyb, pos); /* (the mark a sync point follows) */
    bool reached_end = true; /* the parse got to the end of the data */
    size_t cut_at = SIZE_MAX; /* a field cut by the end of the data starts here */
    bool seam_field = false;
    while (pos < nlen) {
        struct cdl_field f;
        dec->field_pos = pos;
        int n = cdl_field_decode(nyb + pos, nlen - pos, cdl_cfg_fmt(&dec->cfg), &f, &dec->diag);
        if (n > 0 && f.kind != CDL_F_SKIP && pos >= stop_nyb) {
            /* The next segment's first field. */
            if (!dec->synced)
                break;
            seam_field = true;
        }
        if (n == 0) {
            /* Cut by the end of the recording (reported below). */
            for (size_t i = pos; i < nlen && cut_at == SIZE_MAX; i++)
                if (nyb[i])
                    cut_at = pos;
            break;
        }
        if (n < 0) {
            char msg[sizeof dec->diag.msg];
            snprintf(msg, sizeof msg, "%s", dec->diag.msg);
            rc = trace_error(dec, "%s", msg);
        } else {
            if (f.kind == CDL_F_SKIP) {
                dec->zero_run++;
                pos++;
                continue;
            }
            dec->after_mark = dec->zero_run >= dec->cfg.sync_nybbles;
            size_t run_start = pos - dec->zero_run;
            dec->zero_run = 0;
            if (!dec->nocode)
                rvt_flow_set_offset(dec->flow, byte_offset(dec, pos));
            bool flow = (dec->cfg.pack & CDL_PACK_FLOW) != 0;
            /* The packer records register writes and tracepoints only when
             * configured to ("configurable so that the packed trace
             * includes a full instruction flow, or perhaps the committed
             * register file writes; it also permits optional tracking of
             * traps and instructions marked as 'tracepoints'", seed 000):
             * a field of a kind the configuration leaves out is damage. */
            bool rfw = f.kind == CDL_F_DATA && f.reason == CDL_DATA_RFW;
            if ((rfw && !(dec->cfg.pack & CDL_PACK_RFW)) ||
                (f.kind == CDL_F_TRACEPOINT && !(dec->cfg.pack & CDL_PACK_TRACEPOINTS))) {
                char got[96];
                cdl_field_format(&f, got, sizeof got);
                rc = trace_error(dec, "%s, but %s are not recorded (--cdl-pack without %s)", got,
                                 rfw ? "register writes" : "tracepoints", rfw ? "rfw" : "tracepoints");
                pos += (size_t)n;
                goto next;
            }
            if (dec->expect_mark) {
                /* The encoder resumes after a stop or lost marker with a sync
                 * mark and the full PC (with the flow traced), or ends the
                 * recording with another stop: anything else is damage. */
                dec->expect_mark = false;
                bool resumes = dec->after_mark && (!flow || (f.kind == CDL_F_DATA && f.reason == CDL_DATA_PC));
                if (!resumes && f.kind != CDL_F_STOP) {
                    char got[96];
                    cdl_field_format(&f, got, sizeof got);
                    rc = trace_error(dec, "after the stop/lost marker at offset 0x%" PRIx64 ": expected a sync mark "
                                          "(%u zero nybbles)%s, got %s%s",
                                     dec->marker_off, dec->cfg.sync_nybbles, flow ? " and a PC field" : "",
                                     dec->after_mark ? "" : "no sync mark and ", got);
                    pos += (size_t)n;
                    goto next;
                }
            }
            if (dec->after_mark && flow && dec->synced &&
                (dec->nocode ? dec->pending != PEND_NONE
                             : dec->pending == PEND_TARGET || dec->pending == PEND_TRAP ||
                                   (dec->pending == PEND_CHECK && dec->cfg.pc_mode == CDL_PC_ALL))) {
                /* Marks go "between cycles of data from the packed trace"
                 * (seed 000): a non-sequential field and its target PC are
                 * one cycle's record, so no mark comes between them. */
                char at[40] = "";
                if (!dec->nocode)
                    snprintf(at, sizeof at, " at 0x%" PRIx64, dec->pend_addr);
                rc = trace_error(dec, "a sync mark between the %s%s and its target PC (sync marks come between "
                                      "cycles, and the target is part of the %s's cycle)",
                                 ns_name(dec->pend_ns), at, ns_name(dec->pend_ns));
                if (rc <= 0) {
                    dec->field_pos = run_start ? run_start - 1 : 0;
                    goto next;
                }
            }
            if (dec->after_mark) {
                /* A periodic sync mark comes at the first cycle boundary once
                 * --cdl-sync-interval nybbles were written since the last
                 * one (ending with its PC field): never earlier, and never
                 * without an interval.  (After a stop or lost marker the
                 * mark is due at once: have_mark is cleared there.)  A mark
                 * too early means data in between is missing. */
                if (dec->have_mark && (!dec->cfg.sync_interval || run_start - dec->mark_end < dec->cfg.sync_interval)) {
                    uint64_t since = run_start - dec->mark_end;
                    dec->have_mark = false;
                    if (!dec->cfg.sync_interval)
                        rc = trace_error(dec, "a sync mark, but marks come only at the start and after a stop or lost "
                                              "marker (--cdl-sync-interval 0)");
                    else
                        rc = trace_error(dec, "a sync mark %" PRIu64 " nybbles after the last one, expected at least "
                                              "%u (--cdl-sync-interval): data in between is missing",
                                         since, dec->cfg.sync_interval);
                    if (rc <= 0) {
                        /* Resynchronise at this mark (it may well be sound). */
                        dec->field_pos = run_start ? run_start - 1 : 0;
                        goto next;
                    }
                }
                dec->have_mark = true;
                dec->mark_end = flow ? pos + (size_t)n : pos;
            } else if (flow && dec->rec_state && starts_record(dec, &f)) {
                /* A non-sequential field ends its ingress record (a block
                 * ends at its one control-flow instruction); the record's
                 * target PC and data fields follow it, and then the next
                 * record starts.  Between records the encoder puts a sync
                 * mark once --cdl-sync-interval nybbles were written since
                 * the last one: none here means fields with it were lost. */
                dec->rec_state = 0;
                if (dec->have_mark && dec->cfg.sync_interval && run_start - dec->mark_end >= dec->cfg.sync_interval) {
                    uint64_t since = run_start - dec->mark_end;
                    rc = trace_error(dec, "no sync mark %" PRIu64 " nybbles after the last one, where one is due "
                                          "after %u (--cdl-sync-interval): data in between is missing",
                                     since, dec->cfg.sync_interval);
                    if (rc <= 0) {
                        dec->field_pos = run_start;
                        goto next;
                    }
                }
            }
            if (dec->after_mark || f.kind == CDL_F_SEQ || f.kind == CDL_F_STOP || f.kind == CDL_F_LOST)
                dec->rec_state = 0;
            else if (f.kind == CDL_F_DATA || f.kind == CDL_F_TRACEPOINT)
                dec->rec_state = dec->rec_state ? 2 : 0;
            if (!flow)
                rc = apply_log(dec, &f);
            else
                rc = dec->nocode ? apply_nocode(dec, &f) : apply_code(dec, &f);
            if (f.kind == CDL_F_NONSEQ)
                dec->rec_state = 1;
            pos += (size_t)n;
        }
    next:
        if (rc < 0)
            goto out;
        if (seam_field)
            break;
        if (rc == 0) {
            /* Resynchronise at the next sync point after the bad field. */
            if (!cdl_next_sync(nyb, nlen, dec->field_pos + 1, &dec->cfg, false, &pos)) {
                reached_end = false;
                break;
            }
            dec->zero_run = zeros_before(nyb, pos);
        }
        rc = 0;
    }

    /* End of the recording: what was traced up to here is whole. */
    size_t end_pos = cut_at != SIZE_MAX ? cut_at : nlen;
    if (!dec->nocode && dec->synced && (dec->cfg.pack & CDL_PACK_FLOW)) {
        dec->field_pos = end_pos;
        if ((rc = flush_seq(dec, -1)) < 0)
            goto out;
        rc = 0;
    }
    if (dec->nocode) {
        if (dec->synced && dec->blk_n) {
            dec->field_pos = end_pos;
            if ((rc = nc_emit(dec, RVT_END_SEQ, 0)) < 0)
                goto out;
        }
    }
    bool halted = dec->cfg.buffer && dec->cfg.overflow == CDL_OVF_HALT && len >= dec->cfg.buffer;
    if (dec->cfg.state_path[0] && dec->cfg.image_kind == CDL_IMAGE_RAW) {
        struct cdl_state st;
        if (cdl_state_read(dec->cfg.state_path, &st, &dec->diag) == 0)
            halted = st.halted;
    }
    /* A complete recording ends with a stop marker; without it (or cut
     * inside a field) the later trace was not recorded. */
    /* "The output is whole 32-bit words: the end is padded with skip
     * nybbles" (docs/cdl.md; the seed stores nybbles in 32-bit words): a
     * recording that ends in part of a word lost or gained bytes. */
    bool part_word = !seam && !halted && reached_end && dec->ended && !dec->cfg.buffer && len % 4 != 0;
    if (!seam && (halted || (reached_end && !dec->ended) || part_word)) {
        dec->field_pos = end_pos;
        /* A halted recorder reports its own loss; a recording that just
         * stops (cut inside a field, or without the stop marker every
         * recording ends with) ends unexpectedly: the decoder contract's
         * RVT_GAP_END, in every mode. */
        uint8_t reason = halted ? RVT_GAP_LOST : RVT_GAP_END;
        if (halted)
            snprintf(dec->text, sizeof dec->text,
                     "cdl: recording halted at offset 0x%" PRIx64 ": the %" PRIu64
                     "-byte buffer was full, later execution was not recorded",
                     (uint64_t)end_pos / 2, dec->cfg.buffer);
        else if (part_word)
            snprintf(dec->text, sizeof dec->text,
                     "cdl: trace ends at offset 0x%zx, inside a 32-bit word (the recorder writes whole words): bytes "
                     "were lost or added",
                     len);
        else if (cut_at != SIZE_MAX)
            snprintf(dec->text, sizeof dec->text,
                     "cdl: trace ends inside a field at offset 0x%" PRIx64 " (%zu nybbles left): later trace was not "
                     "recorded",
                     byte_offset(dec, cut_at), nlen - cut_at);
        else
            snprintf(dec->text, sizeof dec->text,
                     "cdl: trace ends at offset 0x%" PRIx64 " without its end (stop) marker: later trace was not "
                     "recorded (the output stopped taking data, or the capture was cut)",
                     byte_offset(dec, dec->data_end));
        if (dec->nocode || !(dec->cfg.pack & CDL_PACK_FLOW))
            rc = note(dec, RVT_NOTE_GAP, reason, 0, 0, dec->nocode ? dec->nc_index : UINT64_MAX, dec->text);
        else {
            rvt_flow_set_offset(dec->flow, byte_offset(dec, end_pos));
            rc = rvt_flow_gap(dec->flow, (enum rvt_gap_reason)reason, dec->text);
        }
        if (rc < 0)
            goto out;
    }
    rc = rvt_flow_finish(dec->flow);
    if (rc < 0)
        rvt_fail(&dec->diag, (enum rvt_err)-rc, "cdl: %s", rvt_flow_error(dec->flow));
out:
    free(nyb);
    dec->nyb = NULL;
    if (rc < 0 && !dec->diag.code)
        rvt_fail(&dec->diag, (enum rvt_err)-rc, "cdl: decode stopped: %s (%s)", rvt_errstr(rc), rvt_flow_error(dec->flow));
    return rc < 0 ? rc : 0;
}

int cdl_dec_new(struct cdl_dec **dp, const struct cdl_cfg *cfg, struct rvt_flow *flow, struct rvt_diag *d)
{
    *dp = NULL;
    if (cfg->xlen != 32 && cfg->xlen != 64)
        return rvt_fail(d, RVT_ERR_INVAL, "cdl: xlen must be 32 or 64 (got %u)", cfg->xlen);
    struct cdl_dec *dec = calloc(1, sizeof *dec);
    if (!dec)
        return rvt_fail(d, RVT_ERR_NOMEM, "cdl: out of memory");
    dec->cfg = *cfg;
    dec->flow = flow;
    /* Walk the code if the flow engine's image has any. */
    const struct rvt_image *img = rvt_bcache_image(rvt_flow_bcache(flow));
    bool have_code = img && rvt_img_segment_count(img) > 0;
    dec->nocode = cfg->code == CDL_CODE_NONE || (cfg->code == CDL_CODE_AUTO && !have_code);
    if (dec->nocode && cfg->pc_mode != CDL_PC_ALL && (cfg->pack & CDL_PACK_FLOW)) {
        free(dec);
        return rvt_fail(d, RVT_ERR_INVAL,
                        "cdl: decoding without the ELF needs PCs of every non-sequential target (--cdl-pc all)");
    }
    *dp = dec;
    return 0;
}

void cdl_dec_free(struct cdl_dec *dec)
{
    free(dec);
}

int cdl_sync_points(const struct cdl_cfg *c, const uint8_t *buf, size_t len, size_t from,
                    int (*fn)(void *ctx, const struct rvt_sync_point *sp), void *ctx, struct rvt_diag *d)
{
    uint8_t *nyb;
    size_t nlen;
    uint64_t base;
    int rc = cdl_order_stream(c, buf, len, &nyb, &nlen, &base, d);
    if (rc < 0)
        return rc;
    if (base) {
        free(nyb); /* a wrapped image's stream is not in byte order: one segment */
        return 0;
    }
    /* The decoder's own reading: fields in order (cdl_field_decode), a
     * mark where a field follows sync_nybbles skips, and after damage the
     * next sync point its resynchronisation accepts (cdl_next_sync). */
    const bool flow = (c->pack & CDL_PACK_FLOW) != 0;
    size_t pos = 2 * from < nlen ? 2 * from : nlen;
    unsigned zeros = zeros_before(nyb, pos);
    while (pos < nlen) {
        struct cdl_field f;
        struct rvt_diag fd = {0};
        int n = cdl_field_decode(nyb + pos, nlen - pos, cdl_cfg_fmt(c), &f, &fd);
        if (n == 0)
            break;
        if (n < 0) {
            if (!cdl_next_sync(nyb, nlen, pos + 1, c, false, &pos))
                break;
            zeros = zeros_before(nyb, pos);
            continue;
        }
        if (f.kind == CDL_F_SKIP) {
            zeros++;
            pos++;
            continue;
        }
        bool mark = zeros >= c->sync_nybbles && (!flow || (f.kind == CDL_F_DATA && f.reason == CDL_DATA_PC));
        zeros = 0;
        if (mark) {
            struct rvt_sync_point sp = {.offset = pos / 2,
                                        .addr = flow ? f.value : 0,
                                        .has_addr = flow,
                                        .unit = "sync mark",
                                        .needs = "none"};
            if ((rc = fn(ctx, &sp)) != 0)
                break;
        }
        pos += (size_t)n;
    }
    free(nyb);
    return rc < 0 ? rc : 0;
}
