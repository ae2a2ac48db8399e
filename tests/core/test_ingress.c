/* Ingress tests: native format round trip of every field, truncation and
 * garbage at every length, text readers and their error messages, the
 * builder's itype derivation and trap records. */
#include "rvtrace/rvtrace.h"
#include "testlib.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void random_rec(uint64_t *s, struct rvt_ing_rec *r, uint64_t *next)
{
    memset(r, 0, sizeof *r);
    unsigned k = (unsigned)(rng(s) % 10);
    r->iaddr = k < 6 ? *next : rng(s);
    static const uint8_t itypes[] = {0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15};
    r->itype = itypes[rng(s) % sizeof itypes];
    if (r->itype == 1 || r->itype == 2) {
        r->iretire = rng(s) % 3 ? 0 : 1;
        r->cause = (uint32_t)rng(s);
        r->tval = rng(s);
    } else {
        unsigned m = (unsigned)(rng(s) % 4);
        r->iretire = m == 0 ? 1 : m == 1 ? 2 : (uint32_t)(2 + rng(s) % 5000);
        r->ilastsize = m == 0 ? 0 : 1;
    }
    r->priv = (uint8_t)(rng(s) % 8 == 0 ? rng(s) % 8 : 3);
    r->context = rng(s) % 16 == 0 ? rng(s) : 0;
    r->ctype = (uint8_t)(rng(s) % 4);
    if (rng(s) % 3 == 0) {
        r->flags |= RVT_ING_HAS_TIME;
        r->time = rng(s);
    }
    if (rng(s) % 3 == 0) {
        r->flags |= RVT_ING_HAS_RD;
        r->rd = (uint8_t)(rng(s) % 64);
        r->rd_value = rng(s);
    }
    if (rng(s) % 3 == 0) {
        r->flags |= RVT_ING_HAS_MEM | (rng(s) & 1 ? RVT_ING_MEM_STORE : 0);
        r->mem_addr = rng(s);
        r->mem_size = (uint8_t)(1u << (rng(s) % 4));
        if (rng(s) & 1) {
            r->flags |= RVT_ING_HAS_MEMVAL;
            r->mem_value = rng(s);
        }
    }
    if (rng(s) % 7 == 0)
        r->flags |= RVT_ING_SAME_CYCLE;
    if (rng(s) % 7 == 0)
        r->flags |= RVT_ING_SIJUMP;
    if (rng(s) % 7 == 0)
        r->flags |= RVT_ING_UNQUALIFIED;
    if (rng(s) % 7 == 0)
        r->flags |= RVT_ING_NOTIFY;
    if (rng(s) % 9 == 0)
        r->hart = (uint16_t)rng(s);
    if (rng(s) % 7 == 0) {
        r->flags |= RVT_ING_TRACEPOINT;
        r->tp_type = (uint8_t)(rng(s) % 16);
    }
    *next = rvt_ing_next_addr(r);
}

struct recv {
    struct rvt_ing_rec *r;
    size_t n;
};
static int recv_rec(void *ctx, const struct rvt_ing_rec *r)
{
    struct recv *v = ctx;
    v->r[v->n++] = *r;
    return 0;
}

static void test_native_roundtrip(void)
{
    enum { N = 5000 };
    struct rvt_ing_rec *in = calloc(N, sizeof *in), *out = calloc(N, sizeof *out);
    uint64_t s = 88172645463325252ull, next = 0x80000000;
    char path[512];
    snprintf(path, sizeof path, "%s/rt.ing", rvt_test_tmpdir());
    struct rvt_ing_writer *w;
    struct rvt_diag d = {0};
    REQUIRE(rvt_ing_writer_open(&w, path, 64, &d) == 0);
    for (int i = 0; i < N; i++) {
        random_rec(&s, &in[i], &next);
        CHECK(rvt_ing_write(w, &in[i]) == 0);
    }
    CHECK_EQ(rvt_ing_writer_records(w), N);
    CHECK(rvt_ing_writer_close(w) == 0);

    /* streaming reader */
    struct rvt_ing_reader_config rc = {.size = sizeof rc};
    struct rvt_ing_reader *r;
    REQUIRE(rvt_ing_open(&r, path, &rc, &d) == 0);
    CHECK_EQ(rvt_ing_reader_format(r), RVT_ING_FMT_NATIVE);
    CHECK_EQ(rvt_ing_xlen(r), 64);
    size_t n = 0;
    int k;
    struct rvt_ing_rec tmp;
    while ((k = rvt_ing_next(r, &tmp)) > 0)
        if (n < N)
            out[n++] = tmp;
    CHECK(k == 0);
    CHECK_EQ(n, N);
    rvt_ing_close(r);
    for (size_t i = 0; i < n; i++)
        if (memcmp(&in[i], &out[i], sizeof in[i]) != 0) {
            rvt_test_fail(__FILE__, __LINE__, "record %zu differs after the round trip", i);
            break;
        }

    /* in-memory parser: every truncation is an error naming the offset */
    size_t len;
    uint8_t *buf = rvt_test_read(path, &len);
    REQUIRE(buf);
    struct recv v = {out, 0};
    CHECK(rvt_ing_parse_native(buf, len, recv_rec, &v, &d) == N);
    for (size_t cut = 0; cut < len; cut += 1 + cut / 50) {
        v.n = 0;
        int rc2 = rvt_ing_parse_native(buf, cut, recv_rec, &v, &d);
        if (cut < 16)
            CHECK(rc2 == -RVT_ERR_TRUNCATED);
        else
            CHECK(rc2 >= 0 || (rc2 == -RVT_ERR_TRUNCATED && strstr(d.msg, "offset 0x")));
    }
    /* corrupted bytes never crash, and a corrupt header is named */
    buf[0] ^= 0xff;
    CHECK(rvt_ing_parse_native(buf, len, NULL, NULL, &d) == -RVT_ERR_FORMAT);
    CHECK(strstr(d.msg, "magic") != NULL);
    buf[0] ^= 0xff;
    buf[10] = 48;
    CHECK(rvt_ing_parse_native(buf, len, NULL, NULL, &d) == -RVT_ERR_FORMAT);
    free(buf);
    free(in);
    free(out);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        rvt_test_fail(__FILE__, __LINE__, "cannot write %s", path);
        return;
    }
    fputs(text, f);
    fclose(f);
}

/* Read all records of a text file; returns the reader's result. */
static int read_all(const char *path, enum rvt_ing_format fmt, const struct rvt_image *img, struct rvt_ing_rec *recs,
                    unsigned max, unsigned *n, char *err, size_t errlen)
{
    struct rvt_ing_reader_config rc = {.size = sizeof rc, .format = fmt, .image = img};
    struct rvt_ing_reader *r;
    struct rvt_diag d = {0};
    int k = rvt_ing_open(&r, path, &rc, &d);
    if (k < 0) {
        snprintf(err, errlen, "%s", d.msg);
        return k;
    }
    *n = 0;
    struct rvt_ing_rec tmp;
    while ((k = rvt_ing_next(r, *n < max ? &recs[*n] : &tmp)) > 0)
        (*n)++;
    snprintf(err, errlen, "%s", k < 0 ? rvt_ing_error(r) : "");
    rvt_ing_close(r);
    return k;
}

static void test_text_readers(void)
{
    char *elf = rvt_test_data("flow/flowtest64.elf");
    struct rvt_image *img = rvt_img_new();
    REQUIRE(rvt_img_load_elf(img, elf) == 0);
    const char *dir = rvt_test_tmpdir();
    char path[512], err[512];
    struct rvt_ing_rec recs[32];
    unsigned n;
    snprintf(path, sizeof path, "%s/a.txt", dir);

    /* comments, blank lines, with and without 0x, CRLF */
    write_text(path, "# flowtest\n0x10000\r\n\n10004\n0x10008\n0x10004\n");
    CHECK(read_all(path, RVT_ING_FMT_AUTO, img, recs, 32, &n, err, sizeof err) == 0);
    CHECK_EQ(n, 4);
    CHECK_EQ(recs[2].itype, RVT_ITYPE_TAKEN);
    CHECK_EQ(recs[2].iaddr, 0x10008);
    CHECK_EQ(recs[2].iretire, 2);
    CHECK_EQ(recs[2].ilastsize, 1);

    /* an unexplained step names the file, the line and both addresses */
    write_text(path, "0x10000\n0x10004\n0x10020\n");
    CHECK(read_all(path, RVT_ING_FMT_PCLIST, img, recs, 32, &n, err, sizeof err) == -RVT_ERR_MISMATCH);
    CHECK_MSG(strstr(err, "line 3") && strstr(err, "0x10004") && strstr(err, "0x10020"), "message: %s", err);

    /* a PC outside the code */
    write_text(path, "0x10000\n0x90000\n");
    CHECK(read_all(path, RVT_ING_FMT_PCLIST, img, recs, 32, &n, err, sizeof err) < 0);
    CHECK_MSG(strstr(err, "line 2") && strstr(err, "0x90000"), "message: %s", err);

    /* garbage */
    write_text(path, "0x10000\nhello\n");
    CHECK(read_all(path, RVT_ING_FMT_PCLIST, img, recs, 32, &n, err, sizeof err) == -RVT_ERR_FORMAT);
    CHECK_MSG(strstr(err, "line 2") && strstr(err, "hello"), "message: %s", err);

    /* PC INSN: no image needed; widths must match the encoding */
    write_text(path, "10000 00300513\n10004 fff50513\n10008 fe051ee3\n1000c 0001\n");
    CHECK(read_all(path, RVT_ING_FMT_AUTO, NULL, recs, 32, &n, err, sizeof err) == 0);
    CHECK_EQ(n, 4);
    CHECK_EQ(recs[2].itype, RVT_ITYPE_NOT_TAKEN);
    CHECK_EQ(recs[3].ilastsize, 0);
    write_text(path, "10000 0513\n");
    CHECK(read_all(path, RVT_ING_FMT_PCINSN, NULL, recs, 32, &n, err, sizeof err) == -RVT_ERR_FORMAT);
    CHECK_MSG(strstr(err, "32-bit"), "message: %s", err);

    /* a PC list without the program is refused up front */
    write_text(path, "0x10000\n");
    CHECK(read_all(path, RVT_ING_FMT_PCLIST, NULL, recs, 32, &n, err, sizeof err) == -RVT_ERR_INVAL);
    CHECK(strstr(err, "--elf") != NULL);
    /* missing file */
    CHECK(read_all("/nonexistent/x", RVT_ING_FMT_PCLIST, img, recs, 32, &n, err, sizeof err) == -RVT_ERR_IO);
    rvt_img_free(img);
    free(elf);
}

struct recs {
    struct rvt_ing_rec r[32];
    unsigned n;
};
static int keep(void *ctx, const struct rvt_ing_rec *r)
{
    struct recs *x = ctx;
    if (x->n < 32)
        x->r[x->n++] = *r;
    return 0;
}

static void test_builder_traps(void)
{
    char *elf = rvt_test_data("flow/flowtest64.elf");
    struct rvt_image *img = rvt_img_new();
    REQUIRE(rvt_img_load_elf(img, elf) == 0);
    struct recs x = {.n = 0};
    struct rvt_ing_builder_config bc = {.size = sizeof bc, .image = img, .merge_blocks = false, .emit = keep,
                                        .emit_ctx = &x};
    struct rvt_ing_builder *b = rvt_ing_builder_new(&bc);
    /* li; addi; interrupt before bnez (epc = bnez), handler at 0x10044 (mret), return to bnez */
    CHECK(rvt_ing_builder_insn(b, 0x10000, -1, 3, 0, NULL) == 0);
    CHECK(rvt_ing_builder_insn(b, 0x10004, -1, 3, 0, NULL) == 0);
    CHECK(rvt_ing_builder_trap(b, true, 7, 0, 0x10008) == 0);
    CHECK(rvt_ing_builder_insn(b, 0x10044, -1, 3, 0, NULL) == 0);
    CHECK(rvt_ing_builder_insn(b, 0x10008, -1, 0, 5, NULL) == 0); /* mret to U-mode, new context */
    /* ecall traps (it does not retire): epc is the ecall */
    CHECK(rvt_ing_builder_insn(b, 0x1002c - 0, -1, 0, 5, NULL) == -RVT_ERR_MISMATCH); /* bnez cannot reach 0x1002c */
    rvt_ing_builder_free(b);
    CHECK_EQ(x.n, 4);
    CHECK_EQ(x.r[2].itype, RVT_ITYPE_INTERRUPT);
    CHECK_EQ(x.r[2].iretire, 0);
    CHECK_EQ(x.r[2].iaddr, 0x10008);
    CHECK_EQ(x.r[2].cause, 7);
    CHECK_EQ(x.r[3].itype, RVT_ITYPE_TRAPRET);
    rvt_img_free(img);
    free(elf);
}

/* A record after one with side data (register write, memory access, time,
 * tracepoint, data type) carries none of it: the builder reuses its record
 * and clears it only when side data was set. */
static void test_builder_side_data(void)
{
    char *elf = rvt_test_data("flow/flowtest64.elf");
    struct rvt_image *img = rvt_img_new();
    REQUIRE(rvt_img_load_elf(img, elf) == 0);
    for (int merge = 0; merge < 2; merge++) {
        struct recs x = {.n = 0};
        struct rvt_ing_builder_config bc = {.size = sizeof bc, .image = img, .merge_blocks = merge != 0,
                                            .emit = keep, .emit_ctx = &x};
        struct rvt_ing_builder *b = rvt_ing_builder_new(&bc);
        struct rvt_ing_extra e = {.flags = RVT_ING_HAS_TIME | RVT_ING_HAS_RD | RVT_ING_HAS_MEM | RVT_ING_HAS_MEMVAL |
                                           RVT_ING_TRACEPOINT | RVT_ING_HAS_DTYPE,
                                  .rd = 10, .mem_size = 8, .tp_type = 3, .time = 77, .rd_value = 0x1234,
                                  .mem_addr = 0x8000, .mem_value = 0x55, .dtype = RVT_DTYPE_STORE, .mem_operand = 9};
        CHECK(rvt_ing_builder_insn(b, 0x10000, -1, 3, 0, &e) == 0);
        CHECK(rvt_ing_builder_insn(b, 0x10004, -1, 3, 0, NULL) == 0);
        CHECK(rvt_ing_builder_insn(b, 0x10008, -1, 3, 0, NULL) == 0);
        CHECK(rvt_ing_builder_finish(b) == 0);
        rvt_ing_builder_free(b);
        REQUIRE(x.n >= 2);
        CHECK_EQ(x.r[0].rd_value, 0x1234);
        CHECK_EQ(x.r[0].time, 77);
        for (size_t i = 1; i < x.n; i++) {
            struct rvt_ing_rec z;
            memset(&z, 0, sizeof z);
            z.iaddr = x.r[i].iaddr;
            z.iretire = x.r[i].iretire;
            z.ilastsize = x.r[i].ilastsize;
            z.itype = x.r[i].itype;
            z.priv = x.r[i].priv;
            CHECK_EQ(x.r[i].flags, 0);
            CHECK(memcmp(&x.r[i].tval, &z.tval, offsetof(struct rvt_ing_rec, iretire) - offsetof(struct rvt_ing_rec, tval)) == 0);
            CHECK_EQ(x.r[i].cause, 0);
            CHECK_EQ(x.r[i].rd, 0);
            CHECK_EQ(x.r[i].mem_size, 0);
            CHECK_EQ(x.r[i].tp_type, 0);
            CHECK_EQ(x.r[i].dtype, 0);
            CHECK_EQ(x.r[i].hart, 0);
        }
    }
    rvt_img_free(img);
    free(elf);
}

/* ecall/ebreak into a trap handler from a list of PCs (tests/data/ecall:
 * coremark's exit pattern): refused as a fall-through (sequential), an
 * uninferable call to the handler (uninferable), or an exception that does
 * not retire, with the cause the instruction implies and one warning
 * (trap). */
struct warns {
    unsigned n;
    char first[400];
};
static void on_warn(void *ctx, const char *text)
{
    struct warns *w = ctx;
    if (!w->n++)
        snprintf(w->first, sizeof w->first, "%s", text);
}

static void test_builder_ecall(void)
{
    char *elf = rvt_test_data("ecall/ecall64.elf");
    struct rvt_image *img = rvt_img_new();
    REQUIRE(rvt_img_load_elf(img, elf) == 0);
    /* li a7; mv a0; ecall -> trap_entry; ... c.ebreak -> trap_entry */
    static const uint64_t to_ecall[] = {0x8000000e, 0x80000012, 0x80000014, 0x80000038};
    for (int mode = RVT_ECALL_SEQUENTIAL; mode <= RVT_ECALL_TRAP; mode++) {
        struct recs x = {.n = 0};
        struct warns w = {0};
        struct rvt_ing_builder_config bc = {.size = sizeof bc, .image = img, .ecall_mode = (enum rvt_ecall_mode)mode,
                                            .emit = keep, .emit_ctx = &x, .warn = on_warn, .warn_ctx = &w};
        struct rvt_ing_builder *b = rvt_ing_builder_new(&bc);
        REQUIRE(b);
        int rc = 0;
        for (size_t i = 0; i < 4 && rc == 0; i++)
            rc = rvt_ing_builder_insn(b, to_ecall[i], -1, RVT_PRIV_M, 0, NULL);
        if (mode == RVT_ECALL_SEQUENTIAL) {
            /* The message of the issue, with the way out. */
            CHECK(rc == -RVT_ERR_MISMATCH);
            const char *e = rvt_ing_builder_error(b);
            CHECK_MSG(strstr(e, "0x80000014 -> 0x80000038") && strstr(e, "--ecall trap"), "message: %s", e);
            rvt_ing_builder_free(b);
            continue;
        }
        CHECK(rc == 0);
        CHECK(rvt_ing_builder_insn(b, 0x8000003c, -1, RVT_PRIV_M, 0, NULL) == 0);
        CHECK(rvt_ing_builder_finish(b) == 0);
        rvt_ing_builder_free(b);
        if (mode == RVT_ECALL_UNINFERABLE) {
            /* li, mv, ecall (an uninferable call), csrr, li */
            REQUIRE(x.n == 5);
            CHECK_EQ(x.r[2].iaddr, 0x80000014);
            CHECK_EQ(x.r[2].itype, RVT_ITYPE_CALL_UNINF);
            CHECK_EQ(x.r[3].iaddr, 0x80000038);
            CHECK_EQ(w.n, 0);
        } else {
            /* li, mv, the trap at the ecall (not retired), csrr, li */
            REQUIRE(x.n == 5);
            CHECK_EQ(x.r[1].iaddr, 0x80000012);
            CHECK_EQ(x.r[1].itype, RVT_ITYPE_NONE);
            CHECK_EQ(x.r[2].iaddr, 0x80000014);
            CHECK_EQ(x.r[2].iretire, 0);
            CHECK_EQ(x.r[2].itype, RVT_ITYPE_EXCEPTION);
            CHECK_EQ(x.r[2].cause, 11); /* environment call from M-mode */
            CHECK_EQ(x.r[2].tval, 0);
            CHECK_EQ(x.r[3].iaddr, 0x80000038);
            CHECK_EQ(w.n, 1);
            CHECK_MSG(strstr(w.first, "cause 11") && strstr(w.first, "does not record the cause"), "warning: %s",
                      w.first);
        }
    }
    /* trap: c.ebreak is a breakpoint (3), an ecall from U-mode cause 8; one
     * warning in all; an ecall ending the list traps to an unknown handler. */
    struct recs x = {.n = 0};
    struct warns w = {0};
    struct rvt_ing_builder_config bc = {.size = sizeof bc, .image = img, .ecall_mode = RVT_ECALL_TRAP, .emit = keep,
                                        .emit_ctx = &x, .warn = on_warn, .warn_ctx = &w};
    struct rvt_ing_builder *b = rvt_ing_builder_new(&bc);
    REQUIRE(b);
    CHECK(rvt_ing_builder_insn(b, 0x8000001c, -1, RVT_PRIV_M, 0, NULL) == 0);
    CHECK(rvt_ing_builder_insn(b, 0x80000038, -1, RVT_PRIV_M, 0, NULL) == 0);
    CHECK(rvt_ing_builder_insn(b, 0x80000014, -1, RVT_PRIV_U, 0, NULL) == -RVT_ERR_MISMATCH); /* csrr falls through */
    rvt_ing_builder_free(b);
    REQUIRE(x.n >= 1);
    CHECK_EQ(x.r[0].iaddr, 0x8000001c);
    CHECK_EQ(x.r[0].itype, RVT_ITYPE_EXCEPTION);
    CHECK_EQ(x.r[0].cause, 3);
    CHECK_MSG(strstr(w.first, "ebreak") && strstr(w.first, "cause 3"), "warning: %s", w.first);
    x.n = 0;
    w.n = 0;
    b = rvt_ing_builder_new(&bc);
    REQUIRE(b);
    CHECK(rvt_ing_builder_insn(b, 0x80000012, -1, RVT_PRIV_U, 0, NULL) == 0);
    CHECK(rvt_ing_builder_insn(b, 0x80000014, -1, RVT_PRIV_U, 0, NULL) == 0);
    CHECK(rvt_ing_builder_finish(b) == 0);
    rvt_ing_builder_free(b);
    REQUIRE(x.n == 2);
    CHECK_EQ(x.r[1].itype, RVT_ITYPE_EXCEPTION);
    CHECK_EQ(x.r[1].iaddr, 0x80000014);
    CHECK_EQ(x.r[1].cause, 8); /* environment call from U-mode */
    CHECK_EQ(x.r[1].priv, RVT_PRIV_U);
    CHECK_EQ(w.n, 1);
    rvt_img_free(img);
    free(elf);
}

/* A short record (struct rvt_ing_fast) of every len: the record it stands
 * for, and whether that is one instruction as an encoder's run takes it
 * (rvt_ing_fast_insn_hw against iretire == 1 << ilastsize). */
static void test_short_records(void)
{
    unsigned one = 0;
    for (unsigned len = 0; len < 256; len++) {
        const struct rvt_ing_fast f = {0x80001000u, RVT_ITYPE_TAKEN, (uint8_t)len};
        struct rvt_ing_rec r;
        memset(&r, 0xa5, sizeof r);
        rvt_ing_fast_rec(&f, RVT_PRIV_S, 7, &r);
        CHECK(r.iaddr == f.iaddr && r.itype == f.itype && r.priv == RVT_PRIV_S && r.context == 7 && !r.flags &&
              !r.tval && !r.time && !r.cause && !r.ctype && !r.hart && r.iretire == len / 2 && r.ilastsize == len / 4);
        const unsigned want = r.ilastsize < 32 && r.iretire == 1u << r.ilastsize ? r.iretire : 0;
        CHECK_MSG(rvt_ing_fast_insn_hw(&f) == want, "len %u: %u halfwords, the record says %u", len,
                  rvt_ing_fast_insn_hw(&f), want);
        one += want != 0;
    }
    CHECK_MSG(one == 6, "%u lengths make one instruction (2-5, 8-9)", one);
}

int main(void)
{
    test_short_records();
    test_native_roundtrip();
    test_text_readers();
    test_builder_traps();
    test_builder_side_data();
    test_builder_ecall();
    return rvt_test_summary("test_ingress");
}
