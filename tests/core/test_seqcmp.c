/* The round-trip comparison (rvt_seqcmp): a decoded stream against its
 * records, on everything the family's configuration traces, with the kind
 * of the first difference.  Synthetic decodes: each case changes one thing
 * a decoder could get wrong (a truncated 64-bit value, a privilege, a
 * missing timestamp, a sign-extended memory value that is right, ...). */
#include "rvtrace/rvtrace.h"
#include "testlib.h"

#include <string.h>

/* Four one-instruction records at 0x1000.. (32-bit instructions), RV32:
 * an fld writing f3 (64 bits) with its 8-byte load, an lb of 0x80, a
 * store, then an instruction in another privilege and hart. */
static struct rvt_ing_rec g_recs[4];

static void make_recs(void)
{
    memset(g_recs, 0, sizeof g_recs);
    for (unsigned i = 0; i < 4; i++) {
        g_recs[i].iaddr = 0x1000 + 4 * i;
        g_recs[i].iretire = 2;
        g_recs[i].ilastsize = 1;
        g_recs[i].priv = RVT_PRIV_U;
        g_recs[i].flags = RVT_ING_HAS_TIME;
        g_recs[i].time = 100 + (i / 2); /* 100, 100, 101, 101 */
    }
    g_recs[0].flags |= RVT_ING_HAS_RD | RVT_ING_HAS_MEM | RVT_ING_HAS_MEMVAL;
    g_recs[0].rd = 35;
    g_recs[0].rd_value = 0x400921fb54442d18ull;
    g_recs[0].mem_addr = 0x8000;
    g_recs[0].mem_size = 8;
    g_recs[0].mem_value = 0x400921fb54442d18ull;
    g_recs[1].flags |= RVT_ING_HAS_RD | RVT_ING_HAS_MEM | RVT_ING_HAS_MEMVAL;
    g_recs[1].rd = 5;
    g_recs[1].rd_value = 0xffffff80u;
    g_recs[1].mem_addr = 0x8010;
    g_recs[1].mem_size = 1;
    g_recs[1].mem_value = 0x80;
    g_recs[2].flags |= RVT_ING_HAS_MEM | RVT_ING_MEM_STORE | RVT_ING_HAS_MEMVAL;
    g_recs[2].mem_addr = 0x8020;
    g_recs[2].mem_size = 4;
    g_recs[2].mem_value = 0x12345678;
    g_recs[3].priv = RVT_PRIV_M;
    g_recs[3].hart = 2;
}

struct cursor {
    size_t next;
};
static int pull(void *ctx, struct rvt_ing_rec *r)
{
    struct cursor *k = ctx;
    if (k->next >= 4)
        return 0;
    *r = g_recs[k->next++];
    return 1;
}

/* What a decoder reports for the records, with one thing changed. */
enum change {
    NONE,
    TRUNCATED_FREG,  /* f3's upper half lost (the RV32 bug of issue 9) */
    WRONG_PRIV,      /* the last instruction in U instead of M */
    MISSING_TIME,    /* the second timestamp not reported */
    SEXT_BYTE_LOAD,  /* the lb's data sign extended to 32 bits (dbg): right */
    WRONG_BYTE_LOAD, /* ...with a wrong bit inside the access */
    EXTRA_STORE,     /* a store address the input does not have */
    WRONG_REG,       /* x6 instead of x5 */
    HART_RESTATED,   /* the hart stated twice (a sync point): right */
    WRONG_INDEX,     /* the lb's write reported for the fld */
};

static void note(struct rvt_flow_sink *s, uint8_t kind, uint8_t reason, uint64_t addr, uint64_t value, uint64_t index)
{
    struct rvt_note n;
    memset(&n, 0, sizeof n);
    n.kind = kind;
    n.reason = reason;
    n.addr = addr;
    n.value = value;
    n.index = index;
    s->note(s->ctx, &n);
}

static void block(struct rvt_flow_sink *s, uint64_t start, uint64_t n, uint8_t priv)
{
    struct rvt_block b;
    memset(&b, 0, sizeof b);
    b.start = start;
    b.ninsns = n;
    b.last = start + 4 * (n - 1);
    b.last_len = 4;
    b.priv = priv;
    s->block(s->ctx, &b);
}

static void decode(struct rvt_flow_sink *s, enum change ch)
{
    note(s, RVT_NOTE_TIME, 0, 0, 100, 0);
    block(s, 0x1000, 3, RVT_PRIV_U);
    note(s, RVT_NOTE_DATA, RVT_DATA_REG_WRITE, 35, ch == TRUNCATED_FREG ? 0x54442d18 : 0x400921fb54442d18ull,
         ch == WRONG_INDEX ? 1 : 0);
    note(s, RVT_NOTE_DATA, RVT_DATA_LOAD_ADDR, 0, 0x8000, 0);
    note(s, RVT_NOTE_DATA, RVT_DATA_LOAD_VALUE, 0, 0x400921fb54442d18ull, 0);
    note(s, RVT_NOTE_DATA, RVT_DATA_REG_WRITE, ch == WRONG_REG ? 6 : 5, 0xffffff80u, 1);
    note(s, RVT_NOTE_DATA, RVT_DATA_LOAD_ADDR, 0, 0x8010, 1);
    note(s, RVT_NOTE_DATA, RVT_DATA_LOAD_VALUE, 0,
         ch == SEXT_BYTE_LOAD ? 0xffffff80u : ch == WRONG_BYTE_LOAD ? 0x81 : 0x80, 1);
    if (ch != MISSING_TIME)
        note(s, RVT_NOTE_TIME, 0, 0, 101, 2);
    note(s, RVT_NOTE_DATA, RVT_DATA_STORE_ADDR, 0, 0x8020, 2);
    note(s, RVT_NOTE_DATA, RVT_DATA_STORE_VALUE, 0, 0x12345678, 2);
    if (ch == EXTRA_STORE)
        note(s, RVT_NOTE_DATA, RVT_DATA_STORE_ADDR, 0, 0x8024, 2);
    note(s, RVT_NOTE_DATA, RVT_DATA_HART, 0, 2, 3);
    if (ch == HART_RESTATED)
        note(s, RVT_NOTE_DATA, RVT_DATA_HART, 0, 2, 3);
    block(s, 0x100c, 1, ch == WRONG_PRIV ? RVT_PRIV_U : RVT_PRIV_M);
}

static const unsigned ALL = RVT_TRACED_PRIV | RVT_TRACED_TIME | RVT_TRACED_REG_WRITE | RVT_TRACED_LOAD_ADDR |
                            RVT_TRACED_STORE_ADDR | RVT_TRACED_LOAD_VALUE | RVT_TRACED_STORE_VALUE |
                            RVT_TRACED_HART;

/* Compare; returns the kind of the first difference (RVT_CMP__COUNT: none). */
static unsigned compare(enum change ch, unsigned traced, char *msg, size_t n)
{
    struct cursor k = {0};
    struct rvt_seqcmp_config cfg = {.size = sizeof cfg, .xlen = 32, .traced = traced};
    struct rvt_seqcmp *c = rvt_seqcmp_new_ex(pull, &k, &cfg);
    if (!c) {
        rvt_test_fail(__FILE__, __LINE__, "out of memory");
        return 0;
    }
    struct rvt_flow_sink s = rvt_seqcmp_sink(c);
    decode(&s, ch);
    int rc = rvt_seqcmp_finish(c);
    unsigned kind = rvt_seqcmp_failed_kind(c);
    snprintf(msg, n, "%s", rvt_seqcmp_error(c));
    CHECK_MSG((rc == 0) == (kind == RVT_CMP__COUNT), "change %d: rc %d, kind %u: %s", (int)ch, rc, kind, msg);
    if (rc == 0) {
        CHECK_EQ(rvt_seqcmp_insns(c), 4);
        if (traced & RVT_TRACED_REG_WRITE)
            CHECK_EQ(rvt_seqcmp_count(c, RVT_DATA_REG_WRITE), 2);
        if (traced & RVT_TRACED_TIME)
            CHECK_EQ(rvt_seqcmp_count(c, RVT_CMP_TIME), 2);
    }
    rvt_seqcmp_free(c);
    return kind;
}

int main(void)
{
    make_recs();
    char msg[512];
    CHECK_MSG(compare(NONE, ALL, msg, sizeof msg) == RVT_CMP__COUNT, "%s", msg);
    /* What a configuration does not trace is not compared. */
    CHECK_MSG(compare(TRUNCATED_FREG, RVT_TRACED_PRIV, msg, sizeof msg) == RVT_CMP__COUNT, "%s", msg);
    CHECK_MSG(compare(WRONG_PRIV, RVT_TRACED_REG_WRITE, msg, sizeof msg) == RVT_CMP__COUNT, "%s", msg);

    /* Each difference, named by its kind, with the values. */
    CHECK_EQ(compare(TRUNCATED_FREG, ALL, msg, sizeof msg), RVT_DATA_REG_WRITE);
    CHECK_MSG(strstr(msg, "register writes differ") && strstr(msg, "decoded f3 = 0x54442d18") &&
                  strstr(msg, "expected f3 = 0x400921fb54442d18"),
              "%s", msg);
    CHECK_EQ(compare(WRONG_PRIV, ALL, msg, sizeof msg), RVT_CMP_PRIV);
    CHECK_MSG(strstr(msg, "privilege differ") && strstr(msg, "0x100c"), "%s", msg);
    CHECK_EQ(compare(MISSING_TIME, ALL, msg, sizeof msg), RVT_CMP_TIME);
    CHECK_MSG(strstr(msg, "timestamps differ") && strstr(msg, "0x65"), "%s", msg);
    CHECK_EQ(compare(WRONG_BYTE_LOAD, ALL, msg, sizeof msg), RVT_DATA_LOAD_VALUE);
    CHECK_MSG(strstr(msg, "load values differ") && strstr(msg, "access's bits"), "%s", msg);
    CHECK_EQ(compare(EXTRA_STORE, ALL, msg, sizeof msg), RVT_DATA_STORE_ADDR);
    CHECK_MSG(strstr(msg, "decoded more than the input"), "%s", msg);
    CHECK_EQ(compare(WRONG_REG, ALL, msg, sizeof msg), RVT_DATA_REG_WRITE);
    CHECK_MSG(strstr(msg, "decoded x6 = ") && strstr(msg, "expected x5 = "), "%s", msg);
    /* Indices only where the family says they are exact. */
    CHECK_MSG(compare(WRONG_INDEX, ALL, msg, sizeof msg) == RVT_CMP__COUNT, "%s", msg);
    CHECK_EQ(compare(WRONG_INDEX, ALL | RVT_TRACED_DATA_INDEX, msg, sizeof msg), RVT_DATA_REG_WRITE);
    CHECK_MSG(strstr(msg, "instruction 1, expected 0"), "%s", msg);

    /* Right: a memory value extended beyond its access (dbg's sign
     * extension), a hart restated at a sync point. */
    CHECK_MSG(compare(SEXT_BYTE_LOAD, ALL, msg, sizeof msg) == RVT_CMP__COUNT, "%s", msg);
    CHECK_MSG(compare(HART_RESTATED, ALL, msg, sizeof msg) == RVT_CMP__COUNT, "%s", msg);
    return rvt_test_summary("test_seqcmp");
}
