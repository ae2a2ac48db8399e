/* CDL packet layer: every nybble code, data lengths and sync detection,
 * with the exact nybbles the seed text defines (word packing: the shared
 * nybble module, tests/nybble). */
#include "cdl/cdl.h"
#include "testlib.h"

#include <string.h>

/* Stream formats: XLEN and the length code 7 reading (seed: 7 bytes;
 * wide extension: 9 bytes). */
#define S32 ((struct cdl_fmt){32, false})
#define S64 ((struct cdl_fmt){64, false})
#define W32 ((struct cdl_fmt){32, true})
#define W64 ((struct cdl_fmt){64, true})

/* Encode f and compare with the expected nybbles; then decode them back. */
static void roundtrip(const struct cdl_field *f, struct cdl_fmt xlen, const uint8_t *want, unsigned nwant, int line)
{
    uint8_t nyb[CDL_MAX_FIELD_NYBBLES];
    unsigned n = cdl_field_encode(f, xlen, nyb);
    CHECK_MSG(n == nwant, "line %d: %u nybbles, expected %u", line, n, nwant);
    for (unsigned i = 0; i < n && i < nwant; i++)
        CHECK_MSG(nyb[i] == want[i], "line %d: nybble %u is 0x%X, expected 0x%X", line, i, nyb[i], want[i]);
    struct cdl_field g;
    struct rvt_diag d = {0};
    int k = cdl_field_decode(want, nwant, xlen, &g, &d);
    CHECK_MSG(k == (int)nwant, "line %d: decode used %d nybbles (%s)", line, k, d.msg);
    CHECK_MSG(g.kind == f->kind && g.seq == f->seq && g.nonseq == f->nonseq && g.reason == f->reason &&
                  g.nnn == f->nnn && g.rd == f->rd && g.tp == f->tp && g.value == f->value,
              "line %d: decoded field differs", line);
    /* Every shorter prefix of a multi-nybble field is "needs more". */
    for (unsigned cut = 1; cut < nwant; cut++)
        CHECK_MSG(cdl_field_decode(want, cut, xlen, &g, &d) == 0, "line %d: prefix %u not reported as cut", line,
                  cut);
}
#define RT(f, fm, ...)                                                                                      \
    do {                                                                                                      \
        const uint8_t w_[] = {__VA_ARGS__};                                                                   \
        roundtrip(f, fm, w_, sizeof w_, __LINE__);                                                            \
    } while (0)

static void test_control_codes(void)
{
    /* 0001-0111: SSS sequential instructions. */
    for (unsigned s = 1; s <= 7; s++) {
        struct cdl_field f = {.kind = CDL_F_SEQ, .seq = (uint8_t)s};
        uint8_t w = (uint8_t)s;
        roundtrip(&f, S32, &w, 1, __LINE__);
    }
    /* 1000 branch taken, 1001 jal/jalr, 1010 exception/interrupt, 1011 return from exception. */
    const uint8_t ns_code[4] = {0x8, 0x9, 0xA, 0xB};
    for (unsigned r = 0; r < 4; r++) {
        struct cdl_field f = {.kind = CDL_F_NONSEQ, .nonseq = (uint8_t)r};
        roundtrip(&f, S32, &ns_code[r], 1, __LINE__);
    }
    /* 0000 skip. */
    struct cdl_field skip = {.kind = CDL_F_SKIP};
    RT(&skip, S32, 0x0);
    /* 1101 NNNN: trace point of type NNNN, including type 0 and 15. */
    for (unsigned t = 0; t < 16; t++) {
        struct cdl_field f = {.kind = CDL_F_TRACEPOINT, .tp = (uint8_t)t};
        uint8_t w[2] = {0xD, (uint8_t)t};
        roundtrip(&f, S32, w, 2, __LINE__);
    }
    /* 111x reserved: rejected with a message naming the code. */
    struct rvt_diag d = {0};
    struct cdl_field f;
    uint8_t e[1] = {0xE}, ff[1] = {0xF};
    CHECK(cdl_field_decode(e, 1, S32, &f, &d) == -RVT_ERR_FORMAT);
    CHECK(strstr(d.msg, "reserved") != NULL);
    CHECK(cdl_field_decode(ff, 1, W64, &f, &d) == -RVT_ERR_FORMAT);
}

static void test_data(void)
{
    struct cdl_field f;
    /* 1100 RNNN: R=0 PC, NNN bytes = 2*NNN nybbles, least significant first. */
    cdl_field_pc(&f, 0x80000010, S32);
    CHECK_EQ(f.nnn, 4);
    RT(&f, S32, 0xC, 0x4, 0x0, 0x1, 0x0, 0x0, 0x0, 0x0, 0x0, 0x8);
    /* Zero-extension: the shortest length holding the value. */
    cdl_field_pc(&f, 0x100, S32);
    RT(&f, S32, 0xC, 0x2, 0x0, 0x0, 0x1, 0x0);
    cdl_field_pc(&f, 0xfe, S32);
    RT(&f, S32, 0xC, 0x1, 0xE, 0xF);
    /* PC 0: one byte (the data fields without data are the markers). */
    cdl_field_pc(&f, 0, S32);
    CHECK_EQ(f.nnn, 1);
    RT(&f, S32, 0xC, 0x1, 0x0, 0x0);
    /* The markers: 1100 0000 stop, 1100 1000 lost (R as for PC / RFW). */
    struct cdl_field stop = {.kind = CDL_F_STOP}, lost = {.kind = CDL_F_LOST, .reason = CDL_DATA_RFW};
    RT(&stop, S32, 0xC, 0x0);
    RT(&lost, S32, 0xC, 0x8);
    RT(&lost, W64, 0xC, 0x8);
    char text[80];
    cdl_field_format(&stop, text, sizeof text);
    CHECK(strstr(text, "stop") != NULL);
    cdl_field_format(&lost, text, sizeof text);
    CHECK(strstr(text, "lost") != NULL);
    /* Field lengths from the first nybbles (the encoder's refusal path). */
    const uint8_t l1[] = {0xC, 0x4, 0, 0, 0, 0, 0, 0, 0, 0};
    CHECK_EQ(cdl_field_len(l1, sizeof l1, false), 10);
    CHECK_EQ(cdl_field_len(l1, 1, false), 0);
    const uint8_t l2[] = {0xC, 0xF};
    CHECK_EQ(cdl_field_len(l2, 2, true), 20);
    CHECK_EQ(cdl_field_len(l2, 2, false), 16);
    const uint8_t l3[] = {0xD, 0x3}, l4[] = {0x0}, l5[] = {0x9};
    CHECK_EQ(cdl_field_len(l3, 1, false), 2);
    CHECK_EQ(cdl_field_len(l4, 1, false), 1);
    CHECK_EQ(cdl_field_len(l5, 1, false), 1);
    /* R=1 register-file write: byte 0 = rd, then the value. x5 = 0x1234. */
    cdl_field_rfw(&f, 5, 0x1234, S32);
    CHECK_EQ(f.nnn, 3);
    RT(&f, S32, 0xC, 0xB, 0x5, 0x0, 0x4, 0x3, 0x2, 0x1);
    /* RV32 widest write: x31 = 0xffffffff -> 5 bytes. */
    cdl_field_rfw(&f, 31, 0xffffffffu, S32);
    RT(&f, S32, 0xC, 0xD, 0xF, 0x1, 0xF, 0xF, 0xF, 0xF, 0xF, 0xF, 0xF, 0xF);
    /* Writing 0 to x1: one byte (rd); x0 = 0 too (rd is always sent). */
    cdl_field_rfw(&f, 1, 0, S32);
    RT(&f, S32, 0xC, 0x9, 0x1, 0x0);
    cdl_field_rfw(&f, 0, 0, S32);
    RT(&f, S32, 0xC, 0x9, 0x0, 0x0);
    /* f-register (32..63). */
    cdl_field_rfw(&f, 40, 0x7, W64);
    RT(&f, W64, 0xC, 0xA, 0x8, 0x2, 0x7, 0x0);

    /* The seed: NNN = 7 is the next 14 nybbles (7 bytes). */
    CHECK_EQ(cdl_data_bytes(7, false), 7);
    cdl_field_pc(&f, 0x00fedcba98765432ull, S64);
    CHECK_EQ(f.nnn, 7);
    RT(&f, S64, 0xC, 0x7, 0x2, 0x3, 0x4, 0x5, 0x6, 0x7, 0x8, 0x9, 0xA, 0xB, 0xC, 0xD, 0xE, 0xF);
    cdl_field_rfw(&f, 33, 0x0000fedcba987654ull, S64); /* f1: 1 + 6 bytes */
    CHECK_EQ(f.nnn, 7);
    RT(&f, S64, 0xC, 0xF, 0x1, 0x2, 0x4, 0x5, 0x6, 0x7, 0x8, 0x9, 0xA, 0xB, 0xC, 0xD, 0xE, 0xF);
    /* Values the seed's fields cannot hold are refused, not cut. */
    CHECK(!cdl_field_rfw(&f, 10, 0xffffffffffffffffull, S64));
    CHECK(!cdl_field_pc(&f, 0xffffffff80000000ull, S64));
    CHECK(!cdl_field_rfw(&f, 33, 0x400921fb54442d18ull, S32)); /* fld of pi on RV32D: 9 bytes */
    CHECK(!cdl_field_rfw(&f, 32, 0xffffffff3f800000ull, S32)); /* flw of 1.0f, NaN-boxed */
    CHECK_EQ(cdl_rfw_bytes(32, 0xffffffff3f800000ull, 32), 9);
    /* ...and an integer register on RV32 stays XLEN wide. */
    CHECK_EQ(cdl_rfw_bytes(5, 0xffffffffffffffffull, 32), 5);

    /* The wide extension: NNN=7 is 9 bytes. */
    CHECK_EQ(cdl_data_bytes(7, true), 9);
    CHECK_EQ(cdl_data_bytes(6, true), 6);
    cdl_field_rfw(&f, 10, 0xffffffffffffffffull, W64);
    CHECK_EQ(f.nnn, 7);
    RT(&f, W64, 0xC, 0xF, 0xA, 0x0, 0xF, 0xF, 0xF, 0xF, 0xF, 0xF, 0xF, 0xF, 0xF, 0xF, 0xF, 0xF, 0xF, 0xF, 0xF,
       0xF);
    cdl_field_pc(&f, 0xffffffff80000000ull, W64);
    RT(&f, W64, 0xC, 0x7, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x8, 0xF, 0xF, 0xF, 0xF, 0xF, 0xF, 0xF, 0xF, 0x0,
       0x0);
    /* A 6-byte RV64 PC keeps the seed's byte count. */
    cdl_field_pc(&f, 0x3fffffffff00ull, W64);
    CHECK_EQ(f.nnn, 6);
    RT(&f, W64, 0xC, 0x6, 0x0, 0x0, 0xF, 0xF, 0xF, 0xF, 0xF, 0xF, 0xF, 0xF, 0xF, 0x3);
    /* RV32 with D: an f register holds 64 bits; the whole value is sent. */
    CHECK(cdl_field_rfw(&f, 33, 0x400921fb54442d18ull, W32));
    CHECK_EQ(f.nnn, 7);
    CHECK_EQ(f.value, 0x400921fb54442d18ull);
    RT(&f, W32, 0xC, 0xF, 0x1, 0x2, 0x8, 0x1, 0xD, 0x2, 0x4, 0x4, 0x4, 0x5, 0xB, 0xF, 0x1, 0x2, 0x9, 0x0, 0x0, 0x4);
    /* A 7-byte value takes the 9-byte form in the wide extension. */
    cdl_field_pc(&f, 0x00fedcba98765432ull, W64);
    CHECK_EQ(f.nnn, 7);
    CHECK_EQ(f.nbytes, 9);

    /* Malformed data. */
    struct rvt_diag d = {0};
    const uint8_t wide_pc[] = {0xC, 0x5, 0, 0, 0, 0, 0, 0, 0, 0, 0x1, 0x0}; /* 5 bytes, bit 32 set */
    CHECK(cdl_field_decode(wide_pc, sizeof wide_pc, S32, &f, &d) == -RVT_ERR_FORMAT);
    CHECK(strstr(d.msg, "wider than XLEN") != NULL);
    CHECK(cdl_field_decode(wide_pc, sizeof wide_pc, W64, &f, &d) == (int)sizeof wide_pc);
    const uint8_t odd_pc[] = {0xC, 0x1, 0x1, 0x0};
    CHECK(cdl_field_decode(odd_pc, sizeof odd_pc, S32, &f, &d) == -RVT_ERR_FORMAT);
    const uint8_t bad_rd[] = {0xC, 0x9, 0x0, 0x4}; /* rd = 64 */
    CHECK(cdl_field_decode(bad_rd, sizeof bad_rd, S32, &f, &d) == -RVT_ERR_FORMAT);
    const uint8_t wide_rfw[] = {0xC, 0xE, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0}; /* x1, value bit 32 */
    CHECK(cdl_field_decode(wide_rfw, sizeof wide_rfw, S32, &f, &d) == -RVT_ERR_FORMAT);
    const uint8_t wide_frfw[] = {0xC, 0xE, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0}; /* f1: an f register holds it */
    CHECK(cdl_field_decode(wide_frfw, sizeof wide_frfw, S32, &f, &d) == (int)sizeof wide_frfw);
    CHECK_EQ(f.value, 0x100000000ull);
    /* Zero-padded data (a longer NNN than needed) is accepted. */
    const uint8_t padded[] = {0xC, 0x4, 0x8, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0};
    CHECK(cdl_field_decode(padded, sizeof padded, S32, &f, &d) == (int)sizeof padded);
    CHECK_EQ(f.value, 0x8);
}

static void test_sync(void)
{
    struct cdl_cfg c;
    memset(&c, 0, sizeof c);
    c.xlen = 32;
    c.pack = CDL_PACK_FLOW;
    c.sync_nybbles = 4;
    size_t rs, after, pos;
    /* A run of three zeros is not a sync mark; four are. */
    const uint8_t s1[] = {1, 0, 0, 0, 2, 0, 0, 0, 0, 0xC, 0x1, 0x2, 0x0, 3};
    CHECK(cdl_find_zero_run(s1, sizeof s1, 0, 4, &rs, &after));
    CHECK_EQ(rs, 5);
    CHECK_EQ(after, 9);
    CHECK(cdl_next_sync(s1, sizeof s1, 0, &c, false, &pos));
    CHECK_EQ(pos, 9);
    /* Zeros inside data: PC 0x80000000 has seven zero nybbles followed by 8,
     * which is not a PC field, so the run is not a sync point; the real
     * mark after it is. */
    const uint8_t s2[] = {0x2, 0xC, 0x4, 0, 0, 0, 0, 0, 0, 0, 0x8, 0x1, 0x9, 0, 0, 0, 0, 0xC, 0x1, 0x4, 0x0, 0x2};
    CHECK(cdl_find_zero_run(s2, sizeof s2, 0, 4, &rs, &after));
    CHECK_EQ(after, 10);
    CHECK(!cdl_sync_valid(s2, sizeof s2, 10, &c));
    CHECK(cdl_next_sync(s2, sizeof s2, 0, &c, false, &pos));
    CHECK_EQ(pos, 17);
    /* A candidate followed by a reserved code is refused. */
    const uint8_t s3[] = {0, 0, 0, 0, 0xC, 0x1, 0x4, 0x0, 0xE, 0, 0, 0, 0, 0xC, 0x1, 0x0, 0x0, 0x1};
    CHECK(cdl_next_sync(s3, sizeof s3, 0, &c, false, &pos));
    CHECK_EQ(pos, 13);
    /* A stop marker after a zero run is not a sync point (no PC). */
    const uint8_t s5[] = {0x1, 0, 0, 0, 0, 0xC, 0x0, 0, 0, 0, 0, 0xC, 0x1, 0x4, 0x0, 0x1};
    CHECK(!cdl_sync_valid(s5, sizeof s5, 5, &c));
    CHECK(cdl_next_sync(s5, sizeof s5, 0, &c, false, &pos));
    CHECK_EQ(pos, 11);
    /* With a longer configured mark, four zeros do not count. */
    c.sync_nybbles = 6;
    CHECK(!cdl_next_sync(s1, sizeof s1, 0, &c, false, &pos));
    /* An unwrapped recording may start directly with its PC field. */
    c.sync_nybbles = 4;
    const uint8_t s4[] = {0xC, 0x1, 0x4, 0x0, 0x1};
    CHECK(cdl_next_sync(s4, sizeof s4, 0, &c, true, &pos));
    CHECK_EQ(pos, 0);
    CHECK(!cdl_next_sync(s4, sizeof s4, 0, &c, false, &pos));
}

/* cdl_pc_fits (the encoder's runs ask it) says what cdl_field_pc does:
 * PCs of every byte length, at both widths, both data formats. */
static void test_pc_fits(void)
{
    for (unsigned xlen = 32; xlen <= 64; xlen += 32)
        for (int wide = 0; wide < 2; wide++)
            for (unsigned bit = 0; bit <= 64; bit++)
                for (int k = 0; k < 3; k++) {
                    uint64_t pc = bit == 64 ? ~0ull : (1ull << bit) - (uint64_t)k;
                    struct cdl_fmt fm = {xlen, wide != 0};
                    struct cdl_field f;
                    CHECK_MSG(cdl_pc_fits(pc, fm) == cdl_field_pc(&f, pc, fm),
                              "PC 0x%llx, RV%u, %s: cdl_pc_fits %d", (unsigned long long)pc, xlen,
                              wide ? "wide" : "seed", cdl_pc_fits(pc, fm));
                }
}

int main(void)
{
    test_control_codes();
    test_data();
    test_sync();
    test_pc_fits();
    return rvt_test_summary("test_cdl_packet");
}
