/* N-Trace family: options and the struct rvt_codec the CLI and tests use. */
#include "ntrace/ntrace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const struct rvt_codec_opt g_options[] = {
    {"ntrace-mode", "btm|htm",
     "instruction trace mode: btm = a message per taken branch (Branch Trace Messaging), htm = branch "
     "history bits (History Trace Messaging) [htm]"},
    {"callstack", "N",
     "implicit return: returns to the address pushed by the matching call send no message; N = stack depth "
     "(0 = off, max 1024; the spec recommends <= 32) [0]"},
    {"callstack-mode", "addr|count",
     "addr = stack of full return addresses (a return is implicit only if it matches); count = counter only "
     "(every return with a non-zero count is implicit; wrong for code that does not return to its caller, which "
     "encode warns of) [addr]"},
    {"repeat", "0|1|2|3",
     "repeat compression: 0 none, 1 RepeatBranch for identical branch messages, 2 repeated history "
     "(ResourceFull RCODE 2, htm), 3 both [0]"},
    {"sync-period", "N", "periodic synchronisation every N instruction halfwords (trTeInstSyncMode 3); 0 = off [0]"},
    {"sync-msgs", "N", "periodic synchronisation every N messages (trTeInstSyncMode 1); 0 = off [0]"},
    {"src-bits", "N", "width of the SRC field (trTeSrcBits, 0..12; 0 = no SRC field) [0]"},
    {"src-id", "N", "SRC value this encoder sends / the decoder accepts (trTeSrcID) [0]"},
    {"timestamps", NULL,
     "TSTAMP field from the ingress time: absolute in sync messages, relative otherwise (trTsEnable)"},
    {"context", NULL,
     "Ownership messages: privilege and context after every sync and at every change (trTeContext)"},
    {"sijump", NULL,
     "sequential jump optimization: a jump whose target was just set by auipc/lui/c.lui sends no message "
     "(trTeInstEnSequentialJump)"},
    {"addr-ext", NULL,
     "virtual address optimization: skip identical most significant address bits, not only zeros "
     "(trTeInstExtendAddrMSB)"},
    {"btype-compat", NULL, "report exceptions and interrupts as B-TYPE 1 instead of the extension values 2/3"},
    {"icnt-bits", "N",
     "I-CNT counter width; its top bit is the overflow flag: when it sets, ResourceFull RCODE 0 reports the count; "
     "the decoder rejects larger counts.  2..22 (NTRACE_MAX_ICNT = 22, the spec's maximum); 23..63 is an rvtrace "
     "extension (a wider counter, e.g. to reproduce the reference tool, whose counter never overflows) [22]"},
    {"icnt-sync", NULL, "btm: report a full I-CNT with ProgTraceSync SYNC=4 instead of ResourceFull"},
    {"hist-bits", "N", "branch outcomes a full HIST register holds (1..31) [31]"},
    {"start-sync", "N",
     "SYNC code of the first message: 0 external trigger, 1 exit from reset (as the reference tool), 3 exit from "
     "debug, 5 trace enable, 9 exit from power-down [1]"},
    {"end-evcode", "N",
     "EVCODE of the closing ProgTraceCorrelation: 0 debug entry (also when the hart halts with trace disabled), "
     "1 low-power entry, 4 trace disabled [0]"},
    {"ecall", "uninferable|sequential|trap",
     "how ecall is traced: sequential = falls through like any instruction (user-mode emulation), "
     "uninferable = an uninferable call to ecall+4 whose target is sent (what the N-Trace reference tool does; "
     "use it to match its results), trap = traps and does not retire (system captures); encoder input and "
     "decoder must agree [sequential]"},
    {"priv", "u|s|m|vu|vs|d", "decoder: privilege of the code until an Ownership message says otherwise [m]"},
    {"strict", NULL, "decoder: stop at the first error instead of reporting it and resynchronising"},
    {"vendor-msgs", NULL,
     "decoder: ignore Vendor Defined messages (TCODE 56..62) and accept vendor EVCODE/ETYPE values, as the spec "
     "allows a program-flow decoder to; without it they are errors (rvtrace never sends them)"},
    {"dump-bytes", NULL, "dump: print each message's bytes after its fields"},
    {NULL, NULL, NULL}};

void nt_cfg_init(struct nt_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->size = sizeof *c;
    c->mode = NT_MODE_HTM;
    c->icnt_bits = NT_DEFAULT_ICNT_BITS;
    c->hist_bits = NT_MAX_HIST_BITS - 1;
    c->start_sync = NT_SYNC_RESET;
    c->ecall = RVT_FLOW_ECALL_SEQUENTIAL; /* as the CLI's readers and the QEMU capture */
    c->priv = RVT_PRIV_M;
}

static int parse_uint(const char *key, const char *val, uint64_t max, uint64_t *out, struct rvt_diag *d)
{
    if (!val || !*val)
        return rvt_fail(d, RVT_ERR_INVAL, "ntrace: --%s needs a number", key);
    errno = 0;
    char *end;
    unsigned long long v = strtoull(val, &end, 0);
    if (errno || *end || val[0] == '-')
        return rvt_fail(d, RVT_ERR_INVAL, "ntrace: --%s '%s': expected a number", key, val);
    if (v > max)
        return rvt_fail(d, RVT_ERR_INVAL, "ntrace: --%s %s: at most %llu", key, val, (unsigned long long)max);
    *out = v;
    return 0;
}

static int parse_flag(const char *key, const char *val, bool *out, struct rvt_diag *d)
{
    if (!val || !strcmp(val, "1") || !strcmp(val, "on") || !strcmp(val, "yes") || !strcmp(val, "true"))
        *out = true;
    else if (!strcmp(val, "0") || !strcmp(val, "off") || !strcmp(val, "no") || !strcmp(val, "false"))
        *out = false;
    else
        return rvt_fail(d, RVT_ERR_INVAL, "ntrace: --%s '%s': expected 1/0 or on/off", key, val);
    return 0;
}

static int cfg_set_one(struct nt_cfg *c, const char *key, const char *val, struct rvt_diag *d);

int nt_cfg_set(struct nt_cfg *c, const char *key, const char *val, struct rvt_diag *d)
{
    static const struct {
        const char *key;
        uint32_t bit;
    } given[] = {{"ntrace-mode", NT_GIVEN_MODE},     {"callstack", NT_GIVEN_CALLSTACK},
                 {"callstack-mode", NT_GIVEN_CALLSTACK}, {"repeat", NT_GIVEN_REPEAT},
                 {"sijump", NT_GIVEN_SIJUMP},         {"hist-bits", NT_GIVEN_HIST_BITS},
                 {"btype-compat", NT_GIVEN_BTYPE_COMPAT}};
    int rc = cfg_set_one(c, key, val, d);
    if (rc < 0)
        return rc;
    for (size_t i = 0; i < sizeof given / sizeof given[0]; i++)
        if (!strcmp(key, given[i].key))
            c->given |= given[i].bit;
    return 0;
}

static int cfg_set_one(struct nt_cfg *c, const char *key, const char *val, struct rvt_diag *d)
{
    uint64_t u;
    int rc;
#define UINT_OPT(name, max, field)                                                                       \
    if (!strcmp(key, name)) {                                                                            \
        if ((rc = parse_uint(key, val, max, &u, d)) < 0)                                                 \
            return rc;                                                                                   \
        c->field = u;                                                                                    \
        return 0;                                                                                        \
    }
#define FLAG_OPT(name, field)                                                                            \
    if (!strcmp(key, name))                                                                              \
        return parse_flag(key, val, &c->field, d);

    if (!strcmp(key, "ntrace-mode")) {
        if (val && !strcmp(val, "btm"))
            c->mode = NT_MODE_BTM;
        else if (val && !strcmp(val, "htm"))
            c->mode = NT_MODE_HTM;
        else
            return rvt_fail(d, RVT_ERR_INVAL, "ntrace: --ntrace-mode '%s': expected btm or htm", val ? val : "");
        return 0;
    }
    if (!strcmp(key, "callstack-mode")) {
        if (val && !strcmp(val, "addr"))
            c->cs_mode = NT_CS_ADDR;
        else if (val && !strcmp(val, "count"))
            c->cs_mode = NT_CS_COUNT;
        else
            return rvt_fail(d, RVT_ERR_INVAL, "ntrace: --callstack-mode '%s': expected addr or count", val ? val : "");
        return 0;
    }
    if (!strcmp(key, "ecall")) {
        if (val && !strcmp(val, "uninferable"))
            c->ecall = RVT_FLOW_ECALL_UNINFERABLE;
        else if (val && !strcmp(val, "sequential"))
            c->ecall = RVT_FLOW_ECALL_SEQUENTIAL;
        else if (val && !strcmp(val, "trap"))
            c->ecall = RVT_FLOW_ECALL_TRAP;
        else
            return rvt_fail(d, RVT_ERR_INVAL, "ntrace: --ecall '%s': expected uninferable, sequential or trap",
                            val ? val : "");
        return 0;
    }
    if (!strcmp(key, "priv")) {
        static const struct {
            const char *name;
            uint8_t priv;
        } privs[] = {{"u", RVT_PRIV_U}, {"s", RVT_PRIV_S}, {"m", RVT_PRIV_M},
                     {"d", RVT_PRIV_D}, {"vu", RVT_PRIV_VU}, {"vs", RVT_PRIV_VS}};
        for (size_t i = 0; i < sizeof privs / sizeof privs[0]; i++)
            if (val && !strcmp(val, privs[i].name)) {
                c->priv = privs[i].priv;
                return 0;
            }
        return rvt_fail(d, RVT_ERR_INVAL, "ntrace: --priv '%s': expected u, s, m, vu, vs or d", val ? val : "");
    }
    UINT_OPT("callstack", RVT_CALLSTACK_MAX, callstack)
    UINT_OPT("repeat", 3, repeat)
    UINT_OPT("sync-period", UINT64_MAX, sync_period)
    UINT_OPT("sync-msgs", UINT64_MAX, sync_msgs)
    UINT_OPT("src-bits", NT_MAX_SRC_BITS, src_bits)
    UINT_OPT("src-id", (1u << NT_MAX_SRC_BITS) - 1, src_id)
    UINT_OPT("icnt-bits", 63, icnt_bits)
    UINT_OPT("hist-bits", NT_MAX_HIST_BITS - 1, hist_bits)
    if (!strcmp(key, "start-sync")) {
        /* The reasons a trace starts for (SYNC Field Values). */
        if ((rc = parse_uint(key, val, 15, &u, d)) < 0)
            return rc;
        if (u != 0 && u != 1 && u != 3 && u != 5 && u != 9)
            return rvt_fail(d, RVT_ERR_INVAL,
                            "ntrace: --start-sync %s: expected 0 (external trigger), 1 (exit from reset), 3 (exit from "
                            "debug), 5 (trace enable) or 9 (exit from power-down)",
                            val);
        c->start_sync = (unsigned)u;
        return 0;
    }
    if (!strcmp(key, "end-evcode")) {
        if ((rc = parse_uint(key, val, 15, &u, d)) < 0)
            return rc;
        if (u != 0 && u != 1 && u != 4)
            return rvt_fail(d, RVT_ERR_INVAL,
                            "ntrace: --end-evcode %s: expected 0 (debug entry), 1 (low-power entry) or 4 (trace disabled)",
                            val);
        c->end_evcode = (unsigned)u;
        return 0;
    }
    FLAG_OPT("timestamps", timestamps)
    FLAG_OPT("context", context)
    FLAG_OPT("sijump", sijump)
    FLAG_OPT("addr-ext", addr_ext)
    FLAG_OPT("btype-compat", btype_compat)
    FLAG_OPT("icnt-sync", icnt_sync)
    FLAG_OPT("strict", strict)
    FLAG_OPT("vendor-msgs", vendor_msgs)
    FLAG_OPT("dump-bytes", dump_bytes)
#undef UINT_OPT
#undef FLAG_OPT
    return rvt_fail(d, RVT_ERR_INVAL, "ntrace: unknown option --%s", key);
}

int nt_cfg_finish(struct nt_cfg *c, unsigned xlen, const struct rvt_image *img, struct rvt_diag *d)
{
    if (!xlen && img)
        xlen = rvt_img_xlen(img);
    if (!xlen)
        xlen = 64;
    if (xlen != 32 && xlen != 64)
        return rvt_fail(d, RVT_ERR_INVAL, "ntrace: xlen %u: expected 32 or 64", xlen);
    c->xlen = xlen;
    c->image = img;
    if ((c->repeat & 2) && c->mode != NT_MODE_HTM)
        return rvt_fail(d, RVT_ERR_INVAL, "ntrace: --repeat %u (repeated history) needs --ntrace-mode htm", c->repeat);
    if (c->icnt_sync && c->mode != NT_MODE_BTM)
        return rvt_fail(d, RVT_ERR_INVAL, "ntrace: --icnt-sync is only allowed with --ntrace-mode btm (spec: SYNC=4 "
                                          "may only be used in BTM mode)");
    if (c->src_id >> c->src_bits)
        return rvt_fail(d, RVT_ERR_INVAL, "ntrace: --src-id %u does not fit in --src-bits %u", c->src_id, c->src_bits);
    if (c->cs_mode == NT_CS_COUNT && !c->callstack)
        return rvt_fail(d, RVT_ERR_INVAL, "ntrace: --callstack-mode count needs --callstack N (the counter's limit)");
    if (c->icnt_bits < 2)
        return rvt_fail(d, RVT_ERR_INVAL, "ntrace: --icnt-bits %u: at least 2 (a 32-bit instruction is 2 halfwords)",
                        c->icnt_bits);
    if (c->hist_bits < 1)
        return rvt_fail(d, RVT_ERR_INVAL, "ntrace: --hist-bits 0: a HIST register holds at least one outcome");
    return 0;
}

void nt_cfg_wire(const struct nt_cfg *c, struct nt_wire *w)
{
    w->src_bits = c->src_bits;
    w->xlen = c->xlen ? c->xlen : 64;
    w->addr_ext = c->addr_ext;
}

/* ---- struct rvt_codec glue ---------------------------------------------- */

static void cfg_init(void *cfg)
{
    nt_cfg_init(cfg);
}
static int cfg_set(void *cfg, const char *key, const char *val, struct rvt_diag *d)
{
    return nt_cfg_set(cfg, key, val, d);
}
static int cfg_finish(void *cfg, unsigned xlen, const struct rvt_image *img, struct rvt_diag *d)
{
    return nt_cfg_finish(cfg, xlen, img, d);
}

static void flow_config(const void *cfg, struct rvt_flow_config *fc)
{
    const struct nt_cfg *c = cfg;
    fc->ecall = c->ecall;
    /* The decoder needs no knowledge of the encoder's call stack depth or
     * sequential-jump setting: a return or jump the encoder sent explicitly
     * always ends an I-CNT range, where the flow leaves it for the message,
     * so predicting with the deepest stack and inferring every sequential
     * jump is right for any encoder setting (a deeper stack keeps the
     * encoder's entries on top: both push and pop alike). */
    fc->callstack_depth = RVT_CALLSTACK_MAX;
    fc->callstack_overflow = RVT_CS_DROP_OLDEST;
    fc->sijump = true;
    /* Given the encoder's own settings, the decoder predicts exactly as it
     * did: a return or jump the walk then cannot pass ends the range, and a
     * count that runs past one is an error. */
    if (c->given & NT_GIVEN_CALLSTACK)
        fc->callstack_depth = c->callstack;
    if (c->given & NT_GIVEN_SIJUMP)
        fc->sijump = c->sijump;
    /* The encoder pops its stack at every return, implicit or not. */
    fc->pop_on_explicit_return = true;
    if (c->xlen)
        fc->xlen = c->xlen;
}

static int enc_new(void **enc, const void *cfg, const struct rvt_byte_sink *out, struct rvt_diag *d)
{
    return nt_enc_new((struct nt_encoder **)enc, cfg, out, d);
}
static int enc_put(void *enc, const struct rvt_ing_rec *r)
{
    return nt_enc_put(enc, r);
}
static size_t enc_put_plain(void *enc, const struct rvt_ing_rec *rs, size_t n)
{
    return nt_enc_put_plain(enc, rs, n);
}

static size_t enc_put_short(void *enc, const struct rvt_ing_fast *f, size_t n, uint8_t priv, uint64_t context)
{
    return nt_enc_put_short(enc, f, n, priv, context);
}
static int enc_finish(void *enc)
{
    return nt_enc_finish(enc);
}
static void enc_stats(const void *enc, struct rvt_codec_stats *st)
{
    nt_enc_stats(enc, st);
}
static const char *enc_error(const void *enc)
{
    return nt_enc_error(enc);
}
static void enc_free(void *enc)
{
    nt_enc_free(enc);
}
static int dec_new(void **dec, const void *cfg, struct rvt_flow *flow, struct rvt_diag *d)
{
    return nt_dec_new((struct nt_decoder **)dec, cfg, flow, d);
}
static int dec_run(void *dec, const uint8_t *buf, size_t len)
{
    return nt_dec_run(dec, buf, len);
}
static int dec_run_segment(void *dec, const uint8_t *buf, size_t len, size_t from, size_t until)
{
    return nt_dec_run_segment(dec, buf, len, from, until);
}
static int sync_points(const void *cfg, const uint8_t *buf, size_t len, size_t from,
                       int (*fn)(void *ctx, const struct rvt_sync_point *sp), void *ctx, struct rvt_diag *d)
{
    return nt_sync_points(cfg, buf, len, from, fn, ctx, d);
}
static int dec_run_part(void *dec, const uint8_t *buf, size_t len, size_t from, size_t until, size_t *next)
{
    return nt_dec_run_part(dec, buf, len, from, until, next);
}
static bool dec_state_equal(const void *a, const void *b)
{
    return nt_dec_state_equal(a, b);
}
static const char *dec_error(const void *dec)
{
    return nt_dec_error(dec);
}
static void dec_free(void *dec)
{
    nt_dec_free(dec);
}
static int dump(const void *cfg, const uint8_t *buf, size_t len, FILE *out, struct rvt_diag *d)
{
    return nt_dump(cfg, buf, len, out, d);
}

static int info(const void *cfg, FILE *out, struct rvt_diag *d)
{
    const struct nt_cfg *c = cfg;
    (void)d;
    fprintf(out, "N-Trace 1.0 (trTeFormat=1, trTeProtocolMajor=1, trTeProtocolMinor=0)\n");
    fprintf(out, "  trTeInstMode               %u (%s)\n", c->mode == NT_MODE_HTM ? 6u : 3u,
            c->mode == NT_MODE_HTM ? "HTM: history trace messaging" : "BTM: branch trace messaging");
    fprintf(out, "  trTeInstImplicitReturnMode %u (%s, depth %u)\n", c->callstack ? (c->cs_mode == NT_CS_COUNT ? 1u : 3u) : 0u,
            !c->callstack ? "off" : c->cs_mode == NT_CS_COUNT ? "counter" : "stack of full addresses", c->callstack);
    fprintf(out, "  trTeInstEnRepeatedHistory  %u\n", (c->repeat & 2) ? 1u : 0u);
    fprintf(out, "  RepeatBranch messages      %s\n", (c->repeat & 1) ? "on" : "off");
    fprintf(out, "  trTeInstEnSequentialJump   %u\n", c->sijump ? 1u : 0u);
    fprintf(out, "  trTeInstExtendAddrMSB      %u\n", c->addr_ext ? 1u : 0u);
    fprintf(out, "  trTeContext                %u\n", c->context ? 1u : 0u);
    fprintf(out, "  trTeSrcBits / trTeSrcID    %u / %u\n", c->src_bits, c->src_id);
    fprintf(out, "  trTsEnable                 %u\n", c->timestamps ? 1u : 0u);
    if (c->sync_period)
        fprintf(out, "  periodic sync              every %llu halfwords (trTeInstSyncMode 3)\n",
                (unsigned long long)c->sync_period);
    if (c->sync_msgs)
        fprintf(out, "  periodic sync              every %llu messages (trTeInstSyncMode 1)\n",
                (unsigned long long)c->sync_msgs);
    if (!c->sync_period && !c->sync_msgs)
        fprintf(out, "  periodic sync              off (trTeInstSyncMode 0)\n");
    fprintf(out, "  I-CNT counter              %u bits%s\n", c->icnt_bits,
            c->icnt_bits > NT_MAX_ICNT_BITS ? " (rvtrace extension: wider than the spec's NTRACE_MAX_ICNT = 22)"
                                           : " (NTRACE_MAX_ICNT = 22)");
    fprintf(out, "  HIST                       %u outcomes\n", c->hist_bits);
    return 0;
}

/* What `verify` and the round-trip tests compare besides instructions:
 * privilege from Ownership messages, the timestamps messages carry. */
static unsigned traced(const void *cfgp)
{
    const struct nt_cfg *c = cfgp;
    return (c->context ? RVT_TRACED_PRIV : 0) | (c->timestamps ? RVT_TRACED_TIME_SAMPLED : 0);
}

const struct rvt_codec rvt_codec_ntrace = {
    .name = "ntrace",
    .summary = "RISC-V N-Trace 1.0 (Nexus): BTM/HTM messages, MSEO framing",
    .options = g_options,
    .cfg_size = sizeof(struct nt_cfg),
    .cfg_init = cfg_init,
    .cfg_set = cfg_set,
    .cfg_finish = cfg_finish,
    .flow_config = flow_config,
    .enc_new = enc_new,
    .enc_put = enc_put,
    .enc_finish = enc_finish,
    .enc_stats = enc_stats,
    .enc_error = enc_error,
    .enc_free = enc_free,
    .dec_new = dec_new,
    .dec_run = dec_run,
    .dec_run_segment = dec_run_segment,
    .sync_points = sync_points,
    .dec_run_part = dec_run_part,
    .dec_state_equal = dec_state_equal,
    .dec_error = dec_error,
    .dec_free = dec_free,
    .dump = dump,
    .info = info,
    .idle_byte = 0xff, /* MSEO: a byte of all ones is idle between messages */
    .sync_hint = "N-Trace sync messages that survive in a RAM come from periodic synchronisation: encode with "
                 "--sync-period N (every N instruction halfwords) or --sync-msgs N (every N messages)",
    .traced = traced,
    .enc_put_plain = enc_put_plain,
    .enc_put_short = enc_put_short,
};
