/* Trace Control Interface register model: a system of trace components,
 * each a 4 KiB block of 32-bit registers at a base address.  Encoder and
 * ATB bridge registers are kept here; funnel and RAM sink blocks are the
 * live rvt_funnel / rvt_ramsink objects.  Every field follows the TCI
 * tables: reserved bits read 0, RO fields ignore writes, RW1C bits clear
 * on 1, WARL fields take the nearest value the implementation supports. */
#include "sink/sink_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TE 64u
#define MAX_OTHER 16u
#define BLOCK 0x1000u

enum {
    TE_CONTROL = 0x000,
    TE_IMPL = 0x004,
    TE_FEATURES = 0x008,
    TE_INST_FILTERS = 0x00C,
    TE_DATA_CONTROL = 0x010,
    TE_DATA_FILTERS = 0x01C,
    TS_CONTROL = 0x040,
    TS_COUNTER_LOW = 0x048,
    TS_COUNTER_HIGH = 0x04C,
    TE_TRIG_DBG = 0x050,
    TE_TRIG_EXT_IN = 0x054,
    TE_TRIG_EXT_OUT = 0x058,
    TE_FILTER = 0x400,
    TE_COMP = 0x600
};

struct te_block {
    struct rvt_te_caps caps;
    bool active;
    uint32_t control;         /* without trTeActive and trTeEmpty */
    uint32_t features, inst_filters, data_control, data_filters;
    uint32_t ts_control;
    uint64_t ts_counter;
    uint32_t trig_dbg, trig_in, trig_out;
    uint32_t filter[16][8];   /* by (offset & 0x1F) / 4 */
    uint32_t comp[8][8];
};

struct atb_block {
    bool active, enabled;
    unsigned id;
};

struct rvt_tci {
    struct rvt_diag diag;
    unsigned n[4];            /* encoders, funnels, RAM sinks, ATB bridges */
    struct te_block *te;
    struct rvt_funnel **fun;
    struct rvt_ramsink **ram;
    struct atb_block *atb;
    uint64_t *base[4];
    uint64_t base_address;    /* start of the default layout */
};

static int kind_slot(enum rvt_tci_comp kind)
{
    switch (kind) {
    case RVT_TCI_ENCODER:
        return 0;
    case RVT_TCI_FUNNEL:
        return 1;
    case RVT_TCI_RAMSINK:
        return 2;
    case RVT_TCI_ATBBRIDGE:
        return 3;
    default:
        return -1;
    }
}

static const enum rvt_tci_comp g_slot_kind[4] = {RVT_TCI_ENCODER, RVT_TCI_FUNNEL, RVT_TCI_RAMSINK,
                                                RVT_TCI_ATBBRIDGE};
static const char *const g_slot_name[4] = {"encoder", "funnel", "ramsink", "atb"};

/* ---- capabilities ------------------------------------------------------------ */

void rvt_te_caps_default(struct rvt_te_caps *c, unsigned format)
{
    memset(c, 0, sizeof *c);
    c->size = sizeof *c;
    c->format = format;
    c->sync_modes = 0x0F; /* off, packets, cycles, half-words */
    c->sync_max_min = 0;
    c->sync_max_max = 15;
    c->src_bits_max = 12;
    c->src_id_bits = 12;
    c->has_trig_enable = 1;
    /* trTeInstStallEna reads 0: the encoders here drop what a sink refuses
     * and report the loss; none stalls the hart. */
    c->has_stall = 0;
    c->has_inhibit_src = 1;
    c->n_filters = 16;
    c->n_comparators = 8;
    c->ts_modes = 0x1F; /* none, external, internal system, internal core, shared */
    c->ts_width = 48; /* "typically 40 or 48 bits" */
    if (format == 1) {
        /* N-Trace 1.0 ("N-Trace Specific Trace Controls"): BTM (3) and HTM
         * (6); no-addr-diff, no-trap-addr, branch prediction and jump
         * target cache hard coded 0; no data trace.  Optional features the
         * encoder does not implement read 0, as the TCI has a debugger
         * discover them ("A debugger can determine if optional feature is
         * present by writing to the register field and reading back the
         * result"): trTeInstEnAllJumps, and implicit-return mode 2
         * (partial address compare; modes 1 counting and 3 full addresses
         * are implemented). */
        c->protocol_major = 1;
        c->protocol_minor = 0;
        c->inst_modes = 1u << 0 | 1u << 3 | 1u << 6;
        c->features = 1u << 2 | 1u << 3 | 1u << 8 | 1u << 10;
        c->implicit_return_modes = 1u << 0 | 1u << 1 | 1u << 3;
        c->has_context = 1;
        c->n_ext_trig_in = 8;
        c->n_ext_trig_out = 8;
    } else {
        /* E-Trace 2.0 (chapter "Encoder Control"): trTeInstMode hard coded
         * 7, trTeContext 0, implicit return mode, repeated history, all
         * jumps and extended MSB 0, trTeTrig* 0; protocol 0.0. */
        c->protocol_major = 0;
        c->protocol_minor = 0;
        c->inst_modes = 1u << 7;
        c->features = 0x3F;
        c->implicit_return_modes = 0x01;
        c->has_data_trace = 1;
        c->has_trig_enable = 1;
    }
}

static int check_caps(const struct rvt_te_caps *c, unsigned i, struct rvt_diag *d)
{
    if (c->size < sizeof *c)
        return rvt_fail(d, RVT_ERR_INVAL, "tci: encoder %u capabilities: size %zu, expected %zu", i, c->size,
                        sizeof *c);
    if (c->format > 7 || c->protocol_major > 15 || c->protocol_minor > 15)
        return rvt_fail(d, RVT_ERR_INVAL, "tci: encoder %u: format %u / protocol %u.%u do not fit their fields", i,
                        c->format, c->protocol_major, c->protocol_minor);
    if (!(c->inst_modes & 0xFE))
        return rvt_fail(d, RVT_ERR_INVAL, "tci: encoder %u supports no non-zero trTeInstMode", i);
    if (!(c->sync_modes & 0x0E))
        return rvt_fail(d, RVT_ERR_INVAL,
                        "tci: encoder %u: at least one non-zero trTeInstSyncMode must be implemented", i);
    if (c->sync_max_min > c->sync_max_max || c->sync_max_max > 15)
        return rvt_fail(d, RVT_ERR_INVAL, "tci: encoder %u: trTeInstSyncMax range %u..%u", i, c->sync_max_min,
                        c->sync_max_max);
    if (c->src_bits_max > 12 || c->src_id_bits > 12 || c->n_filters > 16 || c->n_comparators > 8 ||
        c->n_ext_trig_in > 8 || c->n_ext_trig_out > 8 || c->ts_width > 63 || (c->features & ~0x7FFu & ~0xC0u))
        return rvt_fail(d, RVT_ERR_INVAL,
                        "tci: encoder %u: a capability is out of its field's range (src bits <= 12, filters <= 16, "
                        "comparators <= 8, triggers <= 8, timestamp width <= 63, features in bits 10:0)",
                        i);
    return 0;
}

/* WARL for an enumerated field: the value if supported; for an
 * unsupported non-zero request the nearest supported non-zero value
 * (lower first; "it cannot revert to 0"); for 0 the lowest supported. */
static unsigned legal_enum(unsigned mask, unsigned req)
{
    if (mask >> req & 1)
        return req;
    if (req) {
        for (int v = (int)req - 1; v >= 1; v--)
            if (mask >> v & 1)
                return (unsigned)v;
        for (unsigned v = req + 1; v < 32; v++)
            if (mask >> v & 1)
                return v;
    }
    for (unsigned v = 0; v < 32; v++)
        if (mask >> v & 1)
            return v;
    return 0;
}

/* ---- encoder registers -------------------------------------------------------- */

static uint32_t te_impl(const struct te_block *b)
{
    return 1u | 0u << 4 | (uint32_t)RVT_TCI_ENCODER << 8 | (uint32_t)b->caps.protocol_major << 16 |
           (uint32_t)b->caps.protocol_minor << 20 | (uint32_t)b->caps.impl_vendor << 24;
}

/* Legal trTeControl fields 31:2 for a written value (trTeActive, trTeEnable
 * and the RW1C bit handled by the caller). */
static uint32_t te_legal_control(const struct te_block *b, uint32_t v)
{
    const struct rvt_te_caps *c = &b->caps;
    uint32_t r = v & 1u << 2; /* trTeInstTracing */
    r |= legal_enum(c->inst_modes, (v >> 4) & 7) << 4;
    if (c->has_context)
        r |= v & 1u << 9;
    if (c->has_trig_enable)
        r |= v & 1u << 11;
    if (c->has_stall)
        r |= v & 1u << 13;
    if (c->has_inhibit_src)
        r |= v & 1u << 15;
    r |= legal_enum(c->sync_modes, (v >> 16) & 3) << 16;
    unsigned mx = (v >> 20) & 15;
    if (mx < c->sync_max_min)
        mx = c->sync_max_min;
    if (mx > c->sync_max_max)
        mx = c->sync_max_max;
    r |= (uint32_t)mx << 20;
    r |= (uint32_t)c->format << 24; /* hard wired */
    return r;
}

static uint32_t te_legal_features(const struct te_block *b, uint32_t v)
{
    const struct rvt_te_caps *c = &b->caps;
    uint32_t r = v & c->features & 0x73Fu;
    r |= legal_enum(c->implicit_return_modes ? c->implicit_return_modes : 1u, (v >> 6) & 3) << 6;
    r |= ((v >> 16) & ((1u << c->src_id_bits) - 1)) << 16;
    unsigned bits = v >> 28;
    if (bits > c->src_bits_max)
        bits = c->src_bits_max;
    r |= (uint32_t)bits << 28;
    return r;
}

static uint32_t filters_mask(unsigned n)
{
    return n >= 16 ? 0xFFFFu : (1u << n) - 1;
}

static uint32_t te_legal_ts(const struct te_block *b, uint32_t v)
{
    const struct rvt_te_caps *c = &b->caps;
    uint32_t r = v & (1u << 0 | 1u << 1 | 1u << 3 | 3u << 8 | 1u << 15);
    r |= legal_enum(c->ts_modes, (v >> 4) & 7) << 4;
    return r;
}

/* External trigger input actions: 0 none, 2 on, 3 off, 4 notify; the
 * reserved values (1, 5-15) read back as 0. */
static uint32_t te_legal_trig_in(const struct te_block *b, uint32_t v)
{
    uint32_t r = 0;
    for (unsigned n = 0; n < b->caps.n_ext_trig_in; n++) {
        unsigned a = (v >> (4 * n)) & 15;
        if (a == 2 || a == 3 || a == 4)
            r |= (uint32_t)a << (4 * n);
    }
    return r;
}

static uint32_t te_legal_trig_out(const struct te_block *b, uint32_t v)
{
    uint32_t r = 0;
    for (unsigned n = 0; n < b->caps.n_ext_trig_out; n++)
        r |= v & 3u << (4 * n); /* bits 2-3 are vendor events: this model has none */
    return r;
}

/* Comparator index fields of a filter control: only implemented units. */
static uint32_t legal_comp_index(const struct te_block *b, uint32_t v, unsigned lsb)
{
    unsigned j = (v >> lsb) & 7, n = b->caps.n_comparators;
    if (!n)
        return 0;
    if (j >= n)
        j = n - 1;
    return (uint32_t)j << lsb;
}

static uint32_t te_legal_filter(const struct te_block *b, unsigned reg, uint32_t v)
{
    bool data = b->caps.has_data_trace;
    switch (reg) {
    case 0: {
        uint32_t r = v & (0x0001FFFFu & ~(7u << 5 | 7u << 9 | 7u << 13));
        if (!b->caps.n_comparators)
            r &= ~(1u << 4 | 1u << 8 | 1u << 12);
        r |= legal_comp_index(b, v, 5) | legal_comp_index(b, v, 9) | legal_comp_index(b, v, 13);
        if (data)
            r |= v & (1u << 24 | 1u << 25);
        return r;
    }
    case 1:
        return v & 0x1FFu;
    case 2:
    case 3:
    case 4:
    case 5:
        return v;
    case 6:
        return data ? v & 0x00FFFFFFu : 0;
    default:
        return 0; /* 0x41C reserved */
    }
}

static uint32_t te_legal_comp(unsigned reg, uint32_t v)
{
    if (reg == 0)
        return v & 0xF77Fu;
    if (reg >= 4)
        return v; /* P/S match low/high */
    return 0;     /* reserved */
}

static void te_activate(struct te_block *b)
{
    /* "This write will reset most of other enable/mode bits in this
     * register and all WARL and read-only fields will be set to defaults":
     * the defaults are what a write of 0 reads back as. */
    b->active = true;
    b->control = te_legal_control(b, 0);
}

static uint32_t te_read(struct te_block *b, uint32_t off)
{
    const struct rvt_te_caps *c = &b->caps;
    if (off == TE_CONTROL) {
        /* In reset only the fixed fields show: trTeEmpty (nothing is ever
         * held back) and the hard-wired trTeFormat. */
        if (!b->active)
            return 1u << 3 | (uint32_t)c->format << 24;
        return b->control | 1u << 3 | 1u;
    }
    if (!b->active)
        return 0;
    switch (off) {
    case TE_IMPL:
        return te_impl(b);
    case TE_FEATURES:
        return b->features;
    case TE_INST_FILTERS:
        return b->inst_filters;
    case TE_DATA_CONTROL:
        return c->has_data_trace ? b->data_control | 1u : 0;
    case TE_DATA_FILTERS:
        return b->data_filters;
    case TS_CONTROL:
        return c->ts_modes ? b->ts_control | (uint32_t)c->ts_width << 24 : 0;
    case TS_COUNTER_LOW:
        return c->ts_modes ? (uint32_t)b->ts_counter : 0;
    case TS_COUNTER_HIGH:
        return c->ts_modes ? (uint32_t)(b->ts_counter >> 32) : 0;
    case TE_TRIG_DBG:
        return b->trig_dbg;
    case TE_TRIG_EXT_IN:
        return b->trig_in;
    case TE_TRIG_EXT_OUT:
        return b->trig_out;
    default:
        break;
    }
    if (off >= TE_FILTER && off < TE_FILTER + 16 * 0x20) {
        unsigned i = (off - TE_FILTER) / 0x20, r = (off & 0x1F) / 4;
        return i < c->n_filters ? b->filter[i][r] : 0;
    }
    if (off >= TE_COMP && off < TE_COMP + 8 * 0x20) {
        unsigned j = (off - TE_COMP) / 0x20, r = (off & 0x1F) / 4;
        return j < c->n_comparators ? b->comp[j][r] : 0;
    }
    return 0;
}

static void te_write(struct te_block *b, uint32_t off, uint32_t v)
{
    const struct rvt_te_caps *c = &b->caps;
    if (off == TE_CONTROL) {
        if (!b->active) {
            if (v & 1)
                te_activate(b);
            return;
        }
        if (!(v & 1)) {
            /* Into reset: disabled; the other fields are kept (Undef). */
            b->active = false;
            b->control &= ~(1u << 1);
            return;
        }
        bool was_enabled = b->control >> 1 & 1, en = v >> 1 & 1;
        uint32_t sticky = b->control & 1u << 12;
        if (v & 1u << 12)
            sticky = 0; /* RW1C */
        if (en && !was_enabled) {
            /* Enabling clears the overflow flags. */
            sticky = 0;
            b->data_control &= ~(1u << 3 | 1u << 5);
        }
        b->control = te_legal_control(b, v) | (uint32_t)en << 1 | sticky;
        return;
    }
    if (!b->active)
        return;
    switch (off) {
    case TE_FEATURES:
        b->features = te_legal_features(b, v);
        return;
    case TE_INST_FILTERS:
        b->inst_filters = v & filters_mask(c->n_filters);
        return;
    case TE_DATA_CONTROL:
        if (c->has_data_trace) {
            uint32_t sticky = b->data_control & (1u << 3 | 1u << 5);
            sticky &= ~(v & (1u << 3 | 1u << 5));
            b->data_control = (v & (1u << 1 | 1u << 2 | 1u << 4 | 1u << 6 | 1u << 16 | 1u << 17 | 3u << 18)) | sticky;
        }
        return;
    case TE_DATA_FILTERS:
        if (c->has_data_trace)
            b->data_filters = v & filters_mask(c->n_filters);
        return;
    case TS_CONTROL:
        if (c->ts_modes) {
            if (v & 1u << 2)
                b->ts_counter = 0; /* trTsReset (W1) */
            b->ts_control = te_legal_ts(b, v);
        }
        return;
    case TE_TRIG_DBG:
        b->trig_dbg = v & c->trig_dbg_mask;
        return;
    case TE_TRIG_EXT_IN:
        b->trig_in = te_legal_trig_in(b, v);
        return;
    case TE_TRIG_EXT_OUT:
        b->trig_out = te_legal_trig_out(b, v);
        return;
    default:
        break;
    }
    if (off >= TE_FILTER && off < TE_FILTER + 16 * 0x20) {
        unsigned i = (off - TE_FILTER) / 0x20, r = (off & 0x1F) / 4;
        if (i < c->n_filters)
            b->filter[i][r] = te_legal_filter(b, r, v);
    } else if (off >= TE_COMP && off < TE_COMP + 8 * 0x20) {
        unsigned j = (off - TE_COMP) / 0x20, r = (off & 0x1F) / 4;
        if (j < c->n_comparators)
            b->comp[j][r] = te_legal_comp(r, v);
    }
}

/* ---- ATB bridge registers -------------------------------------------------------- */

static uint32_t atb_read(const struct atb_block *a, uint32_t off)
{
    if (!a->active)
        return off == 0x000 ? 1u << 3 : 0; /* in reset: only trAtbBridgeEmpty */
    if (off == 0x000)
        return 1u | (uint32_t)a->enabled << 1 | 1u << 3 | (uint32_t)a->id << 8;
    if (off == 0x004)
        return 1u | 0u << 4 | (uint32_t)RVT_TCI_ATBBRIDGE << 8; /* trAtbBridgeAsyncFreq: only 0 */
    return 0;
}

static void atb_write(struct atb_block *a, uint32_t off, uint32_t v)
{
    if (off != 0x000)
        return; /* trAtbBridgeImpl: the only legal async frequency is 0 */
    if (!a->active) {
        if (v & 1) {
            a->active = true;
            a->enabled = false;
        }
        return;
    }
    a->active = v & 1;
    a->enabled = a->active && (v & 2);
    a->id = (v >> 8) & 0x7F;
}

/* ---- the system ------------------------------------------------------------------ */

void rvt_tci_free(struct rvt_tci *t)
{
    if (!t)
        return;
    for (unsigned i = 0; i < t->n[1]; i++)
        rvt_funnel_free(t->fun[i]);
    for (unsigned i = 0; i < t->n[2]; i++)
        rvt_ramsink_free(t->ram[i]);
    free(t->te);
    free(t->fun);
    free(t->ram);
    free(t->atb);
    for (int k = 0; k < 4; k++)
        free(t->base[k]);
    free(t);
}

static unsigned bits_for(unsigned n)
{
    unsigned b = 0;
    while ((1u << b) < n)
        b++;
    return b;
}

/* Bring every component up as a trace tool would (TCI "Enabling"): sinks
 * first, then funnels, then encoders. */
static void preset(struct rvt_tci *t, const struct rvt_tci_config *cfg)
{
    for (unsigned i = 0; i < t->n[2]; i++) {
        const struct rvt_ramsink_config *rc = &cfg->ramsinks[i];
        struct rvt_ramsink *s = t->ram[i];
        uint32_t ctl = 1u | (uint32_t)rc->mode << 4 | (uint32_t)(rc->stop_on_wrap != 0) << 8;
        rvt_ramsink_reg_write(s, 0x000, 1);
        rvt_ramsink_reg_write(s, 0x000, ctl);
        struct rvt_ramsink_state st;
        rvt_ramsink_state(s, &st);
        rvt_ramsink_reg_write(s, 0x024, (uint32_t)(st.start >> 32));
        rvt_ramsink_reg_write(s, 0x020, (uint32_t)st.start);
        rvt_ramsink_reg_write(s, 0x02C, (uint32_t)(st.start >> 32));
        rvt_ramsink_reg_write(s, 0x028, (uint32_t)st.start);
        rvt_ramsink_reg_write(s, 0x000, ctl | 2u);
    }
    for (unsigned i = 0; i < t->n[1]; i++) {
        rvt_funnel_reg_write(t->fun[i], 0x000, 1);
        rvt_funnel_reg_write(t->fun[i], 0x008, 0);
        rvt_funnel_reg_write(t->fun[i], 0x000, 3);
    }
    for (unsigned i = 0; i < t->n[3]; i++) {
        atb_write(&t->atb[i], 0x000, 1);
        atb_write(&t->atb[i], 0x000, 3u | (0x10u + i) << 8);
    }
    unsigned src_bits = t->n[0] > 1 ? bits_for(t->n[0]) : 0;
    for (unsigned i = 0; i < t->n[0]; i++) {
        struct te_block *b = &t->te[i];
        const struct rvt_te_caps *c = &b->caps;
        te_write(b, TE_CONTROL, 1);
        te_write(b, TE_FEATURES, (uint32_t)i << 16 | (uint32_t)src_bits << 28);
        unsigned mode = c->inst_modes >> 6 & 1 ? 6 : c->inst_modes >> 3 & 1 ? 3 : legal_enum(c->inst_modes, 7);
        unsigned sync = c->sync_modes >> 3 & 1 ? 3 : legal_enum(c->sync_modes, 1);
        te_write(b, TE_CONTROL, 1u | 1u << 1 | 1u << 2 | (uint32_t)mode << 4 | (uint32_t)sync << 16 | 8u << 20);
    }
}

int rvt_tci_new(const struct rvt_tci_config *cfg, struct rvt_tci **out, struct rvt_diag *diag)
{
    *out = NULL;
    if (!cfg || cfg->size < sizeof *cfg)
        return rvt_fail(diag, RVT_ERR_INVAL, "tci: config size %zu, expected %zu", cfg ? cfg->size : 0,
                        sizeof *cfg);
    if (cfg->n_encoders > MAX_TE || cfg->n_funnels > MAX_OTHER || cfg->n_ramsinks > MAX_OTHER ||
        cfg->n_atb_bridges > MAX_OTHER)
        return rvt_fail(diag, RVT_ERR_INVAL,
                        "tci: %u encoders, %u funnels, %u RAM sinks, %u ATB bridges (at most %u, %u, %u, %u)",
                        cfg->n_encoders, cfg->n_funnels, cfg->n_ramsinks, cfg->n_atb_bridges, MAX_TE, MAX_OTHER,
                        MAX_OTHER, MAX_OTHER);
    if (cfg->n_ramsinks && !cfg->ramsinks)
        return rvt_fail(diag, RVT_ERR_INVAL, "tci: %u RAM sinks but no RAM sink configurations", cfg->n_ramsinks);
    if (cfg->base_address % BLOCK)
        return rvt_fail(diag, RVT_ERR_INVAL, "tci: base address 0x%" PRIx64 " is not 4 KiB aligned",
                        cfg->base_address);
    struct rvt_tci *t = calloc(1, sizeof *t);
    if (!t)
        return rvt_fail(diag, RVT_ERR_NOMEM, "tci: out of memory");
    t->n[0] = cfg->n_encoders;
    t->n[1] = cfg->n_funnels;
    t->n[2] = cfg->n_ramsinks;
    t->n[3] = cfg->n_atb_bridges;
    t->te = calloc(t->n[0] ? t->n[0] : 1, sizeof *t->te);
    t->fun = calloc(t->n[1] ? t->n[1] : 1, sizeof *t->fun);
    t->ram = calloc(t->n[2] ? t->n[2] : 1, sizeof *t->ram);
    t->atb = calloc(t->n[3] ? t->n[3] : 1, sizeof *t->atb);
    bool ok = t->te && t->fun && t->ram && t->atb;
    uint64_t addr = t->base_address = cfg->base_address;
    for (int k = 0; k < 4 && ok; k++) {
        t->base[k] = calloc(t->n[k] ? t->n[k] : 1, sizeof *t->base[k]);
        ok = t->base[k] != NULL;
        for (unsigned i = 0; ok && i < t->n[k]; i++, addr += BLOCK)
            t->base[k][i] = addr;
    }
    if (!ok) {
        rvt_tci_free(t);
        return rvt_fail(diag, RVT_ERR_NOMEM, "tci: out of memory");
    }
    int rc = 0;
    for (unsigned i = 0; i < t->n[0] && !rc; i++) {
        if (cfg->te_caps) {
            rc = check_caps(&cfg->te_caps[i], i, diag);
            t->te[i].caps = cfg->te_caps[i];
        } else {
            rvt_te_caps_default(&t->te[i].caps, cfg->te_format);
            rc = check_caps(&t->te[i].caps, i, diag);
        }
        /* Power-up values of the Undef fields: what 0 legalises to. */
        struct te_block *b = &t->te[i];
        b->control = te_legal_control(b, 0);
        b->features = te_legal_features(b, 0);
        b->ts_control = b->caps.ts_modes ? te_legal_ts(b, 0) : 0;
    }
    unsigned inputs = cfg->funnel_inputs ? cfg->funnel_inputs : (cfg->n_encoders ? cfg->n_encoders : 1);
    for (unsigned i = 0; i < t->n[1] && !rc; i++) {
        struct rvt_funnel_config fc = {.size = sizeof fc,
                                       .n_inputs = inputs,
                                       .fifo_bytes = cfg->funnel_fifo_bytes,
                                       .power_on_reset = 1};
        rc = rvt_funnel_new(&fc, &t->fun[i], diag);
    }
    for (unsigned i = 0; i < t->n[2] && !rc; i++) {
        struct rvt_ramsink_config rcfg = cfg->ramsinks[i];
        rcfg.power_on_reset = 1;
        rc = rvt_ramsink_new(&rcfg, &t->ram[i], diag);
    }
    if (rc) {
        rvt_tci_free(t);
        return rc;
    }
    if (cfg->preset)
        preset(t, cfg);
    *out = t;
    return 0;
}

const char *rvt_tci_error(const struct rvt_tci *t)
{
    return t->diag.msg;
}

unsigned rvt_tci_count(const struct rvt_tci *t, enum rvt_tci_comp kind)
{
    int k = kind_slot(kind);
    return k < 0 ? 0 : t->n[k];
}

int rvt_tci_set_base(struct rvt_tci *t, enum rvt_tci_comp kind, unsigned idx, uint64_t base)
{
    int k = kind_slot(kind);
    if (k < 0 || idx >= t->n[k])
        return rvt_fail(&t->diag, RVT_ERR_INVAL, "tci: no component of type 0x%x number %u", (unsigned)kind, idx);
    if (base % BLOCK || base > UINT64_MAX - BLOCK + 1)
        return rvt_fail(&t->diag, RVT_ERR_INVAL,
                        "tci: base address 0x%" PRIx64 " of %s%u is not aligned on a 4 KiB boundary", base,
                        g_slot_name[k], idx);
    t->base[k][idx] = base;
    return 0;
}

int rvt_tci_get_base(const struct rvt_tci *t, enum rvt_tci_comp kind, unsigned idx, uint64_t *base)
{
    int k = kind_slot(kind);
    if (k < 0 || idx >= t->n[k])
        return -RVT_ERR_INVAL;
    *base = t->base[k][idx];
    return 0;
}

static int comp_check(struct rvt_tci *t, enum rvt_tci_comp kind, unsigned idx, uint32_t off, int *slot)
{
    int k = kind_slot(kind);
    if (k < 0 || idx >= t->n[k])
        return rvt_fail(&t->diag, RVT_ERR_INVAL, "tci: no component of type 0x%x number %u", (unsigned)kind, idx);
    if (off % 4 || off >= BLOCK)
        return rvt_fail(&t->diag, RVT_ERR_INVAL, "tci: %s%u: offset 0x%x is not a 32-bit register in the 4 KiB block",
                        g_slot_name[k], idx, off);
    *slot = k;
    return 0;
}

int rvt_tci_comp_read(struct rvt_tci *t, enum rvt_tci_comp kind, unsigned idx, uint32_t off, uint32_t *val)
{
    int k = 0;
    *val = 0;
    int rc = comp_check(t, kind, idx, off, &k);
    if (rc < 0)
        return rc;
    switch (k) {
    case 0:
        *val = te_read(&t->te[idx], off);
        return 0;
    case 1:
        return rvt_funnel_reg_read(t->fun[idx], off, val);
    case 2:
        return rvt_ramsink_reg_read(t->ram[idx], off, val);
    default:
        *val = atb_read(&t->atb[idx], off);
        return 0;
    }
}

int rvt_tci_comp_write(struct rvt_tci *t, enum rvt_tci_comp kind, unsigned idx, uint32_t off, uint32_t val)
{
    int k = 0;
    int rc = comp_check(t, kind, idx, off, &k);
    if (rc < 0)
        return rc;
    switch (k) {
    case 0:
        te_write(&t->te[idx], off, val);
        return 0;
    case 1:
        return rvt_funnel_reg_write(t->fun[idx], off, val);
    case 2:
        return rvt_ramsink_reg_write(t->ram[idx], off, val);
    default:
        atb_write(&t->atb[idx], off, val);
        return 0;
    }
}

/* The one component whose block holds addr. */
static int decode_addr(struct rvt_tci *t, uint64_t addr, enum rvt_tci_comp *kind, unsigned *idx, uint32_t *off)
{
    int found = 0;
    for (int k = 0; k < 4; k++) {
        for (unsigned i = 0; i < t->n[k]; i++) {
            uint64_t b = t->base[k][i];
            if (addr >= b && addr - b < BLOCK) {
                if (found)
                    return rvt_fail(&t->diag, RVT_ERR_INVAL,
                                    "tci: address 0x%" PRIx64 " is inside two component blocks (%s%u and %s%u)", addr,
                                    g_slot_name[kind_slot(*kind)], *idx, g_slot_name[k], i);
                found = 1;
                *kind = g_slot_kind[k];
                *idx = i;
                *off = (uint32_t)(addr - b);
            }
        }
    }
    if (!found)
        return rvt_fail(&t->diag, RVT_ERR_INVAL, "tci: address 0x%" PRIx64 " is not in any trace component's block",
                        addr);
    return 0;
}

int rvt_tci_read(struct rvt_tci *t, uint64_t addr, uint32_t *val)
{
    enum rvt_tci_comp kind = RVT_TCI_ENCODER;
    unsigned idx = 0;
    uint32_t off = 0;
    *val = 0;
    int rc = decode_addr(t, addr, &kind, &idx, &off);
    return rc < 0 ? rc : rvt_tci_comp_read(t, kind, idx, off, val);
}

int rvt_tci_write(struct rvt_tci *t, uint64_t addr, uint32_t val)
{
    enum rvt_tci_comp kind = RVT_TCI_ENCODER;
    unsigned idx = 0;
    uint32_t off = 0;
    int rc = decode_addr(t, addr, &kind, &idx, &off);
    return rc < 0 ? rc : rvt_tci_comp_write(t, kind, idx, off, val);
}

struct rvt_ramsink *rvt_tci_ramsink(struct rvt_tci *t, unsigned idx)
{
    return idx < t->n[2] ? t->ram[idx] : NULL;
}

struct rvt_funnel *rvt_tci_funnel(struct rvt_tci *t, unsigned idx)
{
    return idx < t->n[1] ? t->fun[idx] : NULL;
}

int rvt_tci_te_overflow(struct rvt_tci *t, unsigned idx)
{
    if (idx >= t->n[0])
        return -RVT_ERR_INVAL;
    struct te_block *b = &t->te[idx];
    if (b->active && (b->control & 2))
        b->control |= 1u << 12;
    return 0;
}

int rvt_tci_te_settings(const struct rvt_tci *t, unsigned idx, struct rvt_te_settings *out, size_t out_size)
{
    if (idx >= t->n[0] || !out)
        return -RVT_ERR_INVAL;
    const struct te_block *b = &t->te[idx];
    struct rvt_te_settings s;
    memset(&s, 0, sizeof s);
    s.size = sizeof s;
    uint32_t c = b->control, f = b->features;
    s.control = c | 1u << 3 | (uint32_t)b->active;
    s.impl = te_impl(b);
    s.features = f;
    s.format = (c >> 24) & 7;
    s.active = b->active;
    s.enabled = b->active && (c >> 1 & 1);
    s.inst_tracing = s.enabled && (c >> 2 & 1);
    s.inst_mode = (c >> 4) & 7;
    s.context = c >> 9 & 1;
    s.inst_trig_enable = c >> 11 & 1;
    s.stall_enable = c >> 13 & 1;
    s.inhibit_src = c >> 15 & 1;
    s.sync_mode = (enum rvt_te_sync_mode)((c >> 16) & 3);
    s.sync_max = (c >> 20) & 15;
    s.sync_period = s.sync_mode ? (uint64_t)1 << (s.sync_max + 4) : 0;
    s.src_id = (f >> 16) & 0xFFF;
    s.src_bits = s.inhibit_src ? 0 : f >> 28;
    s.no_addr_diff = f & 1;
    s.no_trap_addr = f >> 1 & 1;
    s.sequential_jump = f >> 2 & 1;
    s.implicit_return = f >> 3 & 1;
    s.branch_prediction = f >> 4 & 1;
    s.jump_target_cache = f >> 5 & 1;
    s.implicit_return_mode = (f >> 6) & 3;
    s.repeated_history = f >> 8 & 1;
    s.all_jumps = f >> 9 & 1;
    s.extend_addr_msb = f >> 10 & 1;
    s.inst_filters = (uint16_t)b->inst_filters;
    s.data_tracing = b->caps.has_data_trace && (b->data_control >> 1 & 1) && s.enabled;
    if (b->caps.ts_modes) {
        uint32_t ts = b->ts_control;
        s.ts_mode = (ts >> 4) & 7;
        s.ts_enable = (ts & 1) && (ts >> 15 & 1) && s.ts_mode != 0;
        s.ts_width = b->caps.ts_width;
        s.ts_prescale = (ts >> 8) & 3;
    }
    size_t n = out_size < sizeof s ? out_size : sizeof s;
    memcpy(out, &s, n);
    if (n >= sizeof(size_t))
        out->size = n;
    return 0;
}

int rvt_tci_atb_settings(const struct rvt_tci *t, unsigned idx, int *enabled, unsigned *id, unsigned *async_freq)
{
    if (idx >= t->n[3])
        return -RVT_ERR_INVAL;
    if (enabled)
        *enabled = t->atb[idx].active && t->atb[idx].enabled;
    if (id)
        *id = t->atb[idx].id;
    if (async_freq)
        *async_freq = 0;
    return 0;
}

/* ---- dump and register-file writer ------------------------------------------ */

/* Offsets of the registers a component implements, in address order. */
static unsigned comp_offsets(const struct rvt_tci *t, int k, unsigned idx, uint32_t *offs)
{
    static const uint32_t te_fixed[] = {TE_CONTROL,      TE_IMPL,        TE_FEATURES, TE_INST_FILTERS,
                                        TE_DATA_CONTROL, TE_DATA_FILTERS, TS_CONTROL, TS_COUNTER_LOW,
                                        TS_COUNTER_HIGH, TE_TRIG_DBG,    TE_TRIG_EXT_IN, TE_TRIG_EXT_OUT};
    static const uint32_t fun[] = {0x000, 0x004, 0x008};
    static const uint32_t ram[] = {0x000, 0x004, 0x010, 0x014, 0x018, 0x01C, 0x020, 0x024, 0x028, 0x02C};
    static const uint32_t atb[] = {0x000, 0x004};
    unsigned n = 0;
    if (k == 0) {
        const struct rvt_te_caps *c = &t->te[idx].caps;
        for (unsigned i = 0; i < sizeof te_fixed / sizeof te_fixed[0]; i++) {
            uint32_t o = te_fixed[i];
            if ((o == TE_DATA_CONTROL || o == TE_DATA_FILTERS) && !c->has_data_trace)
                continue;
            if (o >= TS_CONTROL && o <= TS_COUNTER_HIGH && !c->ts_modes)
                continue;
            if (o == TE_INST_FILTERS && !c->n_filters)
                continue;
            if (o == TE_TRIG_DBG && !c->trig_dbg_mask)
                continue;
            if (o == TE_TRIG_EXT_IN && !c->n_ext_trig_in)
                continue;
            if (o == TE_TRIG_EXT_OUT && !c->n_ext_trig_out)
                continue;
            offs[n++] = o;
        }
        for (unsigned i = 0; i < c->n_filters; i++)
            for (unsigned r = 0; r < 7; r++)
                if (r < 6 || c->has_data_trace)
                    offs[n++] = TE_FILTER + 0x20 * i + 4 * r;
        for (unsigned j = 0; j < c->n_comparators; j++) {
            offs[n++] = TE_COMP + 0x20 * j;
            for (unsigned r = 4; r < 8; r++)
                offs[n++] = TE_COMP + 0x20 * j + 4 * r;
        }
    } else {
        const uint32_t *src = k == 1 ? fun : k == 2 ? ram : atb;
        unsigned cnt = k == 1 ? 3 : k == 2 ? 10 : 2;
        for (unsigned i = 0; i < cnt; i++)
            offs[n++] = src[i];
    }
    return n;
}

#define MAX_OFFS (12 + 16 * 7 + 8 * 5)

int rvt_tci_dump_comp(struct rvt_tci *t, enum rvt_tci_comp kind, unsigned i, FILE *out)
{
    uint32_t offs[MAX_OFFS];
    char name[48];
    int k = kind_slot(kind);
    if (k < 0 || i >= t->n[k])
        return -RVT_ERR_INVAL;
    fprintf(out, "%s%u @ 0x%08" PRIx64 "\n", g_slot_name[k], i, t->base[k][i]);
    unsigned n = comp_offsets(t, k, i, offs);
    for (unsigned q = 0; q < n; q++) {
        uint32_t v;
        rvt_tci_comp_read(t, g_slot_kind[k], i, offs[q], &v);
        const struct rvt_sk_reg *r = rvt_sk_reg_at(g_slot_kind[k], offs[q]);
        fprintf(out, "  +0x%03x %-26s 0x%08" PRIx32, offs[q],
                r ? rvt_sk_reg_fullname(r, offs[q], name, sizeof name) : "?", v);
        for (unsigned fi = 0; r && fi < r->nfields; fi++) {
            const struct rvt_sk_field *f = &r->fields[fi];
            if (f->width >= 30)
                continue; /* a whole value or address: shown as the register */
            uint32_t fv = (v >> f->lsb) & ((1u << f->width) - 1);
            fprintf(out, " %s=%" PRIu32, f->name, fv);
        }
        fputc('\n', out);
    }
    return ferror(out) ? -RVT_ERR_IO : 0;
}

int rvt_tci_dump(struct rvt_tci *t, FILE *out)
{
    for (int k = 0; k < 4; k++)
        for (unsigned i = 0; i < t->n[k]; i++)
            rvt_tci_dump_comp(t, g_slot_kind[k], i, out);
    return ferror(out) ? -RVT_ERR_IO : 0;
}

static void emit(FILE *out, int k, unsigned i, uint32_t off, uint32_t v)
{
    char name[48];
    const struct rvt_sk_reg *r = rvt_sk_reg_at(g_slot_kind[k], off);
    if (r)
        fprintf(out, "%s%u.%s = 0x%08" PRIx32 "\n", g_slot_name[k], i, rvt_sk_reg_fullname(r, off, name, sizeof name),
                v);
    else
        fprintf(out, "%s%u+0x%03" PRIx32 " = 0x%08" PRIx32 "\n", g_slot_name[k], i, off, v);
}

int rvt_tci_write_regfile(struct rvt_tci *t, FILE *out)
{
    uint32_t offs[MAX_OFFS];
    fprintf(out, "# rvtrace register file: the writes that bring a system out of reset into this state\n");
    /* Sinks and bridges first, then funnels, encoders last (TCI "Enabling"). */
    static const int order[4] = {2, 3, 1, 0};
    uint64_t addr = t->base_address;
    bool default_layout = true;
    for (int k = 0; k < 4; k++)
        for (unsigned i = 0; i < t->n[k]; i++, addr += BLOCK)
            if (t->base[k][i] != addr)
                default_layout = false;
    for (int k = 0; k < 4; k++)
        for (unsigned i = 0; i < t->n[k]; i++)
            if (!default_layout)
                fprintf(out, "base %s%u = 0x%" PRIx64 "\n", g_slot_name[k], i, t->base[k][i]);
    for (int oi = 0; oi < 4; oi++) {
        int k = order[oi];
        enum rvt_tci_comp kind = g_slot_kind[k];
        for (unsigned i = 0; i < t->n[k]; i++) {
            uint32_t ctl;
            rvt_tci_comp_read(t, kind, i, 0, &ctl);
            fprintf(out, "# %s%u\n", g_slot_name[k], i);
            if (!(ctl & 1)) {
                emit(out, k, i, 0, 0);
                continue;
            }
            emit(out, k, i, 0, 1); /* out of reset, defaults */
            uint32_t enable_bit = 1u << 1;
            /* Mode first: other RAM sink registers depend on it. */
            if (k == 2)
                emit(out, k, i, 0, ctl & ~enable_bit & rvt_sk_reg_rw_mask(rvt_sk_reg_at(kind, 0)));
            unsigned n = comp_offsets(t, k, i, offs);
            if (k == 2) {
                /* High halves first, so that each 64-bit address is legal
                 * once its low half is written. */
                static const uint32_t ram_order[] = {0x014, 0x010, 0x01C, 0x018, 0x024, 0x020, 0x02C, 0x028};
                n = sizeof ram_order / sizeof ram_order[0];
                memcpy(offs, ram_order, sizeof ram_order);
            }
            for (unsigned q = 0; q < n; q++) {
                uint32_t off = offs[q], v;
                if (off == 0)
                    continue;
                const struct rvt_sk_reg *r = rvt_sk_reg_at(kind, off);
                if (!r || rvt_sk_reg_rw_mask(r) == 0)
                    continue; /* read-only (impl, counters) */
                rvt_tci_comp_read(t, kind, i, off, &v);
                emit(out, k, i, off, v & rvt_sk_reg_rw_mask(r));
            }
            emit(out, k, i, 0, ctl & rvt_sk_reg_rw_mask(rvt_sk_reg_at(kind, 0)));
        }
    }
    return ferror(out) ? -RVT_ERR_IO : 0;
}
