/* Trace Control Interface register and field descriptions, transcribed
 * from the TCI specification's register tables (bit positions, widths and
 * access types).  The model (tci.c) and the register-file reader use them
 * for names; the legal values live in the model. */
#include "sink/sink_internal.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#define RW RVT_SK_RW
#define RO RVT_SK_RO
#define W1C RVT_SK_RW1C
#define W1 RVT_SK_W1
#define N(a) (unsigned)(sizeof(a) / sizeof(a)[0])

/* ---- Trace Encoder -------------------------------------------------------- */
static const struct rvt_sk_field te_control[] = {
    {"trTeActive", 0, 1, RW},          {"trTeEnable", 1, 1, RW},
    {"trTeInstTracing", 2, 1, RW},     {"trTeEmpty", 3, 1, RO},
    {"trTeInstMode", 4, 3, RW},        {"trTeContext", 9, 1, RW},
    {"trTeInstTrigEnable", 11, 1, RW}, {"trTeInstStallOrOverflow", 12, 1, W1C},
    {"trTeInstStallEna", 13, 1, RW},   {"trTeInhibitSrc", 15, 1, RW},
    {"trTeInstSyncMode", 16, 2, RW},   {"trTeInstSyncMax", 20, 4, RW},
    {"trTeFormat", 24, 3, RW},
};
static const struct rvt_sk_field te_impl[] = {
    {"trTeVerMajor", 0, 4, RO},      {"trTeVerMinor", 4, 4, RO},      {"trTeCompType", 8, 4, RO},
    {"trTeProtocolMajor", 16, 4, RO}, {"trTeProtocolMinor", 20, 4, RO},
};
static const struct rvt_sk_field te_features[] = {
    {"trTeInstNoAddrDiff", 0, 1, RW},         {"trTeInstNoTrapAddr", 1, 1, RW},
    {"trTeInstEnSequentialJump", 2, 1, RW},   {"trTeInstEnImplicitReturn", 3, 1, RW},
    {"trTeInstEnBranchPrediction", 4, 1, RW}, {"trTeInstEnJumpTargetCache", 5, 1, RW},
    {"trTeInstImplicitReturnMode", 6, 2, RW}, {"trTeInstEnRepeatedHistory", 8, 1, RW},
    {"trTeInstEnAllJumps", 9, 1, RW},         {"trTeInstExtendAddrMSB", 10, 1, RW},
    {"trTeSrcID", 16, 12, RW},                {"trTeSrcBits", 28, 4, RW},
};
static const struct rvt_sk_field te_inst_filters[] = {{"trTeInstFilters", 0, 16, RW}};
static const struct rvt_sk_field te_data_control[] = {
    {"trTeDataImplemented", 0, 1, RO},      {"trTeDataTracing", 1, 1, RW},
    {"trTeDataTrigEnable", 2, 1, RW},       {"trTeDataStallOrOverflow", 3, 1, W1C},
    {"trTeDataStallEna", 4, 1, RW},         {"trTeDataDrop", 5, 1, W1C},
    {"trTeDataDropEna", 6, 1, RW},          {"trTeDataNoValue", 16, 1, RW},
    {"trTeDataNoAddr", 17, 1, RW},          {"trTeDataAddrCompress", 18, 2, RW},
};
static const struct rvt_sk_field te_data_filters[] = {{"trTeDataFilters", 0, 16, RW}};
static const struct rvt_sk_field ts_control[] = {
    {"trTsActive", 0, 1, RW},    {"trTsCount", 1, 1, RW},    {"trTsReset", 2, 1, W1},
    {"trTsRunInDebug", 3, 1, RW}, {"trTsMode", 4, 3, RW},     {"trTsPrescale", 8, 2, RW},
    {"trTsEnable", 15, 1, RW},    {"trTsWidth", 24, 6, RO},
};
static const struct rvt_sk_field ts_counter_low[] = {{"trTsCounterLow", 0, 32, RO}};
static const struct rvt_sk_field ts_counter_high[] = {{"trTsCounterHigh", 0, 32, RO}};
static const struct rvt_sk_field te_trig_dbg[] = {{"trTeTrigDbgControl", 0, 32, RW}};
static const struct rvt_sk_field te_trig_in[] = {
    {"trTeTrigExtInAction0", 0, 4, RW},  {"trTeTrigExtInAction1", 4, 4, RW},
    {"trTeTrigExtInAction2", 8, 4, RW},  {"trTeTrigExtInAction3", 12, 4, RW},
    {"trTeTrigExtInAction4", 16, 4, RW}, {"trTeTrigExtInAction5", 20, 4, RW},
    {"trTeTrigExtInAction6", 24, 4, RW}, {"trTeTrigExtInAction7", 28, 4, RW},
};
static const struct rvt_sk_field te_trig_out[] = {
    {"trTeTrigExtOutEvent0", 0, 4, RW},  {"trTeTrigExtOutEvent1", 4, 4, RW},
    {"trTeTrigExtOutEvent2", 8, 4, RW},  {"trTeTrigExtOutEvent3", 12, 4, RW},
    {"trTeTrigExtOutEvent4", 16, 4, RW}, {"trTeTrigExtOutEvent5", 20, 4, RW},
    {"trTeTrigExtOutEvent6", 24, 4, RW}, {"trTeTrigExtOutEvent7", 28, 4, RW},
};

/* trTeFilter<i>: 0x400 + 0x20*i. */
static const struct rvt_sk_field filt_control[] = {
    {"trTeFilterEnable", 0, 1, RW},         {"trTeFilterMatchPrivilege", 1, 1, RW},
    {"trTeFilterMatchEcause", 2, 1, RW},    {"trTeFilterMatchInterrupt", 3, 1, RW},
    {"trTeFilterMatchComp1", 4, 1, RW},     {"trTeFilterComp1", 5, 3, RW},
    {"trTeFilterMatchComp2", 8, 1, RW},     {"trTeFilterComp2", 9, 3, RW},
    {"trTeFilterMatchComp3", 12, 1, RW},    {"trTeFilterComp3", 13, 3, RW},
    {"trTeFilterMatchImpdef", 16, 1, RW},   {"trTeFilterMatchDtype", 24, 1, RW},
    {"trTeFilterMatchDsize", 25, 1, RW},
};
static const struct rvt_sk_field filt_inst[] = {
    {"trTeFilterMatchChoicePrivilege", 0, 8, RW},
    {"trTeFilterMatchValueInterrupt", 8, 1, RW},
};
static const struct rvt_sk_field filt_ecause_low[] = {{"trTeFilterMatchChoiceEcauseLow", 0, 32, RW}};
static const struct rvt_sk_field filt_ecause_high[] = {{"trTeFilterMatchChoiceEcauseHigh", 0, 32, RW}};
static const struct rvt_sk_field filt_value[] = {{"trTeFilterMatchValueImpdef", 0, 32, RW}};
static const struct rvt_sk_field filt_mask[] = {{"trTeFilterMatchMaskImpdef", 0, 32, RW}};
static const struct rvt_sk_field filt_data[] = {
    {"trTeFilterMatchChoiceDtype", 0, 16, RW},
    {"trTeFilterMatchChoiceDsize", 16, 8, RW},
};
/* trTeComp<j>: 0x600 + 0x20*j. */
static const struct rvt_sk_field comp_control[] = {
    {"trTeCompPInput", 0, 2, RW},    {"trTeCompSInput", 2, 2, RW},    {"trTeCompPFunction", 4, 3, RW},
    {"trTeCompSFunction", 8, 3, RW}, {"trTeCompMatchMode", 12, 2, RW}, {"trTeCompPNotify", 14, 1, RW},
    {"trTeCompSNotify", 15, 1, RW},
};
static const struct rvt_sk_field comp_pl[] = {{"trTeCompPMatchLow", 0, 32, RW}};
static const struct rvt_sk_field comp_ph[] = {{"trTeCompPMatchHigh", 0, 32, RW}};
static const struct rvt_sk_field comp_sl[] = {{"trTeCompSMatchLow", 0, 32, RW}};
static const struct rvt_sk_field comp_sh[] = {{"trTeCompSMatchHigh", 0, 32, RW}};

/* ---- Funnel, RAM sink, ATB bridge ------------------------------------------ */
static const struct rvt_sk_field fun_control[] = {
    {"trFunnelActive", 0, 1, RW}, {"trFunnelEnable", 1, 1, RW}, {"trFunnelEmpty", 3, 1, RO}};
static const struct rvt_sk_field fun_impl[] = {
    {"trFunnelVerMajor", 0, 4, RO}, {"trFunnelVerMinor", 4, 4, RO}, {"trFunnelCompType", 8, 4, RO}};
static const struct rvt_sk_field fun_dis[] = {{"trFunnelDisInput", 0, 16, RW}};

static const struct rvt_sk_field ram_control[] = {
    {"trRamActive", 0, 1, RW},     {"trRamEnable", 1, 1, RW},    {"trRamEmpty", 3, 1, RO},
    {"trRamMode", 4, 1, RW},       {"trRamStopOnWrap", 8, 1, RW}, {"trRamMemFormat", 9, 2, RW},
    {"trRamAsyncFreq", 12, 3, RW},
};
static const struct rvt_sk_field ram_impl[] = {
    {"trRamVerMajor", 0, 4, RO}, {"trRamVerMinor", 4, 4, RO},  {"trRamCompType", 8, 4, RO},
    {"trRamHasSRAM", 12, 1, RO}, {"trRamHasSMEM", 13, 1, RO},
};
static const struct rvt_sk_field ram_start_low[] = {{"trRamStartLow", 2, 30, RW}};
static const struct rvt_sk_field ram_start_high[] = {{"trRamStartHigh", 0, 32, RW}};
static const struct rvt_sk_field ram_limit_low[] = {{"trRamLimitLow", 2, 30, RW}};
static const struct rvt_sk_field ram_limit_high[] = {{"trRamLimitHigh", 0, 32, RW}};
static const struct rvt_sk_field ram_wp_low[] = {{"trRamWrap", 0, 1, RW}, {"trRamWPLow", 2, 30, RW}};
static const struct rvt_sk_field ram_wp_high[] = {{"trRamWPHigh", 0, 32, RW}};
static const struct rvt_sk_field ram_rp_low[] = {{"trRamRPLow", 2, 30, RW}};
static const struct rvt_sk_field ram_rp_high[] = {{"trRamRPHigh", 0, 32, RW}};
static const struct rvt_sk_field ram_data[] = {{"trRamData", 0, 32, RW}};

static const struct rvt_sk_field atb_control[] = {
    {"trAtbBridgeActive", 0, 1, RW}, {"trAtbBridgeEnable", 1, 1, RW}, {"trAtbBridgeEmpty", 3, 1, RO},
    {"trAtbBridgeID", 8, 7, RW},
};
static const struct rvt_sk_field atb_impl[] = {
    {"trAtbBridgeVerMajor", 0, 4, RO}, {"trAtbBridgeVerMinor", 4, 4, RO},
    {"trAtbBridgeCompType", 8, 4, RO}, {"trAtbBridgeAsyncFreq", 12, 3, RW},
};

#define TE RVT_SK_K_TE
#define FU RVT_SK_K_FUNNEL
#define RA RVT_SK_K_RAM
#define AT RVT_SK_K_ATB
#define R(name, off, kinds, f) {name, off, kinds, 0, false, f, N(f)}

static const struct rvt_sk_reg g_regs[] = {
    R("trTeControl", 0x000, TE, te_control),
    R("trTeImpl", 0x004, TE, te_impl),
    R("trTeInstFeatures", 0x008, TE, te_features),
    R("trTeInstFilters", 0x00C, TE, te_inst_filters),
    R("trTeDataControl", 0x010, TE, te_data_control),
    R("trTeDataFilters", 0x01C, TE, te_data_filters),
    R("trTsControl", 0x040, TE | FU, ts_control),
    R("trTsCounterLow", 0x048, TE | FU, ts_counter_low),
    R("trTsCounterHigh", 0x04C, TE | FU, ts_counter_high),
    R("trTeTrigDbgControl", 0x050, TE, te_trig_dbg),
    R("trTeTrigExtInControl", 0x054, TE, te_trig_in),
    R("trTeTrigExtOutControl", 0x058, TE, te_trig_out),
    R("trFunnelControl", 0x000, FU, fun_control),
    R("trFunnelImpl", 0x004, FU, fun_impl),
    R("trFunnelDisInput", 0x008, FU, fun_dis),
    R("trRamControl", 0x000, RA, ram_control),
    R("trRamImpl", 0x004, RA, ram_impl),
    R("trRamStartLow", 0x010, RA, ram_start_low),
    R("trRamStartHigh", 0x014, RA, ram_start_high),
    R("trRamLimitLow", 0x018, RA, ram_limit_low),
    R("trRamLimitHigh", 0x01C, RA, ram_limit_high),
    R("trRamWPLow", 0x020, RA, ram_wp_low),
    R("trRamWPHigh", 0x024, RA, ram_wp_high),
    R("trRamRPLow", 0x028, RA, ram_rp_low),
    R("trRamRPHigh", 0x02C, RA, ram_rp_high),
    {"trRamData", 0x040, RA, 0, true, ram_data, N(ram_data)},
    R("trAtbBridgeControl", 0x000, AT, atb_control),
    R("trAtbBridgeImpl", 0x004, AT, atb_impl),
};

#define B(name, off, blk, f) {name, off, TE, blk, false, f, N(f)}
static const struct rvt_sk_reg g_filter_regs[] = {
    B("Control", 0x00, 1, filt_control),          B("MatchInst", 0x04, 1, filt_inst),
    B("MatchEcauseLow", 0x08, 1, filt_ecause_low), B("MatchEcauseHigh", 0x0C, 1, filt_ecause_high),
    B("MatchValueImpdef", 0x10, 1, filt_value),   B("MatchMaskImpdef", 0x14, 1, filt_mask),
    B("MatchData", 0x18, 1, filt_data),
};
static const struct rvt_sk_reg g_comp_regs[] = {
    B("Control", 0x00, 2, comp_control), B("PMatchLow", 0x10, 2, comp_pl), B("PMatchHigh", 0x14, 2, comp_ph),
    B("SMatchLow", 0x18, 2, comp_sl),    B("SMatchHigh", 0x1C, 2, comp_sh),
};

#define FILTER_BASE 0x400u
#define COMP_BASE 0x600u
#define BLOCK_STRIDE 0x20u

unsigned rvt_sk_kind_bit(enum rvt_tci_comp kind)
{
    switch (kind) {
    case RVT_TCI_ENCODER:
        return TE;
    case RVT_TCI_FUNNEL:
        return FU;
    case RVT_TCI_RAMSINK:
        return RA;
    case RVT_TCI_ATBBRIDGE:
        return AT;
    default:
        return 0;
    }
}

static bool ieq(const char *a, size_t an, const char *b)
{
    size_t bn = strlen(b);
    return an == bn && strncasecmp(a, b, an) == 0;
}

/* "<prefix><index><suffix>" for an indexed block. */
static const struct rvt_sk_reg *find_indexed(const char *name, size_t n, const char *prefix, unsigned max,
                                             uint32_t base, const struct rvt_sk_reg *tab, unsigned ntab,
                                             uint32_t *off)
{
    size_t pl = strlen(prefix);
    if (n <= pl || strncasecmp(name, prefix, pl) != 0)
        return NULL;
    size_t i = pl;
    unsigned idx = 0;
    if (i >= n || name[i] < '0' || name[i] > '9')
        return NULL;
    while (i < n && name[i] >= '0' && name[i] <= '9' && idx < 100)
        idx = idx * 10 + (unsigned)(name[i++] - '0');
    if (idx >= max)
        return NULL;
    for (unsigned k = 0; k < ntab; k++) {
        if (ieq(name + i, n - i, tab[k].name)) {
            *off = base + BLOCK_STRIDE * idx + tab[k].off;
            return &tab[k];
        }
    }
    return NULL;
}

const struct rvt_sk_reg *rvt_sk_reg_find(const char *name, size_t n, uint32_t *off)
{
    for (unsigned i = 0; i < N(g_regs); i++) {
        if (ieq(name, n, g_regs[i].name)) {
            *off = g_regs[i].off;
            return &g_regs[i];
        }
    }
    const struct rvt_sk_reg *r = find_indexed(name, n, "trTeFilter", 16, FILTER_BASE, g_filter_regs,
                                              N(g_filter_regs), off);
    if (!r)
        r = find_indexed(name, n, "trTeComp", 8, COMP_BASE, g_comp_regs, N(g_comp_regs), off);
    return r;
}

const struct rvt_sk_reg *rvt_sk_reg_at(enum rvt_tci_comp kind, uint32_t off)
{
    unsigned kb = rvt_sk_kind_bit(kind);
    for (unsigned i = 0; i < N(g_regs); i++)
        if ((g_regs[i].kinds & kb) && g_regs[i].off == off)
            return &g_regs[i];
    if (kind == RVT_TCI_ENCODER && off >= FILTER_BASE && off < FILTER_BASE + 16 * BLOCK_STRIDE) {
        for (unsigned k = 0; k < N(g_filter_regs); k++)
            if (g_filter_regs[k].off == (off - FILTER_BASE) % BLOCK_STRIDE)
                return &g_filter_regs[k];
    }
    if (kind == RVT_TCI_ENCODER && off >= COMP_BASE && off < COMP_BASE + 8 * BLOCK_STRIDE) {
        for (unsigned k = 0; k < N(g_comp_regs); k++)
            if (g_comp_regs[k].off == (off - COMP_BASE) % BLOCK_STRIDE)
                return &g_comp_regs[k];
    }
    return NULL;
}

const struct rvt_sk_field *rvt_sk_reg_field(const struct rvt_sk_reg *r, const char *name, size_t n)
{
    for (unsigned i = 0; i < r->nfields; i++)
        if (ieq(name, n, r->fields[i].name))
            return &r->fields[i];
    return NULL;
}

const struct rvt_sk_field *rvt_sk_field_find(const char *name, size_t n, const struct rvt_sk_reg **reg,
                                             uint32_t *off)
{
    const struct rvt_sk_field *found = NULL;
    for (unsigned i = 0; i < N(g_regs); i++) {
        const struct rvt_sk_field *f = rvt_sk_reg_field(&g_regs[i], name, n);
        if (f) {
            if (found)
                return NULL; /* ambiguous */
            found = f;
            *reg = &g_regs[i];
            *off = g_regs[i].off;
        }
    }
    return found;
}

static uint32_t field_mask(const struct rvt_sk_field *f)
{
    return f->width >= 32 ? 0xFFFFFFFFu : ((1u << f->width) - 1) << f->lsb;
}

uint32_t rvt_sk_reg_rw_mask(const struct rvt_sk_reg *r)
{
    uint32_t m = 0;
    for (unsigned i = 0; i < r->nfields; i++)
        if (r->fields[i].acc == RVT_SK_RW)
            m |= field_mask(&r->fields[i]);
    return m;
}

uint32_t rvt_sk_reg_action_mask(const struct rvt_sk_reg *r)
{
    uint32_t m = 0;
    for (unsigned i = 0; i < r->nfields; i++)
        if (r->fields[i].acc == RVT_SK_RW1C || r->fields[i].acc == RVT_SK_W1)
            m |= field_mask(&r->fields[i]);
    return m;
}

const char *rvt_sk_reg_fullname(const struct rvt_sk_reg *r, uint32_t off, char *buf, size_t bufsz)
{
    if (r->block == 1)
        snprintf(buf, bufsz, "trTeFilter%u%s", (off - FILTER_BASE) / BLOCK_STRIDE, r->name);
    else if (r->block == 2)
        snprintf(buf, bufsz, "trTeComp%u%s", (off - COMP_BASE) / BLOCK_STRIDE, r->name);
    else
        snprintf(buf, bufsz, "%s", r->name);
    return buf;
}

int rvt_tci_reg_lookup(const char *name, enum rvt_tci_comp *kind, uint32_t *off)
{
    const struct rvt_sk_reg *r = rvt_sk_reg_find(name, strlen(name), off);
    if (!r)
        return -RVT_ERR_INVAL;
    *kind = (r->kinds & TE) ? RVT_TCI_ENCODER
            : (r->kinds & FU) ? RVT_TCI_FUNNEL
            : (r->kinds & RA) ? RVT_TCI_RAMSINK
                              : RVT_TCI_ATBBRIDGE;
    return 0;
}

const char *rvt_tci_reg_name(enum rvt_tci_comp kind, uint32_t off, char *buf, size_t bufsz)
{
    const struct rvt_sk_reg *r = rvt_sk_reg_at(kind, off);
    if (!r) {
        snprintf(buf, bufsz, "+0x%03x", off);
        return buf;
    }
    return rvt_sk_reg_fullname(r, off, buf, bufsz);
}
