/* Reader and writer of the E-Trace reference flow's encoder-port CSV. */
#include "refcsv.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BLOCKS 32
#define LINE_MAX_LEN 4096

/* Column index per field (per block for the replicated ones), -1 if absent. */
struct layout {
    int cause, tval, priv, context, ctype, time, trigger;
    int itype[MAX_BLOCKS], iaddr[MAX_BLOCKS], iretire[MAX_BLOCKS], ilastsize[MAX_BLOCKS], sijump[MAX_BLOCKS];
    unsigned blocks;  /* replicated groups present (1 + highest N) */
    unsigned ncols;
};

struct parser {
    const char *name;
    uint64_t line;
    bool have_header;
    struct layout L;
    struct rvt_diag *d;
};

static int parse_num(const char *s, bool hex, uint64_t *v)
{
    while (isspace((unsigned char)*s))
        s++;
    int base = hex ? 16 : 10;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    }
    if (!isxdigit((unsigned char)*s))
        return -1;
    errno = 0;
    char *end;
    unsigned long long x = strtoull(s, &end, base);
    while (isspace((unsigned char)*end))
        end++;
    if (errno || *end)
        return -1;
    *v = x;
    return 0;
}

/* Split a line into at most max comma-separated fields (in place). */
static unsigned split(char *line, char **f, unsigned max)
{
    unsigned n = 0;
    char *s = line;
    for (;;) {
        if (n < max)
            f[n] = s;
        n++;
        char *c = strchr(s, ',');
        if (!c)
            break;
        *c = 0;
        s = c + 1;
    }
    return n;
}

static int col_index(const char *name, const char *base, unsigned *block)
{
    size_t n = strlen(base);
    if (strncmp(name, base, n) != 0 || name[n] != '_' || !isdigit((unsigned char)name[n + 1]))
        return 0;
    char *end;
    unsigned long b = strtoul(name + n + 1, &end, 10);
    if (*end || b >= MAX_BLOCKS)
        return -1;
    *block = (unsigned)b;
    return 1;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = 0;
    return s;
}

static int parse_header(struct parser *ps, char *line)
{
    struct layout *L = &ps->L;
    memset(L, 0xff, sizeof *L); /* all -1 */
    L->blocks = 0;
    char *f[256];
    unsigned n = split(line, f, 256);
    if (n > 256)
        return rvt_fail(ps->d, RVT_ERR_FORMAT, "%s:%" PRIu64 ": more than 256 columns", ps->name, ps->line);
    L->ncols = n;
    for (unsigned i = 0; i < n; i++) {
        char *c = trim(f[i]);
        int *slot = NULL;
        unsigned b = 0;
        int r;
        if (!strcmp(c, "cause"))
            slot = &L->cause;
        else if (!strcmp(c, "tval"))
            slot = &L->tval;
        else if (!strcmp(c, "priv"))
            slot = &L->priv;
        else if (!strcmp(c, "context"))
            slot = &L->context;
        else if (!strcmp(c, "ctype"))
            slot = &L->ctype;
        else if (!strcmp(c, "time"))
            slot = &L->time;
        else if (!strcmp(c, "trigger"))
            slot = &L->trigger;
        else if ((r = col_index(c, "itype", &b)) != 0)
            slot = r > 0 ? &L->itype[b] : NULL;
        else if ((r = col_index(c, "iaddr", &b)) != 0)
            slot = r > 0 ? &L->iaddr[b] : NULL;
        else if ((r = col_index(c, "iretire", &b)) != 0)
            slot = r > 0 ? &L->iretire[b] : NULL;
        else if ((r = col_index(c, "ilastsize", &b)) != 0)
            slot = r > 0 ? &L->ilastsize[b] : NULL;
        else if ((r = col_index(c, "sijump", &b)) != 0)
            slot = r > 0 ? &L->sijump[b] : NULL;
        if (!slot)
            return rvt_fail(ps->d, RVT_ERR_FORMAT,
                            "%s:%" PRIu64 ": unknown column \"%s\" (expected itype_N, cause, tval, priv, iaddr_N, "
                            "context, ctype, iretire_N, ilastsize_N, time, sijump_N, trigger)",
                            ps->name, ps->line, c);
        if (*slot >= 0)
            return rvt_fail(ps->d, RVT_ERR_FORMAT, "%s:%" PRIu64 ": column \"%s\" appears twice", ps->name,
                            ps->line, c);
        *slot = (int)i;
        if (slot >= &L->itype[0] && slot < &L->sijump[MAX_BLOCKS] && b + 1 > L->blocks)
            L->blocks = b + 1;
    }
    const char *missing = NULL;
    if (L->cause < 0)
        missing = "cause";
    else if (L->tval < 0)
        missing = "tval";
    else if (L->priv < 0)
        missing = "priv";
    else if (L->context < 0)
        missing = "context";
    else if (L->ctype < 0)
        missing = "ctype";
    for (unsigned b = 0; !missing && b < (L->blocks ? L->blocks : 1); b++) {
        if (L->itype[b] < 0)
            missing = "itype_N";
        else if (L->iaddr[b] < 0)
            missing = "iaddr_N";
        else if (L->iretire[b] < 0)
            missing = "iretire_N";
        else if (L->ilastsize[b] < 0)
            missing = "ilastsize_N";
        if (missing && b > 0) {
            return rvt_fail(ps->d, RVT_ERR_FORMAT, "%s:%" PRIu64 ": block %u lacks its %s column", ps->name,
                            ps->line, b, missing);
        }
    }
    if (missing)
        return rvt_fail(ps->d, RVT_ERR_FORMAT,
                        "%s:%" PRIu64 ": required column \"%s\" missing (expected the header "
                        "itype_0,cause,tval,priv,iaddr_0,context,ctype,iretire_0,ilastsize_0)",
                        ps->name, ps->line, missing);
    ps->have_header = true;
    return 0;
}

static int field(struct parser *ps, char **f, int col, const char *what, bool hex, uint64_t max, uint64_t *v)
{
    if (col < 0) {
        *v = 0;
        return 0;
    }
    if (parse_num(f[col], hex, v) || *v > max)
        return rvt_fail(ps->d, RVT_ERR_FORMAT, "%s:%" PRIu64 ": column %s: expected %s, got \"%s\"", ps->name,
                        ps->line, what, hex ? "a hexadecimal number" : "a decimal number", f[col]);
    return 0;
}

/* Parse one data line into up to MAX_BLOCKS records; returns the count. */
static int parse_row(struct parser *ps, char *line, struct rvt_ing_rec *out)
{
    struct layout *L = &ps->L;
    char *f[256];
    unsigned n = split(line, f, 256);
    if (n != L->ncols)
        return rvt_fail(ps->d, RVT_ERR_FORMAT, "%s:%" PRIu64 ": %u fields, the header has %u", ps->name, ps->line,
                        n, L->ncols);
    uint64_t cause, tval, priv, context, ctype, time, trigger;
    int rc;
    if ((rc = field(ps, f, L->cause, "cause", false, 0xffffffffu, &cause)) < 0 ||
        (rc = field(ps, f, L->tval, "tval", true, UINT64_MAX, &tval)) < 0 ||
        (rc = field(ps, f, L->priv, "priv", false, 7, &priv)) < 0 ||
        (rc = field(ps, f, L->context, "context", false, UINT64_MAX, &context)) < 0 ||
        (rc = field(ps, f, L->ctype, "ctype", false, 3, &ctype)) < 0 ||
        (rc = field(ps, f, L->time, "time", false, UINT64_MAX, &time)) < 0 ||
        (rc = field(ps, f, L->trigger, "trigger", false, UINT64_MAX, &trigger)) < 0)
        return rc;
    if (trigger & 3u)
        return rvt_fail(ps->d, RVT_ERR_FORMAT,
                        "%s:%" PRIu64 ": trigger %" PRIu64 ": trace-on/off triggers (bits 0-1) are not supported "
                        "in the input (use rvtrace --trigger); only trace-notify (bit 2+N for block N)",
                        ps->name, ps->line, trigger);
    unsigned count = 0;
    bool trap_seen = false;
    for (unsigned b = 0; b < (L->blocks ? L->blocks : 1); b++) {
        uint64_t itype, iaddr, iretire, ilastsize, sij;
        if ((rc = field(ps, f, L->itype[b], "itype", false, 15, &itype)) < 0 ||
            (rc = field(ps, f, L->iaddr[b], "iaddr", true, UINT64_MAX, &iaddr)) < 0 ||
            (rc = field(ps, f, L->iretire[b], "iretire", false, 0xffffffffu, &iretire)) < 0 ||
            (rc = field(ps, f, L->ilastsize[b], "ilastsize", false, 3, &ilastsize)) < 0 ||
            (rc = field(ps, f, L->sijump[b], "sijump", false, 1, &sij)) < 0)
            return rc;
        if (iretire == 0 && itype == 0)
            continue; /* nothing retired in this group */
        if (trap_seen)
            return rvt_fail(ps->d, RVT_ERR_FORMAT,
                            "%s:%" PRIu64 ": block %u follows an exception or interrupt in the same cycle "
                            "(the trap must be the newest block)",
                            ps->name, ps->line, b);
        if (itype == 7)
            return rvt_fail(ps->d, RVT_ERR_FORMAT, "%s:%" PRIu64 ": itype 7 is reserved", ps->name, ps->line);
        struct rvt_ing_rec *r = &out[count];
        memset(r, 0, sizeof *r);
        r->iaddr = iaddr;
        r->itype = (uint8_t)itype;
        r->ilastsize = (uint8_t)ilastsize;
        /* 0/1: instructions (single retirement); more: halfwords */
        r->iretire = iretire <= 1 ? (uint32_t)(iretire << ilastsize) : (uint32_t)iretire;
        if (r->iretire && r->iretire < (1u << ilastsize))
            return rvt_fail(ps->d, RVT_ERR_FORMAT,
                            "%s:%" PRIu64 ": iretire %" PRIu64 " halfwords is shorter than the last instruction "
                            "(2^%" PRIu64 " halfwords)",
                            ps->name, ps->line, iretire, ilastsize);
        r->priv = (uint8_t)priv;
        r->context = context;
        if (count == 0)
            r->ctype = (uint8_t)ctype;
        else
            r->flags |= RVT_ING_SAME_CYCLE;
        if (itype == RVT_ITYPE_EXCEPTION || itype == RVT_ITYPE_INTERRUPT) {
            r->cause = (uint32_t)cause;
            r->tval = tval;
            trap_seen = true;
        }
        if (L->time >= 0) {
            r->flags |= RVT_ING_HAS_TIME;
            r->time = time;
        }
        if (sij)
            r->flags |= RVT_ING_SIJUMP;
        if (b + 2 < 64 && ((trigger >> (b + 2)) & 1u))
            r->flags |= RVT_ING_NOTIFY;
        count++;
    }
    return (int)count;
}

/* Handle one text line (without its newline). */
static int parse_line(struct parser *ps, char *line, struct rvt_ing_rec *out)
{
    ps->line++;
    size_t n = strlen(line);
    if (n && line[n - 1] == '\r')
        line[--n] = 0;
    char *s = trim(line);
    if (!*s || *s == '#')
        return 0;
    if (!ps->have_header)
        return parse_header(ps, s) < 0 ? -ps->d->code : 0;
    return parse_row(ps, s, out);
}

int rvt_refcsv_parse_mem(const char *text, size_t len, const char *name,
                         int (*fn)(void *ctx, const struct rvt_ing_rec *r), void *ctx, struct rvt_diag *d)
{
    struct parser ps = {.name = name, .d = d};
    struct rvt_ing_rec recs[MAX_BLOCKS];
    char line[LINE_MAX_LEN];
    size_t pos = 0;
    int total = 0;
    while (pos < len) {
        size_t e = pos;
        while (e < len && text[e] != '\n')
            e++;
        if (e - pos >= sizeof line)
            return rvt_fail(d, RVT_ERR_FORMAT, "%s:%" PRIu64 ": line longer than %d characters", name, ps.line + 1,
                            LINE_MAX_LEN - 1);
        memcpy(line, text + pos, e - pos);
        line[e - pos] = 0;
        pos = e < len ? e + 1 : e;
        int n = parse_line(&ps, line, recs);
        if (n < 0)
            return n;
        for (int i = 0; i < n; i++) {
            int rc = fn(ctx, &recs[i]);
            if (rc < 0)
                return rc;
        }
        total += n;
    }
    if (!ps.have_header)
        return rvt_fail(d, RVT_ERR_FORMAT, "%s: no header line", name);
    return total;
}

/* ---- streamed reader ------------------------------------------------------- */

struct csv_src {
    FILE *f;
    char *name;
    struct parser ps;
    struct rvt_diag diag;
    unsigned xlen;
    struct rvt_ing_rec q[MAX_BLOCKS];
    unsigned qhead, qlen;
    char buf[LINE_MAX_LEN];
};

static int src_next(void *self, struct rvt_ing_rec *rec)
{
    struct csv_src *s = self;
    if (s->diag.code)
        return -s->diag.code;
    while (!s->qlen) {
        if (!fgets(s->buf, sizeof s->buf, s->f)) {
            if (ferror(s->f))
                return rvt_fail(&s->diag, RVT_ERR_IO, "%s: read error: %s", s->name, strerror(errno));
            if (!s->ps.have_header)
                return rvt_fail(&s->diag, RVT_ERR_FORMAT, "%s: empty file (no header line)", s->name);
            return 0;
        }
        size_t n = strlen(s->buf);
        if (n == sizeof s->buf - 1 && s->buf[n - 1] != '\n' && !feof(s->f))
            return rvt_fail(&s->diag, RVT_ERR_FORMAT, "%s:%" PRIu64 ": line longer than %d characters", s->name,
                            s->ps.line + 1, LINE_MAX_LEN - 2);
        if (n && s->buf[n - 1] == '\n')
            s->buf[n - 1] = 0;
        int k = parse_line(&s->ps, s->buf, s->q);
        if (k < 0)
            return k;
        s->qhead = 0;
        s->qlen = (unsigned)k;
    }
    *rec = s->q[s->qhead++];
    s->qlen--;
    return 1;
}

static const char *src_error(const void *self)
{
    return ((const struct csv_src *)self)->diag.msg;
}

static void src_close(void *self)
{
    struct csv_src *s = self;
    if (s->f && s->f != stdin)
        fclose(s->f);
    free(s->name);
    free(s);
}

static unsigned src_xlen(const void *self)
{
    return ((const struct csv_src *)self)->xlen;
}

static const struct rvt_ing_source_ops csv_ops = {src_next, src_error, src_close, src_xlen};

int rvt_refcsv_open(struct rvt_ing_reader **out, const char *path, const struct rvt_ing_reader_config *cfg,
                    struct rvt_diag *diag)
{
    *out = NULL;
    struct csv_src *s = calloc(1, sizeof *s);
    if (!s)
        return rvt_fail(diag, RVT_ERR_NOMEM, "%s: out of memory", path);
    s->name = strdup(path);
    if (!s->name) {
        free(s);
        return rvt_fail(diag, RVT_ERR_NOMEM, "%s: out of memory", path);
    }
    s->f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
    if (!s->f) {
        int e = errno;
        src_close(s);
        return rvt_fail(diag, RVT_ERR_IO, "%s: cannot open: %s", path, strerror(e));
    }
    s->ps.name = s->name;
    s->ps.d = &s->diag;
    s->xlen = cfg && cfg->xlen ? cfg->xlen : (cfg && cfg->image ? rvt_img_xlen(cfg->image) : 64);
    *out = rvt_ing_reader_wrap(&csv_ops, s, RVT_ING_FMT_REFCSV);
    if (!*out) {
        src_close(s);
        return rvt_fail(diag, RVT_ERR_NOMEM, "%s: out of memory", path);
    }
    return 0;
}

/* ---- writer ------------------------------------------------------------------ */

int rvt_refcsv_write_header_ex(FILE *f, unsigned flags)
{
    int n = fprintf(f, "itype_0,cause,tval,priv,iaddr_0,context,ctype,iretire_0,ilastsize_0%s%s%s\n",
                    (flags & RVT_REFCSV_TIME) ? ",time" : "", (flags & RVT_REFCSV_SIJUMP) ? ",sijump_0" : "",
                    (flags & RVT_REFCSV_TRIGGER) ? ",trigger" : "");
    return n < 0 ? -RVT_ERR_IO : 0;
}

int rvt_refcsv_write_ex(FILE *f, const struct rvt_ing_rec *r, unsigned flags)
{
    bool trap = r->itype == RVT_ITYPE_EXCEPTION || r->itype == RVT_ITYPE_INTERRUPT;
    /* One instruction is written as 1 (single retirement), as the reference
     * flow does; a block of several as its halfword count. */
    uint64_t iretire = r->iretire == (1u << r->ilastsize) ? 1 : r->iretire;
    int n = fprintf(f, "%u,%" PRIu32 ",%" PRIx64 ",%u,%" PRIx64 ",%" PRIu64 ",%u,%" PRIu64 ",%u", r->itype,
                    trap ? r->cause : 0, trap ? r->tval : 0, r->priv, r->iaddr, r->context, r->ctype, iretire,
                    r->ilastsize);
    if (n >= 0 && (flags & RVT_REFCSV_TIME))
        n = fprintf(f, ",%" PRIu64, (r->flags & RVT_ING_HAS_TIME) ? r->time : 0);
    if (n >= 0 && (flags & RVT_REFCSV_SIJUMP))
        n = fprintf(f, ",%u", (r->flags & RVT_ING_SIJUMP) ? 1u : 0u);
    if (n >= 0 && (flags & RVT_REFCSV_TRIGGER))
        n = fprintf(f, ",%u", (r->flags & RVT_ING_NOTIFY) ? 4u : 0u);
    if (n >= 0)
        n = fputc('\n', f);
    return n < 0 ? -RVT_ERR_IO : 0;
}

int rvt_refcsv_write_header(FILE *f)
{
    return rvt_refcsv_write_header_ex(f, 0);
}

int rvt_refcsv_write(FILE *f, const struct rvt_ing_rec *r)
{
    return rvt_refcsv_write_ex(f, r, 0);
}
