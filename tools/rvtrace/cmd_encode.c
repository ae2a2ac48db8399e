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
    cli_help_common(stdout, CLI_FORMAT | CLI_ELF | CLI_INPUT | CLI_OUTPUT | CLI_ECALL | CLI_XLEN, only);
}

int cmd_encode(int argc, char **argv)
{
    struct cli_opts o;
    const unsigned allowed = CLI_FORMAT | CLI_ELF | CLI_INPUT | CLI_OUTPUT | CLI_ECALL | CLI_XLEN;
    int rc = cli_parse(&o, "encode", allowed, NULL, argc, argv);
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
    FILE *f = NULL;
    if ((rc = cli_load_image(&o)) || (rc = cli_open_input(&o, &in)) ||
        (rc = cli_finish_codec(&o, rvt_ing_xlen(in))))
        goto out;
    f = strcmp(o.output, "-") == 0 ? stdout : fopen(o.output, "wb");
    if (!f) {
        rc = cli_fail("encode", "%s: cannot create: %s", o.output, strerror(errno));
        goto out;
    }
    struct rvt_filesink fs = {.f = f, .name = o.output};
    struct rvt_byte_sink sink = rvt_filesink_sink(&fs);
    struct rvt_codec_stats st;
    struct rvt_diag d = {0};
    double t0 = cli_now();
    if (rvt_encode_stream(o.codec, o.ccfg, in, o.img, &sink, &st, &d) < 0) {
        rc = cli_fail("encode", "%s", d.msg);
        goto out;
    }
    double t1 = cli_now();
    if (fflush(f) != 0 || fs.err) {
        rc = cli_fail("encode", "%s: write failed: %s", o.output, strerror(fs.err ? fs.err : errno));
        goto out;
    }
    if (o.verbose)
        fprintf(stderr,
                "%s: %" PRIu64 " records, %" PRIu64 " instructions -> %" PRIu64 " bytes, %" PRIu64
                " packets, %.4f bits/instruction, %.1f M instructions/s\n",
                o.codec->name, st.records, st.insns, fs.written, st.packets,
                st.insns ? 8.0 * (double)fs.written / (double)st.insns : 0.0,
                (double)st.insns / ((t1 - t0) > 0 ? (t1 - t0) : 1e-9) / 1e6);
out:
    if (f && f != stdout && fclose(f) != 0 && !rc)
        rc = cli_fail("encode", "%s: write failed: %s", o.output, strerror(errno));
    rvt_ing_close(in);
    cli_free(&o);
    return rc;
}
