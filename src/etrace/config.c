/* E-Trace parameters and options: defaults, setting by name, the reference
 * flow's static (.scf) and user (.ucf) configuration files, discovery. */
#include "etrace/etrace.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void et_params_default(struct et_params *p)
{
    memset(p, 0, sizeof *p);
    p->iaddress_width_p = 0; /* from xlen in et_params_finish */
    p->iaddress_lsb_p = 1;
    p->privilege_width_p = 2;
    p->context_width_p = 32;
    p->time_width_p = 64;
    p->nocontext_p = 1;
    p->notime_p = 1;
    p->ecause_width_p = 6;
    p->itype_width_p = 4;
    p->ctype_width_p = 2;
    p->ilastsize_width_p = 1;
    p->iretire_width_p = 7;
    p->retires_p = 1;
    p->taken_branches_p = 1;
    p->blocks_p = 1;
    p->comparators_p = 1;
    p->filters_p = 1;
    p->ecause_choice_p = 5;
    p->encoder_mode_width = 1;
    p->ioptions_width = ET_IOPTIONS_WIDTH;
    p->doptions_width = ET_DOPTIONS_WIDTH; /* (zero when data trace is off: sign compression drops it) */
    p->denable_p = 1;
    p->version = ET_V2_0;
    p->framing = ET_FRAME_ENCAP;
    p->resync_max = 6; /* every 1024 packets */
    p->disambiguate = true;
    p->type_bits = 0;
    p->ecall_mode = RVT_FLOW_ECALL_SEQUENTIAL;
    et_dparams_default(&p->d);
}

uint32_t et_ioptions(const struct et_params *p)
{
    uint32_t v = 0;
    if (p->implicit_return != ET_IR_OFF)
        v |= ET_IOPT_IMPLICIT_RETURN;
    if (p->implicit_except)
        v |= ET_IOPT_IMPLICIT_EXCEPT;
    if (p->full_address)
        v |= ET_IOPT_FULL_ADDRESS;
    if (p->jump_target_cache)
        v |= ET_IOPT_JTC;
    if (p->branch_prediction)
        v |= ET_IOPT_BPRED;
    if (p->sijump)
        v |= ET_IOPT_SIJUMP;
    if (p->implicit_return == ET_IR_FIXED)
        v |= ET_IOPT_IR_FIXED;
    if (p->ioptions_width < 32)
        v &= (1u << p->ioptions_width) - 1;
    return v;
}

void et_apply_ioptions(struct et_params *p, uint32_t v)
{
    p->implicit_return = (v & ET_IOPT_IMPLICIT_RETURN) ? ((v & ET_IOPT_IR_FIXED) ? ET_IR_FIXED : ET_IR_20)
                                                       : ET_IR_OFF;
    p->implicit_except = (v & ET_IOPT_IMPLICIT_EXCEPT) != 0;
    p->full_address = (v & ET_IOPT_FULL_ADDRESS) != 0;
    p->jump_target_cache = (v & ET_IOPT_JTC) != 0;
    p->branch_prediction = (v & ET_IOPT_BPRED) != 0;
    p->sijump = (v & ET_IOPT_SIJUMP) != 0;
}

int et_params_check(const struct et_params *p, struct rvt_diag *d)
{
    if (p->iaddress_width_p < 2 || p->iaddress_width_p > 64)
        return rvt_fail(d, RVT_ERR_INVAL, "etrace: iaddress_width_p %u out of range 2..64", p->iaddress_width_p);
    if (p->iaddress_lsb_p > 3 || p->iaddress_lsb_p >= p->iaddress_width_p)
        return rvt_fail(d, RVT_ERR_INVAL, "etrace: iaddress_lsb_p %u out of range 0..3", p->iaddress_lsb_p);
    if (p->privilege_width_p < 1 || p->privilege_width_p > 4)
        return rvt_fail(d, RVT_ERR_INVAL, "etrace: privilege_width_p %u out of range 1..4", p->privilege_width_p);
    if (p->context_width_p > 64 || p->time_width_p > 64)
        return rvt_fail(d, RVT_ERR_INVAL, "etrace: context_width_p/time_width_p above 64");
    if (p->ecause_width_p < 1 || p->ecause_width_p > 32)
        return rvt_fail(d, RVT_ERR_INVAL, "etrace: ecause_width_p %u out of range 1..32", p->ecause_width_p);
    if (p->return_stack_size_p > 10 || p->call_counter_size_p > 10)
        return rvt_fail(d, RVT_ERR_INVAL,
                        "etrace: return_stack_size_p/call_counter_size_p above 10 (at most %u entries)",
                        RVT_CALLSTACK_MAX);
    if (p->return_stack_size_p && p->call_counter_size_p)
        return rvt_fail(d, RVT_ERR_INVAL,
                        "etrace: return_stack_size_p and call_counter_size_p are alternatives; set one");
    if (p->bpred_size_p > 20 || p->cache_size_p > 16)
        return rvt_fail(d, RVT_ERR_INVAL, "etrace: bpred_size_p above 20 or cache_size_p above 16");
    if (p->f0s_width_p > 8)
        return rvt_fail(d, RVT_ERR_INVAL, "etrace: f0s_width_p %u above 8", p->f0s_width_p);
    if (p->itype_width_p != 3 && p->itype_width_p != 4)
        return rvt_fail(d, RVT_ERR_INVAL, "etrace: itype_width_p must be 3 or 4");
    if (p->encoder_mode_width > 8 || p->ioptions_width > 32 || p->doptions_width > 32)
        return rvt_fail(d, RVT_ERR_INVAL, "etrace: support packet field width out of range");
    if (p->src_bits > 16 || p->ts_bytes > 8 || p->type_bits > 8 || p->flow > 3)
        return rvt_fail(d, RVT_ERR_INVAL, "etrace: encapsulation srcID/timestamp/type/flow out of range");
    if (p->src_bits < 16 && p->src_id >> p->src_bits)
        return rvt_fail(d, RVT_ERR_INVAL, "etrace: src-id %u does not fit in %u bits", p->src_id, p->src_bits);
    if (p->branch_prediction && p->bpred_size_p == 0)
        return rvt_fail(d, RVT_ERR_INVAL, "etrace: branch-prediction needs bpred_size_p > 0");
    if (p->jump_target_cache && p->cache_size_p == 0)
        return rvt_fail(d, RVT_ERR_INVAL, "etrace: jump-target-cache needs cache_size_p > 0");
    if (p->branch_prediction && p->jump_target_cache && p->f0s_width_p == 0)
        return rvt_fail(d, RVT_ERR_INVAL,
                        "etrace: branch-prediction and jump-target-cache together need f0s_width_p >= 1");
    if (p->implicit_return != ET_IR_OFF && p->return_stack_size_p == 0 && p->call_counter_size_p == 0)
        return rvt_fail(d, RVT_ERR_INVAL,
                        "etrace: implicit-return needs return_stack_size_p or call_counter_size_p > 0");
    if (p->implicit_return != ET_IR_OFF && p->itype_width_p == 3)
        return rvt_fail(d, RVT_ERR_INVAL, "etrace: implicit-return needs itype_width_p = 4");
    if (p->version == ET_V0_026 &&
        (p->branch_prediction || p->jump_target_cache || p->implicit_return != ET_IR_OFF))
        return rvt_fail(d, RVT_ERR_INVAL,
                        "etrace: the 0.026 draft has no implicit return, branch prediction or jump target cache");
    /* The draft reports "the address of taken indirect jump" always (seed
     * 001, 2.1.2: no sequentially inferable jumps), and its te_support has
     * fixed fields (table 6.4: encoder_mode 2 bits, no ioptions/doptions):
     * options that would change neither the bytes nor the decode are
     * refused, not ignored. */
    if (p->version == ET_V0_026 && p->sijump)
        return rvt_fail(d, RVT_ERR_INVAL,
                        "etrace: --sijump is an E-Trace 2.0 option; the 0.026 draft reports every uninferable "
                        "jump's target (seed 001 2.1.2)");
    if (p->version == ET_V0_026 && (p->encoder_mode_width != 1 || p->ioptions_width != ET_IOPTIONS_WIDTH ||
                                    p->doptions_width != ET_DOPTIONS_WIDTH))
        return rvt_fail(d, RVT_ERR_INVAL,
                        "etrace: encoder_mode_width, ioptions_width and doptions_width are E-Trace 2.0 support "
                        "packet parameters; the 0.026 draft's te_support is fixed (seed 001 table 6.4)");
    if (p->version == ET_V0_026 && p->implicit_except)
        return rvt_fail(d, RVT_ERR_INVAL,
                        "etrace: --implicit-except is an E-Trace 2.0 option; the 0.026 draft has no thaddr bit "
                        "and its exception packet always carries the handler address (seed 001 table 6.3)");
    if (p->implicit_except) {
        bool any = false;
        for (int i = 0; i < 8; i++)
            any |= p->have_tvec[i];
        if (!any)
            return rvt_fail(d, RVT_ERR_INVAL, "etrace: implicit-except needs the trap vector (--tvec-m/--tvec-s)");
    }
    return 0;
}

/* ---- value parsing --------------------------------------------------------- */

static int parse_u64(const char *s, uint64_t *v)
{
    if (!s || !*s)
        return -1;
    while (isspace((unsigned char)*s))
        s++;
    if (*s == '-')
        return -1;
    errno = 0;
    char *end;
    unsigned long long x = strtoull(s, &end, 0);
    while (isspace((unsigned char)*end))
        end++;
    if (errno || end == s || *end)
        return -1;
    *v = x;
    return 0;
}

static int parse_bool(const char *s, bool *v)
{
    if (!s)
        return -1;
    if (!strcmp(s, "1") || !strcasecmp(s, "true") || !strcasecmp(s, "yes") || !strcasecmp(s, "on")) {
        *v = true;
        return 0;
    }
    if (!strcmp(s, "0") || !strcasecmp(s, "false") || !strcasecmp(s, "no") || !strcasecmp(s, "off")) {
        *v = false;
        return 0;
    }
    return -1;
}

/* Hardware parameters by their spec names. */
struct hw_param {
    const char *name;
    size_t off;
    unsigned max;
};
#define HP(n, m) {#n, offsetof(struct et_params, n), m}
static const struct hw_param hw_params[] = {
    HP(arch_p, 15),
    HP(iaddress_width_p, 64),
    HP(iaddress_lsb_p, 3),
    HP(privilege_width_p, 4),
    HP(context_width_p, 64),
    HP(time_width_p, 64),
    HP(nocontext_p, 1),
    HP(notime_p, 1),
    HP(ecause_width_p, 32),
    HP(return_stack_size_p, 10),
    HP(call_counter_size_p, 10),
    HP(bpred_size_p, 20),
    HP(cache_size_p, 16),
    HP(f0s_width_p, 8),
    HP(sijump_p, 1),
    HP(itype_width_p, 4),
    HP(ctype_width_p, 2),
    HP(ilastsize_width_p, 8),
    HP(iretire_width_p, 32),
    HP(retires_p, 1024),
    HP(taken_branches_p, 64),
    HP(impdef_width_p, 256),
    HP(blocks_p, 64),
    HP(comparators_p, 64),
    HP(filters_p, 64),
    HP(ecause_choice_p, 16),
    HP(filter_context_p, 1),
    HP(filter_time_p, 1),
    HP(filter_excint_p, 16),
    HP(filter_privilege_p, 1),
    HP(filter_tval_p, 1),
    HP(notval_p, 1),
    HP(encoder_mode_width, 8),
    HP(ioptions_width, 32),
    HP(doptions_width, 32),
    HP(denable_p, 1),
};
#undef HP

/* ucf keys of the reference flow that have no meaning here (the data
 * trace's parameters and options are set by et_dparam_set). */
static const char *const ignored_params[] = {
    "cycle-accurate",
};

static bool is_ignored(const char *key)
{
    for (size_t i = 0; i < sizeof ignored_params / sizeof ignored_params[0]; i++)
        if (!strcmp(key, ignored_params[i]))
            return true;
    return false;
}

/* "LO..HI" (HI excluded) or "LO..=HI" (HI included): the range syntax of
 * --filter and --trigger (docs/filters.md), one convention everywhere.
 * r->hi is the last address in the range. */
static int parse_range(const char *s, struct et_addr_range *r)
{
    const char *dots = strstr(s, "..");
    if (!dots || dots == s)
        return -1;
    char lo[64];
    size_t n = (size_t)(dots - s);
    if (n >= sizeof lo)
        return -1;
    memcpy(lo, s, n);
    lo[n] = 0;
    bool incl = dots[2] == '=';
    uint64_t hi;
    if (parse_u64(lo, &r->lo) || parse_u64(dots + 2 + incl, &hi))
        return -1;
    if (!incl) {
        if (hi <= r->lo)
            return -1; /* empty */
        hi--;
    }
    if (hi < r->lo)
        return -1;
    r->hi = hi;
    return 0;
}

static int parse_priv_list(const char *s, uint32_t *mask)
{
    *mask = 0;
    char buf[128];
    if (strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        unsigned code;
        if (!strcasecmp(t, "u"))
            code = RVT_PRIV_U;
        else if (!strcasecmp(t, "s"))
            code = RVT_PRIV_S;
        else if (!strcasecmp(t, "m"))
            code = RVT_PRIV_M;
        else if (!strcasecmp(t, "d"))
            code = RVT_PRIV_D;
        else if (!strcasecmp(t, "vu"))
            code = RVT_PRIV_VU;
        else if (!strcasecmp(t, "vs"))
            code = RVT_PRIV_VS;
        else {
            uint64_t v;
            if (parse_u64(t, &v) || v > 7)
                return -1;
            code = (unsigned)v;
        }
        *mask |= 1u << code;
    }
    return *mask ? 0 : -1;
}

static int parse_cause_list(struct et_params *p, const char *s)
{
    char buf[256];
    if (strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    p->n_causes = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        bool irq = false;
        if (*t == 'i' || *t == 'I') { /* "i7": interrupt cause 7 */
            irq = true;
            t++;
        }
        uint64_t v;
        if (parse_u64(t, &v) || v > 0xffffffffu || p->n_causes >= ET_MAX_FILTERS)
            return -1;
        p->cause[p->n_causes] = (uint32_t)v;
        p->cause_interrupt[p->n_causes] = irq;
        p->n_causes++;
    }
    return p->n_causes ? 0 : -1;
}

int et_param_set(struct et_params *p, const char *key, const char *val, struct rvt_diag *d)
{
    uint64_t v;
    bool b;
    for (size_t i = 0; i < sizeof hw_params / sizeof hw_params[0]; i++) {
        if (strcmp(key, hw_params[i].name))
            continue;
        if (parse_u64(val, &v) || v > hw_params[i].max)
            return rvt_fail(d, RVT_ERR_INVAL, "etrace: %s expects an integer 0..%u, got \"%s\"", key,
                            hw_params[i].max, val ? val : "");
        *(unsigned *)(void *)((char *)p + hw_params[i].off) = (unsigned)v;
        return 0;
    }
    if (!strcmp(key, "resync-max")) {
        if (val && (!strcasecmp(val, "off") || !strcasecmp(val, "none") || !strcmp(val, "-1"))) {
            p->resync_max = ET_RESYNC_OFF;
            return 0;
        }
        if (val && !strcasecmp(val, "any")) {
            p->resync_max = ET_RESYNC_ANY;
            p->resync_counted = false;
            return 0;
        }
        if (parse_u64(val, &v) || v > 40)
            return rvt_fail(d, RVT_ERR_INVAL,
                            "etrace: resync-max expects 0..40 (period 2^(n+4) packets), off, or any (decoder: "
                            "a resync not counted in packets), got \"%s\"",
                            val ? val : "");
        p->resync_max = (int)v;
        p->resync_counted = true;
        return 0;
    }
    if (!strcmp(key, "implicit-return")) {
        if (val && (!strcmp(val, "2.0") || !strcasecmp(val, "spec")))
            p->implicit_return = ET_IR_20;
        else if (val && (!strcasecmp(val, "fixed") || !strcasecmp(val, "corrected") || !strcasecmp(val, "irets")))
            p->implicit_return = ET_IR_FIXED;
        else if (!parse_bool(val, &b))
            p->implicit_return = b ? ET_IR_20 : ET_IR_OFF;
        else
            return rvt_fail(d, RVT_ERR_INVAL, "etrace: implicit-return expects off, 2.0 or fixed, got \"%s\"",
                            val ? val : "");
        return 0;
    }
    struct {
        const char *name;
        bool *dst;
    } flags[] = {
        {"full-address", &p->full_address},
        {"implicit-except", &p->implicit_except},
        {"si-jump", &p->sijump},
        {"sijump", &p->sijump},
        {"branch-prediction", &p->branch_prediction},
        {"jump-target-cache", &p->jump_target_cache},
        {"model-compat", &p->model_compat},
        {"disambiguate", &p->disambiguate},
        {"partial-compression", &p->partial_compression},
        {"strict", &p->strict},
    };
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        if (strcmp(key, flags[i].name))
            continue;
        if (parse_bool(val, flags[i].dst))
            return rvt_fail(d, RVT_ERR_INVAL, "etrace: %s expects true or false, got \"%s\"", key, val ? val : "");
        if (flags[i].dst == &p->disambiguate)
            p->disambiguate_given = p->disambiguate;
        return 0;
    }
    if (!strcmp(key, "etrace-version")) {
        if (val && (!strcmp(val, "2.0") || !strcmp(val, "2")))
            p->version = ET_V2_0;
        else if (val && (!strcmp(val, "0.026") || !strcmp(val, "draft")))
            p->version = ET_V0_026;
        else
            return rvt_fail(d, RVT_ERR_INVAL, "etrace: etrace-version expects 2.0 or 0.026, got \"%s\"",
                            val ? val : "");
        return 0;
    }
    if (!strcmp(key, "framing")) {
        if (val && !strcmp(val, "encap"))
            p->framing = ET_FRAME_ENCAP;
        else if (val && !strcmp(val, "refraw"))
            p->framing = ET_FRAME_REFRAW;
        else
            return rvt_fail(d, RVT_ERR_INVAL, "etrace: framing expects encap or refraw, got \"%s\"", val ? val : "");
        return 0;
    }
    struct {
        const char *name;
        unsigned *dst;
        unsigned max;
    } nums[] = {
        {"src-bits", &p->src_bits, 16},     {"src-id", &p->src_id, 0xffff},
        {"encap-timestamp", &p->ts_bytes, 8}, {"encap-type-bits", &p->type_bits, 8},
        {"flow", &p->flow, 3},
    };
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        if (strcmp(key, nums[i].name))
            continue;
        if (parse_u64(val, &v) || v > nums[i].max)
            return rvt_fail(d, RVT_ERR_INVAL, "etrace: %s expects 0..%u, got \"%s\"", key, nums[i].max,
                            val ? val : "");
        *nums[i].dst = (unsigned)v;
        if (nums[i].dst == &p->src_id)
            p->src_id_set = true; /* the decoder keeps only this source's packets */
        return 0;
    }
    if (!strcmp(key, "encap-sync")) {
        if (val && !strcasecmp(val, "off"))
            p->sync_period = ~0u;
        else if (val && !strcasecmp(val, "resync"))
            p->sync_period = 0;
        else if (!parse_u64(val, &v) && v >= 64 && v < ~0u)
            p->sync_period = (unsigned)v;
        else
            return rvt_fail(d, RVT_ERR_INVAL, "etrace: encap-sync expects resync, off or a byte period >= 64");
        return 0;
    }
    if (!strcmp(key, "filter-range")) {
        if (p->n_ranges >= ET_MAX_FILTERS)
            return rvt_fail(d, RVT_ERR_LIMIT, "etrace: at most %d filter ranges", ET_MAX_FILTERS);
        if (!val || parse_range(val, &p->range[p->n_ranges]))
            return rvt_fail(d, RVT_ERR_INVAL,
                            "etrace: filter-range expects LO..HI (HI excluded) or LO..=HI (HI included), a "
                            "non-empty range as in --filter 'addr in LO..HI', got \"%s\"",
                            val ? val : "");
        p->n_ranges++;
        return 0;
    }
    if (!strcmp(key, "filter-priv")) {
        if (!val || parse_priv_list(val, &p->priv_mask))
            return rvt_fail(d, RVT_ERR_INVAL, "etrace: filter-priv expects a list such as u,s,m or 0,1,3");
        return 0;
    }
    if (!strcmp(key, "filter-cause")) {
        if (!val || parse_cause_list(p, val))
            return rvt_fail(d, RVT_ERR_INVAL,
                            "etrace: filter-cause expects causes such as 8,9,i7 (i: interrupt), at most %d",
                            ET_MAX_FILTERS);
        return 0;
    }
    if (!strcmp(key, "tvec-m") || !strcmp(key, "tvec-s") || !strcmp(key, "tvec-u")) {
        unsigned priv = key[5] == 'm' ? RVT_PRIV_M : key[5] == 's' ? RVT_PRIV_S : RVT_PRIV_U;
        if (parse_u64(val, &v))
            return rvt_fail(d, RVT_ERR_INVAL, "etrace: %s expects the trap vector CSR value", key);
        p->tvec[priv] = v;
        p->have_tvec[priv] = true;
        return 0;
    }
    if (!strcmp(key, "ecall")) {
        if (val && !strcmp(val, "sequential"))
            p->ecall_mode = RVT_FLOW_ECALL_SEQUENTIAL;
        else if (val && !strcmp(val, "trap"))
            p->ecall_mode = RVT_FLOW_ECALL_TRAP;
        else if (val && !strcmp(val, "uninferable"))
            p->ecall_mode = RVT_FLOW_ECALL_UNINFERABLE;
        else
            return rvt_fail(d, RVT_ERR_INVAL, "etrace: ecall expects sequential, trap or uninferable");
        return 0;
    }
    if (!strcmp(key, "xlen")) {
        if (parse_u64(val, &v) || (v != 32 && v != 64))
            return rvt_fail(d, RVT_ERR_INVAL, "etrace: xlen expects 32 or 64");
        p->xlen = (unsigned)v;
        return 0;
    }
    int drc = et_dparam_set(&p->d, key, val, d);
    if (drc != -RVT_ERR_UNSUPPORTED)
        return drc;
    if (is_ignored(key))
        return 0;
    return -RVT_ERR_UNSUPPORTED;
}

/* ---- INI files ------------------------------------------------------------- */

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = 0;
    return s;
}

int et_load_ini_mem(struct et_params *p, const char *text, size_t len, const char *name, bool ucf,
                    struct rvt_diag *d)
{
    char section[64] = "";
    size_t pos = 0;
    unsigned line = 0;
    char buf[512];
    while (pos < len) {
        size_t e = pos;
        while (e < len && text[e] != '\n')
            e++;
        line++;
        size_t n = e - pos;
        if (n >= sizeof buf)
            return rvt_fail(d, RVT_ERR_FORMAT, "%s:%u: line longer than %zu characters", name, line,
                            sizeof buf - 1);
        memcpy(buf, text + pos, n);
        buf[n] = 0;
        pos = e < len ? e + 1 : e;
        if (memchr(buf, 0, n))
            return rvt_fail(d, RVT_ERR_FORMAT, "%s:%u: NUL byte in a text file", name, line);
        /* comments: '#' or ';' to the end of the line */
        for (char *c = buf; *c; c++)
            if (*c == '#' || *c == ';') {
                *c = 0;
                break;
            }
        char *s = trim(buf);
        if (!*s)
            continue;
        if (*s == '[') {
            char *close = strchr(s, ']');
            if (!close || close[1])
                return rvt_fail(d, RVT_ERR_FORMAT, "%s:%u: expected \"[section]\"", name, line);
            *close = 0;
            snprintf(section, sizeof section, "%s", trim(s + 1));
            continue;
        }
        char *eq = strchr(s, '=');
        if (!eq)
            return rvt_fail(d, RVT_ERR_FORMAT, "%s:%u: expected \"name = value\"", name, line);
        *eq = 0;
        char *key = trim(s), *val = trim(eq + 1);
        if (!*key)
            return rvt_fail(d, RVT_ERR_FORMAT, "%s:%u: missing name before '='", name, line);
        if (ucf && strcmp(section, "codec") != 0)
            continue; /* [required], [flags]: reference-flow harness settings */
        struct rvt_diag sub = {0};
        int rc = et_param_set(p, key, val, &sub);
        if (rc == -RVT_ERR_UNSUPPORTED)
            return rvt_fail(d, RVT_ERR_FORMAT, "%s:%u: unknown %s \"%s\"", name, line,
                            ucf ? "option" : "parameter", key);
        if (rc < 0)
            return rvt_fail(d, RVT_ERR_INVAL, "%s:%u: %s", name, line, sub.msg);
    }
    return 0;
}

static int load_file(struct et_params *p, const char *path, bool ucf, struct rvt_diag *d)
{
    uint8_t *data;
    size_t len;
    int rc = rvt_read_file(path, &data, &len, d);
    if (rc < 0)
        return rc;
    rc = et_load_ini_mem(p, (const char *)data, len, path, ucf, d);
    free(data);
    return rc;
}

int et_load_scf(struct et_params *p, const char *path, struct rvt_diag *d)
{
    return load_file(p, path, false, d);
}

int et_load_ucf(struct et_params *p, const char *path, struct rvt_diag *d)
{
    return load_file(p, path, true, d);
}

/* ---- discovery --------------------------------------------------------------- */

int et_print_discovery(const struct et_params *p, FILE *out)
{
    /* Required attributes (discovery.adoc table), encoded as the attribute
     * values the decoder reads, with the parameter value beside them. */
    struct {
        const char *name;
        long value;
        unsigned param;
        const char *param_name;
    } req[] = {
        {"arch", (long)p->arch_p, p->arch_p, "arch_p"},
        {"bpred_size", (long)p->bpred_size_p, p->bpred_size_p, "bpred_size_p"},
        {"cache_size", (long)p->cache_size_p, p->cache_size_p, "cache_size_p"},
        {"call_counter_size", (long)p->call_counter_size_p, p->call_counter_size_p, "call_counter_size_p"},
        {"context_width", (long)p->context_width_p - 1, p->context_width_p, "context_width_p"},
        {"time_width", (long)p->time_width_p - 1, p->time_width_p, "time_width_p"},
        {"ecause_width", (long)p->ecause_width_p - 1, p->ecause_width_p, "ecause_width_p"},
        {"f0s_width", (long)p->f0s_width_p, p->f0s_width_p, "f0s_width_p"},
        {"iaddress_lsb", (long)p->iaddress_lsb_p - 1, p->iaddress_lsb_p, "iaddress_lsb_p"},
        {"iaddress_width", (long)p->iaddress_width_p - 1, p->iaddress_width_p, "iaddress_width_p"},
        {"nocontext", (long)p->nocontext_p, p->nocontext_p, "nocontext_p"},
        {"notime", (long)p->notime_p, p->notime_p, "notime_p"},
        {"privilege_width", (long)p->privilege_width_p - 1, p->privilege_width_p, "privilege_width_p"},
        {"return_stack_size", (long)p->return_stack_size_p, p->return_stack_size_p, "return_stack_size_p"},
        {"sijump", (long)p->sijump_p, p->sijump_p, "sijump_p"},
    };
    fprintf(out, "E-Trace %s discovery attributes (attribute = value  [parameter])\n",
            p->version == ET_V0_026 ? "0.026 draft" : "2.0");
    fprintf(out, "required:\n");
    for (size_t i = 0; i < sizeof req / sizeof req[0]; i++) {
        if (req[i].value < 0) /* e.g. iaddress_lsb_p 0 (byte addresses) has no attribute encoding */
            fprintf(out, "  %-18s = %-4s [%s = %u: not encodable]\n", req[i].name, "-", req[i].param_name,
                    req[i].param);
        else
            fprintf(out, "  %-18s = %-4ld [%s = %u]\n", req[i].name, req[i].value, req[i].param_name,
                    req[i].param);
    }
    struct {
        const char *name;
        long value;
    } opt[] = {
        {"comparators", (long)p->comparators_p - 1},
        {"filters", (long)p->filters_p - 1},
        {"ecause_choice", (long)p->ecause_choice_p},
        {"filter_context", (long)p->filter_context_p},
        {"filter_time", (long)p->filter_time_p},
        {"filter_excint", (long)p->filter_excint_p},
        {"filter_privilege", (long)p->filter_privilege_p},
        {"filter_tval", (long)p->filter_tval_p},
        {"ctype_width", (long)p->ctype_width_p - 1},
        {"ilastsize_width", (long)p->ilastsize_width_p - 1},
        {"itype_width", (long)p->itype_width_p - 1},
        {"iretire_width", (long)p->iretire_width_p - 1},
        {"retires", (long)p->retires_p - 1},
        {"taken_branches", (long)p->taken_branches_p},
        {"impdef_width", (long)p->impdef_width_p - 1},
    };
    fprintf(out, "filtering and other recommended:\n");
    for (size_t i = 0; i < sizeof opt / sizeof opt[0]; i++)
        fprintf(out, "  %-18s = %ld\n", opt[i].name, opt[i].value);
    if (p->version == ET_V0_026) {
        /* seed 001 3.1.4 lists a few more */
        fprintf(out, "0.026 draft:\n  %-18s = %u\n  %-18s = %u\n", "rv32", p->iaddress_width_p == 32 ? 1u : 0u,
                "notval", p->notval_p);
    }
    if (p->version == ET_V0_026) {
        /* seed 001 table 6.4: the draft's te_support has fixed fields and
         * no ioptions (what 2.0's ioptions say, the draft cannot configure) */
        fprintf(out, "support packet (te_support, seed 001 table 6.4): msg_type 2, control_code 6 (0x34), "
                     "support_type 4, enable 1, encoder_mode 2, qual_status 2 bits\n");
        fprintf(out, "address: %s, field %u bits\n", p->full_address ? "full only (format 00)" : "differential or full",
                et_addr_bits(p));
        return 0;
    }
    fprintf(out, "support packet: encoder_mode %u bits, ioptions %u bits, doptions %u bits%s\n",
            p->encoder_mode_width, p->ioptions_width, p->doptions_width,
            p->denable_p ? ", denable/dloss present" : "");
    fprintf(out, "ioptions (0x%x): implicit_return=%u implicit_exception=%u full_address=%u "
                 "jump_target_cache=%u branch_prediction=%u sijump=%u implicit_return_fixed=%u\n",
            et_ioptions(p), p->implicit_return != ET_IR_OFF, p->implicit_except, p->full_address,
            p->jump_target_cache, p->branch_prediction, p->sijump, p->implicit_return == ET_IR_FIXED);
    fprintf(out, "irdepth width %u bits, address field %u bits\n", et_irdepth_bits(p), et_addr_bits(p));
    return 0;
}

bool et_implied_handler(const struct et_params *p, unsigned priv, bool interrupt, uint32_t cause, uint64_t *handler)
{
    if (priv >= 8 || !p->have_tvec[priv])
        return false;
    uint64_t base = p->tvec[priv] & ~3ull;
    /* vectored mode (1): interrupts go to base + 4 * cause */
    *handler = ((p->tvec[priv] & 3) == 1 && interrupt) ? base + 4ull * cause : base;
    return true;
}
