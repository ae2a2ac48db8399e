/* CDL encoder: exact nybbles for known executions — the packer's cycle
 * rules (counts prior to the cycle, flushed before a non-sequential field,
 * data and tracepoints), the seed's field order, PC modes, sync marks and
 * word padding. */
#include "cdl/cdl.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

/* One instruction per record: iretire = its halfwords. */
static struct rvt_ing_rec rec(uint64_t addr, unsigned itype)
{
    struct rvt_ing_rec r;
    memset(&r, 0, sizeof r);
    r.iaddr = addr;
    r.iretire = 2;
    r.ilastsize = 1;
    r.itype = (uint8_t)itype;
    r.priv = RVT_PRIV_M;
    return r;
}

static struct rvt_ing_rec trap_rec(uint64_t epc)
{
    struct rvt_ing_rec r = rec(epc, RVT_ITYPE_EXCEPTION);
    r.iretire = 0;
    r.cause = 2;
    return r;
}

/* Encode and compare with the expected nybbles, then pad.  Every
 * recording ends with the stop marker (1100 0000). */
static void expect(const struct cdl_cfg *cfg, const struct rvt_ing_rec *recs, size_t n, const uint8_t *want,
                   size_t nwant, int line)
{
    struct rvt_membuf m;
    rvt_membuf_init(&m);
    struct rvt_byte_sink s = rvt_membuf_sink(&m);
    struct cdl_enc *e;
    struct rvt_diag d = {0};
    if (cdl_enc_new(&e, cfg, &s, &d) < 0) {
        rvt_test_fail(__FILE__, line, "%s", d.msg);
        return;
    }
    for (size_t i = 0; i < n; i++)
        CHECK_MSG(cdl_enc_put(e, &recs[i]) == 0, "line %d: record %zu: %s", line, i, cdl_enc_error(e));
    CHECK(cdl_enc_finish(e) == 0);
    /* The output is whole 32-bit words: the expectation padded with skips. */
    size_t padded = (nwant + 7) / 8 * 8;
    CHECK_MSG(m.len * 2 == padded, "line %d: %zu nybbles written, expected %zu", line, m.len * 2, padded);
    uint8_t got[512];
    size_t ng = m.len * 2 < sizeof got ? m.len * 2 : sizeof got;
    rvt_nyb_unpack(m.data, ng / 2, got);
    for (size_t i = 0; i < ng && i < padded; i++) {
        uint8_t w = i < nwant ? want[i] : 0;
        if (got[i] != w) {
            rvt_test_fail(__FILE__, line, "nybble %zu is 0x%X, expected 0x%X", i, got[i], w);
            break;
        }
    }
    cdl_enc_free(e);
    rvt_membuf_free(&m);
}
#define EXPECT(cfg, recs, ...)                                                                              \
    do {                                                                                                    \
        const uint8_t w_[] = {__VA_ARGS__};                                                                 \
        expect(cfg, recs, sizeof recs / sizeof recs[0], w_, sizeof w_, __LINE__);                           \
    } while (0)

static void cfg32(struct cdl_cfg *c)
{
    cdl_cfg_defaults(c);
    c->xlen = 32;
    c->sync_interval = 0; /* only the initial mark */
}

static void test_flow(void)
{
    struct cdl_cfg c;
    cfg32(&c);
    const struct rvt_ing_rec recs[] = {
        rec(0x100, RVT_ITYPE_NONE),     rec(0x104, RVT_ITYPE_NONE),   rec(0x108, RVT_ITYPE_TAKEN),
        rec(0x200, RVT_ITYPE_NONE),     rec(0x204, RVT_ITYPE_CALL_INF), trap_rec(0x300),
        rec(0x400, RVT_ITYPE_TRAPRET),  rec(0x304, RVT_ITYPE_NOT_TAKEN), rec(0x308, RVT_ITYPE_NONE),
    };
    /* sync mark + PC of the first instruction; 2 sequential, taken branch,
     * its target; 1, jal, target; the trap retires nothing: 1010 and the
     * handler; mret and its target; the not-taken branch and the last
     * instruction are sequential: 2 at the end. */
    EXPECT(&c, recs, 0, 0, 0, 0, 0xC, 0x2, 0x0, 0x0, 0x1, 0x0, /* sync, PC 0x100 */
           0x2, 0x8, 0xC, 0x2, 0x0, 0x0, 0x2, 0x0,             /* seq 2, branch, PC 0x200 */
           0x1, 0x9, 0xC, 0x2, 0x0, 0x0, 0x3, 0x0,             /* seq 1, jump, PC 0x300 */
           0xA, 0xC, 0x2, 0x0, 0x0, 0x4, 0x0,                  /* trap, PC 0x400 */
           0xB, 0xC, 0x2, 0x4, 0x0, 0x3, 0x0,                  /* trap return, PC 0x304 */
           0x2, 0xC, 0x0);                                               /* seq 2 */

    /* PCs only where the code cannot tell: the taken branch and the jal
     * give none; the trap and the trap return do. */
    c.pc_mode = CDL_PC_UNINFERABLE;
    EXPECT(&c, recs, 0, 0, 0, 0, 0xC, 0x2, 0x0, 0x0, 0x1, 0x0, 0x2, 0x8, 0x1, 0x9, 0xA, 0xC, 0x2, 0x0, 0x0, 0x4,
           0x0, 0xB, 0xC, 0x2, 0x4, 0x0, 0x3, 0x0, 0x2, 0xC, 0x0);

    /* A jalr (uninferable) gets its PC even so. */
    const struct rvt_ing_rec jr[] = {rec(0x100, RVT_ITYPE_JUMP_UNINF), rec(0x8000, RVT_ITYPE_NONE)};
    EXPECT(&c, jr, 0, 0, 0, 0, 0xC, 0x2, 0x0, 0x0, 0x1, 0x0, 0x9, 0xC, 0x2, 0x0, 0x0, 0x0, 0x8, 0x1, 0xC, 0x0);

    /* Counts are reported in 7s as they fill (9 sequential: 7 then 2). */
    cfg32(&c);
    struct rvt_ing_rec nine[9];
    for (unsigned i = 0; i < 9; i++)
        nine[i] = rec(0x100 + 4 * i, RVT_ITYPE_NONE);
    EXPECT(&c, nine, 0, 0, 0, 0, 0xC, 0x2, 0x0, 0x0, 0x1, 0x0, 0x7, 0x2, 0xC, 0x0);
}

static void test_data(void)
{
    struct cdl_cfg c;
    cfg32(&c);
    c.pack = CDL_PACK_FLOW | CDL_PACK_TRAPS | CDL_PACK_RFW | CDL_PACK_TRACEPOINTS;
    struct rvt_ing_rec recs[] = {rec(0x100, RVT_ITYPE_NONE), rec(0x104, RVT_ITYPE_NONE),
                                 rec(0x108, RVT_ITYPE_CALL_INF), rec(0x200, RVT_ITYPE_NONE)};
    recs[1].flags = RVT_ING_HAS_RD; /* x5 = 0x1234 */
    recs[1].rd = 5;
    recs[1].rd_value = 0x1234;
    recs[2].flags = RVT_ING_HAS_RD; /* jal ra: x1 = 0x10c */
    recs[2].rd = 1;
    recs[2].rd_value = 0x10c;
    recs[3].flags = RVT_ING_TRACEPOINT;
    recs[3].tp_type = 9;
    /* The writing instruction is reported (its count flushed) before its
     * data; a jal gives its target PC, then its link register write; the
     * tracepoint follows its (flushed) instruction. */
    EXPECT(&c, recs, 0, 0, 0, 0, 0xC, 0x2, 0x0, 0x0, 0x1, 0x0, /* sync, PC */
           0x2, 0xC, 0xB, 0x5, 0x0, 0x4, 0x3, 0x2, 0x1,        /* seq 2, RFW x5 0x1234 */
           0x9, 0xC, 0x2, 0x0, 0x0, 0x2, 0x0,                  /* jump, PC 0x200 */
           0xC, 0xB, 0x1, 0x0, 0xC, 0x0, 0x1, 0x0,             /* RFW x1 0x10c (rd | value << 8 = 0x010c01) */
           0x1, 0xD, 0x9, 0xC, 0x0);                                     /* seq 1, tracepoint 9 */

    /* The register-write log: no flow at all. */
    c.pack = CDL_PACK_RFW;
    EXPECT(&c, recs, 0, 0, 0, 0, 0xC, 0xB, 0x5, 0x0, 0x4, 0x3, 0x2, 0x1, 0xC, 0xB, 0x1, 0x0, 0xC, 0x0, 0x1, 0x0, 0xC, 0x0);

    /* The trap log: epc, 1010, handler. */
    c.pack = CDL_PACK_TRAPS;
    const struct rvt_ing_rec t[] = {rec(0x100, RVT_ITYPE_NONE), trap_rec(0x104), rec(0x400, RVT_ITYPE_NONE)};
    EXPECT(&c, t, 0, 0, 0, 0, 0xC, 0x2, 0x4, 0x0, 0x1, 0x0, 0xA, 0xC, 0x2, 0x0, 0x0, 0x4, 0x0, 0xC, 0x0);
}

static void test_sync(void)
{
    struct cdl_cfg c;
    cfg32(&c);
    c.sync_interval = 12;
    struct rvt_ing_rec recs[6];
    for (unsigned i = 0; i < 6; i++)
        recs[i] = rec(0x100 + 8 * i, i % 2 ? RVT_ITYPE_JUMP_INF : RVT_ITYPE_NONE);
    /* After each jal: seq 1 (the instruction before), 1001, its target.
     * Once 12 nybbles were written since the last mark, the next cycle
     * boundary gets one (count flushed, 4 zeros, PC of the next
     * instruction); the mark's own nybbles do not count. */
    EXPECT(&c, recs, 0, 0, 0, 0, 0xC, 0x2, 0x0, 0x0, 0x1, 0x0, /* mark, PC 0x100 */
           0x1, 0x9, 0xC, 0x2, 0x0, 0x1, 0x1, 0x0,             /* 0x100, jal 0x108 -> 0x110: 8 nybbles */
           0x1, 0x9, 0xC, 0x2, 0x0, 0x2, 0x1, 0x0,             /* 0x110, jal 0x118 -> 0x120: 16 */
           0, 0, 0, 0, 0xC, 0x2, 0x0, 0x2, 0x1, 0x0,           /* mark, PC 0x120 */
           0x1, 0x9, 0xC, 0x0);                                          /* 0x120, jal 0x128 (no successor) */

    /* A longer mark. */
    c.sync_interval = 0;
    c.sync_nybbles = 6;
    const struct rvt_ing_rec one[] = {rec(0x100, RVT_ITYPE_NONE)};
    EXPECT(&c, one, 0, 0, 0, 0, 0, 0, 0xC, 0x2, 0x0, 0x0, 0x1, 0x0, 0x1, 0xC, 0x0);
}

static void test_rv64(void)
{
    struct cdl_cfg c;
    cdl_cfg_defaults(&c);
    c.xlen = 64;
    c.sync_interval = 0;
    c.pack |= CDL_PACK_RFW;
    struct rvt_ing_rec r[] = {rec(0xffffffff80000000ull, RVT_ITYPE_NONE)};
    r[0].flags = RVT_ING_HAS_RD;
    r[0].rd = 10;
    r[0].rd_value = 0xffffffffffffffffull;
    /* The wide extension: code 7 = 9 bytes, for the address and the write. */
    c.wide = true;
    EXPECT(&c, r, 0, 0, 0, 0, 0xC, 0x7, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x8, 0xF, 0xF, 0xF, 0xF, 0xF, 0xF, 0xF,
           0xF, 0x0, 0x0, 0x1, 0xC, 0xF, 0xA, 0x0, 0xF, 0xF, 0xF, 0xF, 0xF, 0xF, 0xF, 0xF, 0xF, 0xF, 0xF, 0xF, 0xF,
           0xF, 0xF, 0xF, 0xC, 0x0);
}

/* The seed's lengths (the default): a value that needs more than 7 bytes
 * is refused with the option that records it, never cut; one that fits
 * uses code 7 = 14 nybbles. */
static void test_seed_lengths(void)
{
    struct cdl_cfg c;
    cdl_cfg_defaults(&c);
    c.xlen = 32;
    c.sync_interval = 0;
    c.pack |= CDL_PACK_RFW;
    /* RV32D: fld writes all 64 bits of f3. */
    struct rvt_ing_rec r[] = {rec(0x1000, RVT_ITYPE_NONE)};
    r[0].flags = RVT_ING_HAS_RD;
    r[0].rd = 35;
    r[0].rd_value = 0x400921fb54442d18ull;
    struct rvt_membuf m;
    rvt_membuf_init(&m);
    struct rvt_byte_sink s = rvt_membuf_sink(&m);
    struct cdl_enc *e;
    struct rvt_diag d = {0};
    REQUIRE(cdl_enc_new(&e, &c, &s, &d) == 0);
    CHECK(cdl_enc_put(e, &r[0]) == 0);
    CHECK(cdl_enc_finish(e) == -RVT_ERR_UNSUPPORTED);
    CHECK_MSG(strstr(cdl_enc_error(e), "f3 = 0x400921fb54442d18") && strstr(cdl_enc_error(e), "--cdl-data wide"),
              "%s", cdl_enc_error(e));
    cdl_enc_free(e);
    rvt_membuf_free(&m);
    /* With the extension the whole value goes out (1100 1111, rd, 8 bytes). */
    c.wide = true;
    EXPECT(&c, r, 0, 0, 0, 0, 0xC, 0x2, 0x0, 0x0, 0x0, 0x1, 0x1, 0xC, 0xF, 0x3, 0x2, 0x8, 0x1, 0xD, 0x2, 0x4, 0x4,
           0x4, 0x5, 0xB, 0xF, 0x1, 0x2, 0x9, 0x0, 0x0, 0x4, 0xC, 0x0);
    /* RV64, seed lengths: a 7-byte value is code 7 with 14 data nybbles. */
    c.xlen = 64;
    c.wide = false;
    r[0].rd = 10;
    r[0].rd_value = 0xfedcba987654ull; /* x10: 1 + 6 bytes */
    EXPECT(&c, r, 0, 0, 0, 0, 0xC, 0x2, 0x0, 0x0, 0x0, 0x1, 0x1, 0xC, 0xF, 0xA, 0x0, 0x4, 0x5, 0x6, 0x7, 0x8, 0x9,
           0xA, 0xB, 0xC, 0xD, 0xE, 0xF, 0xC, 0x0);
}

static int on_block(void *ctx, const struct rvt_block *b)
{
    (void)ctx;
    (void)b;
    return 0;
}
static char g_err[512];
static unsigned g_lost;
static uint64_t g_lost_offset;
static int on_note(void *ctx, const struct rvt_note *n)
{
    (void)ctx;
    if (n->kind == RVT_NOTE_ERROR && !g_err[0])
        snprintf(g_err, sizeof g_err, "%s", n->text);
    if (n->kind == RVT_NOTE_GAP && n->reason == RVT_GAP_LOST) {
        g_lost++;
        g_lost_offset = n->offset;
    }
    return 0;
}

/* Hand-made streams: the dump's lines and the decoder's error text. */
static void test_dump_and_errors(void)
{
    extern const struct rvt_codec rvt_codec_cdl;
    struct cdl_cfg c;
    cfg32(&c);
    /* sync mark, PC 0x100, 60 x seq 1 (beyond the 64 nybbles a sync
     * candidate is checked over), a reserved code, a mark, PC 0x104, seq 1 */
    uint8_t nyb[88];
    size_t n = 0;
    const uint8_t head[] = {0, 0, 0, 0, 0xC, 0x2, 0x0, 0x0, 0x1, 0x0};
    memcpy(nyb, head, sizeof head);
    n = sizeof head;
    for (int i = 0; i < 60; i++)
        nyb[n++] = 0x1;
    nyb[n++] = 0xE; /* nybble 70: byte 0x23, low half */
    nyb[n++] = 0x0;
    const uint8_t tail[] = {0, 0, 0, 0, 0xC, 0x2, 0x4, 0x0, 0x1, 0x0, 0x1, 0x0, 0, 0, 0, 0};
    memcpy(nyb + n, tail, sizeof tail);
    n += sizeof tail;
    uint8_t bytes[sizeof nyb / 2];
    rvt_nyb_pack(nyb, n, bytes);
    char path[512];
    snprintf(path, sizeof path, "%s/cdl-dump.txt", rvt_test_tmpdir());
    FILE *f = fopen(path, "w");
    REQUIRE(f);
    struct rvt_diag d = {0};
    /* The dump lists everything, then returns the first damage with its
     * offset (the decoder contract). */
    CHECK(cdl_dump(&c, bytes, n / 2, f, &d) == -RVT_ERR_FORMAT);
    CHECK_MSG(strstr(d.msg, "cdl: offset 0x23: reserved control nybble 0xE") && strstr(d.msg, "(1 damaged fields)"),
              "%s", d.msg);
    d = (struct rvt_diag){0};
    fclose(f);
    CHECK(rvt_test_sh("grep -q '^00000000.0  sync mark (4 zero nybbles)$' %s", path) == 0);
    CHECK(rvt_test_sh("grep -q '^00000002.0  data pc 0x100 (nnn 2, 2 bytes)$' %s", path) == 0);
    CHECK(rvt_test_sh("grep -q '^00000005.0  seq 1$' %s", path) == 0);
    CHECK(rvt_test_sh("grep -q '^00000023.0  error: reserved control nybble 0xE' %s", path) == 0);
    CHECK(rvt_test_sh("grep -q '^00000026.0  data pc 0x104' %s", path) == 0);
    CHECK(rvt_test_sh("grep -q '^# 63 fields, 1 errors$' %s", path) == 0);

    /* The decoder (no code) reports the reserved code at its offset and
     * resynchronises at the next mark. */
    struct rvt_image *empty = rvt_img_new();
    rvt_img_set_xlen(empty, 32);
    g_err[0] = 0;
    struct rvt_flow_sink sink = {.block = on_block, .note = on_note, .ctx = NULL};
    CHECK(rvt_decode_buffer(&rvt_codec_cdl, &c, empty, -1, bytes, n / 2, &sink, &d) == 0);
    CHECK_MSG(strstr(g_err, "cdl: offset 0x23 (nybble 0): reserved control nybble 0xE") != NULL, "'%s'", g_err);
    rvt_img_free(empty);
}

/* Trace off and notify (docs/cdl.md "Trace off, loss and the end of a
 * recording"): the pending count, the stop marker 1100 0000; a sync mark
 * and the full PC where tracing resumes; a notified instruction's address
 * as a PC field before it; the stop marker at the end of every recording. */
static void test_gaps(void)
{
    struct cdl_cfg c;
    cfg32(&c);
    struct rvt_ing_rec recs[] = {rec(0x100, RVT_ITYPE_NONE), rec(0x104, RVT_ITYPE_NONE), rec(0x108, RVT_ITYPE_NONE),
                                 rec(0x10c, RVT_ITYPE_NONE), rec(0x200, RVT_ITYPE_NONE), rec(0x204, RVT_ITYPE_JUMP_INF),
                                 rec(0x300, RVT_ITYPE_NONE)};
    recs[2].flags = recs[3].flags = RVT_ING_UNQUALIFIED;
    recs[5].flags = RVT_ING_NOTIFY;
    EXPECT(&c, recs, 0, 0, 0, 0, 0xC, 0x2, 0x0, 0x0, 0x1, 0x0, /* mark, PC 0x100 */
           0x2, 0xC, 0x0,                                      /* 2 sequential, stop */
           0, 0, 0, 0, 0xC, 0x2, 0x0, 0x0, 0x2, 0x0,           /* mark, PC 0x200 */
           0x1, 0xC, 0x2, 0x4, 0x0, 0x2, 0x0,                  /* 0x200; notify: PC 0x204 */
           0x9, 0xC, 0x2, 0x0, 0x0, 0x3, 0x0,                  /* the jal, its target */
           0x1, 0xC, 0x0);                                     /* 0x300, the end */
    /* Off at the end: the stop marker, then the end marker. */
    struct rvt_ing_rec off_end[] = {rec(0x100, RVT_ITYPE_NONE), rec(0x104, RVT_ITYPE_NONE)};
    off_end[1].flags = RVT_ING_UNQUALIFIED;
    EXPECT(&c, off_end, 0, 0, 0, 0, 0xC, 0x2, 0x0, 0x0, 0x1, 0x0, 0x1, 0xC, 0x0, 0xC, 0x0);
    /* Off at the start: the recording starts with the first traced
     * instruction (no stop before it); a jalr whose target is not traced
     * gives its target (the successor is known) before the stop. */
    struct rvt_ing_rec off_start[] = {rec(0x100, RVT_ITYPE_NONE), rec(0x104, RVT_ITYPE_JUMP_UNINF),
                                      rec(0x400, RVT_ITYPE_NONE)};
    off_start[0].flags = off_start[2].flags = RVT_ING_UNQUALIFIED;
    EXPECT(&c, off_start, 0, 0, 0, 0, 0xC, 0x2, 0x4, 0x0, 0x1, 0x0, 0x9, 0xC, 0x2, 0x0, 0x0, 0x4, 0x0, 0xC, 0x0,
           0xC, 0x0);
}

/* A sink that takes bytes up to `cut`, refuses the rest of that write, and
 * then takes everything again. */
struct cut_sink {
    struct rvt_membuf out;
    size_t cut;
    bool done;
};
static long cut_write(void *ctx, const uint8_t *p, size_t n)
{
    struct cut_sink *s = ctx;
    size_t take = n;
    if (!s->done && s->out.len + n > s->cut) {
        take = s->cut - s->out.len;
        s->done = true;
    }
    return rvt_membuf_append(&s->out, p, take) < 0 ? -RVT_ERR_NOMEM : (long)take;
}

static size_t encode_loop(const struct cdl_cfg *c, const struct rvt_byte_sink *s, struct rvt_codec_stats *st)
{
    /* 0x1000, jal 0x1004 -> 0x2000, jal 0x2000 -> 0x1000, many times: 15
     * nybbles an iteration, more than one staged write. */
    struct cdl_enc *e;
    struct rvt_diag d = {0};
    if (cdl_enc_new(&e, c, s, &d) < 0) {
        rvt_test_fail(__FILE__, __LINE__, "%s", d.msg);
        return 0;
    }
    size_t n = 0;
    for (unsigned i = 0; i < 1500; i++) {
        struct rvt_ing_rec r[3] = {rec(0x1000, RVT_ITYPE_NONE), rec(0x1004, RVT_ITYPE_JUMP_INF),
                                   rec(0x2000, RVT_ITYPE_JUMP_INF)};
        for (unsigned k = 0; k < 3; k++, n++)
            CHECK(cdl_enc_put(e, &r[k]) == 0);
    }
    CHECK(cdl_enc_finish(e) == 0);
    cdl_enc_stats(e, st);
    cdl_enc_free(e);
    return n;
}

/* A write the sink cuts inside a PC field: what it took is the stream's
 * start; the field is completed with the next write, then the lost marker
 * 1100 1000, a sync mark and a full PC; the instructions in between are
 * gone and said to be. */
static void test_refusal(void)
{
    struct cdl_cfg c;
    cfg32(&c);
    struct rvt_membuf full;
    rvt_membuf_init(&full);
    struct rvt_byte_sink fs = rvt_membuf_sink(&full);
    struct rvt_codec_stats st;
    encode_loop(&c, &fs, &st);
    REQUIRE(full.len > 4096 + 1024);
    CHECK_EQ(st.lost, 0);
    uint8_t *fn = malloc(2 * full.len);
    rvt_nyb_unpack(full.data, full.len, fn);
    /* The first PC field at an even nybble past 5000. */
    size_t s = 0;
    while (s < 5000 || s % 2 || fn[s] != 0xC)
        s += cdl_field_len(fn + s, 2 * full.len - s, false);
    REQUIRE(cdl_field_len(fn + s, 8, false) == 6);
    size_t cutn = s + 2;
    struct cut_sink cs = {.cut = cutn / 2};
    rvt_membuf_init(&cs.out);
    struct rvt_byte_sink ss = {cut_write, &cs};
    encode_loop(&c, &ss, &st);
    CHECK(cs.done && st.lost > 0);
    uint8_t *on = malloc(2 * cs.out.len);
    rvt_nyb_unpack(cs.out.data, cs.out.len, on);
    REQUIRE(cs.out.len * 2 > s + 16);
    CHECK(memcmp(on, fn, s + 6) == 0); /* the start, and the cut PC field completed */
    CHECK(on[s + 6] == 0xC && on[s + 7] == 0x8); /* lost */
    CHECK(on[s + 8] == 0 && on[s + 9] == 0 && on[s + 10] == 0 && on[s + 11] == 0); /* sync mark */
    struct cdl_field f;
    struct rvt_diag d = {0};
    CHECK(cdl_field_decode(on + s + 12, 2 * cs.out.len - s - 12, (struct cdl_fmt){32, false}, &f, &d) > 0 && f.kind == CDL_F_DATA &&
          f.reason == CDL_DATA_PC && (f.value == 0x1000 || f.value == 0x1004 || f.value == 0x2000));
    /* Decoded: everything up to the cut, the loss, then from the PC on. */
    extern const struct rvt_codec rvt_codec_cdl;
    struct rvt_image *img = rvt_img_new();
    rvt_img_set_xlen(img, 32);
    struct rvt_flow_sink sink = {.block = on_block, .note = on_note, .ctx = NULL};
    g_err[0] = 0;
    g_lost = 0;
    CHECK(rvt_decode_buffer(&rvt_codec_cdl, &c, img, -1, cs.out.data, cs.out.len, &sink, &d) == 0);
    CHECK_MSG(g_err[0] == 0, "%s", g_err);
    CHECK_EQ(g_lost, 1);
    CHECK_EQ(g_lost_offset, (s + 6) / 2);
    rvt_img_free(img);
    free(on);
    free(fn);
    rvt_membuf_free(&cs.out);
    rvt_membuf_free(&full);
}

int main(void)
{
    test_dump_and_errors();
    test_flow();
    test_data();
    test_sync();
    test_rv64();
    test_seed_lengths();
    test_gaps();
    test_refusal();
    return rvt_test_summary("test_cdl_encoder");
}
