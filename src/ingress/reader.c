/* Ingress readers: one pull interface over the native binary format, PC
 * lists and "PC INSN" text (through the builder), and formats registered by
 * other layers (the E-Trace reference CSV).  All stream with bounded memory. */
#include "native.h"
#include "refcsv.h"
#include "refdata.h"
#include "builder_internal.h"
#include "textchunk.h"

#include "image/bcache_internal.h"
#include "core/tracefile.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
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
    rvt_ing_batch_fn batch;     /* optional: records in place (rvt_ing_next_batch) */
    rvt_ing_short_fn shorts;    /* optional: records in short (rvt_ing_next_short) */
    struct rvt_ing_rec one;     /* rvt_ing_next_batch's record from a reader without batches */
};

void rvt_ing_reader_set_short(struct rvt_ing_reader *r, rvt_ing_short_fn fn)
{
    r->shorts = fn;
}

bool rvt_ing_has_short(const struct rvt_ing_reader *r)
{
    return r->shorts && !r->select_hart;
}

int rvt_ing_next_short(struct rvt_ing_reader *r, struct rvt_ing_short_batch *b)
{
    if (r->shorts && !r->select_hart)
        return r->shorts(r->self, b);
    /* (the others: a record at a time, as a full one) */
    static const struct rvt_ing_fast full_one = {0, 0, 0};
    int rc = rvt_ing_next(r, &r->one);
    *b = (struct rvt_ing_short_batch){&full_one, rc > 0, &r->one, 0, 0};
    return rc;
}

void rvt_ing_reader_set_batch(struct rvt_ing_reader *r, rvt_ing_batch_fn fn)
{
    r->batch = fn;
}

bool rvt_ing_has_batches(const struct rvt_ing_reader *r)
{
    return r->batch && !r->select_hart;
}

int rvt_ing_next_batch(struct rvt_ing_reader *r, const struct rvt_ing_rec **recs, size_t *n)
{
    if (r->batch && !r->select_hart)
        return r->batch(r->self, recs, n);
    int rc = rvt_ing_next(r, &r->one);
    *recs = &r->one;
    *n = rc > 0;
    return rc;
}

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

static int next_of_hart(struct rvt_ing_reader *r, struct rvt_ing_rec *rec)
{
    int rc;
    do
        rc = r->ops->next(r->self, rec);
    while (rc > 0 && rec->hart != r->hart);
    return rc;
}

int rvt_ing_next(struct rvt_ing_reader *r, struct rvt_ing_rec *rec)
{
    /* (once per record: a tail call when no hart is selected) */
    if (!r->select_hart)
        return r->ops->next(r->self, rec);
    return next_of_hart(r, rec);
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
#if defined(__x86_64__) && defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define TEXT_AVX2 1 /* usual_pcinsn_avx2, where the CPU has it */
#endif
#define TEXT_CHUNK (1u << 20) /* read at a time */
#define TEXT_LINE_MAX RVT_TEXT_LINE_MAX
#define TEXT_PAD 16           /* bytes after the data that hex parsing may look at */
_Static_assert(RVT_TEXT_PAD >= TEXT_PAD, "a chunk's padding is the reader's");
/* More than usual_line reads of a line and its end: "0x", 16 digits, a
 * space, 8 digits read as two groups of 8 bytes, the terminator. */
#define USUAL_LINE_MAX 48
/* A mapped input's text is read from the page cache, where read() had
 * copied it into a buffer in this core's cache: the parse asks for the
 * text this far ahead, as the copy did (`encode --jobs 2`, PC INSN text,
 * medians of 7: read() 220 ms, mapped 205, and 512 bytes / 2 KiB / 4 KiB
 * ahead 188 / 185 / 184). */
#define PREFETCH_AHEAD 2048
_Static_assert(RVT_TEXT_SLACK >= USUAL_LINE_MAX, "a body's last line is read as any usual line");

struct text_src {
    FILE *f;
    char *name;
    enum rvt_ing_format fmt;
    struct rvt_ing_builder *b;
    struct rvt_diag diag;
    unsigned xlen;
    uint64_t line;
    bool eof;      /* no more to read */
    bool done;     /* the builder has been finished */
    struct rvt_ing_rec q[TEXT_QUEUE];
    unsigned qhead, qlen;
    struct rvt_ing_rec *out; /* text_next's record while it is empty */
    uint16_t *pair;          /* pair_table() */
    char *buf;     /* own, or a chunk's (chunk parsers), or the mapped input's body */
    char *own;     /* TEXT_CHUNK + TEXT_LINE_MAX + TEXT_PAD bytes (the serial reader's) */
    size_t pos, len;
    /* > 0: buf is a body (a chunk's, or a window of the mapped input's),
     * read in place and never written, and this many bytes of the input
     * follow it; text_getline copies each line it ends into line_copy
     * instead of ending it in place. */
    size_t slack;
    char *line_copy; /* TEXT_LINE_MAX + 1 + TEXT_PAD bytes */
    /* The serial reader's input mapped (text_map): buf is its body (whole
     * lines) read in windows of whole lines, len the current window's
     * end, then own holds its tail (the last RVT_TEXT_SLACK bytes or more). */
    struct rvt_trace_file *map;
    bool map_tried;
    size_t map_base;   /* the input's offset of buf[0] */
    size_t body_len;   /* the body's bytes from buf */
    /* A chunk parser (rvt_text_parse_chunk): line numbers count from the
     * chunk's start, so an error's message leaves the line out (err_line
     * holds it; the caller, who knows the lines before, puts it back). */
    bool chunk;
    bool no_finish;  /* a chunk not the input's last: its end is not the input's */
    bool discard;    /* the lines before the chunk: their records are the previous chunk's */
    uint64_t err_line;
    bool warned;           /* the builder warned in this chunk (chunk parsers keep it for the caller) */
    size_t warn_at;        /* before this record */
    size_t nrec;           /* records made of this chunk so far */
    rvt_ing_warn_fn user_warn;
    void *user_warn_ctx;
    struct rvt_text_batch *batch; /* the serial reader's records (text_fill), made on first use */
    size_t bpos, bend;            /* batch->rec[bpos, bend) not yet handed out */
    bool avx2;                    /* fast_lines parses with AVX2 (text_avx2) */
};

/* Whether this machine's text parse may use AVX2: the CPU and the system
 * have it, and RVT_TEXT_SIMD is not `sse2` (the tests and fuzz_ingress
 * compare the two parses). */
static bool text_avx2(void)
{
#ifdef TEXT_AVX2
    const char *env = getenv("RVT_TEXT_SIMD");
    if (env && !strcmp(env, "sse2"))
        return false;
    return __builtin_cpu_supports("avx2");
#else
    return false;
#endif
}

/* Where lines stop being parsable in place: a usual line at pos < this
 * has the bytes a parse of it looks at (the buffer's own, or the input's
 * after a body), and starts before len. */
static inline size_t usual_end(const struct text_src *s)
{
    const size_t room = s->len + s->slack;
    if (room < USUAL_LINE_MAX)
        return 0;
    return room - USUAL_LINE_MAX + 1 < s->len ? room - USUAL_LINE_MAX + 1 : s->len;
}

/* Whether a usual line may be parsed in place at pos. */
static inline bool usual_room(const struct text_src *s)
{
    return s->pos < usual_end(s);
}

/* A format error at a line: "FILE: line N: what". */
static int text_fail(struct text_src *s, enum rvt_err code, uint64_t line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int text_fail(struct text_src *s, enum rvt_err code, uint64_t line, const char *fmt, ...)
{
    char what[sizeof s->diag.msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (s->chunk) {
        s->err_line = line;
        return rvt_fail(&s->diag, code, "%s", what);
    }
    return rvt_fail(&s->diag, code, "%s: line %" PRIu64 ": %s", s->name, line, what);
}

static int text_emit(void *ctx, const struct rvt_ing_rec *r)
{
    struct text_src *s = ctx;
    if (s->discard)
        return 0;
    if (s->out) { /* straight to the caller of text_next */
        *s->out = *r;
        s->out = NULL;
        return 0;
    }
    if (s->qlen == TEXT_QUEUE)
        return -RVT_ERR_OVERFLOW; /* cannot happen: at most two records per line */
    s->q[(s->qhead + s->qlen++) % TEXT_QUEUE] = *r;
    return 0;
}

/* One more than the value of a hex digit; 0 for anything else. */
static const unsigned char g_hexval1[256] = {
    ['0'] = 1,  ['1'] = 2,  ['2'] = 3,  ['3'] = 4,  ['4'] = 5,  ['5'] = 6,  ['6'] = 7,  ['7'] = 8,
    ['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
    ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};
/* Value of a hex digit, -1 for anything else. */
static inline int hexval(char c)
{
    return (int)g_hexval1[(unsigned char)c] - 1;
}

/* Hex digit pairs: for the 16 bits of two characters (as they lie in
 * memory), their value, or PAIR_BAD.  Made per reader (no global state). */
#define PAIR_BAD 0x100u

static uint16_t *pair_table(void)
{
    uint16_t *t = malloc(sizeof *t << 16);
    if (!t)
        return NULL;
    /* Every pair is bad but the 22 x 22 of two hex digits: plain stores,
     * not a test of each of the 65,536 pairs (that took 45 % of
     * fuzz_ingress's time, which opens several readers an input). */
    for (unsigned i = 0; i < 1u << 16; i++)
        t[i] = PAIR_BAD;
    static const char digits[] = "0123456789abcdefABCDEF";
    for (const char *a = digits; *a; a++)
        for (const char *b = digits; *b; b++) {
            const unsigned char c[2] = {(unsigned char)*a, (unsigned char)*b};
            uint16_t k;
            memcpy(&k, c, 2); /* the key is the two bytes in memory order */
            t[k] = (uint16_t)(hexval(*a) << 4 | hexval(*b));
        }
    return t;
}

/* Eight hex digits at p (either case) as a number, if all eight are; p may
 * be read 8 bytes ahead (the buffer is padded).  Four table lookups. */
static inline bool hex8_at(const uint16_t *pair, const char *p, uint32_t *out)
{
    uint16_t k[4];
    memcpy(k, p, 8);
    const uint32_t a = pair[k[0]], b = pair[k[1]], c = pair[k[2]], d = pair[k[3]];
    if ((a | b | c | d) & PAIR_BAD)
        return false;
    *out = a << 24 | b << 16 | c << 8 | d;
    return true;
}

/* Parse a hex number with optional 0x; returns pointer past it or NULL. */
static const char *parse_hex(const uint16_t *pair, const char *p, uint64_t *v, unsigned *digits)
{
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        p += 2;
    uint64_t x = 0;
    unsigned n = 0;
    uint32_t w;
    while (n < 16 && hex8_at(pair, p, &w)) {
        x = x << 32 | w;
        p += 8;
        n += 8;
    }
    for (int h; (h = hexval(*p)) >= 0; p++, n++) {
        if (n == 16)
            return NULL;
        x = x << 4 | (uint64_t)h;
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

#if defined(__SSE2__)
#include <emmintrin.h>
/* Sixteen characters at p (the buffer is padded): bit i of the result is
 * set if p[i] is a hex digit (either case); *val is their value as 16
 * digits, p[0] the most significant (digits past the first non-digit are
 * garbage: callers shift them out).  About 20 vector instructions where
 * table lookups take about 45. */
static inline unsigned hex16_mask(const char *p, uint64_t *val)
{
    const __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
    /* c in [lo, lo + n) when c + (0x80 - lo), wrapping, is below -128 + n
     * as a signed byte: one add and one compare a range */
    const __m128i dig = _mm_cmpgt_epi8(_mm_set1_epi8(-128 + 10), _mm_add_epi8(x, _mm_set1_epi8((char)(0x80 - '0'))));
    const __m128i y = _mm_or_si128(x, _mm_set1_epi8(0x20)); /* 'A'-'F' -> 'a'-'f' (and nothing else into them) */
    const __m128i alpha = _mm_cmpgt_epi8(_mm_set1_epi8(-128 + 6), _mm_add_epi8(y, _mm_set1_epi8((char)(0x80 - 'a'))));
    const __m128i v = _mm_add_epi8(_mm_and_si128(x, _mm_set1_epi8(0x0f)), _mm_and_si128(alpha, _mm_set1_epi8(9)));
    /* Each 16-bit lane holds two digits, the first in its low byte. */
    __m128i t = _mm_or_si128(_mm_slli_epi16(v, 4), _mm_srli_epi16(v, 8));
    t = _mm_packus_epi16(_mm_and_si128(t, _mm_set1_epi16(0xff)), _mm_setzero_si128());
    *val = __builtin_bswap64((uint64_t)_mm_cvtsi128_si64(t));
    return (unsigned)_mm_movemask_epi8(_mm_or_si128(dig, alpha));
}
#endif

#if defined(__SSE2__)
/* The instruction of a usual PC INSN line at p: m, bit i set if p[i] is
 * a hex digit; v, the digits from p[0] as the most significant.  8 digits
 * of a 32-bit instruction or 4 of a compressed one, then `term`: where
 * term is, the instruction in *w; NULL otherwise. */
static inline const char *insn_digits(const char *p, uint32_t m, uint64_t v, char term, uint32_t *w)
{
    if ((m & 0x1ff) == 0xff) {
        *w = (uint32_t)(v >> 32);
        if ((*w & 3) != 3) /* eight digits are a 32-bit instruction */
            return NULL;
        p += 8;
    } else if ((m & 0x1f) == 0xf) {
        *w = (uint32_t)(v >> 48);
        if ((*w & 3) == 3) /* four digits are a compressed one */
            return NULL;
        p += 4;
    } else {
        return NULL;
    }
    return *p == term ? p : NULL;
}
#endif

/* The usual lines, as rvtrace convert and QEMU logs write them: a PC of 8
 * or 16 digits (optional 0x) alone, or with a space and 4 or 8 digits of
 * instruction, then `term` (the line's end: its NUL, or its newline when
 * read in place).  Anything else (and every error) takes text_line's
 * general parse.  The address of the terminator when parsed into *pc and
 * *bits (-1: no bits), NULL if not this shape.  p may be read 16 bytes
 * past the terminator (the buffer is padded). */
static inline const char *usual_line(const uint16_t *pair, const char *p, bool pcinsn, char term, uint64_t *pc,
                                     int64_t *bits)
{
    if (p[0] == '0' && (p[1] | 0x20) == 'x')
        p += 2;
#if defined(__SSE2__)
    (void)pair;
    uint64_t v;
    unsigned m = hex16_mask(p, &v);
    if (m == 0xffff) {
        *pc = v;
        p += 16;
    } else if ((m & 0x1ff) == 0xff) { /* 8 digits, then something else */
        *pc = v >> 32;
        p += 8;
    } else {
        return NULL;
    }
    if (!pcinsn) {
        *bits = -1;
        return *p == term ? p : NULL;
    }
    if (*p != ' ')
        return NULL;
    p++;
    m = hex16_mask(p, &v);
    uint32_t w;
    if (!(p = insn_digits(p, m, v, term, &w)))
        return NULL;
#else
    uint32_t hi, lo;
    if (!hex8_at(pair, p, &hi))
        return NULL;
    p += 8;
    if (hex8_at(pair, p, &lo)) {
        *pc = (uint64_t)hi << 32 | lo;
        p += 8;
    } else {
        *pc = hi;
    }
    if (!pcinsn) {
        *bits = -1;
        return *p == term ? p : NULL;
    }
    if (*p != ' ')
        return NULL;
    p++;
    uint32_t w;
    if (hex8_at(pair, p, &w)) {
        if (p[8] != term || (w & 3) != 3) /* eight digits are a 32-bit instruction */
            return NULL;
        p += 8;
    } else {
        uint16_t k[2];
        memcpy(k, p, 4);
        const uint32_t a = pair[k[0]], b = pair[k[1]];
        if ((a | b) & PAIR_BAD || p[4] != term)
            return NULL;
        w = a << 8 | b;
        if ((w & 3) == 3) /* four digits are a compressed one */
            return NULL;
        p += 4;
    }
#endif
    *bits = w;
    return p;
}

#ifdef TEXT_AVX2
/* usual_pcinsn_avx2's constants (avx2_k_load). */
#define R4(x) x, x, x, x
#define R32(x) R4(x), R4(x), R4(x), R4(x), R4(x), R4(x), R4(x), R4(x)
static const struct {
    _Alignas(32) int8_t shift[32];
    _Alignas(32) int8_t dig_lim[32], dig_add[32], lower[32], alpha_lim[32], alpha_add[32], low4[32], nine[32];
    _Alignas(32) int16_t low8[16];
} g_avx2_k = {
    .shift = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, -128},
    /* c in [lo, lo + n) when c + (0x80 - lo), wrapping, is below -128 + n */
    .dig_lim = {R32(-128 + 10)},
    .dig_add = {R32((int8_t)(0x80 - '0'))},
    .lower = {R32(0x20)},
    .alpha_lim = {R32(-128 + 6)},
    .alpha_add = {R32((int8_t)(0x80 - 'a'))},
    .low4 = {R32(0x0f)},
    .nine = {R32(9)},
    .low8 = {R4(0xff), R4(0xff), R4(0xff), R4(0xff)},
};
#undef R32
#undef R4

/* The usual PC INSN line of a 64-bit program (what rvtrace convert and
 * QEMU logs write: 16 digits of PC, no 0x, a space, 8 or 4 digits of
 * instruction, the newline) in one 32-byte step where usual_line takes
 * two 16-byte ones: the address of the newline, the PC and bits parsed;
 * NULL for any other line (then usual_line's).  p may be read 32 bytes
 * on. */
struct avx2_k {
    __m256i shift, dig_lim, dig_add, lower, alpha_lim, alpha_add, low4, nine, low8;
};

/* The constants in registers, opaque to the compiler (the asm), which
 * otherwise makes each again in every line from an immediate (3
 * instructions). */
__attribute__((target("avx2"))) static inline void avx2_k_load(struct avx2_k *k)
{
#define K(name)                                                                                                      \
    do {                                                                                                             \
        k->name = _mm256_load_si256((const __m256i *)(const void *)g_avx2_k.name);                                   \
        __asm__("" : "+x"(k->name));                                                                                 \
    } while (0)
    K(shift);
    K(dig_lim);
    K(dig_add);
    K(lower);
    K(alpha_lim);
    K(alpha_add);
    K(low4);
    K(nine);
    K(low8);
#undef K
}

__attribute__((target("avx2"))) static inline const char *usual_pcinsn_avx2(const struct avx2_k *k, const char *p,
                                                                           uint64_t *pc, int64_t *bits)
{
    if (p[16] != ' ')
        return NULL;
#define K(name) (k->name)
    /* The upper lane one byte on, past the space: the instruction's
     * digits then pair up in 16-bit lanes as the PC's do. */
    const __m256i x = _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)(const void *)p), K(shift));
    /* as hex16_mask, on both at once */
    const __m256i dig = _mm256_cmpgt_epi8(K(dig_lim), _mm256_add_epi8(x, K(dig_add)));
    const __m256i alpha = _mm256_cmpgt_epi8(K(alpha_lim), _mm256_add_epi8(_mm256_or_si256(x, K(lower)), K(alpha_add)));
    const uint32_t m = (uint32_t)_mm256_movemask_epi8(_mm256_or_si256(dig, alpha));
    if ((m & 0xffff) != 0xffff)
        return NULL;
    const __m256i v = _mm256_add_epi8(_mm256_and_si256(x, K(low4)), _mm256_and_si256(alpha, K(nine)));
    __m256i t = _mm256_or_si256(_mm256_slli_epi16(v, 4), _mm256_srli_epi16(v, 8));
    t = _mm256_packus_epi16(_mm256_and_si256(t, K(low8)), _mm256_setzero_si256());
#undef K
    /* the instruction's digits from p + 17: bit 16 of m on */
    const uint64_t iv = __builtin_bswap64((uint64_t)_mm_cvtsi128_si64(_mm256_extracti128_si256(t, 1)));
    uint32_t w;
    if (!(p = insn_digits(p + 17, m >> 16, iv, '\n', &w)))
        return NULL;
    *pc = __builtin_bswap64((uint64_t)_mm_cvtsi128_si64(_mm256_castsi256_si128(t)));
    *bits = w;
    return p;
}
#endif

static int text_line(struct text_src *s, const char *line)
{
    uint64_t upc;
    int64_t ubits;
    if (usual_line(s->pair, line, s->fmt == RVT_ING_FMT_PCINSN, 0, &upc, &ubits)) {
        int rc = rvt_ing_builder_insn(s->b, upc, ubits, RVT_TEXT_PRIV, RVT_TEXT_CONTEXT, NULL);
        if (rc < 0)
            return text_fail(s, (enum rvt_err)-rc, s->line, "%s", rvt_ing_builder_error(s->b));
        return 0;
    }
    const char *p = skip_ws(line);
    if (!*p || *p == '#')
        return 0;
    uint64_t pc, bits = 0;
    unsigned digits = 0;
    const char *q = parse_hex(s->pair, p, &pc, NULL);
    if (!q || (*q && !isspace((unsigned char)*q) && *q != ':'))
        return text_fail(s, RVT_ERR_FORMAT, s->line, "expected a hex PC such as 0x20010522, got '%.40s'", p);
    if (*q == ':')
        q++;
    q = skip_ws(q);
    int64_t ibits = -1;
    if (s->fmt == RVT_ING_FMT_PCINSN) {
        const char *r = parse_hex(s->pair, q, &bits, &digits);
        if (!r || (digits != 4 && digits != 8) || *skip_ws(r))
            return text_fail(s, RVT_ERR_FORMAT, s->line,
                             "expected 'PC INSN' with INSN as 4 (compressed) or 8 hex digits, got '%.60s'", p);
        bool compressed = (bits & 3) != 3;
        if ((digits == 4) != compressed)
            return text_fail(s, RVT_ERR_FORMAT, s->line, "instruction %s has %u digits but is a %s instruction", q,
                             digits, compressed ? "16-bit" : "32-bit");
        ibits = (int64_t)bits;
    } else if (*q) {
        return text_fail(s, RVT_ERR_FORMAT, s->line,
                         "unexpected text after the PC: '%.40s' (is this a 'PC INSN' file? use --input-format pcinsn)", q);
    }
    int rc = rvt_ing_builder_insn(s->b, pc, ibits, RVT_TEXT_PRIV, RVT_TEXT_CONTEXT, NULL);
    if (rc < 0)
        return text_fail(s, (enum rvt_err)-rc, s->line, "%s", rvt_ing_builder_error(s->b));
    return 0;
}

/* Bytes of a mapped body read at a time: the pages behind are given back
 * as the reading goes on (rvt_trace_file_done_before), so that reading a
 * large file keeps a window of it, not all of it. */
#define MAP_WINDOW ((size_t)1 << 20)

/* The end of the body's window from `from`: after its last newline within
 * MAP_WINDOW bytes (the body's end, which is one, if there is none). */
static size_t map_window_end(const struct text_src *s, size_t from)
{
    if (s->body_len - from <= MAP_WINDOW)
        return s->body_len;
    const size_t e = rvt_text_after_newline(s->buf, from, from + MAP_WINDOW);
    return e > from ? e : s->body_len;
}

/* The tail of a mapped input (after its body) into own, read as the last
 * of a read file is. */
static void map_tail(struct text_src *s)
{
    const size_t tail = rvt_trace_file_size(s->map) - s->map_base - s->body_len;
    memcpy(s->own, s->buf + s->body_len, tail);
    s->buf = s->own;
    s->pos = 0;
    s->len = tail;
    s->slack = 0;
    s->eof = true;
    memset(s->buf + s->len, 0, TEXT_PAD);
}

struct rvt_trace_file *rvt_text_map_input(FILE *f, size_t *start)
{
    const char *env = getenv("RVT_TEXT_MAP");
    const off_t at = env && strcmp(env, "0") == 0 ? -1 : ftello(f);
    struct rvt_trace_file *map = at >= 0 ? rvt_trace_file_map_fd(fileno(f)) : NULL;
    if (map) {
        const size_t size = rvt_trace_file_size(map);
        *start = (uint64_t)at < size ? (size_t)at : size;
    }
    return map;
}

/* Map the serial reader's input (rvt_text_map_input; partext.c maps a
 * threaded reader's): no read() copy of the text.  Its whole lines up to
 * RVT_TEXT_SLACK bytes or more before its end are its body, read in place
 * (slack > 0: never written), the rest its tail, copied.  Whether it did. */
static bool text_map(struct text_src *s)
{
    s->map_tried = true;
    size_t start;
    if (!(s->map = rvt_text_map_input(s->f, &start)))
        return false;
    const char *m = (const char *)rvt_trace_file_data(s->map);
    const size_t size = rvt_trace_file_size(s->map), body = rvt_text_body_end(m, start, size);
    if (size - body > TEXT_CHUNK) { /* (a tail too long for own: a line too long, read as before) */
        rvt_trace_file_close(s->map);
        s->map = NULL;
        return false;
    }
    s->buf = (char *)(uintptr_t)(m + start); /* (read only: slack > 0) */
    s->map_base = start;
    s->body_len = body - start;
    s->pos = 0;
    if (!s->body_len) {
        map_tail(s);
        return true;
    }
    s->len = map_window_end(s, 0);
    s->slack = size - start - s->len;
    return true;
}

/* The next line, NUL-terminated in place (its newline replaced), or NULL
 * at the end of the input (or on an error, in s->diag). */
static char *text_getline(struct text_src *s)
{
    for (;;) {
        char *start = s->buf + s->pos;
        char *nl = s->len > s->pos ? memchr(start, '\n', s->len - s->pos) : NULL;
        if (nl && nl - start <= TEXT_LINE_MAX) {
            s->pos = (size_t)(nl - s->buf) + 1;
            s->line++;
            if (s->slack) { /* a body, not to be written: the line in a copy */
                const size_t n = (size_t)(nl - start);
                memcpy(s->line_copy, start, n);
                memset(s->line_copy + n, 0, TEXT_PAD + 1);
                return s->line_copy;
            }
            *nl = 0;
            return start;
        }
        if (!nl && s->map && s->slack) { /* the window read (it ends after a newline) */
            if (s->len < s->body_len) {
                rvt_trace_file_done_before(s->map, s->map_base + s->pos);
                s->len = map_window_end(s, s->len);
                s->slack = rvt_trace_file_size(s->map) - s->map_base - s->len;
            } else {
                map_tail(s);
            }
            continue;
        }
        if (nl || s->len - s->pos > TEXT_LINE_MAX) {
            text_fail(s, RVT_ERR_FORMAT, s->line + 1, "line longer than %d characters", TEXT_LINE_MAX);
            return NULL;
        }
        if (s->eof) {
            if (s->pos == s->len)
                return NULL;
            s->buf[s->len] = 0; /* a last line without newline */
            s->pos = s->len;
            s->line++;
            return start;
        }
        if (!s->map_tried && !s->len && text_map(s))
            continue;
        /* Keep the partial line, read the next chunk behind it. */
        size_t keep = s->len - s->pos;
        memmove(s->buf, start, keep);
        s->pos = 0;
        s->len = keep;
        size_t got = fread(s->buf + s->len, 1, TEXT_CHUNK, s->f);
        if (got == 0) {
            if (ferror(s->f)) {
                rvt_fail(&s->diag, RVT_ERR_IO, "%s: read error after line %" PRIu64 ": %s", s->name, s->line,
                         strerror(errno));
                return NULL;
            }
            s->eof = true;
        }
        s->len += got;
        memset(s->buf + s->len, 0, TEXT_PAD);
    }
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
        if (!s->out) /* the builder emitted into rec */
            return 1;
        if (s->diag.code)
            return -s->diag.code;
        if (s->done)
            return 0;
        /* A usual line read in place, up to its newline (what text_getline
         * and text_line would do with it, without looking for the newline
         * first): the buffer holds more than the longest usual line. */
        if (usual_room(s)) {
            uint64_t pc;
            int64_t bits;
            const char *e = usual_line(s->pair, s->buf + s->pos, s->fmt == RVT_ING_FMT_PCINSN, '\n', &pc, &bits);
            if (e) {
                s->pos = (size_t)(e - s->buf) + 1;
                s->line++;
                int rc = rvt_ing_builder_insn(s->b, pc, bits, RVT_TEXT_PRIV, RVT_TEXT_CONTEXT, NULL);
                if (rc < 0)
                    return text_fail(s, (enum rvt_err)-rc, s->line, "%s", rvt_ing_builder_error(s->b));
                continue;
            }
        }
        char *line = text_getline(s);
        if (!line) {
            if (s->diag.code)
                return -s->diag.code;
            s->done = true;
            if (s->no_finish)
                continue;
            int rc = rvt_ing_builder_finish(s->b);
            if (rc < 0)
                return rvt_fail(&s->diag, (enum rvt_err)-rc, "%s: at end: %s", s->name,
                                rvt_ing_builder_error(s->b));
            continue;
        }
        int rc = text_line(s, line);
        if (rc < 0)
            return rc;
    }
}

static int text_next_slow(struct text_src *s, struct rvt_ing_rec *rec);

/* The general path: text_next, its record into *rec. */
static __attribute__((noinline)) int text_next_slow(struct text_src *s, struct rvt_ing_rec *rec)
{
    s->out = rec;
    int rc = text_next(s, rec);
    s->out = NULL;
    return rc;
}

/* The usual lines from pos that the builder's fast step retires, up to
 * max of them (it stops before the first that is not one, or where
 * usual_room ends): their records into shorts[] (a chunk's) or recs[] (a
 * batch's slots, which hold a fast record: rvt_ing_fast_rec_over).  How
 * many.  (pos, the line count and the end in locals: the record stores
 * could alias them.)  PARSE(p, &pc, &bits) parses a line as usual_line. */
#define FAST_LINES(PARSE)                                                                                            \
    if (s->qlen || s->diag.code)                                                                                     \
        return 0;                                                                                                    \
    const bool pcinsn = s->fmt == RVT_ING_FMT_PCINSN;                                                                \
    const char *const buf = s->buf;                                                                                  \
    const uint16_t *const pair = s->pair;                                                                            \
    struct rvt_ing_run run;                                                                                          \
    rvt_ing_run_begin(s->b, &run);                                                                                   \
    const size_t end = usual_end(s); /* (len and slack stay meanwhile) */                                            \
    size_t pos = s->pos, k = 0;                                                                                      \
    while (k < max && pos < end) {                                                                                   \
        __builtin_prefetch(buf + pos + PREFETCH_AHEAD); /* (never faults) */                                         \
        uint64_t pc;                                                                                                 \
        int64_t bits;                                                                                                \
        struct rvt_ing_fast f;                                                                                       \
        const char *e = PARSE(buf + pos, &pc, &bits);                                                                \
        if (!e || !rvt_ing_run_advance(&run, pc, bits, RVT_TEXT_PRIV, RVT_TEXT_CONTEXT, shorts ? &shorts[k] : &f))  \
            break;                                                                                                   \
        if (recs)                                                                                                    \
            rvt_ing_fast_rec_over(&f, &recs[k]);                                                                     \
        pos = (size_t)(e - buf) + 1;                                                                                 \
        k++;                                                                                                         \
    }                                                                                                                \
    rvt_ing_run_end(s->b, &run);                                                                                     \
    s->pos = pos;                                                                                                    \
    s->line += k;                                                                                                    \
    return k

#define USUAL_PARSE(p, pc, bits) usual_line(pair, p, pcinsn, '\n', pc, bits)
static inline __attribute__((always_inline)) size_t fast_lines_sse(struct text_src *s, struct rvt_ing_fast *shorts,
                                                                   struct rvt_ing_rec *recs, size_t max)
{
    FAST_LINES(USUAL_PARSE);
}

#ifdef TEXT_AVX2
#define AVX2_PARSE(p, pc, bits)                                                                                      \
    ((hit = usual_pcinsn_avx2(&kv, p, pc, bits)) != NULL ? hit : usual_line(pair, p, pcinsn, '\n', pc, bits))
/* (Functions of their own: code for AVX2 is only made in one.  One for
 * each destination: a choice in the loop costs 3 % more.) */
#define FAST_LINES_AVX2                                                                                              \
    const char *hit;                                                                                                 \
    struct avx2_k kv;                                                                                                \
    avx2_k_load(&kv);                                                                                                \
    FAST_LINES(AVX2_PARSE)
__attribute__((target("avx2"), noinline)) static size_t fast_shorts_avx2(struct text_src *s,
                                                                         struct rvt_ing_fast *shorts, size_t max)
{
    struct rvt_ing_rec *const recs = NULL;
    FAST_LINES_AVX2;
}
__attribute__((target("avx2"), noinline)) static size_t fast_recs_avx2(struct text_src *s, struct rvt_ing_rec *recs,
                                                                       size_t max)
{
    struct rvt_ing_fast *const shorts = NULL;
    FAST_LINES_AVX2;
}
#endif

static inline size_t fast_lines(struct text_src *s, struct rvt_ing_fast *shorts, struct rvt_ing_rec *recs, size_t max)
{
#ifdef TEXT_AVX2
    if (s->avx2 && s->fmt == RVT_ING_FMT_PCINSN) /* (a PC list is one 16-byte step already) */
        return shorts ? fast_shorts_avx2(s, shorts, max) : fast_recs_avx2(s, recs, max);
#endif
    return fast_lines_sse(s, shorts, recs, max);
}

/* The serial reader's next batch into s->batch (bpos, bend): the usual
 * lines the fast step retires, up to a batch of them, without a call for
 * each and without writing what their records share; or a record of the
 * general path alone (so that its warning comes when it would: after the
 * records before it were taken).  1, or the end (0) or error (< 0). */
static int text_fill(struct text_src *s)
{
    if (!s->batch) {
        if (!(s->batch = malloc(sizeof *s->batch)))
            return rvt_fail(&s->diag, RVT_ERR_NOMEM, "%s: out of memory", s->name);
        rvt_text_batch_init(s->batch);
    }
    struct rvt_text_batch *b = s->batch;
    rvt_text_batch_start(b);
    s->bpos = s->bend = 0;
    size_t k = fast_lines(s, NULL, b->rec, RVT_TEXT_BATCH);
    if (!k) {
        const int rc = text_next_slow(s, rvt_text_batch_full(b, 0));
        if (rc <= 0)
            return rc;
        k = 1;
    }
    s->bend = k;
    return 1;
}

/* rvt_ing_next_batch: the rest of the batch (in place). */
static int text_batch(void *self, const struct rvt_ing_rec **recs, size_t *n)
{
    struct text_src *s = self;
    if (s->bpos == s->bend) {
        const int rc = text_fill(s);
        if (rc <= 0)
            return rc;
    }
    *recs = &s->batch->rec[s->bpos];
    *n = s->bend - s->bpos;
    s->bpos = s->bend;
    return 1;
}

/* rvt_ing_next: the batch's next record. */
static int text_next_out(void *self, struct rvt_ing_rec *rec)
{
    struct text_src *s = self;
    if (s->bpos == s->bend) {
        const int rc = text_fill(s);
        if (rc <= 0)
            return rc;
    }
    *rec = s->batch->rec[s->bpos++];
    return 1;
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
    rvt_trace_file_close(s->map);
    rvt_ing_builder_free(s->b);
    free(s->name);
    free(s->own);
    free(s->pair);
    free(s->line_copy);
    free(s->batch);
    free(s);
}

static const struct rvt_ing_source_ops g_text_ops = {text_next_out, text_error, text_close, text_xlen};

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
    s->buf = s->own = calloc(1, TEXT_CHUNK + TEXT_LINE_MAX + TEXT_PAD + 1);
    s->pair = pair_table();
    s->avx2 = text_avx2();
    s->line_copy = malloc(TEXT_LINE_MAX + 1 + TEXT_PAD);
    if (!s->buf || !s->pair || !s->line_copy) {
        text_close(s);
        return rvt_fail(diag, RVT_ERR_NOMEM, "%s: out of memory", path);
    }
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
    rvt_ing_reader_set_batch(*out, text_batch);
    return 0;
}

/* ---- text in chunks (textchunk.h) ---------------------------------------- */

int rvt_text_take(struct rvt_ing_reader *r, struct rvt_text_input *t)
{
    if (r->ops != &g_text_ops || r->select_hart)
        return 0;
    struct text_src *s = r->self;
    if (s->b->cfg.merge_blocks || s->line || s->len || s->eof || s->map_tried || s->diag.code)
        return 0;
    memset(t, 0, sizeof *t);
    t->name = strdup(s->name ? s->name : "");
    if (!t->name)
        return 0;
    t->f = s->f;
    s->f = NULL;
    t->fmt = s->fmt;
    t->xlen = s->xlen;
    t->bc = s->b->cfg;
    t->warn = s->b->cfg.warn;
    t->warn_ctx = s->b->cfg.warn_ctx;
    rvt_ing_close(r);
    return 1;
}

void rvt_text_input_free(struct rvt_text_input *t)
{
    close_input(t->f);
    free(t->name);
    memset(t, 0, sizeof *t);
}

/* The builder's warning in a chunk: kept for the caller, who gives it at
 * its place among the records (dropped in the lines before the chunk:
 * those were the previous chunk's). */
static void chunk_warn(void *ctx, const char *text)
{
    struct text_src *s = ctx;
    if (s->discard || s->warned)
        return;
    s->warned = true;
    s->warn_at = s->nrec;
    s->user_warn(s->user_warn_ctx, text); /* (the chunk's copy: see rvt_text_parse_chunk) */
}

static void keep_warning(void *ctx, const char *text)
{
    struct rvt_text_chunk *c = ctx;
    snprintf(c->warn, sizeof c->warn, "%s", text);
}

struct text_src *rvt_text_parser_new(const struct rvt_text_input *t)
{
    struct text_src *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->name = strdup(t->name);
    s->fmt = t->fmt;
    s->xlen = t->xlen;
    s->chunk = true;
    s->pair = pair_table();
    s->avx2 = text_avx2();
    s->line_copy = malloc(TEXT_LINE_MAX + 1 + TEXT_PAD);
    struct rvt_ing_builder_config bc = t->bc;
    bc.emit = text_emit;
    bc.emit_ctx = s;
    bc.warn = chunk_warn;
    bc.warn_ctx = s;
    s->b = s->name && s->pair && s->line_copy ? rvt_ing_builder_new(&bc) : NULL;
    if (!s->b) {
        rvt_text_parser_free(s);
        return NULL;
    }
    return s;
}

void rvt_text_parser_free(struct text_src *p)
{
    if (p) {
        p->buf = NULL; /* the chunks' */
        text_close(p);
    }
}

bool rvt_text_is_insn_line(const char *p, size_t n)
{
    /* text_line's test on the line as a string (it ends at a NUL) */
    size_t i = 0;
    while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r'))
        i++;
    return i < n && p[i] != 0 && p[i] != '#';
}

/* p (of *cap elements of `size` bytes) with twice the room, or `first`
 * elements if none; NULL if out of memory (p is kept). */
static void *grow_array(void *p, size_t *cap, size_t first, size_t size)
{
    const size_t n = *cap ? 2 * *cap : first;
    void *q = realloc(p, n * size);
    if (q)
        *cap = n;
    return q;
}

int rvt_text_parse_chunk(struct text_src *s, struct rvt_text_chunk *c)
{
    rvt_ing_builder_restart(s->b);
    rvt_diag_clear(&s->diag);
    s->qhead = s->qlen = 0;
    s->out = NULL;
    s->done = false;
    s->err_line = 0;
    s->warned = false;
    s->user_warn = keep_warning;
    s->user_warn_ctx = c;
    c->n = 0;
    c->nfull = 0;
    c->lines = 0;
    c->err = 0;
    c->err_line = 0;
    c->msg[0] = 0;
    c->warned = false;
    /* The lines before: the builder as the serial reader has it at the
     * chunk's first line.  Their errors are an earlier chunk's. */
    s->discard = true;
    for (unsigned i = 0; i < c->nprefix && !s->diag.code; i++)
        text_line(s, c->prefix[i]);
    s->discard = false;
    if (s->diag.code) {
        c->err = -RVT_ERR_FORMAT;
        snprintf(c->msg, sizeof c->msg, "%s: the lines before a part of the text do not parse", s->name);
        return c->err;
    }
    /* The body in place, then the text; the builder and the line count
     * go on from one to the other as if they were one buffer. */
    size_t n = 0;
    int rc = 0;
    s->line = 0;
    for (int span = c->body_len ? 0 : 1; span < 2 && rc == 0; span++) {
        if (span == 0) {
            s->buf = (char *)(uintptr_t)c->body; /* (read only: slack > 0) */
            s->len = c->body_len;
            s->slack = RVT_TEXT_SLACK;
            s->no_finish = true;
        } else {
            s->buf = c->text;
            s->len = c->len;
            s->slack = 0;
            s->no_finish = !c->last;
            memset(s->buf + s->len, 0, TEXT_PAD);
        }
        s->pos = 0;
        s->eof = true;
        s->done = false;
        for (;;) {
            if (n == c->cap) {
                struct rvt_ing_fast *r = grow_array(c->recs, &c->cap, (c->body_len + c->len) / 16 + 64, sizeof *r);
                if (!r) {
                    rc = rvt_fail(&s->diag, RVT_ERR_NOMEM, "%s: out of memory", s->name);
                    break;
                }
                c->recs = r;
            }
            /* the usual lines the fast step retires, as text_fill takes them */
            const size_t k = fast_lines(s, &c->recs[n], NULL, c->cap - n);
            n += k;
            if (k || n == c->cap)
                continue;
            if (c->nfull == c->fcap) {
                struct rvt_ing_rec *r = grow_array(c->full, &c->fcap, 64, sizeof *r);
                if (!r) {
                    rc = rvt_fail(&s->diag, RVT_ERR_NOMEM, "%s: out of memory", s->name);
                    break;
                }
                c->full = r;
            }
            s->nrec = n;
            rc = text_next_slow(s, &c->full[c->nfull]);
            if (rc <= 0)
                break;
            c->recs[n].len = 0; /* (the next full record) */
            c->nfull++;
            n++;
        }
    }
    s->slack = 0;
    c->n = n;
    c->lines = s->line;
    if (s->warned) {
        c->warned = true;
        c->warn_at = s->warn_at;
    }
    if (rc < 0) {
        c->err = rc;
        c->err_line = s->err_line;
        snprintf(c->msg, sizeof c->msg, "%s", s->diag.msg);
    }
    s->buf = NULL;
    return rc < 0 ? rc : 0;
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

static int count_block(const struct rvt_ing_rec *r, struct rvt_bcache *bc, uint64_t *count);

int rvt_ing_count_insns(const struct rvt_ing_rec *r, struct rvt_bcache *bc, uint64_t *count)
{
    /* (once per record of every encode: one instruction, or none, here) */
    if (r->iretire == 1u << r->ilastsize || r->iretire == 0) {
        *count = r->iretire != 0;
        return 0;
    }
    return count_block(r, bc, count);
}

static __attribute__((noinline)) int count_block(const struct rvt_ing_rec *r, struct rvt_bcache *bc,
                                                 uint64_t *count)
{
    if (!bc)
        return -RVT_ERR_INVAL;
    /* Walk the code of the block: sizes of the instructions before the last.
     * Runs once or twice per record of every encode: cache blocks whole,
     * the last one instruction by instruction from its size bits. */
    uint64_t n = 0, addr = r->iaddr, end = rvt_ing_last_addr(r);
    while (addr < end) {
        const struct rvt_block_info *b = rvt_bcache_lookup(bc, addr);
        if (b->ninsns == 0)
            return -RVT_ERR_NOCODE;
        uint64_t span = 2ull * b->halfwords;
        if (addr + span <= end) {
            n += b->ninsns;
            addr += span;
        } else if (b->last == end) { /* the usual end: the cache block's last instruction */
            n += b->ninsns - 1;
            addr = end;
        } else {
            uint64_t rvc = b->rvc_mask; /* bit i: instruction i is 16-bit */
            uint32_t i = 0;
            while (addr < end && i < b->ninsns) {
                addr += 4 - 2 * (rvc & 1);
                rvc >>= 1;
                i++;
            }
            if (addr != end)
                return -RVT_ERR_MISMATCH;
            n += i;
        }
    }
    if (addr != end)
        return -RVT_ERR_MISMATCH;
    *count = n + 1;
    return 0;
}
