/* rvtrace decode: trace bytes + ELF -> PCs, listing, blocks or counts. */
#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void help(const struct rvt_codec *only)
{
    printf("usage: rvtrace decode --format F [--elf PROG] TRACE [--output pcs|insn|blocks|count] [-o FILE] [options]\n\n"
           "Decode trace bytes back to the executed instructions.  The decode starts at the first\n"
           "synchronisation point; a damaged message is reported (byte offset, what was wrong) and the\n"
           "decoder resynchronises at the next one.  The exit status is 1 if anything was reported.\n"
           "Without --elf only traces that record every target (cdl, dbg with PCs) decode; give --xlen 32\n"
           "for RV32 then.\n\n");
    printf("  --wp ADDR             the trace RAM's write pointer (trRamWP, without the wrap bit), for a raw\n"
           "                        dump without a .sink description\n"
           "  --hart N              decode hart N of a funnelled trace (its source id; same --src-bits as encode)\n"
           "  --atb ID              the trace is in CoreSight formatter frames: decode the bytes of trace ID ID\n"
           "  --regs FILE           the register-setting file the trace was made with: configures the decoder\n"
           "                        like encoder 0 (or encoder N with --hart N)\n"
           "  --wrap 0|1            the RAM's wrap flag (trRamWP bit 0)\n"
           "  --sink-start ADDR     trRamStart of the dump (default 0)\n"
           "A TRACE written through --sink has a TRACE.sink description beside it; the decode then\n"
           "starts at the oldest surviving byte and reports how much was lost to wrapping.\n\n");
    cli_help_common(stdout, CLI_FORMAT | CLI_ELF | CLI_OUTPUT | CLI_TRACE | CLI_OUTKIND | CLI_ECALL | CLI_XLEN, only);
}

int cmd_decode(int argc, char **argv)
{
    static const char *const extra[] = {"wp", "wrap", "sink-start", "hart", "regs", "sram-bytes", "atb", NULL};
    struct cli_opts o;
    const unsigned allowed = CLI_FORMAT | CLI_ELF | CLI_OUTPUT | CLI_TRACE | CLI_OUTKIND | CLI_ECALL | CLI_XLEN;
    int rc = cli_parse(&o, "decode", allowed, extra, argc, argv);
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
    struct rvt_sink_image sim = {0};
    struct rvt_trace_file *tf = NULL;
    if (!o.trace) {
        rc = cli_fail("decode", "no TRACE file given");
        goto done;
    }
    if ((rc = cli_load_image(&o)))
        goto done;
    if (!o.img) {
        /* Without the program only families that record every target (cdl,
         * dbg with PCs) can decode; the others report where code is needed. */
        o.img = rvt_img_new();
        if (!o.img) {
            rc = cli_fail("decode", "out of memory");
            goto done;
        }
        rvt_img_set_xlen(o.img, o.xlen ? o.xlen : 64);
    }
    const char *hart = cli_extra(&o, "hart"), *regs = cli_extra(&o, "regs");
    if (regs) {
        struct rvt_tci *tci = NULL;
        uint64_t h = 0;
        if (hart && !cli_parse_u64(hart, &h)) {
            rc = cli_fail("decode", "--hart: expected a hart number, got '%s'", hart);
            goto done;
        }
        struct rvt_diag rd = {0};
        if ((rc = cli_regs_load(&o, regs, &tci)) == 0 && cli_regs_apply(&o, tci, (unsigned)h, o.ccfg, &rd) < 0)
            rc = cli_fail("decode", "%s: %s", regs, rd.msg);
        rvt_tci_free(tci);
        if (rc)
            goto done;
    } else if (hart) {
        struct rvt_diag hd = {0};
        uint64_t h;
        if (!cli_parse_u64(hart, &h) || o.codec->cfg_set(o.ccfg, "src-id", hart, &hd) < 0) {
            rc = cli_fail("decode", "--hart %s: %s", hart, hd.msg[0] ? hd.msg : "expected a hart number");
            goto done;
        }
    }
    if ((rc = cli_finish_codec(&o, rvt_img_xlen(o.img))))
        goto done;
    struct rvt_diag d = {0};
    if (cli_plain_trace(&o, o.trace)) {
        if (rvt_trace_file_open(&tf, o.trace, &d) < 0) {
            rc = cli_fail("decode", "%s", d.msg);
            goto done;
        }
        len = rvt_trace_file_size(tf);
    } else {
        if ((rc = cli_load_trace(&o, o.trace, &sim)))
            goto done;
        buf = sim.data;
        len = sim.len;
        sim.data = NULL;
        if (cli_extra(&o, "atb") && (rc = cli_atb_extract(&o, cli_extra(&o, "atb"), &buf, &len)))
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
    int drc = tf ? rvt_decode_file(o.codec, o.ccfg, o.img, o.ecall, tf, &sink, &d)
                 : rvt_decode_buffer(o.codec, o.ccfg, o.img, o.ecall, buf, len, &sink, &d);
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
    rvt_trace_file_close(tf);
    rvt_sink_image_free(&sim);
    cli_free(&o);
    return rc;
}
