/* rvtrace decode: trace bytes + ELF -> PCs, listing, blocks or counts. */
#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void help(const struct rvt_codec *only)
{
    printf("usage: rvtrace decode --format F --elf PROG TRACE [--output pcs|insn|blocks|count] [-o FILE] [options]\n\n"
           "Decode trace bytes back to the executed instructions.  The decode starts at the first\n"
           "synchronisation point; a damaged message is reported (byte offset, what was wrong) and the\n"
           "decoder resynchronises at the next one.  The exit status is 1 if anything was reported.\n\n");
    cli_help_common(stdout, CLI_FORMAT | CLI_ELF | CLI_OUTPUT | CLI_TRACE | CLI_OUTKIND | CLI_ECALL | CLI_XLEN, only);
}

int cmd_decode(int argc, char **argv)
{
    struct cli_opts o;
    const unsigned allowed = CLI_FORMAT | CLI_ELF | CLI_OUTPUT | CLI_TRACE | CLI_OUTKIND | CLI_ECALL | CLI_XLEN;
    int rc = cli_parse(&o, "decode", allowed, NULL, argc, argv);
    if (rc || o.help) {
        if (o.help)
            help(o.codec);
        cli_free(&o);
        return rc;
    }
    uint8_t *buf = NULL;
    size_t len = 0;
    FILE *f = NULL;
    struct rvt_output *out = NULL;
    if (!o.trace) {
        rc = cli_fail("decode", "no TRACE file given");
        goto done;
    }
    if (!o.elf && !o.nraw) {
        rc = cli_fail("decode", "--elf PROG is required to follow the code");
        goto done;
    }
    if ((rc = cli_load_image(&o)) || (rc = cli_finish_codec(&o, rvt_img_xlen(o.img))))
        goto done;
    struct rvt_diag d = {0};
    if (rvt_read_file(o.trace, &buf, &len, &d) < 0) {
        rc = cli_fail("decode", "%s", d.msg);
        goto done;
    }
    f = !o.output || strcmp(o.output, "-") == 0 ? stdout : fopen(o.output, "wb");
    if (!f) {
        rc = cli_fail("decode", "%s: cannot create: %s", o.output, strerror(errno));
        goto done;
    }
    struct rvt_out_config oc = {.size = sizeof oc,
                                .kind = o.out_kind < 0 ? RVT_OUT_PCS : (enum rvt_out_kind)o.out_kind,
                                .f = f,
                                .image = o.img,
                                .xlen = rvt_img_xlen(o.img),
                                .diag = stderr};
    out = rvt_out_new(&oc);
    if (!out) {
        rc = cli_fail("decode", "out of memory");
        goto done;
    }
    struct rvt_flow_sink sink = rvt_out_sink(out);
    double t0 = cli_now();
    int drc = rvt_decode_buffer(o.codec, o.ccfg, o.img, o.ecall, buf, len, &sink, &d);
    double t1 = cli_now();
    if (rvt_out_finish(out) < 0)
        rc = cli_fail("decode", "%s: write failed: %s", o.output ? o.output : "stdout", strerror(errno));
    if (drc < 0) {
        rc = cli_fail("decode", "%s: %s", o.trace, d.msg);
        goto done;
    }
    const struct rvt_out_stats *st = rvt_out_stats(out);
    if (o.verbose)
        fprintf(stderr, "%s: %zu bytes -> %" PRIu64 " instructions in %" PRIu64 " blocks, %" PRIu64
                        " syncs, %" PRIu64 " errors, %" PRIu64 " gaps, %.1f M instructions/s\n",
                o.trace, len, st->insns, st->blocks, st->syncs, st->errors, st->gaps,
                (double)st->insns / ((t1 - t0) > 0 ? (t1 - t0) : 1e-9) / 1e6);
    if (st->errors) {
        fprintf(stderr, "rvtrace decode: %s: %" PRIu64 " decode error(s); the output skips the damaged parts\n",
                o.trace, st->errors);
        rc = 1;
    }
    if (st->insns == 0 && len > 0 && !rc) {
        fprintf(stderr, "rvtrace decode: %s: no instructions decoded (no synchronisation point found?)\n", o.trace);
        rc = 1;
    }
done:
    rvt_out_free(out);
    if (f && f != stdout)
        fclose(f);
    free(buf);
    cli_free(&o);
    return rc;
}
