/* The analysis kinds of `rvtrace decode --output` (struct rvt_output
 * hands them here): an analysis fed by the decode, written at the end, or
 * the JSON Lines stream. */
#include "an_internal.h"
#include "an_output.h"

#include <stdlib.h>
#include <string.h>

static const char *const g_names[] = {"pcs",    "insn",  "blocks",    "count",  "calltree", "profile", "coverage",
                                      "lcov",   "folded", "callgrind", "chrome", "jsonl",    NULL};

int rvt_out_kind_parse(const char *name)
{
    if (strcmp(name, "perfetto") == 0)
        return RVT_OUT_CHROME;
    for (int i = 0; g_names[i]; i++)
        if (strcmp(name, g_names[i]) == 0)
            return i;
    return -1;
}

const char *rvt_out_kind_names(void)
{
    return "pcs, insn, blocks, count, calltree, profile, coverage, lcov, folded, callgrind, chrome (perfetto), jsonl";
}

int rvt_out_kind_is_analysis(int kind)
{
    return kind >= RVT_OUT_CALLTREE && kind <= RVT_OUT_CHROME;
}

struct an_out {
    struct rvt_analysis *an;
    struct rvt_jsonl *j;
    struct rvt_flow_sink sink;
    enum rvt_out_kind kind;
    FILE *f;
    FILE *diag;
    const char *source_dir;
    unsigned hart;
};

struct an_out *an_out_new(const struct rvt_out_config *cfg)
{
    struct an_out *o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    o->kind = cfg->kind;
    o->f = cfg->f;
    o->diag = cfg->diag;
    o->source_dir = cfg->source_dir;
    o->hart = cfg->hart < RVT_AN_MAX_HARTS ? cfg->hart : 0;
    if (cfg->kind == RVT_OUT_JSONL) {
        o->j = rvt_jsonl_new(cfg->f, cfg->image, cfg->xlen, cfg->hart);
        if (!o->j) {
            free(o);
            return NULL;
        }
        o->sink = rvt_jsonl_sink(o->j);
        return o;
    }
    struct rvt_an_config ac = {.size = sizeof ac, .image = cfg->image, .lines = cfg->lines, .xlen = cfg->xlen};
    o->an = cfg->image ? rvt_an_new(&ac) : NULL;
    if (!o->an) {
        free(o);
        return NULL;
    }
    o->sink = rvt_an_sink(o->an, o->hart);
    return o;
}

void an_out_free(struct an_out *o)
{
    if (!o)
        return;
    rvt_an_free(o->an);
    rvt_jsonl_free(o->j);
    free(o);
}

struct rvt_flow_sink an_out_sink(const struct an_out *o)
{
    return o->sink;
}

void an_out_report(const struct an_out *o)
{
    if (o->an && o->diag)
        fprintf(o->diag, "rvtrace: %s\n", rvt_an_error(o->an));
}

int an_out_note(struct an_out *o, const struct rvt_note *n)
{
    return o->sink.note(o->sink.ctx, n);
}

int an_out_write_errno(const struct an_out *o)
{
    return o->j ? rvt_jsonl_write_errno(o->j) : 0;
}

int an_out_finish(struct an_out *o)
{
    if (o->j)
        return rvt_jsonl_finish(o->j);
    static const enum rvt_an_format fmt[] = {RVT_AN_FMT_CALLTREE, RVT_AN_FMT_PROFILE,   RVT_AN_FMT_COVERAGE,
                                             RVT_AN_FMT_LCOV,     RVT_AN_FMT_FOLDED,    RVT_AN_FMT_CALLGRIND,
                                             RVT_AN_FMT_CHROME};
    struct rvt_an_write_opts wo = {.size = sizeof wo, .hart = -1, .source_dir = o->source_dir};
    int rc = rvt_an_finish(o->an);
    if (rc == 0)
        rc = rvt_an_write(o->an, fmt[o->kind - RVT_OUT_CALLTREE], o->f, &wo);
    if (rc < 0 && o->diag) {
        if (rc == -RVT_ERR_UNSUPPORTED && o->kind == RVT_OUT_LCOV)
            fprintf(o->diag, "rvtrace: lcov needs source lines: the program has no DWARF line tables (build with -g, "
                             "or give the debug file with --dwarf)\n");
        else
            fprintf(o->diag, "rvtrace: %s\n", rvt_an_error(o->an)[0] ? rvt_an_error(o->an) : rvt_errstr(rc));
    }
    return rc;
}
