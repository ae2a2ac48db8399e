/* rvtrace verify: encode, decode, compare with the input; sizes and speeds. */
#include "cli.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct counter {
    uint64_t insns, errors;
    /* data notes, one of each per access as traced: loads' and stores' addresses (and failed
     * store-conditionals'), their values, CSR numbers */
    uint64_t addresses, values, csrs;
};

static int count_block(void *ctx, const struct rvt_block *b)
{
    ((struct counter *)ctx)->insns += b->ninsns;
    return 0;
}

static int count_note(void *ctx, const struct rvt_note *n)
{
    struct counter *c = ctx;
    c->errors += n->kind == RVT_NOTE_ERROR;
    if (n->kind != RVT_NOTE_DATA)
        return 0;
    c->addresses += n->reason == RVT_DATA_LOAD_ADDR || n->reason == RVT_DATA_STORE_ADDR || n->reason == RVT_DATA_SC_FAIL;
    c->values += n->reason == RVT_DATA_LOAD_VALUE || n->reason == RVT_DATA_STORE_VALUE;
    c->csrs += n->reason == RVT_DATA_CSR_ADDR;
    return 0;
}

static int pull(void *ctx, struct rvt_ing_rec *r)
{
    return rvt_ing_next(ctx, r);
}

int cmd_verify(int argc, char **argv)
{
    static const char *const extra[] = {"hart", CLI_FILTER_EXTRAS, CLI_MAX_INSNS_OPT, NULL};
    struct cli_opts o;
    const unsigned allowed = CLI_FORMAT | CLI_ELF | CLI_INPUT | CLI_ECALL | CLI_XLEN;
    int rc = cli_parse(&o, "verify", allowed, extra, argc, argv);
    if (rc || o.help) {
        if (o.help) {
            printf("usage: rvtrace verify --format F --elf PROG --input IN [options]\n\n"
                   "Encode IN, decode the bytes with PROG and compare the decoded stream with IN: the instructions\n"
                   "and everything the family's options trace (privilege, timestamps, register writes, load/store\n"
                   "addresses and values at full width).  Prints what was compared, instructions, bytes,\n"
                   "bits/instruction and encode/decode speeds; exit status 1 on any difference (the first one is\n"
                   "described, with its kind).  With filter options the decoded stream must equal the qualified\n"
                   "records.  A trace without instructions (E-Trace --data-trace only) is compared access for access.\n\n");
            fputs(rvt_filter_options_help(), stdout);
            fputs(CLI_MAX_INSNS_HELP, stdout);
            cli_help_common(stdout, allowed, o.codec);
        }
        cli_free(&o);
        return rc;
    }
    struct rvt_ing_reader *in = NULL;
    struct rvt_membuf mb;
    rvt_membuf_init(&mb);
    struct rvt_seqcmp *cmp = NULL;
    struct rvt_filter *filt = NULL, *filt2 = NULL;
    if (!CLI_HAS_IMAGE(&o)) {
        rc = cli_fail("verify", "--elf PROG is required to decode");
        goto out;
    }
    uint64_t max_insns = 0;
    if ((rc = cli_max_insns(&o, &max_insns)) || (rc = cli_load_image(&o)) || (rc = cli_open_input(&o, &in)) ||
        (rc = cli_filter_wrap(&o, &in, 0, &filt)) ||
        (rc = cli_finish_codec(&o, rvt_ing_xlen(in))))
        goto out;
    const unsigned traced = o.codec->traced ? o.codec->traced(o.ccfg) : 0;
    /* A trace without instructions (the E-Trace data trace alone): its
     * accesses are what is compared. */
    const bool no_insns = (traced & RVT_TRACED_NO_INSNS) != 0;
    if (no_insns && !(traced & ~(unsigned)RVT_TRACED_NO_INSNS)) {
        rc = cli_fail("verify", "this configuration traces no instructions (E-Trace --data-trace only, dbg "
                                "--dbg-emit without pc) and nothing verify can compare one for one%s%s",
                      o.codec->nothing_traced_hint ? ": " : "",
                      o.codec->nothing_traced_hint ? o.codec->nothing_traced_hint : "");
        goto out;
    }
    struct rvt_byte_sink sink = rvt_membuf_sink(&mb);
    struct rvt_codec_stats st;
    struct rvt_diag d = {0};
    double t0 = cli_now();
    if (rvt_encode_stream(o.codec, o.ccfg, in, o.img, &sink, &st, &d) < 0) {
        rc = cli_fail("verify", "encode: %s", d.msg);
        goto out;
    }
    double t1 = cli_now();
    rvt_ing_close(in);
    in = NULL;
    uint64_t expected = no_insns ? 0 : st.insns;
    if (filt) {
        struct rvt_filter_stats fst;
        rvt_filter_get_stats(filt, &fst, sizeof fst);
        expected = fst.insns_traced;
    }

    /* The decode must be able to reach every instruction encoded. */
    if (!max_insns)
        max_insns = expected < rvt_decode_default_limit(mb.len) ? 0 : expected + 1;
    struct rvt_decode_options dopt = {.size = sizeof dopt, .ecall = o.ecall, .max_insns = max_insns};
    struct counter cnt = {0, 0, 0, 0, 0};
    struct rvt_flow_sink csink = {.block = count_block, .note = count_note, .ctx = &cnt};
    double t2 = cli_now();
    if (rvt_decode(o.codec, o.ccfg, o.img, &dopt, mb.data, mb.len, &csink, &d) < 0) {
        rc = cli_fail("verify", "decode: %s", d.msg);
        goto out;
    }
    double t3 = cli_now();

    if ((rc = cli_open_input(&o, &in)) || (rc = cli_filter_wrap(&o, &in, 1, &filt2)))
        goto out;
    struct rvt_seqcmp_config ccfg = {.size = sizeof ccfg, .xlen = rvt_img_xlen(o.img), .traced = traced,
                                     .image = o.img};
    cmp = rvt_seqcmp_new_ex(pull, in, &ccfg);
    if (!cmp) {
        rc = cli_fail("verify", "out of memory");
        goto out;
    }
    struct rvt_flow_sink vsink = rvt_seqcmp_sink(cmp);
    int drc = rvt_decode(o.codec, o.ccfg, o.img, &dopt, mb.data, mb.len, &vsink, &d);
    int crc = rvt_seqcmp_finish(cmp);
    double enc_s = t1 - t0 > 0 ? t1 - t0 : 1e-9, dec_s = t3 - t2 > 0 ? t3 - t2 : 1e-9;
    printf("format        %s\n"
           "input         %s\n"
           "records       %" PRIu64 "\n"
           "instructions  %" PRIu64 "\n"
           "bytes         %zu (%" PRIu64 " packets)\n"
           "bits/instr    %.4f\n"
           "encode        %.1f M instructions/s (including reading the input)\n",
           o.codec->name, o.input, st.records, st.insns, mb.len, st.packets,
           st.insns ? 8.0 * (double)mb.len / (double)st.insns : 0.0, (double)st.insns / enc_s / 1e6);
    if (no_insns) { /* (loads and stores: by their addresses, or their values when only those are traced) */
        const uint64_t acc = ((traced & RVT_TRACED_LOAD_ADDR) ? cnt.addresses : cnt.values) + cnt.csrs;
        printf("decode        %" PRIu64 " accesses, %.1f M accesses/s\n", acc, (double)acc / dec_s / 1e6);
    } else {
        printf("decode        %.1f M instructions/s (counting only)\n", (double)cnt.insns / dec_s / 1e6);
    }
    /* What was compared besides the instructions, and how many of each. */
    char compared[512];
    int w = no_insns ? 0 : snprintf(compared, sizeof compared, "instructions (%" PRIu64 ")", rvt_seqcmp_insns(cmp));
    for (unsigned k = 1; k < RVT_CMP__COUNT && w >= 0 && (size_t)w < sizeof compared; k++) {
        if (traced & rvt_cmp_kind_traced(k))
            w += snprintf(compared + w, sizeof compared - (size_t)w, "%s%s (%" PRIu64 ")", w ? ", " : "",
                          rvt_cmp_kind_name(k), rvt_seqcmp_count(cmp, k));
    }
    printf("compared      %s\n", compared);
    char warning[1024];
    if (rvt_codec_stats_warning(&st, warning, sizeof warning) > 0)
        printf("warning       %s\n", warning);
    if (crc < 0 || (drc < 0 && !rvt_seqcmp_error(cmp)[0])) {
        printf("result        FAIL: %s\n", crc < 0 ? rvt_seqcmp_error(cmp) : d.msg);
        rc = 1;
    } else if (cnt.insns != expected) {
        printf("result        FAIL: decoded %" PRIu64 " instructions, expected %" PRIu64 "\n", cnt.insns, expected);
        rc = 1;
    } else if (no_insns) {
        printf("result        OK: the decoded accesses equal the input's, everything compared\n");
    } else {
        printf("result        OK: the decoded instructions equal the input (%" PRIu64 ")%s\n", rvt_seqcmp_insns(cmp),
               traced ? ", and so does everything else compared" : "");
    }
out:
    rvt_seqcmp_free(cmp);
    rvt_ing_close(in);
    rvt_filter_free(filt);
    rvt_filter_free(filt2);
    rvt_membuf_free(&mb);
    cli_free(&o);
    return rc;
}
