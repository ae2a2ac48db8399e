/* Debug-spec trace module decoder: packets -> the shared flow engine, or,
 * without a code image, blocks from the recorded PC pairs.
 *
 * Decoding starts at the first synchronisation point of the buffer (8 per
 * buffer, known from the buffer registers), reads the sync fields there
 * (trace enabled/disabled, timestamp, hart, privilege, full PC) and then
 * interprets packet groups by the emit bits:
 *
 *   emitbranch: Branch Taken/Not Taken resolve the next conditional
 *     branch; a PC is the target of the next uninferable jump (jalr, xRET,
 *     then a Privilege Level packet) or, when the code reaches it first, the
 *     source of a trap (then Privilege Level and the handler PC).
 *   emitpc without emitbranch: PCs come in pairs (source, destination) for
 *     every taken branch, jump, trap and xRET; Privilege Level between them
 *     marks a trap (bit 3: interrupt), after them an xRET.
 *
 * A packet the code cannot explain is reported with its byte offset, and
 * decoding resumes at the next synchronisation point.
 *
 * Trace Disabled is read by what follows it: Trace Enabled (or another
 * Trace Disabled) -> tracing was turned off (RVT_GAP_TRACE_OFF); other
 * packets (the sync fields) -> packets were dropped (RVT_GAP_LOST); nothing
 * -> the end of the trace.  A trace that does not end with Trace Disabled
 * was cut short: the rest is reported lost.  Trace Enabled while synced
 * introduces sync fields that confirm the position (a notify).
 */
#include "dbg/dbg.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest straight walk to the next event; beyond it the trace and the
 * code disagree (or the code loops without a traced event). */
#define WALK_LIMIT (1u << 22)

enum state {
    ST_IDLE = 0,
    ST_SRC,       /* a source PC was read (trap source or pair source) */
    ST_SRC_PRIV,  /* ...and the Privilege Level between source and destination */
    ST_ERET,      /* an xRET was resolved: its Privilege Level may follow */
    ST_PAIR_DONE, /* pc-pair mode: a pair was resolved; an xRET's Privilege Level may follow */
    ST_TRAP_HELD  /* emitbranch: source PC, a Privilege Level without the interrupt bit, and the next PC
                   * (held_pc) were read; see ebr_pc */
};

struct dbg_dec {
    struct dbg_cfg cfg;
    struct rvt_flow *flow;
    const struct rvt_image *image; /* the flow engine's */
    struct rvt_diag diag;
    bool nocode, ebr, epc, epriv;
    unsigned pc_shift, pc_width;

    const uint8_t *nyb;
    size_t len;
    uint64_t base, total, spacing;
    uint64_t phase;   /* sync points are where (pos + phase) % spacing == 0 */
    size_t pkt_pos;

    /* Last values for "missing bits". */
    uint64_t pc_v, la, sa, ts, hart;
    bool have_pc_v, have_la, have_sa, have_ts;
    uint8_t prv;

    int sync_stage;   /* -1: not in sync fields; else the next field allowed */
    bool sync_open;   /* sync fields were read that must still end with a PC */
    bool confirm;     /* the sync fields follow a Trace Enabled while synced (a notify) */
    bool ended;       /* Trace Disabled with nothing after it: the trace is complete */
    size_t last_td;   /* position after the last Trace Disabled packet */
    size_t last_end;  /* position after the last packet other than Nop */
    size_t last_nonzero; /* position of the last non-Nop nybble in the stream */
    bool synced;      /* the flow knows where it is */
    /* Before the first synchronisation: where the first packet that needed
     * a position was dropped (lead_note). */
    bool ever_synced, dropped;
    size_t dropped_at;
    enum state st;
    uint64_t src;
    uint64_t held_pc; /* ST_TRAP_HELD: the PC after the Privilege Level */
    uint8_t src_priv;
    bool src_retired; /* the source PC is the instruction the walk retired last (a trap after it) */
    /* The last instruction the walk retired, and the instruction count
     * then (a trap's "last instruction executed" may name it). */
    bool have_last;
    uint64_t last_addr, last_count;
    /* Without code: the last pair, for a trap naming its source again. */
    uint64_t nc_last_src, nc_last_dst;
    bool nc_have_last;

    /* Without code: the block in progress. */
    uint64_t blk_start, nc_index;
    bool blk_counted;
    struct rvt_block held;  /* a block waiting for a possible xRET Privilege Level */
    bool have_held;

    uint64_t errors;
    char text[512];
};

const char *dbg_dec_error(const struct dbg_dec *dec)
{
    return dec->diag.msg;
}

static uint64_t raw_nyb(const struct dbg_dec *dec, size_t pos)
{
    /* A rotated image wraps; the end of a linear one stays at its length. */
    uint64_t raw = dec->base + pos;
    return dec->total && dec->base && raw >= dec->total ? raw % dec->total : raw;
}

static uint64_t byte_offset(const struct dbg_dec *dec, size_t pos)
{
    return raw_nyb(dec, pos) / 2;
}

static int sync_stage_of(unsigned hdr);

static bool is_sync_point(const struct dbg_dec *dec, size_t pos)
{
    return (dec->phase + pos) % dec->spacing == 0;
}

/* Do the packets at pos look like sync fields: optional Trace Enabled or
 * Disabled, Timestamp, Change Hart, Privilege Level, then a full-width PC? */
static bool sync_fields_end(const struct dbg_dec *dec, const uint8_t *nyb, size_t len, size_t pos, size_t *end);
static bool sync_fields_at(const struct dbg_dec *dec, const uint8_t *nyb, size_t len, size_t pos)
{
    size_t end;
    return sync_fields_end(dec, nyb, len, pos, &end);
}

/* ...and where they end (after the PC). */
static bool sync_fields_end(const struct dbg_dec *dec, const uint8_t *nyb, size_t len, size_t pos, size_t *end)
{
    int stage = 0;
    unsigned full = (dec->pc_width + 3) / 4;
    struct rvt_diag d;
    while (pos < len) {
        struct dbg_packet p;
        int n = dbg_packet_decode(nyb + pos, len - pos, dec->cfg.custom, &p, &d);
        if (n <= 0)
            return false;
        int st = sync_stage_of(p.hdr);
        if (st < 0 || (st < stage && st != 0) || (st == 0 && stage > 1))
            return false; /* (Trace Disabled, Trace Enabled may both lead) */
        if (p.hdr == DBG_TRACE_ENABLED && p.arg != 0)
            return false;
        if (p.hdr == DBG_PRIV && (p.arg & 8 || ((p.arg >> 1) & 3) == 2))
            return false;
        if (p.hdr == DBG_PC) {
            if (p.nval != full || (p.bits >> dec->pc_width))
                return false;
            *end = pos + (size_t)n;
            /* ...naming code, when the code is known. */
            struct rvt_insn in;
            uint64_t pc = p.bits << dec->pc_shift;
            return !dec->image || dec->nocode || rvt_img_insn(dec->image, dec->cfg.xlen == 32 ? pc & 0xffffffffu : pc,
                                                              &in) == 0;
        }
        stage = st + 1;
        pos += (size_t)n;
    }
    return false;
}

/* Only Nops from pos to the end of the data. */
static bool nops_to_end(const struct dbg_dec *dec, size_t pos)
{
    return pos > dec->last_nonzero || !dec->nyb[dec->last_nonzero];
}

/* Can a synchronisation point be checked?  Its sync fields end with a
 * full PC only with emitpc. */
static bool sync_checkable(const struct dbg_dec *dec)
{
    return dec->epc;
}

/* Do valid sync fields start at pos and run into the end of the data
 * (a trace cut there: reported as its end)? */
static bool sync_fields_cut(const struct dbg_dec *dec, size_t pos)
{
    struct rvt_diag d;
    int stage = 0;
    while (pos < dec->len) {
        struct dbg_packet p;
        int n = dbg_packet_decode(dec->nyb + pos, dec->len - pos, dec->cfg.custom, &p, &d);
        if (n == 0)
            return true;
        int st = n < 0 ? -1 : sync_stage_of(p.hdr);
        if (st < 0 || p.hdr == DBG_PC || (st < stage && st != 0))
            return false;
        stage = st + 1;
        pos += (size_t)n;
    }
    return true;
}

/* Is pos a sound synchronisation point: sync fields ending with a full PC
 * (or only Nops to the end of the data, or sync fields the end cuts)? */
static bool sync_point_ok(const struct dbg_dec *dec, size_t pos)
{
    return !sync_checkable(dec) || nops_to_end(dec, pos) || sync_fields_at(dec, dec->nyb, dec->len, pos) ||
           sync_fields_cut(dec, pos);
}

/* The earliest start of the sync fields that end where those at pos end
 * (pos may be inside them). */
static size_t sync_fields_start(const struct dbg_dec *dec, size_t pos)
{
    size_t end, e2, best = pos;
    if (!sync_fields_end(dec, dec->nyb, dec->len, pos, &end))
        return pos;
    /* (Trace Enabled/Disabled, Timestamp, Change Hart, Privilege Level:
     * at most 2 + 2 + 18 + 18 + 2 nybbles before the PC.) */
    for (size_t k = 1; k <= 42 && k <= pos; k++)
        if (sync_fields_end(dec, dec->nyb, dec->len, pos - k, &e2) && e2 == end)
            best = pos - k;
    return best;
}

/* The next synchronisation point at or after `from`, at any nybble offset
 * (inserted or deleted bytes shift the grid): sync fields ending with a
 * full-width PC of code, confirmed by the sync point one spacing later
 * (or the end of the data there).  False if there is none. */
static bool find_sync(const struct dbg_dec *dec, size_t from, size_t *at)
{
    if (!sync_checkable(dec))
        return false;
    for (size_t q = from; q < dec->len && !nops_to_end(dec, q); q++) {
        if (dec->nyb[q] == DBG_NOP || !sync_fields_at(dec, dec->nyb, dec->len, q))
            continue;
        size_t next = q + (size_t)dec->spacing;
        if (next >= dec->len || nops_to_end(dec, next)) {
            *at = q;
            return true;
        }
        if (!sync_point_ok(dec, next))
            continue;
        /* Sync fields are found from any of their packets on (a damaged
         * Privilege Level leaves the PC a valid sequence of its own): the
         * grid point is where they start, as at the next sync point. */
        size_t qs = sync_fields_start(dec, q), ns = sync_fields_start(dec, next);
        *at = ns - qs == dec->spacing ? qs : ns;
        return true;
    }
    return false;
}

/* A stream that does not start at a sync point (a capture that began
 * mid-way, a cut file): the phase whose sync points hold sync fields most
 * often, over the first few of them.  Needs PC packets. */
static uint64_t find_phase(const struct dbg_dec *dec, const uint8_t *nyb, size_t len, unsigned *score_out)
{
    *score_out = 0;
    if (!dec->epc || len < 2 || sync_fields_at(dec, nyb, len, 0))
        return 0;
    uint64_t best = 0;
    unsigned best_score = 0;
    for (uint64_t first = 0; first < dec->spacing && first < len; first++) {
        unsigned score = 0;
        for (uint64_t at = first; at < len && score < 16; at += dec->spacing) {
            if (!sync_fields_at(dec, nyb, len, (size_t)at))
                break;
            score++;
        }
        if (score > best_score) {
            best_score = score;
            best = (dec->spacing - first) % dec->spacing;
        }
    }
    *score_out = best_score;
    return best;
}

static int note(struct dbg_dec *dec, uint8_t kind, uint8_t reason, uint64_t addr, uint64_t value, uint64_t index,
                const char *text)
{
    struct rvt_note n;
    memset(&n, 0, sizeof n);
    n.kind = kind;
    n.reason = reason;
    n.addr = addr;
    n.value = value;
    n.index = index;
    n.priv = dec->prv;
    n.offset = byte_offset(dec, dec->pkt_pos);
    n.text = text;
    return rvt_flow_note(dec->flow, &n);
}

static uint64_t cur_index(const struct dbg_dec *dec)
{
    if (dec->nocode)
        return dec->blk_counted ? dec->nc_index : UINT64_MAX;
    return dec->synced ? rvt_flow_insns(dec->flow) : UINT64_MAX;
}

static int data_note(struct dbg_dec *dec, uint8_t kind, uint64_t value)
{
    int rc = note(dec, RVT_NOTE_DATA, kind, 0, value, cur_index(dec), NULL);
    return rc < 0 ? rc : 1;
}

static int gap(struct dbg_dec *dec, uint8_t reason, const char *text)
{
    dec->synced = false;
    dec->st = ST_IDLE;
    dec->have_last = dec->nc_have_last = dec->src_retired = false;
    dec->sync_open = false;
    if (dec->nocode) {
        dec->have_held = false;
        return note(dec, reason == RVT_GAP_ERROR ? RVT_NOTE_ERROR : RVT_NOTE_GAP, reason, 0, 0, cur_index(dec),
                    text);
    }
    rvt_flow_set_offset(dec->flow, byte_offset(dec, dec->pkt_pos));
    return rvt_flow_gap(dec->flow, (enum rvt_gap_reason)reason, text);
}

static int trace_error(struct dbg_dec *dec, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static int trace_error(struct dbg_dec *dec, const char *fmt, ...)
{
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    uint64_t raw = raw_nyb(dec, dec->pkt_pos);
    snprintf(dec->text, sizeof dec->text, "dbg: offset 0x%" PRIx64 " (nybble %u): %s", raw / 2, (unsigned)(raw & 1),
             what);
    if (dec->cfg.strict)
        rvt_fail(&dec->diag, RVT_ERR_MISMATCH, "%s", dec->text);
    dec->errors++;
    int rc = gap(dec, RVT_GAP_ERROR, dec->text);
    if (rc < 0)
        return rc;
    return dec->cfg.strict ? -RVT_ERR_MISMATCH : 0;
}

static int flow_failed(struct dbg_dec *dec, const char *what, int rc)
{
    if (rc == -RVT_ERR_NOMEM)
        return rvt_fail(&dec->diag, RVT_ERR_NOMEM, "dbg: out of memory");
    return trace_error(dec, "%s: %s", what, rvt_flow_error(dec->flow));
}

static uint64_t pc_of(const struct dbg_dec *dec, uint64_t v)
{
    uint64_t pc = v << dec->pc_shift;
    return dec->cfg.xlen == 32 ? pc & 0xffffffffu : pc;
}

/* ---- values ------------------------------------------------------------------ */

/* Rebuild a value with missing bits from the last one; false if the last
 * value is not known yet and the packet is not complete. */
static bool value_from_last(const struct dbg_packet *p, unsigned width, uint64_t *last, bool *have)
{
    if (!*have && 4u * p->nval < width)
        return false;
    *last = dbg_fill_from_last(p->bits, p->nval, *have ? *last : 0) & dbg_mask(width);
    *have = true;
    return true;
}

/* Value sequences must fit their field. */
static int check_width(struct dbg_dec *dec, const struct dbg_packet *p, unsigned width)
{
    if (4u * p->nval > width && (p->bits >> width))
        return trace_error(dec, "%s value 0x%" PRIx64 " (%u nybbles) is wider than its %u-bit field",
                           dbg_hdr_name(p->hdr), p->bits, p->nval, width);
    return 1;
}

/* ---- with code -------------------------------------------------------------- */

static int walk(struct dbg_dec *dec, const struct rvt_walk *w, struct rvt_stop *st, const char *what)
{
    int rc = rvt_flow_walk(dec->flow, w, st);
    if (rc < 0)
        return flow_failed(dec, what, rc);
    if (st->insns) {
        dec->have_last = true;
        dec->last_addr = st->last;
        dec->last_count = rvt_flow_insns(dec->flow);
    }
    return 1;
}

/* Is pc the instruction the walk retired last, with nothing retired since?
 * Then a trap naming it as the last instruction executed comes now. */
static bool retired_last(const struct dbg_dec *dec, uint64_t pc)
{
    return dec->cfg.trap_pc == DBG_TRAP_PC_SEED && dec->have_last && dec->last_addr == pc &&
           rvt_flow_insns(dec->flow) == dec->last_count;
}

/* Is the instruction at pc an ecall or ebreak? */
static bool is_ecall_at(const struct dbg_dec *dec, uint64_t pc)
{
    struct rvt_insn in;
    return dec->image && rvt_img_insn(dec->image, pc, &in) == 0 && (in.cf == RVT_CF_ECALL || in.cf == RVT_CF_EBREAK);
}

/* Does a trap's source PC name the last instruction executed (it retired,
 * the trap follows it), rather than the instruction that did not complete?
 * The seed's events (see names_last in encoder.c): interrupts do, ecall
 * and ebreak do not; other exceptions do exactly when there is no
 * Privilege Level packet to tell them from interrupts. */
static bool src_is_last(const struct dbg_dec *dec, bool have_priv, uint8_t priv)
{
    if (dec->cfg.trap_pc == DBG_TRAP_PC_EPC)
        return false;
    if (have_priv)
        return (priv & 8) != 0;
    return !is_ecall_at(dec, dec->src);
}

/* Retire exactly the instruction at the current pc. */
static int retire_one(struct dbg_dec *dec, struct rvt_stop *st, const char *what)
{
    struct rvt_walk w = {.flags = RVT_WALK_INSNS | RVT_WALK_STOP_JUMP, .insns = 1};
    int rc = walk(dec, &w, st, what);
    if (rc <= 0)
        return rc;
    if (st->insns != 1)
        return trace_error(dec, "%s: the instruction at 0x%" PRIx64 " does not retire", what, st->pc);
    return 1;
}

/* The source PC read as the instruction just retired turned out to be
 * ahead (it runs again): walk up to it (not retiring it). */
static int walk_to_src(struct dbg_dec *dec)
{
    dec->src_retired = false;
    struct rvt_walk w = {.flags = RVT_WALK_ADDR | RVT_WALK_INSNS |
                                  (dec->ebr ? RVT_WALK_STOP_BRANCH : RVT_WALK_NT_DEFAULT | RVT_WALK_STOP_JUMP),
                         .addr = dec->src,
                         .insns = WALK_LIMIT};
    struct rvt_stop st;
    int rc = walk(dec, &w, &st, "PC");
    if (rc <= 0)
        return rc;
    if (!(st.reason == RVT_STOP_ADDR || (st.reason == RVT_STOP_TRAPINSN && st.pc == dec->src)))
        return trace_error(dec, "PC 0x%" PRIx64 ": the code leaves the straight path at 0x%" PRIx64 " (%s) before "
                                "reaching it",
                           dec->src, st.last, rvt_cf_name(st.cf));
    return 1;
}

/* Does the walk from where it is reach `to` along the straight path a pair
 * source is looked for on (untaken branches, no jumps), within a few
 * cache blocks?  (Only looked at, not walked.) */
static bool reaches(struct dbg_dec *dec, uint64_t to)
{
    if (!rvt_flow_have_pc(dec->flow) || rvt_flow_pending(dec->flow))
        return false;
    struct rvt_bcache *bc = rvt_flow_bcache(dec->flow);
    uint64_t at = rvt_flow_pc(dec->flow);
    for (unsigned i = 0; i < 64; i++) {
        const struct rvt_block_info *b = rvt_bcache_get(bc, at);
        if (!b->ninsns)
            return false;
        for (uint32_t k = 0; k < b->ninsns; k++)
            if (b->start + 2ull * rvt_block_hw_offset(b, k) == to)
                return true;
        bool straight = !(b->flags & RVT_BI_CF_END) || (b->cf == RVT_CF_BRANCH && !dec->ebr);
        if (!straight)
            return false;
        at = b->next;
    }
    return false;
}

static int insn_class(struct dbg_dec *dec, uint64_t addr, unsigned *cf, uint64_t *target)
{
    struct rvt_insn in;
    if (!dec->image || rvt_img_insn(dec->image, addr, &in) < 0)
        return trace_error(dec, "no code at 0x%" PRIx64 " (PC packet)", addr);
    *cf = in.cf;
    *target = in.target;
    return 1;
}

/* The PC read as a trap source turned out to be the target of the next
 * uninferable jump (a jalr looping back onto the straight path). */
static int src_was_jump_target(struct dbg_dec *dec)
{
    dec->st = ST_IDLE;
    dec->src_retired = false;
    struct rvt_walk w = {.flags = RVT_WALK_STOP_BRANCH | RVT_WALK_INSNS, .insns = WALK_LIMIT};
    struct rvt_stop st;
    int rc = walk(dec, &w, &st, "PC");
    if (rc <= 0)
        return rc;
    if (st.reason != RVT_STOP_UNINF)
        return trace_error(dec, "PC 0x%" PRIx64 " is neither followed by a trap's Privilege Level nor the target "
                                "of an indirect jump (the code stops at 0x%" PRIx64 ", %s)",
                           dec->src, st.pc, rvt_cf_name(st.cf));
    if ((rc = rvt_flow_jump(dec->flow, dec->src)) < 0)
        return flow_failed(dec, "jump target", rc);
    if (st.cf == RVT_CF_TRAPRET)
        dec->st = ST_ERET;
    return 1;
}

/* Trap at the source PC (the trap's epc: the first instruction that did
 * not complete) with its handler; `priv` is the Privilege Level packet
 * (bit 3 = interrupt) if one was read. */
static int do_trap(struct dbg_dec *dec, bool have_priv, uint8_t priv, uint64_t handler)
{
    bool interrupt = have_priv && (priv & 8);
    int rc;
    if (src_is_last(dec, have_priv, priv)) {
        /* The trap follows the source instruction: retire it first (unless
         * the walk did already). */
        struct rvt_stop st;
        if (!dec->src_retired && (rc = retire_one(dec, &st, interrupt ? "interrupted instruction" : "trap source")) <= 0)
            return rc;
    } else if (dec->src_retired && !(rvt_flow_have_pc(dec->flow) && rvt_flow_pc(dec->flow) == dec->src) &&
               (rc = walk_to_src(dec)) <= 0) {
        return rc; /* (an exception at the instruction, when it runs again) */
    }
    dec->src_retired = false;
    rc = rvt_flow_trap(dec->flow, interrupt, 0, 0, true, handler);
    if (rc < 0)
        return flow_failed(dec, interrupt ? "interrupt" : "trap", rc);
    if (have_priv) {
        dec->prv = (priv >> 1) & 3;
        if ((rc = rvt_flow_set_context(dec->flow, dec->prv, dec->hart)) < 0)
            return flow_failed(dec, "privilege", rc);
    }
    dec->st = ST_IDLE;
    return 1;
}

/* emitbranch mode: a PC packet outside sync fields. */
static int ebr_pc(struct dbg_dec *dec, uint64_t pc)
{
    int rc;
    if (dec->st == ST_SRC_PRIV) {
        /* PC, Privilege Level, PC is an exception (the seed's table: the
         * faulting instruction's PC, Privilege Level, the new PC) or an
         * xRET's target and Privilege Level ("Emit PC ... Emit Privilege
         * Level") followed by the next PC; only what comes next tells: a
         * Privilege Level without the interrupt bit cannot follow a trap's
         * handler PC, so it makes the first an xRET (held_was_eret). */
        if (dec->src_priv & 8)
            return do_trap(dec, true, dec->src_priv, pc);
        dec->st = ST_TRAP_HELD;
        dec->held_pc = pc;
        return 1;
    }
    if (dec->st == ST_SRC) {
        /* Without Privilege Level packets two PCs are a trap source and its
         * handler (the first could also be the target of an indirect jump
         * that leads to the second: docs/dbg.md, emitbranch needs emitpriv
         * for exact traps). */
        if (!dec->epriv)
            return do_trap(dec, false, 0, pc);
        if ((rc = src_was_jump_target(dec)) <= 0)
            return rc;
    }
    dec->st = ST_IDLE;
    dec->src_retired = false;
    if (retired_last(dec, pc)) {
        /* The last instruction executed, just retired: a trap after it (if
         * a jump target after all, src_was_jump_target walks on). */
        dec->st = ST_SRC;
        dec->src = pc;
        dec->src_retired = true;
        return 1;
    }
    /* Walk on: either the code reaches `pc` first (a trap source) or an
     * uninferable jump whose target it is. */
    struct rvt_walk w = {.flags = RVT_WALK_ADDR | RVT_WALK_STOP_BRANCH | RVT_WALK_INSNS,
                         .addr = pc,
                         .insns = WALK_LIMIT};
    struct rvt_stop st;
    if ((rc = walk(dec, &w, &st, "PC")) <= 0)
        return rc;
    if (st.reason == RVT_STOP_ADDR || (st.reason == RVT_STOP_TRAPINSN && st.pc == pc)) {
        dec->st = ST_SRC;
        dec->src = pc;
        return 1;
    }
    if (st.reason == RVT_STOP_UNINF) {
        if ((rc = rvt_flow_jump(dec->flow, pc)) < 0)
            return flow_failed(dec, "jump target", rc);
        if (st.cf == RVT_CF_TRAPRET)
            dec->st = ST_ERET;
        return 1;
    }
    if (st.reason == RVT_STOP_BRANCH)
        return trace_error(dec, "PC 0x%" PRIx64 ": the branch at 0x%" PRIx64 " comes first but has no branch packet",
                           pc, st.last);
    return trace_error(dec, "PC 0x%" PRIx64 ": the code reaches neither it nor an indirect jump (stopped at 0x%" PRIx64
                            ", %s)",
                       pc, st.pc, rvt_cf_name(st.cf));
}

static int ebr_branch(struct dbg_dec *dec, bool taken)
{
    int rc;
    if (dec->st == ST_SRC && (rc = src_was_jump_target(dec)) <= 0)
        return rc;
    if (dec->st == ST_SRC_PRIV)
        return trace_error(dec, "branch packet between a trap's Privilege Level and its handler PC");
    dec->st = ST_IDLE;
    struct rvt_walk w = {.flags = RVT_WALK_STOP_BRANCH | RVT_WALK_INSNS, .insns = WALK_LIMIT};
    struct rvt_stop st;
    if ((rc = walk(dec, &w, &st, taken ? "branch taken" : "branch not taken")) <= 0)
        return rc;
    if (st.reason != RVT_STOP_BRANCH)
        return trace_error(dec, "branch %s: the code reaches %s at 0x%" PRIx64 " before any branch",
                           taken ? "taken" : "not taken", rvt_cf_name(st.cf),
                           st.reason == RVT_STOP_TRAPINSN ? st.pc : st.last);
    if ((rc = rvt_flow_branch(dec->flow, taken)) < 0)
        return flow_failed(dec, "branch", rc);
    return 1;
}

/* pc-pair mode: a PC outside sync fields. */
static int pair_pc(struct dbg_dec *dec, uint64_t pc)
{
    int rc;
    if (dec->st != ST_SRC && dec->st != ST_SRC_PRIV) {
        dec->src_retired = false;
        if (retired_last(dec, pc)) {
            /* The instruction just retired (by its own pair): the source of
             * a trap after it. */
            dec->st = ST_SRC;
            dec->src = pc;
            dec->src_retired = true;
            return 1;
        }
        /* Source: walk the straight path (untaken branches) up to it. */
        dec->st = ST_IDLE;
        struct rvt_walk w = {.flags = RVT_WALK_ADDR | RVT_WALK_NT_DEFAULT | RVT_WALK_STOP_JUMP | RVT_WALK_INSNS,
                             .addr = pc,
                             .insns = WALK_LIMIT};
        struct rvt_stop st;
        if ((rc = walk(dec, &w, &st, "PC pair source")) <= 0)
            return rc;
        if (!(st.reason == RVT_STOP_ADDR || (st.reason == RVT_STOP_TRAPINSN && st.pc == pc)))
            return trace_error(dec, "PC 0x%" PRIx64 ": the code leaves the straight path at 0x%" PRIx64 " (%s) "
                                    "before reaching it",
                               pc, st.last, rvt_cf_name(st.cf));
        dec->st = ST_SRC;
        dec->src = pc;
        return 1;
    }
    /* Destination. */
    if (dec->st == ST_SRC_PRIV) {
        rc = do_trap(dec, true, dec->src_priv, pc);
        dec->st = ST_PAIR_DONE;
        return rc;
    }
    unsigned cf = 0;
    uint64_t target = 0;
    if ((rc = insn_class(dec, dec->src, &cf, &target)) <= 0)
        return rc;
    if (dec->src_retired) {
        /* The source is the instruction the last pair retired: either a
         * trap after it, or it runs again (a loop, or a recursive return
         * into the code just before it).  Without a Privilege Level packet
         * it runs again when the code gets back to it along the straight
         * path and it can go to the destination (docs/dbg.md: the
         * remaining ambiguity). */
        bool fits = rvt_cf_uninferable(cf) || ((cf == RVT_CF_BRANCH || rvt_cf_inferable_jump(cf)) && target == pc);
        bool again = dec->epriv || (fits && reaches(dec, dec->src));
        if (!again) {
            rc = do_trap(dec, false, 0, pc);
            dec->st = ST_PAIR_DONE;
            return rc;
        }
        if ((rc = walk_to_src(dec)) <= 0)
            return rc;
    }
    struct rvt_stop st;
    if (cf == RVT_CF_ECALL || cf == RVT_CF_EBREAK) {
        if (dec->cfg.ecall == RVT_FLOW_ECALL_UNINFERABLE && cf == RVT_CF_ECALL) {
            if ((rc = retire_one(dec, &st, "ecall")) <= 0)
                return rc;
            if ((rc = rvt_flow_jump(dec->flow, pc)) < 0)
                return flow_failed(dec, "ecall target", rc);
            dec->st = ST_PAIR_DONE;
            return 1;
        }
        rc = do_trap(dec, false, 0, pc);
        dec->st = ST_PAIR_DONE;
        return rc;
    }
    bool is_flow = cf == RVT_CF_BRANCH || rvt_cf_inferable_jump(cf) || rvt_cf_uninferable(cf);
    bool target_fits = rvt_cf_uninferable(cf) || target == pc;
    if (!is_flow || !target_fits) {
        if (dec->epriv)
            return trace_error(dec, "PC pair 0x%" PRIx64 " -> 0x%" PRIx64 ": the source is a %s that cannot go there "
                                    "and no Privilege Level marks a trap",
                               dec->src, pc, rvt_cf_name(cf));
        rc = do_trap(dec, false, 0, pc);
        dec->st = ST_PAIR_DONE;
        return rc;
    }
    if ((rc = retire_one(dec, &st, "PC pair source")) <= 0)
        return rc;
    if (cf == RVT_CF_BRANCH)
        rc = rvt_flow_branch(dec->flow, true);
    else if (rvt_cf_inferable_jump(cf))
        rc = rvt_flow_continue(dec->flow);
    else
        rc = rvt_flow_jump(dec->flow, pc);
    if (rc < 0)
        return flow_failed(dec, "PC pair", rc);
    dec->st = cf == RVT_CF_TRAPRET ? ST_ERET : ST_PAIR_DONE;
    return 1;
}

/* ---- without code (pc pairs) ------------------------------------------------------------ */

static int nc_flush_held(struct dbg_dec *dec)
{
    if (!dec->have_held)
        return 1;
    dec->have_held = false;
    int rc = rvt_flow_emit_block(dec->flow, &dec->held);
    return rc < 0 ? rc : 1;
}

/* Block from the current start to the pair source. */
static int nc_pair(struct dbg_dec *dec, uint64_t dst)
{
    bool have_priv = dec->st == ST_SRC_PRIV;
    bool trap = have_priv;
    /* A jump's source retired; a trap's did if it is the last instruction
     * executed, not if it is the instruction that did not complete. */
    bool retired = !trap || src_is_last(dec, true, dec->src_priv);
    uint64_t last = dec->src;
    /* A trap naming the source of the previous pair again: no instruction
     * in between. */
    bool behind = trap && retired && dec->nc_have_last && last == dec->nc_last_src && dec->blk_start == dec->nc_last_dst;
    dec->nc_have_last = true;
    dec->nc_last_src = last;
    dec->nc_last_dst = dst;
    if (behind) {
        if (have_priv)
            dec->prv = (dec->src_priv >> 1) & 3;
        dec->blk_start = dst;
        dec->st = ST_PAIR_DONE;
        int rc = note(dec, RVT_NOTE_TRAP, 0, last, 0, cur_index(dec), NULL);
        return rc < 0 ? rc : 1;
    }
    struct rvt_block b;
    memset(&b, 0, sizeof b);
    b.start = dec->blk_start;
    b.next = dst;
    b.end = trap ? RVT_END_TRAP : RVT_END_JUMP;
    b.priv = dec->prv;
    b.trace_offset = byte_offset(dec, dec->pkt_pos);
    if (trap && (dec->src_priv & 8))
        b.flags |= RVT_BLK_INTERRUPT;
    /* The block runs from the last destination to the source (included
     * unless it is a trap's epc). */
    if (retired ? last >= b.start : last > b.start) {
        if (!dec->cfg.rvc) {
            b.ninsns = (last - b.start) / 4 + (retired ? 1 : 0);
            b.last = retired ? last : last - 4;
            b.last_len = 4;
            b.index = dec->nc_index;
            dec->nc_index += b.ninsns;
        } else {
            /* Compressed code: sizes unknown without the image.  For a
             * trap's epc, `last` holds the end of the block (exclusive). */
            b.ninsns = 1;
            b.flags |= RVT_BLK_COUNT_UNKNOWN;
            b.last = last;
            if (!retired)
                b.flags |= RVT_BLK_LAST_UNKNOWN;
            dec->blk_counted = false;
        }
        dec->held = b;
        dec->have_held = true;
    }
    if (have_priv)
        dec->prv = (dec->src_priv >> 1) & 3;
    dec->blk_start = dst;
    dec->st = ST_PAIR_DONE;
    return 1;
}

/* A notify inside the block being rebuilt: the block ends before pc (not
 * retired yet), the next starts there, so that the position the encoder
 * gives at later sync points is the block start. */
static int nc_split(struct dbg_dec *dec, uint64_t pc)
{
    if (pc <= dec->blk_start)
        return 1;
    struct rvt_block b;
    memset(&b, 0, sizeof b);
    b.start = dec->blk_start;
    b.next = pc;
    b.end = RVT_END_SEQ;
    b.priv = dec->prv;
    b.trace_offset = byte_offset(dec, dec->pkt_pos);
    if (!dec->cfg.rvc) {
        b.ninsns = (pc - b.start) / 4;
        b.last = pc - 4;
        b.last_len = 4;
        b.index = dec->nc_index;
        dec->nc_index += b.ninsns;
    } else {
        /* Sizes unknown: `last` holds the end of the block (exclusive). */
        b.ninsns = 1;
        b.flags = RVT_BLK_COUNT_UNKNOWN | RVT_BLK_LAST_UNKNOWN;
        b.last = pc;
        dec->blk_counted = false;
    }
    dec->blk_start = pc;
    int rc = rvt_flow_emit_block(dec->flow, &b);
    return rc < 0 ? rc : 1;
}

/* Trace Disabled after a source PC: the trace stopped there.  A source PC
 * alone names the last instruction executed (it retires); with a
 * Privilege Level after it, a trap was taken whose handler is not known.
 * After dropped data (lost) a lone PC is only known to be on the path: the
 * walk stops before it. */
static int end_of_trace(struct dbg_dec *dec, bool lost)
{
    int rc;
    if (dec->st != ST_SRC && dec->st != ST_SRC_PRIV)
        return 1;
    bool trap = dec->st == ST_SRC_PRIV;
    dec->st = ST_IDLE;
    if (lost && !trap)
        return 1;
    if (dec->nocode) {
        if (trap) {
            dec->st = ST_SRC_PRIV;
            return nc_pair(dec, 0);
        }
        dec->st = ST_SRC;
        dec->src_priv = 0;
        if ((rc = nc_pair(dec, 0)) <= 0)
            return rc;
        dec->held.end = RVT_END_SEQ;
        return nc_flush_held(dec);
    }
    struct rvt_stop st;
    bool retired = dec->src_retired;
    dec->src_retired = false;
    if (trap) {
        /* The trap follows its source (the last instruction executed) or
         * is at it (the instruction that did not complete). */
        if (src_is_last(dec, true, dec->src_priv) && !retired &&
            (rc = retire_one(dec, &st, "interrupted instruction")) <= 0)
            return rc;
        if ((rc = rvt_flow_trap(dec->flow, (dec->src_priv & 8) != 0, 0, 0, false, 0)) < 0)
            return flow_failed(dec, "trap", rc);
        return 1;
    }
    /* A lone PC before Trace Disabled names the last instruction executed
     * when the packets so far do not reach it: it is ahead, even if it is
     * also the instruction the walk retired last (a loop). */
    if (retired) {
        dec->src_retired = true;
        if ((rc = walk_to_src(dec)) <= 0)
            return rc;
    }
    if (is_ecall_at(dec, dec->src) && dec->cfg.ecall == RVT_FLOW_ECALL_TRAP) {
        /* An ecall/ebreak does not retire: a trap whose handler is not known. */
        if ((rc = rvt_flow_trap(dec->flow, false, 0, 0, false, 0)) < 0)
            return flow_failed(dec, "trap", rc);
        return 1;
    }
    return retire_one(dec, &st, "last instruction");
}

/* ---- one packet ------------------------------------------------------------------------------ */

static int sync_stage_of(unsigned hdr)
{
    switch (hdr) {
    case DBG_TRACE_ENABLED:
    case DBG_TRACE_DISABLED:
        return 0;
    case DBG_TIMESTAMP:
        return 1;
    case DBG_HART:
        return 2;
    case DBG_PRIV:
        return 3;
    case DBG_PC:
        return 4;
    default:
        return -1;
    }
}

/* A packet that needs a position before the first synchronisation. */
static int drop_before_sync(struct dbg_dec *dec)
{
    if (!dec->ever_synced && !dec->dropped) {
        dec->dropped = true;
        dec->dropped_at = dec->pkt_pos;
    }
    return 1;
}

/* The first synchronisation: say what could not be decoded before it (a
 * damaged first sync point, or what is left of a wrapped buffer's older
 * part), as RVT_GAP_WRAP: the flow engine makes it an error when the trace
 * starts where tracing started. */
static int lead_note(struct dbg_dec *dec)
{
    bool first = !dec->ever_synced;
    dec->ever_synced = true;
    if (!first || !dec->dropped)
        return 0;
    size_t at = dec->pkt_pos;
    snprintf(dec->text, sizeof dec->text,
             "dbg: packets from offset 0x%" PRIx64 " to the first synchronisation at offset 0x%" PRIx64
             " cannot be decoded (no full PC before it)",
             byte_offset(dec, dec->dropped_at), byte_offset(dec, at));
    dec->pkt_pos = dec->dropped_at;
    int rc = gap(dec, RVT_GAP_WRAP, dec->text);
    dec->pkt_pos = at;
    return rc;
}

static int sync_pc(struct dbg_dec *dec, uint64_t pc)
{
    int rc;
    if (!dec->synced && (rc = lead_note(dec)) < 0)
        return rc;
    if (dec->nocode) {
        if ((rc = nc_flush_held(dec)) <= 0)
            return rc;
        if (dec->confirm) {
            dec->confirm = false;
            if (dec->synced && dec->st == ST_IDLE)
                return nc_split(dec, pc);
        }
        if (dec->synced && dec->blk_start != pc && dec->st == ST_IDLE)
            return trace_error(dec, "sync PC 0x%" PRIx64 " but the trace continues at 0x%" PRIx64, pc,
                               dec->blk_start);
        if (!dec->synced) {
            dec->blk_start = pc;
            dec->synced = true;
            dec->nc_have_last = false;
            rc = note(dec, RVT_NOTE_SYNC, 0, pc, 0, cur_index(dec), NULL);
            return rc < 0 ? rc : 1;
        }
        return 1;
    }
    bool confirm = dec->confirm;
    dec->confirm = false;
    if (confirm)
        dec->have_last = false; /* the walk is at pc: a trap naming it names the next instruction */
    if (dec->synced && dec->st == ST_IDLE) {
        if (rvt_flow_pending(dec->flow) && (rc = rvt_flow_continue(dec->flow)) < 0)
            return flow_failed(dec, "sync PC", rc);
        if (rvt_flow_have_pc(dec->flow) && rvt_flow_pc(dec->flow) == pc)
            return 1;
        if (confirm && rvt_flow_have_pc(dec->flow)) {
            /* A notified instruction ahead on the path the packets so far
             * describe: walk up to it. */
            struct rvt_walk w = {.flags = RVT_WALK_ADDR | RVT_WALK_INSNS |
                                          (dec->ebr ? RVT_WALK_STOP_BRANCH : RVT_WALK_NT_DEFAULT | RVT_WALK_STOP_JUMP),
                                 .addr = pc,
                                 .insns = WALK_LIMIT};
            struct rvt_stop st;
            if ((rc = walk(dec, &w, &st, "notify PC")) <= 0)
                return rc;
            dec->have_last = false;
            if (st.reason == RVT_STOP_ADDR || (st.reason == RVT_STOP_TRAPINSN && st.pc == pc))
                return 1;
            return trace_error(dec, "notify PC 0x%" PRIx64 ": the code leaves the path at 0x%" PRIx64 " (%s) before "
                                    "reaching it",
                               pc, st.last, rvt_cf_name(st.cf));
        }
        rc = trace_error(dec, "sync PC 0x%" PRIx64 " but the code continues at 0x%" PRIx64, pc,
                         rvt_flow_pc(dec->flow));
        if (rc < 0)
            return rc;
    }
    if ((rc = rvt_flow_sync(dec->flow, pc, dec->prv, dec->hart, true)) < 0)
        return flow_failed(dec, "sync", rc);
    dec->synced = true;
    dec->st = ST_IDLE;
    dec->have_last = dec->src_retired = false;
    return 1;
}

/* ST_TRAP_HELD, and what follows is not a Privilege Level: the trap. */
static int resolve_held_trap(struct dbg_dec *dec)
{
    if (dec->st != ST_TRAP_HELD)
        return 1;
    dec->st = ST_SRC_PRIV;
    return do_trap(dec, true, dec->src_priv, dec->held_pc);
}

/* The source PC and the Privilege Level without the interrupt bit after
 * it were an xRET's target and its Privilege Level (the seed's table:
 * mret/sret "Emit PC ... Emit Privilege Level"), not a trap's first two
 * packets: the code reached that PC before the xRET did (a nested handler
 * running the code it returns into).  `what` names the packet that tells. */
static int src_was_eret(struct dbg_dec *dec, const char *what)
{
    dec->st = ST_SRC;
    int rc = src_was_jump_target(dec);
    if (rc <= 0)
        return rc;
    if (dec->st != ST_ERET)
        return trace_error(dec, "%s after the Privilege Level of a trap at 0x%" PRIx64
                                ", and 0x%" PRIx64 " is not the target of an xRET either",
                           what, dec->src, dec->src);
    dec->prv = (dec->src_priv >> 1) & 3;
    dec->st = ST_IDLE;
    if ((rc = rvt_flow_set_context(dec->flow, dec->prv, dec->hart)) < 0)
        return flow_failed(dec, "privilege level", rc);
    return 1;
}

/* ST_TRAP_HELD, and a Privilege Level without the interrupt bit follows:
 * the source PC was an xRET's target, the first Privilege Level its, and
 * the held PC the next packet of the walk from there. */
static int held_was_eret(struct dbg_dec *dec)
{
    uint64_t next = dec->held_pc;
    char what[80];
    snprintf(what, sizeof what, "Privilege Level after the PC 0x%" PRIx64, next);
    int rc = src_was_eret(dec, what);
    return rc <= 0 ? rc : ebr_pc(dec, next);
}

/* Close pending states a packet of another kind ends. */
static int settle(struct dbg_dec *dec, unsigned hdr)
{
    int rc;
    if (dec->st == ST_ERET || dec->st == ST_PAIR_DONE) {
        if (hdr == DBG_PRIV)
            return 1;
        /* The seed's table: mret/sret "Emit PC (if enabled) ... Emit
         * Privilege Level (if enabled)": with emitpriv an xRET's packets end
         * with its Privilege Level (Trace Disabled may cut them short). */
        if (dec->st == ST_ERET && dec->epriv && hdr != DBG_TRACE_DISABLED)
            return trace_error(dec, "%s packet after the target of an xRET, expected its Privilege Level",
                               dbg_hdr_name(hdr));
        dec->st = ST_IDLE;
    }
    if (dec->nocode && hdr != DBG_PRIV && (rc = nc_flush_held(dec)) <= 0)
        return rc;
    if (hdr == DBG_TRACE_DISABLED)
        return 1; /* ends the group: see end_of_trace */
    if (dec->st == ST_SRC && hdr != DBG_PRIV && hdr != DBG_PC) {
        if (dec->nocode || !dec->ebr)
            return trace_error(dec, "%s packet after the source PC 0x%" PRIx64 " of a pair, expected its "
                                    "destination PC",
                               dbg_hdr_name(hdr), dec->src);
        if ((rc = src_was_jump_target(dec)) <= 0)
            return rc;
    }
    if (dec->st == ST_SRC_PRIV && hdr != DBG_PC) {
        /* A trap's three packets come together; without its handler PC
         * the two were an xRET's (src_was_eret) — with emitbranch, where
         * an xRET's own PC is not sent, and without the interrupt bit. */
        if (dec->ebr && !dec->nocode && !(dec->src_priv & 8)) {
            char what[80];
            snprintf(what, sizeof what, "%s packet", dbg_hdr_name(hdr));
            return src_was_eret(dec, what);
        }
        return trace_error(dec, "%s packet after a trap's Privilege Level, expected the handler PC",
                           dbg_hdr_name(hdr));
    }
    return 1;
}

static int apply(struct dbg_dec *dec, const struct dbg_packet *p)
{
    int rc;
    unsigned hdr = p->hdr;
    if (hdr == DBG_NOP)
        return 1;
    if (dec->st == ST_TRAP_HELD &&
        (rc = hdr == DBG_PRIV && !(p->arg & 8) ? held_was_eret(dec) : resolve_held_trap(dec)) <= 0)
        return rc;

    /* Change Hart opens sync fields: the new hart's Privilege Level and
     * full PC follow it (the encoder never sends it alone). */
    if (hdr == DBG_HART && dec->sync_stage < 0 && dec->epc)
        dec->sync_stage = sync_stage_of(DBG_HART);
    bool in_sync = false;
    if (dec->sync_stage >= 0) {
        int s = sync_stage_of(hdr);
        if (s >= dec->sync_stage) {
            in_sync = true;
            dec->sync_stage = s + 1;
        } else {
            dec->sync_stage = -1;
            if (dec->sync_open && dec->epc)
                return trace_error(dec, "%s packet inside sync fields, expected them to end with a full-width PC",
                                   dbg_hdr_name(hdr));
        }
    }
    dec->sync_open = in_sync && hdr != DBG_PC && hdr != DBG_TRACE_DISABLED;
    /* Sync fields carry full values: "a full PC ... and Timestamp". */
    unsigned full_pc = (dec->pc_width + 3) / 4;
    if (in_sync && hdr == DBG_PC && p->nval != full_pc)
        return trace_error(dec, "PC of %u nybbles in sync fields, expected a full-width PC (%u nybbles)", p->nval,
                           full_pc);
    if (in_sync && hdr == DBG_TIMESTAMP && p->nval != 16)
        return trace_error(dec, "Timestamp of %u nybbles in sync fields, expected a full one (16 nybbles)", p->nval);
    if (!in_sync && (rc = settle(dec, hdr)) <= 0)
        return rc;

    /* Packets the configuration's emit bits never produce are damage. */
    static const struct {
        uint8_t hdr;
        uint32_t bit;
        const char *name;
    } needs[] = {{DBG_PRIV, DBG_TRACE_EMITPRIV, "priv"},
                 {DBG_TIMESTAMP, DBG_TRACE_EMITTIMESTAMP, "timestamp"},
                 {DBG_LOAD_ADDR, DBG_TRACE_EMITLOADADDR, "loadaddr"},
                 {DBG_STORE_ADDR, DBG_TRACE_EMITSTOREADDR, "storeaddr"},
                 {DBG_LOAD_DATA, DBG_TRACE_EMITLOADDATA, "loaddata"},
                 {DBG_STORE_DATA, DBG_TRACE_EMITSTOREDATA, "storedata"}};
    for (size_t i = 0; i < sizeof needs / sizeof needs[0]; i++)
        if (hdr == needs[i].hdr && !dbg_emits(&dec->cfg, needs[i].bit))
            return trace_error(dec, "%s packet, but the trace register does not emit it (emit%s is off)",
                               dbg_hdr_name(hdr), needs[i].name);
    if (hdr == DBG_PRIV && ((p->arg >> 1) & 3) == 2)
        return trace_error(dec, "Privilege Level with PRV = 2 (reserved), expected U (0), S (1) or M (3)");

    switch (hdr) {
    case DBG_TRACE_ENABLED:
        if (p->arg != 0)
            return trace_error(dec, "trace data version %u, this decoder knows version 0", p->arg);
        dec->sync_stage = 1;
        dec->hart = 0; /* the sync fields that follow name any other hart */
        dec->confirm = dec->synced;
        return 1;
    case DBG_TRACE_DISABLED: {
        dec->last_td = dec->pkt_pos + 1;
        /* What follows says why (see the top of this file). */
        size_t i = dec->pkt_pos + 1;
        while (i < dec->len && dec->nyb[i] == DBG_NOP)
            i++;
        bool end = i >= dec->len;
        bool off = !end && (dec->nyb[i] == DBG_TRACE_ENABLED || dec->nyb[i] == DBG_TRACE_DISABLED);
        if ((rc = end_of_trace(dec, !end && !off)) <= 0)
            return rc;
        if (dec->nocode && (rc = nc_flush_held(dec)) <= 0)
            return rc;
        if (end) {
            dec->ended = true;
            dec->synced = false;
            dec->st = ST_IDLE;
            return 1;
        }
        if (off)
            snprintf(dec->text, sizeof dec->text, "dbg: offset 0x%" PRIx64 ": trace disabled",
                     byte_offset(dec, dec->pkt_pos));
        else
            snprintf(dec->text, sizeof dec->text,
                     "dbg: offset 0x%" PRIx64 ": packets were dropped (Trace Disabled, then the sync fields)",
                     byte_offset(dec, dec->pkt_pos));
        rc = gap(dec, off ? RVT_GAP_TRACE_OFF : RVT_GAP_LOST, dec->text);
        if (rc < 0)
            return rc;
        dec->sync_stage = 1;
        if (!off)
            dec->hart = 0; /* the sync fields that follow name any other hart */
        return 1;
    }
    case DBG_TIMESTAMP:
        if (!value_from_last(p, 64, &dec->ts, &dec->have_ts))
            return 1; /* incomplete before the first full timestamp */
        if (!dec->nocode) {
            rvt_flow_set_time(dec->flow, dec->ts);
            return 1;
        }
        rc = note(dec, RVT_NOTE_TIME, 0, 0, dec->ts, cur_index(dec), NULL);
        return rc < 0 ? rc : 1;
    case DBG_HART:
        dec->hart = p->bits;
        if (!dec->nocode && dec->synced && (rc = rvt_flow_set_context(dec->flow, dec->prv, dec->hart)) < 0)
            return flow_failed(dec, "change hart", rc);
        return data_note(dec, RVT_DATA_HART, dec->hart);
    case DBG_PRIV:
        /* (without emitpc no PC comes before any Privilege Level: the
         * interrupt bit is all there is of the trap) */
        if (dec->epc && (in_sync || dec->st == ST_ERET || dec->st == ST_PAIR_DONE || dec->st == ST_IDLE) &&
            (p->arg & 8))
            return trace_error(dec, "Privilege Level says interrupt, but no trap's source PC came before it");
        /* Outside sync fields a Privilege Level follows a trap's source PC
         * or an xRET's PCs (with emitpc: a pair that was not an xRET or a
         * trap's handler cannot have one; without the code an xRET is not
         * known). */
        if (!in_sync && dec->epc && dec->synced &&
            (dec->st == ST_IDLE || (dec->st == ST_PAIR_DONE && !dec->nocode)))
            return trace_error(dec, "Privilege Level packet that follows no trap source PC and no xRET");
        if (in_sync || dec->st == ST_ERET || dec->st == ST_PAIR_DONE || dec->st == ST_IDLE) {
            dec->prv = (p->arg >> 1) & 3;
            if (dec->nocode) {
                if (dec->st == ST_PAIR_DONE && dec->have_held)
                    dec->held.end = RVT_END_TRAPRET;
                if ((rc = nc_flush_held(dec)) <= 0)
                    return rc;
            } else if (dec->synced && (rc = rvt_flow_set_context(dec->flow, dec->prv, dec->hart)) < 0) {
                return flow_failed(dec, "privilege level", rc);
            }
            if (!in_sync)
                dec->st = ST_IDLE;
            return 1;
        }
        if (dec->st == ST_SRC && dec->src_retired && !(p->arg & 8) && !dec->nocode && dec->ebr &&
            !(rvt_flow_have_pc(dec->flow) && rvt_flow_pc(dec->flow) == dec->src)) {
            /* Not an interrupt after the instruction just retired, and no
             * exception can be at it: the PC was the target of an indirect
             * jump ahead (an xRET, whose Privilege Level this is). */
            if ((rc = src_was_jump_target(dec)) <= 0)
                return rc;
            if (dec->st != ST_ERET)
                return trace_error(dec, "Privilege Level after the target of a jump that is not an xRET");
            dec->prv = (p->arg >> 1) & 3;
            dec->st = ST_IDLE;
            if ((rc = rvt_flow_set_context(dec->flow, dec->prv, dec->hart)) < 0)
                return flow_failed(dec, "privilege level", rc);
            return 1;
        }
        if (dec->st == ST_SRC) {
            dec->st = ST_SRC_PRIV;
            dec->src_priv = p->arg;
            return 1;
        }
        return trace_error(dec, "two Privilege Level packets in one trap");
    case DBG_PC: {
        if ((rc = check_width(dec, p, dec->pc_width)) <= 0)
            return rc;
        uint64_t last_v = dec->pc_v;
        bool had_v = dec->have_pc_v;
        if (!value_from_last(p, dec->pc_width, &dec->pc_v, &dec->have_pc_v))
            return drop_before_sync(dec); /* before the first full PC */
        /* "Missing bits must be filled in with the last PC value": the
         * encoder leaves out every nybble the last PC gives (or sends them
         * all); a longer PC is a damaged one (--dbg-values any accepts it). */
        if (!in_sync && had_v && dec->synced && !dec->cfg.values_any && p->nval != (dec->pc_width + 3) / 4 &&
            p->nval != dbg_nyb_from_last(dec->pc_v, last_v))
            return trace_error(dec, "PC of %u nybbles, but %u rebuild it from the last PC (the encoder sends the fewest)",
                               (unsigned)p->nval, dbg_nyb_from_last(dec->pc_v, last_v));
        uint64_t pc = pc_of(dec, dec->pc_v);
        if (in_sync)
            return sync_pc(dec, pc);
        if (!dec->synced)
            return drop_before_sync(dec);
        if (!dec->epc)
            return trace_error(dec, "PC packet but emitpc is off");
        if (dec->nocode) {
            if (dec->st == ST_SRC || dec->st == ST_SRC_PRIV)
                return nc_pair(dec, pc);
            dec->st = ST_SRC;
            dec->src = pc;
            return 1;
        }
        return dec->ebr ? ebr_pc(dec, pc) : pair_pc(dec, pc);
    }
    case DBG_BRANCH_TAKEN:
    case DBG_BRANCH_NOT_TAKEN:
        if (!dec->synced)
            return drop_before_sync(dec);
        if (!dec->ebr || dec->nocode)
            return trace_error(dec, "branch packet but emitbranch is off");
        return ebr_branch(dec, hdr == DBG_BRANCH_TAKEN);
    case DBG_LOAD_ADDR:
        if ((rc = check_width(dec, p, dec->cfg.xlen)) <= 0)
            return rc;
        if (!value_from_last(p, dec->cfg.xlen, &dec->la, &dec->have_la))
            return 1;
        return data_note(dec, RVT_DATA_LOAD_ADDR, dec->la);
    case DBG_STORE_ADDR:
        if ((rc = check_width(dec, p, dec->cfg.xlen)) <= 0)
            return rc;
        if (!value_from_last(p, dec->cfg.xlen, &dec->sa, &dec->have_sa))
            return 1;
        return data_note(dec, RVT_DATA_STORE_ADDR, dec->sa);
    case DBG_LOAD_DATA:
    case DBG_STORE_DATA: {
        /* Sign extension fills the missing bits, to XLEN; on RV32 a value
         * of more than 8 nybbles is 64 bits wide (an FLD/FSD's data). */
        unsigned width = dec->cfg.xlen == 32 && p->nval > 8 ? 64 : dec->cfg.xlen;
        uint64_t v = dbg_fill_signed(p->bits, p->nval, width);
        return data_note(dec, hdr == DBG_LOAD_DATA ? RVT_DATA_LOAD_VALUE : RVT_DATA_STORE_VALUE, v);
    }
    default: /* custom data: skipped (the dump shows it) */
        return 1;
    }
}

/* ---- stream ordering and the main loop ------------------------------------------------------- */

int dbg_order_stream(const struct dbg_cfg *c, const uint8_t *buf, size_t len, uint8_t **nybp, size_t *nlen,
                     uint64_t *base, struct rvt_diag *d)
{
    *nybp = NULL;
    *nlen = 0;
    *base = 0;
    size_t start = 0, count = len;
    if (dbg_regs_dest(&c->regs) != DBG_DEST_OFFCHIP) {
        uint64_t size = dbg_cfg_buffer(c);
        if (len != size)
            return rvt_fail(d, RVT_ERR_FORMAT,
                            "dbg: the RAM image is %zu bytes but tbufend - tbufstart = %" PRIu64
                            " (give --dbg-buffer or --dbg-regs)",
                            len, size);
        uint64_t wo = c->have_tbufwrite ? c->regs.tbufwrite - c->regs.tbufstart : size;
        if (wo > size)
            return rvt_fail(d, RVT_ERR_INVAL, "dbg: tbufwrite 0x%" PRIx64 " is beyond tbufend 0x%" PRIx64,
                            c->regs.tbufwrite, c->regs.tbufend);
        if (c->regs.trace & DBG_TRACE_WRAPPED) {
            if (!c->have_tbufwrite)
                return rvt_fail(d, RVT_ERR_INVAL,
                                "dbg: the buffer has wrapped: tbufwrite is needed to find the oldest data "
                                "(--dbg-tbufwrite or --dbg-regs)");
            start = (size_t)(wo % size);
        } else {
            count = (size_t)wo;
        }
    }
    uint8_t *nyb = malloc(count ? 2 * count : 1);
    if (!nyb)
        return rvt_fail(d, RVT_ERR_NOMEM, "dbg: out of memory for %zu bytes of trace", len);
    rvt_nyb_unpack_ring(buf, len, start, count, nyb);
    *nybp = nyb;
    *nlen = 2 * count;
    *base = 2 * (uint64_t)start;
    return 0;
}

static int load_regs(struct dbg_cfg *c, struct rvt_diag *d)
{
    if (!c->regs_path[0])
        return 0;
    struct dbg_regs r;
    int rc = dbg_regs_read(c->regs_path, &r, d);
    if (rc < 0)
        return rc;
    c->regs = r;
    c->have_tbufwrite = true;
    uint64_t size = r.tbufend - r.tbufstart;
    if (r.tbufend <= r.tbufstart || size % 32 || size < 1024 || r.tbufwrite < r.tbufstart || r.tbufwrite > r.tbufend)
        return rvt_fail(d, RVT_ERR_FORMAT,
                        "%s: inconsistent buffer registers (tbufstart 0x%" PRIx64 ", tbufend 0x%" PRIx64
                        ", tbufwrite 0x%" PRIx64 ")",
                        c->regs_path, r.tbufstart, r.tbufend, r.tbufwrite);
    return 0;
}

int dbg_dec_run(struct dbg_dec *dec, const uint8_t *buf, size_t len)
{
    return dbg_dec_run_segment(dec, buf, len, 0, len);
}

/* Segments (docs/parallel.md) of an off-chip stream: one starts at a
 * synchronisation point whose sync fields end with a full PC ("To
 * guarantee that a trace decoder can sync up easily, each trace buffer
 * must have 8 synchronization points ... A synchronization point is simply
 * an address where there is guaranteed to be a sequence header", seed 004,
 * Synchronization), and ends at the next one: the pending state before
 * those sync fields (a source PC waiting for its destination) is this
 * segment's.  The seed only asks for full address and timestamp values
 * "soon after each synchronization point": a segment's decode needs the
 * last values before it when the source sent them compressed (rvtrace's
 * encoder sends them in full in the sync fields). */
int dbg_dec_run_segment(struct dbg_dec *dec, const uint8_t *buf, size_t len, size_t from, size_t until)
{
    int rc = load_regs(&dec->cfg, &dec->diag);
    if (rc < 0)
        return rc;
    /* The wrapped bit: what precedes the first sync point was overwritten. */
    if (dbg_regs_dest(&dec->cfg.regs) != DBG_DEST_OFFCHIP && (dec->cfg.regs.trace & DBG_TRACE_WRAPPED))
        rvt_flow_buffer_wrapped(dec->flow);
    dec->ebr = dbg_emits(&dec->cfg, DBG_TRACE_EMITBRANCH);
    dec->epc = dbg_emits(&dec->cfg, DBG_TRACE_EMITPC);
    dec->epriv = dbg_emits(&dec->cfg, DBG_TRACE_EMITPRIV);
    if (dec->nocode && (dec->ebr || !dec->epc) && (dec->epc || dec->ebr))
        return rvt_fail(&dec->diag, RVT_ERR_INVAL,
                        "dbg: decoding without the ELF needs PC pairs for every taken branch (emit pc without "
                        "branch)");
    uint8_t *nyb;
    size_t nlen;
    if ((rc = dbg_order_stream(&dec->cfg, buf, len, &nyb, &nlen, &dec->base, &dec->diag)) < 0)
        return rc;
    dec->nyb = nyb;
    dec->len = nlen;
    dec->total = 2 * (uint64_t)len;
    if (!nlen) {
        /* An empty trace (or a RAM buffer nothing was written to):
         * nothing to decode, nothing to report (the caller says so). */
        free(nyb);
        dec->nyb = NULL;
        return 0;
    }
    dec->spacing = dbg_cfg_sync_spacing(&dec->cfg);
    dec->last_nonzero = 0;
    for (size_t i = nlen; i > 0; i--)
        if (nyb[i - 1]) {
            dec->last_nonzero = i - 1;
            break;
        }
    dec->synced = false;
    dec->ever_synced = false;
    dec->dropped = false;
    dec->ended = false;
    dec->confirm = false;
    dec->st = ST_IDLE;
    dec->sync_stage = -1;

    /* RAM images: the buffer's sync points; streams: from the start, at
     * the stream position the caller knows (a wrapped sink image: the
     * bytes written before the ones kept, from its sidecar), or found from
     * the content when the stream starts elsewhere. */
    unsigned confirmed = 2; /* sync points that place the grid (when guessed from the content) */
    if (dbg_regs_dest(&dec->cfg.regs) != DBG_DEST_OFFCHIP)
        dec->phase = dec->base % dec->spacing;
    else if (dec->cfg.have_stream_offset)
        dec->phase = (2 * dec->cfg.stream_offset) % dec->spacing;
    else
        dec->phase = find_phase(dec, nyb, nlen, &confirmed);
    size_t pos = (size_t)((dec->spacing - dec->phase) % dec->spacing);
    const bool seam = until < len;
    const size_t stop_nyb = seam ? 2 * until : SIZE_MAX;
    if (from > 0)
        pos = 2 * from; /* a grid point dbg_sync_points found with this phase */
    if (pos && from == 0) {
        dec->pkt_pos = pos < nlen ? pos : nlen;
        snprintf(dec->text, sizeof dec->text,
                 "dbg: %zu nybbles before the first synchronisation point at offset 0x%" PRIx64
                 " are skipped (the buffer wrapped, or the capture started mid-stream)",
                 pos, byte_offset(dec, dec->pkt_pos));
        if ((rc = gap(dec, RVT_GAP_WRAP, dec->text)) < 0)
            goto out;
        if (confirmed < 2 && pos + dec->spacing > dec->last_nonzero && pos < nlen) {
            /* Placed by one sync point's content, with no grid point after
             * it to confirm: the phase may be false (a wrong --dbg-buffer,
             * a window too short for three sync points).  Decoded, but not
             * presented as the trace without a word. */
            dec->pkt_pos = pos;
            rc = trace_error(dec, "the synchronisation grid is placed by these sync fields alone (the data ends "
                                  "before the next grid point, %" PRIu64 " bytes on, that would confirm it): "
                                  "give the trace RAM's description (its .sink sidecar, or --stream-offset) or "
                                  "check --dbg-buffer",
                             dec->spacing / 2);
            if (rc < 0)
                goto out;
        }
    }
    size_t cut_at = SIZE_MAX; /* a packet cut by the end of the data starts here */
    size_t nop_run = SIZE_MAX; /* start of the Nops just read */
    while (pos < nlen) {
        if (pos >= stop_nyb) {
            /* The next segment's sync point: what is pending before it
             * is this segment's (as below). */
            if (pos == stop_nyb && is_sync_point(dec, pos)) {
                dec->pkt_pos = pos;
                if (dec->st == ST_SRC && !dec->nocode && dec->ebr && dec->synced && (rc = src_was_jump_target(dec)) < 0)
                    goto out;
                rc = 0;
            }
            break;
        }
        if (is_sync_point(dec, pos) && !sync_point_ok(dec, pos)) {
            /* Damage, or bytes inserted or deleted before it: the grid has
             * moved.  Search for it again. */
            dec->pkt_pos = pos;
            rc = trace_error(dec, "no sync fields at the synchronisation point (expected Trace Enabled/Disabled, "
                                  "Timestamp, Change Hart, Privilege Level and a full-width PC%s; sync points are "
                                  "every %" PRIu64 " bytes, an eighth of --dbg-buffer %" PRIu64 ": is that the "
                                  "encoder's?)",
                             nop_run != SIZE_MAX ? ", not Nops in between" : "", dec->spacing / 2,
                             dbg_cfg_buffer(&dec->cfg));
            if (rc < 0)
                goto out;
            goto resync;
        }
        if (is_sync_point(dec, pos)) {
            dec->pkt_pos = pos;
            if ((rc = resolve_held_trap(dec)) < 0)
                goto out;
            if (dec->st == ST_SRC && !dec->nocode && dec->ebr) {
                dec->pkt_pos = pos;
                if ((rc = src_was_jump_target(dec)) < 0)
                    goto out;
            }
            if (dec->nocode && (rc = nc_flush_held(dec)) < 0)
                goto out;
            if (dec->st == ST_ERET || dec->st == ST_PAIR_DONE)
                dec->st = ST_IDLE;
            dec->sync_stage = 0;
            dec->hart = 0; /* (sync fields name any other hart: Change Hart "if not 0") */
        }
        struct dbg_packet p;
        dec->pkt_pos = pos;
        int n = dbg_packet_decode(nyb + pos, nlen - pos, dec->cfg.custom, &p, &dec->diag);
        if (n == 0) {
            for (size_t i = pos; i < nlen && cut_at == SIZE_MAX; i++)
                if (nyb[i])
                    cut_at = pos; /* reported below */
            break;
        }
        if (n < 0) {
            char msg[sizeof dec->diag.msg];
            snprintf(msg, sizeof msg, "%s", dec->diag.msg);
            rc = trace_error(dec, "%s", msg);
            n = 1;
        } else if (p.hdr == DBG_NOP) {
            if (nop_run == SIZE_MAX)
                nop_run = pos;
            pos++;
            continue;
        } else {
            bool stray = nop_run != SIZE_MAX && !is_sync_point(dec, pos) && p.hdr != DBG_TRACE_DISABLED &&
                         !dec->cfg.nops_anywhere;
            size_t nops = nop_run != SIZE_MAX ? pos - nop_run : 0;
            nop_run = SIZE_MAX;
            if (stray) {
                /* The encoder pads with Nops only up to a synchronisation
                 * point (a refused output may also leave some before Trace
                 * Disabled): elsewhere they stand for lost packets. */
                dec->pkt_pos = pos - nops;
                rc = trace_error(dec, "%zu Nops end at a %s packet between synchronisation points, expected them to "
                                      "run up to one (--dbg-nops anywhere accepts them)",
                                 nops, dbg_hdr_name(p.hdr));
            } else {
                if (!dec->nocode)
                    rvt_flow_set_offset(dec->flow, byte_offset(dec, pos));
                rc = apply(dec, &p);
                dec->last_end = pos + (size_t)n;
            }
        }
        if (rc < 0)
            goto out;
        if (rc == 0) {
        resync:
            /* Resynchronise at the next synchronisation point: on the grid
             * if it is sound, else wherever the sync fields are now. */
            nop_run = SIZE_MAX;
            dec->sync_stage = -1;
            dec->sync_open = false;
            size_t next = pos + 1, found;
            while ((next + dec->phase) % dec->spacing)
                next++;
            if (next < nlen && sync_point_ok(dec, next) && !nops_to_end(dec, next)) {
                pos = next;
            } else if (find_sync(dec, pos + 1, &found)) {
                pos = found;
                dec->phase = (dec->spacing - found % dec->spacing) % dec->spacing;
            } else {
                pos = next; /* (no sync point left, or none to check: the grid) */
            }
            continue;
        }
        pos += (size_t)n;
    }
    if (dec->nocode && (rc = nc_flush_held(dec)) < 0)
        goto out;
    if ((rc = resolve_held_trap(dec)) < 0)
        goto out;
    if (seam)
        goto finish; /* the trace goes on in the next segment */
    /* (A trace cut after a lone PC: the walk stays before it, as after
     * dropped data.) */
    /* A stopped RAM buffer: tbufwrite at tbufend, or (registers unknown)
     * the data ends with Trace Disabled and Nops in the last sync segment
     * (where a group that did not fit turned trace off). */
    bool stopped = false;
    if (dbg_regs_dest(&dec->cfg.regs) != DBG_DEST_OFFCHIP && dbg_regs_fullaction(&dec->cfg.regs) != DBG_FULL_WRAP) {
        if (dec->cfg.have_tbufwrite) {
            stopped = dec->cfg.regs.tbufwrite == dec->cfg.regs.tbufend;
        } else if (dec->last_end == nlen) {
            stopped = true; /* packets up to the last nybble: no room was left */
            dec->last_td = nlen;
        } else if (dec->last_td && nlen - dec->last_td < (dec->spacing > 256 ? dec->spacing : 256)) {
            stopped = true;
            for (size_t i = dec->last_td; i < nlen; i++)
                stopped &= nyb[i] == 0;
        }
    }
    if (stopped) {
        dec->pkt_pos = nlen;
        snprintf(dec->text, sizeof dec->text,
                 "dbg: recording stopped at offset 0x%" PRIx64 ": the %" PRIu64
                 "-byte buffer was full, later execution was not recorded",
                 (uint64_t)(dec->last_td ? dec->last_td / 2 : nlen / 2), dbg_cfg_buffer(&dec->cfg));
        if ((rc = gap(dec, RVT_GAP_LOST, dec->text)) < 0)
            goto out;
    } else if (!dec->ended) {
        /* A complete trace ends with Trace Disabled: this one was cut
         * short (an output that stopped taking data, a cut capture). */
        /* (Where the data ends: after the last packet and any Nops.) */
        dec->pkt_pos = cut_at != SIZE_MAX ? cut_at : nlen;
        if (cut_at != SIZE_MAX)
            snprintf(dec->text, sizeof dec->text,
                     "dbg: trace ends inside a packet at offset 0x%" PRIx64 " (%zu nybbles left): later trace was not "
                     "recorded",
                     byte_offset(dec, cut_at), nlen - cut_at);
        else
            snprintf(dec->text, sizeof dec->text,
                     "dbg: trace ends at offset 0x%" PRIx64 " without Trace Disabled: later trace was not recorded "
                     "(the output stopped taking data, or the capture was cut)",
                     byte_offset(dec, nlen));
        /* The decoder contract: an unexpected end, in every mode. */
        if ((rc = gap(dec, RVT_GAP_END, dec->text)) < 0)
            goto out;
    }
finish:
    rc = rvt_flow_finish(dec->flow);
    if (rc < 0)
        rvt_fail(&dec->diag, (enum rvt_err)-rc, "dbg: %s", rvt_flow_error(dec->flow));
out:
    free(nyb);
    dec->nyb = NULL;
    if (rc < 0 && !dec->diag.code)
        rvt_fail(&dec->diag, (enum rvt_err)-rc, "dbg: decode stopped: %s (%s)", rvt_errstr(rc), rvt_flow_error(dec->flow));
    return rc < 0 ? rc : 0;
}

int dbg_dec_new(struct dbg_dec **dp, const struct dbg_cfg *cfg, struct rvt_flow *flow, struct rvt_diag *d)
{
    *dp = NULL;
    if (cfg->xlen != 32 && cfg->xlen != 64)
        return rvt_fail(d, RVT_ERR_INVAL, "dbg: xlen must be 32 or 64 (got %u)", cfg->xlen);
    struct dbg_dec *dec = calloc(1, sizeof *dec);
    if (!dec)
        return rvt_fail(d, RVT_ERR_NOMEM, "dbg: out of memory");
    dec->cfg = *cfg;
    dec->flow = flow;
    dec->pc_shift = dbg_pc_shift(cfg->rvc);
    dec->pc_width = cfg->xlen - dec->pc_shift;
    /* Walk the code if the flow engine's image has any. */
    const struct rvt_image *img = rvt_bcache_image(rvt_flow_bcache(flow));
    bool have_code = img && rvt_img_segment_count(img) > 0;
    dec->image = img;
    dec->nocode = cfg->code == DBG_CODE_NONE || (cfg->code == DBG_CODE_AUTO && !have_code);
    dec->blk_counted = !cfg->rvc;
    *dp = dec;
    return 0;
}

void dbg_dec_free(struct dbg_dec *dec)
{
    free(dec);
}

int dbg_sync_points(const struct dbg_cfg *cfg, const uint8_t *buf, size_t len, size_t from,
                    int (*fn)(void *ctx, const struct rvt_sync_point *sp), void *ctx, struct rvt_diag *d)
{
    /* The decoder's own grid: its configuration, stream order and phase
     * (as dbg_dec_run places them) and its check of a sync point. */
    struct dbg_dec *dec = calloc(1, sizeof *dec);
    if (!dec)
        return -RVT_ERR_NOMEM;
    dec->cfg = *cfg;
    dec->pc_shift = dbg_pc_shift(cfg->rvc);
    dec->pc_width = cfg->xlen - dec->pc_shift;
    int rc = load_regs(&dec->cfg, d);
    uint8_t *nyb = NULL;
    size_t nlen = 0;
    if (rc >= 0)
        rc = dbg_order_stream(&dec->cfg, buf, len, &nyb, &nlen, &dec->base, d);
    if (rc < 0 || dec->base || !nlen || dbg_regs_dest(&dec->cfg.regs) != DBG_DEST_OFFCHIP) {
        /* (a RAM image: its stream is not in byte order; one segment) */
        free(nyb);
        free(dec);
        return rc < 0 ? rc : 0;
    }
    dec->epc = dbg_emits(&dec->cfg, DBG_TRACE_EMITPC);
    dec->ebr = dbg_emits(&dec->cfg, DBG_TRACE_EMITBRANCH);
    dec->nyb = nyb;
    dec->len = nlen;
    dec->spacing = dbg_cfg_sync_spacing(&dec->cfg);
    for (size_t i = nlen; i > 0; i--)
        if (nyb[i - 1]) {
            dec->last_nonzero = i - 1;
            break;
        }
    unsigned confirmed;
    if (dec->cfg.have_stream_offset)
        dec->phase = (2 * dec->cfg.stream_offset) % dec->spacing;
    else
        dec->phase = find_phase(dec, nyb, nlen, &confirmed);
    size_t pos = (size_t)((dec->spacing - dec->phase) % dec->spacing);
    while (pos < 2 * from)
        pos += (size_t)dec->spacing;
    rc = 0;
    /* Only sync points whose sync fields end with a full PC: a decoder
     * starts there (without emitpc none can be checked: one segment). */
    for (; dec->epc && pos < nlen && !nops_to_end(dec, pos); pos += (size_t)dec->spacing) {
        size_t end;
        if (pos % 2 || !sync_fields_end(dec, nyb, nlen, pos, &end))
            continue;
        struct rvt_sync_point sp = {.offset = pos / 2, .unit = "sync fields",
                                    .needs = "none (the last load/store address and timestamp if sent compressed)"};
        if ((rc = fn(ctx, &sp)) != 0)
            break;
    }
    free(nyb);
    free(dec);
    return rc < 0 ? rc : 0;
}
