/* Debug-spec trace module packets: every header code, value sequences and
 * the "missing bits" rules, with the exact nybbles of the seed's tables. */
#include "dbg/dbg.h"
#include "testlib.h"

#include <string.h>

static void expect(const struct dbg_packet *p, const uint8_t *want, unsigned nwant, unsigned custom, int line)
{
    uint8_t nyb[20];
    unsigned n = dbg_packet_encode(p, nyb);
    CHECK_MSG(n == nwant, "line %d: %u nybbles, expected %u", line, n, nwant);
    for (unsigned i = 0; i < n && i < nwant; i++)
        CHECK_MSG(nyb[i] == want[i], "line %d: nybble %u is 0x%X, expected 0x%X", line, i, nyb[i], want[i]);
    struct dbg_packet q;
    struct rvt_diag d = {0};
    int k = dbg_packet_decode(want, nwant, custom, &q, &d);
    CHECK_MSG(k == (int)nwant, "line %d: decode used %d (%s)", line, k, d.msg);
    CHECK_MSG(q.hdr == p->hdr && q.nval == p->nval && q.bits == p->bits && q.arg == p->arg,
              "line %d: decoded packet differs", line);
    for (unsigned cut = 1; cut < nwant; cut++)
        CHECK_MSG(dbg_packet_decode(want, cut, custom, &q, &d) == 0, "line %d: prefix %u not reported as cut", line,
                  cut);
}
#define EXPECT(p, ...)                                                                                        \
    do {                                                                                                      \
        const uint8_t w_[] = {__VA_ARGS__};                                                                   \
        expect(p, w_, sizeof w_, DBG_CUSTOM_VALUE, __LINE__);                                                 \
    } while (0)

static void test_headers(void)
{
    /* Single-nybble headers of the seed's table. */
    const unsigned single[] = {DBG_NOP, DBG_BRANCH_TAKEN, DBG_BRANCH_NOT_TAKEN, DBG_TRACE_DISABLED};
    const uint8_t codes[] = {0x0, 0x2, 0x3, 0x5};
    for (unsigned i = 0; i < 4; i++) {
        struct dbg_packet p = {.hdr = (uint8_t)single[i]};
        expect(&p, &codes[i], 1, DBG_CUSTOM_VALUE, __LINE__);
    }
    /* 0100 Trace Enabled + version packet (currently 0). */
    struct dbg_packet te = {.hdr = DBG_TRACE_ENABLED, .arg = 0};
    EXPECT(&te, 0x4, 0x0);
    /* 0110 Privilege Level: interrupt in bit 3, PRV[1:0] in 2:1, IE in 0. */
    struct dbg_packet pr = {.hdr = DBG_PRIV, .arg = dbg_priv_packet(true, 3, true)};
    EXPECT(&pr, 0x6, 0xF);
    pr.arg = dbg_priv_packet(false, 1, false);
    EXPECT(&pr, 0x6, 0x2);
    pr.arg = dbg_priv_packet(false, 0, true);
    EXPECT(&pr, 0x6, 0x1);
    /* Value-sequence headers: PC 1, hart 7, load/store address 8/9, load/store
     * data A/B, timestamp C. */
    const unsigned vh[] = {DBG_PC, DBG_HART, DBG_LOAD_ADDR, DBG_STORE_ADDR, DBG_LOAD_DATA, DBG_STORE_DATA,
                           DBG_TIMESTAMP};
    const uint8_t vc[] = {0x1, 0x7, 0x8, 0x9, 0xA, 0xB, 0xC};
    for (unsigned i = 0; i < 7; i++) {
        struct dbg_packet p = {.hdr = (uint8_t)vh[i], .nval = 3, .bits = 0x123};
        uint8_t w[5] = {vc[i], 0x2, 0x3, 0x2, 0x1};
        expect(&p, w, 5, DBG_CUSTOM_VALUE, __LINE__);
    }
    /* 1101 reserved: rejected. */
    struct rvt_diag d = {0};
    struct dbg_packet q;
    const uint8_t rsv[] = {0xD, 0x0, 0x0};
    CHECK(dbg_packet_decode(rsv, 3, DBG_CUSTOM_VALUE, &q, &d) == -RVT_ERR_FORMAT);
    CHECK(strstr(d.msg, "reserved") != NULL);
    /* 1110/1111 custom: a value sequence, nothing, or rejected, by option. */
    const uint8_t cus[] = {0xE, 0x1, 0x5, 0xA, 0xF};
    CHECK(dbg_packet_decode(cus, 5, DBG_CUSTOM_VALUE, &q, &d) == 4);
    CHECK_EQ(q.bits, 0xA5);
    CHECK(dbg_packet_decode(cus, 5, DBG_CUSTOM_NONE, &q, &d) == 1);
    CHECK(dbg_packet_decode(cus + 4, 1, DBG_CUSTOM_REJECT, &q, &d) == -RVT_ERR_FORMAT);
}

static void test_value_sequences(void)
{
    /* "a 4-bit size packet which contains a single number N ... followed by
     * N+1 4-bit packets ... The first packet contains bits 3:0". */
    struct dbg_packet p = {.hdr = DBG_TIMESTAMP, .nval = 16, .bits = 0xfedcba9876543210ull};
    EXPECT(&p, 0xC, 0xF, 0x0, 0x1, 0x2, 0x3, 0x4, 0x5, 0x6, 0x7, 0x8, 0x9, 0xA, 0xB, 0xC, 0xD, 0xE, 0xF);
    p.nval = 1;
    p.bits = 0x7;
    EXPECT(&p, 0xC, 0x0, 0x7); /* the shortest: 4 bits */

    /* Missing bits from the last value (PC, addresses, timestamp). */
    CHECK_EQ(dbg_nyb_from_last(0x40000812, 0x40000800), 2);
    CHECK_EQ(dbg_fill_from_last(0x12, 2, 0x40000800), 0x40000812);
    CHECK_EQ(dbg_nyb_from_last(0x40000812, 0x40000812), 1); /* same value: one nybble */
    CHECK_EQ(dbg_nyb_from_last(0x50000000, 0x40000000), 8);
    CHECK_EQ(dbg_nyb_from_last(0xffffffffffffffffull, 0), 16);
    CHECK_EQ(dbg_fill_from_last(0x5, 1, 0xabcdef0), 0xabcdef5);

    /* Sign extension (load/store data). */
    CHECK_EQ(dbg_nyb_signed(0xffffffff, 32), 1); /* -1 */
    CHECK_EQ(dbg_fill_signed(0xf, 1, 32), 0xffffffffu);
    CHECK_EQ(dbg_nyb_signed(0x7, 32), 1);
    CHECK_EQ(dbg_nyb_signed(0x8, 32), 2); /* 0x8 needs a 0 sign nybble */
    CHECK_EQ(dbg_fill_signed(0x08, 2, 32), 0x8);
    CHECK_EQ(dbg_nyb_signed(0x7f, 64), 2);
    CHECK_EQ(dbg_nyb_signed(0x80, 64), 3);
    CHECK_EQ(dbg_nyb_signed(0xffffffffffffff80ull, 64), 2);
    CHECK_EQ(dbg_fill_signed(0x80, 2, 64), 0xffffffffffffff80ull);
    CHECK_EQ(dbg_nyb_signed(0x80000000, 32), 8);
    CHECK_EQ(dbg_fill_signed(0x80000000, 8, 32), 0x80000000u);
    CHECK_EQ(dbg_nyb_signed(0x8000000000000000ull, 64), 16);
    /* Load data -1 as a packet: 1010, N=0, F. */
    p.hdr = DBG_LOAD_DATA;
    p.nval = (uint8_t)dbg_nyb_signed(0xffffffff, 32);
    p.bits = 0xffffffff & dbg_mask(4u * p.nval);
    EXPECT(&p, 0xA, 0x0, 0xF);

    /* Zero fill (Change Hart). */
    CHECK_EQ(dbg_nyb_zero(0), 1);
    CHECK_EQ(dbg_nyb_zero(5), 1);
    CHECK_EQ(dbg_nyb_zero(0x10), 2);
    p.hdr = DBG_HART;
    p.nval = 1;
    p.bits = 5;
    EXPECT(&p, 0x7, 0x0, 0x5);

    /* PC field: PC[XLEN-1:1] with C, PC[XLEN-1:2] without. */
    CHECK_EQ(dbg_pc_shift(true), 1);
    CHECK_EQ(dbg_pc_shift(false), 2);
}

int main(void)
{
    test_headers();
    test_value_sequences();
    return rvt_test_summary("test_dbg_packet");
}
