/* The E-Trace family as an rvt_codec: options, encoder, decoder, dump, info. */
#include "etrace/decoder.h"
#include "etrace/encoder.h"
#include "etrace/etrace.h"

#include <stdlib.h>
#include <string.h>

static void cfg_init(void *cfg)
{
    struct et_config *c = cfg;
    memset(c, 0, sizeof *c);
    et_params_default(&c->p);
}

static int cfg_set(void *cfg, const char *key, const char *val, struct rvt_diag *d)
{
    struct et_config *c = cfg;
    if (!strcmp(key, "scf")) {
        snprintf(c->scf_path, sizeof c->scf_path, "%s", val ? val : "");
        return et_load_scf(&c->p, val, d);
    }
    if (!strcmp(key, "ucf")) {
        snprintf(c->ucf_path, sizeof c->ucf_path, "%s", val ? val : "");
        return et_load_ucf(&c->p, val, d);
    }
    int rc = et_param_set(&c->p, key, val, d);
    if (rc == -RVT_ERR_UNSUPPORTED)
        return rvt_fail(d, RVT_ERR_INVAL, "etrace: unknown option \"%s\"", key);
    return rc;
}

static int cfg_finish(void *cfg, unsigned xlen, const struct rvt_image *img, struct rvt_diag *d)
{
    struct et_params *p = &((struct et_config *)cfg)->p;
    if (!p->xlen)
        p->xlen = xlen ? xlen : (img ? rvt_img_xlen(img) : 64);
    if (!p->iaddress_width_p)
        p->iaddress_width_p = p->xlen;
    /* Features asked for without their hardware size get a default size. */
    if (p->implicit_return != ET_IR_OFF && !p->return_stack_size_p && !p->call_counter_size_p)
        p->return_stack_size_p = 3;
    if (p->branch_prediction && !p->bpred_size_p)
        p->bpred_size_p = 8;
    if (p->jump_target_cache && !p->cache_size_p)
        p->cache_size_p = 5;
    if (p->branch_prediction && p->jump_target_cache && !p->f0s_width_p)
        p->f0s_width_p = 1;
    if (p->sijump)
        p->sijump_p = 1;
    if (p->version == ET_V0_026 && p->framing == ET_FRAME_ENCAP && p->type_bits < 2)
        p->type_bits = 2; /* te_support is its own packet type in the draft */
    if (p->version == ET_V0_026 && p->d.mode != ET_DATA_OFF)
        return rvt_fail(d, RVT_ERR_UNSUPPORTED, "etrace: the 0.026 draft has no data trace");
    p->d.image = img;
    int rc = et_dparams_finish(&p->d, p->xlen, p->doptions_width, &p->type_bits, p->framing == ET_FRAME_ENCAP, d);
    if (rc < 0)
        return rc;
    return et_params_check(p, d);
}

static void flow_config(const void *cfg, struct rvt_flow_config *fc)
{
    const struct et_params *p = &((const struct et_config *)cfg)->p;
    fc->xlen = p->xlen;
    fc->ecall = (enum rvt_flow_ecall)p->ecall_mode;
    fc->callstack_depth = et_callstack_depth(p);
    fc->callstack_overflow = RVT_CS_DROP_OLDEST;
    fc->sijump = p->sijump;
    fc->sijump_no_across = true; /* the decoder applies the encoder's pair rules (no pair right after a sync) */
    fc->pop_on_explicit_return = p->implicit_return == ET_IR_FIXED;
    fc->swap_keeps_stack = true; /* (as the encoder: branchTrace.adoc) */
}

/* ---- encoder -------------------------------------------------------------- */

static int enc_new(void **enc, const void *cfg, const struct rvt_byte_sink *out, struct rvt_diag *d)
{
    return et_enc_new((struct et_encoder **)enc, &((const struct et_config *)cfg)->p, out, d);
}

static int enc_put(void *enc, const struct rvt_ing_rec *r)
{
    return et_enc_put(enc, r);
}

static size_t enc_put_plain(void *enc, const struct rvt_ing_rec *rs, size_t n)
{
    return et_enc_put_plain(enc, rs, n);
}

static size_t enc_put_short(void *enc, const struct rvt_ing_fast *f, size_t n, uint8_t priv, uint64_t context)
{
    return et_enc_put_short(enc, f, n, priv, context);
}

static int enc_finish(void *enc)
{
    return et_enc_finish(enc);
}

static void enc_stats(const void *enc, struct rvt_codec_stats *st)
{
    et_enc_stats(enc, st);
}

static const char *enc_error(const void *enc)
{
    return et_enc_error(enc);
}

static void enc_free(void *enc)
{
    et_enc_free(enc);
}

/* ---- decoder -------------------------------------------------------------- */

static int dec_new(void **dec, const void *cfg, struct rvt_flow *flow, struct rvt_diag *d)
{
    return et_dec_new((struct et_decoder **)dec, &((const struct et_config *)cfg)->p, flow, d);
}

static int dec_run(void *dec, const uint8_t *buf, size_t len)
{
    return et_dec_run(dec, buf, len);
}

static int dec_run_segment(void *dec, const uint8_t *buf, size_t len, size_t from, size_t until)
{
    return et_dec_run_segment(dec, buf, len, from, until);
}

static int dec_run_part(void *dec, const uint8_t *buf, size_t len, size_t from, size_t until, size_t *next)
{
    return et_dec_run_part(dec, buf, len, from, until, next);
}

static bool dec_state_equal(const void *a, const void *b)
{
    return et_dec_state_equal(a, b);
}

static int sync_points(const void *cfg, const uint8_t *buf, size_t len, size_t from,
                       int (*fn)(void *ctx, const struct rvt_sync_point *sp), void *ctx, struct rvt_diag *d)
{
    return et_sync_points(&((const struct et_config *)cfg)->p, buf, len, from, fn, ctx, d);
}

static const char *dec_error(const void *dec)
{
    return et_dec_error(dec);
}

static void dec_free(void *dec)
{
    et_dec_free(dec);
}

static int dump(const void *cfg, const uint8_t *buf, size_t len, FILE *out, struct rvt_diag *d)
{
    return et_dump(&((const struct et_config *)cfg)->p, buf, len, out, d);
}

static int info(const void *cfg, FILE *out, struct rvt_diag *d)
{
    (void)d;
    const struct et_params *p = &((const struct et_config *)cfg)->p;
    int rc = et_print_discovery(p, out);
    if (rc >= 0)
        et_dprint_discovery(&p->d, out);
    return rc;
}

static const struct rvt_codec_opt options[] = {
    {"framing", "encap|refraw", "packet framing: e-trace-encap (default) or the reference flow's raw file"},
    {"scf", "FILE", "reference-flow static configuration (hardware parameters, INI)"},
    {"ucf", "FILE", "reference-flow user configuration ([codec] options, INI)"},
    {"etrace-version", "2.0|0.026", "protocol: E-Trace 2.0 (default) or the 0.026 draft"},
    {"resync-max", "N|off|any", "periodic sync every 2^(N+4) packets (default 6); off: none; any (decode only): "
                                "sync packets may come at any time (a resync not counted in packets)"},
    {"full-address", NULL, "report full addresses instead of differences"},
    {"implicit-return", "off|2.0|fixed", "returns from a call stack; irdepth as in 2.0, or the corrected count"},
    {"implicit-except", NULL, "omit trap handler addresses (needs --tvec-m/--tvec-s)"},
    {"branch-prediction", NULL, "branch predictor: format 0.0 branch counts"},
    {"jump-target-cache", NULL, "jump target cache: format 0.1 cache indexes"},
    {"sijump", NULL, "sequentially inferable jumps are not reported (also --si-jump)"},
    {"si-jump", NULL, "same as --sijump"},
    {"model-compat", NULL, "irdepth filled with ones when unused, as the reference Python model"},
    {"disambiguate", "on|off", "extension (default on): notify where the spec's packets would have two readings "
                               "(code re-entered with no branch or address in between; 2.0 irdepth, issue 254; "
                               "the instruction before a privilege change after an uninferable target); given to "
                               "the decoder, it checks that those packets are there"},
    {"partial-compression", NULL, "decoder: accept packets longer than their sign-compressed form (an encoder that "
                                  "compresses only the address, as payload.adoc allows)"},
    {"strict", NULL, "decoder: stop at the first error instead of resynchronising"},
    {"src-bits", "N", "encap: srcID width in bits (0..16)"},
    {"src-id", "N", "encap: srcID value (decode, dump: only this source's packets, e.g. one hart of a funnel)"},
    {"encap-timestamp", "T", "encap: timestamp bytes in each packet (0..8)"},
    {"encap-type-bits", "N", "encap: payload type field width"},
    {"flow", "N", "encap: header flow value (0..3)"},
    {"encap-sync", "resync|off|N", "encap: synchronisation sequence before resyncs (default), never, or every N bytes"},
    {"filter-range", "LO..HI", "trace only blocks touching [LO, HI) (LO..=HI: [LO, HI]) (repeatable, up to 8)"},
    {"filter-priv", "LIST", "trace only these privileges (u,s,m,d,vu,vs or codes)"},
    {"filter-cause", "LIST", "trace only handlers of these causes (8,9,i7: i = interrupt)"},
    {"tvec-m", "ADDR", "mtvec value (mode in bits 1:0) for implicit-except"},
    {"tvec-s", "ADDR", "stvec value for implicit-except"},
    {"tvec-u", "ADDR", "utvec value for implicit-except"},
    {"arch_p", "N", "hardware parameter (discovery.adoc)"},
    {"iaddress_width_p", "N", "address width (default: xlen)"},
    {"iaddress_lsb_p", "N", "address LSB not traced (default 1)"},
    {"privilege_width_p", "N", "privilege field width (default 2)"},
    {"context_width_p", "N", "context field width (default 32)"},
    {"time_width_p", "N", "time field width (default 64)"},
    {"nocontext_p", "0|1", "no context field (default 1)"},
    {"notime_p", "0|1", "no time field (default 1)"},
    {"ecause_width_p", "N", "exception cause width (default 6)"},
    {"return_stack_size_p", "N", "implicit-return stack of 2^N entries"},
    {"call_counter_size_p", "N", "implicit-return call counter of N bits"},
    {"bpred_size_p", "N", "branch predictor of 2^N entries"},
    {"cache_size_p", "N", "jump target cache of 2^N entries"},
    {"f0s_width_p", "N", "format 0 subformat field width"},
    {"sijump_p", "0|1", "the hart reports sequentially inferable jumps"},
    {"itype_width_p", "3|4", "ingress itype width (3: no call/return classes)"},
    {"ctype_width_p", "N", "hardware parameter"},
    {"ilastsize_width_p", "N", "hardware parameter"},
    {"iretire_width_p", "N", "hardware parameter"},
    {"retires_p", "N", "hardware parameter"},
    {"taken_branches_p", "N", "blocks retired per cycle (multiple retirement)"},
    {"impdef_width_p", "N", "hardware parameter"},
    {"blocks_p", "N", "hardware parameter"},
    {"comparators_p", "N", "hardware parameter (filtering)"},
    {"filters_p", "N", "hardware parameter (filtering)"},
    {"ecause_choice_p", "N", "hardware parameter (filtering)"},
    {"filter_context_p", "0|1", "hardware parameter (filtering)"},
    {"filter_time_p", "0|1", "hardware parameter (filtering)"},
    {"filter_excint_p", "N", "hardware parameter (filtering)"},
    {"filter_privilege_p", "0|1", "hardware parameter (filtering)"},
    {"filter_tval_p", "0|1", "hardware parameter (filtering)"},
    {"notval_p", "0|1", "0.026 draft: no tval field"},
    {"encoder_mode_width", "N", "support packet encoder_mode width (default 1)"},
    {"ioptions_width", "N", "support packet ioptions width (default 7)"},
    {"doptions_width", "N", "support packet doptions width (default 10; the reference data model's is 4)"},
    {"denable_p", "0|1", "support packet carries denable/dloss/doptions (default 1)"},
    {"data-trace", "on|off|only", "data trace (te_data): with the instruction trace, or alone (no instruction trace)"},
    {"data-no-value", NULL, "data trace: addresses only (also no-data)"},
    {"data-no-address", NULL, "data trace: values only (also no-address)"},
    {"data-full-address", NULL, "data trace: never differential addresses (also full-daddress)"},
    {"data-full-value", NULL, "data trace: never compressed values (also full-data)"},
    {"data-compress", "diff|xor|best", "data trace: value compression (xor, best need doptions_width >= 10)"},
    {"data-trim", NULL, "data trace: leave out upper bytes sign extension restores (data_len, op_len)"},
    {"data-types", "LIST", "data trace: trace these accesses: load,store,atomic,csr (default all)"},
    {"data-filter-range", "LO..HI", "data trace: only accesses of instructions in [LO, HI) (repeatable)"},
    {"data-filter-address", "LO..HI", "data trace: only accesses to [LO, HI) (repeatable; the decoder cannot tie them)"},
    {"data-model-compat", NULL, "data trace: the reference data model's labels (never the default; docs/etrace.md)"},
    {"data-split-lag", "N", "data trace, data_split_p=1: responses follow N later data packets"},
    {"daddress_width_p", "N", "data trace: address width (default xlen)"},
    {"data_width_p", "N", "data trace: data bus width (default 64)"},
    {"dtype_width_p", "N", "data trace: 1 loads/stores, 3 +CSR, 4 +atomics (default 4)"},
    {"lrid_width_p", "N", "data trace: load request id width (split)"},
    {"data_split_p", "0|1", "data trace: loads and atomics use the split protocol"},
    {"dblock_width_p", "N", "hardware parameter (data trace)"},
    {"dsize_width_p", "N", "hardware parameter (data trace)"},
    {"iaddr_lsbs_width_p", "N", "hardware parameter (data trace)"},
    {"lresp_width_p", "N", "hardware parameter (data trace)"},
    {"ldata_width_p", "N", "hardware parameter (data trace)"},
    {"sdata_width_p", "N", "hardware parameter (data trace)"},
    {NULL, NULL, NULL},
};


/* Layouts a file in another framing or protocol version would need. */
static const char *const g_probe_options[] = {"framing=refraw", "framing=encap", "etrace-version=0.026", NULL};

/* What `verify` and the round-trip tests compare besides instructions
 * (the decoder's blocks carry the privilege of format 3 packets).  Time is
 * not: a trap record without a time is sent with time 0.  With data trace
 * on, every access (each tied to its instruction), as far as the options
 * keep addresses and values; data filters the comparison cannot apply to
 * the records (a class left out, address ranges) leave the data out of it. */
static unsigned traced(const void *cfg)
{
    const struct et_dparams *d = &((const struct et_config *)cfg)->p.d;
    /* The data trace alone (trTeInstTracing 0): the accesses in order, tied
     * to no instruction. */
    unsigned t = d->mode == ET_DATA_ONLY ? RVT_TRACED_NO_INSNS : RVT_TRACED_PRIV;
    /* (a data filter the input's records cannot be put through: no access
     * can be compared one for one) */
    if (d->mode == ET_DATA_OFF || et_dclasses(d) != ET_DCL_ALL || d->n_ranges || d->n_dranges)
        return t;
    if (d->mode == ET_DATA_ON)
        t |= RVT_TRACED_DATA_INDEX;
    t |= RVT_TRACED_CSR_ADDR;
    if (!d->no_address)
        t |= RVT_TRACED_LOAD_ADDR | RVT_TRACED_STORE_ADDR | RVT_TRACED_SC_FAIL;
    if (!d->no_data)
        t |= RVT_TRACED_LOAD_VALUE | RVT_TRACED_STORE_VALUE | RVT_TRACED_CSR_VALUE | RVT_TRACED_OPERAND;
    return t;
}

const struct rvt_codec rvt_codec_etrace = {
    .name = "etrace",
    .summary = "RISC-V E-Trace 2.0 te_inst (and the 0.026 draft), e-trace-encap or reference raw framing",
    .options = options,
    .cfg_size = sizeof(struct et_config),
    .cfg_init = cfg_init,
    .cfg_set = cfg_set,
    .cfg_finish = cfg_finish,
    .flow_config = flow_config,
    .enc_new = enc_new,
    .enc_put = enc_put,
    .enc_put_plain = enc_put_plain,
    .enc_put_short = enc_put_short,
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
    .idle_byte = 0x00, /* encapsulation: a zero header byte is a null (idle) packet */
    .sync_hint = "E-Trace sync packets (format 3) recur only with periodic resynchronisation: encode with "
                 "--resync-max N (every 2^(N+4) packets), not off",
    .nothing_traced_hint = "its data filter (--data-types, --data-filter-range, --data-filter-address) is not one "
                           "the input's accesses can be put through",
    .probe_options = g_probe_options,
    .traced = traced,
};
