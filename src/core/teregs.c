/* Trace Control Interface encoder registers -> a family's options.  The
 * register model (src/sink/tci.c) decodes the fields; this maps them onto
 * the option names the families already accept, so a register file and the
 * equivalent command line configure exactly the same encoder. */
#include "rvtrace/codec.h"
#include "rvtrace/filter.h"
#include "rvtrace/sink.h"

#include <inttypes.h>
#include <string.h>

static bool has_opt(const struct rvt_codec *c, const char *name)
{
    for (const struct rvt_codec_opt *o = c->options; o && o->name; o++)
        if (strcmp(o->name, name) == 0)
            return true;
    return false;
}

static int set(const struct rvt_codec *c, void *cfg, const char *name, const char *val, const char *field,
               struct rvt_diag *d)
{
    if (!has_opt(c, name))
        return rvt_fail(d, RVT_ERR_UNSUPPORTED, "%s: the %s family cannot express %s", field, c->name, name);
    struct rvt_diag e = {0};
    if (c->cfg_set(cfg, name, val, &e) < 0)
        return rvt_fail(d, RVT_ERR_INVAL, "%s: --%s %s: %s", field, name, val, e.msg);
    return 0;
}

int rvt_codec_apply_te(const struct rvt_codec *c, void *cfg, const struct rvt_te_settings *s, struct rvt_diag *d)
{
    char v[32];
    int rc;
    const bool nt = strcmp(c->name, "ntrace") == 0, et = strcmp(c->name, "etrace") == 0;
    if (!nt && !et)
        return rvt_fail(d, RVT_ERR_UNSUPPORTED,
                        "the %s family is not a Trace Control Interface encoder (N-Trace or E-Trace)", c->name);
    if (nt) {
        if (s->inst_mode != 3 && s->inst_mode != 6)
            return rvt_fail(d, RVT_ERR_UNSUPPORTED, "trTeInstMode %u: N-Trace supports 3 (BTM) and 6 (HTM)",
                            s->inst_mode);
        if ((rc = set(c, cfg, "ntrace-mode", s->inst_mode == 3 ? "btm" : "htm", "trTeInstMode", d)) < 0)
            return rc;
    }
    switch (s->sync_mode) {
    case RVT_TE_SYNC_OFF:
        if (et && (rc = set(c, cfg, "resync-max", "off", "trTeInstSyncMode", d)) < 0)
            return rc;
        break;
    case RVT_TE_SYNC_PACKETS:
        if (nt) {
            snprintf(v, sizeof v, "%" PRIu64, s->sync_period);
            rc = set(c, cfg, "sync-msgs", v, "trTeInstSyncMode/Max", d);
        } else {
            snprintf(v, sizeof v, "%u", s->sync_max);
            rc = set(c, cfg, "resync-max", v, "trTeInstSyncMode/Max", d);
        }
        if (rc < 0)
            return rc;
        break;
    case RVT_TE_SYNC_HALFWORDS:
        if (!nt)
            return rvt_fail(d, RVT_ERR_UNSUPPORTED,
                            "trTeInstSyncMode 3 (half-words): the E-Trace encoder counts packets (mode 1)");
        snprintf(v, sizeof v, "%" PRIu64, s->sync_period);
        if ((rc = set(c, cfg, "sync-period", v, "trTeInstSyncMode/Max", d)) < 0)
            return rc;
        break;
    default:
        return rvt_fail(d, RVT_ERR_UNSUPPORTED,
                        "trTeInstSyncMode %u (clock cycles): an instruction trace has no clock to count",
                        (unsigned)s->sync_mode);
    }
    snprintf(v, sizeof v, "%u", s->src_bits);
    if ((rc = set(c, cfg, "src-bits", v, "trTeSrcBits", d)) < 0)
        return rc;
    snprintf(v, sizeof v, "%u", s->src_id);
    if ((rc = set(c, cfg, "src-id", v, "trTeSrcID", d)) < 0)
        return rc;
    if (s->sequential_jump && (rc = set(c, cfg, "sijump", "1", "trTeInstEnSequentialJump", d)) < 0)
        return rc;
    if (s->all_jumps)
        return rvt_fail(d, RVT_ERR_UNSUPPORTED,
                        "trTeInstEnAllJumps: reporting direct jumps is not implemented by the %s encoder", c->name);
    if (nt) {
        if (s->context && (rc = set(c, cfg, "context", "1", "trTeContext", d)) < 0)
            return rc;
        /* The register enables implicit return; its depth is the hardware's
         * (trTeInstFeatures does not say): the spec's limit, 32 ("should
         * never implement call stack deeper than 32 levels").
         * trTeInstImplicitReturnMode 1 is "simple counting", 3 (and 0,
         * "not reporting how") a stack of full addresses; 2 (partial
         * addresses) is not implemented. */
        if (s->implicit_return) {
            if (s->implicit_return_mode == 2)
                return rvt_fail(d, RVT_ERR_UNSUPPORTED,
                                "trTeInstImplicitReturnMode 2: partial return-address compare is not implemented");
            if ((rc = set(c, cfg, "callstack", "32", "trTeInstEnImplicitReturn", d)) < 0 ||
                (rc = set(c, cfg, "callstack-mode", s->implicit_return_mode == 1 ? "count" : "addr",
                          "trTeInstImplicitReturnMode", d)) < 0)
                return rc;
        }
        if (s->repeated_history && (rc = set(c, cfg, "repeat", "2", "trTeInstEnRepeatedHistory", d)) < 0)
            return rc;
        if (s->extend_addr_msb && (rc = set(c, cfg, "addr-ext", "1", "trTeInstExtendAddrMSB", d)) < 0)
            return rc;
        if (s->ts_enable && (rc = set(c, cfg, "timestamps", "1", "trTsEnable", d)) < 0)
            return rc;
    } else {
        if (s->implicit_return &&
            (rc = set(c, cfg, "implicit-return", s->implicit_return_mode ? "fixed" : "2.0", "trTeInstImplicitReturn",
                      d)) < 0)
            return rc;
        if (s->branch_prediction && (rc = set(c, cfg, "branch-prediction", "1", "trTeInstEnBranchPrediction", d)) < 0)
            return rc;
        if (s->jump_target_cache && (rc = set(c, cfg, "jump-target-cache", "1", "trTeInstEnJumpTargetCache", d)) < 0)
            return rc;
        if (s->no_addr_diff && (rc = set(c, cfg, "full-address", "1", "trTeInstNoAddrDiff", d)) < 0)
            return rc;
        /* "do not include trap handler address": E-Trace's implicit
         * exception mode (the decoder then needs the tvec values). */
        if (s->no_trap_addr && (rc = set(c, cfg, "implicit-except", "1", "trTeInstNoTrapAddr", d)) < 0)
            return rc;
        /* e-trace-encap: "When trTsEnable ... is 1, a timestamp may be
         * optionally included, via the timestamp field"; "trTsWidth ...
         * indicates the number of bits in timestamp fields". */
        if (s->ts_enable) {
            snprintf(v, sizeof v, "%u", (s->ts_width + 7) / 8);
            if ((rc = set(c, cfg, "encap-timestamp", v, "trTsEnable/trTsWidth", d)) < 0)
                return rc;
        }
    }
    return 0;
}

/* Filters from the registers: the layouts of the TCI tables "Trace Encoder
 * Filter Registers" (trTeFilter<i> at 0x400 + 0x20*i: Control,
 * MatchInst, MatchEcauseLow/High, MatchValueImpdef, MatchMaskImpdef) and
 * trTeComp<j> at 0x600 + 0x20*j (Control, then PMatchLow/High and
 * SMatchLow/High at +0x10..+0x1C). */
int rvt_filter_config_from_tci(struct rvt_filter_config *cfg, struct rvt_tci *t, unsigned idx, struct rvt_diag *d)
{
    uint32_t v = 0;
    int rc = rvt_tci_comp_read(t, RVT_TCI_ENCODER, idx, 0x00C, &v);
    if (rc < 0)
        return rvt_fail(d, RVT_ERR_INVAL, "encoder%u: %s", idx, rvt_tci_error(t));
    cfg->inst_filters = (uint16_t)v;
    cfg->nfilters = 0;
    cfg->ncomparators = 0;
    if (!cfg->inst_filters)
        return 0;
    for (unsigned i = 0; i < RVT_FILTER_MAX_FILTERS; i++) {
        uint32_t r[6];
        for (unsigned k = 0; k < 6; k++)
            rvt_tci_comp_read(t, RVT_TCI_ENCODER, idx, 0x400 + 0x20 * i + 4 * k, &r[k]);
        struct rvt_filter_unit *u = &cfg->filter[i];
        memset(u, 0, sizeof *u);
        u->enable = r[0] & 1;
        u->match_priv = r[0] >> 1 & 1;
        u->match_ecause = r[0] >> 2 & 1;
        u->match_interrupt = r[0] >> 3 & 1;
        for (unsigned k = 0; k < RVT_FILTER_COMPS_PER_FILTER; k++) {
            u->match_comp[k] = r[0] >> (4 + 4 * k) & 1;
            u->comp[k] = (uint8_t)(r[0] >> (5 + 4 * k) & 7);
        }
        u->match_impdef = r[0] >> 16 & 1;
        if (r[0] >> 24 & 3)
            return rvt_fail(d, RVT_ERR_UNSUPPORTED,
                            "encoder%u: trTeFilter%uMatchDtype/Dsize: data trace filters are not implemented", idx, i);
        u->priv_choice = (uint8_t)r[1];
        u->interrupt_value = r[1] >> 8 & 1;
        u->ecause_choice = (uint64_t)r[3] << 32 | r[2];
        u->impdef_value = r[4];
        u->impdef_mask = r[5];
        if (u->enable || (cfg->inst_filters >> i & 1))
            cfg->nfilters = i + 1;
    }
    for (unsigned j = 0; j < RVT_FILTER_MAX_COMPARATORS; j++) {
        uint32_t c, m[4];
        rvt_tci_comp_read(t, RVT_TCI_ENCODER, idx, 0x600 + 0x20 * j, &c);
        for (unsigned k = 0; k < 4; k++)
            rvt_tci_comp_read(t, RVT_TCI_ENCODER, idx, 0x610 + 0x20 * j + 4 * k, &m[k]);
        struct rvt_comparator *k = &cfg->comp[j];
        memset(k, 0, sizeof *k);
        k->p_input = (uint8_t)(c & 3);
        k->s_input = (uint8_t)(c >> 2 & 3);
        k->p_fn = (uint8_t)(c >> 4 & 7);
        k->s_fn = (uint8_t)(c >> 8 & 7);
        k->mode = (uint8_t)(c >> 12 & 3);
        k->p_notify = c >> 14 & 1;
        k->s_notify = c >> 15 & 1;
        k->p_match = (uint64_t)m[1] << 32 | m[0];
        k->s_match = (uint64_t)m[3] << 32 | m[2];
    }
    /* Only the comparators an enabled filter uses count; the others may
     * hold anything (a data address input, say) that nothing reads. */
    unsigned used = 0;
    for (unsigned i = 0; i < cfg->nfilters; i++)
        for (unsigned k = 0; k < RVT_FILTER_COMPS_PER_FILTER; k++)
            if (cfg->filter[i].enable && cfg->filter[i].match_comp[k])
                used |= 1u << cfg->filter[i].comp[k];
    for (unsigned j = 0; j < RVT_FILTER_MAX_COMPARATORS; j++) {
        if (used >> j & 1)
            cfg->ncomparators = j + 1;
        else
            memset(&cfg->comp[j], 0, sizeof cfg->comp[j]);
    }
    return 1;
}
