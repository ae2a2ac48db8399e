/* Reader and writer of the E-Trace reference flow's data-port CSV (see
 * refdata.h). */
#include "refdata.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define LINE_MAX_LEN 512

struct parser {
    const char *name;
    uint64_t line;
    bool have_header;
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

/* Hexadecimal up to 128 bits (an RV64 atomic or CSR row's two values). */
static int parse_hex128(const char *s, uint64_t *lo, uint64_t *hi)
{
    while (isspace((unsigned char)*s))
        s++;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        s += 2;
    const char *e = s;
    while (isxdigit((unsigned char)*e))
        e++;
    const char *t = e;
    while (isspace((unsigned char)*t))
        t++;
    if (e == s || *t)
        return -1;
    while (e - s > 1 && *s == '0')
        s++;
    if (e - s > 32)
        return -1;
    *lo = *hi = 0;
    for (const char *c = s; c < e; c++) {
        unsigned d = (unsigned)(isdigit((unsigned char)*c) ? *c - '0' : (tolower((unsigned char)*c) - 'a' + 10));
        *hi = *hi << 4 | *lo >> 60;
        *lo = *lo << 4 | d;
    }
    return 0;
}

/* One line (NUL-terminated, no newline): 1 = a record in *r, 0 = nothing
 * (header, blank, dretire 0), <0 error. */
static int parse_line(struct parser *ps, char *line, struct rvt_ing_rec *r)
{
    ps->line++;
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\r' || isspace((unsigned char)line[n - 1])))
        line[--n] = 0;
    if (!n)
        return 0;
    char *f[6];
    unsigned nf = 0;
    for (char *s = line;;) {
        if (nf < 6)
            f[nf] = s;
        nf++;
        char *c = strchr(s, ',');
        if (!c)
            break;
        *c = 0;
        s = c + 1;
    }
    if (!ps->have_header) {
        static const char *const names[5] = {"dretire", "dtype", "daddr", "dsize", "data"};
        for (unsigned i = 0; i < 5; i++) {
            while (i < nf && isspace((unsigned char)*f[i]))
                f[i]++;
            if (nf != 5 || strcasecmp(f[i], names[i]))
                return rvt_fail(ps->d, RVT_ERR_FORMAT, "%s:%" PRIu64 ": expected the header DRETIRE,DTYPE,DADDR,DSIZE,DATA",
                                ps->name, ps->line);
        }
        ps->have_header = true;
        return 0;
    }
    if (nf != 5)
        return rvt_fail(ps->d, RVT_ERR_FORMAT, "%s:%" PRIu64 ": %u fields, expected 5 (DRETIRE,DTYPE,DADDR,DSIZE,DATA)",
                        ps->name, ps->line, nf);
    uint64_t dretire, dtype, daddr, dsize, data, data_hi;
    static const char *const what[4] = {"dretire", "dtype", "daddr", "dsize"};
    uint64_t *dst[4] = {&dretire, &dtype, &daddr, &dsize};
    for (unsigned i = 0; i < 4; i++)
        if (parse_num(f[i], i == 2, dst[i]))
            return rvt_fail(ps->d, RVT_ERR_FORMAT, "%s:%" PRIu64 ": %s \"%s\" is not a %s number", ps->name, ps->line,
                            what[i], f[i], i == 2 ? "hexadecimal" : "decimal");
    if (parse_hex128(f[4], &data, &data_hi))
        return rvt_fail(ps->d, RVT_ERR_FORMAT, "%s:%" PRIu64 ": data \"%s\" is not a hexadecimal number of up to 128 bits",
                        ps->name, ps->line, f[4]);
    if (dretire > 1)
        return rvt_fail(ps->d, RVT_ERR_FORMAT, "%s:%" PRIu64 ": dretire %" PRIu64 " (expected 0 or 1)", ps->name,
                        ps->line, dretire);
    if (!dretire)
        return 0;
    if (dtype > 15 || dtype == 2 || dtype == 3 || dtype == 7)
        return rvt_fail(ps->d, RVT_ERR_FORMAT, "%s:%" PRIu64 ": reserved dtype %" PRIu64, ps->name, ps->line, dtype);
    bool two = rvt_dtype_is_amo((unsigned)dtype) || rvt_dtype_is_csr((unsigned)dtype);
    if (dsize > 4 || (two && (dsize < 1 || dsize > 4)))
        return rvt_fail(ps->d, RVT_ERR_FORMAT,
                        "%s:%" PRIu64 ": dsize %" PRIu64 " out of range (%s)", ps->name, ps->line, dsize,
                        two ? "1..4: an atomic or CSR row holds two values of up to 8 bytes" : "0..3");
    if (!two && dsize > 3)
        return rvt_fail(ps->d, RVT_ERR_FORMAT, "%s:%" PRIu64 ": dsize %" PRIu64 ": values above 8 bytes", ps->name,
                        ps->line, dsize);
    memset(r, 0, sizeof *r);
    unsigned bytes = 1u << (two ? dsize - 1 : dsize);
    uint64_t m = bytes >= 8 ? ~0ull : (1ull << (8 * bytes)) - 1;
    r->flags = RVT_ING_HAS_DTYPE | RVT_ING_HAS_MEMVAL;
    r->dtype = (uint8_t)dtype;
    r->mem_addr = daddr;
    r->mem_size = (uint8_t)bytes;
    if (dtype == RVT_DTYPE_LOAD || dtype == RVT_DTYPE_STORE || rvt_dtype_is_amo((unsigned)dtype))
        r->flags |= RVT_ING_HAS_MEM | (dtype != RVT_DTYPE_LOAD ? RVT_ING_MEM_STORE : 0);
    unsigned total = two ? 2 * bytes : bytes; /* DATA's bytes */
    if ((total < 8 && (data >> (8 * total) || data_hi)) || (total == 8 && data_hi))
        return rvt_fail(ps->d, RVT_ERR_FORMAT, "%s:%" PRIu64 ": data wider than dsize %" PRIu64 " (%u bytes)", ps->name,
                        ps->line, dsize, total);
    r->mem_value = data & m;
    if (two)
        r->mem_operand = bytes < 8 ? (data >> (8 * bytes)) & m : data_hi;
    return 1;
}

/* ---- reader ------------------------------------------------------------------- */

struct src {
    FILE *f;
    char *name;
    struct parser ps;
    struct rvt_diag diag;
    unsigned xlen;
};

static int src_next(void *self, struct rvt_ing_rec *r)
{
    struct src *s = self;
    char line[LINE_MAX_LEN];
    for (;;) {
        if (!fgets(line, sizeof line, s->f)) {
            if (ferror(s->f))
                return rvt_fail(&s->diag, RVT_ERR_IO, "%s: read error", s->name);
            if (!s->ps.have_header)
                return rvt_fail(&s->diag, RVT_ERR_FORMAT, "%s: empty (no DRETIRE,DTYPE,DADDR,DSIZE,DATA header)",
                                s->name);
            return 0;
        }
        if (!strchr(line, '\n') && !feof(s->f))
            return rvt_fail(&s->diag, RVT_ERR_FORMAT, "%s:%" PRIu64 ": line longer than %d characters", s->name,
                            s->ps.line + 1, LINE_MAX_LEN - 2);
        int rc = parse_line(&s->ps, line, r);
        if (rc != 0)
            return rc;
    }
}

static const char *src_error(const void *self)
{
    return ((const struct src *)self)->diag.msg;
}

static void src_close(void *self)
{
    struct src *s = self;
    if (s->f && s->f != stdin)
        fclose(s->f);
    free(s->name);
    free(s);
}

static unsigned src_xlen(const void *self)
{
    return ((const struct src *)self)->xlen;
}

static const struct rvt_ing_source_ops ops = {src_next, src_error, src_close, src_xlen};

int rvt_refdata_open(struct rvt_ing_reader **out, const char *path, const struct rvt_ing_reader_config *cfg,
                     struct rvt_diag *diag)
{
    *out = NULL;
    struct src *s = calloc(1, sizeof *s);
    if (!s || !(s->name = strdup(path))) {
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
    *out = rvt_ing_reader_wrap(&ops, s, RVT_ING_FMT_REFDATA);
    if (!*out) {
        src_close(s);
        return rvt_fail(diag, RVT_ERR_NOMEM, "%s: out of memory", path);
    }
    return 0;
}

int rvt_refdata_parse_mem(const char *text, size_t len, const char *name,
                          int (*fn)(void *ctx, const struct rvt_ing_rec *r), void *ctx, struct rvt_diag *d)
{
    struct parser ps = {.name = name, .d = d};
    char line[LINE_MAX_LEN];
    size_t pos = 0;
    int count = 0;
    while (pos < len) {
        size_t e = pos;
        while (e < len && text[e] != '\n')
            e++;
        if (e - pos >= sizeof line)
            return rvt_fail(d, RVT_ERR_FORMAT, "%s:%" PRIu64 ": line too long", name, ps.line + 1);
        memcpy(line, text + pos, e - pos);
        line[e - pos] = 0;
        if (memchr(line, 0, e - pos))
            return rvt_fail(d, RVT_ERR_FORMAT, "%s:%" PRIu64 ": NUL byte", name, ps.line + 1);
        pos = e < len ? e + 1 : e;
        struct rvt_ing_rec r;
        int rc = parse_line(&ps, line, &r);
        if (rc < 0)
            return rc;
        if (rc > 0) {
            count++;
            if ((rc = fn(ctx, &r)) < 0)
                return rc;
        }
    }
    if (!ps.have_header)
        return rvt_fail(d, RVT_ERR_FORMAT, "%s: no header", name);
    return count;
}

/* ---- writer -------------------------------------------------------------------- */

int rvt_refdata_write_header(FILE *f)
{
    return fprintf(f, "DRETIRE,DTYPE,DADDR,DSIZE,DATA\n") < 0 ? -RVT_ERR_IO : 0;
}

int rvt_refdata_write(FILE *f, const struct rvt_ing_rec *r, uint64_t *skipped)
{
    int t = rvt_ing_dtype(r);
    if (t < 0)
        return 0;
    if (t == RVT_DTYPE_SC_FAIL) {
        if (skipped)
            (*skipped)++;
        return 0;
    }
    unsigned bytes = r->mem_size, lg = 0;
    while (lg < 3 && (1u << lg) < bytes)
        lg++;
    uint64_t m = lg >= 3 ? ~0ull : (1ull << (8u << lg)) - 1;
    uint64_t v = (r->flags & RVT_ING_HAS_MEMVAL) ? r->mem_value & m : 0;
    int n;
    if (rvt_dtype_is_amo((unsigned)t) || rvt_dtype_is_csr((unsigned)t)) {
        uint64_t op = (r->flags & RVT_ING_HAS_MEMVAL) ? r->mem_operand & m : 0;
        if (lg >= 3) /* 16 bytes: the operand's hexadecimal digits, then the data's */
            n = op ? fprintf(f, "1,%d,%" PRIx64 ",%u,%" PRIx64 "%016" PRIx64 "\n", t, r->mem_addr, lg + 1, op, v)
                   : fprintf(f, "1,%d,%" PRIx64 ",%u,%" PRIx64 "\n", t, r->mem_addr, lg + 1, v);
        else
            n = fprintf(f, "1,%d,%" PRIx64 ",%u,%" PRIx64 "\n", t, r->mem_addr, lg + 1, op << (8u << lg) | v);
    } else {
        n = fprintf(f, "1,%d,%" PRIx64 ",%u,%" PRIx64 "\n", t, r->mem_addr, lg, v);
    }
    return n < 0 ? -RVT_ERR_IO : 0;
}
