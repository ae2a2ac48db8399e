/* rvtrace encode: ingress -> trace bytes. */
#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

static void help(const struct rvt_codec *only)
{
    printf("usage: rvtrace encode --format F [--elf PROG] --input IN [--input-format F] -o OUT [options]\n\n"
           "Encode what the hart retired (a PC list, 'PC INSN' text, the native ingress format or the\n"
           "E-Trace reference CSV) into trace bytes of family F.  A PC list needs the ELF to classify\n"
           "each instruction; every PC step is checked against the code.\n\n");
    printf("  --sink SPEC           write through a trace RAM sink: sram:<bytes>:wrap|stop[:<width bits>]\n"
           "                        or smem:<start>:<bytes>:wrap|stop[:<width>]; OUT is then the RAM image as\n"
           "                        the sink holds it when tracing ends, OUT.sink its write pointer, wrap flag\n"
           "                        and word width (rvtrace decode reads both)\n");
    printf("  --funnel              several harts into one stream: one encoder per hart (the records' hart\n"
           "                        ids), each sending its hart id as source id (--src-bits N sets the field\n"
           "                        width), merged packet by packet; decode one hart with --hart N\n");
    fputs(rvt_filter_options_help(), stdout);
    cli_help_common(stdout, CLI_FORMAT | CLI_ELF | CLI_INPUT | CLI_OUTPUT | CLI_ECALL | CLI_XLEN, only);
}

struct funnel_ctx {
    struct cli_opts *o;
    unsigned xlen;
};

/* Hart h's configuration: the options given, with source id h. */
static void *make_hart_cfg(void *ctx, unsigned hart, struct rvt_diag *d)
{
    struct funnel_ctx *fc = ctx;
    char id[16];
    snprintf(id, sizeof id, "%u", hart);
    return cli_codec_cfg(fc->o, "src-id", id, fc->xlen, d);
}

int cmd_encode(int argc, char **argv)
{
    static const char *const extra[] = {"sink", "funnel!", "hart", CLI_FILTER_EXTRAS, NULL};
    struct cli_opts o;
    const unsigned allowed = CLI_FORMAT | CLI_ELF | CLI_INPUT | CLI_OUTPUT | CLI_ECALL | CLI_XLEN;
    int rc = cli_parse(&o, "encode", allowed, extra, argc, argv);
    if (rc || o.help) {
        if (o.help)
            help(o.codec);
        cli_free(&o);
        return rc;
    }
    if (!o.output) {
        cli_free(&o);
        return cli_fail("encode", "-o OUT is required");
    }
    struct rvt_ing_reader *in = NULL;
    struct rvt_ramsink *ram = NULL;
    struct rvt_filter *filt = NULL;
    FILE *f = NULL;
    const char *sinkspec = cli_extra(&o, "sink");
    if ((rc = cli_load_image(&o)) || (rc = cli_open_input(&o, &in)) || (rc = cli_filter_wrap(&o, &in, 0, &filt)) ||
        (rc = cli_finish_codec(&o, rvt_ing_xlen(in))))
        goto out;
    struct rvt_diag d = {0};
    struct rvt_filesink fs = {.f = NULL, .name = o.output};
    struct rvt_byte_sink sink;
    if (sinkspec) {
        struct rvt_sink_spec spec;
        if (rvt_sink_spec_parse(sinkspec, &spec, &d) < 0 ||
            rvt_ramsink_from_spec(&spec, o.codec->idle_byte, &ram, &d) < 0) {
            rc = cli_fail("encode", "--sink %s: %s", sinkspec, d.msg);
            goto out;
        }
        sink = rvt_ramsink_sink(ram);
    } else {
        f = strcmp(o.output, "-") == 0 ? stdout : fopen(o.output, "wb");
        if (!f) {
            rc = cli_fail("encode", "%s: cannot create: %s", o.output, strerror(errno));
            goto out;
        }
        fs.f = f;
        sink = rvt_filesink_sink(&fs);
    }
    struct rvt_codec_stats st;
    double t0 = cli_now();
    if (cli_extra(&o, "funnel")) {
        if (!cli_extra_pair(&o, "src-bits")) {
            rc = cli_fail("encode", "--funnel needs --src-bits N: the width of the source id each hart's packets carry");
            goto out;
        }
        struct funnel_ctx fc = {&o, rvt_ing_xlen(in)};
        if (rvt_encode_funnel(o.codec, make_hart_cfg, &fc, in, o.img, &sink, 16, &st, NULL, &d) < 0) {
            rc = cli_fail("encode", "%s", d.msg);
            goto out;
        }
    } else if (rvt_encode_stream(o.codec, o.ccfg, in, o.img, &sink, &st, &d) < 0) {
        rc = cli_fail("encode", "%s", d.msg);
        goto out;
    }
    double t1 = cli_now();
    uint64_t produced = st.bytes ? st.bytes : fs.written;
    if (ram) {
        if (rvt_ramsink_save(ram, o.output, &d) < 0) {
            rc = cli_fail("encode", "%s", d.msg);
            goto out;
        }
        struct rvt_ramsink_state rs;
        rvt_ramsink_state(ram, &rs);
        uint64_t kept = rs.written < rs.size ? rs.written : rs.size;
        if (o.verbose || rs.wrap || st.lost)
            fprintf(stderr,
                    "rvtrace encode: sink of %" PRIu64 " bytes holds the last %" PRIu64 " of %" PRIu64
                    " bytes written%s; %" PRIu64 " bytes refused (stop mode); %s, %s.sink written\n",
                    rs.size, kept, rs.written, rs.wrap ? " (wrapped)" : "", st.lost, o.output, o.output);
    } else if (fflush(f) != 0 || fs.err) {
        rc = cli_fail("encode", "%s: write failed: %s", o.output, strerror(fs.err ? fs.err : errno));
        goto out;
    }
    if (o.verbose)
        fprintf(stderr,
                "%s: %" PRIu64 " records, %" PRIu64 " instructions -> %" PRIu64 " bytes, %" PRIu64
                " packets, %.4f bits/instruction, %.1f M instructions/s\n",
                o.codec->name, st.records, st.insns, produced, st.packets,
                st.insns ? 8.0 * (double)produced / (double)st.insns : 0.0,
                (double)st.insns / ((t1 - t0) > 0 ? (t1 - t0) : 1e-9) / 1e6);
out:
    if (f && f != stdout && fclose(f) != 0 && !rc)
        rc = cli_fail("encode", "%s: write failed: %s", o.output, strerror(errno));
    rvt_ramsink_free(ram);
    rvt_ing_close(in);
    rvt_filter_free(filt);
    cli_free(&o);
    return rc;
}
