/* rvtrace decode: trace bytes + ELF -> PCs, listing, blocks or counts.
 * The exit status follows the decoder contract (docs/decoding.md): 0 a
 * whole decode, 1 decoded with damage, 2 usage or I/O error, 3 nothing
 * decodable.  The library classifies; this file prints and exits. */
#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void help(const struct rvt_codec *only)
{
    printf("usage: rvtrace decode --format F [--elf PROG] TRACE [--output KIND] [-o FILE] [options]\n\n"
           "Decode trace bytes back to the executed instructions.  The decode starts at the first\n"
           "synchronisation point; a damaged message is reported (byte offset, what was wrong) and the\n"
           "decoder resynchronises at the next one.  Without --elf only traces that record every target\n"
           "(cdl, dbg with PCs) decode; give --xlen 32 for RV32 then.\n\n"
           "exit status: 0 the whole trace decoded; 1 decoded with damage (errors, lost trace, an\n"
           "unexpected end, the instruction limit): stdout holds what could be decoded; 2 usage or I/O\n"
           "error; 3 nothing decodable (empty trace, no synchronisation point, no instruction or data).\n"
           "On a terminal the first %d damage reports are printed, otherwise the first %d; -v prints all.\n\n",
           CLI_DIAG_TTY, CLI_DIAG_PIPE);
    printf("  --wp ADDR             the trace RAM's write pointer (trRamWP, without the wrap bit), for a raw\n"
           "                        dump without a .sink description\n"
           "  --hart N              decode hart N of a funnelled trace (its source id; same --src-bits as encode)\n"
           "  --atb ID              the trace is in CoreSight formatter frames: decode the bytes of trace ID ID\n"
           "  --regs FILE           the register-setting file the trace was made with: configures the decoder\n"
           "                        like encoder 0 (or encoder N with --hart N)\n"
           "  --segment K|A..B      decode segment K of `rvtrace segments` (same --min-bytes), or the\n"
           "                        segments from byte A to byte B: the instructions from its sync point to\n"
           "                        the next segment's; the outputs of all segments joined in order are the\n"
           "                        whole decode's (docs/parallel.md)\n"
           "  --jobs N              N threads (0: one per core; 1: none, the default; at most one per core\n"
           "                        the process may run on): N-Trace and E-Trace traces with periodic sync are\n"
           "                        decoded in pieces, and the output is formatted on them; the output is the\n"
           "                        same byte for byte (docs/parallel.md)\n"
           "  --wrap 0|1            the RAM's wrap flag (trRamWP bit 0)\n"
           "  --sink-start ADDR     trRamStart of the dump (default 0)\n"
           "  --dwarf FILE          source lines from FILE (default: the ELF's own DWARF, if any)\n"
           "  --source-dir DIR      where source files are (lcov, callgrind)\n"
           "  -q, --quiet           no progress line (shown on a terminal only)\n");
    fputs(CLI_MAX_INSNS_HELP, stdout);
    printf("A TRACE written through --sink has a TRACE.sink description beside it; the decode then\n"
           "starts at the oldest surviving byte and reports how much was lost to wrapping.\n\n");
    cli_help_common(stdout, CLI_FORMAT | CLI_ELF | CLI_OUTPUT | CLI_TRACE | CLI_OUTKIND | CLI_ECALL | CLI_XLEN, only);
}

/* "try --format etrace" / "try --framing refraw" */
static void print_hint(const struct cli_opts *o, const struct rvt_probe_result *p)
{
    char opt[96] = "";
    if (p->option) {
        const char *eq = strchr(p->option, '=');
        int n = eq ? (int)(eq - p->option) : (int)strlen(p->option);
        snprintf(opt, sizeof opt, " --%.*s%s%s", n, p->option, eq ? " " : "", eq ? eq + 1 : "");
    }
    char as[160];
    if (p->codec == o->codec)
        snprintf(as, sizeof as, "with%s they decode", opt);
    else
        snprintf(as, sizeof as, "as %s%s they decode", p->codec->name, opt);
    fprintf(stderr,
            "rvtrace decode: %s: hint: no valid %s trace in the first %zu bytes (%" PRIu64 " instructions, %" PRIu64
            " errors); %s to %" PRIu64 " instructions without an error: try%s%s%s\n",
            o->trace, o->codec->name, p->bytes, p->cur_insns, p->cur_errors, as, p->insns,
            p->codec != o->codec ? " --format " : "", p->codec != o->codec ? p->codec->name : "", opt);
}

/* A threaded decode's progress: where it is, for the output's threads
 * (rvt_out_jobs_progress: they start only if enough is left), and the
 * mapped trace's pages behind it given back, a MiB at a time. */
struct decode_progress {
    struct rvt_out_jobs *jobs;
    struct rvt_trace_file *tf;
    uint64_t release_at;
};
enum { PROGRESS_STEP = 256, RELEASE_EVERY = 1 << 20 };

static void on_progress(void *ctx, uint64_t offset)
{
    struct decode_progress *p = ctx;
    if (p->jobs)
        rvt_out_jobs_progress(p->jobs, offset);
    if (p->tf && offset >= p->release_at) {
        rvt_trace_file_done_before(p->tf, offset);
        p->release_at = offset + RELEASE_EVERY;
    }
}

int cmd_decode(int argc, char **argv)
{
    static const char *const extra[] = {"wp",         "wrap", "sink-start",      "hart",    "regs",      "segment",
                                        "sram-bytes", "atb",  CLI_MAX_INSNS_OPT, "min-bytes", "jobs", CLI_ANALYSIS_EXTRAS, NULL};
    struct cli_opts o;
    const unsigned allowed = CLI_FORMAT | CLI_ELF | CLI_OUTPUT | CLI_TRACE | CLI_OUTKIND | CLI_ECALL | CLI_XLEN;
    int rc = cli_parse(&o, "decode", allowed, extra, argc, argv);
    if (rc || o.help) {
        if (o.help)
            help(o.codec);
        cli_free(&o);
        return rc;
    }
    /* Until the decode runs, every failure is a usage or I/O error. */
    const int usage = CLI_EXIT_USAGE;
    uint8_t *buf = NULL;
    size_t len = 0;
    FILE *f = NULL;
    struct rvt_output *out = NULL;
    struct rvt_sink_image sim = {0};
    struct rvt_trace_file *tf = NULL; /* a plain trace file, mapped */
    const uint8_t *data = NULL;
    uint64_t max_insns = 0;
    struct rvt_srclines *lines = NULL;
    struct rvt_progress *prog = NULL;
    struct rvt_out_jobs *jobs = NULL;
    uint64_t njobs = 1;
    const char *js = cli_extra(&o, "jobs");
    if (js && (!cli_parse_u64(js, &njobs) || njobs > 64)) {
        cli_fail("decode", "--jobs: expected a number of threads (0: one per core, at most 64), got '%s'", js);
        rc = CLI_EXIT_USAGE;
        goto done;
    }
    /* Threads: at most one per core this process may use.  More only
     * compete for the cores: on 2 cores a listing at --jobs 4 took 2.2
     * times as long as at --jobs 2, longer than one thread (bench/RESULTS.md,
     * "More threads than cores").  RVT_JOBS_OVERSUBSCRIBE=1 keeps N (the
     * tests run 4 threads on 2 cores, for the decode in pieces). */
    const unsigned cores = rvt_jobs_default();
    unsigned threads = njobs == 0 ? cores : (unsigned)njobs;
    if (threads > cores && !getenv("RVT_JOBS_OVERSUBSCRIBE"))
        threads = cores;
    if (!o.trace) {
        cli_fail("decode", "no TRACE file given");
        rc = usage;
        goto done;
    }
    if (cli_max_insns(&o, &max_insns) || cli_load_image(&o)) {
        rc = usage;
        goto done;
    }
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
            cli_fail("decode", "--hart: expected a hart number, got '%s'", hart);
            rc = usage;
            goto done;
        }
        struct rvt_diag rd = {0};
        if ((rc = cli_regs_load(&o, regs, &tci)) == 0 && cli_regs_apply(&o, tci, (unsigned)h, o.ccfg, &rd) < 0)
            rc = cli_fail("decode", "%s: %s", regs, rd.msg);
        rvt_tci_free(tci);
        if (rc) {
            rc = usage;
            goto done;
        }
    } else if (hart) {
        struct rvt_diag hd = {0};
        uint64_t h;
        if (!cli_parse_u64(hart, &h) || o.codec->cfg_set(o.ccfg, "src-id", hart, &hd) < 0) {
            cli_fail("decode", "--hart %s: %s", hart, hd.msg[0] ? hd.msg : "expected a hart number");
            rc = usage;
            goto done;
        }
    }
    if (cli_finish_codec(&o, rvt_img_xlen(o.img))) {
        rc = usage;
        goto done;
    }
    struct rvt_diag d = {0};
    if (cli_plain_trace(&o, o.trace)) {
        /* Mapped, and given back behind the decode: memory stays flat
         * whatever the file's size. */
        if (rvt_trace_file_open(&tf, o.trace, &d) < 0) {
            cli_fail("decode", "%s", d.msg);
            rc = usage;
            goto done;
        }
        data = rvt_trace_file_data(tf);
        len = rvt_trace_file_size(tf);
    } else {
        if (cli_load_trace(&o, o.trace, &sim) || cli_stream_offset(&o, &sim)) {
            rc = usage;
            goto done;
        }
        buf = sim.data;
        len = sim.len;
        sim.data = NULL;
        if (cli_extra(&o, "atb") && cli_atb_extract(&o, cli_extra(&o, "atb"), &buf, &len)) {
            rc = usage;
            goto done;
        }
        data = buf;
    }
    /* One segment (docs/parallel.md): stderr says which bytes it covers. */
    struct rvt_trace_segment seg;
    const char *segspec = cli_extra(&o, "segment");
    if (segspec) {
        if (!tf) {
            /* (`rvtrace segments` reads the file's own bytes.) */
            cli_fail("decode", "--segment: %s: segments are byte ranges of a plain trace file, not of a RAM image "
                               "(.sink, --wp, --wrap) or ATB frames (--atb)", o.trace);
            rc = usage;
            goto done;
        }
        if (cli_segment_select(&o, data, len, segspec, &seg)) {
            rc = usage;
            goto done;
        }
        char at[48] = "";
        if (seg.sync.has_addr)
            snprintf(at, sizeof at, ", address 0x%" PRIx64, seg.sync.addr);
        fprintf(stderr, "rvtrace decode: %s: segment %s: bytes %" PRIu64 "..%" PRIu64 " of %zu, from the %s at %" PRIu64 "%s\n",
                o.trace, segspec, seg.offset, seg.end, len, seg.sync.unit ? seg.sync.unit : "trace's start (no sync point found)", seg.sync.offset, at);
    }
    const char *const inputs[] = {o.trace, o.elf, cli_extra(&o, "dwarf")};
    f = rvt_output_file_open(o.output ? o.output : "-", inputs, 3, &d);
    if (!f) {
        cli_fail("decode", "%s", d.msg);
        rc = usage;
        goto done;
    }
    uint64_t hart_no = 0;
    if (hart)
        cli_parse_u64(hart, &hart_no);
    if ((o.out_kind == RVT_OUT_INSN || rvt_out_kind_is_analysis(o.out_kind)) &&
        cli_load_lines(&o, o.out_kind == RVT_OUT_LCOV, &lines)) {
        rc = usage;
        goto done;
    }
    struct rvt_out_config oc = {.size = sizeof oc,
                                .kind = o.out_kind < 0 ? RVT_OUT_PCS : (enum rvt_out_kind)o.out_kind,
                                .f = f,
                                .image = o.img,
                                .xlen = rvt_img_xlen(o.img),
                                .diag = stderr,
                                .diag_max = cli_diag_max(&o),
                                .lines = lines,
                                .source_dir = cli_extra(&o, "source-dir"),
                                .hart = (unsigned)hart_no};
    out = rvt_out_new(&oc);
    if (!out) {
        rc = cli_fail("decode", "out of memory");
        goto done;
    }
    struct rvt_flow_sink sink = rvt_out_sink(out);
    if (njobs != 1) {
        if (!(jobs = rvt_out_jobs_new(out, threads))) {
            rc = cli_fail("decode", "out of memory (--jobs %s)", js);
            goto done;
        }
        sink = rvt_out_jobs_sink(jobs);
    }
    if ((prog = cli_progress(&o, "decode", len, &sink)))
        sink = rvt_progress_sink(prog);
    /* Only a wrapped RAM that lost older bytes starts mid-trace: anywhere
     * else bytes before the first sync point are damage. */
    struct rvt_decode_options dopt = {.size = sizeof dopt,
                                      .ecall = o.ecall,
                                      .max_insns = max_insns,
                                      .starts_at_trace_start = !sim.wrapped || (sim.lost_known && sim.lost == 0)};
    double t0 = cli_now();
    /* An empty trace is reported the same way whatever the family.  With
     * --jobs the decode itself runs on threads too (docs/parallel.md);
     * pages of a mapped file behind it are given back as it goes. */
    struct rvt_jobs_stats jst = {0};
    /* Threads for the decode itself: all of them for a count (the decode is
     * all its work).  The decode's pieces cost a recording and its replay
     * on the calling thread (about 100 host instructions a block): pcs,
     * insn and blocks, which spread their output over threads, take half
     * the threads from 4 on; the analysis kinds and jsonl, whose output
     * stays on the calling thread, none (2 threads in pieces: a profile
     * took 194 ms against 160 serially; docs/parallel.md, measured). */
    unsigned dthreads = threads;
    if (oc.kind == RVT_OUT_PCS || oc.kind == RVT_OUT_INSN || oc.kind == RVT_OUT_BLOCKS)
        dthreads = dthreads >= 4 ? dthreads / 2 : 1;
    else if (oc.kind != RVT_OUT_COUNT)
        dthreads = 1;
    struct decode_progress dprog = {.jobs = segspec ? NULL : jobs, .tf = tf};
    if (njobs != 1 && (dprog.jobs || tf)) {
        dopt.progress = on_progress;
        dopt.progress_ctx = &dprog;
        dopt.progress_every = dprog.jobs ? PROGRESS_STEP : RELEASE_EVERY;
    }
    if (dprog.jobs)
        rvt_out_jobs_expect(jobs, len, max_insns);
    int drc = !len              ? 0
              : segspec          ? rvt_decode_segment(o.codec, o.ccfg, o.img, &dopt, data, len, &seg, &sink, &d)
              : njobs != 1       ? rvt_decode_jobs(o.codec, o.ccfg, o.img, &dopt, data, len, dthreads, &sink, &jst, &d)
              : tf               ? rvt_decode_file(o.codec, o.ccfg, o.img, &dopt, tf, &sink, &d)
                                 : rvt_decode(o.codec, o.ccfg, o.img, &dopt, buf, len, &sink, &d);
    if (njobs != 1 && getenv("RVT_JOBS_STATS")) /* (for the tests: not part of the serial output) */
        fprintf(stderr,
                "rvtrace decode: --jobs: %u threads for the decode, %" PRIu64 " segments, %" PRIu64 " joined, %" PRIu64
                " decoded again\n",
                dthreads, jst.segments, jst.joined, jst.redone);
    double t1 = cli_now();
    if (prog)
        rvt_progress_done(prog);
    if (jobs) {
        rvt_out_jobs_finish(jobs); /* (its errors are the output's) */
        if (getenv("RVT_JOBS_STATS")) {
            struct rvt_out_jobs_stats ost;
            rvt_out_jobs_stats(jobs, &ost);
            fprintf(stderr,
                    "rvtrace decode: --jobs: %u output threads started, %" PRIu64 " batches, %" PRIu64
                    " evicted, %" PRIu64 " probes, %" PRIu64 " won by evicting, %" PRIu64 " written directly, %" PRIu64
                    " written by workers, %" PRIu64 " written while formatted, %" PRIu64 " written in place\n",
                    rvt_out_jobs_launched(jobs), ost.batches, ost.evicted, ost.probes, ost.probes_won_by_evicting,
                    ost.written_directly, ost.written_by_workers, ost.written_while_formatted, ost.written_in_place);
        }
    }
    int frc = rvt_out_finish(out);
    if (frc < 0) {
        /* Other failures (a view that needs the ELF or source lines) said
         * why on stderr already. */
        if (frc == -RVT_ERR_IO)
            cli_fail("decode", "%s: write failed: %s", o.output ? o.output : "stdout", strerror(errno));
        rc = usage;
        goto done;
    }
    rc = cli_report_decode(&o, out, &d, drc, data, len, t1 - t0);
done:
    rvt_progress_free(prog);
    rvt_out_jobs_free(jobs);
    rvt_out_free(out);
    rvt_srclines_free(lines);
    if (rvt_output_file_close(f) < 0 && rc == 0)
        rc = cli_fail("decode", "%s: write failed: %s", o.output ? o.output : "stdout", strerror(errno));
    free(buf);
    rvt_trace_file_close(tf);
    rvt_sink_image_free(&sim);
    cli_free(&o);
    return rc;
}

int cli_report_decode(struct cli_opts *o, struct rvt_output *out, const struct rvt_diag *d, int drc, const uint8_t *buf,
                      size_t len, double secs)
{
    const struct rvt_out_stats *st = rvt_out_stats(out);
    const char *cmd = o->cmd, *name = o->trace;
    enum rvt_decode_status status = rvt_out_status(st);
    if (drc < 0 && status == RVT_DECODE_WHOLE)
        status = RVT_DECODE_DAMAGED; /* the decoder gave up (strict mode, or could not go on) */
    if (o->verbose)
        fprintf(stderr,
                "%s: %zu bytes -> %" PRIu64 " instructions in %" PRIu64 " blocks, %" PRIu64 " syncs, %" PRIu64
                " errors, %" PRIu64 " gaps, %.1f M instructions/s\n",
                name, len, st->insns, st->blocks, st->syncs, st->errors, st->gaps,
                (double)st->insns / (secs > 0 ? secs : 1e-9) / 1e6);
    if (rvt_out_diag_suppressed(out))
        fprintf(stderr,
                "rvtrace %s: %s: %" PRIu64 " more damage reports not shown (-v prints every one; --output "
                "blocks lists them in place)\n",
                cmd, name, rvt_out_diag_suppressed(out));
    char what[700], first[1600];
    rvt_out_describe(st, what, sizeof what);
    cli_printable(rvt_out_first_damage(out), first, sizeof first);
    bool nosync = drc < 0 && d->code == RVT_ERR_NOSYNC;
    char msg[sizeof d->msg * 4];
    cli_printable(d->msg, msg, sizeof msg);
    if (drc < 0 && !nosync)
        fprintf(stderr, "rvtrace %s: %s: the decode stopped: %s\n", cmd, name, msg);
    switch (status) {
    case RVT_DECODE_WHOLE:
        if (what[0])
            fprintf(stderr, "rvtrace %s: %s: %s\n", cmd, name, what);
        return 0;
    case RVT_DECODE_DAMAGED:
        if (st->insns || !st->data)
            fprintf(stderr, "rvtrace %s: %s: %s%sthe output holds the %" PRIu64 " instructions decoded\n", cmd, name,
                    what, what[0] ? "; " : "", st->insns);
        else /* (a trace of data alone) */
            fprintf(stderr, "rvtrace %s: %s: %s%sthe output holds the %" PRIu64 " data items decoded\n", cmd, name,
                    what, what[0] ? "; " : "", st->data);
        if (st->by_reason[RVT_GAP_LIMIT])
            fprintf(stderr,
                    "rvtrace %s: %s: raise the limit (%s) with --max-instructions N, or --max-instructions "
                    "unlimited\n",
                    cmd, name, cli_extra(o, CLI_MAX_INSNS_OPT) ? "given" : "16 Mi + 4096 per trace byte by default");
        break;
    case RVT_DECODE_NOTHING:
        if (len == 0)
            fprintf(stderr, "rvtrace %s: %s: the trace is empty (0 bytes): nothing to decode\n", cmd, name);
        else if (st->syncs == 0 || nosync)
            fprintf(stderr, "rvtrace %s: %s: no synchronisation point found in the %zu bytes searched%s%s%s; %s\n", cmd,
                    name, len, what[0] || nosync ? " (" : "", nosync ? msg : what, what[0] || nosync ? ")" : "",
                    o->codec->sync_hint ? o->codec->sync_hint : "the encoder must emit synchronisation points");
        else
            fprintf(stderr, "rvtrace %s: %s: %" PRIu64 " synchronisation point%s but no instruction decoded: %s%s\n",
                    cmd, name, st->syncs, st->syncs == 1 ? "" : "s",
                    first[0] ? first : "the trace holds no retired instruction",
                    /* Messages that parse but disagree with the code: a
                     * sync point, then an error, again and again. */
                    o->elf && st->errors && st->errors <= 2 * st->syncs
                        ? " (is --elf the program the trace was recorded from?)"
                        : "");
        break;
    }
    /* Errors from the start, or nothing at all: is it another family or
     * framing? */
    bool early = status == RVT_DECODE_NOTHING ||
                 (st->by_reason[RVT_GAP_ERROR] && st->first_offset[RVT_GAP_ERROR] < RVT_PROBE_BYTES);
    struct rvt_probe_result pr;
    struct rvt_diag pd = {0};
    if (early && len && rvt_decode_probe(o->codec, o->ccfg, o->img, o->ecall, buf, len, &pr, &pd) > 0)
        print_hint(o, &pr);
    return (int)status;
}
