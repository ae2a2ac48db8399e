/* Exports in the formats other tools read: lcov tracefiles (genhtml),
 * folded stacks (flame graphs), callgrind profiles (KCachegrind,
 * callgrind_annotate) and Chrome/Perfetto trace-event JSON. */
#include "an_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static int io_status(FILE *f)
{
    return ferror(f) ? -RVT_ERR_IO : 0;
}

/* ---- lcov --------------------------------------------------------------------------------
 * geninfo(1) "TRACEFILE FORMAT": per source file SF:, FN:<line>,<name>,
 * FNDA:<count>,<name>, FNF/FNH, BRDA:<line>,<block>,<branch>,<taken|->,
 * BRF/BRH, DA:<line>,<count>, LF/LH, end_of_record. */

struct brref {
    uint32_t file, line;
    uint64_t addr;
};

static int brref_cmp(const void *p, const void *q)
{
    const struct brref *x = p, *y = q;
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

struct fnref {
    uint32_t file, line, id;
};

static int fnref_cmp(const void *p, const void *q)
{
    const struct fnref *x = p, *y = q;
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* lcov names may not contain ',' (the field separator) or newlines. */
static void lcov_name(FILE *f, const char *s)
{
    for (; *s; s++)
        fputc(*s == ',' || *s == '\n' || *s == '\r' ? '_' : *s, f);
}

int an_write_lcov(struct rvt_analysis *a, FILE *f, const struct rvt_an_write_opts *o)
{
    const struct rvt_srclines *sl = a->cfg.lines;
    if (!sl)
        return -RVT_ERR_UNSUPPORTED;
    size_t nfiles = rvt_srclines_files(sl);
    /* branches and functions by file */
    size_t nb = 0, nfn = 0;
    for (size_t i = 0; i < a->nst; i++)
        nb += a->st[i].br;
    struct brref *br = malloc((nb ? nb : 1) * sizeof *br);
    struct fnref *fr = malloc((a->nuniverse ? a->nuniverse : 1) * sizeof *fr);
    if (!br || !fr) {
        free(br);
        free(fr);
        return -RVT_ERR_NOMEM;
    }
    nb = 0;
    struct rvt_srcline loc;
    for (size_t i = 0; i < a->nst; i++)
        if (a->st[i].br && rvt_srclines_find(sl, a->st[i].addr, &loc) && loc.line)
            br[nb++] = (struct brref){loc.file_id, loc.line, a->st[i].addr};
    for (size_t u = 0; u < a->nuniverse; u++) {
        uint32_t id = a->universe[u];
        if (a->fstat[id].insns_total && rvt_srclines_find(sl, a->fn[id].addr, &loc) && loc.line)
            fr[nfn++] = (struct fnref){loc.file_id, loc.line, id};
    }
    qsort(br, nb, sizeof *br, brref_cmp);
    qsort(fr, nfn, sizeof *fr, fnref_cmp);
    /* Files in name order (the lines array is sorted by name, then line). */
    size_t li = 0;
    char path[4096];
    fprintf(f, "TN:\n");
    while (li < a->nlines) {
        uint32_t file = a->lines[li].file_id;
        size_t lend = li;
        while (lend < a->nlines && a->lines[lend].file_id == file)
            lend++;
        const char *rec = rvt_srclines_file(sl, file);
        const char *p = an_find_source(rec, o->source_dir, path, sizeof path);
        fprintf(f, "SF:%s\n", p ? p : rec);
        uint64_t fnf = 0, fnh = 0;
        for (size_t i = 0; i < nfn; i++) {
            if (fr[i].file != file)
                continue;
            fprintf(f, "FN:%" PRIu32 ",", fr[i].line);
            lcov_name(f, a->fn[fr[i].id].name);
            fputc('\n', f);
        }
        for (size_t i = 0; i < nfn; i++) {
            if (fr[i].file != file)
                continue;
            const struct an_fstat *fs = &a->fstat[fr[i].id];
            uint64_t n = fs->calls ? fs->calls : fs->insns_hit ? 1 : 0;
            fprintf(f, "FNDA:%" PRIu64 ",", n);
            lcov_name(f, a->fn[fr[i].id].name);
            fputc('\n', f);
            fnf++;
            fnh += n > 0;
        }
        fprintf(f, "FNF:%" PRIu64 "\nFNH:%" PRIu64 "\n", fnf, fnh);
        /* branches of this file (sorted by file id): two directions each */
        size_t lo = 0, hi = nb;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (br[mid].file < file)
                lo = mid + 1;
            else
                hi = mid;
        }
        size_t bi = lo;
        uint64_t brf = 0, brh = 0;
        uint32_t cur_line = 0, nr = 0;
        for (; bi < nb && br[bi].file == file; bi++) {
            if (br[bi].line != cur_line)
                cur_line = br[bi].line, nr = 0;
            const struct rvt_an_insn *x = an_insn_at(a, br[bi].addr);
            for (int dir = 0; dir < 2; dir++) {
                fprintf(f, "BRDA:%" PRIu32 ",0,%" PRIu32 ",", br[bi].line, nr++);
                if (!x)
                    fprintf(f, "-\n");
                else
                    fprintf(f, "%" PRIu64 "\n", dir == 0 ? x->taken : x->not_taken);
                brf++;
                brh += x && (dir == 0 ? x->taken : x->not_taken) > 0;
            }
        }
        fprintf(f, "BRF:%" PRIu64 "\nBRH:%" PRIu64 "\n", brf, brh);
        uint64_t lf = 0, lh = 0;
        for (size_t i = li; i < lend; i++) {
            fprintf(f, "DA:%" PRIu32 ",%" PRIu64 "\n", a->lines[i].line, a->lines[i].hits);
            lf++;
            lh += a->lines[i].hits > 0;
        }
        fprintf(f, "LF:%" PRIu64 "\nLH:%" PRIu64 "\nend_of_record\n", lf, lh);
        li = lend;
    }
    (void)nfiles;
    free(br);
    free(fr);
    return io_status(f);
}

/* ---- folded stacks ------------------------------------------------------------------------
 * One line per call-tree path with instructions of its own: the frames
 * from the outermost, separated by ';', a space, the count (Brendan
 * Gregg's stackcollapse format, read by flamegraph.pl, speedscope, inferno). */

static void folded_name(FILE *f, const struct rvt_an_node *n)
{
    if (n->kind == RVT_AN_TRAP)
        fputs("[trap] ", f);
    for (const char *s = n->name; *s; s++)
        fputc(*s == ';' ? ':' : (*s == '\n' || *s == '\r') ? ' ' : *s, f);
}

int an_write_folded(struct rvt_analysis *a, FILE *f, int hart)
{
    bool several = hart < 0 && an_harts_used(a) > 1;
    for (unsigned h = 0; h < RVT_AN_MAX_HARTS; h++) {
        if (!an_hart_get(a, h) || (hart >= 0 && (unsigned)hart != h))
            continue;
        size_t n;
        const struct rvt_an_node *nd = rvt_an_nodes(a, h, &n);
        uint32_t *path = malloc((n ? n : 1) * sizeof *path);
        if (!path)
            return -RVT_ERR_NOMEM;
        for (size_t i = 1; i < n; i++) {
            if (!nd[i].self)
                continue;
            size_t k = 0;
            for (uint32_t v = (uint32_t)i; v != 0 && v != AN_NONE; v = nd[v].parent)
                path[k++] = v;
            if (several)
                fprintf(f, "hart %u;", h);
            while (k--) {
                folded_name(f, &nd[path[k]]);
                if (k)
                    fputc(';', f);
            }
            fprintf(f, " %" PRIu64 "\n", nd[i].self);
        }
        free(path);
    }
    return io_status(f);
}

/* ---- callgrind ---------------------------------------------------------------------------
 * The Callgrind format (valgrind docs, "Callgrind Format Specification"):
 * positions "instr line", one event Ir (instructions retired), cost lines
 * per instruction under fn=, call costs as cfn= / calls= / inclusive line. */

/* Functions are ordered by address, then name: ids depend on the order
 * in which a decode met them, the output must not. */
struct cg_insn {
    uint32_t fn;
    uint64_t faddr;
    const char *fname;
    uint64_t addr, count;
};

static int fn_order(uint64_t xa, const char *xn, uint64_t ya, const char *yn)
{
    if (xa != ya)
        return xa < ya ? -1 : 1;
    return strcmp(xn, yn);
}

static int cg_cmp(const void *p, const void *q)
{
    const struct cg_insn *x = p, *y = q;
    int c = fn_order(x->faddr, x->fname, y->faddr, y->fname);
    if (c)
        return c;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

struct cg_arc {
    uint32_t caller, callee;
    uint64_t caller_addr, callee_addr;
    const char *caller_name, *callee_name;
    uint64_t site, calls, incl;
};

static int cg_arc_cmp(const void *p, const void *q)
{
    const struct cg_arc *x = p, *y = q;
    int c = fn_order(x->caller_addr, x->caller_name, y->caller_addr, y->caller_name);
    if (c)
        return c;
    if (x->site != y->site)
        return x->site < y->site ? -1 : 1;
    return fn_order(x->callee_addr, x->callee_name, y->callee_addr, y->callee_name);
}

struct cg_state {
    struct rvt_analysis *a;
    FILE *f;
    const struct rvt_an_write_opts *o;
    uint32_t *file_written; /* file id + 1 -> compressed id; [nfiles] */
    uint32_t *fn_written;
    uint32_t next_file, next_fn;
    uint32_t cur_file; /* file id + 1 of the current cost lines (0: ???) */
};

/* "fl=(n) name" the first time, "fl=(n)" afterwards. */
static void cg_file(struct cg_state *c, const char *key, uint32_t file1)
{
    const char *rec = file1 ? rvt_srclines_file(c->a->cfg.lines, file1 - 1) : NULL;
    if (c->file_written[file1]) {
        fprintf(c->f, "%s=(%" PRIu32 ")\n", key, c->file_written[file1]);
        return;
    }
    c->file_written[file1] = ++c->next_file;
    char path[4096];
    const char *p = rec ? an_find_source(rec, c->o->source_dir, path, sizeof path) : NULL;
    fprintf(c->f, "%s=(%" PRIu32 ") %s\n", key, c->file_written[file1], p ? p : rec ? rec : "???");
}

static void cg_fn(struct cg_state *c, const char *key, uint32_t fn)
{
    if (c->fn_written[fn]) {
        fprintf(c->f, "%s=(%" PRIu32 ")\n", key, c->fn_written[fn]);
        return;
    }
    c->fn_written[fn] = ++c->next_fn;
    fprintf(c->f, "%s=(%" PRIu32 ") ", key, c->fn_written[fn]);
    for (const char *s = an_fn_get(c->a, fn)->name; *s; s++)
        fputc(*s == '\n' ? ' ' : *s, c->f);
    fputc('\n', c->f);
}

static uint32_t cg_line(struct cg_state *c, uint64_t addr, uint32_t *file1)
{
    struct rvt_srcline l;
    if (c->a->cfg.lines && rvt_srclines_find(c->a->cfg.lines, addr, &l) && l.line) {
        *file1 = l.file_id + 1;
        return l.line;
    }
    *file1 = 0;
    return 0;
}

int an_write_callgrind(struct rvt_analysis *a, FILE *f, const struct rvt_an_write_opts *o)
{
    const int hart = o->hart;
    const struct rvt_an_insn *iv;
    size_t ni;
    if (hart < 0) {
        iv = rvt_an_insns(a, &ni);
    } else {
        const struct an_hart *h = an_hart_get(a, (unsigned)hart);
        iv = h->insn;
        ni = h->ninsn;
    }
    size_t narcs = 0;
    for (unsigned h = 0; h < RVT_AN_MAX_HARTS; h++) {
        size_t n;
        if ((hart < 0 || (unsigned)hart == h) && an_arcs(a, h, &n))
            narcs += n;
    }
    struct cg_insn *cv = malloc((ni ? ni : 1) * sizeof *cv);
    struct cg_arc *av = malloc((narcs ? narcs : 1) * sizeof *av);
    size_t nfiles = rvt_srclines_files(a->cfg.lines);
    struct cg_state c = {.a = a, .f = f, .o = o};
    c.file_written = calloc(nfiles + 1, sizeof *c.file_written);
    c.fn_written = calloc(a->nfn ? a->nfn : 1, sizeof *c.fn_written);
    if (!cv || !av || !c.file_written || !c.fn_written) {
        free(cv);
        free(av);
        free(c.file_written);
        free(c.fn_written);
        return -RVT_ERR_NOMEM;
    }
    uint64_t total = 0;
    for (size_t i = 0; i < ni; i++) {
        uint32_t fn = an_fn_of(a, iv[i].addr);
        const struct an_fn *af = an_fn_get(a, fn);
        cv[i] = (struct cg_insn){fn, af->addr, af->name, iv[i].addr, iv[i].count};
        total += iv[i].count;
    }
    qsort(cv, ni, sizeof *cv, cg_cmp);
    narcs = 0;
    for (unsigned h = 0; h < RVT_AN_MAX_HARTS; h++) {
        size_t n;
        const struct an_arc *ar = hart < 0 || (unsigned)hart == h ? an_arcs(a, h, &n) : NULL;
        for (size_t i = 0; ar && i < n; i++) {
            const struct an_fn *x = an_fn_get(a, ar[i].caller), *y = an_fn_get(a, ar[i].callee);
            av[narcs++] = (struct cg_arc){ar[i].caller, ar[i].callee, x->addr,  y->addr,
                                          x->name,      y->name,      ar[i].site, ar[i].calls, ar[i].incl};
        }
    }
    qsort(av, narcs, sizeof *av, cg_arc_cmp);
    size_t m = 0; /* merge the harts' arcs */
    for (size_t i = 0; i < narcs; i++) {
        if (m && av[m - 1].caller == av[i].caller && av[m - 1].site == av[i].site && av[m - 1].callee == av[i].callee) {
            av[m - 1].calls += av[i].calls;
            av[m - 1].incl += av[i].incl;
        } else {
            av[m++] = av[i];
        }
    }
    narcs = m;

    fprintf(f, "# callgrind format\nversion: 1\ncreator: rvtrace %s\n", RVT_VERSION_STRING);
    fprintf(f, "cmd: %s\n", o->title ? o->title : "rvtrace");
    if (hart >= 0)
        fprintf(f, "thread: %d\n", hart);
    fprintf(f, "positions: instr line\nevents: Ir\n");
    fprintf(f, "summary: %" PRIu64 "\n\n", total);
    /* Functions in address order: cost lines, then the calls they made. */
    size_t ci = 0, ai = 0;
    while (ci < ni || ai < narcs) {
        uint32_t fn;
        if (ci < ni && (ai >= narcs || fn_order(cv[ci].faddr, cv[ci].fname, av[ai].caller_addr, av[ai].caller_name) <= 0))
            fn = cv[ci].fn;
        else
            fn = av[ai].caller;
        /* The function's file is the one of its first instruction (later
         * ones may be inlined from headers); else of what ran first. */
        uint32_t file1 = 0;
        const struct an_fn *af = an_fn_get(a, fn);
        uint64_t first = ci < ni && cv[ci].fn == fn ? cv[ci].addr : av[ai].site;
        if (!af->has_sym || !cg_line(&c, af->addr, &file1))
            cg_line(&c, first, &file1);
        cg_file(&c, "fl", file1);
        c.cur_file = file1;
        cg_fn(&c, "fn", fn);
        for (; ci < ni && cv[ci].fn == fn; ci++) {
            uint32_t fi;
            uint32_t line = cg_line(&c, cv[ci].addr, &fi);
            if (fi != c.cur_file) {
                cg_file(&c, "fi", fi);
                c.cur_file = fi;
            }
            fprintf(f, "0x%" PRIx64 " %" PRIu32 " %" PRIu64 "\n", cv[ci].addr, line, cv[ci].count);
        }
        for (; ai < narcs && av[ai].caller == fn; ai++) {
            uint32_t fi, tfile;
            uint32_t line = cg_line(&c, av[ai].site, &fi);
            const struct an_fn *callee = an_fn_get(a, av[ai].callee);
            uint32_t tline = cg_line(&c, callee->addr, &tfile);
            if (fi != c.cur_file) {
                cg_file(&c, "fi", fi);
                c.cur_file = fi;
            }
            cg_file(&c, "cfl", tfile);
            cg_fn(&c, "cfn", av[ai].callee);
            fprintf(f, "calls=%" PRIu64 " 0x%" PRIx64 " %" PRIu32 "\n", av[ai].calls, callee->addr, tline);
            fprintf(f, "0x%" PRIx64 " %" PRIu32 " %" PRIu64 "\n", av[ai].site, line, av[ai].incl);
        }
        fputc('\n', f);
    }
    fprintf(f, "totals: %" PRIu64 "\n", total);
    free(cv);
    free(av);
    free(c.file_written);
    free(c.fn_written);
    return io_status(f);
}

/* ---- Chrome / Perfetto trace-event JSON -----------------------------------------------------
 * The Trace Event Format: "X" complete events (ts, dur in microseconds)
 * for frames, "i" instant events for traps and gaps, "M" metadata naming
 * the harts.  Without timestamps one instruction counts as 1 µs. */

static const char *span_end_name(uint8_t how)
{
    static const char *const names[] = {"return", "unwound", "tail call", "gap", "end of trace", "unmatched"};
    return how < sizeof names / sizeof names[0] ? names[how] : "?";
}

static const char *span_cat(uint8_t kind)
{
    return kind == RVT_AN_TRAP ? "trap" : kind == RVT_AN_RESUMED ? "resumed" : "call";
}

static int span_order(const void *p, const void *q)
{
    const struct rvt_an_span *x = p, *y = q;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->end != y->end)
        return x->end > y->end ? -1 : 1;
    return x->depth < y->depth ? -1 : x->depth > y->depth;
}

int an_write_chrome(struct rvt_analysis *a, FILE *f, int hart)
{
    struct rvt_an_summary all;
    rvt_an_summary(a, hart, &all, sizeof all);
    bool timed = all.has_time;
    fprintf(f, "{\"traceEvents\":[\n");
    fprintf(f, "{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":\"rvtrace\"}}");
    for (unsigned h = 0; h < RVT_AN_MAX_HARTS; h++) {
        const struct an_hart *ah = an_hart_get(a, h);
        if (!ah || (hart >= 0 && (unsigned)hart != h))
            continue;
        fprintf(f, ",\n{\"ph\":\"M\",\"pid\":1,\"tid\":%u,\"name\":\"thread_name\",\"args\":{\"name\":\"hart %u\"}}", h,
                h);
        size_t nn, ns, ne;
        const struct rvt_an_node *nd = rvt_an_nodes(a, h, &nn);
        const struct rvt_an_span *sp = rvt_an_spans(a, h, &ns);
        const struct rvt_an_event *ev = rvt_an_events(a, h, &ne);
        struct rvt_an_span *ord = malloc((ns ? ns : 1) * sizeof *ord);
        if (!ord)
            return -RVT_ERR_NOMEM;
        if (ns)
            memcpy(ord, sp, ns * sizeof *ord);
        qsort(ord, ns, sizeof *ord, span_order);
        for (size_t i = 0; i < ns; i++) {
            const struct rvt_an_span *s = &ord[i];
            uint64_t ts = timed ? s->tstart : s->start, dur = timed ? s->tend - s->tstart : s->end - s->start;
            fprintf(f, ",\n{\"ph\":\"X\",\"pid\":1,\"tid\":%u,\"ts\":%" PRIu64 ",\"dur\":%" PRIu64 ",\"name\":", h, ts,
                    dur);
            an_json_str(f, nd[s->node].name);
            fprintf(f, ",\"cat\":\"%s\",\"args\":{\"insns\":%" PRIu64 ",\"first\":%" PRIu64 ",\"depth\":%" PRIu32
                       ",\"end\":\"%s\"}}",
                    span_cat(s->kind), s->end - s->start, s->start, s->depth, span_end_name(s->how));
        }
        free(ord);
        for (size_t i = 0; i < ne; i++) {
            const struct rvt_an_event *e = &ev[i];
            static const char *const kinds[] = {"?", "exception", "interrupt", "gap", "error"};
            fprintf(f, ",\n{\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":%u,\"ts\":%" PRIu64 ",\"cat\":\"%s\",\"name\":\"",
                    h, timed ? e->time : e->index, e->kind <= RVT_AN_EV_INTERRUPT ? "trap" : "gap");
            if (e->kind <= RVT_AN_EV_INTERRUPT)
                fprintf(f, "%s 0x%" PRIx64 "\"", kinds[e->kind], e->cause);
            else
                fprintf(f, "%s\"", kinds[e->kind < 5 ? e->kind : 0]);
            fprintf(f, ",\"args\":{\"insn\":%" PRIu64 ",\"at\":\"0x%" PRIx64 "\",\"trace_offset\":%" PRIu64, e->index,
                    e->addr, e->offset);
            if (e->kind <= RVT_AN_EV_INTERRUPT)
                fprintf(f, ",\"tval\":\"0x%" PRIx64 "\",\"handler\":\"0x%" PRIx64 "\"", e->tval, e->handler);
            if (e->text) {
                fprintf(f, ",\"text\":");
                an_json_str(f, e->text);
            }
            fprintf(f, "}}");
        }
        struct rvt_an_summary hs;
        rvt_an_summary(a, (int)h, &hs, sizeof hs);
        if (hs.spans_dropped)
            fprintf(f,
                    ",\n{\"ph\":\"M\",\"pid\":1,\"tid\":%u,\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%u,"
                    "\"note\":\"%" PRIu64 " frames shorter than %" PRIu64 " instructions are not shown\"}}",
                    h, h, hs.spans_dropped, hs.span_min);
    }
    fprintf(f, "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"clock\":\"%s\",\"instructions\":%" PRIu64
               ",\"frames_not_shown\":%" PRIu64 ",\"shortest_frame_shown\":%" PRIu64 "}}\n",
            timed ? "trace timestamps (1 unit = 1 us)" : "instructions retired (1 instruction = 1 us)", all.insns,
            all.spans_dropped, all.span_min);
    return io_status(f);
}
