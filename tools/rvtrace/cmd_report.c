/* rvtrace report: analyse a trace (or an ingress stream) and write the HTML
 * report with every export beside it. */
#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void help(const struct rvt_codec *only)
{
    printf("usage: rvtrace report --elf PROG (--format F TRACE | --input IN) [-o DIR] [options]\n\n"
           "Analyse a trace decoded with family F, or an ingress stream as captured (the ground truth a\n"
           "trace is compared with), and write into DIR (default: report):\n"
           "  report.html     summary, hot functions, flame graph, per-hart timeline, call tree,\n"
           "                  annotated source and disassembly, traps and gaps, coverage (offline)\n"
           "  profile.txt     flat profile per function, source line and address; the call graph\n"
           "  calltree.txt    the call tree with inclusive and exclusive instruction counts\n"
           "  coverage.txt    functions, instructions, lines and branch directions executed\n"
           "  coverage.lcov   lcov tracefile for genhtml (needs DWARF line tables)\n"
           "  stacks.folded   folded stacks: flamegraph.pl stacks.folded > flame.svg\n"
           "  callgrind.out   callgrind_annotate callgrind.out, or KCachegrind\n"
           "  trace.json      Chrome/Perfetto trace events: ui.perfetto.dev or chrome://tracing\n\n"
           "A funnelled trace (--src-bits B) is decoded once per source id, one hart each; --hart N\n"
           "takes one (source id N of a trace, the records of hart N of an ingress stream).\n\n"
           "  --dwarf FILE          source lines from FILE (default: the ELF's own DWARF, if any)\n"
           "  --source-dir DIR      where the source files are (report, lcov, callgrind)\n"
           "  --title TEXT          the report's title\n"
           "  --wp, --wrap, --sink-start, --atb, --max-instructions   as for decode\n"
           "  -q, --quiet           no progress line (shown on a terminal only)\n"
           "exit status (as decode's): 0 all of it analysed; 1 the decode reported damage (the report\n"
           "says where); 2 usage or I/O error; 3 no instruction.\n\n");
    cli_help_common(stdout, CLI_FORMAT | CLI_ELF | CLI_INPUT | CLI_OUTPUT | CLI_TRACE | CLI_ECALL | CLI_XLEN, only);
}

static bool has_format(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--format") == 0 || strncmp(argv[i], "--format=", 9) == 0)
            return true;
    return false;
}

static const char *base(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* Decode `len` bytes with configuration cfg into hart h of the analysis. */
static int decode_one(struct cli_opts *o, const void *cfg, const uint8_t *buf, size_t len, struct rvt_analysis *an,
                      unsigned h, bool progress)
{
    struct rvt_flow_sink sink = rvt_an_sink(an, h);
    struct rvt_progress *p = NULL;
    if (progress && (p = cli_progress(o, "report: decode", len, &sink)))
        sink = rvt_progress_sink(p);
    struct rvt_diag d = {0};
    uint64_t max_insns = 0;
    if (cli_max_insns(o, &max_insns)) {
        rvt_progress_free(p);
        return CLI_EXIT_USAGE;
    }
    struct rvt_decode_options dopt = {.size = sizeof dopt, .ecall = o->ecall, .max_insns = max_insns};
    int rc = rvt_decode(o->codec, cfg, o->img, &dopt, buf, len, &sink, &d);
    if (p) {
        rvt_progress_done(p);
        rvt_progress_free(p);
    }
    if (rc < 0)
        return cli_fail("report", "%s: %s%s%s", o->trace, d.msg, rvt_an_error(an)[0] ? ": " : "",
                        rvt_an_error(an));
    return 0;
}

static int from_trace(struct cli_opts *o, struct rvt_analysis *an, bool progress)
{
    struct rvt_sink_image sim = {0};
    int rc = cli_load_trace(o, o->trace, &sim);
    if (rc)
        return rc;
    uint8_t *buf = sim.data;
    size_t len = sim.len;
    sim.data = NULL;
    rvt_sink_image_free(&sim);
    if (cli_extra(o, "atb") && (rc = cli_atb_extract(o, cli_extra(o, "atb"), &buf, &len))) {
        free(buf);
        return rc;
    }
    const unsigned xlen = rvt_img_xlen(o->img);
    const char *hart = cli_extra(o, "hart"), *bits = cli_extra_pair(o, "src-bits");
    uint64_t h = 0, b = 0;
    if (hart && !cli_parse_u64(hart, &h)) {
        free(buf);
        return cli_fail("report", "--hart: expected a hart number, got '%s'", hart);
    }
    if (bits && !cli_parse_u64(bits, &b))
        b = 0;
    bool src_id = false; /* families without source ids: --hart only names the hart */
    for (const struct rvt_codec_opt *op = o->codec->options; op && op->name; op++)
        src_id |= strcmp(op->name, "src-id") == 0;
    if ((hart || b) && src_id) {
        /* A funnelled trace: each source id is one hart. */
        uint64_t lo = hart ? h : 0, hi = hart ? h + 1 : (b >= 6 ? RVT_AN_MAX_HARTS : 1ull << b);
        for (uint64_t id = lo; id < hi && rc == 0; id++) {
            if (id >= RVT_AN_MAX_HARTS) {
                rc = cli_fail("report", "--hart %" PRIu64 ": at most %d harts are analysed", id, RVT_AN_MAX_HARTS);
                break;
            }
            char v[24];
            snprintf(v, sizeof v, "%" PRIu64, id);
            struct rvt_diag d = {0};
            void *cfg = cli_codec_cfg(o, "src-id", v, xlen, &d);
            if (!cfg) {
                rc = cli_fail("report", "hart %s: %s", v, d.msg);
                break;
            }
            rc = decode_one(o, cfg, buf, len, an, (unsigned)id, progress);
            rvt_codec_cfg_free(cfg);
        }
    } else if (h >= RVT_AN_MAX_HARTS) {
        rc = cli_fail("report", "--hart %" PRIu64 ": at most %d harts are analysed", h, RVT_AN_MAX_HARTS);
    } else if ((rc = cli_finish_codec(o, xlen)) == 0) {
        rc = decode_one(o, o->ccfg, buf, len, an, (unsigned)h, progress);
    }
    free(buf);
    return rc;
}

static int from_ingress(struct cli_opts *o, struct rvt_analysis *an, bool progress)
{
    struct rvt_ing_reader *in = NULL;
    int rc = cli_open_input(o, &in);
    if (rc)
        return rc;
    struct rvt_progress *p = progress ? cli_progress(o, "report: ingress", 0, NULL) : NULL;
    struct rvt_diag d = {0};
    enum rvt_flow_ecall ecall = o->ecall == RVT_FLOW_ECALL_TRAP ? RVT_FLOW_ECALL_TRAP : RVT_FLOW_ECALL_SEQUENTIAL;
    if (rvt_an_ingress(an, in, ecall, p, &d) < 0)
        rc = cli_fail("report", "%s: %s", o->input, d.msg);
    if (p) {
        rvt_progress_done(p);
        rvt_progress_free(p);
    }
    rvt_ing_close(in);
    return rc;
}

struct out_file {
    const char *name;
    enum rvt_an_format fmt;
    const char *label;
};

static const struct out_file g_files[] = {
    {"report.html", RVT_AN_FMT_HTML, "this report"},
    {"profile.txt", RVT_AN_FMT_PROFILE, "flat profile per function, line and address; call graph"},
    {"calltree.txt", RVT_AN_FMT_CALLTREE, "call tree, every frame"},
    {"coverage.txt", RVT_AN_FMT_COVERAGE, "coverage per function"},
    {"coverage.lcov", RVT_AN_FMT_LCOV, "lcov tracefile: genhtml coverage.lcov -o html"},
    {"stacks.folded", RVT_AN_FMT_FOLDED, "folded stacks: flamegraph.pl stacks.folded > flame.svg"},
    {"callgrind.out", RVT_AN_FMT_CALLGRIND, "callgrind profile: callgrind_annotate callgrind.out, KCachegrind"},
    {"trace.json", RVT_AN_FMT_CHROME, "trace events: ui.perfetto.dev, chrome://tracing"},
};
#define NFILES (sizeof g_files / sizeof g_files[0])

static int write_all(struct cli_opts *o, struct rvt_analysis *an, const char *dir, const struct rvt_an_write_opts *wo,
                     bool have_lines)
{
    const char *links[2 * NFILES + 1];
    size_t nl = 0;
    for (size_t i = 1; i < NFILES; i++)
        if (g_files[i].fmt != RVT_AN_FMT_LCOV || have_lines) {
            links[nl++] = g_files[i].name;
            links[nl++] = g_files[i].label;
        }
    links[nl] = NULL;
    struct rvt_an_write_opts w = *wo;
    w.links = links;
    char path[4096];
    for (size_t i = 0; i < NFILES; i++) {
        if (g_files[i].fmt == RVT_AN_FMT_LCOV && !have_lines)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, g_files[i].name);
        FILE *f = fopen(path, "w");
        if (!f)
            return cli_fail("report", "%s: cannot create: %s", path, strerror(errno));
        int rc = rvt_an_write(an, g_files[i].fmt, f, &w);
        if (fclose(f) != 0 && rc == 0)
            rc = -RVT_ERR_IO;
        if (rc < 0)
            return cli_fail("report", "%s: %s", path, rvt_an_error(an)[0] ? rvt_an_error(an) : rvt_errstr(rc));
    }
    (void)o;
    return 0;
}

int cmd_report(int argc, char **argv)
{
    static const char *const extra[] = {"hart", "title", "wp",  "wrap", "sink-start", "atb", CLI_MAX_INSNS_OPT,
                                        CLI_ANALYSIS_EXTRAS, NULL};
    const bool trace = has_format(argc, argv);
    const unsigned allowed = CLI_ELF | CLI_OUTPUT | CLI_ECALL | CLI_XLEN | (trace ? CLI_FORMAT | CLI_TRACE : CLI_INPUT);
    struct cli_opts o;
    int rc = cli_parse(&o, "report", allowed, extra, argc, argv);
    if (rc || o.help) {
        if (o.help)
            help(o.codec);
        cli_free(&o);
        return rc;
    }
    struct rvt_srclines *lines = NULL;
    struct rvt_analysis *an = NULL;
    const char *dir = o.output ? o.output : "report";
    if (!CLI_HAS_IMAGE(&o)) {
        cli_fail("report", "--elf PROG is required (function names, code for the coverage)");
        rc = CLI_EXIT_USAGE;
        goto out;
    }
    if (trace ? !o.trace : !o.input) {
        cli_fail("report", trace ? "no TRACE file given" : "give --format F TRACE, or --input IN");
        rc = CLI_EXIT_USAGE;
        goto out;
    }
    if (cli_load_image(&o) || cli_load_lines(&o, false, &lines)) {
        rc = CLI_EXIT_USAGE;
        goto out;
    }
    struct rvt_an_config ac = {.size = sizeof ac, .image = o.img, .lines = lines};
    an = rvt_an_new(&ac);
    if (!an) {
        rc = cli_fail("report", "out of memory");
        goto out;
    }
    const bool progress = cli_progress_wanted(&o);
    if ((rc = trace ? from_trace(&o, an, progress) : from_ingress(&o, an, progress))) {
        rc = rc == 1 ? CLI_EXIT_USAGE : rc; /* unreadable input, bad options */
        goto out;
    }
    if (rvt_an_finish(an) < 0) {
        rc = cli_fail("report", "%s", rvt_an_error(an));
        goto out;
    }
    if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
        cli_fail("report", "%s: cannot create the directory: %s", dir, strerror(errno));
        rc = CLI_EXIT_USAGE;
        goto out;
    }
    /* The header says what was analysed and how. */
    char title[512], n1[1200], n2[1200], n3[2048];
    const char *in = trace ? o.trace : o.input;
    snprintf(title, sizeof title, "%s", cli_extra(&o, "title") ? cli_extra(&o, "title") : base(o.elf ? o.elf : in));
    const char *prog = o.elf ? o.elf : o.maps ? o.maps : "(raw code)";
    snprintf(n1, sizeof n1, "program: %s%s%s", prog, lines ? "; source lines from " : "",
             lines ? (cli_extra(&o, "dwarf") ? cli_extra(&o, "dwarf") : o.elf) : "");
    if (trace)
        snprintf(n2, sizeof n2, "trace: %s, decoded as %s", o.trace, o.codec->name);
    else
        snprintf(n2, sizeof n2, "ingress: %s (every retired instruction as captured)", o.input);
    size_t k = (size_t)snprintf(n3, sizeof n3, "command: rvtrace");
    for (int i = 0; i < argc && k < sizeof n3; i++)
        k += (size_t)snprintf(n3 + k, sizeof n3 - k, " %s", argv[i]);
    const char *notes[] = {n1, n2, n3, NULL};
    struct rvt_an_write_opts wo = {.size = sizeof wo,
                                   .hart = -1,
                                   .title = title,
                                   .source_dir = cli_extra(&o, "source-dir"),
                                   .notes = notes};
    if (write_all(&o, an, dir, &wo, lines != NULL)) {
        rc = CLI_EXIT_USAGE;
        goto out;
    }
    struct rvt_an_summary s;
    rvt_an_summary(an, -1, &s, sizeof s);
    unsigned harts[RVT_AN_MAX_HARTS];
    unsigned nh = rvt_an_harts(an, harts, RVT_AN_MAX_HARTS);
    printf("%s/report.html: %" PRIu64 " instructions, %u hart%s, %" PRIu64 " calls, %" PRIu64 " traps, %" PRIu64
           " gaps, %" PRIu64 " errors; functions %" PRIu64 "/%" PRIu64 " executed\n",
           dir, s.insns, nh, nh == 1 ? "" : "s", s.calls, s.traps, s.gaps, s.errors, s.funcs_hit, s.funcs_total);
    printf("  also in %s/: profile.txt calltree.txt coverage.txt%s stacks.folded callgrind.out trace.json\n", dir,
           lines ? " coverage.lcov" : "");
    if (!lines)
        printf("  (no DWARF line tables: no per-line views and no coverage.lcov; --dwarf FILE gives them)\n");
    if (s.errors || s.gaps) {
        fprintf(stderr, "rvtrace report: %s: %" PRIu64 " decode error(s), %" PRIu64 " gap(s); the report shows where\n",
                in, s.errors, s.gaps);
        rc = 1;
    }
    if (s.insns == 0) {
        fprintf(stderr, "rvtrace report: %s: no instructions (no synchronisation point found?)\n", in);
        rc = 3;
    }
out:
    rvt_an_free(an);
    rvt_srclines_free(lines);
    cli_free(&o);
    return rc;
}
