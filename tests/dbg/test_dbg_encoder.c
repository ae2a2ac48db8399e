/* dbg encoder: exact packets for known executions — the trace events of
 * the seed's table per emit configuration, "missing bits from the last
 * value", the sync fields at the buffer's 8 sync points with Nop padding
 * before them, and the end of the trace. */
#include "dbg/dbg.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

extern const struct rvt_codec rvt_codec_dbg;

static struct rvt_ing_rec rec(uint64_t addr, unsigned itype, unsigned priv)
{
    struct rvt_ing_rec r;
    memset(&r, 0, sizeof r);
    r.iaddr = addr;
    r.iretire = 2;
    r.ilastsize = 1;
    r.itype = (uint8_t)itype;
    r.priv = (uint8_t)priv;
    return r;
}

static size_t encode(const struct dbg_cfg *c, const struct rvt_ing_rec *recs, size_t n, uint8_t *nyb, size_t max)
{
    struct rvt_membuf m;
    rvt_membuf_init(&m);
    struct rvt_byte_sink s = rvt_membuf_sink(&m);
    struct dbg_enc *e;
    struct rvt_diag d = {0};
    if (dbg_enc_new(&e, c, &s, &d) < 0) {
        rvt_test_fail(__FILE__, __LINE__, "%s", d.msg);
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        CHECK_MSG(dbg_enc_put(e, &recs[i]) == 0, "record %zu: %s", i, dbg_enc_error(e));
    CHECK(dbg_enc_finish(e) == 0);
    CHECK_EQ(m.len % 4, 0); /* whole 32-bit words */
    size_t k = m.len * 2 < max ? m.len * 2 : max;
    rvt_nyb_unpack(m.data, k / 2, nyb);
    dbg_enc_free(e);
    rvt_membuf_free(&m);
    return k;
}

static void expect(const struct dbg_cfg *c, const struct rvt_ing_rec *recs, size_t n, const uint8_t *want,
                   size_t nwant, int line)
{
    uint8_t got[4096];
    size_t k = encode(c, recs, n, got, sizeof got);
    size_t padded = (nwant + 7) / 8 * 8;
    CHECK_MSG(k == padded, "line %d: %zu nybbles, expected %zu", line, k, padded);
    for (size_t i = 0; i < k && i < padded; i++) {
        uint8_t w = i < nwant ? want[i] : 0; /* Nops complete the last word */
        if (got[i] != w) {
            rvt_test_fail(__FILE__, line, "nybble %zu is 0x%X, expected 0x%X", i, got[i], w);
            return;
        }
    }
}
#define EXPECT(c, recs, ...)                                                                                \
    do {                                                                                                    \
        const uint8_t w_[] = {__VA_ARGS__};                                                                 \
        expect(c, recs, sizeof recs / sizeof recs[0], w_, sizeof w_, __LINE__);                             \
    } while (0)

static void cfg(struct dbg_cfg *c, const char *emit)
{
    dbg_cfg_defaults(c);
    c->xlen = 32;
    struct rvt_diag d = {0};
    if (emit)
        CHECK(rvt_codec_dbg.cfg_set(c, "dbg-emit", emit, &d) == 0);
}

static struct rvt_ing_rec g_recs[8];
static void execution(void)
{
    g_recs[0] = rec(0x100, RVT_ITYPE_NONE, RVT_PRIV_U);
    g_recs[1] = rec(0x104, RVT_ITYPE_NOT_TAKEN, RVT_PRIV_U);
    g_recs[2] = rec(0x108, RVT_ITYPE_TAKEN, RVT_PRIV_U);       /* -> 0x200 */
    g_recs[3] = rec(0x200, RVT_ITYPE_JUMP_UNINF, RVT_PRIV_U);  /* jalr -> 0x300 */
    g_recs[4] = rec(0x300, RVT_ITYPE_CALL_INF, RVT_PRIV_U);    /* jal -> 0x400 */
    g_recs[5] = rec(0x400, RVT_ITYPE_EXCEPTION, RVT_PRIV_U);   /* faults at 0x400 -> 0x800 */
    g_recs[5].iretire = 0;
    g_recs[6] = rec(0x800, RVT_ITYPE_TRAPRET, RVT_PRIV_M);     /* mret -> 0x404 */
    g_recs[7] = rec(0x404, RVT_ITYPE_NONE, RVT_PRIV_U);
}

static void test_events(void)
{
    struct dbg_cfg c;
    execution();
    /* emitpc, emitbranch, emitpriv.  PC packets hold PC[31:1]. */
    cfg(&c, NULL);
    EXPECT(&c, g_recs, 0x4, 0x0,                            /* Trace Enabled, version 0 */
           0x6, 0x0,                                        /* sync: Privilege Level U */
           0x1, 0x7, 0x0, 0x8, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, /* sync: full PC 0x100 (0x80) */
           0x3,                                             /* branch not taken */
           0x2,                                             /* branch taken (target in the code) */
           0x1, 0x2, 0x0, 0x8, 0x1,                         /* jalr: PC 0x300, 3 nybbles, rest from 0x80 */
           /* jal: nothing */
           0x1, 0x2, 0x0, 0x0, 0x2,                         /* trap: epc 0x400 */
           0x6, 0x6,                                        /* Privilege Level: not an interrupt, M */
           0x1, 0x2, 0x0, 0x0, 0x4,                         /* handler 0x800 */
           0x1, 0x2, 0x2, 0x0, 0x2,                         /* mret: PC 0x404 */
           0x6, 0x0,                                        /* then the Privilege Level U */
           0x1, 0x0, 0x2,                                   /* the end: last instruction 0x404, 1 nybble */
           0x5);                                            /* Trace Disabled */

    /* emitpc without emitbranch: PC pairs (source, destination). */
    cfg(&c, "pc,priv");
    EXPECT(&c, g_recs, 0x4, 0x0, 0x6, 0x0, 0x1, 0x7, 0x0, 0x8, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0,
           /* the not-taken branch: nothing */
           0x1, 0x0, 0x4, 0x1, 0x2, 0x0, 0x0, 0x1, /* taken: 0x108 -> 0x200 */
           0x1, 0x0, 0x0, 0x1, 0x1, 0x0, 0x8,      /* jalr: 0x200 -> 0x300 */
           0x1, 0x0, 0x0, 0x1, 0x2, 0x0, 0x0, 0x2, /* jal: 0x300 -> 0x400 */
           0x1, 0x0, 0x0, 0x6, 0x6, 0x1, 0x2, 0x0, 0x0, 0x4, /* trap: 0x400, Privilege Level, 0x800 */
           0x1, 0x0, 0x0, 0x1, 0x2, 0x2, 0x0, 0x2, 0x6, 0x0, /* mret: 0x800 -> 0x404, Privilege Level */
           0x1, 0x0, 0x2, 0x5);                    /* end */

    /* Without the C extension PC packets hold PC[31:2]. */
    cfg(&c, "pc,branch");
    c.rvc = false;
    const struct rvt_ing_rec two[] = {rec(0x100, RVT_ITYPE_JUMP_UNINF, RVT_PRIV_M), rec(0x2000, RVT_ITYPE_NONE, 3)};
    EXPECT(&c, two, 0x4, 0x0, 0x1, 0x7, 0x0, 0x4, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, /* full PC 0x100 >> 2 */
           0x1, 0x2, 0x0, 0x0, 0x8,                                              /* 0x2000 >> 2 = 0x800 */
           0x1, 0x0, 0x0, 0x5);
}

/* Seed 004's trace events for traps: "Interrupts: Emit PC (if enabled) of
 * the last instruction executed.  Emit Privilege Level (if enabled).
 * Finally emit the new PC"; ecall/ebreak "the same as if they were jal"
 * (their own address).  --dbg-trap-pc epc keeps the older form (every trap
 * names its epc). */
static void test_trap_pcs(void)
{
    struct dbg_cfg c;
    const struct rvt_ing_rec irq[] = {
        rec(0x100, RVT_ITYPE_NONE, RVT_PRIV_U),
        rec(0x104, RVT_ITYPE_NONE, RVT_PRIV_U),
        {.iaddr = 0x108, .itype = RVT_ITYPE_INTERRUPT, .cause = 7, .priv = RVT_PRIV_U}, /* before 0x108 */
        rec(0x800, RVT_ITYPE_NONE, RVT_PRIV_M),
        rec(0x804, RVT_ITYPE_TRAPRET, RVT_PRIV_M), /* mret -> 0x108 */
        rec(0x108, RVT_ITYPE_NONE, RVT_PRIV_U),
    };
    cfg(&c, NULL);
    EXPECT(&c, irq, 0x4, 0x0, 0x6, 0x0, 0x1, 0x7, 0x0, 0x8, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, /* sync, PC 0x100 */
           0x1, 0x0, 0x2,                /* the interrupt: the last instruction executed, 0x104 */
           0x6, 0xE,                     /* Privilege Level: interrupt, M */
           0x1, 0x2, 0x0, 0x0, 0x4,      /* the new PC 0x800 */
           0x1, 0x2, 0x4, 0x8, 0x0,      /* mret -> 0x108 */
           0x6, 0x0,                     /* U */
           0x1, 0x0, 0x4, 0x5);          /* the end */
    CHECK(rvt_codec_dbg.cfg_set(&c, "dbg-trap-pc", "epc", &(struct rvt_diag){0}) == 0);
    EXPECT(&c, irq, 0x4, 0x0, 0x6, 0x0, 0x1, 0x7, 0x0, 0x8, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, /* sync, PC 0x100 */
           0x1, 0x0, 0x4,                /* epc 0x108 */
           0x6, 0xE, 0x1, 0x2, 0x0, 0x0, 0x4, 0x1, 0x2, 0x4, 0x8, 0x0, 0x6, 0x0, 0x1, 0x0, 0x4, 0x5);

    /* Without Privilege Level packets an exception (other than ecall or
     * ebreak) is named like an interrupt, so that where a trap falls never
     * depends on telling them apart: the jal at 0x300 before the fault. */
    execution();
    cfg(&c, "pc,branch");
    EXPECT(&c, g_recs, 0x4, 0x0, 0x1, 0x7, 0x0, 0x8, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, /* sync, PC 0x100 */
           0x3, 0x2,                     /* branches */
           0x1, 0x2, 0x0, 0x8, 0x1,      /* jalr -> 0x300 */
           0x1, 0x0, 0x0,                /* the fault: the last instruction executed, the jal at 0x300 */
           0x1, 0x2, 0x0, 0x0, 0x4,      /* handler 0x800 */
           0x1, 0x2, 0x2, 0x0, 0x2,      /* mret -> 0x404 */
           0x1, 0x0, 0x2, 0x5);          /* the end */
}

static void test_data(void)
{
    struct dbg_cfg c;
    cfg(&c, "loadaddr,storeaddr,loaddata,storedata,timestamp");
    struct rvt_ing_rec r[3];
    r[0] = rec(0x100, RVT_ITYPE_NONE, RVT_PRIV_M);
    r[0].flags = RVT_ING_HAS_MEM | RVT_ING_HAS_MEMVAL | RVT_ING_HAS_TIME;
    r[0].mem_addr = 0x80001000;
    r[0].mem_value = 0xffffffff; /* -1: one nybble, sign extended */
    r[0].time = 0x1234;
    r[1] = rec(0x104, RVT_ITYPE_NONE, RVT_PRIV_M);
    r[1].flags = RVT_ING_HAS_MEM | RVT_ING_HAS_MEMVAL | RVT_ING_HAS_TIME;
    r[1].mem_addr = 0x80001010; /* missing bits from the last load address */
    r[1].mem_value = 0x80;      /* needs a 0 sign nybble: 3 nybbles */
    r[1].time = 0x1240;
    r[2] = rec(0x108, RVT_ITYPE_NONE, RVT_PRIV_M);
    r[2].flags = RVT_ING_HAS_MEM | RVT_ING_MEM_STORE | RVT_ING_HAS_MEMVAL | RVT_ING_HAS_TIME;
    r[2].mem_addr = 0x80001010;
    r[2].mem_value = 0x7;
    r[2].time = 0x1240; /* unchanged: no timestamp */
    EXPECT(&c, r, 0x4, 0x0,                                                         /* Trace Enabled */
           0xC, 0xF, 0x4, 0x3, 0x2, 0x1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,        /* sync: full timestamp */
           0x8, 0x7, 0x0, 0x0, 0x0, 0x1, 0x0, 0x0, 0x0, 0x8,                      /* full load address */
           0xA, 0x0, 0xF,                                                         /* load data -1 */
           0xC, 0x1, 0x0, 0x4,                                                    /* timestamp 0x1240: 2 nybbles */
           0x8, 0x1, 0x0, 0x1,                                                    /* load address ...10 */
           0xA, 0x2, 0x0, 0x8, 0x0,                                               /* load data 0x80 */
           0x9, 0x7, 0x0, 0x1, 0x0, 0x1, 0x0, 0x0, 0x0, 0x8,                      /* first store address: full */
           0xB, 0x0, 0x7,                                                         /* store data 7 */
           0x5);
}

/* Sync points every buffer/8: Nops up to them, then the sync fields. */
static void test_sync_points(void)
{
    struct dbg_cfg c;
    cfg(&c, "pc,branch,priv");
    struct rvt_diag d = {0};
    CHECK(rvt_codec_dbg.cfg_set(&c, "dbg-buffer", "1024", &d) == 0); /* every 128 bytes */
    enum { N = 1000 };
    static struct rvt_ing_rec r[N];
    /* Not-taken branches (1 nybble each) and a jalr every 7 (5 nybbles)
     * so that some groups would straddle a sync point. */
    for (unsigned i = 0; i < N; i++)
        r[i] = rec(0x1000 + 4 * i, i % 7 == 6 ? RVT_ITYPE_JUMP_UNINF : RVT_ITYPE_NOT_TAKEN, RVT_PRIV_M);
    static uint8_t nyb[8192];
    size_t k = encode(&c, r, N, nyb, sizeof nyb);
    REQUIRE(k > 512);
    unsigned points = 0;
    for (size_t p = 256; p < k; p += 256) {
        /* A sequence header at the sync point: the sync fields
         * (Privilege Level, full PC). */
        CHECK_MSG(nyb[p] == DBG_PRIV && nyb[p + 2] == DBG_PC && nyb[p + 3] == 7, "sync point %zu: %X %X %X", p,
                  nyb[p], nyb[p + 2], nyb[p + 3]);
        /* The full PC is where the code resumes: right after a branch or a
         * jalr's target, i.e. one of the records' addresses. */
        uint64_t v = 0;
        for (unsigned i = 0; i < 8; i++)
            v |= (uint64_t)nyb[p + 4 + i] << (4 * i);
        CHECK_MSG((v << 1) >= 0x1000 && (v << 1) < 0x1000 + 4 * N, "sync point %zu: PC 0x%llx", p,
                  (unsigned long long)(v << 1));
        points++;
    }
    CHECK(points >= 2);
    /* Some Nops before a sync point (a jalr group did not fit). */
    unsigned padded = 0;
    for (size_t p = 256; p < k; p += 256)
        padded += nyb[p - 1] == DBG_NOP;
    CHECK(padded >= 1);
}

static int on_block(void *ctx, const struct rvt_block *b)
{
    (void)ctx;
    (void)b;
    return 0;
}
static char g_err[512];
static unsigned g_gaps[8];
static uint64_t g_lost_offset;
static int on_note(void *ctx, const struct rvt_note *n)
{
    (void)ctx;
    if (n->kind == RVT_NOTE_ERROR && !g_err[0])
        snprintf(g_err, sizeof g_err, "%s", n->text);
    if (n->kind == RVT_NOTE_GAP && n->reason < 8) {
        g_gaps[n->reason]++;
        if (n->reason == RVT_GAP_LOST || n->reason == RVT_GAP_END)
            g_lost_offset = n->offset;
    }
    return 0;
}

static void test_dump_and_errors(void)
{
    struct dbg_cfg c;
    cfg(&c, "pc,priv");
    execution();
    uint8_t nyb[256];
    size_t k = encode(&c, g_recs, 8, nyb, sizeof nyb);
    REQUIRE(k >= 16);
    uint8_t bytes[128];
    rvt_nyb_pack(nyb, k, bytes);
    char path[512];
    snprintf(path, sizeof path, "%s/dbg-dump.txt", rvt_test_tmpdir());
    FILE *f = fopen(path, "w");
    REQUIRE(f);
    struct rvt_diag d = {0};
    CHECK(dbg_dump(&c, bytes, k / 2, f, &d) == 0);
    fclose(f);
    CHECK(rvt_test_sh("grep -q '^00000000.0  \\[sync\\] trace-enabled version 0$' %s", path) == 0);
    CHECK(rvt_test_sh("grep -q '^00000001.0  priv other prv=U ie=0$' %s", path) == 0);
    CHECK(rvt_test_sh("grep -q '^00000002.0  pc 0x80 (8 nybbles) -> pc 0x100$' %s", path) == 0);
    CHECK(rvt_test_sh("grep -q 'pc 0x4 (1 nybbles) -> pc 0x108$' %s", path) == 0);
    CHECK(rvt_test_sh("grep -q 'priv other prv=M ie=0$' %s", path) == 0);
    CHECK(rvt_test_sh("grep -q 'trace-disabled$' %s", path) == 0);

    /* A reserved header where the taken branch's source PC was: reported at
     * its offset; decoding goes on to the end (no later sync point here). */
    nyb[14] = DBG_RESERVED;
    rvt_nyb_pack(nyb, k, bytes);
    extern const struct rvt_codec rvt_codec_dbg;
    struct rvt_image *empty = rvt_img_new();
    rvt_img_set_xlen(empty, 32);
    g_err[0] = 0;
    struct rvt_flow_sink sink = {.block = on_block, .note = on_note, .ctx = NULL};
    CHECK(rvt_decode_buffer(&rvt_codec_dbg, &c, empty, -1, bytes, k / 2, &sink, &d) == 0);
    CHECK_MSG(strstr(g_err, "dbg: offset 0x7 (nybble 0): reserved header 1101") != NULL, "'%s'", g_err);
    rvt_img_free(empty);
}

/* Trace off, notify and the end (docs/dbg.md "Trace off, dropped data and
 * the end of the trace"): the PC of the last traced instruction and Trace
 * Disabled; Trace Enabled and the sync fields where tracing resumes and at
 * a notified instruction; Trace Disabled ends every trace (after the one of
 * a stop when tracing is off at the end). */
static void test_gaps(void)
{
    struct dbg_cfg c;
    cfg(&c, NULL);
    struct rvt_ing_rec recs[] = {rec(0x100, RVT_ITYPE_NONE, RVT_PRIV_U), rec(0x104, RVT_ITYPE_NONE, RVT_PRIV_U),
                                 rec(0x108, RVT_ITYPE_NONE, RVT_PRIV_U), rec(0x10c, RVT_ITYPE_NONE, RVT_PRIV_U),
                                 rec(0x200, RVT_ITYPE_NONE, RVT_PRIV_U), rec(0x204, RVT_ITYPE_NONE, RVT_PRIV_U),
                                 rec(0x208, RVT_ITYPE_NONE, RVT_PRIV_U)};
    recs[2].flags = recs[3].flags = RVT_ING_UNQUALIFIED;
    recs[5].flags = RVT_ING_NOTIFY;
    EXPECT(&c, recs, 0x4, 0x0, 0x6, 0x0, 0x1, 0x7, 0x0, 0x8, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, /* start at 0x100 */
           0x1, 0x0, 0x2, 0x5,                                                      /* PC 0x104, Trace Disabled */
           0x4, 0x0, 0x6, 0x0, 0x1, 0x7, 0x0, 0x0, 0x1, 0x0, 0x0, 0x0, 0x0, 0x0,    /* Trace Enabled at 0x200 */
           0x4, 0x0, 0x6, 0x0, 0x1, 0x7, 0x2, 0x0, 0x1, 0x0, 0x0, 0x0, 0x0, 0x0,    /* notify: 0x204 */
           0x1, 0x0, 0x4, 0x5);                                                     /* the end: 0x208 */
    /* Off at the end: Trace Disabled twice (the stop, the end). */
    struct rvt_ing_rec off_end[] = {rec(0x100, RVT_ITYPE_NONE, RVT_PRIV_M), rec(0x104, RVT_ITYPE_NONE, RVT_PRIV_M)};
    off_end[1].flags = RVT_ING_UNQUALIFIED;
    EXPECT(&c, off_end, 0x4, 0x0, 0x6, 0x6, 0x1, 0x7, 0x0, 0x8, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x1, 0x0, 0x0, 0x5,
           0x5);
    /* A jalr whose target is not traced: its target, then Trace Disabled. */
    struct rvt_ing_rec jr[] = {rec(0x100, RVT_ITYPE_JUMP_UNINF, RVT_PRIV_M), rec(0x300, RVT_ITYPE_NONE, RVT_PRIV_M)};
    jr[1].flags = RVT_ING_UNQUALIFIED;
    EXPECT(&c, jr, 0x4, 0x0, 0x6, 0x6, 0x1, 0x7, 0x0, 0x8, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x1, 0x2, 0x0, 0x8, 0x1,
           0x5, 0x5);

    /* The decoder (PC pairs, without code) reads them: one trace-off gap
     * for the first execution, none at the end; cut short, the end is
     * unexpected (RVT_GAP_END), said where. */
    cfg(&c, "pc,priv");
    uint8_t nyb[256];
    size_t k = encode(&c, recs, sizeof recs / sizeof recs[0], nyb, sizeof nyb);
    uint8_t bytes[128];
    rvt_nyb_pack(nyb, k, bytes);
    struct rvt_image *img = rvt_img_new();
    rvt_img_set_xlen(img, 32);
    struct rvt_diag d = {0};
    struct rvt_flow_sink sink = {.block = on_block, .note = on_note, .ctx = NULL};
    memset(g_gaps, 0, sizeof g_gaps);
    g_err[0] = 0;
    CHECK(rvt_decode_buffer(&rvt_codec_dbg, &c, img, -1, bytes, k / 2, &sink, &d) == 0);
    CHECK_MSG(g_gaps[RVT_GAP_TRACE_OFF] == 1 && g_gaps[RVT_GAP_LOST] == 0 && !g_err[0], "%u off, %u lost, '%s' %s",
              g_gaps[RVT_GAP_TRACE_OFF], g_gaps[RVT_GAP_LOST], g_err, d.msg);
    memset(g_gaps, 0, sizeof g_gaps);
    CHECK(rvt_decode_buffer(&rvt_codec_dbg, &c, img, -1, bytes, 20, &sink, &d) == 0);
    CHECK_MSG(g_gaps[RVT_GAP_END] == 1 && g_lost_offset <= 20 && g_lost_offset >= 18, "%u unexpected ends at 0x%llx",
              g_gaps[RVT_GAP_END], (unsigned long long)g_lost_offset);
    rvt_img_free(img);
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

static void encode_loop(const struct dbg_cfg *c, const struct rvt_byte_sink *s, struct rvt_codec_stats *st)
{
    /* jalr 0x1000 -> 0x2000 -> 0x1000 ...: a PC pair each. */
    struct dbg_enc *e;
    struct rvt_diag d = {0};
    if (dbg_enc_new(&e, c, s, &d) < 0) {
        rvt_test_fail(__FILE__, __LINE__, "%s", d.msg);
        return;
    }
    for (unsigned i = 0; i < 4000; i++) {
        struct rvt_ing_rec r = rec(i % 2 ? 0x2000 : 0x1000, RVT_ITYPE_JUMP_UNINF, RVT_PRIV_M);
        CHECK(dbg_enc_put(e, &r) == 0);
    }
    CHECK(dbg_enc_finish(e) == 0);
    dbg_enc_stats(e, st);
    dbg_enc_free(e);
}

/* A write the sink cuts inside a PC packet: what it took is the stream's
 * start; the packet is completed with the next write, then (after Nops up
 * to a sync point if the group does not fit before it) Trace Disabled and
 * the sync fields, the hart restated; the decoder reports the loss there. */
static void test_refusal(void)
{
    struct dbg_cfg c;
    cfg(&c, "pc,priv");
    struct rvt_membuf full;
    rvt_membuf_init(&full);
    struct rvt_byte_sink fs = rvt_membuf_sink(&full);
    struct rvt_codec_stats st;
    encode_loop(&c, &fs, &st);
    REQUIRE(full.len > 4096 + 1024);
    CHECK_EQ(st.lost, 0);
    uint8_t *fn = malloc(2 * full.len);
    rvt_nyb_unpack(full.data, full.len, fn);
    size_t s = 0; /* the first PC packet at an even nybble past 3000 */
    while (s < 3000 || s % 2 || fn[s] != DBG_PC)
        s += dbg_packet_len(fn + s, 2 * full.len - s);
    size_t plen = dbg_packet_len(fn + s, 4);
    REQUIRE(plen >= 4);
    struct cut_sink cs = {.cut = (s + 2) / 2};
    rvt_membuf_init(&cs.out);
    struct rvt_byte_sink ss = {cut_write, &cs};
    encode_loop(&c, &ss, &st);
    CHECK(cs.done && st.lost > 0);
    uint8_t *on = malloc(2 * cs.out.len);
    rvt_nyb_unpack(cs.out.data, cs.out.len, on);
    REQUIRE(cs.out.len * 2 > s + plen + 600);
    CHECK(memcmp(on, fn, s + plen) == 0); /* the start, and the cut packet completed */
    size_t t = s + plen;
    while (on[t] == DBG_NOP)
        t++;
    CHECK_MSG(t == s + plen || t % 512 == 0, "Nops up to 0x%zx", t);
    CHECK(on[t] == DBG_TRACE_DISABLED);
    CHECK(on[t + 1] == DBG_HART && on[t + 2] == 0 && on[t + 3] == 0); /* hart 0, restated */
    CHECK(on[t + 4] == DBG_PRIV && on[t + 5] == 0x6);                 /* M */
    CHECK(on[t + 6] == DBG_PC && on[t + 7] == 7);                     /* a full PC */
    struct rvt_image *img = rvt_img_new();
    rvt_img_set_xlen(img, 32);
    struct rvt_diag d = {0};
    struct rvt_flow_sink sink = {.block = on_block, .note = on_note, .ctx = NULL};
    memset(g_gaps, 0, sizeof g_gaps);
    g_err[0] = 0;
    CHECK(rvt_decode_buffer(&rvt_codec_dbg, &c, img, -1, cs.out.data, cs.out.len, &sink, &d) == 0);
    CHECK_MSG(g_gaps[RVT_GAP_LOST] == 1 && g_gaps[RVT_GAP_TRACE_OFF] == 0 && !g_err[0], "%u lost, %u off, '%s'",
              g_gaps[RVT_GAP_LOST], g_gaps[RVT_GAP_TRACE_OFF], g_err);
    CHECK_EQ(g_lost_offset, t / 2);
    rvt_img_free(img);
    free(on);
    free(fn);
    rvt_membuf_free(&cs.out);
    rvt_membuf_free(&full);
}

int main(void)
{
    test_dump_and_errors();
    test_events();
    test_trap_pcs();
    test_data();
    test_sync_points();
    test_gaps();
    test_refusal();
    return rvt_test_summary("test_dbg_encoder");
}
