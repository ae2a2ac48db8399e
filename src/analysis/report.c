/* The HTML report: one self-contained, offline page (no scripts, no
 * network) with the summary, hot functions, a flame graph and a per-hart
 * timeline drawn as SVG here, the call tree, annotated source and
 * disassembly with coverage and counts, traps and gaps, and coverage. */
#include "an_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define FLAME_W 1200.0
#define ROW_H 17
#define TOP_FUNCS 40
#define TREE_MIN_SHARE 0.001 /* call tree: nodes under 0.1% of their hart are folded away */
#define TL_ROWS 24
#define MAX_EVENTS_SHOWN 500
#define MAX_SRC_LINES 60000
#define ASM_FUNCS 12
#define ASM_MAX_INSNS 4000

static double pct(uint64_t x, uint64_t total)
{
    return total ? 100.0 * (double)x / (double)total : 0.0;
}

static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; s && *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* Thousands separators make counts readable. */
static const char *num(uint64_t v, char *buf)
{
    char tmp[32];
    int n = snprintf(tmp, sizeof tmp, "%" PRIu64, v), k = 0;
    for (int i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0)
            buf[k++] = ',';
        buf[k++] = tmp[i];
    }
    buf[k] = 0;
    return buf;
}

static const char *style =
    "body{font:14px/1.4 'DejaVu Sans',sans-serif;margin:0;color:#1b1f24;background:#fff}"
    "header{background:#20303f;color:#fff;padding:14px 24px}header h1{margin:0;font-size:22px}"
    "header p{margin:4px 0 0;color:#c8d3de;font-size:13px}main{padding:8px 24px 40px}"
    "h2{font-size:18px;border-bottom:2px solid #20303f;padding-bottom:2px;margin:28px 0 10px}"
    "h3{font-size:15px;margin:18px 0 6px}"
    ".cards{display:flex;flex-wrap:wrap;gap:10px}.card{border:1px solid #c9d1d9;border-radius:6px;padding:8px 14px;"
    "min-width:130px}.card b{display:block;font-size:20px}.card span{color:#57606a;font-size:12px}"
    ".warn{background:#fff4e5;border:1px solid #f0b35a;border-radius:6px;padding:8px 14px;margin:10px 0}"
    "table{border-collapse:collapse;font-size:13px}th,td{padding:2px 8px;text-align:right;white-space:nowrap}"
    "th{background:#eef2f6;position:sticky;top:0}td.l,th.l{text-align:left}tr:nth-child(even){background:#f7f9fb}"
    ".bar{display:inline-block;height:10px;background:#e8743b;vertical-align:middle}"
    "code,pre,.mono{font-family:'DejaVu Sans Mono',monospace;font-size:12px}"
    "details{margin-left:18px}details>summary{cursor:pointer;list-style-position:outside}"
    ".tree{font-family:'DejaVu Sans Mono',monospace;font-size:12px}.tree .n{color:#57606a}"
    ".hit{background:#dcf5dc}.miss{background:#fbe0e0}.part{background:#fff1c2}"
    "table.src td{padding:0 6px}table.src td.t{text-align:left;white-space:pre}"
    "svg text{font:11px 'DejaVu Sans',sans-serif;pointer-events:none}"
    ".muted{color:#57606a}.tag{font-size:11px;color:#fff;background:#6e7781;border-radius:3px;padding:0 4px}"
    "nav a{margin-right:12px;color:#0b5cad}";

/* ---- flame graph ---------------------------------------------------------------------- */

static void flame_color(const struct rvt_an_node *n, char *buf, size_t size)
{
    if (n->kind == RVT_AN_TRAP) {
        snprintf(buf, size, "hsl(205,65%%,%u%%)", 55 + name_hash(n->name) % 15);
        return;
    }
    if (n->kind == RVT_AN_RESUMED) {
        snprintf(buf, size, "hsl(30,12%%,%u%%)", 62 + name_hash(n->name) % 12);
        return;
    }
    uint32_t h = name_hash(n->name);
    snprintf(buf, size, "hsl(%u,%u%%,%u%%)", h % 46, 75 + (h >> 8) % 20, 55 + (h >> 16) % 12);
}

static void flame(FILE *f, const struct rvt_an_node *nd, size_t n, unsigned hart)
{
    const uint64_t total = nd[0].total;
    if (!total)
        return;
    /* depth actually drawn: nodes at least 0.3 px wide */
    const double min_w = 0.3, scale = FLAME_W / (double)total;
    uint32_t maxd = 0;
    for (size_t i = 1; i < n; i++)
        if ((double)nd[i].total * scale >= min_w && nd[i].depth > maxd)
            maxd = nd[i].depth;
    double *x0 = calloc(n, sizeof *x0);
    uint32_t *stk = malloc(n * sizeof *stk);
    if (!x0 || !stk) {
        free(x0);
        free(stk);
        return;
    }
    unsigned height = (maxd + 1) * ROW_H + 4;
    fprintf(f, "<svg class=\"flame\" id=\"flame-%u\" width=\"%.0f\" height=\"%u\" viewBox=\"0 0 %.0f %u\" "
               "xmlns=\"http://www.w3.org/2000/svg\">\n",
            hart, FLAME_W, height, FLAME_W, height);
    size_t sp = 0;
    stk[sp++] = 0;
    char col[40], b1[32];
    while (sp) {
        uint32_t v = stk[--sp];
        const struct rvt_an_node *x = &nd[v];
        double w = (double)x->total * scale;
        double y = (double)height - (double)(x->depth + 1) * ROW_H;
        if (v == 0)
            snprintf(col, sizeof col, "hsl(0,0%%,80%%)");
        else
            flame_color(x, col, sizeof col);
        fprintf(f, "<g><title>");
        if (v == 0)
            fprintf(f, "hart %u", hart);
        else
            an_html_str(f, x->name);
        fprintf(f, "%s: %s instructions (%.2f%%), self %" PRIu64 ", calls %" PRIu64 "</title>",
                x->kind == RVT_AN_TRAP ? " [trap]" : x->kind == RVT_AN_RESUMED ? " [resumed]" : "",
                num(x->total, b1), pct(x->total, total), x->self, x->calls);
        fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\" rx=\"1\"/>", x0[v], y, w,
                ROW_H - 1, col);
        if (w > 40) {
            int chars = (int)((w - 6) / 6.5);
            char label[256];
            if (v == 0)
                snprintf(label, sizeof label, "hart %u", hart);
            else
                snprintf(label, sizeof label, "%s%s", x->kind == RVT_AN_TRAP ? "[trap] " : "", x->name);
            if ((int)strlen(label) > chars && chars > 2) {
                label[chars - 2] = '.';
                label[chars - 1] = '.';
                label[chars] = 0;
            }
            if (chars > 2) {
                fprintf(f, "<text x=\"%.2f\" y=\"%.1f\">", x0[v] + 3, y + ROW_H - 5);
                an_html_str(f, label);
                fprintf(f, "</text>");
            }
        }
        fprintf(f, "</g>\n");
        double cx = x0[v];
        for (uint32_t c = x->first_child; c != AN_NONE; c = nd[c].next_sibling) {
            x0[c] = cx;
            cx += (double)nd[c].total * scale;
            if ((double)nd[c].total * scale >= min_w)
                stk[sp++] = c;
        }
    }
    fprintf(f, "</svg>\n");
    free(x0);
    free(stk);
}

/* ---- timeline ------------------------------------------------------------------------- */

static uint64_t nice_step(uint64_t range, int ticks)
{
    uint64_t raw = range / (uint64_t)ticks, p = 1;
    if (raw == 0)
        return 1;
    while (p * 10 <= raw)
        p *= 10;
    if (raw >= 5 * p)
        return 5 * p;
    if (raw >= 2 * p)
        return 2 * p;
    return p;
}

static void timeline(FILE *f, struct rvt_analysis *a, unsigned hart)
{
    size_t nn, ns, ne;
    const struct rvt_an_node *nd = rvt_an_nodes(a, hart, &nn);
    const struct rvt_an_span *sp = rvt_an_spans(a, hart, &ns);
    const struct rvt_an_event *ev = rvt_an_events(a, hart, &ne);
    struct rvt_an_summary s;
    rvt_an_summary(a, (int)hart, &s, sizeof s);
    const bool timed = s.has_time && s.time_last > s.time_first;
    const uint64_t lo = timed ? s.time_first : 0, hi = timed ? s.time_last : s.insns;
    if (hi <= lo)
        return;
    const double W = FLAME_W, scale = W / (double)(hi - lo);
    /* as many rows as the deepest frame drawn (at least 6, at most TL_ROWS) */
    unsigned nrows = 6;
    for (size_t i = 0; i < ns; i++)
        if (sp[i].depth > nrows && sp[i].depth <= TL_ROWS &&
            (double)((timed ? sp[i].tend - sp[i].tstart : sp[i].end - sp[i].start)) * scale >= 0.5)
            nrows = sp[i].depth;
    const unsigned top = 14, evh = 12, height = top + nrows * 12 + evh + 18;
    fprintf(f, "<svg class=\"timeline\" id=\"timeline-%u\" width=\"%.0f\" height=\"%u\" "
               "xmlns=\"http://www.w3.org/2000/svg\">\n",
            hart, W, height);
    fprintf(f, "<rect x=\"0\" y=\"%u\" width=\"%.0f\" height=\"%u\" fill=\"#f4f6f8\"/>\n", top, W, nrows * 12);
    /* gaps first, as bands behind everything */
    for (size_t i = 0; i < ne; i++) {
        if (ev[i].kind != RVT_AN_EV_GAP && ev[i].kind != RVT_AN_EV_ERROR)
            continue;
        double x = (double)((timed ? ev[i].time : ev[i].index) - lo) * scale;
        fprintf(f, "<rect x=\"%.2f\" y=\"%u\" width=\"2\" height=\"%u\" fill=\"#9aa3ad\"><title>%s at instruction "
                   "%" PRIu64 ", trace offset 0x%" PRIx64 "</title></rect>\n",
                x, top, nrows * 12, ev[i].kind == RVT_AN_EV_ERROR ? "decode error" : "gap", ev[i].index,
                ev[i].offset);
    }
    char b1[32], b2[32];
    for (size_t i = 0; i < ns; i++) {
        const struct rvt_an_span *x = &sp[i];
        if (x->depth > nrows)
            continue;
        uint64_t t0 = timed ? x->tstart : x->start, t1 = timed ? x->tend : x->end;
        double w = (double)(t1 - t0) * scale;
        if (w < 0.5)
            continue;
        double px = (double)(t0 - lo) * scale;
        const struct rvt_an_node *n = &nd[x->node];
        uint32_t h = name_hash(n->name);
        unsigned hue = n->kind == RVT_AN_TRAP ? 0 : 170 + h % 70;
        fprintf(f, "<g><title>");
        an_html_str(f, n->name);
        fprintf(f, "%s: instructions %s..%s (%" PRIu64 ")</title><rect x=\"%.2f\" y=\"%u\" width=\"%.2f\" "
                   "height=\"11\" fill=\"hsl(%u,%u%%,%u%%)\"/>",
                n->kind == RVT_AN_TRAP ? " [trap]" : "", num(x->start, b1), num(x->end, b2), x->end - x->start, px,
                top + (x->depth - 1) * 12, w, hue, n->kind == RVT_AN_TRAP ? 70 : 45, 50 + (h >> 8) % 15);
        if (w > 50) {
            int chars = (int)((w - 4) / 6.5);
            char label[200];
            snprintf(label, sizeof label, "%s", n->name);
            if ((int)strlen(label) > chars && chars > 0)
                label[chars] = 0;
            if (chars > 2) {
                fprintf(f, "<text x=\"%.2f\" y=\"%u\" fill=\"#fff\">", px + 2, top + (x->depth - 1) * 12 + 9);
                an_html_str(f, label);
                fprintf(f, "</text>");
            }
        }
        fprintf(f, "</g>\n");
    }
    /* traps: ticks under the rows */
    const unsigned ey = top + nrows * 12 + 2;
    for (size_t i = 0; i < ne; i++) {
        if (ev[i].kind != RVT_AN_EV_EXCEPTION && ev[i].kind != RVT_AN_EV_INTERRUPT)
            continue;
        double x = (double)((timed ? ev[i].time : ev[i].index) - lo) * scale;
        fprintf(f, "<rect x=\"%.2f\" y=\"%u\" width=\"1.5\" height=\"%u\" fill=\"%s\"><title>%s cause 0x%" PRIx64
                   " after 0x%" PRIx64 " (instruction %" PRIu64 ")</title></rect>\n",
                x, ey, evh - 2, ev[i].kind == RVT_AN_EV_INTERRUPT ? "#7a3fd1" : "#d1242f",
                ev[i].kind == RVT_AN_EV_INTERRUPT ? "interrupt" : "exception", ev[i].cause, ev[i].addr, ev[i].index);
    }
    /* axis */
    uint64_t step = nice_step(hi - lo, 8);
    for (uint64_t t = lo - lo % step; t <= hi; t += step) {
        if (t < lo)
            continue;
        double x = (double)(t - lo) * scale;
        fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%u\" y2=\"%u\" stroke=\"#8c959f\"/>", x, x, top - 4, top);
        if (x < W - 70) /* a label needs room before the edge */
            fprintf(f, "<text x=\"%.1f\" y=\"10\">%s</text>\n", x + 2, num(t, b1));
        if (step > UINT64_MAX - t)
            break;
    }
    fprintf(f, "<text x=\"0\" y=\"%u\" fill=\"#57606a\">%s; rows: call depth 1-%u; ticks below: "
               "exceptions (red), interrupts (purple)</text>\n",
            height - 3, timed ? "trace time" : "instructions retired", nrows);
    fprintf(f, "</svg>\n");
}

/* ---- call tree -------------------------------------------------------------------------- */

static void tree(FILE *f, const struct rvt_an_node *nd, size_t n, unsigned hart)
{
    const uint64_t total = nd[0].total;
    uint64_t min = (uint64_t)((double)total * TREE_MIN_SHARE);
    uint32_t *stk = malloc((n + 1) * 2 * sizeof *stk);
    if (!stk)
        return;
    /* iterative: push (node), and a close marker after its children */
    size_t sp = 0;
    stk[sp++] = 0;
    char b1[32], b2[32];
    fprintf(f, "<div class=\"tree\">\n");
    while (sp) {
        uint32_t v = stk[--sp];
        if (v & 0x80000000u) {
            uint32_t hidden = v & 0x7fffffffu;
            if (hidden)
                fprintf(f, "<div class=\"n\" style=\"margin-left:18px\">%" PRIu32 " smaller calls not shown</div>",
                        hidden);
            fprintf(f, "</details>\n");
            continue;
        }
        const struct rvt_an_node *x = &nd[v];
        fprintf(f, "<details%s><summary>", x->depth < 3 ? " open" : "");
        fprintf(f, "%s <span class=\"n\">%.2f%% self %s calls %" PRIu64 "</span> ", num(x->total, b1),
                pct(x->total, total), num(x->self, b2), x->calls);
        if (v == 0)
            fprintf(f, "<b>hart %u</b>", hart);
        else {
            if (x->kind == RVT_AN_TRAP)
                fprintf(f, "<span class=\"tag\">trap</span> ");
            fprintf(f, "<b>");
            an_html_str(f, x->name);
            fprintf(f, "</b>");
            if (x->kind == RVT_AN_RESUMED)
                fprintf(f, " <span class=\"tag\">resumed</span>");
        }
        if (x->unwound)
            fprintf(f, " <span class=\"tag\">unwound %" PRIu64 "</span>", x->unwound);
        if (x->unmatched)
            fprintf(f, " <span class=\"tag\">unmatched returns %" PRIu64 "</span>", x->unmatched);
        fprintf(f, "</summary>\n");
        uint32_t hidden = 0;
        size_t first = sp + 1;
        stk[sp++] = 0x80000000u; /* close marker, hidden count filled below */
        for (uint32_t c = x->first_child; c != AN_NONE; c = nd[c].next_sibling) {
            if (nd[c].total < min || nd[c].total == 0)
                hidden++;
            else
                stk[sp++] = c;
        }
        stk[first - 1] = 0x80000000u | hidden;
        for (size_t i = first, j = sp; i + 1 < j; i++, j--) {
            uint32_t t = stk[i];
            stk[i] = stk[j - 1];
            stk[j - 1] = t;
        }
    }
    fprintf(f, "</div>\n");
    free(stk);
}

/* ---- source and disassembly -------------------------------------------------------------- */

static const struct rvt_an_line *find_line(const struct rvt_an_line *lv, size_t lo, size_t hi, uint32_t line)
{
    const size_t end = hi;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (lv[mid].line < line)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < end && lv[lo].line == line ? &lv[lo] : NULL;
}

struct fileref {
    uint32_t file;
    size_t lo, hi; /* range in the lines array */
    uint64_t insns;
};

static int fileref_cmp(const void *p, const void *q)
{
    const struct fileref *x = p, *y = q;
    if (x->insns != y->insns)
        return x->insns > y->insns ? -1 : 1;
    return x->file < y->file ? -1 : x->file > y->file;
}

static void sources(FILE *f, struct rvt_analysis *a, const struct rvt_an_write_opts *o)
{
    size_t nl;
    const struct rvt_an_line *lv = rvt_an_lines(a, &nl);
    if (!a->cfg.lines) {
        fprintf(f, "<p class=\"muted\">No DWARF line tables were given (build with <code>-g</code>, or pass the "
                   "debug file with <code>--dwarf</code>): the annotated disassembly below shows the hot code.</p>\n");
        return;
    }
    struct fileref *fr = malloc((nl ? nl : 1) * sizeof *fr);
    if (!fr)
        return;
    size_t nf = 0;
    for (size_t i = 0; i < nl;) {
        size_t j = i;
        uint64_t ins = 0;
        while (j < nl && lv[j].file_id == lv[i].file_id)
            ins += lv[j++].insns;
        fr[nf++] = (struct fileref){lv[i].file_id, i, j, ins};
        i = j;
    }
    qsort(fr, nf, sizeof *fr, fileref_cmp);
    size_t shown = 0;
    char path[4096], b1[32];
    for (size_t k = 0; k < nf; k++) {
        if (!fr[k].insns)
            break;
        uint64_t hit = 0, tot = fr[k].hi - fr[k].lo;
        for (size_t i = fr[k].lo; i < fr[k].hi; i++)
            hit += lv[i].hits > 0;
        const char *rec = lv[fr[k].lo].file;
        fprintf(f, "<h3 id=\"src-%" PRIu32 "\">", fr[k].file);
        an_html_str(f, rec);
        fprintf(f, " <span class=\"muted\">%s instructions; lines %" PRIu64 " of %" PRIu64 " executed (%.1f%%)</span>"
                   "</h3>\n",
                num(fr[k].insns, b1), hit, tot, pct(hit, tot));
        const char *p = an_find_source(rec, o->source_dir, path, sizeof path);
        FILE *sf = p && shown < MAX_SRC_LINES ? fopen(p, "r") : NULL;
        if (!sf) {
            fprintf(f, "<p class=\"muted\">%s; the lines with code:</p>\n",
                    shown >= MAX_SRC_LINES ? "(source lines shown up to the report's limit)"
                                           : "source file not found here (give <code>--source-dir</code>)");
            fprintf(f, "<table class=\"src\"><tr><th>line</th><th>hits</th><th>instructions</th><th>branches</th></tr>\n");
            for (size_t i = fr[k].lo; i < fr[k].hi; i++)
                fprintf(f, "<tr class=\"%s\"><td>%" PRIu32 "</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%" PRIu32
                           "/%" PRIu32 "/%" PRIu32 "</td></tr>\n",
                        lv[i].hits ? "hit" : "miss", lv[i].line, lv[i].hits, lv[i].insns, lv[i].branches_both,
                        lv[i].branches_one, lv[i].branches);
            fprintf(f, "</table>\n");
            continue;
        }
        fprintf(f, "<table class=\"src\"><tr><th>line</th><th>hits</th><th>instructions</th><th>branches</th>"
                   "<th class=\"l\">source</th></tr>\n");
        char text[4096];
        uint32_t no = 0;
        while (fgets(text, sizeof text, sf)) {
            size_t len = strlen(text);
            bool whole = len && text[len - 1] == '\n';
            if (whole)
                text[--len] = 0;
            no++;
            const struct rvt_an_line *l = find_line(lv, fr[k].lo, fr[k].hi, no);
            const char *cls = !l ? "" : !l->hits ? "miss" : l->branches && l->branches_both < l->branches ? "part" : "hit";
            fprintf(f, "<tr class=\"%s\"><td>%" PRIu32 "</td>", cls, no);
            if (l)
                fprintf(f, "<td>%" PRIu64 "</td><td>%" PRIu64 "</td>", l->hits, l->insns);
            else
                fprintf(f, "<td></td><td></td>");
            if (l && l->branches)
                fprintf(f, "<td>%" PRIu32 "/%" PRIu32 "/%" PRIu32 "</td>", l->branches_both, l->branches_one,
                        l->branches);
            else
                fprintf(f, "<td></td>");
            fprintf(f, "<td class=\"t\">");
            an_html_str(f, text);
            fprintf(f, "</td></tr>\n");
            shown++;
            while (!whole && fgets(text, sizeof text, sf)) { /* rest of an overlong line */
                len = strlen(text);
                whole = len && text[len - 1] == '\n';
            }
        }
        fclose(sf);
        fprintf(f, "</table>\n");
    }
    free(fr);
}

static void disasm_fn(FILE *f, struct rvt_analysis *a, const struct rvt_an_func *fn)
{
    const struct an_fn *af = an_fn_get(a, fn->id);
    uint64_t end = af && af->end > fn->addr ? af->end : 0;
    char b1[32], text[96], where[300];
    fprintf(f, "<h3>");
    an_html_str(f, fn->name);
    fprintf(f, " <span class=\"muted\">self %s instructions (%.2f%%), %" PRIu64 "/%" PRIu64
               " instructions executed</span></h3>\n",
            num(fn->self, b1), pct(fn->self, a->sum.insns), fn->insns_hit, fn->insns_total);
    fprintf(f, "<table class=\"src\"><tr><th>count</th><th>taken</th><th>not taken</th><th class=\"l\">address</th>"
               "<th class=\"l\">instruction</th><th class=\"l\">line</th></tr>\n");
    const char *last_file = NULL;
    uint32_t last_line = 0;
    unsigned shown = 0;
    if (!end) {
        /* no static range: the executed instructions of the function */
        size_t ni;
        const struct rvt_an_insn *iv = rvt_an_insns(a, &ni);
        for (size_t i = 0; i < ni && shown < ASM_MAX_INSNS; i++) {
            if (an_fn_of(a, iv[i].addr) != fn->id)
                continue;
            struct rvt_insn in;
            if (rvt_img_insn(a->cfg.image, iv[i].addr, &in) < 0)
                continue;
            rvt_isa_disasm(&in, a->xlen, text, sizeof text);
            fprintf(f, "<tr class=\"hit\"><td>%" PRIu64 "</td><td></td><td></td><td class=\"t mono\">%" PRIx64
                       "</td><td class=\"t mono\">",
                    iv[i].count, iv[i].addr);
            an_html_str(f, text);
            fprintf(f, "</td><td></td></tr>\n");
            shown++;
        }
        fprintf(f, "</table>\n");
        return;
    }
    for (uint64_t pc = fn->addr; pc < end && shown < ASM_MAX_INSNS;) {
        struct rvt_insn in;
        if (rvt_img_insn(a->cfg.image, pc, &in) < 0)
            break;
        if (!(in.flags & RVT_IF_VALID) || in.len == 0 || in.len > 4) {
            pc += 2;
            continue;
        }
        const struct rvt_an_insn *x = an_insn_at(a, pc);
        rvt_isa_disasm(&in, a->xlen, text, sizeof text);
        where[0] = 0;
        struct rvt_srcline l;
        if (a->cfg.lines && rvt_srclines_find(a->cfg.lines, pc, &l) && l.line &&
            (l.file != last_file || l.line != last_line)) {
            const char *base = strrchr(l.file, '/');
            snprintf(where, sizeof where, "%s:%" PRIu32, base ? base + 1 : l.file, l.line);
            last_file = l.file;
            last_line = l.line;
        }
        const char *cls = !x ? "miss" : in.cf == RVT_CF_BRANCH && !(x->taken && x->not_taken) ? "part" : "hit";
        fprintf(f, "<tr class=\"%s\"><td>%" PRIu64 "</td>", cls, x ? x->count : 0);
        if (in.cf == RVT_CF_BRANCH)
            fprintf(f, "<td>%" PRIu64 "</td><td>%" PRIu64 "</td>", x ? x->taken : 0, x ? x->not_taken : 0);
        else
            fprintf(f, "<td></td><td></td>");
        fprintf(f, "<td class=\"t mono\">%" PRIx64 "</td><td class=\"t mono\">", pc);
        an_html_str(f, text);
        fprintf(f, "</td><td class=\"t mono\">");
        an_html_str(f, where);
        fprintf(f, "</td></tr>\n");
        pc += in.len;
        shown++;
    }
    fprintf(f, "</table>\n");
}

/* ---- the page ------------------------------------------------------------------------------ */

static void card(FILE *f, const char *value, const char *label)
{
    fprintf(f, "<div class=\"card\"><b>%s</b><span>%s</span></div>\n", value, label);
}

static const char *ev_kind(uint8_t k)
{
    static const char *const names[] = {"?", "exception", "interrupt", "gap", "decode error"};
    return k < 5 ? names[k] : "?";
}

int an_write_html(struct rvt_analysis *a, FILE *f, const struct rvt_an_write_opts *o)
{
    struct rvt_an_summary s;
    rvt_an_summary(a, -1, &s, sizeof s);
    unsigned harts[RVT_AN_MAX_HARTS];
    unsigned nh = rvt_an_harts(a, harts, RVT_AN_MAX_HARTS);
    char b1[32], b2[64];
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>rvtrace report");
    if (o->title) {
        fprintf(f, ": ");
        an_html_str(f, o->title);
    }
    fprintf(f, "</title>\n<style>%s</style></head><body>\n<header><h1>rvtrace report", style);
    if (o->title) {
        fprintf(f, ": ");
        an_html_str(f, o->title);
    }
    fprintf(f, "</h1>\n");
    for (const char *const *n = o->notes; n && *n; n++) {
        fprintf(f, "<p>");
        an_html_str(f, *n);
        fprintf(f, "</p>\n");
    }
    fprintf(f, "<p>rvtrace %s</p></header>\n<main>\n", RVT_VERSION_STRING);
    fprintf(f, "<nav><a href=\"#summary\">Summary</a><a href=\"#hot\">Hot functions</a><a href=\"#flame\">Flame graph</a>"
               "<a href=\"#timeline\">Timeline</a><a href=\"#tree\">Call tree</a><a href=\"#source\">Source</a>"
               "<a href=\"#asm\">Disassembly</a><a href=\"#events\">Traps and gaps</a><a href=\"#coverage\">Coverage</a>"
               "%s</nav>\n",
            o->links && o->links[0] ? "<a href=\"#files\">Files</a>" : "");

    /* summary */
    fprintf(f, "<h2 id=\"summary\">Summary</h2>\n<div class=\"cards\">\n");
    card(f, num(s.insns, b1), "instructions retired");
    snprintf(b2, sizeof b2, "%u", nh);
    card(f, b2, nh == 1 ? "hart" : "harts");
    card(f, num(s.calls, b1), "calls");
    card(f, num(s.traps, b1), "traps");
    snprintf(b2, sizeof b2, "%" PRIu64 " / %" PRIu64, s.funcs_hit, s.funcs_total);
    card(f, b2, "functions executed");
    snprintf(b2, sizeof b2, "%.1f%%", pct(s.insns_hit, s.insns_total));
    card(f, b2, "instruction coverage");
    if (a->cfg.lines) {
        snprintf(b2, sizeof b2, "%.1f%%", pct(s.lines_hit, s.lines_total));
        card(f, b2, "line coverage");
    }
    snprintf(b2, sizeof b2, "%.1f%%",
             pct(2 * s.branches_both + s.branches_taken_only + s.branches_not_taken_only, 2 * s.branches_total));
    card(f, b2, "branch directions taken");
    snprintf(b2, sizeof b2, "%" PRIu64 " / %" PRIu64, s.gaps, s.errors);
    card(f, b2, "gaps / decode errors");
    snprintf(b2, sizeof b2, "%" PRIu64 " / %" PRIu64, s.unwound, s.unmatched);
    card(f, b2, "frames unwound / unmatched returns");
    if (s.has_time) {
        card(f, num(s.time_last - s.time_first, b1), "time units traced");
    }
    fprintf(f, "</div>\n");
    if (s.errors || s.gaps)
        fprintf(f, "<div class=\"warn\">The trace is not complete: %" PRIu64 " gap(s) and %" PRIu64
                   " decode error(s) (see <a href=\"#events\">Traps and gaps</a>); the call stacks restart after each.</div>\n",
                s.gaps, s.errors);
    if (s.depth_overflow)
        fprintf(f, "<div class=\"warn\">%" PRIu64 " calls were deeper than the depth limit and are not in the tree.</div>\n",
                s.depth_overflow);
    fprintf(f, "<table><tr><th class=\"l\">hart</th><th>instructions</th><th>calls</th><th>returns</th>"
               "<th>tail calls</th><th>exceptions</th><th>interrupts</th><th>trap returns</th><th>max depth</th>"
               "<th>gaps</th><th>errors</th></tr>\n");
    for (unsigned i = 0; i < nh; i++) {
        struct rvt_an_summary t;
        rvt_an_summary(a, (int)harts[i], &t, sizeof t);
        fprintf(f, "<tr><td class=\"l\">hart %u</td><td>%s</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%" PRIu64
                   "</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%" PRIu64
                   "</td><td>%" PRIu64 "</td></tr>\n",
                harts[i], num(t.insns, b1), t.calls, t.returns, t.tail_calls, t.traps - t.interrupts, t.interrupts,
                t.trap_returns, t.max_depth, t.gaps, t.errors);
    }
    fprintf(f, "</table>\n");

    /* hot functions */
    size_t nf;
    const struct rvt_an_func *fv = rvt_an_funcs(a, -1, &nf);
    fprintf(f, "<h2 id=\"hot\">Hot functions</h2>\n<p class=\"muted\">Self: instructions at the function's own "
               "addresses. Total: instructions while it was on the call stack (recursion counted once).</p>\n");
    fprintf(f, "<table><tr><th>#</th><th class=\"l\">function</th><th>self</th><th>self %%</th><th class=\"l\"></th>"
               "<th>total</th><th>total %%</th><th>calls</th><th>coverage</th>%s</tr>\n",
            s.has_time ? "<th>self time</th>" : "");
    uint64_t maxself = nf ? fv[0].self : 1;
    for (size_t i = 0; i < nf && i < TOP_FUNCS; i++) {
        fprintf(f, "<tr><td>%zu</td><td class=\"l\">", i + 1);
        an_html_str(f, fv[i].name);
        fprintf(f, "</td><td>%s</td><td>%.2f%%</td><td class=\"l\"><span class=\"bar\" style=\"width:%.0fpx\"></span>"
                   "</td><td>%" PRIu64 "</td><td>%.2f%%</td><td>%" PRIu64 "</td>",
                num(fv[i].self, b1), pct(fv[i].self, s.insns),
                maxself ? 160.0 * (double)fv[i].self / (double)maxself : 0.0, fv[i].total, pct(fv[i].total, s.insns),
                fv[i].calls);
        if (fv[i].insns_total)
            fprintf(f, "<td>%.0f%%</td>", pct(fv[i].insns_hit, fv[i].insns_total));
        else
            fprintf(f, "<td></td>");
        if (s.has_time)
            fprintf(f, "<td>%" PRIu64 "</td>", fv[i].self_time);
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "</table>\n");
    if (nf > TOP_FUNCS)
        fprintf(f, "<p class=\"muted\">%zu more functions executed (the profile export lists them all).</p>\n",
                nf - TOP_FUNCS);

    /* flame graph */
    fprintf(f, "<h2 id=\"flame\">Flame graph</h2>\n<p class=\"muted\">Width: instructions (inclusive); "
               "bottom: the outermost frames; blue: trap handlers, grey: frames whose entry the trace did not show. "
               "Hover for counts.</p>\n");
    for (unsigned i = 0; i < nh; i++) {
        size_t nn;
        const struct rvt_an_node *nd = rvt_an_nodes(a, harts[i], &nn);
        if (nh > 1)
            fprintf(f, "<h3>hart %u</h3>\n", harts[i]);
        flame(f, nd, nn, harts[i]);
    }

    /* timeline */
    fprintf(f, "<h2 id=\"timeline\">Timeline</h2>\n");
    for (unsigned i = 0; i < nh; i++) {
        struct rvt_an_summary t;
        rvt_an_summary(a, (int)harts[i], &t, sizeof t);
        fprintf(f, "<h3>hart %u</h3>\n", harts[i]);
        if (t.spans_dropped)
            fprintf(f, "<p class=\"muted\">%" PRIu64 " frames shorter than %" PRIu64
                       " instructions are not kept in the timeline.</p>\n",
                    t.spans_dropped, t.span_min);
        timeline(f, a, harts[i]);
    }

    /* call tree */
    fprintf(f, "<h2 id=\"tree\">Call tree</h2>\n<p class=\"muted\">Inclusive instructions, share of the hart, "
               "self instructions and calls; frames under %.1f%% are folded away (the calltree export has them "
               "all).</p>\n",
            100 * TREE_MIN_SHARE);
    for (unsigned i = 0; i < nh; i++) {
        size_t nn;
        const struct rvt_an_node *nd = rvt_an_nodes(a, harts[i], &nn);
        tree(f, nd, nn, harts[i]);
    }

    /* source */
    fprintf(f, "<h2 id=\"source\">Source</h2>\n<p class=\"muted\">Per line: times it ran, instructions executed "
               "at its addresses, branches both ways/one way/total. Green: executed, red: never, yellow: a branch "
               "went only one way.</p>\n");
    sources(f, a, o);

    /* disassembly */
    fprintf(f, "<h2 id=\"asm\">Disassembly of the hottest functions</h2>\n");
    for (size_t i = 0; i < nf && i < ASM_FUNCS; i++)
        if (fv[i].self)
            disasm_fn(f, a, &fv[i]);

    /* events */
    fprintf(f, "<h2 id=\"events\">Traps and gaps</h2>\n");
    for (unsigned i = 0; i < nh; i++) {
        size_t ne;
        const struct rvt_an_event *ev = rvt_an_events(a, harts[i], &ne);
        struct rvt_an_summary t;
        rvt_an_summary(a, (int)harts[i], &t, sizeof t);
        fprintf(f, "<h3>hart %u: %" PRIu64 " traps, %" PRIu64 " gaps, %" PRIu64 " errors</h3>\n", harts[i], t.traps,
                t.gaps, t.errors);
        if (!ne)
            continue;
        fprintf(f, "<table><tr><th>instruction</th>%s<th class=\"l\">what</th><th>cause</th><th class=\"l\">after</th>"
                   "<th class=\"l\">handler</th><th>trace offset</th><th class=\"l\">detail</th></tr>\n",
                t.has_time ? "<th>time</th>" : "");
        for (size_t k = 0; k < ne && k < MAX_EVENTS_SHOWN; k++) {
            const struct rvt_an_event *e = &ev[k];
            bool trap = e->kind == RVT_AN_EV_EXCEPTION || e->kind == RVT_AN_EV_INTERRUPT;
            fprintf(f, "<tr><td>%s</td>", num(e->index, b1));
            if (t.has_time)
                fprintf(f, "<td>%" PRIu64 "</td>", e->time);
            fprintf(f, "<td class=\"l\">%s</td>", ev_kind(e->kind));
            if (trap)
                fprintf(f, "<td>0x%" PRIx64 "</td>", e->cause);
            else
                fprintf(f, "<td></td>");
            fprintf(f, "<td class=\"l mono\">0x%" PRIx64 " ", e->addr);
            const struct an_fn *af = an_fn_get(a, an_fn_of(a, e->addr));
            if (af && af->has_sym)
                an_html_str(f, af->name);
            fprintf(f, "</td><td class=\"l mono\">");
            if (trap && e->handler) {
                fprintf(f, "0x%" PRIx64 " ", e->handler);
                af = an_fn_get(a, an_fn_of(a, e->handler));
                if (af && af->has_sym)
                    an_html_str(f, af->name);
            }
            fprintf(f, "</td><td>0x%" PRIx64 "</td><td class=\"l\">", e->offset);
            if (trap)
                fprintf(f, "tval 0x%" PRIx64, e->tval);
            if (e->text)
                an_html_str(f, e->text);
            fprintf(f, "</td></tr>\n");
        }
        fprintf(f, "</table>\n");
        if (ne > MAX_EVENTS_SHOWN || t.events_dropped)
            fprintf(f, "<p class=\"muted\">%" PRIu64 " more not listed.</p>\n",
                    (uint64_t)(ne > MAX_EVENTS_SHOWN ? ne - MAX_EVENTS_SHOWN : 0) + t.events_dropped);
    }

    /* coverage */
    uint64_t brx = s.branches_both + s.branches_taken_only + s.branches_not_taken_only;
    fprintf(f, "<h2 id=\"coverage\">Coverage</h2>\n<table>\n");
    fprintf(f, "<tr><td class=\"l\">functions</td><td>%" PRIu64 " of %" PRIu64 "</td><td>%.2f%%</td></tr>\n",
            s.funcs_hit, s.funcs_total, pct(s.funcs_hit, s.funcs_total));
    fprintf(f, "<tr><td class=\"l\">instructions</td><td>%" PRIu64 " of %" PRIu64 "</td><td>%.2f%%</td></tr>\n",
            s.insns_hit, s.insns_total, pct(s.insns_hit, s.insns_total));
    fprintf(f, "<tr><td class=\"l\">basic blocks</td><td>%" PRIu64 " of %" PRIu64 "</td><td>%.2f%%</td></tr>\n",
            s.bblocks_hit, s.bblocks_total, pct(s.bblocks_hit, s.bblocks_total));
    if (a->cfg.lines)
        fprintf(f, "<tr><td class=\"l\">source lines</td><td>%" PRIu64 " of %" PRIu64 "</td><td>%.2f%%</td></tr>\n",
                s.lines_hit, s.lines_total, pct(s.lines_hit, s.lines_total));
    fprintf(f, "<tr><td class=\"l\">branches executed</td><td>%" PRIu64 " of %" PRIu64 "</td><td>%.2f%%</td></tr>\n",
            brx, s.branches_total, pct(brx, s.branches_total));
    fprintf(f, "<tr><td class=\"l\">&nbsp; both directions</td><td>%" PRIu64 "</td><td></td></tr>\n", s.branches_both);
    fprintf(f, "<tr><td class=\"l\">&nbsp; taken only</td><td>%" PRIu64 "</td><td></td></tr>\n", s.branches_taken_only);
    fprintf(f, "<tr><td class=\"l\">&nbsp; not taken only</td><td>%" PRIu64 "</td><td></td></tr>\n",
            s.branches_not_taken_only);
    fprintf(f, "</table>\n<h3>Executed functions</h3>\n<table><tr><th class=\"l\">function</th><th>instructions hit</th>"
               "<th>of</th><th>%%</th><th>branches both ways</th><th>one way</th><th>of</th></tr>\n");
    uint64_t never = 0;
    for (size_t u = 0; u < a->nuniverse; u++) {
        uint32_t id = a->universe[u];
        const struct an_fstat *x = &a->fstat[id];
        if (!x->insns_total)
            continue;
        if (!x->insns_hit) {
            never++;
            continue;
        }
        fprintf(f, "<tr class=\"%s\"><td class=\"l\">", x->insns_hit == x->insns_total ? "hit" : "part");
        an_html_str(f, a->fn[id].name);
        fprintf(f, "</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%.1f%%</td><td>%" PRIu64 "</td><td>%" PRIu64
                   "</td><td>%" PRIu64 "</td></tr>\n",
                x->insns_hit, x->insns_total, pct(x->insns_hit, x->insns_total), x->branches_both, x->branches_one,
                x->branches_total);
    }
    fprintf(f, "</table>\n<details><summary>%" PRIu64 " functions never executed</summary><p class=\"mono\">\n", never);
    for (size_t u = 0; u < a->nuniverse; u++) {
        uint32_t id = a->universe[u];
        if (a->fstat[id].insns_total && !a->fstat[id].insns_hit) {
            an_html_str(f, a->fn[id].name);
            fprintf(f, " ");
        }
    }
    fprintf(f, "</p></details>\n");

    if (o->links && o->links[0]) {
        fprintf(f, "<h2 id=\"files\">Files</h2>\n<ul>\n");
        for (const char *const *l = o->links; l[0] && l[1]; l += 2) {
            fprintf(f, "<li><a href=\"");
            an_html_str(f, l[0]);
            fprintf(f, "\">");
            an_html_str(f, l[0]);
            fprintf(f, "</a> — ");
            an_html_str(f, l[1]);
            fprintf(f, "</li>\n");
        }
        fprintf(f, "</ul>\n");
    }
    fprintf(f, "</main></body></html>\n");
    return ferror(f) ? -RVT_ERR_IO : 0;
}
