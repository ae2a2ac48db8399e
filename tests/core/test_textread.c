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

/* All records of a text file, or <0 with the reader's message in err. */
static int read_file(const char *path, enum rvt_ing_format fmt, const struct rvt_image *img, struct recs *out,
                     char *err, size_t errlen)
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
    struct rvt_ing_rec rec;
    while ((k = rvt_ing_next(r, &rec)) > 0)
        keep(out, &rec);
    if (k < 0)
        snprintf(err, errlen, "%s", rvt_ing_error(r));
    rvt_ing_close(r);
    return k;
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

int main(void)
{
    test_shapes_across_chunks();
    test_limits_and_numbers();
    test_usual_lines_in_place();
    test_changing_code();
    return rvt_test_summary("test_textread");
}
