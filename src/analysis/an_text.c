/* Text views of an analysis: the call tree, the flat profile (per function,
 * source line and address) with its call graph, and the coverage summary;
 * and rvt_an_write, which picks the writer. */
#include "an_internal.h"
#include "textfmt.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- helpers shared by the writers ----------------------------------------------- */

void an_json_str(FILE *f, const char *s)
{
    char buf[512];
    char *end = txt_json(buf, s ? s : "", sizeof buf);
    if (end) { /* (the usual short name: one write) */
        fwrite(buf, 1, (size_t)(end - buf), f);
        return;
    }
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

void an_html_str(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '&':
            fputs("&amp;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&#39;", f);
            break;
        default:
            fputc(*s, f);
        }
    }
}

static bool readable(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

const char *an_find_source(const char *recorded, const char *source_dir, char *buf, size_t size)
{
    if (!recorded || !*recorded)
        return NULL;
    if (source_dir && *source_dir) {
        /* DIR/recorded, then DIR/ with ever shorter tails of the recorded
         * path: the tree moved since the build (another machine, a package
         * unpacked elsewhere). */
        for (const char *t = recorded; t && *t;) {
            while (*t == '/' || (t[0] == '.' && t[1] == '/'))
                t += *t == '/' ? 1 : 2;
            if ((size_t)snprintf(buf, size, "%s/%s", source_dir, t) < size && readable(buf))
                return buf;
            t = strchr(t, '/');
        }
    }
    if (strlen(recorded) < size && readable(recorded)) {
        strcpy(buf, recorded);
        return buf;
    }
    return NULL;
}

static double pct(uint64_t x, uint64_t total)
{
    return total ? 100.0 * (double)x / (double)total : 0.0;
}

static int io_status(FILE *f)
{
    return ferror(f) ? -RVT_ERR_IO : 0;
}

static const char *kind_tag(uint8_t kind)
{
    switch (kind) {
    case RVT_AN_TRAP:
        return "[trap] ";
    default:
        return "";
    }
}

static void summary_line(FILE *f, const struct rvt_an_summary *s)
{
    fprintf(f,
            "# %" PRIu64 " instructions; %" PRIu64 " calls (%" PRIu64 " tail), %" PRIu64 " returns; %" PRIu64
            " traps (%" PRIu64 " interrupts), %" PRIu64 " trap returns; %" PRIu64 " frames unwound, %" PRIu64
            " unmatched returns; %" PRIu64 " gaps, %" PRIu64 " errors\n",
            s->insns, s->calls, s->tail_calls, s->returns, s->traps, s->interrupts, s->trap_returns, s->unwound,
            s->unmatched, s->gaps, s->errors);
    if (s->has_time)
        fprintf(f, "# time %" PRIu64 " .. %" PRIu64 " (%" PRIu64 " units)\n", s->time_first, s->time_last,
                s->time_last - s->time_first);
    if (s->depth_overflow)
        fprintf(f, "# %" PRIu64 " calls deeper than the depth limit are not in the tree\n", s->depth_overflow);
}

/* ---- call tree ------------------------------------------------------------------------ */

static int tree_one(struct rvt_analysis *a, FILE *f, unsigned hart)
{
    struct rvt_an_summary s;
    rvt_an_summary(a, (int)hart, &s, sizeof s);
    size_t n;
    const struct rvt_an_node *nd = rvt_an_nodes(a, hart, &n);
    fprintf(f, "# call tree of hart %u\n", hart);
    summary_line(f, &s);
    fprintf(f, "#    total   total%%       self    calls%s  function\n", s.has_time ? "       time" : "");
    /* Depth first, children by total; an explicit stack (trees can be deep). */
    uint32_t *stk = malloc((n ? n : 1) * sizeof *stk);
    if (!stk)
        return -RVT_ERR_NOMEM;
    size_t sp = 0;
    stk[sp++] = 0;
    while (sp) {
        const struct rvt_an_node *x = &nd[stk[--sp]];
        fprintf(f, "%10" PRIu64 " %6.2f%% %10" PRIu64 " %8" PRIu64, x->total, pct(x->total, s.insns), x->self,
                x->calls);
        if (s.has_time)
            fprintf(f, " %10" PRIu64, x->total_time);
        fprintf(f, "  %*s", (int)(2 * x->depth), "");
        if (x->kind == RVT_AN_ROOT)
            fprintf(f, "[hart %u]", hart);
        else
            fprintf(f, "%s%s", kind_tag(x->kind), x->name);
        if (x->kind == RVT_AN_RESUMED)
            fprintf(f, " (resumed: entry not traced)");
        if (x->unwound)
            fprintf(f, " [unwound %" PRIu64 "]", x->unwound);
        if (x->unmatched)
            fprintf(f, " [unmatched returns %" PRIu64 "]", x->unmatched);
        fputc('\n', f);
        /* push children in reverse so the largest comes out first */
        size_t first = sp;
        for (uint32_t c = x->first_child; c != AN_NONE; c = nd[c].next_sibling)
            stk[sp++] = c;
        for (size_t i = first, j = sp; i + 1 < j; i++, j--) {
            uint32_t t = stk[i];
            stk[i] = stk[j - 1];
            stk[j - 1] = t;
        }
    }
    free(stk);
    return 0;
}

int an_write_calltree(struct rvt_analysis *a, FILE *f, int hart)
{
    for (unsigned h = 0; h < RVT_AN_MAX_HARTS; h++) {
        if (!an_hart_get(a, h) || (hart >= 0 && (unsigned)hart != h))
            continue;
        int rc = tree_one(a, f, h);
        if (rc)
            return rc;
    }
    return io_status(f);
}

/* ---- profile ---------------------------------------------------------------------------- */

static int u64_desc_by_count(const void *p, const void *q)
{
    const struct rvt_an_insn *x = *(const struct rvt_an_insn *const *)p, *y = *(const struct rvt_an_insn *const *)q;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int line_desc(const void *p, const void *q)
{
    const struct rvt_an_line *x = *(const struct rvt_an_line *const *)p, *y = *(const struct rvt_an_line *const *)q;
    if (x->insns != y->insns)
        return x->insns > y->insns ? -1 : 1;
    int c = strcmp(x->file, y->file);
    if (c)
        return c;
    return x->line < y->line ? -1 : x->line > y->line;
}

/* (caller, callee) pairs summed over call sites. */
struct pair {
    uint32_t caller, callee;
    uint64_t calls, incl;
    uint64_t other_addr; /* for the order of a listing: the other side's address */
    const char *other_name;
};

static int pair_cmp(const void *p, const void *q)
{
    const struct pair *x = p, *y = q;
    if (x->caller != y->caller)
        return x->caller < y->caller ? -1 : 1;
    return x->callee < y->callee ? -1 : x->callee > y->callee;
}

static int pair_incl_desc(const void *p, const void *q)
{
    const struct pair *x = *(const struct pair *const *)p, *y = *(const struct pair *const *)q;
    if (x->incl != y->incl)
        return x->incl > y->incl ? -1 : 1;
    if (x->calls != y->calls)
        return x->calls > y->calls ? -1 : 1;
    if (x->other_addr != y->other_addr)
        return x->other_addr < y->other_addr ? -1 : 1;
    return strcmp(x->other_name, y->other_name);
}

static struct pair *collect_pairs(struct rvt_analysis *a, int hart, size_t *np)
{
    size_t total = 0;
    for (unsigned h = 0; h < RVT_AN_MAX_HARTS; h++) {
        size_t n;
        if ((hart < 0 || (unsigned)hart == h) && an_arcs(a, h, &n))
            total += n;
    }
    struct pair *v = malloc((total ? total : 1) * sizeof *v);
    if (!v)
        return NULL;
    size_t k = 0;
    for (unsigned h = 0; h < RVT_AN_MAX_HARTS; h++) {
        size_t n;
        const struct an_arc *c = hart < 0 || (unsigned)hart == h ? an_arcs(a, h, &n) : NULL;
        for (size_t i = 0; c && i < n; i++)
            v[k++] = (struct pair){c[i].caller, c[i].callee, c[i].calls, c[i].incl, 0, ""};
    }
    qsort(v, k, sizeof *v, pair_cmp);
    size_t m = 0;
    for (size_t i = 0; i < k; i++) {
        if (m && v[m - 1].caller == v[i].caller && v[m - 1].callee == v[i].callee) {
            v[m - 1].calls += v[i].calls;
            v[m - 1].incl += v[i].incl;
        } else {
            v[m++] = v[i];
        }
    }
    *np = m;
    return v;
}

static void addr_where(struct rvt_analysis *a, FILE *f, uint64_t addr)
{
    const struct an_fn *fn = an_fn_get(a, an_fn_of(a, addr));
    if (fn && fn->has_sym)
        fprintf(f, "%s+0x%" PRIx64, fn->name, addr - fn->addr);
    else
        fprintf(f, "?");
    struct rvt_srcline l;
    if (a->cfg.lines && rvt_srclines_find(a->cfg.lines, addr, &l) && l.line)
        fprintf(f, "  %s:%" PRIu32, l.file, l.line);
}

int an_write_profile(struct rvt_analysis *a, FILE *f, int hart)
{
    struct rvt_an_summary s;
    if (rvt_an_summary(a, hart, &s, sizeof s) < 0)
        return -RVT_ERR_INVAL;
    size_t nf;
    const struct rvt_an_func *fv = rvt_an_funcs(a, hart, &nf);
    if (hart < 0)
        fprintf(f, "# flat profile of all harts\n");
    else
        fprintf(f, "# flat profile of hart %d\n", hart);
    summary_line(f, &s);
    fprintf(f, "# self: instructions at the function's addresses; total: while it was on the call stack\n");
    fprintf(f, "#     self   self%%  cumul%%      total  total%%    calls%s  function\n",
            s.has_time ? "  self time  total time" : "");
    uint64_t cum = 0;
    for (size_t i = 0; i < nf; i++) {
        const struct rvt_an_func *x = &fv[i];
        cum += x->self;
        fprintf(f, "%10" PRIu64 " %6.2f%% %6.2f%% %10" PRIu64 " %6.2f%% %8" PRIu64, x->self, pct(x->self, s.insns),
                pct(cum, s.insns), x->total, pct(x->total, s.insns), x->calls);
        if (s.has_time)
            fprintf(f, " %10" PRIu64 " %11" PRIu64, x->self_time, x->total_time);
        fprintf(f, "  %s\n", x->name);
    }

    /* Per source line and per address count all harts' instructions. */
    size_t nl, ni;
    const struct rvt_an_line *lv = rvt_an_lines(a, &nl);
    const struct rvt_an_insn *iv = rvt_an_insns(a, &ni);
    struct rvt_an_summary all;
    rvt_an_summary(a, -1, &all, sizeof all);
    if (nl) {
        const struct rvt_an_line **lp = malloc(nl * sizeof *lp);
        if (!lp)
            return -RVT_ERR_NOMEM;
        size_t k = 0;
        for (size_t i = 0; i < nl; i++)
            if (lv[i].insns)
                lp[k++] = &lv[i];
        qsort(lp, k, sizeof *lp, line_desc);
        fprintf(f, "\n# per source line (all harts): %zu lines executed\n", k);
        fprintf(f, "#    insns  insns%%       hits  line\n");
        for (size_t i = 0; i < k; i++)
            fprintf(f, "%10" PRIu64 " %6.2f%% %10" PRIu64 "  %s:%" PRIu32 "\n", lp[i]->insns,
                    pct(lp[i]->insns, all.insns), lp[i]->hits, lp[i]->file, lp[i]->line);
        free(lp);
    }
    const struct rvt_an_insn **ip = malloc((ni ? ni : 1) * sizeof *ip);
    if (!ip)
        return -RVT_ERR_NOMEM;
    for (size_t i = 0; i < ni; i++)
        ip[i] = &iv[i];
    qsort(ip, ni, sizeof *ip, u64_desc_by_count);
    fprintf(f, "\n# per address (all harts): %zu instructions executed\n", ni);
    fprintf(f, "#    count  count%%  address             taken  not-taken  where\n");
    for (size_t i = 0; i < ni; i++) {
        const struct rvt_an_insn *x = ip[i];
        fprintf(f, "%10" PRIu64 " %6.2f%%  0x%0*" PRIx64, x->count, pct(x->count, all.insns), (int)(a->xlen / 4),
                x->addr);
        if (x->taken || x->not_taken)
            fprintf(f, " %9" PRIu64 " %10" PRIu64 "  ", x->taken, x->not_taken);
        else
            fprintf(f, " %9s %10s  ", "", "");
        addr_where(a, f, x->addr);
        fputc('\n', f);
    }
    free(ip);

    /* Call graph: for each function, who called it and whom it called. */
    size_t np;
    struct pair *pv = collect_pairs(a, hart, &np);
    if (!pv)
        return -RVT_ERR_NOMEM;
    const struct pair **pp = malloc((np ? np : 1) * sizeof *pp);
    if (!pp) {
        free(pv);
        return -RVT_ERR_NOMEM;
    }
    fprintf(f, "\n# call graph: per function, its callers and callees (calls; instructions inside those calls,\n"
               "# counted at every level of a recursion)\n");
    for (size_t i = 0; i < nf; i++) {
        const struct rvt_an_func *x = &fv[i];
        if (!x->calls && !x->total)
            continue;
        fprintf(f, "\n%s  (self %" PRIu64 ", total %" PRIu64 ", calls %" PRIu64 ")\n", x->name, x->self, x->total,
                x->calls);
        for (int dir = 0; dir < 2; dir++) {
            size_t k = 0;
            for (size_t j = 0; j < np; j++)
                if ((dir == 0 ? pv[j].callee : pv[j].caller) == x->id) {
                    const struct an_fn *o = an_fn_get(a, dir == 0 ? pv[j].caller : pv[j].callee);
                    pv[j].other_addr = o->addr;
                    pv[j].other_name = o->name;
                    pp[k++] = &pv[j];
                }
            qsort(pp, k, sizeof *pp, pair_incl_desc);
            for (size_t j = 0; j < k; j++) {
                const struct an_fn *o = an_fn_get(a, dir == 0 ? pp[j]->caller : pp[j]->callee);
                fprintf(f, "  %s %8" PRIu64 " calls %10" PRIu64 " insns  %s\n", dir == 0 ? "from" : "  to",
                        pp[j]->calls, pp[j]->incl, o ? o->name : "?");
            }
        }
    }
    free(pp);
    free(pv);
    return io_status(f);
}

/* ---- coverage ------------------------------------------------------------------------------ */

int an_write_coverage(struct rvt_analysis *a, FILE *f, int hart)
{
    struct rvt_an_summary s;
    if (rvt_an_summary(a, -1, &s, sizeof s) < 0)
        return -RVT_ERR_INVAL;
    uint64_t brx = s.branches_both + s.branches_taken_only + s.branches_not_taken_only;
    fprintf(f, "# coverage (all harts) of the program's functions\n");
    fprintf(f, "functions     %8" PRIu64 " of %8" PRIu64 " executed (%.2f%%)\n", s.funcs_hit, s.funcs_total,
            pct(s.funcs_hit, s.funcs_total));
    fprintf(f, "instructions  %8" PRIu64 " of %8" PRIu64 " executed (%.2f%%)\n", s.insns_hit, s.insns_total,
            pct(s.insns_hit, s.insns_total));
    fprintf(f, "basic blocks  %8" PRIu64 " of %8" PRIu64 " executed (%.2f%%)\n", s.bblocks_hit, s.bblocks_total,
            pct(s.bblocks_hit, s.bblocks_total));
    if (a->cfg.lines)
        fprintf(f, "lines         %8" PRIu64 " of %8" PRIu64 " executed (%.2f%%)\n", s.lines_hit, s.lines_total,
                pct(s.lines_hit, s.lines_total));
    else
        fprintf(f, "lines         (no DWARF line tables)\n");
    fprintf(f, "branches      %8" PRIu64 " of %8" PRIu64 " executed (%.2f%%): %" PRIu64 " both ways, %" PRIu64
               " taken only, %" PRIu64 " not taken only\n",
            brx, s.branches_total, pct(brx, s.branches_total), s.branches_both, s.branches_taken_only,
            s.branches_not_taken_only);
    fprintf(f, "branch directions %6" PRIu64 " of %8" PRIu64 " taken (%.2f%%)\n",
            2 * s.branches_both + s.branches_taken_only + s.branches_not_taken_only, 2 * s.branches_total,
            pct(2 * s.branches_both + s.branches_taken_only + s.branches_not_taken_only, 2 * s.branches_total));
    fprintf(f, "\n# per function, by address%s: instructions hit/total, basic blocks hit/total, branches both "
               "ways/one way/total\n",
            hart >= 0 ? " (this hart)" : "");
    fprintf(f, "#  hit/total       %%   blocks   both/one/total  address             function\n");
    const struct an_fstat *fs = a->fstat;
    const struct an_hart *h = hart >= 0 ? an_hart_get(a, (unsigned)hart) : NULL;
    if (h)
        fs = h->fstat;
    for (size_t u = 0; u < a->nuniverse; u++) {
        uint32_t id = a->universe[u];
        const struct an_fn *fn = &a->fn[id];
        const struct an_fstat *x = &fs[id];
        if (!x->insns_total)
            continue;
        char hit[48], br[48], bb[48];
        snprintf(hit, sizeof hit, "%" PRIu64 "/%" PRIu64, x->insns_hit, x->insns_total);
        snprintf(bb, sizeof bb, "%" PRIu64 "/%" PRIu64, x->bblocks_hit, x->bblocks_total);
        snprintf(br, sizeof br, "%" PRIu64 "/%" PRIu64 "/%" PRIu64, x->branches_both, x->branches_one,
                 x->branches_total);
        fprintf(f, "%13s %6.2f%% %8s %15s  0x%0*" PRIx64 "  %s%s\n", hit, pct(x->insns_hit, x->insns_total), bb, br,
                (int)(a->xlen / 4), fn->addr, fn->name, x->insns_hit ? "" : "  (never executed)");
    }
    return io_status(f);
}

/* ---- dispatch ------------------------------------------------------------------------------- */

int rvt_an_write(struct rvt_analysis *a, enum rvt_an_format fmt, FILE *f, const struct rvt_an_write_opts *o)
{
    struct rvt_an_write_opts d = {.size = sizeof d, .hart = -1};
    if (o && o->size) {
        memcpy(&d, o, o->size < sizeof d ? o->size : sizeof d);
        d.size = sizeof d;
    }
    if (!a->finished) {
        int rc = rvt_an_finish(a);
        if (rc < 0)
            return rc;
    }
    if (a->err)
        return a->err;
    if (d.hart >= 0 && !an_hart_get(a, (unsigned)d.hart))
        return -RVT_ERR_INVAL;
    switch (fmt) {
    case RVT_AN_FMT_CALLTREE:
        return an_write_calltree(a, f, d.hart);
    case RVT_AN_FMT_PROFILE:
        return an_write_profile(a, f, d.hart);
    case RVT_AN_FMT_COVERAGE:
        return an_write_coverage(a, f, d.hart);
    case RVT_AN_FMT_LCOV:
        return an_write_lcov(a, f, &d);
    case RVT_AN_FMT_FOLDED:
        return an_write_folded(a, f, d.hart);
    case RVT_AN_FMT_CALLGRIND:
        return an_write_callgrind(a, f, &d);
    case RVT_AN_FMT_CHROME:
        return an_write_chrome(a, f, d.hart);
    case RVT_AN_FMT_HTML:
        return an_write_html(a, f, &d);
    }
    return -RVT_ERR_INVAL;
}
