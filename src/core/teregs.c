/* Trace Control Interface encoder registers -> a family's options.  The
 * register model (src/sink/tci.c) decodes the fields; this maps them onto
 * the option names the families already accept, so a register file and the
 * equivalent command line configure exactly the same encoder. */
#include "rvtrace/codec.h"
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
