/* Ingress readers: one pull interface over the native binary format, PC
 * lists and "PC INSN" text (through the builder), and formats registered by
 * other layers (the E-Trace reference CSV).  All stream with bounded memory. */
#include "native.h"
#include "refcsv.h"
#include "refdata.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct rvt_ing_reader {
    const struct rvt_ing_source_ops *ops;
    void *self;
    enum rvt_ing_format fmt;
    bool select_hart;
    uint16_t hart;
};

static const char *const g_fmt_names[RVT_ING_FMT__COUNT] = {
    [RVT_ING_FMT_AUTO] = "auto",     [RVT_ING_FMT_PCLIST] = "pclist", [RVT_ING_FMT_PCINSN] = "pcinsn",
    [RVT_ING_FMT_NATIVE] = "ingress", [RVT_ING_FMT_REFCSV] = "refcsv", [RVT_ING_FMT_REFDATA] = "refdata",
};

const char *rvt_ing_format_name(enum rvt_ing_format f)
{
    return (unsigned)f < RVT_ING_FMT__COUNT ? g_fmt_names[f] : "unknown";
}

int rvt_ing_format_parse(const char *name)
{
    for (int i = 0; i < RVT_ING_FMT__COUNT; i++)
        if (strcmp(name, g_fmt_names[i]) == 0)
            return i;
    if (strcmp(name, "native") == 0)
        return RVT_ING_FMT_NATIVE;
    return -1;
}

struct rvt_ing_reader *rvt_ing_reader_wrap(const struct rvt_ing_source_ops *ops, void *self,
                                           enum rvt_ing_format fmt)
{
    struct rvt_ing_reader *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->ops = ops;
    r->self = self;
    r->fmt = fmt;
    return r;
}

int rvt_ing_next(struct rvt_ing_reader *r, struct rvt_ing_rec *rec)
{
    int rc;
    do
        rc = r->ops->next(r->self, rec);
    while (rc > 0 && r->select_hart && rec->hart != r->hart);
    return rc;
}

const char *rvt_ing_error(const struct rvt_ing_reader *r)
{
    return r->ops->error(r->self);
}

unsigned rvt_ing_xlen(const struct rvt_ing_reader *r)
{
    return r->ops->xlen(r->self);
}

enum rvt_ing_format rvt_ing_reader_format(const struct rvt_ing_reader *r)
{
    return r->fmt;
}

void rvt_ing_close(struct rvt_ing_reader *r)
{
    if (!r)
        return;
    r->ops->close(r->self);
    free(r);
}

static FILE *open_input(const char *path, struct rvt_diag *diag)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f)
        rvt_fail(diag, RVT_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    return f;
}

static void close_input(FILE *f)
{
    if (f && f != stdin)
        fclose(f);
}

/* ---- native ------------------------------------------------------------- */

struct native_src {
    FILE *f;
    char *name;
    struct rvt_native_state st;
    struct rvt_diag diag;
    unsigned xlen;
    uint64_t base;      /* file offset of buf[0] */
    size_t pos, len;
    bool eof;
    bool ended;         /* end marker seen */
    uint64_t count;
    uint8_t buf[1 << 16];
};

static int native_fill(struct native_src *s)
{
    if (s->pos > 0) {
        memmove(s->buf, s->buf + s->pos, s->len - s->pos);
        s->base += s->pos;
        s->len -= s->pos;
        s->pos = 0;
    }
    while (!s->eof && s->len < sizeof s->buf) {
        size_t got = fread(s->buf + s->len, 1, sizeof s->buf - s->len, s->f);
        if (got == 0) {
            if (ferror(s->f))
                return rvt_fail(&s->diag, RVT_ERR_IO, "%s: read error at byte %" PRIu64 ": %s", s->name,
                                s->base + s->len, strerror(errno));
            s->eof = true;
        }
        s->len += got;
    }
    return 0;
}

static int native_next(void *self, struct rvt_ing_rec *rec)
{
    struct native_src *s = self;
    if (s->diag.code)
        return -s->diag.code;
    if (s->ended)
        return 0;
    for (;;) {
        size_t used = 0;
        const char *why = NULL;
        int rc = RVT_NATIVE_NEED_MORE;
        if (s->pos < s->len)
            rc = rvt_native_decode(&s->st, s->buf + s->pos, s->len - s->pos, rec, &used, &why);
        if (rc == RVT_NATIVE_END) {
            if (rec->iaddr != s->count)
                return rvt_fail(&s->diag, RVT_ERR_FORMAT,
                                "%s: offset 0x%" PRIx64 ": the end marker counts %" PRIu64 " records but %" PRIu64 " were read",
                                s->name, s->base + s->pos, rec->iaddr, s->count);
            s->pos += used;
            if ((rc = native_fill(s)) < 0)
                return rc;
            if (s->pos != s->len)
                return rvt_fail(&s->diag, RVT_ERR_FORMAT, "%s: offset 0x%" PRIx64 ": data after the end marker",
                                s->name, s->base + s->pos);
            s->ended = true;
            return 0;
        }
        if (rc == 0) {
            s->pos += used;
            s->count++;
            return 1;
        }
        if (rc < 0)
            return rvt_fail(&s->diag, (enum rvt_err)-rc, "%s: offset 0x%" PRIx64 ": record %" PRIu64 ": %s",
                            s->name, s->base + s->pos, s->count, why);
        if (s->eof) {
            if (s->pos == s->len)
                return rvt_fail(&s->diag, RVT_ERR_TRUNCATED,
                                "%s: offset 0x%" PRIx64 ": the file ends without its end marker after %" PRIu64
                                " records (truncated, or the writer was killed?)",
                                s->name, s->base + s->pos, s->count);
            return rvt_fail(&s->diag, RVT_ERR_TRUNCATED,
                            "%s: offset 0x%" PRIx64 ": file ends inside record %" PRIu64, s->name,
                            s->base + s->pos, s->count);
        }
        if ((rc = native_fill(s)) < 0)
            return rc;
    }
}

static const char *native_error(const void *self)
{
    return ((const struct native_src *)self)->diag.msg;
}

static unsigned native_xlen(const void *self)
{
    return ((const struct native_src *)self)->xlen;
}

static void native_close(void *self)
{
    struct native_src *s = self;
    close_input(s->f);
    free(s->name);
    free(s);
}

static const struct rvt_ing_source_ops g_native_ops = {native_next, native_error, native_close, native_xlen};

static int open_native(struct rvt_ing_reader **out, FILE *f, const char *path, struct rvt_diag *diag)
{
    struct native_src *s = calloc(1, sizeof *s);
    if (!s) {
        close_input(f);
        return rvt_fail(diag, RVT_ERR_NOMEM, "%s: out of memory", path);
    }
    s->f = f;
    s->name = strdup(path);
    rvt_native_state_init(&s->st);
    int rc = native_fill(s);
    const char *why = NULL;
    if (rc == 0)
        rc = rvt_native_parse_header(s->buf, s->len, &s->xlen, &why);
    if (rc < 0) {
        if (why)
            rvt_fail(diag, (enum rvt_err)-rc, "%s: offset 0x0: %s", path, why);
        else
            rvt_fail_from(diag, &s->diag, "%s", path);
        native_close(s);
        return rc;
    }
    s->pos = RVT_NATIVE_HEADER_SIZE;
    *out = rvt_ing_reader_wrap(&g_native_ops, s, RVT_ING_FMT_NATIVE);
    if (!*out) {
        native_close(s);
        return rvt_fail(diag, RVT_ERR_NOMEM, "%s: out of memory", path);
    }
    return 0;
}

/* ---- text: PC list and PC INSN ----------------------------------------- */

#define TEXT_QUEUE 8

struct text_src {
    FILE *f;
    char *name;
    enum rvt_ing_format fmt;
    struct rvt_ing_builder *b;
    struct rvt_diag diag;
    unsigned xlen;
    uint64_t line;
    bool eof;
    struct rvt_ing_rec q[TEXT_QUEUE];
    unsigned qhead, qlen;
    char buf[4096];
};

static int text_emit(void *ctx, const struct rvt_ing_rec *r)
{
    struct text_src *s = ctx;
    if (s->qlen == TEXT_QUEUE)
        return -RVT_ERR_OVERFLOW; /* cannot happen: at most two records per line */
    s->q[(s->qhead + s->qlen++) % TEXT_QUEUE] = *r;
    return 0;
}

/* Parse a hex number with optional 0x; returns pointer past it or NULL. */
static const char *parse_hex(const char *p, uint64_t *v, unsigned *digits)
{
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        p += 2;
    uint64_t x = 0;
    unsigned n = 0;
    while (isxdigit((unsigned char)*p)) {
        if (n == 16)
            return NULL;
        int d = isdigit((unsigned char)*p) ? *p - '0' : (tolower((unsigned char)*p) - 'a' + 10);
        x = x << 4 | (uint64_t)d;
        p++;
        n++;
    }
    if (!n)
        return NULL;
    *v = x;
    if (digits)
        *digits = n;
    return p;
}

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
        p++;
    return p;
}

static int text_line(struct text_src *s, const char *line)
{
    const char *p = skip_ws(line);
    if (!*p || *p == '#')
        return 0;
    uint64_t pc, bits = 0;
    unsigned digits = 0;
    const char *q = parse_hex(p, &pc, NULL);
    if (!q || (*q && !isspace((unsigned char)*q) && *q != ':'))
        return rvt_fail(&s->diag, RVT_ERR_FORMAT, "%s: line %" PRIu64 ": expected a hex PC such as 0x20010522, got '%.40s'",
                        s->name, s->line, p);
    if (*q == ':')
        q++;
    q = skip_ws(q);
    int64_t ibits = -1;
    if (s->fmt == RVT_ING_FMT_PCINSN) {
        const char *r = parse_hex(q, &bits, &digits);
        if (!r || (digits != 4 && digits != 8) || *skip_ws(r))
            return rvt_fail(&s->diag, RVT_ERR_FORMAT,
                            "%s: line %" PRIu64 ": expected 'PC INSN' with INSN as 4 (compressed) or 8 hex digits, got '%.60s'",
                            s->name, s->line, p);
        bool compressed = (bits & 3) != 3;
        if ((digits == 4) != compressed)
            return rvt_fail(&s->diag, RVT_ERR_FORMAT,
                            "%s: line %" PRIu64 ": instruction %s has %u digits but is a %s instruction", s->name,
                            s->line, q, digits, compressed ? "16-bit" : "32-bit");
        ibits = (int64_t)bits;
    } else if (*q) {
        return rvt_fail(&s->diag, RVT_ERR_FORMAT,
                        "%s: line %" PRIu64 ": unexpected text after the PC: '%.40s' (is this a 'PC INSN' file? use --input-format pcinsn)",
                        s->name, s->line, q);
    }
    int rc = rvt_ing_builder_insn(s->b, pc, ibits, RVT_PRIV_M, 0, NULL);
    if (rc < 0)
        return rvt_fail(&s->diag, (enum rvt_err)-rc, "%s: line %" PRIu64 ": %s", s->name, s->line,
                        rvt_ing_builder_error(s->b));
    return 0;
}

static int text_next(void *self, struct rvt_ing_rec *rec)
{
    struct text_src *s = self;
    for (;;) {
        if (s->qlen) {
            *rec = s->q[s->qhead];
            s->qhead = (s->qhead + 1) % TEXT_QUEUE;
            s->qlen--;
            return 1;
        }
        if (s->diag.code)
            return -s->diag.code;
        if (s->eof)
            return 0;
        if (!fgets(s->buf, sizeof s->buf, s->f)) {
            if (ferror(s->f))
                return rvt_fail(&s->diag, RVT_ERR_IO, "%s: read error after line %" PRIu64 ": %s", s->name,
                                s->line, strerror(errno));
            s->eof = true;
            int rc = rvt_ing_builder_finish(s->b);
            if (rc < 0)
                return rvt_fail(&s->diag, (enum rvt_err)-rc, "%s: at end: %s", s->name,
                                rvt_ing_builder_error(s->b));
            continue;
        }
        s->line++;
        size_t n = strlen(s->buf);
        if (n == sizeof s->buf - 1 && s->buf[n - 1] != '\n')
            return rvt_fail(&s->diag, RVT_ERR_FORMAT, "%s: line %" PRIu64 ": line longer than %zu characters",
                            s->name, s->line, sizeof s->buf - 2);
        int rc = text_line(s, s->buf);
        if (rc < 0)
            return rc;
    }
}

static const char *text_error(const void *self)
{
    return ((const struct text_src *)self)->diag.msg;
}

static unsigned text_xlen(const void *self)
{
    return ((const struct text_src *)self)->xlen;
}

static void text_close(void *self)
{
    struct text_src *s = self;
    close_input(s->f);
    rvt_ing_builder_free(s->b);
    free(s->name);
    free(s);
}

static const struct rvt_ing_source_ops g_text_ops = {text_next, text_error, text_close, text_xlen};

static int open_text(struct rvt_ing_reader **out, FILE *f, const char *path, const struct rvt_ing_reader_config *cfg,
                     enum rvt_ing_format fmt, struct rvt_diag *diag)
{
    if (fmt == RVT_ING_FMT_PCLIST && !cfg->image) {
        close_input(f);
        return rvt_fail(diag, RVT_ERR_INVAL, "%s: a PC list needs the program (--elf) to know each instruction",
                        path);
    }
    struct text_src *s = calloc(1, sizeof *s);
    if (!s) {
        close_input(f);
        return rvt_fail(diag, RVT_ERR_NOMEM, "%s: out of memory", path);
    }
    s->f = f;
    s->name = strdup(path);
    s->fmt = fmt;
    s->xlen = cfg->xlen ? cfg->xlen : cfg->image ? rvt_img_xlen(cfg->image) : 64;
    struct rvt_ing_builder_config bc = {
        .size = sizeof bc,
        .image = cfg->image,
        .xlen = s->xlen,
        .ecall_mode = cfg->ecall_mode,
        .merge_blocks = cfg->merge_blocks,
        .emit = text_emit,
        .emit_ctx = s,
        .warn = cfg->warn,
        .warn_ctx = cfg->warn_ctx,
    };
    s->b = rvt_ing_builder_new(&bc);
    if (!s->b) {
        unsigned xlen = s->xlen;
        text_close(s);
        return rvt_fail(diag, RVT_ERR_INVAL, "%s: cannot create the ingress builder (xlen %u)", path, xlen);
    }
    *out = rvt_ing_reader_wrap(&g_text_ops, s, fmt);
    if (!*out) {
        text_close(s);
        return rvt_fail(diag, RVT_ERR_NOMEM, "%s: out of memory", path);
    }
    return 0;
}

/* ---- open --------------------------------------------------------------- */

/* Guess the format from the first bytes (the stream is not consumed). */
static enum rvt_ing_format sniff(FILE *f)
{
    char head[256];
    size_t n = fread(head, 1, sizeof head - 1, f);
    if (fseek(f, 0, SEEK_SET) != 0)
        return RVT_ING_FMT_AUTO;
    head[n] = 0;
    if (n >= 8 && memcmp(head, RVT_ING_MAGIC, 8) == 0)
        return RVT_ING_FMT_NATIVE;
    if (strncmp(head, "itype", 5) == 0)
        return RVT_ING_FMT_REFCSV;
    if (strncasecmp(head, "dretire", 7) == 0)
        return RVT_ING_FMT_REFDATA;
    /* first non-comment line: one token = PC list, two = PC INSN */
    const char *p = head;
    while (*p == '#') {
        p = strchr(p, '\n');
        if (!p)
            return RVT_ING_FMT_AUTO;
        p++;
    }
    const char *eol = strchr(p, '\n');
    size_t len = eol ? (size_t)(eol - p) : strlen(p);
    unsigned tokens = 0;
    bool in = false;
    for (size_t i = 0; i < len; i++) {
        bool ws = p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == ':';
        if (!ws && !in)
            tokens++;
        in = !ws;
    }
    if (tokens == 1)
        return RVT_ING_FMT_PCLIST;
    if (tokens == 2)
        return RVT_ING_FMT_PCINSN;
    return RVT_ING_FMT_AUTO;
}

/* Apply the hart selection to a reader just opened (rc from its open). */
static int select_hart(int rc, struct rvt_ing_reader **r, const struct rvt_ing_reader_config *cfg)
{
    if (rc >= 0 && *r) {
        (*r)->select_hart = cfg->select_hart;
        (*r)->hart = cfg->hart;
    }
    return rc;
}

int rvt_ing_open_stream(struct rvt_ing_reader **out, FILE *f, const char *path,
                        const struct rvt_ing_reader_config *cfg, struct rvt_diag *diag)
{
    *out = NULL;
    if (!cfg || cfg->size < sizeof *cfg) {
        close_input(f);
        return rvt_fail(diag, RVT_ERR_INVAL, "%s: bad reader configuration", path);
    }
    enum rvt_ing_format fmt = cfg->format;
    if (fmt == RVT_ING_FMT_AUTO) {
        fmt = sniff(f);
        if (fmt == RVT_ING_FMT_AUTO) {
            close_input(f);
            return rvt_fail(diag, RVT_ERR_FORMAT,
                            "%s: cannot tell the input format from its first line; use --input-format pclist|pcinsn|ingress|refcsv|refdata",
                            path);
        }
    }
    switch (fmt) {
    case RVT_ING_FMT_NATIVE:
        {
        int rc = open_native(out, f, path, diag);
        return select_hart(rc, out, cfg);
    }
    case RVT_ING_FMT_PCLIST:
    case RVT_ING_FMT_PCINSN:
        {
        int rc = open_text(out, f, path, cfg, fmt, diag);
        return select_hart(rc, out, cfg);
    }
    case RVT_ING_FMT_REFCSV:
    case RVT_ING_FMT_REFDATA:
        close_input(f);
        return rvt_fail(diag, RVT_ERR_UNSUPPORTED, "%s: the %s reader reads files by name", path,
                        rvt_ing_format_name(fmt));
    default:
        close_input(f);
        return rvt_fail(diag, RVT_ERR_INVAL, "%s: unknown input format %d", path, (int)fmt);
    }
}

int rvt_ing_open(struct rvt_ing_reader **out, const char *path, const struct rvt_ing_reader_config *cfg,
                 struct rvt_diag *diag)
{
    *out = NULL;
    if (!cfg || cfg->size < sizeof *cfg)
        return rvt_fail(diag, RVT_ERR_INVAL, "%s: bad reader configuration", path);
    enum rvt_ing_format fmt = cfg->format;
    FILE *f = NULL;
    if (fmt == RVT_ING_FMT_AUTO) {
        f = open_input(path, diag);
        if (!f)
            return -RVT_ERR_IO;
        if (f == stdin) {
            close_input(f);
            return rvt_fail(diag, RVT_ERR_INVAL, "stdin: give --input-format when reading from a pipe");
        }
        fmt = sniff(f);
        if (fmt == RVT_ING_FMT_AUTO) {
            close_input(f);
            return rvt_fail(diag, RVT_ERR_FORMAT,
                            "%s: cannot tell the input format from its first line; use --input-format pclist|pcinsn|ingress|refcsv|refdata",
                            path);
        }
    }
    if (fmt == RVT_ING_FMT_REFCSV || fmt == RVT_ING_FMT_REFDATA) {
        close_input(f);
        struct rvt_ing_reader_config c2 = *cfg;
        c2.format = fmt;
        int rc = fmt == RVT_ING_FMT_REFCSV ? rvt_refcsv_open(out, path, &c2, diag) : rvt_refdata_open(out, path, &c2, diag);
        return select_hart(rc, out, cfg);
    }
    if (!f && !(f = open_input(path, diag)))
        return -RVT_ERR_IO;
    struct rvt_ing_reader_config c2 = *cfg;
    c2.format = fmt;
    return rvt_ing_open_stream(out, f, path, &c2, diag);
}

int rvt_ing_count_insns(const struct rvt_ing_rec *r, struct rvt_bcache *bc, uint64_t *count)
{
    if (r->iretire == 0) {
        *count = 0;
        return 0;
    }
    uint32_t last = 1u << r->ilastsize;
    if (r->iretire == last) {
        *count = 1;
        return 0;
    }
    if (!bc)
        return -RVT_ERR_INVAL;
    /* Walk the code of the block: sizes of the instructions before the last. */
    uint64_t n = 0, addr = r->iaddr, end = rvt_ing_last_addr(r);
    while (addr < end) {
        const struct rvt_block_info *b = rvt_bcache_get(bc, addr);
        if (b->ninsns == 0)
            return -RVT_ERR_NOCODE;
        uint64_t span = 2ull * b->halfwords;
        if (addr + span <= end) {
            n += b->ninsns;
            addr += span;
        } else {
            uint32_t i = 0;
            while (addr + 2ull * rvt_block_hw_offset(b, i) < end)
                i++;
            if (addr + 2ull * rvt_block_hw_offset(b, i) != end)
                return -RVT_ERR_MISMATCH;
            n += i;
            addr = end;
        }
    }
    if (addr != end)
        return -RVT_ERR_MISMATCH;
    *count = n + 1;
    return 0;
}
