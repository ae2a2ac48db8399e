/* The PC list and "PC INSN" text readers: lines of every shape across the
 * reader's 1 MiB read chunks (a line split between two reads, lines of the
 * longest accepted length), the same records as the ingress builder gives
 * for the same instructions; hex numbers of every width and case; the line
 * limit, a last line without newline; and the builder's decoded-instruction
 * cache when the same address holds different instructions. */
#include "testlib.h"
#include "rvtrace/rvtrace.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct recs {
    struct rvt_ing_rec *r;
    size_t n, cap;
};

static int keep(void *ctx, const struct rvt_ing_rec *r)
{
    struct recs *v = ctx;
    if (v->n == v->cap) {
        v->cap = v->cap ? 2 * v->cap : 4096;
        v->r = realloc(v->r, v->cap * sizeof *v->r);
        if (!v->r)
            abort();
    }
    v->r[v->n++] = *r;
    return 0;
}

/* All records of a text file, taken one by one (rvt_ing_next) or by
 * batches (rvt_ing_next_batch, as encode takes them), or <0 with the
 * reader's message in err. */
static int read_file_how(const char *path, enum rvt_ing_format fmt, const struct rvt_image *img, bool batches,
                         struct recs *out, char *err, size_t errlen)
{
    struct rvt_ing_reader_config rc = {.size = sizeof rc, .format = fmt, .image = img, .xlen = img ? 0 : 64};
    struct rvt_ing_reader *r;
    struct rvt_diag d = {0};
    err[0] = 0;
    int k = rvt_ing_open(&r, path, &rc, &d);
    if (k < 0) {
        snprintf(err, errlen, "%s", d.msg);
        return k;
    }
    if (batches) {
        const struct rvt_ing_rec *b;
        size_t nb;
        while ((k = rvt_ing_next_batch(r, &b, &nb)) > 0)
            for (size_t i = 0; i < nb; i++)
                keep(out, &b[i]);
    } else {
        struct rvt_ing_rec rec;
        while ((k = rvt_ing_next(r, &rec)) > 0)
            keep(out, &rec);
    }
    if (k < 0)
        snprintf(err, errlen, "%s", rvt_ing_error(r));
    rvt_ing_close(r);
    return k;
}

static int read_file(const char *path, enum rvt_ing_format fmt, const struct rvt_image *img, struct recs *out,
                     char *err, size_t errlen)
{
    return read_file_how(path, fmt, img, false, out, err, errlen);
}

static bool same_rec(const struct rvt_ing_rec *a, const struct rvt_ing_rec *b)
{
    return a->iaddr == b->iaddr && a->iretire == b->iretire && a->ilastsize == b->ilastsize && a->itype == b->itype &&
           a->flags == b->flags && a->priv == b->priv && a->context == b->context && a->cause == b->cause;
}

static void write_file(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    REQUIRE(f != NULL);
    REQUIRE(fwrite(text, 1, len, f) == len);
    fclose(f);
}

struct text {
    char *p;
    size_t n, cap;
};

static void put(struct text *t, const char *s, size_t n)
{
    if (t->n + n + 1 > t->cap) {
        t->cap = (t->n + n + 1) * 2;
        t->p = realloc(t->p, t->cap);
        if (!t->p)
            abort();
    }
    memcpy(t->p + t->n, s, n);
    t->n += n;
    t->p[t->n] = 0;
}

/* jal x0, imm */
static uint32_t jal0(int32_t imm)
{
    uint32_t u = (uint32_t)imm;
    return ((u >> 20 & 1) << 31) | ((u >> 1 & 0x3ff) << 21) | ((u >> 11 & 1) << 20) | ((u >> 12 & 0xff) << 12) | 0x6f;
}

/* A long straight-line execution in PC INSN text, its lines in every shape
 * the reader accepts, against the builder fed the same instructions. */
static void test_shapes_across_chunks(void)
{
    char path[512], err[512];
    snprintf(path, sizeof path, "%s/shapes.txt", rvt_test_tmpdir());
    struct recs want = {0};
    struct rvt_ing_builder_config bc = {.size = sizeof bc, .xlen = 64, .emit = keep, .emit_ctx = &want};
    struct rvt_ing_builder *b = rvt_ing_builder_new(&bc);
    REQUIRE(b != NULL);
    struct text t = {0};
    uint64_t pc = 0x7ffff0ull, seed = 1;
    char line[6000];
    while (t.n < 3300000) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        unsigned shape = (unsigned)(seed >> 59) % 10;
        bool rvc = (seed >> 40) & 1;
        uint32_t bits = rvc ? 0x0001 : 0x00000013u | (uint32_t)((seed >> 20) & 0x7ff) << 20;
        int n;
        switch (shape) {
        case 0: /* the capture's own form */
            n = snprintf(line, sizeof line, "%016" PRIx64 " %0*" PRIx32 "\n", pc, rvc ? 4 : 8, bits);
            break;
        case 1: /* 0x, upper case, a tab, CRLF */
            n = snprintf(line, sizeof line, "0x%" PRIX64 "\t%0*" PRIX32 "\r\n", pc, rvc ? 4 : 8, bits);
            break;
        case 2: /* leading blanks, a colon, trailing blanks */
            n = snprintf(line, sizeof line, "   0X%" PRIx64 ":  %0*" PRIx32 "   \n", pc, rvc ? 4 : 8, bits);
            break;
        case 3: /* a comment and a blank line before */
            n = snprintf(line, sizeof line, "# instruction %" PRIu64 "\n\n%" PRIx64 " %0*" PRIx32 "\n", seed % 1000, pc,
                         rvc ? 4 : 8, bits);
            break;
        case 4: { /* a comment of the longest accepted length */
            memset(line, '#', 4094);
            line[4094] = '\n';
            n = 4095 + snprintf(line + 4095, sizeof line - 4095, "%" PRIx64 " %0*" PRIx32 "\n", pc, rvc ? 4 : 8, bits);
            break;
        }
        default: /* mixed case, 9-15 digits */
            n = snprintf(line, sizeof line, "%013" PRIx64 " %0*" PRIx32 "\n", pc, rvc ? 4 : 8, bits);
            for (int i = 0; i < n; i++)
                if (line[i] >= 'a' && line[i] <= 'f' && (seed >> (i % 60) & 1))
                    line[i] = (char)(line[i] - 'a' + 'A');
            break;
        }
        put(&t, line, (size_t)n);
        REQUIRE(rvt_ing_builder_insn(b, pc, bits, RVT_PRIV_M, 0, NULL) == 0);
        pc += rvc ? 2 : 4;
    }
    REQUIRE(rvt_ing_builder_finish(b) == 0);
    rvt_ing_builder_free(b);
    /* and the last line without its newline */
    t.n--;
    write_file(path, t.p, t.n);
    struct recs got = {0};
    CHECK_MSG(read_file(path, RVT_ING_FMT_PCINSN, NULL, &got, err, sizeof err) == 0, "%s", err);
    CHECK_MSG(got.n == want.n, "%zu records, expected %zu", got.n, want.n);
    for (size_t i = 0; i < got.n && i < want.n; i++)
        if (!same_rec(&got.r[i], &want.r[i])) {
            CHECK_MSG(0, "record %zu: iaddr 0x%" PRIx64 " iretire %u itype %u, expected 0x%" PRIx64 " %u %u", i,
                      got.r[i].iaddr, got.r[i].iretire, got.r[i].itype, want.r[i].iaddr, want.r[i].iretire,
                      want.r[i].itype);
            break;
        }
    free(got.r);
    free(want.r);
    free(t.p);
}

static void test_limits_and_numbers(void)
{
    char path[512], err[512];
    snprintf(path, sizeof path, "%s/lim.txt", rvt_test_tmpdir());
    struct recs got = {0};

    /* 4095 characters: refused, naming the line, after a chunk's worth of
     * good lines so that it straddles a read */
    struct text t = {0};
    char line[64];
    uint64_t pc = 0x1000;
    size_t lines = 0;
    while (t.n < (1u << 20) - 100) {
        int n = snprintf(line, sizeof line, "%" PRIx64 " 00000013\n", pc);
        put(&t, line, (size_t)n);
        pc += 4;
        lines++;
    }
    char *longline = malloc(4096);
    REQUIRE(longline != NULL);
    memset(longline, '#', 4095);
    longline[4095] = '\n';
    put(&t, longline, 4096);
    write_file(path, t.p, t.n);
    CHECK(read_file(path, RVT_ING_FMT_PCINSN, NULL, &got, err, sizeof err) == -RVT_ERR_FORMAT);
    char expect[64];
    snprintf(expect, sizeof expect, "line %zu: line longer than 4094", lines + 1);
    CHECK_MSG(strstr(err, expect) != NULL, "message: %s (expected '%s')", err, expect);
    CHECK_EQ(got.n, lines - 1); /* every record before it (the last waits for its successor) */
    free(longline);
    free(t.p);

    /* 16 digits are the most a number has */
    got.n = 0;
    write_file(path, "0000000000001000 00000013\n00000000000001004 00000013\n", 52);
    CHECK(read_file(path, RVT_ING_FMT_PCINSN, NULL, &got, err, sizeof err) == -RVT_ERR_FORMAT);
    CHECK_MSG(strstr(err, "line 2") && strstr(err, "expected a hex PC"), "message: %s", err);

    /* instruction widths: 4 or 8 digits, whatever their case */
    got.n = 0;
    const char *good = "1000 0000006F\n";
    write_file(path, good, strlen(good));
    CHECK_MSG(read_file(path, RVT_ING_FMT_PCINSN, NULL, &got, err, sizeof err) == 0, "%s", err);
    CHECK(got.n == 1 && got.r[0].itype == RVT_ITYPE_JUMP_INF);
    const char *five = "1000 00013\n";
    write_file(path, five, strlen(five));
    CHECK(read_file(path, RVT_ING_FMT_PCINSN, NULL, &got, err, sizeof err) == -RVT_ERR_FORMAT);
    CHECK_MSG(strstr(err, "4 (compressed) or 8 hex digits"), "message: %s", err);
    /* a digit too many after a full eight */
    const char *nine = "1000 000000130\n";
    write_file(path, nine, strlen(nine));
    CHECK(read_file(path, RVT_ING_FMT_PCINSN, NULL, &got, err, sizeof err) == -RVT_ERR_FORMAT);
    free(got.r);
}

/* The builder keeps decoded instructions by address: code that changes
 * under the same address must be decoded again. */
static void test_changing_code(void)
{
    char path[512], err[512];
    snprintf(path, sizeof path, "%s/smc.txt", rvt_test_tmpdir());
    char text[512];
    /* 0x1000: c.nop, then jal back to 0x1000, which now holds a 4-byte nop */
    int n = snprintf(text, sizeof text, "1000 0001\n1002 %08" PRIx32 "\n1000 00000013\n1004 00000013\n", jal0(-2));
    write_file(path, text, (size_t)n);
    struct recs got = {0};
    CHECK_MSG(read_file(path, RVT_ING_FMT_PCINSN, NULL, &got, err, sizeof err) == 0, "%s", err);
    REQUIRE(got.n == 4);
    CHECK_EQ(got.r[0].ilastsize, 0);
    CHECK_EQ(got.r[1].itype, RVT_ITYPE_JUMP_INF);
    CHECK_EQ(got.r[2].iaddr, 0x1000);
    CHECK_EQ(got.r[2].ilastsize, 1);
    CHECK_EQ(got.r[2].iretire, 2);
    /* the other way round */
    n = snprintf(text, sizeof text, "1000 00000013\n1004 %08" PRIx32 "\n1000 0001\n1002 0001\n", jal0(-4));
    write_file(path, text, (size_t)n);
    got.n = 0;
    CHECK_MSG(read_file(path, RVT_ING_FMT_PCINSN, NULL, &got, err, sizeof err) == 0, "%s", err);
    REQUIRE(got.n == 4);
    CHECK_EQ(got.r[2].ilastsize, 0);
    CHECK_EQ(got.r[2].iretire, 1);

    /* a PC list reads the image; the same address given as text with other
     * bits is another instruction */
    struct rvt_image *img = rvt_img_new();
    const uint8_t code[] = {0x13, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00}; /* nop; c.nop; c.nop */
    REQUIRE(rvt_img_add_raw(img, 0x1000, code, sizeof code, "code") == 0);
    n = snprintf(text, sizeof text, "0x1000\n0x1004\n0x1006\n");
    write_file(path, text, (size_t)n);
    got.n = 0;
    CHECK_MSG(read_file(path, RVT_ING_FMT_PCLIST, img, &got, err, sizeof err) == 0, "%s", err);
    REQUIRE(got.n == 3);
    CHECK_EQ(got.r[0].ilastsize, 1);
    CHECK_EQ(got.r[1].ilastsize, 0);
    rvt_img_free(img);

    /* Instructions whose addresses share a cache entry (the cache is
     * direct-mapped: 32 KiB and 64 KiB apart here, tried both), one after
     * the other: the held jump and the auipc before a jalr must survive
     * the entry's refill (the jalr keeps its SIJUMP flag). */
    for (uint32_t stride = 0x8000; stride <= 0x10000; stride *= 2) {
        const uint64_t x = 0x10000;
        uint32_t jal = ((uint32_t)(stride >> 20 & 1) << 31) | ((stride >> 1 & 0x3ff) << 21) |
                       ((stride >> 11 & 1) << 20) | ((stride >> 12 & 0xff) << 12) | 0x6f; /* jal x0, +stride */
        n = snprintf(text, sizeof text,
                     "%" PRIx64 " %08" PRIx32 "\n%" PRIx64 " 00030067\n%" PRIx64 " %08" PRIx32 "\n%" PRIx64 " 00000013\n%" PRIx64
                     " 00000013\n",
                     x, stride | 6u << 7 | 0x17u, x + 4, x + stride, jal, x + 2 * stride, x + 2 * stride + 4);
        write_file(path, text, (size_t)n);
        got.n = 0;
        CHECK_MSG(read_file(path, RVT_ING_FMT_PCINSN, NULL, &got, err, sizeof err) == 0, "%s", err);
        REQUIRE(got.n == 5);
        CHECK_EQ(got.r[1].itype, RVT_ITYPE_JUMP_UNINF);
        CHECK_EQ(got.r[1].flags, RVT_ING_SIJUMP);
        CHECK_EQ(got.r[2].iaddr, x + stride);
        CHECK_EQ(got.r[2].itype, RVT_ITYPE_JUMP_INF);
        CHECK_EQ(got.r[3].iaddr, x + 2 * stride);
    }
    free(got.r);
}

/* Usual lines are read in place, without looking for their newline first;
 * the lines around them (CRLF endings here) take the general parse.  Both
 * report an error with its line: a bad digit, and a PC the previous
 * instruction cannot reach. */
static void test_usual_lines_in_place(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/usual.txt", rvt_test_tmpdir());
    for (int crlf = 0; crlf < 2; crlf++) {
        for (int bad = 0; bad < 2; bad++) {
            struct text t = {0};
            char line[64];
            for (unsigned i = 1; i <= 1000; i++) {
                uint64_t pc = 0x80001000u + 4u * (i - 1) + (bad && i >= 500 ? 8u : 0u);
                int n = snprintf(line, sizeof line, "%016" PRIx64 " %s%s", pc,
                                 !bad && i == 700 ? "0000001g" : "00000013", crlf ? "\r\n" : "\n");
                put(&t, line, (size_t)n);
            }
            write_file(path, t.p, t.n);
            struct recs got = {0};
            char err[512];
            CHECK(read_file(path, RVT_ING_FMT_PCINSN, NULL, &got, err, sizeof err) < 0);
            char want[128]; /* line 499's nop cannot go to line 500's PC, 8 bytes on */
            if (bad)
                snprintf(want, sizeof want, "line 500: pc 0x%" PRIx64 " -> 0x%" PRIx64 " not explained",
                         (uint64_t)0x80001000u + 4u * 498, (uint64_t)0x80001000u + 4u * 499 + 8);
            else
                snprintf(want, sizeof want, "line 700: expected 'PC INSN'");
            CHECK_MSG(strstr(err, want) != NULL, "message: %s (expected '%s')", err, want);
            CHECK_EQ(got.n, bad ? 498u : 698u); /* every record before it (the last waits for its successor) */
            for (size_t k = 0; k < got.n; k++)
                CHECK(got.r[k].iaddr == 0x80001000u + 4u * k && got.r[k].iretire == 2 && got.r[k].itype == 0);
            free(got.r);
            free(t.p);
        }
    }
}


/* Every field of two records. */
static bool same_whole(const struct rvt_ing_rec *a, const struct rvt_ing_rec *b)
{
    return same_rec(a, b) && a->tval == b->tval && a->time == b->time && a->rd_value == b->rd_value &&
           a->mem_addr == b->mem_addr && a->mem_value == b->mem_value && a->mem_operand == b->mem_operand &&
           a->ctype == b->ctype && a->rd == b->rd && a->mem_size == b->mem_size && a->tp_type == b->tp_type &&
           a->hart == b->hart && a->dtype == b->dtype;
}


/* ---- the text parsed on threads (rvt_ing_text_jobs) against the serial reader ---- */

struct seen {
    struct recs r;
    char warn[2048]; /* "at N: text" for each warning */
};

static void note_warn(void *ctx, const char *text)
{
    struct seen *v = ctx;
    size_t l = strlen(v->warn);
    snprintf(v->warn + l, sizeof v->warn - l, "at %zu: %s\n", v->r.n, text);
}

/* r's next record, taken from batches (rvt_ing_next_batch, as encode
 * takes them) but every third time one by one (rvt_ing_next): the two
 * mixed, as they may be. */
struct mixed {
    const struct rvt_ing_rec *b;
    size_t nb;
    unsigned turn;
};

static int next_mixed(struct rvt_ing_reader *r, struct mixed *m, struct rvt_ing_rec *rec)
{
    if (!m->nb) {
        if (m->turn++ % 3 == 2)
            return rvt_ing_next(r, rec);
        const int k = rvt_ing_next_batch(r, &m->b, &m->nb);
        if (k <= 0)
            return k;
        CHECK(m->nb > 0);
    }
    *rec = *m->b++;
    m->nb--;
    return 1;
}

/* r's next record, taken from batches in short (rvt_ing_next_short, as
 * encode takes them for E-Trace) but after each batch one by one
 * (rvt_ing_next): the two mixed, as they may be. */
struct in_short {
    struct rvt_ing_short_batch b;
    size_t at, full;
    bool one;
};

static int next_short(struct rvt_ing_reader *r, struct in_short *m, struct rvt_ing_rec *rec)
{
    if (m->at == m->b.n) {
        if ((m->one = !m->one))
            return rvt_ing_next(r, rec);
        const int k = rvt_ing_next_short(r, &m->b);
        if (k <= 0)
            return k;
        CHECK(m->b.n > 0);
        m->at = m->full = 0; /* (a new batch) */
    }
    rvt_ing_short_rec(&m->b, m->at++, &m->full, rec);
    return 1;
}

/* Every record, the end or error and the warnings of `path`, read serially
 * (jobs 0) or on `jobs` threads in chunks of `chunk` bytes; one by one, or
 * (mixed) by batches and one by one (next_mixed), or (shorts) in short and
 * one by one (next_short). */
static int read_jobs(const char *path, enum rvt_ing_format fmt, const struct rvt_image *img, enum rvt_ecall_mode em,
                     unsigned jobs, size_t chunk, bool mixed, bool shorts, struct seen *out, char *err, size_t errlen)
{
    struct rvt_ing_reader_config rc = {.size = sizeof rc, .format = fmt, .image = img, .xlen = img ? 0 : 64,
                                       .ecall_mode = em, .warn = note_warn, .warn_ctx = out};
    struct rvt_ing_reader *r, *p;
    struct rvt_diag d = {0};
    err[0] = 0;
    int k = rvt_ing_open(&r, path, &rc, &d);
    if (k < 0)
        abort();
    if (jobs) {
        k = rvt_ing_text_jobs(&p, r, jobs, chunk, &d);
        if (k != 1)
            abort();
        r = p;
    }
    struct rvt_ing_rec rec;
    struct mixed m = {0};
    struct in_short sm = {0};
    while ((k = shorts ? next_short(r, &sm, &rec) : mixed ? next_mixed(r, &m, &rec) : rvt_ing_next(r, &rec)) > 0)
        keep(&out->r, &rec);
    if (k < 0) {
        snprintf(err, errlen, "%s", rvt_ing_error(r));
        CHECK(rvt_ing_next(r, &rec) == k); /* it stays there */
    }
    rvt_ing_close(r);
    return k;
}

/* What read_jobs gave (got) is what the serial reader gave one by one (want). */
static void same_seen(const struct seen *got, int kg, const char *eg, const struct seen *want, int kw, const char *ew,
                      const char *what, const char *how)
{
    size_t k = 0;
    while (k < got->r.n && k < want->r.n && same_whole(&got->r.r[k], &want->r.r[k]))
        k++;
    CHECK_MSG(kg == kw && got->r.n == want->r.n && k == want->r.n && !strcmp(eg, ew) && !strcmp(got->warn, want->warn),
              "%s: %s: %d after %zu records (same up to %zu) '%s' warned '%s'; serial: %d after %zu '%s' warned '%s'",
              what, how, kg, got->r.n, k, eg, got->warn, kw, want->r.n, ew, want->warn);
}

/* The same records, end, message and warnings from every cut of the text
 * into chunks (of `chunks`, 0 ends the list) on 2, 3 and 4 threads (on 3
 * taken by batches and one by one, on 4 in short and one by one), and from
 * the serial reader by batches and in short. */
static void jobs_same(const char *what, const char *path, enum rvt_ing_format fmt, const struct rvt_image *img,
                      enum rvt_ecall_mode em, const size_t *chunks)
{
    static struct seen want, got;
    char ew[512], eg[512], how[128];
    memset(&want.warn, 0, sizeof want.warn);
    want.r.n = 0;
    int kw = read_jobs(path, fmt, img, em, 0, 0, false, false, &want, ew, sizeof ew); /* (as the environment says) */
    memset(&got.warn, 0, sizeof got.warn);
    got.r.n = 0;
    int kg = read_jobs(path, fmt, img, em, 0, 0, true, false, &got, eg, sizeof eg);
    same_seen(&got, kg, eg, &want, kw, ew, what, "serial, by batches");
    memset(&got.warn, 0, sizeof got.warn);
    got.r.n = 0;
    kg = read_jobs(path, fmt, img, em, 0, 0, false, true, &got, eg, sizeof eg);
    same_seen(&got, kg, eg, &want, kw, ew, what, "serial, in short (a record at a time)");
    /* the usual lines parsed by SSE2 alone, where the machine has AVX2
     * (as the environment says, otherwise: test_textread_read says sse2) */
    const char *simd = getenv("RVT_TEXT_SIMD");
    char simd_was[16] = "";
    if (simd)
        snprintf(simd_was, sizeof simd_was, "%s", simd);
    setenv("RVT_TEXT_SIMD", simd && !strcmp(simd, "sse2") ? "any" : "sse2", 1);
    memset(&got.warn, 0, sizeof got.warn);
    got.r.n = 0;
    kg = read_jobs(path, fmt, img, em, 0, 0, true, false, &got, eg, sizeof eg);
    same_seen(&got, kg, eg, &want, kw, ew, what, "serial, by batches, the other SIMD parse");
    if (simd)
        setenv("RVT_TEXT_SIMD", simd_was, 1);
    else
        unsetenv("RVT_TEXT_SIMD");
    /* the file mapped (lines parsed in place but for each chunk's last
     * RVT_TEXT_SLACK bytes or more), and read (RVT_TEXT_MAP=0) */
    const char *env = getenv("RVT_TEXT_MAP");
    char was[8] = "";
    if (env)
        snprintf(was, sizeof was, "%s", env);
    for (int map = 1; map >= 0; map--) {
        setenv("RVT_TEXT_MAP", map ? "1" : "0", 1);
        for (const size_t *c = chunks; *c; c++)
            for (unsigned jobs = 2; jobs <= 4; jobs++) {
                memset(&got.warn, 0, sizeof got.warn);
                got.r.n = 0;
                kg = read_jobs(path, fmt, img, em, jobs, *c, jobs == 3, jobs == 4, &got, eg, sizeof eg);
                snprintf(how, sizeof how, "%s, jobs %u%s, chunks of %zu", map ? "mapped" : "read", jobs,
                         jobs == 3 ? " (by batches)" : jobs == 4 ? " (in short)" : "", *c);
                same_seen(&got, kg, eg, &want, kw, ew, what, how);
            }
    }
    if (env)
        setenv("RVT_TEXT_MAP", was, 1);
    else
        unsetenv("RVT_TEXT_MAP");
}

/* B-type and J-type encodings (offset in bytes). */
static uint32_t btype(uint32_t funct3, unsigned rs1, unsigned rs2, int32_t off)
{
    uint32_t u = (uint32_t)off;
    return ((u >> 12 & 1) << 31) | ((u >> 5 & 0x3f) << 25) | (uint32_t)rs2 << 20 | (uint32_t)rs1 << 15 | funct3 << 12 |
           ((u >> 1 & 0xf) << 8) | ((u >> 11 & 1) << 7) | 0x63;
}
static uint32_t jtype(unsigned rd, int32_t off)
{
    return (jal0(off) & ~0xf80u) | (uint32_t)rd << 7;
}

/* The fast path (usual lines retired by the builder's fast step) against
 * the builder's general path, on an execution with every kind of step:
 * straight code of both sizes, branches taken and not, a branch to its own
 * fall-through, jal as a jump and a call, returns and other uninferable
 * jumps (the general path), auipc + jalr (sequentially inferable: the
 * SIJUMP flag), ecall falling through; each line in a shape picked at
 * random (the fast shapes: 16 or 8 digits, 0x, upper or lower case; the
 * general ones: CRLF, a colon, blanks, comments), more than two read
 * chunks of it, and the last line without newline.  Then the same
 * execution as a PC list over the image of its code. */
static void test_fast_step_matches_general(void)
{
    enum { SLOTS = 3000 };
    static uint64_t at[SLOTS];
    static uint32_t code[SLOTS];
    static uint8_t kind[SLOTS]; /* 0 plain, 1 branch, 2 jal, 3 jalr (anywhere), 4 auipc before jalr, 5 ecall */
    uint8_t image[SLOTS * 4];
    size_t ilen = 0;
    const uint64_t base = 0x80000000u;
    uint64_t seed = 7;
#define RND() (seed = seed * 6364136223846793005ull + 1442695040888963407ull, seed >> 33)
    memset(kind, 0xff, sizeof kind);
    for (unsigned i = 0; i < SLOTS; i++) {
        at[i] = base + ilen;
        unsigned r = (unsigned)(RND() % 100);
        if (kind[i] == 0xff) /* (not the jalr after an auipc) */
            kind[i] = r < 55 ? 0 : r < 75 ? 1 : r < 85 ? 2 : r < 92 ? 3 : r < 98 ? 4 : 5;
        if (i >= SLOTS - 2)
            kind[i] = 2; /* the last ones jump back */
        if (kind[i] == 4) {
            code[i] = 0x317; /* auipc x6, 0 */
            kind[i + 1] = 3;
        }
        bool rvc = kind[i] == 0 && (RND() & 1);
        if (kind[i] == 0)
            code[i] = rvc ? ((RND() & 1) ? 0x0001u : 0x0405u) /* c.nop, c.addi s0,1 */
                          : 0x13u | (uint32_t)(RND() & 0x7ff) << 20; /* addi x0, x0, imm */
        else if (kind[i] == 5)
            code[i] = 0x73; /* ecall */
        else if (kind[i] == 3)
            code[i] = i > 0 && kind[i - 1] == 4 ? 0x30067u          /* jalr x0, 0(x6) */
                                                : (RND() & 1) ? 0x8067u /* ret */
                                                              : 0x000380e7u; /* jalr x1, 0(x7) */
        unsigned len = rvc ? 2 : 4;
        for (unsigned k = 0; k < len; k++)
            image[ilen + k] = (uint8_t)(code[i] >> (8 * k));
        ilen += len;
    }
    /* static targets, now that every address is known */
    for (unsigned i = 0; i < SLOTS; i++) {
        /* a branch reaches +-4 KiB: 500 slots around it */
        unsigned t = i >= SLOTS - 2 ? 0 : kind[i] == 2 ? (unsigned)(RND() % SLOTS)
                                                      : (unsigned)(i < 500 ? RND() % 1000 : i + 500 >= SLOTS ? SLOTS - 1000 + RND() % 1000 : i - 500 + RND() % 1000);
        int32_t off = (int32_t)(at[t] - at[i]);
        if (kind[i] == 1)
            code[i] = RND() % 16 == 0 ? btype(1, 1, 2, 4) : btype((unsigned)(RND() & 1), 1, 2, off); /* bne to its fall-through */
        else if (kind[i] == 2)
            code[i] = jtype((RND() & 1) ? 1 : 0, off);
        if (kind[i] == 1 || kind[i] == 2)
            for (unsigned k = 0; k < 4; k++)
                image[at[i] - base + k] = (uint8_t)(code[i] >> (8 * k));
    }
    struct rvt_image *img = rvt_img_new();
    REQUIRE(rvt_img_add_raw(img, base, image, ilen, "code") == 0);

    struct recs want = {0}, want_pcs = {0};
    struct rvt_ing_builder_config bc = {.size = sizeof bc, .xlen = 64, .ecall_mode = RVT_ECALL_SEQUENTIAL,
                                        .emit = keep, .emit_ctx = &want};
    struct rvt_ing_builder *b = rvt_ing_builder_new(&bc);
    bc.image = img;
    bc.emit_ctx = &want_pcs;
    struct rvt_ing_builder *bp = rvt_ing_builder_new(&bc);
    REQUIRE(b && bp);
    struct text t = {0}, tp = {0};
    char line[128];
    unsigned i = 0;
    while (t.n < (5u << 19)) { /* 2.5 MiB: lines across two chunk ends */
        uint64_t pc = at[i];
        uint32_t bits = code[i];
        bool rvc = (bits & 3) != 3;
        int n, shape = (int)(RND() % 20);
        switch (shape) {
        case 0: n = snprintf(line, sizeof line, "0x%016" PRIx64 " %0*" PRIx32 "\n", pc, rvc ? 4 : 8, bits); break;
        case 1: n = snprintf(line, sizeof line, "%016" PRIX64 " %0*" PRIX32 "\n", pc, rvc ? 4 : 8, bits); break;
        case 2: n = snprintf(line, sizeof line, "%08" PRIx64 " %0*" PRIx32 "\n", pc, rvc ? 4 : 8, bits); break;
        case 3: n = snprintf(line, sizeof line, "0X%08" PRIX64 " %0*" PRIx32 "\r\n", pc, rvc ? 4 : 8, bits); break;
        case 4: n = snprintf(line, sizeof line, "  %" PRIx64 ": %0*" PRIx32 " \n", pc, rvc ? 4 : 8, bits); break;
        case 5: n = snprintf(line, sizeof line, "# %u\n%016" PRIx64 " %0*" PRIx32 "\n", i, pc, rvc ? 4 : 8, bits); break;
        default: n = snprintf(line, sizeof line, "%016" PRIx64 " %0*" PRIx32 "\n", pc, rvc ? 4 : 8, bits); break;
        }
        put(&t, line, (size_t)n);
        n = shape == 3 ? snprintf(line, sizeof line, "0x%" PRIX64 "\r\n", pc)
                       : snprintf(line, sizeof line, shape == 2 ? "0x%08" PRIx64 "\n" : "0x%016" PRIx64 "\n", pc);
        put(&tp, line, (size_t)n);
        REQUIRE(rvt_ing_builder_insn(b, pc, bits, RVT_PRIV_M, 0, NULL) == 0);
        REQUIRE(rvt_ing_builder_insn(bp, pc, -1, RVT_PRIV_M, 0, NULL) == 0);
        /* the successor: taken or not, the jump's target, anywhere after a jalr */
        if (kind[i] == 1 || kind[i] == 2 || kind[i] == 3) {
            uint64_t target;
            if (kind[i] == 3) {
                target = at[RND() % SLOTS];
            } else {
                struct rvt_insn in;
                rvt_isa_decode(code[i], at[i], 64, &in);
                target = kind[i] == 2 || (RND() & 1) ? in.target : at[i] + 4;
            }
            for (i = 0; at[i] != target; i++)
                ;
        } else {
            i++;
        }
    }
    REQUIRE(rvt_ing_builder_finish(b) == 0 && rvt_ing_builder_finish(bp) == 0);
    rvt_ing_builder_free(b);
    rvt_ing_builder_free(bp);
    size_t kinds[16] = {0};
    for (size_t k = 0; k < want.n; k++)
        kinds[want.r[k].itype]++;
    CHECK(kinds[RVT_ITYPE_TAKEN] > 300 && kinds[RVT_ITYPE_NOT_TAKEN] > 300 && kinds[RVT_ITYPE_JUMP_INF] > 100 &&
          kinds[RVT_ITYPE_CALL_INF] > 100 && kinds[RVT_ITYPE_RETURN] > 100 && kinds[RVT_ITYPE_JUMP_UNINF] > 100);
    size_t sij = 0;
    for (size_t k = 0; k < want.n; k++)
        sij += (want.r[k].flags & RVT_ING_SIJUMP) != 0;
    CHECK(sij > 100);

    char path[512], err[512];
    snprintf(path, sizeof path, "%s/fast.txt", rvt_test_tmpdir());
    for (int pcs = 0; pcs < 2; pcs++) {
        struct text *tt = pcs ? &tp : &t;
        struct recs *w = pcs ? &want_pcs : &want;
        write_file(path, tt->p, tt->n - 1); /* the last line without its newline */
        struct recs got = {0};
        CHECK_MSG(read_file(path, pcs ? RVT_ING_FMT_PCLIST : RVT_ING_FMT_PCINSN, pcs ? img : NULL, &got, err,
                            sizeof err) == 0,
                  "%s", err);
        CHECK_MSG(got.n == w->n, "%s: %zu records, expected %zu", pcs ? "pclist" : "pcinsn", got.n, w->n);
        for (size_t k = 0; k < got.n && k < w->n; k++)
            if (!same_whole(&got.r[k], &w->r[k])) {
                CHECK_MSG(0, "%s: record %zu: iaddr 0x%" PRIx64 " iretire %u itype %u flags %u, expected 0x%" PRIx64 " %u %u %u",
                          pcs ? "pclist" : "pcinsn", k, got.r[k].iaddr, got.r[k].iretire, got.r[k].itype,
                          got.r[k].flags, w->r[k].iaddr, w->r[k].iretire, w->r[k].itype, w->r[k].flags);
                break;
            }
        free(got.r);
        /* on threads: the same records (and the ecall warning) */
        static const size_t chunks[] = {4099, 65536 + 7, 0};
        for (int em = RVT_ECALL_SEQUENTIAL; em <= RVT_ECALL_TRAP; em++)
            jobs_same(pcs ? "fast.txt as a PC list" : "fast.txt", path, pcs ? RVT_ING_FMT_PCLIST : RVT_ING_FMT_PCINSN,
                      pcs ? img : NULL, (enum rvt_ecall_mode)em, chunks);
    }
#undef RND
    rvt_img_free(img);
    free(want.r);
    free(want_pcs.r);
    free(t.p);
    free(tp.p);
}

/* The bytes at and around every edge of the hex digit ranges (and those
 * that fall into them when a case bit is set or a sign is lost) at every
 * place of a usual line: the in-place parse (vector or table; a 64-bit PC
 * INSN line with AVX2 if the machine has it; rvt_ing_next takes the same
 * batches) must accept exactly what the general parse accepts,
 * with the same records, or fail with the same message and line.  The
 * general parse is made to read the line by a leading blank.  The same
 * instructions ran once before (a loop), so that the builder's fast step
 * takes a line that parses to them: a parse that let a broken line
 * through would give a record. */
static void test_every_byte_in_usual_lines(void)
{
    char path[512], err[2][512];
    snprintf(path, sizeof path, "%s/bytes.txt", rvt_test_tmpdir());
    const char *shapes[] = {"0000000000001004 00000013", "0x0000000000001004 0001", "00001004 00000013", "00001004 0001",
                            "0000000000001004 0001"};
    const char *insn[] = {"00000013", "0001", "00000013", "0001", "0001"};
    const char *after = "0000000000001008 00000013\n000000000000100c 0001\n000000000000100e 00000013\n";
    size_t mism = 0;
    for (unsigned sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++) {
        /* the loop once: 1000, 1004 (the shape's instruction), then rest
         * (what follows the line below), 1012 jal back to 1000 */
        const bool compressed = strlen(insn[sh]) == 4;
        const char *rest = compressed ? "0000000000001006 00000013\n000000000000100a 0001\n"
                                        "000000000000100c 0001\n000000000000100e 00000013\n"
                                      : after;
        char warm[512];
        snprintf(warm, sizeof warm, "0000000000001000 00000013\n0000000000001004 %s\n%s0000000000001012 %08x\n",
                 insn[sh], rest, jtype(0, -0x12));
        size_t len = strlen(shapes[sh]);
        for (size_t at = 0; at <= len; at++) {
            static const unsigned char edges[] = {0x01, 0x09, 0x0d, 0x10, 0x11, 0x19, 0x1a, ' ', '/', '0', '9', ':', '@',
                                                  'A', 'F', 'G', 'X', '`', 'a', 'f', 'g', 'x', 0x7f, 0x80, 0x90, 0xb0,
                                                  0xb9, 0xc1, 0xc6, 0xe1, 0xe6, 0xf0, 0xff};
            for (size_t e = 0; e < sizeof edges; e++) {
                unsigned c = edges[e];
                char line[64];
                memcpy(line, shapes[sh], len + 1);
                line[at] = (char)c; /* at == len: a byte after the line */
                if (at == len)
                    line[len + 1] = 0;
                struct recs r[2] = {{0}, {0}};
                int rc[2];
                for (int slow = 0; slow < 2; slow++) {
                    char text[1024];
                    int n = snprintf(text, sizeof text, "%s0000000000001000 00000013\n%s%s\n%s", warm,
                                     slow ? " " : "", line, rest);
                    write_file(path, text, (size_t)n);
                    rc[slow] = read_file_how(path, RVT_ING_FMT_PCINSN, NULL, true, &r[slow], err[slow], sizeof err[slow]);
                }
                bool same = rc[0] == rc[1] && strcmp(err[0], err[1]) == 0 && r[0].n == r[1].n;
                for (size_t k = 0; same && k < r[1].n; k++)
                    same = same_whole(&r[0].r[k], &r[1].r[k]);
                if (!same && mism++ < 5)
                    CHECK_MSG(0, "line '%s' (byte 0x%02x at %zu): '%s' / %zu records, the general parse '%s' / %zu", line,
                              c, at, err[0], r[0].n, err[1], r[1].n);
                free(r[0].r);
                free(r[1].r);
            }
        }
    }
    CHECK_EQ(mism, 0u);
}

/* The read-ahead reader (encode --jobs): the inner reader's records in its
 * order, then its end, or its error with the same message after every
 * record before it; closing it early stops its thread. */
static void test_readahead(void)
{
    char path[512], err[512];
    snprintf(path, sizeof path, "%s/ra.txt", rvt_test_tmpdir());
    for (int bad = 0; bad < 3; bad++) {
        struct text t = {0};
        char line[64];
        const unsigned lines = 70000, bad_at = 40000; /* in the third batch of 16,384 */
        for (unsigned i = 0; i < lines; i++) {
            int n = snprintf(line, sizeof line, "%016" PRIx64 " %s\n", (uint64_t)0x1000 + 4 * i,
                             bad == 1 && i == bad_at ? "0000001x" : "00000013");
            put(&t, line, (size_t)n);
        }
        write_file(path, t.p, t.n);
        struct recs plain = {0};
        int want = read_file(path, RVT_ING_FMT_PCINSN, NULL, &plain, err, sizeof err);
        CHECK(bad == 1 ? want < 0 : want == 0);
        struct rvt_ing_reader_config rc = {.size = sizeof rc, .format = RVT_ING_FMT_PCINSN, .xlen = 64};
        struct rvt_ing_reader *in, *ra;
        struct rvt_diag d = {0};
        REQUIRE(rvt_ing_open(&in, path, &rc, &d) == 0);
        REQUIRE(rvt_ing_readahead(&ra, in, &d) == 0);
        CHECK_EQ(rvt_ing_xlen(ra), 64u);
        CHECK(rvt_ing_reader_format(ra) == RVT_ING_FMT_PCINSN);
        struct rvt_ing_rec rec;
        size_t n = 0;
        int k;
        bool same = true;
        while ((k = rvt_ing_next(ra, &rec)) > 0) {
            same = same && n < plain.n && same_whole(&rec, &plain.r[n]);
            n++;
            if (bad == 2 && n == 5000)
                break; /* closed early, with the thread reading ahead */
        }
        CHECK(same);
        if (bad == 2) {
            CHECK_EQ(n, 5000u);
        } else {
            CHECK_EQ(n, plain.n);
            CHECK_EQ(k, want);
            if (bad == 1) {
                CHECK_MSG(strcmp(rvt_ing_error(ra), err) == 0, "'%s' vs '%s'", rvt_ing_error(ra), err);
                CHECK(rvt_ing_next(ra, &rec) == want); /* and it stays there */
            } else {
                CHECK(rvt_ing_next(ra, &rec) == 0);
            }
        }
        rvt_ing_close(ra);
        free(plain.r);
        free(t.p);
    }
}


/* Text on threads: every kind of end and error, with the chunk boundary
 * at every byte of the lines around it (chunks of 1 to 48 bytes), the
 * first error winning over a later one in another chunk, comments longer
 * than a chunk between the instruction lines, and the ecall warning. */
static void test_text_jobs_errors(void)
{
    enum { LINES = 160 };
    char path[512], line[6000];
    snprintf(path, sizeof path, "%s/jobs.txt", rvt_test_tmpdir());
    static size_t chunks[60];
    size_t nc = 0;
    for (size_t c = 1; c <= 48; c++)
        chunks[nc++] = c;
    /* a mapped file's chunks from here on have lines read in place */
    for (size_t c = 65; c <= 165; c += 20)
        chunks[nc++] = c;
    chunks[nc++] = 333;
    chunks[nc++] = 5000;
    chunks[nc] = 0;
    for (int variant = 0; variant < 12; variant++) {
        struct text t = {0};
        uint64_t pc = 0x1000, seed = 99 + (uint64_t)variant;
#define RND() (seed = seed * 6364136223846793005ull + 1442695040888963407ull, seed >> 33)
        for (unsigned i = 0; i < LINES; i++) {
            bool rvc = RND() % 3 == 0, ecall = i == 70;
            const char *bits = ecall ? "00000073" : rvc ? "0001" : "00000013";
            const char *eol = variant == 3 ? "\r\n" : "\n"; /* 3: CRLF */
            int n;
            switch (RND() % 6) {
            case 0: n = snprintf(line, sizeof line, "0x%08" PRIx64 " %s%s", pc, bits, eol); break;
            case 1: n = snprintf(line, sizeof line, "  %" PRIx64 ": %s %s", pc, bits, eol); break;
            case 2: n = snprintf(line, sizeof line, "# line %u%s%016" PRIx64 " %s%s", i, eol, pc, bits, eol); break;
            default: n = snprintf(line, sizeof line, "%016" PRIx64 " %s%s", pc, bits, eol); break;
            }
            if (variant == 1 && (i == 50 || i == 120)) /* 1: a bad digit, and another one later */
                n = snprintf(line, sizeof line, "%016" PRIx64 " 0000001x\n", pc);
            if (variant == 2 && i == 90) /* 2: a step the code does not explain */
                pc += 8;
            if (variant == 4 && i == 100) { /* 4: a line too long */
                memset(line, '0', 5000);
                n = snprintf(line + 5000, sizeof line - 5000, "\n") + 5000;
            }
            if (variant == 5 && i % 20 == 0) { /* 5: comments and blanks longer than a chunk */
                put(&t, "# a comment\n\n   \n\t# more\n", 25);
                put(&t, "#", 1);
                memset(line, '-', 400);
                put(&t, line, 400);
                put(&t, "\n", 1);
                n = snprintf(line, sizeof line, "%016" PRIx64 " %s\n", pc, bits);
            }
            if (variant == 6 && i == 30) /* 6: a NUL in a line (its end, for the reader) */
                n = snprintf(line, sizeof line, "%016" PRIx64 " %s", pc, bits) + 1, line[n - 1] = 0,
                n += snprintf(line + n, sizeof line - (size_t)n, "junk\n");
            if (variant == 7 && i == 140) /* 7: 16-bit instruction bits in 8 digits */
                n = snprintf(line, sizeof line, "%016" PRIx64 " 00000001\n", pc);
            put(&t, line, (size_t)n);
            pc += ecall || !rvc ? 4 : 2;
        }
        size_t len = t.n;
        if (variant == 8) /* 8: the last line without its newline */
            len--;
        if (variant == 9) /* 9: cut in the middle of a line */
            len -= 7;
        if (variant == 10) /* 10: nothing but comments */
            len = 0;
        if (variant == 11) /* 11: an empty line last, no newline */
            put(&t, "   ", 3), len = t.n;
        write_file(path, t.p, len);
        char what[64];
        snprintf(what, sizeof what, "jobs.txt variant %d", variant);
        for (int em = RVT_ECALL_SEQUENTIAL; em <= RVT_ECALL_TRAP; em++)
            jobs_same(what, path, RVT_ING_FMT_PCINSN, NULL, (enum rvt_ecall_mode)em, chunks);
        free(t.p);
#undef RND
    }
}

int main(void)
{
    test_shapes_across_chunks();
    test_limits_and_numbers();
    test_usual_lines_in_place();
    test_changing_code();
    test_fast_step_matches_general();
    /* (once: test_textread_read reads the files instead of mapping them,
     * which the parse of a line does not see; this test opens about 6,900
     * readers, most of a minute under the sanitizers) */
    const char *map = getenv("RVT_TEXT_MAP");
    if (!map || strcmp(map, "0") != 0)
        test_every_byte_in_usual_lines();
    test_readahead();
    test_text_jobs_errors();
    return rvt_test_summary("test_textread");
}
