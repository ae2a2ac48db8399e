/* Ingress builder: a stream of executed instructions (pc, bits) and trap
 * notes -> E-Trace ingress-port records.  itype needs the successor, so the
 * builder holds one instruction until the next one (or a trap) arrives.
 * Every step is checked against the instruction: a PC change that the
 * instruction cannot explain is an error, never a guess. */
#include "builder_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* rvt_ing_fast_rec (ingress.h, which C++ includes too) sets every field of
 * a record by name. */
_Static_assert(sizeof(struct rvt_ing_rec) == 88 && offsetof(struct rvt_ing_rec, dtype) == 84,
               "struct rvt_ing_rec changed: set its new fields in rvt_ing_fast_rec");

struct rvt_ing_builder *rvt_ing_builder_new(const struct rvt_ing_builder_config *cfg)
{
    if (!cfg || cfg->size < sizeof *cfg || !cfg->emit)
        return NULL;
    struct rvt_ing_builder *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->cfg = *cfg;
    b->xlen = cfg->xlen ? cfg->xlen : (cfg->image ? rvt_img_xlen(cfg->image) : 64);
    if (b->xlen != 32 && b->xlen != 64) {
        free(b);
        return NULL;
    }
    b->mask = b->xlen == 32 ? 0xffffffffull : ~0ull;
    b->ctype_on_change = RVT_CTYPE_PRECISE;
    b->dcache = malloc(sizeof *b->dcache << DCACHE_LOG2);
    b->dinsn = malloc(sizeof *b->dinsn << DCACHE_LOG2);
    if (!b->dcache || !b->dinsn) {
        free(b->dcache);
        free(b->dinsn);
        free(b);
        return NULL;
    }
    for (size_t i = 0; i < (size_t)1 << DCACHE_LOG2; i++)
        b->dcache[i].pc = UINT64_MAX;
    return b;
}

void rvt_ing_builder_free(struct rvt_ing_builder *b)
{
    if (b) {
        free(b->dcache);
        free(b->dinsn);
    }
    free(b);
}

void rvt_ing_builder_restart(struct rvt_ing_builder *b)
{
    rvt_diag_clear(&b->diag);
    b->held = b->before = NULL;
    b->have_prev = b->fast = b->have_before = b->have_blk = b->blk_extra = false;
    b->prev_ctx_changed = b->have_last_ctx = b->warned_cause = false;
    b->prev_priv = 0;
    b->prev_context = b->last_context = 0;
    b->held_dc = NULL;
    b->insns = 0;
    memset(&b->prev_extra, 0, sizeof b->prev_extra);
    memset(&b->blk, 0, sizeof b->blk);
}

const char *rvt_ing_builder_error(const struct rvt_ing_builder *b)
{
    return b->diag.msg;
}

void rvt_ing_builder_set_ctype(struct rvt_ing_builder *b, enum rvt_ctype ctype_on_change)
{
    b->ctype_on_change = ctype_on_change;
}

uint64_t rvt_ing_builder_insns(const struct rvt_ing_builder *b)
{
    return b->insns;
}

static int emit(struct rvt_ing_builder *b, const struct rvt_ing_rec *r)
{
    int rc = b->cfg.emit(b->cfg.emit_ctx, r);
    if (rc < 0 && !b->diag.code)
        rvt_fail(&b->diag, (enum rvt_err)-rc, "record consumer failed: %s", rvt_errstr(rc));
    return rc < 0 ? rc : 0;
}

static int flush_blk(struct rvt_ing_builder *b)
{
    if (!b->have_blk)
        return 0;
    b->have_blk = false;
    return emit(b, &b->blk);
}

#define EXTRA_FLAGS                                                                                      \
    (RVT_ING_HAS_TIME | RVT_ING_HAS_RD | RVT_ING_HAS_MEM | RVT_ING_MEM_STORE | RVT_ING_HAS_MEMVAL |          \
     RVT_ING_TRACEPOINT | RVT_ING_HAS_DTYPE)

static void fill_extra(struct rvt_ing_rec *r, const struct rvt_ing_extra *x)
{
    r->flags |= x->flags & EXTRA_FLAGS;
    r->time = x->time;
    r->rd = x->rd;
    r->rd_value = x->rd_value;
    r->mem_addr = x->mem_addr;
    r->mem_size = x->mem_size;
    r->mem_value = x->mem_value;
    r->mem_operand = x->mem_operand;
    r->dtype = x->dtype;
    r->tp_type = x->tp_type;
}

/* data_types: what kind of data access the instruction made, for a source
 * that reports only addresses and whether memory was written (QEMU): the
 * atomic's kind, a store-conditional's outcome (no access reported: it
 * failed; its address is then unknown and recorded as 0), and Zicsr
 * instructions as CSR accesses (the CSR number; no values). */
static void derive_dtype(const struct rvt_ing_builder *b, const struct rvt_insn *in, struct rvt_ing_extra *x)
{
    if (x->flags & RVT_ING_HAS_DTYPE)
        return;
    int dt = rvt_isa_data_access(in);
    if (dt < 0)
        return;
    if (dt == RVT_ISA_DATA_SC) {
        if (x->flags & RVT_ING_HAS_MEM)
            return; /* it stored: a store */
        x->flags |= RVT_ING_HAS_DTYPE;
        x->dtype = RVT_DTYPE_SC_FAIL;
        x->mem_addr = 0;
        x->mem_size = in->mem_size;
    } else if (rvt_dtype_is_csr((unsigned)dt)) {
        x->flags |= RVT_ING_HAS_DTYPE;
        x->dtype = (uint8_t)dt;
        x->mem_addr = (uint64_t)in->imm & 0xfff;
        x->mem_size = (uint8_t)(b->xlen / 8);
    } else if (rvt_dtype_is_amo((unsigned)dt) && (x->flags & RVT_ING_HAS_MEM)) {
        x->flags |= RVT_ING_HAS_DTYPE | RVT_ING_MEM_STORE;
        x->dtype = (uint8_t)dt;
    }
}

/* Retire the held instruction with the given itype. */
static int retire_prev(struct rvt_ing_builder *b, uint8_t itype, bool sijump)
{
    const struct rvt_insn *in = b->held;
    const uint32_t iretire = in->len / 2u;
    const uint8_t ilastsize = in->len == 2 ? 0 : in->len == 4 ? 1 : in->len == 8 ? 2 : 1;
    const uint8_t ctype = b->prev_ctx_changed ? (uint8_t)b->ctype_on_change : 0;
    if (b->cfg.data_types)
        derive_dtype(b, in, &b->prev_extra);
    const uint16_t data = b->prev_extra.flags & EXTRA_FLAGS;
    const uint16_t flags = (uint16_t)(data | (sijump ? RVT_ING_SIJUMP : 0));
    b->have_prev = false;
    b->fast = false;
    b->insns++;
    b->before = in;
    b->have_before = true;

    /* Merge plain sequential instructions into one block: a block may only
     * end with a non-zero itype, priv/context apply to the whole block, and
     * side data (register write, memory access, time, tracepoint) describes
     * its last instruction, so such an instruction closes its block.  The
     * block grows in place: this runs once per executed instruction. */
    bool joins = b->cfg.merge_blocks && b->have_blk && rvt_ing_next_addr(&b->blk) == in->pc &&
                 b->blk.priv == b->prev_priv && b->blk.context == b->prev_context && ctype == 0 &&
                 !(data & RVT_ING_HAS_TIME) && b->blk.iretire + iretire < 0x10000u;
    if (joins) {
        b->blk.iretire += iretire;
        b->blk.ilastsize = ilastsize;
        b->blk.itype = itype;
        b->blk.flags |= flags;
    } else {
        int rc = flush_blk(b);
        if (rc < 0)
            return rc;
        struct rvt_ing_rec *r = &b->blk;
        if (b->blk_extra) {
            memset(r, 0, sizeof *r);
            b->blk_extra = false;
        }
        r->iaddr = in->pc;
        r->iretire = iretire;
        r->ilastsize = ilastsize;
        r->itype = itype;
        r->priv = b->prev_priv;
        r->context = b->prev_context;
        r->ctype = ctype;
        r->flags = flags;
        b->have_blk = true;
    }
    if (data) {
        fill_extra(&b->blk, &b->prev_extra);
        b->blk_extra = true;
    }
    if (!b->cfg.merge_blocks || itype != RVT_ITYPE_NONE ||
        (data & (RVT_ING_HAS_RD | RVT_ING_HAS_MEM | RVT_ING_HAS_TIME | RVT_ING_TRACEPOINT | RVT_ING_HAS_DTYPE)))
        return flush_blk(b);
    return 0;
}

static void describe(const struct rvt_insn *in, unsigned xlen, char *buf, size_t n)
{
    if (!(in->flags & RVT_IF_VALID)) {
        snprintf(buf, n, "invalid instruction 0x%0*" PRIx32, in->len == 2 ? 4 : 8, in->bits);
        return;
    }
    rvt_isa_disasm(in, xlen, buf, n);
}

static const char *priv_name(uint8_t priv)
{
    switch (priv) {
    case RVT_PRIV_U: return "U-mode";
    case RVT_PRIV_S: return "S-mode";
    case RVT_PRIV_VU: return "VU-mode";
    case RVT_PRIV_VS: return "VS-mode";
    case RVT_PRIV_D: return "debug mode";
    default: return "M-mode";
    }
}

/* The exception an ecall/ebreak raises, by the privileged spec's cause
 * table: environment call from U/VU (8), S (9), VS (10), M (11) mode;
 * breakpoint (3). */
static uint32_t trap_cause(const struct rvt_insn *in, uint8_t priv)
{
    if (in->cf == RVT_CF_EBREAK)
        return 3;
    switch (priv) {
    case RVT_PRIV_U:
    case RVT_PRIV_VU: return 8;
    case RVT_PRIV_S: return 9;
    case RVT_PRIV_VS: return 10;
    default: return 11;
    }
}

/* --ecall trap: the held ecall/ebreak raised an exception and did not
 * retire; `handler` (if known) is where execution went.  The record says
 * so with the cause the instruction and privilege imply: a list of PCs
 * does not record it, so the first one is reported as an assumption. */
static int trap_prev(struct rvt_ing_builder *b, bool have_handler, uint64_t handler)
{
    const struct rvt_insn *in = b->held;
    struct rvt_ing_rec r;
    memset(&r, 0, sizeof r);
    r.iaddr = in->pc;
    r.itype = RVT_ITYPE_EXCEPTION;
    r.cause = trap_cause(in, b->prev_priv);
    r.priv = b->prev_priv;
    r.context = b->prev_context;
    b->have_prev = false;
    b->fast = false;
    b->have_before = false;
    b->before = in;
    if (!b->warned_cause && b->cfg.warn) {
        char text[320], where[40] = "";
        if (have_handler)
            snprintf(where, sizeof where, " into 0x%" PRIx64, handler);
        snprintf(text, sizeof text,
                 "pc 0x%" PRIx64 ": '%s'%s taken as an exception with cause %" PRIu32
                 " (%s): a PC list does not record the cause, so it follows from the instruction and the privilege "
                 "(%s); every ecall/ebreak is treated alike",
                 in->pc, in->cf == RVT_CF_EBREAK ? "ebreak" : "ecall", where, r.cause,
                 r.cause == 3 ? "breakpoint" : "environment call", priv_name(r.priv));
        b->cfg.warn(b->cfg.warn_ctx, text);
    }
    b->warned_cause = true;
    int rc = flush_blk(b);
    if (rc < 0)
        return rc;
    return emit(b, &r);
}

/* Decide the held instruction's itype from its successor `next`. */
static int resolve_prev(struct rvt_ing_builder *b, uint64_t next)
{
    const struct rvt_insn *in = b->held;
    uint64_t fall = rvt_isa_next_pc(in, b->xlen);
    unsigned cf = in->cf;
    uint8_t itype;
    char text[96];

    switch (cf) {
    case RVT_CF_NONE:
        if (next != fall)
            goto unexplained;
        itype = RVT_ITYPE_NONE;
        break;
    case RVT_CF_BRANCH:
        if (next == in->target && next != fall)
            itype = RVT_ITYPE_TAKEN;
        else if (next == fall)
            itype = in->target == fall ? RVT_ITYPE_TAKEN : RVT_ITYPE_NOT_TAKEN;
        else
            goto unexplained;
        break;
    case RVT_CF_CALL_INF:
    case RVT_CF_JUMP_INF:
    case RVT_CF_OTHER_INF:
        if (next != in->target)
            goto unexplained;
        itype = (uint8_t)cf;
        break;
    case RVT_CF_ECALL:
    case RVT_CF_EBREAK:
        /* TRAP: the step to `next` is the exception (the handler).
         * UNINFERABLE: a call whose target the trace sends, so any next PC
         * is possible (ecall+4 under user-mode emulation, the handler on a
         * system).  SEQUENTIAL: the system call was performed without a
         * trap: execution falls through. */
        if (b->cfg.ecall_mode == RVT_ECALL_TRAP)
            return trap_prev(b, true, next);
        if (b->cfg.ecall_mode == RVT_ECALL_UNINFERABLE) {
            itype = RVT_ITYPE_CALL_UNINF;
            break;
        }
        if (next != fall)
            goto unexplained;
        itype = RVT_ITYPE_NONE;
        break;
    default: /* uninferable jumps and trap returns go anywhere */
        itype = (uint8_t)cf;
        break;
    }
    {
        /* The hart's sijump signal: the auipc/lui/c.lui that set rs1 retired
         * immediately before this jump. */
        uint64_t t;
        bool sij = rvt_cf_uninferable(cf) && cf != RVT_CF_TRAPRET && cf != RVT_CF_RETURN && b->have_before &&
                   rvt_isa_sijump_target(b->before, in, b->xlen, &t);
        return retire_prev(b, itype, sij);
    }
unexplained:
    describe(in, b->xlen, text, sizeof text);
    return rvt_fail(&b->diag, RVT_ERR_MISMATCH,
                    "pc 0x%" PRIx64 " -> 0x%" PRIx64 " not explained by '%s' at 0x%" PRIx64
                    " (expected 0x%" PRIx64 "%s)",
                    in->pc, next, text, in->pc,
                    cf == RVT_CF_NONE || cf == RVT_CF_ECALL || cf == RVT_CF_EBREAK ? fall : in->target,
                    cf == RVT_CF_BRANCH ? " or the fall-through"
                    : cf == RVT_CF_ECALL || cf == RVT_CF_EBREAK
                        ? "; into a trap handler it is read with --ecall trap (an exception) or --ecall uninferable"
                        : "");
}

/* How the fast step (rvt_ing_run_advance) may retire dc's instruction: what resolve_prev
 * and retire_prev decide for its static successors, when that needs
 * nothing else (not sijump: only uninferable jumps have it). */
static void set_fast(const struct rvt_ing_builder *b, struct decoded *dc, const struct rvt_insn *in)
{
    const uint64_t fall = rvt_isa_next_pc(in, b->xlen);
    const int64_t d = (int64_t)(in->target - in->pc);
    const bool reach = d == (int32_t)d && ((in->pc + (uint64_t)d) & b->mask) == in->target;
    dc->fast = 0;
    dc->tdelta = reach ? (int32_t)d : 0;
    if (b->cfg.merge_blocks || (b->cfg.data_types && rvt_isa_data_access(in) >= 0))
        return;
    switch (in->cf) {
    case RVT_CF_NONE:
        dc->fast = FAST_FALL;
        dc->fall_itype = RVT_ITYPE_NONE;
        break;
    case RVT_CF_BRANCH:
        dc->fast = FAST_FALL;
        dc->fall_itype = in->target == fall ? RVT_ITYPE_TAKEN : RVT_ITYPE_NOT_TAKEN;
        if (in->target != fall && reach) {
            dc->fast |= FAST_TARGET;
            dc->target_itype = RVT_ITYPE_TAKEN;
        }
        break;
    case RVT_CF_CALL_INF:
    case RVT_CF_JUMP_INF:
    case RVT_CF_OTHER_INF:
        if (reach) {
            dc->fast = FAST_TARGET;
            dc->target_itype = in->cf;
        }
        break;
    default:
        break;
    }
}

/* Make dc's entry free for a new instruction: `held` or `before` may point
 * to it (a collision in the cache, or the same address with other bits):
 * they move to own[] first, each to the slot the other does not use. */
static void evict(struct rvt_ing_builder *b, struct decoded *dc)
{
    const struct rvt_insn *in = &b->dinsn[dc - b->dcache];
    if (b->held == in) {
        struct rvt_insn *o = b->before == &b->own[0] ? &b->own[1] : &b->own[0];
        *o = *in;
        b->held = o;
    }
    if (b->before == in) {
        struct rvt_insn *o = b->held == &b->own[0] ? &b->own[1] : &b->own[0];
        *o = *in;
        b->before = o;
    }
    dc->pc = UINT64_MAX; /* refilled once decoded */
}

int rvt_ing_builder_insn(struct rvt_ing_builder *b, uint64_t pc, int64_t bits, uint8_t priv,
                         uint64_t context, const struct rvt_ing_extra *extra)
{
    if (b->diag.code)
        return -b->diag.code;
    b->fast = false; /* until this instruction is held without error */
    pc &= b->mask;
    struct decoded *dc = rvt_ing_builder_dc(b, pc);
    const uint64_t key = rvt_ing_dc_key(bits);
    if (dc->pc == pc && dc->key == key)
        goto decoded;
    evict(b, dc);
    if (bits < 0) {
        if (!b->cfg.image)
            return rvt_fail(&b->diag, RVT_ERR_INVAL, "pc 0x%" PRIx64 ": no instruction bits and no image", pc);
        uint8_t raw[4] = {0};
        size_t got = rvt_img_read(b->cfg.image, pc, raw, 4);
        if (got < 2)
            return rvt_fail(&b->diag, RVT_ERR_NOCODE, "pc 0x%" PRIx64 ": no code in the image at this address", pc);
        uint32_t w = (uint32_t)raw[0] | (uint32_t)raw[1] << 8 | (uint32_t)raw[2] << 16 | (uint32_t)raw[3] << 24;
        if (rvt_isa_length((uint16_t)w) > got)
            return rvt_fail(&b->diag, RVT_ERR_NOCODE,
                            "pc 0x%" PRIx64 ": instruction runs past the end of the code image", pc);
        bits = (int64_t)w;
    }
    struct rvt_insn *in = &b->dinsn[dc - b->dcache];
    rvt_isa_decode((uint32_t)bits, pc, b->xlen, in);
    if (in->len != 2 && in->len != 4)
        return rvt_fail(&b->diag, RVT_ERR_BADINSN,
                        "pc 0x%" PRIx64 ": instruction bits 0x%08" PRIx32 " are a %u-byte encoding (only 16/32-bit supported)",
                        pc, (uint32_t)bits, in->len);
    dc->key = key;
    dc->len = in->len;
    dc->fall = rvt_isa_next_pc(in, b->xlen);
    set_fast(b, dc, in);
    dc->pc = pc;
decoded:
    if (b->have_prev) {
        int rc = resolve_prev(b, pc);
        if (rc < 0)
            return rc;
    }
    b->have_prev = true;
    b->held = &b->dinsn[dc - b->dcache];
    b->held_dc = dc;
    b->prev_priv = priv;
    b->prev_context = context;
    b->prev_ctx_changed = b->have_last_ctx && context != b->last_context;
    b->have_last_ctx = true;
    b->last_context = context;
    if (extra)
        b->prev_extra = *extra;
    else
        b->prev_extra.flags = 0; /* the other fields are read only under their flags */
    b->fast = dc->fast && !(b->prev_extra.flags & EXTRA_FLAGS) && !b->prev_ctx_changed;
    return 0;
}

int rvt_ing_builder_trap(struct rvt_ing_builder *b, bool interrupt, uint32_t cause, uint64_t tval,
                         uint64_t epc)
{
    if (b->diag.code)
        return -b->diag.code;
    epc &= b->mask;
    uint8_t priv = b->prev_priv;
    uint64_t context = b->last_context;
    if (b->have_prev) {
        /* The last retired instruction went to epc: for an exception the
         * faulting instruction there did not retire; for an interrupt epc
         * is where execution resumes after the handler. */
        int rc = resolve_prev(b, epc);
        if (rc < 0)
            return rc;
    }
    int rc = flush_blk(b);
    if (rc < 0)
        return rc;
    struct rvt_ing_rec r;
    memset(&r, 0, sizeof r);
    b->have_before = false;
    r.iaddr = epc;
    r.iretire = 0;
    r.itype = interrupt ? RVT_ITYPE_INTERRUPT : RVT_ITYPE_EXCEPTION;
    r.cause = cause;
    r.tval = tval;
    r.priv = priv;
    r.context = context;
    return emit(b, &r);
}

int rvt_ing_builder_finish(struct rvt_ing_builder *b)
{
    if (b->diag.code)
        return -b->diag.code;
    if (b->have_prev) {
        const struct rvt_insn *in = b->held;
        uint8_t itype;
        switch (in->cf) {
        case RVT_CF_NONE:
            itype = RVT_ITYPE_NONE;
            break;
        case RVT_CF_BRANCH: /* successor unknown: the branch is reported as not taken */
            itype = RVT_ITYPE_NOT_TAKEN;
            break;
        case RVT_CF_ECALL:
        case RVT_CF_EBREAK:
            if (b->cfg.ecall_mode == RVT_ECALL_TRAP) {
                /* It trapped; the handler is not in the list. */
                int rc = trap_prev(b, false, 0);
                if (rc < 0)
                    return rc;
                return flush_blk(b);
            }
            itype = b->cfg.ecall_mode == RVT_ECALL_UNINFERABLE ? RVT_ITYPE_CALL_UNINF : RVT_ITYPE_NONE;
            break;
        default:
            itype = in->cf;
            break;
        }
        int rc = retire_prev(b, itype, false);
        if (rc < 0)
            return rc;
    }
    return flush_blk(b);
}
