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
           "                        and word width (rvtrace decode reads both).  In wrap mode, unless a sync\n"
           "                        option is given, the family's periodic synchronisation is set so that the\n"
           "                        bytes the RAM keeps hold a sync point (stderr names the period)\n");
    printf("  --regs FILE           Trace Control Interface register-setting file (docs/sinks.md): the encoder\n"
           "                        registers configure the family (mode, sync, source id, features), an\n"
           "                        enabled RAM sink receives the trace (OUT = its image, OUT.sink), and with\n"
           "                        --funnel encoder N configures hart N and an enabled funnel0 drops the\n"
           "                        harts its trFunnelDisInput disables\n"
           "  --sram-bytes N        size of the RAM behind the register file's SRAM sink (default 1048576)\n");
    printf("  --atb ID              through an ATB bridge: the trace goes out in CoreSight formatter frames\n"
           "                        (16 bytes; a frame sync first and every 16 frames) under trace ID ID (1..111)\n");
    printf("  --funnel              several harts into one stream: one encoder per hart (the records' hart\n"
           "                        ids), each sending its hart id as source id (--src-bits N sets the field\n"
           "                        width), merged packet by packet; decode one hart with --hart N\n"
           "  --jobs N              --funnel into a file: encode each hart on its own thread, N at a time (0: one\n"
           "                        per core; default 1); without --funnel, N > 1 parses text input on N threads\n"
           "                        (other input: read on a thread of its own beside the encoder); the same\n"
           "                        bytes as one thread (docs/parallel.md)\n");
    fputs(rvt_filter_options_help(), stdout);
    cli_help_common(stdout, CLI_FORMAT | CLI_ELF | CLI_INPUT | CLI_OUTPUT | CLI_ECALL | CLI_XLEN, only);
}

/* Frame syncs of the ATB bridge: before every 16th frame. */
enum { ATB_FSYNC_PERIOD = 16 };

struct funnel_ctx {
    struct cli_opts *o;
    unsigned xlen;
    struct rvt_tci *tci; /* registers, if given: encoder h configures hart h */
};

/* Hart h's configuration: the options given, with source id h (or encoder
 * h's registers). */
static void *make_hart_cfg(void *ctx, unsigned hart, struct rvt_diag *d)
{
    struct funnel_ctx *fc = ctx;
    if (fc->tci) {
        void *cfg = rvt_codec_cfg_new(fc->o->codec);
        for (unsigned k = 0; cfg && k < fc->o->npairs; k++)
            if (fc->o->codec->cfg_set(cfg, fc->o->pair_name[k], fc->o->pair_val[k], d) < 0) {
                rvt_codec_cfg_free(cfg);
                return NULL;
            }
        if (cfg && (cli_regs_apply(fc->o, fc->tci, hart, cfg, d) < 0 ||
                    (fc->o->codec->cfg_finish && fc->o->codec->cfg_finish(cfg, fc->xlen, fc->o->img, d) < 0))) {
            rvt_codec_cfg_free(cfg);
            return NULL;
        }
        return cfg;
    }
    char id[16];
    snprintf(id, sizeof id, "%u", hart);
    return cli_codec_cfg(fc->o, "src-id", id, fc->xlen, d);
}

/* An encode that failed: its message, and why the file refused bytes if
 * it did (the encoder knows only that the output failed). */
static int encode_failed(const struct rvt_diag *d, const struct rvt_filesink *fs, const char *output)
{
    if (fs->err)
        return cli_fail("encode", "%s (%s: %s)", d->msg, output, strerror(fs->err));
    return cli_fail("encode", "%s", d->msg);
}

int cmd_encode(int argc, char **argv)
{
    static const char *const extra[] = {"sink", "funnel!", "hart", "regs", "sram-bytes", "atb", "jobs", CLI_FILTER_EXTRAS, NULL};
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
    struct rvt_tci *tci = NULL;
    struct rvt_atb_writer *atb = NULL;
    FILE *f = NULL;
    const char *sinkspec = cli_extra(&o, "sink"), *regs = cli_extra(&o, "regs");
    struct rvt_diag d = {0};
    /* --jobs N without --funnel: a text input is parsed on N threads (the
     * same records in the same order, so the same bytes); any other input
     * is read ahead on a thread of its own (below). */
    uint64_t jobs = 1;
    const char *js = cli_extra(&o, "jobs");
    if (js && (!cli_parse_u64(js, &jobs) || jobs > 64)) {
        rc = cli_fail("encode", "--jobs: expected a number of threads (0: one per core, at most 64), got '%s'", js);
        goto out;
    }
    if (jobs == 0)
        jobs = rvt_jobs_default();
    bool split = false;
    if ((rc = cli_load_image(&o)) || (rc = cli_open_input(&o, &in)))
        goto out;
    if (jobs > 1 && !cli_extra(&o, "funnel")) {
        struct rvt_ing_reader *pt;
        int k = rvt_ing_text_jobs(&pt, in, (unsigned)jobs, 0, &d);
        if (k < 0) {
            in = NULL; /* closed */
            rc = cli_fail("encode", "--jobs: %s", d.msg);
            goto out;
        }
        if (k > 0) {
            in = pt;
            split = true;
        }
    }
    if ((rc = cli_filter_wrap(&o, &in, 0, &filt)))
        goto out;
    if (regs) {
        if ((rc = cli_regs_load(&o, regs, &tci)))
            goto out;
        if (cli_regs_apply(&o, tci, 0, o.ccfg, &d) < 0) {
            rc = cli_fail("encode", "%s: %s", regs, d.msg);
            goto out;
        }
        /* The encoder's filter registers select what is traced, as
         * --filter options would. */
        struct rvt_filter_config rf;
        rvt_filter_config_init(&rf);
        rf.image = o.img;
        rf.xlen = rvt_ing_xlen(in);
        int k = rvt_filter_config_from_tci(&rf, tci, 0, &d);
        if (k < 0) {
            rc = cli_fail("encode", "%s: %s", regs, d.msg);
            goto out;
        }
        for (unsigned h = 0; cli_extra(&o, "funnel") && h < rvt_tci_count(tci, RVT_TCI_ENCODER); h++) {
            uint32_t fsel = 0;
            rvt_tci_comp_read(tci, RVT_TCI_ENCODER, h, 0x00C, &fsel);
            if (fsel) {
                rc = cli_fail("encode", "%s: encoder%u selects filters (trTeInstFilters = 0x%x): per-hart filter "
                                        "registers with --funnel are not supported; use --filter",
                              regs, h, (unsigned)fsel);
                goto out;
            }
        }
        if (k > 0) {
            struct rvt_ing_reader *fr;
            if (filt) {
                rc = cli_fail("encode", "%s selects filters (trTeInstFilters = 0x%x) and filter options were given: "
                                        "give one",
                              regs, (unsigned)rf.inst_filters);
                goto out;
            }
            if (rvt_filter_new(&filt, &rf, &d) < 0 || rvt_filter_reader(&fr, in, filt, RVT_FILTER_MARK, &d) < 0) {
                rc = cli_fail("encode", "%s: filter registers: %s", regs, d.msg);
                goto out;
            }
            in = fr;
        }
        struct rvt_ramsink *rs = rvt_tci_ramsink(tci, 0);
        struct rvt_ramsink_state st0;
        if (rs) {
            rvt_ramsink_state(rs, &st0);
            if (st0.active && st0.enabled) {
                if (sinkspec) {
                    rc = cli_fail("encode", "--sink and a register file enabling a RAM sink: give one");
                    goto out;
                }
                ram = rs; /* owned by the register model */
            }
        }
    }
    struct rvt_sink_spec spec;
    if (!ram && sinkspec && rvt_sink_spec_parse(sinkspec, &spec, &d) < 0) {
        rc = cli_fail("encode", "--sink %s: %s", sinkspec, d.msg);
        goto out;
    }
    /* A wrapping RAM keeps only the newest bytes: the library makes the
     * family synchronise often enough for them to be decodable. */
    uint64_t window = 0;
    if (ram) {
        struct rvt_ramsink_state rs;
        rvt_ramsink_state(ram, &rs);
        window = rs.stop_on_wrap ? 0 : rs.size;
    } else if (sinkspec) {
        window = spec.stop_on_wrap ? 0 : spec.bytes;
    }
    if (window && cli_extra(&o, "atb"))
        window = rvt_atb_payload_bytes(window, ATB_FSYNC_PERIOD);
    struct rvt_wrap_sync ws = {.size = sizeof ws};
    if (window) {
        struct rvt_te_settings ts = {.size = sizeof ts};
        if (tci && rvt_tci_te_settings(tci, 0, &ts, sizeof ts) < 0) {
            rc = cli_fail("encode", "%s: encoder0: %s", regs, rvt_tci_error(tci));
            goto out;
        }
        if (rvt_codec_wrap_sync(o.codec, o.ccfg, window, o.pair_name, o.pair_val, o.npairs, tci ? &ts : NULL, &ws,
                                sizeof ws, &d) < 0) {
            rc = cli_fail("encode", "%s", d.msg);
            goto out;
        }
        if (ws.kind == RVT_WRAP_SYNC_CHOSEN && o.npairs < CLI_MAX_PAIRS) {
            /* every per-hart configuration (--funnel) gets the same period */
            o.pair_name[o.npairs] = ws.option;
            o.pair_val[o.npairs++] = ws.value;
        }
        if (ws.kind != RVT_WRAP_SYNC_GIVEN)
            fprintf(stderr, "rvtrace encode: %s\n", ws.text);
    }
    if ((rc = cli_finish_codec(&o, rvt_ing_xlen(in))))
        goto out;
    struct rvt_filesink fs = {.f = NULL, .name = o.output};
    struct rvt_byte_sink sink;
    if (ram) {
        sink = rvt_ramsink_sink(ram);
    } else if (sinkspec) {
        if (rvt_ramsink_from_spec(&spec, o.codec->idle_byte, &ram, &d) < 0) {
            rc = cli_fail("encode", "--sink %s: %s", sinkspec, d.msg);
            goto out;
        }
        sink = rvt_ramsink_sink(ram);
    } else {
        const char *const inputs[] = {o.input, o.elf};
        if (!(f = rvt_output_file_open(o.output, inputs, 2, &d))) {
            rc = cli_fail("encode", "%s", d.msg);
            goto out;
        }
        fs.f = f;
        sink = rvt_filesink_sink(&fs);
    }
    /* An ATB bridge between the encoder(s) and the sink or file. */
    const char *atbid = cli_extra(&o, "atb");
    if (atbid) {
        uint64_t id;
        if (!cli_parse_u64(atbid, &id) || id < 1 || id > RVT_ATB_ID_MAX) {
            rc = cli_fail("encode", "--atb: expected a trace ID from 1 to %u, got '%s'", RVT_ATB_ID_MAX, atbid);
            goto out;
        }
        struct rvt_atb_writer_config ac = {
            .size = sizeof ac, .out = sink, .fsync_at_start = 1, .fsync_period = ATB_FSYNC_PERIOD};
        if (rvt_atb_writer_new(&ac, &atb, &d) < 0) {
            rc = cli_fail("encode", "--atb: %s", d.msg);
            goto out;
        }
        sink = rvt_atb_writer_input(atb, (unsigned)id);
    }
    struct rvt_codec_stats st;
    double t0 = cli_now();
    if (cli_extra(&o, "funnel")) {
        if (!cli_extra_pair(&o, "src-bits") && !tci) {
            rc = cli_fail("encode", "--funnel needs --src-bits N: the width of the source id each hart's packets carry");
            goto out;
        }
        struct funnel_ctx fc = {&o, rvt_ing_xlen(in), tci};
        /* A register file that brings funnel0 out of reset describes the
         * funnel: it must be enabled, and its disabled inputs drop their
         * hart's trace, as the hardware would. */
        enum { FUNNEL_CONTROL = 0x000, FUNNEL_ACTIVE = 1u << 0, FUNNEL_ENABLE = 1u << 1 }; /* trFunnelControl */
        struct rvt_funnel *regfun = tci ? rvt_tci_funnel(tci, 0) : NULL;
        uint32_t fctl = 0;
        if (regfun)
            rvt_funnel_reg_read(regfun, FUNNEL_CONTROL, &fctl);
        if (regfun && (fctl & FUNNEL_ACTIVE) && !(fctl & FUNNEL_ENABLE)) {
            rc = cli_fail("encode", "%s: funnel0 is active but not enabled (trFunnelControl = 0x%x): no trace would pass",
                          regs, (unsigned)fctl);
            goto out;
        }
        if (regfun && (fctl & FUNNEL_ACTIVE)) {
            rvt_funnel_set_output(regfun, &sink);
            rc = rvt_encode_funnel_via(o.codec, make_hart_cfg, &fc, in, o.img, regfun, &st, NULL, &d);
        } else {
            regfun = NULL;
            /* Per-hart threads need an output that takes every byte: the
             * file, not a RAM sink (or an ATB bridge in front of one). */
            uint64_t fjobs = jobs;
            if (ram || atb)
                fjobs = 1;
            rc = rvt_encode_funnel_jobs(o.codec, make_hart_cfg, &fc, in, o.img, &sink, RVT_FUNNEL_MAX_INPUTS,
                                        (unsigned)fjobs, &st, NULL, &d);
        }
        if (rc < 0) {
            rc = encode_failed(&d, &fs, o.output);
            goto out;
        }
        for (unsigned h = 0; regfun && h < rvt_funnel_n_inputs(regfun); h++) {
            struct rvt_funnel_input_stats fs_h;
            if (rvt_funnel_input_stats(regfun, h, &fs_h) == 0 && fs_h.discarded)
                fprintf(stderr,
                        "rvtrace encode: hart %u: funnel0 input %u is disabled (trFunnelDisInput): %" PRIu64
                        " bytes of its trace discarded\n",
                        h, h, fs_h.discarded);
        }
    } else {
        /* One encoder: --jobs reads the input ahead on a thread of its own
         * (the same records in the same order, so the same bytes), unless
         * it is text already parsed on threads. */
        struct rvt_ing_reader *ra;
        if (jobs > 1 && !split) {
            if (rvt_ing_readahead(&ra, in, &d) < 0) {
                rc = cli_fail("encode", "--jobs: %s", d.msg);
                goto out;
            }
            in = ra;
        }
        if (rvt_encode_stream(o.codec, o.ccfg, in, o.img, &sink, &st, &d) < 0) {
            rc = encode_failed(&d, &fs, o.output);
            goto out;
        }
    }
    double t1 = cli_now();
    char warning[1024];
    if (rvt_codec_stats_warning(&st, warning, sizeof warning) > 0)
        fprintf(stderr, "rvtrace encode: warning: %s\n", warning);
    if (atb && rvt_atb_writer_flush(atb) < 0) {
        rc = cli_fail("encode", "--atb: %s", rvt_atb_writer_error(atb));
        goto out;
    }
    uint64_t produced = st.bytes ? st.bytes : fs.written;
    if (ram) {
        if (rvt_ramsink_save(ram, o.output, &d) < 0) {
            rc = cli_fail("encode", "%s", d.msg);
            goto out;
        }
        /* The same description (and counts) as the sidecar just written
         * and as rvtrace decode gives. */
        struct rvt_sink_info info;
        rvt_ramsink_info(ram, &info);
        char what[512];
        rvt_sink_info_describe(&info, 0, what, sizeof what);
        if (o.verbose || info.wrap || info.dropped)
            fprintf(stderr, "rvtrace encode: %s: %s; %s.sink written\n", o.output, what, o.output);
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
    if (rvt_output_file_close(f) < 0 && !rc)
        rc = cli_fail("encode", "%s: write failed: %s", o.output, strerror(errno));
    rvt_atb_writer_free(atb);
    if (!tci)
        rvt_ramsink_free(ram);
    rvt_tci_free(tci);
    rvt_ing_close(in);
    rvt_filter_free(filt);
    cli_free(&o);
    return rc;
}
