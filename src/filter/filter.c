/* The filter: decides, instruction by instruction, whether a retired
 * instruction is qualified for tracing (Trace Control Interface filters,
 * comparators and debug triggers), and passes records on with
 * RVT_ING_UNQUALIFIED / RVT_FILTER_NOTIFY set, split where the decision
 * changes inside a record. */
#include "rvtrace/filter.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* What one hart's encoder remembers between instructions. */
struct hart_state {
    unsigned hart;
    bool tracing;                                /* trTeInstTracing */
    bool latch[RVT_FILTER_MAX_COMPARATORS];      /* LATCH-mode comparator state */
    uint32_t depth_ecause[RVT_FILTER_MAX_FILTERS];/* nested traps since the matching one (0: outside) */
    uint32_t depth_int[RVT_FILTER_MAX_FILTERS];
    uint64_t tval;                               /* tval of the latest trap */
    uint32_t impdef;
    uint64_t index;                              /* instructions retired so far */
    unsigned next_event;
    int last_q;                                  /* qualification of the last record emitted (-1: none) */
};

struct rvt_filter {
    struct rvt_filter_config cfg;
    struct rvt_diag diag;
    struct rvt_bcache *bc;
    uint64_t addr_mask, ctx_mask;
    uint32_t used_comps;    /* comparators evaluated per instruction */
    uint32_t active_filters;/* filters ORed (trTeInstFilters) */
    uint8_t comp_list[RVT_FILTER_MAX_COMPARATORS], filt_list[RVT_FILTER_MAX_FILTERS]; /* the same as lists */
    unsigned ncomp_list, nfilt_list;
    bool per_insn;          /* some decision depends on the instruction, not only the record */
    /* When the only per-instruction inputs are plain iaddr comparisons, the
     * decision can change only at these addresses: a record with none of
     * them after its first instruction is decided once. */
    bool by_bounds;
    unsigned nbounds;
    uint64_t bounds[4 * RVT_FILTER_MAX_COMPARATORS];
    struct hart_state *hs;
    size_t nhs, caphs, last_hs;
    struct rvt_filter_stats st;
    uint64_t rec_no;
    bool finished;
};

void rvt_filter_config_init(struct rvt_filter_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->size = sizeof *cfg;
}

bool rvt_filter_config_active(const struct rvt_filter_config *cfg)
{
    if (cfg->inst_filters || cfg->tracing_off_at_start || cfg->ntriggers)
        return true;
    for (unsigned j = 0; j < cfg->ncomparators && j < RVT_FILTER_MAX_COMPARATORS; j++)
        if (cfg->comp[j].p_notify || cfg->comp[j].s_notify)
            return true;
    return false;
}

static uint64_t width_mask(unsigned bits)
{
    return bits >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << bits) - 1);
}

static const char *const g_input_names[] = {"iaddr", "context", "tval", "daddr"};

static int validate(struct rvt_filter *f)
{
    const struct rvt_filter_config *c = &f->cfg;
    struct rvt_diag *d = &f->diag;
    if (c->xlen != 32 && c->xlen != 64)
        return rvt_fail(d, RVT_ERR_INVAL, "filter: xlen %u (expected 32 or 64)", c->xlen);
    if (c->context_width > 64)
        return rvt_fail(d, RVT_ERR_INVAL, "filter: context width %u bits (at most 64)", c->context_width);
    if (c->ncomparators > RVT_FILTER_MAX_COMPARATORS || c->nfilters > RVT_FILTER_MAX_FILTERS ||
        c->ntriggers > RVT_FILTER_MAX_TRIGGERS || c->nevents > RVT_FILTER_MAX_EVENTS)
        return rvt_fail(d, RVT_ERR_INVAL,
                        "filter: %u comparators, %u filters, %u triggers, %u sideband events (at most %d, %d, %d, %d)",
                        c->ncomparators, c->nfilters, c->ntriggers, c->nevents, RVT_FILTER_MAX_COMPARATORS,
                        RVT_FILTER_MAX_FILTERS, RVT_FILTER_MAX_TRIGGERS, RVT_FILTER_MAX_EVENTS);
    for (unsigned j = 0; j < c->ncomparators; j++) {
        const struct rvt_comparator *k = &c->comp[j];
        if (k->p_input > RVT_CMP_TVAL || k->s_input > RVT_CMP_TVAL)
            return rvt_fail(d, RVT_ERR_UNSUPPORTED,
                            "filter: comparator %u compares %s (only iaddr, context and tval: no data trace)", j,
                            g_input_names[(k->p_input > RVT_CMP_TVAL ? k->p_input : k->s_input) & 3]);
        if (k->p_fn > RVT_CMP_ALWAYS || k->s_fn > RVT_CMP_ALWAYS || k->mode > RVT_CMP_MODE_LATCH)
            return rvt_fail(d, RVT_ERR_INVAL, "filter: comparator %u: function %u/%u or mode %u out of range (0..7, 0..3)",
                            j, k->p_fn, k->s_fn, k->mode);
    }
    for (unsigned i = 0; i < RVT_FILTER_MAX_FILTERS; i++) {
        if (!(c->inst_filters >> i & 1))
            continue;
        if (i >= c->nfilters)
            return rvt_fail(d, RVT_ERR_INVAL, "filter: trTeInstFilters selects filter %u but %u are configured", i,
                            c->nfilters);
        const struct rvt_filter_unit *u = &c->filter[i];
        for (unsigned k = 0; k < RVT_FILTER_COMPS_PER_FILTER; k++)
            if (u->match_comp[k] && u->comp[k] >= c->ncomparators)
                return rvt_fail(d, RVT_ERR_INVAL, "filter: filter %u comparison %u uses comparator %u but %u are configured",
                                i, k + 1, u->comp[k], c->ncomparators);
    }
    for (unsigned t = 0; t < c->ntriggers; t++) {
        const struct rvt_debug_trigger *g = &c->trigger[t];
        if (g->action < RVT_TRIG_TRACE_ON || g->action > RVT_TRIG_NOTIFY)
            return rvt_fail(d, RVT_ERR_INVAL, "filter: trigger %u: action %u (expected 2 trace-on, 3 trace-off, 4 notify)",
                            t, g->action);
        if (!g->select || g->select > (RVT_TRIG_LOAD | RVT_TRIG_STORE | RVT_TRIG_EXECUTE))
            return rvt_fail(d, RVT_ERR_INVAL, "filter: trigger %u: select 0x%x (execute/store/load bits 2..0)", t,
                            g->select);
        if (g->match != RVT_TRIG_MATCH_EQ && g->match != RVT_TRIG_MATCH_NAPOT && g->match != RVT_TRIG_MATCH_GE &&
            g->match != RVT_TRIG_MATCH_LT && g->match != RVT_TRIG_MATCH_NE && g->match != RVT_TRIG_MATCH_RANGE)
            return rvt_fail(d, RVT_ERR_INVAL, "filter: trigger %u: match %u (expected 0, 1, 2, 3, 8 or 16 = range)", t,
                            g->match);
    }
    for (unsigned e = 1; e < c->nevents; e++)
        if (c->event[e].index < c->event[e - 1].index)
            return rvt_fail(d, RVT_ERR_INVAL,
                            "filter: sideband event %u at instruction %" PRIu64 " comes before event %u at %" PRIu64, e,
                            c->event[e].index, e - 1, c->event[e - 1].index);
    return 0;
}

static void add_bound(struct rvt_filter *f, uint64_t v)
{
    v &= f->addr_mask;
    for (unsigned i = 0; i < 2; i++, v++) {
        if (v > f->addr_mask || (i && v == 0))
            break;
        unsigned k = f->nbounds;
        while (k && f->bounds[k - 1] > v) { /* keep them sorted */
            f->bounds[k] = f->bounds[k - 1];
            k--;
        }
        f->bounds[k] = v;
        f->nbounds++;
    }
}

/* A plain comparison "iaddr OP v" changes value only between v-1, v and
 * v+1, so a decision made only of those (no latch, trigger, notify,
 * sideband event or masked compare) is constant between such addresses. */
static void find_bounds(struct rvt_filter *f)
{
    if (!f->per_insn || f->cfg.ntriggers || f->cfg.nevents)
        return;
    for (unsigned n = 0; n < f->ncomp_list; n++) {
        const struct rvt_comparator *k = &f->cfg.comp[f->comp_list[n]];
        if (k->mode == RVT_CMP_MODE_LATCH || k->p_notify || k->s_notify ||
            (k->s_fn == RVT_CMP_S_MASK && k->p_input == RVT_CMP_IADDR))
            return;
    }
    f->nbounds = 0;
    for (unsigned n = 0; n < f->ncomp_list; n++) {
        const struct rvt_comparator *k = &f->cfg.comp[f->comp_list[n]];
        if (k->p_input == RVT_CMP_IADDR && k->p_fn <= RVT_CMP_GE)
            add_bound(f, k->p_match);
        if (k->mode != RVT_CMP_MODE_P && k->s_input == RVT_CMP_IADDR && k->s_fn <= RVT_CMP_GE)
            add_bound(f, k->s_match);
    }
    f->by_bounds = true;
}

/* Is there a bound b with first < b <= last? */
static bool bound_inside(const struct rvt_filter *f, uint64_t first, uint64_t last)
{
    unsigned lo = 0, hi = f->nbounds;
    while (lo < hi) { /* the first bound > first */
        unsigned mid = (lo + hi) / 2;
        if (f->bounds[mid] <= first)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < f->nbounds && f->bounds[lo] <= last;
}

int rvt_filter_new(struct rvt_filter **out, const struct rvt_filter_config *cfg, struct rvt_diag *d)
{
    *out = NULL;
    if (!cfg || cfg->size < sizeof *cfg)
        return rvt_fail(d, RVT_ERR_INVAL, "filter: configuration struct of %zu bytes (expected %zu)",
                        cfg ? cfg->size : (size_t)0, sizeof *cfg);
    struct rvt_filter *f = calloc(1, sizeof *f);
    if (!f)
        return rvt_fail(d, RVT_ERR_NOMEM, "filter: out of memory");
    f->cfg = *cfg;
    if (!f->cfg.xlen)
        f->cfg.xlen = f->cfg.image ? rvt_img_xlen(f->cfg.image) : 64;
    int rc = validate(f);
    if (rc < 0) {
        rvt_fail_from(d, &f->diag, "%s", "");
        free(f);
        return rc;
    }
    f->addr_mask = width_mask(f->cfg.xlen);
    f->ctx_mask = width_mask(f->cfg.context_width ? f->cfg.context_width : 64);
    f->active_filters = f->cfg.inst_filters;
    for (unsigned i = 0; i < f->cfg.nfilters; i++) {
        const struct rvt_filter_unit *u = &f->cfg.filter[i];
        if (!(f->active_filters >> i & 1) || !u->enable)
            continue;
        for (unsigned k = 0; k < RVT_FILTER_COMPS_PER_FILTER; k++)
            if (u->match_comp[k])
                f->used_comps |= 1u << u->comp[k];
    }
    for (unsigned j = 0; j < f->cfg.ncomparators; j++) {
        const struct rvt_comparator *k = &f->cfg.comp[j];
        bool notify = (k->p_notify && k->p_input == RVT_CMP_IADDR) || (k->s_notify && k->s_input == RVT_CMP_IADDR);
        if (notify)
            f->used_comps |= 1u << j;
        if (!(f->used_comps >> j & 1))
            continue;
        if (notify || k->mode == RVT_CMP_MODE_LATCH || k->p_input == RVT_CMP_IADDR ||
            (k->mode != RVT_CMP_MODE_P && k->s_input == RVT_CMP_IADDR && k->s_fn != RVT_CMP_S_MASK))
            f->per_insn = true;
    }
    if (f->cfg.ntriggers || f->cfg.nevents)
        f->per_insn = true;
    for (unsigned j = 0; j < f->cfg.ncomparators; j++)
        if (f->used_comps >> j & 1)
            f->comp_list[f->ncomp_list++] = (uint8_t)j;
    for (unsigned i = 0; i < f->cfg.nfilters; i++)
        if ((f->active_filters >> i & 1) && f->cfg.filter[i].enable)
            f->filt_list[f->nfilt_list++] = (uint8_t)i;
    find_bounds(f);
    if (f->cfg.image) {
        f->bc = rvt_bcache_new(f->cfg.image, 0);
        if (!f->bc) {
            free(f);
            return rvt_fail(d, RVT_ERR_NOMEM, "filter: out of memory");
        }
    }
    *out = f;
    return 0;
}

void rvt_filter_free(struct rvt_filter *f)
{
    if (!f)
        return;
    rvt_bcache_free(f->bc);
    free(f->hs);
    free(f);
}

const char *rvt_filter_error(const struct rvt_filter *f)
{
    return f->diag.msg;
}

void rvt_filter_get_stats(const struct rvt_filter *f, struct rvt_filter_stats *st, size_t size)
{
    memcpy(st, &f->st, size < sizeof f->st ? size : sizeof f->st);
}

static struct hart_state *hart_state(struct rvt_filter *f, unsigned hart)
{
    if (f->last_hs < f->nhs && f->hs[f->last_hs].hart == hart)
        return &f->hs[f->last_hs];
    for (size_t i = 0; i < f->nhs; i++)
        if (f->hs[i].hart == hart) {
            f->last_hs = i;
            return &f->hs[i];
        }
    if (f->nhs == f->caphs) {
        size_t cap = f->caphs ? 2 * f->caphs : 4;
        struct hart_state *n = realloc(f->hs, cap * sizeof *n);
        if (!n)
            return NULL;
        f->hs = n;
        f->caphs = cap;
    }
    struct hart_state *h = &f->hs[f->nhs];
    memset(h, 0, sizeof *h);
    h->hart = hart;
    h->tracing = !f->cfg.tracing_off_at_start;
    for (unsigned j = 0; j < f->cfg.ncomparators; j++)
        h->latch[j] = f->cfg.comp[j].mode == RVT_CMP_MODE_LATCH && f->cfg.comp[j].p_fn == RVT_CMP_P_NEVER;
    h->impdef = f->cfg.impdef;
    h->last_q = -1;
    f->last_hs = f->nhs;
    return &f->hs[f->nhs++];
}

void rvt_filter_set_impdef(struct rvt_filter *f, unsigned hart, uint32_t impdef)
{
    struct hart_state *h = hart_state(f, hart);
    if (h)
        h->impdef = impdef;
}

/* ---- one decision ---------------------------------------------------------- */

static bool compare(unsigned fn, uint64_t a, uint64_t b)
{
    switch (fn) {
    case RVT_CMP_EQ:
        return a == b;
    case RVT_CMP_NE:
        return a != b;
    case RVT_CMP_LT:
        return a < b;
    case RVT_CMP_LE:
        return a <= b;
    case RVT_CMP_GT:
        return a > b;
    case RVT_CMP_GE:
        return a >= b;
    case RVT_CMP_ALWAYS:
        return true;
    default: /* 6: primary never true (the secondary's 6 is handled by the caller) */
        return false;
    }
}

static uint64_t input_value(const struct rvt_filter *f, unsigned input, uint64_t pc, const struct rvt_ing_rec *r,
                            const struct hart_state *h)
{
    switch (input) {
    case RVT_CMP_IADDR:
        return pc & f->addr_mask;
    case RVT_CMP_CONTEXT:
        return r->context & f->ctx_mask;
    default:
        return h->tval & f->addr_mask;
    }
}

static uint64_t input_mask(const struct rvt_filter *f, unsigned input)
{
    return input == RVT_CMP_CONTEXT ? f->ctx_mask : f->addr_mask;
}

static bool napot_match(uint64_t v, uint64_t tdata2, unsigned xlen)
{
    /* Trailing ones of tdata2 and the zero above them select the size:
     * t trailing ones -> 2^(t+1) bytes; only the bits above compare. */
    uint64_t ones = tdata2 & ~(tdata2 + 1); /* the trailing ones */
    uint64_t low = (ones << 1) | 1;         /* ...and the zero after them */
    uint64_t m = ~low & width_mask(xlen);
    return (v & m) == (tdata2 & m);
}

static bool trigger_value_match(const struct rvt_debug_trigger *g, uint64_t v, unsigned xlen)
{
    switch (g->match) {
    case RVT_TRIG_MATCH_EQ:
        return v == g->tdata2;
    case RVT_TRIG_MATCH_NE:
        return v != g->tdata2;
    case RVT_TRIG_MATCH_GE:
        return v >= g->tdata2;
    case RVT_TRIG_MATCH_LT:
        return v < g->tdata2;
    case RVT_TRIG_MATCH_NAPOT:
        return napot_match(v, g->tdata2, xlen);
    default:
        return v >= g->tdata2 && v < g->tdata3;
    }
}

struct decision {
    bool q;
    bool notify;
};

/* Decide for the instruction at pc of record r (retire: it retired, as
 * opposed to the trap of a record that retires nothing; last: it is the
 * record's last instruction, the one memory accesses belong to).  Retired
 * instructions advance the latches and trTeInstTracing. */
static struct decision decide(struct rvt_filter *f, struct hart_state *h, uint64_t pc, const struct rvt_ing_rec *r,
                              bool retire, bool last)
{
    const struct rvt_filter_config *c = &f->cfg;
    struct decision out = {false, false};

    while (h->next_event < c->nevents && c->event[h->next_event].index <= h->index)
        h->impdef = c->event[h->next_event++].impdef;

    bool on = false, off = false, notify = false;
    if (retire) {
        for (unsigned t = 0; t < c->ntriggers; t++) {
            const struct rvt_debug_trigger *g = &c->trigger[t];
            if (g->privs && (r->priv > 7 || !(g->privs >> r->priv & 1)))
                continue;
            bool fired = false;
            if ((g->select & RVT_TRIG_EXECUTE) && trigger_value_match(g, pc & f->addr_mask, c->xlen))
                fired = true;
            if (last && (r->flags & RVT_ING_HAS_MEM)) {
                unsigned kind = r->flags & RVT_ING_MEM_STORE ? RVT_TRIG_STORE : RVT_TRIG_LOAD;
                if ((g->select & kind) && trigger_value_match(g, r->mem_addr & f->addr_mask, c->xlen))
                    fired = true;
            }
            if (!fired)
                continue;
            if (g->action == RVT_TRIG_TRACE_ON)
                on = true;
            else if (g->action == RVT_TRIG_TRACE_OFF)
                off = true;
            else
                notify = true;
        }
    }
    /* Trace-on counts from the oldest instruction of its cycle, trace-off
     * after the newest: with one instruction per step both include it. */
    bool tracing = h->tracing || on;
    if (retire)
        h->tracing = tracing && !off;

    uint32_t cmp_out = 0;
    for (unsigned n = 0; n < f->ncomp_list; n++) {
        const unsigned j = f->comp_list[n];
        const struct rvt_comparator *k = &c->comp[j];
        uint64_t pv = input_value(f, k->p_input, pc, r, h), pm = k->p_match & input_mask(f, k->p_input);
        bool s_is_mask = k->s_fn == RVT_CMP_S_MASK;
        if (s_is_mask) {
            pv &= k->s_match;
            pm &= k->s_match;
        }
        bool p = compare(k->p_fn, pv, pm);
        bool s = s_is_mask || compare(k->s_fn, input_value(f, k->s_input, pc, r, h),
                                      k->s_match & input_mask(f, k->s_input));
        bool res;
        switch (k->mode) {
        case RVT_CMP_MODE_P:
            res = p;
            break;
        case RVT_CMP_MODE_P_AND_S:
            res = p && s;
            break;
        case RVT_CMP_MODE_NOT_P_AND_S:
            res = !(p && s);
            break;
        default:
            /* Set by P, held up to and including the instruction where S is true. */
            res = h->latch[j] || p;
            if (retire)
                h->latch[j] = res && !s;
            break;
        }
        if (res)
            cmp_out |= 1u << j;
        if (retire && ((k->p_notify && k->p_input == RVT_CMP_IADDR && p) ||
                       (k->s_notify && k->s_input == RVT_CMP_IADDR && !s_is_mask && s)))
            notify = true;
    }

    bool match = f->active_filters == 0;
    for (unsigned n = 0; n < f->nfilt_list && !match; n++) {
        const unsigned i = f->filt_list[n];
        const struct rvt_filter_unit *u = &c->filter[i];
        if (u->match_priv && (r->priv > 7 || !(u->priv_choice >> r->priv & 1)))
            continue;
        if (u->match_ecause && !h->depth_ecause[i])
            continue;
        if (u->match_interrupt && !h->depth_int[i])
            continue;
        bool comps = true;
        for (unsigned m = 0; m < RVT_FILTER_COMPS_PER_FILTER; m++)
            if (u->match_comp[m] && !(cmp_out >> u->comp[m] & 1))
                comps = false;
        if (!comps)
            continue;
        if (u->match_impdef && ((h->impdef ^ u->impdef_value) & u->impdef_mask))
            continue;
        match = true;
    }
    out.q = tracing && match && !(r->flags & RVT_ING_UNQUALIFIED);
    out.notify = out.q && notify;
    if (retire)
        h->index++;
    return out;
}

/* After the record's instructions: trap returns close, traps open the
 * cause/interrupt windows (with a saturating count of nested traps). */
static void after_record(struct rvt_filter *f, struct hart_state *h, const struct rvt_ing_rec *r)
{
    const struct rvt_filter_config *c = &f->cfg;
    uint32_t max = c->trap_nesting_max ? c->trap_nesting_max : UINT32_MAX;
    if (r->itype == RVT_ITYPE_TRAPRET && r->iretire) {
        for (unsigned i = 0; i < c->nfilters; i++) {
            if (h->depth_ecause[i])
                h->depth_ecause[i]--;
            if (h->depth_int[i])
                h->depth_int[i]--;
        }
    } else if (r->itype == RVT_ITYPE_EXCEPTION || r->itype == RVT_ITYPE_INTERRUPT) {
        bool irq = r->itype == RVT_ITYPE_INTERRUPT;
        for (unsigned i = 0; i < c->nfilters; i++) {
            const struct rvt_filter_unit *u = &c->filter[i];
            if (h->depth_ecause[i])
                h->depth_ecause[i] += h->depth_ecause[i] < max;
            else if (u->match_ecause && r->cause < 64 && (u->ecause_choice >> r->cause & 1))
                h->depth_ecause[i] = 1;
            if (h->depth_int[i])
                h->depth_int[i] += h->depth_int[i] < max;
            else if (u->match_interrupt && irq == u->interrupt_value)
                h->depth_int[i] = 1;
        }
        h->tval = r->tval;
    }
}

/* ---- records in, pieces out ------------------------------------------------ */

struct piece {
    uint64_t start;
    uint32_t halfwords;
    uint8_t lastsize; /* ilastsize of the piece's last instruction */
    bool q, notify, open;
    unsigned count;   /* pieces emitted so far from this record */
};

static int emit_piece(struct rvt_filter *f, struct hart_state *h, const struct rvt_ing_rec *in, struct piece *p,
                      bool final, rvt_ing_emit_fn emit, void *ctx)
{
    struct rvt_ing_rec o = *in;
    o.iaddr = p->start;
    o.iretire = p->halfwords;
    uint16_t keep = in->flags & ~(RVT_ING_UNQUALIFIED | RVT_FILTER_NOTIFY);
    if (!final) {
        /* Only the last piece ends with the record's itype; what belongs to the
         * last instruction (register, memory, tracepoint, sijump) goes with it. */
        o.itype = RVT_ITYPE_NONE;
        o.ilastsize = p->lastsize;
        o.cause = 0;
        o.tval = 0;
        keep &= ~(RVT_ING_HAS_RD | RVT_ING_HAS_MEM | RVT_ING_MEM_STORE | RVT_ING_HAS_MEMVAL | RVT_ING_TRACEPOINT |
                  RVT_ING_SIJUMP | RVT_ING_HAS_DTYPE);
    }
    if (p->count) {
        keep |= RVT_ING_SAME_CYCLE; /* the pieces of one record retired together */
        o.ctype = RVT_CTYPE_UNREPORTED;
    }
    bool notify = p->notify || (final && p->q && (in->flags & RVT_FILTER_NOTIFY));
    o.flags = (uint16_t)(keep | (p->q ? 0 : RVT_ING_UNQUALIFIED) | (notify ? RVT_FILTER_NOTIFY : 0));

    f->st.records_out++;
    if (p->count)
        f->st.splits++;
    if (notify)
        f->st.notifies++;
    int q = p->q;
    if (h->last_q >= 0 && q != h->last_q) {
        if (q)
            f->st.on_transitions++;
        else
            f->st.off_transitions++;
    }
    h->last_q = q;
    p->count++;
    p->open = false;
    int rc = emit(ctx, &o);
    if (rc < 0)
        return rvt_fail(&f->diag, (enum rvt_err)-rc, "record %" PRIu64 ": the filter's consumer failed", f->rec_no);
    return 0;
}

/* Add one retired instruction to the record being cut into pieces. */
static int add_insn(struct rvt_filter *f, struct hart_state *h, const struct rvt_ing_rec *in, struct piece *p,
                    uint64_t pc, unsigned len, bool last, rvt_ing_emit_fn emit, void *ctx)
{
    struct decision dc = decide(f, h, pc, in, true, last);
    f->st.insns++;
    f->st.insns_traced += dc.q;
    int rc;
    if (p->open && p->q != dc.q && (rc = emit_piece(f, h, in, p, false, emit, ctx)) < 0)
        return rc;
    if (!p->open) {
        p->open = true;
        p->start = pc;
        p->halfwords = 0;
        p->q = dc.q;
        p->notify = false;
    }
    p->halfwords += len / 2;
    p->lastsize = len == 2 ? 0 : 1;
    if (dc.notify) {
        p->notify = true;
        if (!last)
            return emit_piece(f, h, in, p, false, emit, ctx);
    }
    return 0;
}

static int per_insn(struct rvt_filter *f, struct hart_state *h, const struct rvt_ing_rec *in, rvt_ing_emit_fn emit,
                    void *ctx)
{
    struct piece p;
    memset(&p, 0, sizeof p);
    const uint64_t last = rvt_ing_last_addr(in);
    const unsigned last_len = 2u << in->ilastsize;
    uint64_t addr = in->iaddr;
    int rc;
    if (in->iretire != last_len / 2) {
        if (!f->bc)
            return rvt_fail(&f->diag, RVT_ERR_INVAL,
                            "record %" PRIu64 " (iaddr 0x%" PRIx64 ") retires %" PRIu32
                            " halfwords; splitting it needs the program image",
                            f->rec_no, in->iaddr, in->iretire);
        /* Check the code first, so that a bad record fails before any
         * decision or piece is made. */
        uint64_t n;
        if ((rc = rvt_ing_count_insns(in, f->bc, &n)) < 0)
            return rvt_fail(&f->diag, (enum rvt_err)-rc,
                            rc == -RVT_ERR_NOCODE
                                ? "record %" PRIu64 " (iaddr 0x%" PRIx64 ", %" PRIu32 " halfwords): no code "
                                  "(or an invalid instruction) in the block: cannot split it by instruction"
                                : "record %" PRIu64 " (iaddr 0x%" PRIx64 ", %" PRIu32 " halfwords): the code's "
                                  "instructions do not end at the last instruction",
                            f->rec_no, in->iaddr, in->iretire);
        /* Every instruction before the last is sequential: the decoded
         * blocks give their lengths (a block may end early at a control-flow
         * instruction such as a non-trapping ecall: continue after it). */
        while (addr < last) {
            const struct rvt_block_info *b = rvt_bcache_get(f->bc, addr);
            const uint64_t rvc = b->rvc_mask;
            const uint32_t nb = b->ninsns;
            if (nb == 0) /* cannot happen after the check above; never loop on it */
                return rvt_fail(&f->diag, RVT_ERR_NOCODE, "record %" PRIu64 ": no code at 0x%" PRIx64, f->rec_no, addr);
            for (uint32_t i = 0; i < nb && addr < last; i++) {
                unsigned len = (rvc >> i & 1) ? 2 : 4;
                if ((rc = add_insn(f, h, in, &p, addr, len, false, emit, ctx)) < 0)
                    return rc;
                addr += len;
            }
        }
    }
    if ((rc = add_insn(f, h, in, &p, last, last_len, true, emit, ctx)) < 0)
        return rc;
    return emit_piece(f, h, in, &p, true, emit, ctx);
}

int rvt_filter_put(struct rvt_filter *f, const struct rvt_ing_rec *in, rvt_ing_emit_fn emit, void *ctx)
{
    if (f->finished)
        return rvt_fail(&f->diag, RVT_ERR_INVAL, "filter: record after the end of the stream");
    struct hart_state *h = hart_state(f, in->hart);
    if (!h)
        return rvt_fail(&f->diag, RVT_ERR_NOMEM, "filter: out of memory");
    if (in->ilastsize > 1 || (in->iretire && in->iretire < (1u << in->ilastsize)))
        return rvt_fail(&f->diag, RVT_ERR_FORMAT,
                        "record %" PRIu64 " (iaddr 0x%" PRIx64 "): %" PRIu32 " halfwords with ilastsize %u (expected 0 or 1, "
                        "and at least the last instruction's halfwords)",
                        f->rec_no, in->iaddr, in->iretire, in->ilastsize);
    f->st.records_in++;
    int rc = 0;
    if (in->iretire == 0) {
        /* A trap that retires nothing: decided like an instruction at its
         * iaddr (the faulting or resume address) before the trap takes effect. */
        struct decision dc = decide(f, h, in->iaddr, in, false, true);
        struct piece p = {in->iaddr, 0, in->ilastsize, dc.q, false, true, 0};
        f->st.traps++;
        f->st.traps_traced += dc.q;
        rc = emit_piece(f, h, in, &p, true, emit, ctx);
    } else if (f->per_insn &&
               (!f->by_bounds || bound_inside(f, in->iaddr & f->addr_mask, rvt_ing_last_addr(in) & f->addr_mask))) {
        rc = per_insn(f, h, in, emit, ctx);
    } else {
        /* Nothing depends on the instruction: one decision for the record. */
        uint64_t n = 1;
        if (in->iretire != (1u << in->ilastsize) && (!f->bc || rvt_ing_count_insns(in, f->bc, &n) < 0))
            n = 0; /* unknown without code: not counted */
        struct decision dc = decide(f, h, in->iaddr, in, true, true);
        h->index += n ? n - 1 : 0;
        struct piece p = {in->iaddr, in->iretire, in->ilastsize, dc.q, false, true, 0};
        f->st.insns += n;
        f->st.insns_traced += dc.q ? n : 0;
        rc = emit_piece(f, h, in, &p, true, emit, ctx);
    }
    if (rc < 0)
        return rc;
    after_record(f, h, in);
    f->rec_no++;
    return 0;
}

int rvt_filter_finish(struct rvt_filter *f)
{
    f->finished = true;
    return 0;
}

/* ---- the reader adapter ---------------------------------------------------- */

struct freader {
    struct rvt_ing_reader *in;
    struct rvt_filter *f;
    enum rvt_filter_reader_mode mode;
    struct rvt_ing_rec *q;
    size_t head, n, cap;
    struct rvt_diag diag;
    bool eof;
};

static int fr_push(void *ctx, const struct rvt_ing_rec *r)
{
    struct freader *s = ctx;
    if (s->mode == RVT_FILTER_DROP && (r->flags & RVT_ING_UNQUALIFIED))
        return 0;
    if (s->head + s->n == s->cap) {
        if (s->head) {
            memmove(s->q, s->q + s->head, s->n * sizeof *s->q);
            s->head = 0;
        } else {
            size_t cap = s->cap ? 2 * s->cap : 16;
            struct rvt_ing_rec *nq = realloc(s->q, cap * sizeof *nq);
            if (!nq)
                return -RVT_ERR_NOMEM;
            s->q = nq;
            s->cap = cap;
        }
    }
    s->q[s->head + s->n++] = *r;
    return 0;
}

static int fr_next(void *self, struct rvt_ing_rec *rec)
{
    struct freader *s = self;
    while (!s->n) {
        if (s->eof)
            return 0;
        struct rvt_ing_rec r;
        int rc = rvt_ing_next(s->in, &r);
        if (rc < 0)
            return rvt_fail(&s->diag, (enum rvt_err)-rc, "%s", rvt_ing_error(s->in));
        if (rc == 0) {
            s->eof = true;
            rvt_filter_finish(s->f);
            return 0;
        }
        s->head = 0;
        if ((rc = rvt_filter_put(s->f, &r, fr_push, s)) < 0)
            return rvt_fail(&s->diag, (enum rvt_err)-rc, "%s", rvt_filter_error(s->f));
    }
    *rec = s->q[s->head++];
    s->n--;
    return 1;
}

static const char *fr_error(const void *self)
{
    return ((const struct freader *)self)->diag.msg;
}

static unsigned fr_xlen(const void *self)
{
    return rvt_ing_xlen(((const struct freader *)self)->in);
}

static void fr_close(void *self)
{
    struct freader *s = self;
    rvt_ing_close(s->in);
    free(s->q);
    free(s);
}

static const struct rvt_ing_source_ops g_freader_ops = {fr_next, fr_error, fr_close, fr_xlen};

int rvt_filter_reader(struct rvt_ing_reader **out, struct rvt_ing_reader *in, struct rvt_filter *f,
                      enum rvt_filter_reader_mode mode, struct rvt_diag *d)
{
    *out = NULL;
    struct freader *s = calloc(1, sizeof *s);
    if (!s) {
        rvt_ing_close(in);
        return rvt_fail(d, RVT_ERR_NOMEM, "filter: out of memory");
    }
    s->in = in;
    s->f = f;
    s->mode = mode;
    *out = rvt_ing_reader_wrap(&g_freader_ops, s, rvt_ing_reader_format(in));
    if (!*out) {
        fr_close(s);
        return rvt_fail(d, RVT_ERR_NOMEM, "filter: out of memory");
    }
    return 0;
}
