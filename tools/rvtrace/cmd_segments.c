/* rvtrace segments: the synchronisation points of a trace as byte ranges
 * that decode independently (docs/parallel.md); `decode --segment` decodes
 * one.  The family finds the points (rvt_segments); this file prints. */
#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20 || ch >= 0x7f)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

int cli_segment_select(struct cli_opts *o, const uint8_t *buf, size_t len, const char *spec,
                       struct rvt_trace_segment *out)
{
    struct rvt_diag d = {0};
    const char *dots = strstr(spec, "..");
    if (dots) {
        /* OFFSET..END: only those two places are read. */
        char a[32] = "";
        uint64_t from = 0, to = 0;
        size_t al = (size_t)(dots - spec);
        if (al < sizeof a) {
            memcpy(a, spec, al);
            a[al] = 0;
        }
        if (al >= sizeof a || !cli_parse_u64(a, &from) || !cli_parse_u64(dots + 2, &to) || from >= to) {
            cli_fail(o->cmd, "--segment: expected OFFSET..END with OFFSET < END, got '%s'", spec);
            return CLI_EXIT_USAGE;
        }
        if (rvt_segment_range(o->codec, o->ccfg, buf, len, from, to, out, &d) < 0) {
            cli_fail(o->cmd, "--segment %s: %s: %s (rvtrace segments lists them)", spec, o->trace, d.msg);
            return CLI_EXIT_USAGE;
        }
        return 0;
    }
    uint64_t min = 0, k;
    const char *mb = cli_extra(o, "min-bytes");
    if (mb && !cli_parse_u64(mb, &min)) {
        cli_fail(o->cmd, "--min-bytes: expected a number of bytes, got '%s'", mb);
        return CLI_EXIT_USAGE;
    }
    if (!cli_parse_u64(spec, &k)) {
        cli_fail(o->cmd, "--segment: expected K (a segment number) or OFFSET..END, got '%s'", spec);
        return CLI_EXIT_USAGE;
    }
    struct rvt_trace_segment *seg = NULL;
    size_t n = 0;
    if (rvt_segments(o->codec, o->ccfg, buf, len, min, &seg, &n, &d) < 0) {
        cli_fail(o->cmd, "%s: %s", o->trace, d.msg);
        return CLI_EXIT_USAGE;
    }
    int rc = 0;
    if (k >= n)
        rc = cli_fail(o->cmd, "--segment %" PRIu64 ": %s has %zu segment%s (rvtrace segments lists them)", k, o->trace,
                      n, n == 1 ? "" : "s");
    else
        *out = seg[k];
    free(seg);
    return rc ? CLI_EXIT_USAGE : 0;
}

int cmd_segments(int argc, char **argv)
{
    static const char *const extra[] = {"json!", "min-bytes", NULL};
    struct cli_opts o;
    /* (--ecall is accepted so that a decode's options can be given as they are.) */
    const unsigned allowed = CLI_FORMAT | CLI_ELF | CLI_OUTPUT | CLI_TRACE | CLI_XLEN | CLI_ECALL;
    int rc = cli_parse(&o, "segments", allowed, extra, argc, argv);
    if (rc || o.help) {
        if (o.help) {
            printf("usage: rvtrace segments --format F TRACE [--json] [--min-bytes N] [-o FILE] [options]\n\n"
                   "List the trace's segments: byte ranges from one synchronisation point to the next, each\n"
                   "decodable on its own with `rvtrace decode --segment K` (or OFFSET..END), in any order, on\n"
                   "any machine (docs/parallel.md).  One line per segment:\n"
                   "  K OFFSET..END BYTES UNIT@SYNC_OFFSET ADDRESS needs=STATE\n"
                   "STATE is what a decoder starting there must be told (none: the sync point resets it all).\n"
                   "The first segment starts at 0 and holds the bytes before the first sync point.  A family\n"
                   "without sync points to split at, or a trace without any, is one segment.\n\n"
                   "  --json          one JSON object: the trace, its length and the segments\n"
                   "  --min-bytes N   join segments until each is at least N bytes (default 0: one per sync\n"
                   "                  point); give decode --segment K the same value\n\n");
            cli_help_common(stdout, allowed, o.codec);
        }
        cli_free(&o);
        return rc;
    }
    struct rvt_trace_file *tf = NULL;
    struct rvt_trace_segment *seg = NULL;
    size_t n = 0;
    FILE *f = NULL;
    struct rvt_diag d = {0};
    uint64_t min = 0;
    const char *mb = cli_extra(&o, "min-bytes");
    rc = CLI_EXIT_USAGE;
    if (!o.trace) {
        cli_fail("segments", "no TRACE file given");
        goto done;
    }
    if (mb && !cli_parse_u64(mb, &min)) {
        cli_fail("segments", "--min-bytes: expected a number of bytes, got '%s'", mb);
        goto done;
    }
    if (cli_load_image(&o) || cli_finish_codec(&o, o.xlen ? o.xlen : o.img ? rvt_img_xlen(o.img) : 64))
        goto done;
    if (rvt_trace_file_open(&tf, o.trace, &d) < 0) {
        cli_fail("segments", "%s", d.msg);
        goto done;
    }
    const uint8_t *buf = rvt_trace_file_data(tf);
    size_t len = rvt_trace_file_size(tf);
    if (rvt_segments(o.codec, o.ccfg, buf, len, min, &seg, &n, &d) < 0) {
        cli_fail("segments", "%s: %s", o.trace, d.msg);
        goto done;
    }
    const char *const inputs[] = {o.trace};
    if (!(f = rvt_output_file_open(o.output ? o.output : "-", inputs, 1, &d))) {
        cli_fail("segments", "%s", d.msg);
        goto done;
    }
    bool json = cli_extra(&o, "json") != NULL;
    if (json) {
        fprintf(f, "{\"trace\":");
        json_str(f, o.trace);
        fprintf(f, ",\"format\":\"%s\",\"bytes\":%zu,\"segments\":[", o.codec->name, len);
    }
    for (size_t i = 0; i < n; i++) {
        const struct rvt_trace_segment *s = &seg[i];
        char addr[24] = "-";
        if (s->sync.has_addr)
            snprintf(addr, sizeof addr, "0x%" PRIx64, s->sync.addr);
        if (json) {
            fprintf(f,
                    "%s{\"index\":%zu,\"offset\":%" PRIu64 ",\"end\":%" PRIu64 ",\"bytes\":%" PRIu64
                    ",\"sync\":%" PRIu64 ",\"unit\":",
                    i ? "," : "", i, s->offset, s->end, s->end - s->offset, s->sync.offset);
            json_str(f, s->sync.unit ? s->sync.unit : "");
            fprintf(f, ",\"addr\":");
            if (s->sync.has_addr)
                fprintf(f, "\"%s\"", addr);
            else
                fprintf(f, "null");
            fprintf(f, ",\"needs\":");
            json_str(f, s->sync.needs ? s->sync.needs : "");
            fputc('}', f);
        } else {
            fprintf(f, "%zu %" PRIu64 "..%" PRIu64 " %" PRIu64 " %s@%" PRIu64 " %s needs=%s\n", i, s->offset, s->end,
                    s->end - s->offset, s->sync.unit ? s->sync.unit : "-", s->sync.offset, addr,
                    s->sync.needs ? s->sync.needs : "-");
        }
    }
    if (json)
        fprintf(f, "]}\n");
    if (fflush(f) != 0) {
        cli_fail("segments", "write failed: %s", strerror(errno));
        goto done;
    }
    rc = 0;
    if (len == 0) {
        cli_fail("segments", "%s: the trace is empty (0 bytes)", o.trace);
        rc = RVT_DECODE_NOTHING;
    }
done:
    if (rvt_output_file_close(f) < 0 && rc == 0) {
        cli_fail("segments", "write failed: %s", strerror(errno));
        rc = CLI_EXIT_USAGE;
    }
    free(seg);
    rvt_trace_file_close(tf);
    cli_free(&o);
    return rc;
}
