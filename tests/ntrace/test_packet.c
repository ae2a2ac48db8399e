/* N-Trace packet layer: MSEO framing, field packing, every message type,
 * against the spec's worked examples and the reference dumper's decoding
 * of the golden vector (tests/data/ntrace-t1/test-DUMP.txt). */
#include "ntrace/ntrace.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

static struct nt_wire wire32 = {0, 32, false};

/* Decode bytes that hold exactly one message; returns decode status. */
static int decode1(const struct nt_wire *w, const uint8_t *p, size_t n, struct nt_msg *m)
{
    size_t pos = 0, start = 0, len = 0;
    struct rvt_diag d;
    rvt_diag_clear(&d);
    int rc = nt_frame_next(p, n, &pos, &start, &len, &d);
    if (rc != 1)
        return rc < 0 ? rc : -RVT_ERR_EOS;
    return nt_msg_decode(w, p + start, len, start, m, &d);
}

/* Spec table "MDO and MSEO Encoding Example": idle, IndirectBranchHist
 * B-TYPE=0 I-CNT=0x7D U-ADDR=0x7 HIST=0xFFE, idle. */
static void test_spec_mseo_example(void)
{
    const uint8_t bytes[] = {0xFF, 0x70, 0xD0, 0x1D, 0x1D, 0xF8, 0xFF, 0xFF};
    struct nt_msg m;
    REQUIRE(decode1(&wire32, bytes, sizeof bytes, &m) == 0);
    CHECK_EQ(m.tcode, NT_TC_INDIRECT_BRANCH_HIST);
    CHECK_EQ(m.v[NT_F_BTYPE], 0);
    CHECK_EQ(m.v[NT_F_ICNT], 0x7D);
    CHECK_EQ(m.v[NT_F_UADDR], 0x7);
    CHECK_EQ(m.v[NT_F_HIST], 0xFFE);
    CHECK(!nt_has(&m, NT_F_TSTAMP));
    uint8_t out[NT_MSG_MAX];
    struct rvt_diag d;
    int n = nt_msg_encode(&wire32, &m, out, &d);
    CHECK_EQ(n, 6);
    CHECK(n == 6 && memcmp(out, bytes + 1, 6) == 0);
    /* The trailing 0xFF is idle, not a message. */
    size_t pos = 7, start, len;
    CHECK_EQ(nt_frame_next(bytes, sizeof bytes, &pos, &start, &len, &d), 0);
}

/* Spec "Virtual Addresses Optimization" examples: F-ADDR chunks (MSEO of
 * the last one 01 in the spec; here it ends the message). */
static void check_vaddr(const uint8_t *chunks, size_t nchunks, bool ext, uint64_t field, uint64_t addr)
{
    uint8_t msg[32];
    size_t n = 0;
    msg[n++] = NT_TC_PROG_TRACE_SYNC << 2;
    msg[n++] = (uint8_t)(NT_SYNC_PERIODIC << 2) | 1u; /* SYNC=2, I-CNT=0 (2 bits), end of field */
    for (size_t i = 0; i < nchunks; i++)
        msg[n++] = (uint8_t)(chunks[i] << 2);
    msg[n - 1] |= 3u;
    struct nt_wire w = {0, 64, ext};
    struct nt_msg m;
    REQUIRE(decode1(&w, msg, n, &m) == 0);
    CHECK_EQ(m.v[NT_F_SYNC], NT_SYNC_PERIODIC);
    CHECK_EQ(m.v[NT_F_ICNT], 0);
    CHECK_EQ(m.v[NT_F_FADDR], field);
    CHECK_EQ(m.v[NT_F_FADDR] << 1, addr);
    /* Encoding the address gives the spec's chunks back. */
    uint8_t out[NT_MSG_MAX];
    struct rvt_diag d;
    int k = nt_msg_encode(&w, &m, out, &d);
    CHECK_EQ(k, (int)n);
    CHECK(k == (int)n && memcmp(out, msg, n) == 0);
}

static void test_spec_vaddr_examples(void)
{
    const uint8_t a[] = {0x3F, 0x3F, 0x3F, 0x3F, 0x3F, 0x1F};
    check_vaddr(a, sizeof a, true, 0x7FFFFFFFFull, 0xFFFFFFFFEull);
    check_vaddr(a, sizeof a, false, 0x7FFFFFFFFull, 0xFFFFFFFFEull);
    const uint8_t b[] = {0x3F, 0x3F, 0x3F, 0x3F, 0x1F, 0x3C};
    check_vaddr(b, sizeof b, true, 0x7FFFFFFF1FFFFFFFull, 0xFFFFFFFE3FFFFFFEull);
    const uint8_t c[] = {0x3F, 0x3F, 0x3F, 0x3F, 0x3F, 0x3F, 0x00};
    check_vaddr(c, sizeof c, true, 0xFFFFFFFFFull, 0x1FFFFFFFFEull);
    const uint8_t e[] = {0x3F, 0x3F, 0x3F, 0x3F, 0x3F, 0x3F, 0x3F, 0x3F, 0x3F, 0x3F, 0x05};
    check_vaddr(e, sizeof e, true, 0x5FFFFFFFFFFFFFFFull, 0xBFFFFFFFFFFFFFFEull);
    check_vaddr(e, sizeof e, false, 0x5FFFFFFFFFFFFFFFull, 0xBFFFFFFFFFFFFFFEull);

    /* The kernel address of the spec's note: 11 chunks without the
     * optimization, 6 with it (field 0x7FFF_FFFF_C000_18FA: bits 30..62
     * are ones, so the transmitted MSB is bit 35). */
    struct nt_msg m;
    nt_msg_init(&m, NT_TC_PROG_TRACE_SYNC);
    nt_set(&m, NT_F_SYNC, 2);
    nt_set(&m, NT_F_ICNT, 0);
    nt_set(&m, NT_F_FADDR, 0xFFFFFFFF800031F4ull >> 1);
    uint8_t out[NT_MSG_MAX];
    struct rvt_diag d;
    struct nt_wire plain = {0, 64, false}, ext = {0, 64, true};
    CHECK_EQ(nt_msg_encode(&plain, &m, out, &d), 2 + 11);
    int n = nt_msg_encode(&ext, &m, out, &d);
    CHECK_EQ(n, 2 + 6);
    struct nt_msg back;
    REQUIRE(decode1(&ext, out, (size_t)n, &back) == 0);
    CHECK_EQ(back.v[NT_F_FADDR] << 1, 0xFFFFFFFF800031F4ull);
    CHECK(back.addr_extended);
}

/* PROCESS examples of the Ownership message. */
static void test_process(void)
{
    uint8_t priv;
    uint64_t ctx;
    bool has;
    CHECK(nt_process_decode(0x3B2, &priv, &ctx, &has));
    CHECK_EQ(priv, RVT_PRIV_VU);
    CHECK_EQ(ctx, 0x1D);
    CHECK(has);
    CHECK(nt_process_decode(0xC, &priv, &ctx, &has));
    CHECK_EQ(priv, RVT_PRIV_M);
    CHECK(!has);
    CHECK_EQ(nt_process_encode(2, RVT_PRIV_VU, 0x1D), 0x3B2);
    CHECK_EQ(nt_process_encode(0, RVT_PRIV_M, 0), 0xC);
    CHECK(!nt_process_decode(0x1, &priv, &ctx, &has));
    static const uint8_t privs[] = {RVT_PRIV_U, RVT_PRIV_S, RVT_PRIV_M, RVT_PRIV_D, RVT_PRIV_VU, RVT_PRIV_VS};
    for (size_t i = 0; i < sizeof privs; i++) {
        CHECK(nt_process_decode(nt_process_encode(3, privs[i], 0x1234), &priv, &ctx, &has));
        CHECK_EQ(priv, privs[i]);
        CHECK_EQ(ctx, 0x1234);
    }
}

/* Every message type with every optional field, SRC widths 0..12,
 * timestamps and both address modes: encode, frame, decode, compare. */
static void test_all_messages_roundtrip(void)
{
    static const unsigned tcodes[] = {
        NT_TC_OWNERSHIP, NT_TC_DIRECT_BRANCH, NT_TC_INDIRECT_BRANCH, NT_TC_ERROR,
        NT_TC_PROG_TRACE_SYNC, NT_TC_DIRECT_BRANCH_SYNC, NT_TC_INDIRECT_BRANCH_SYNC, NT_TC_RESOURCE_FULL,
        NT_TC_INDIRECT_BRANCH_HIST, NT_TC_INDIRECT_BRANCH_HIST_SYNC, NT_TC_REPEAT_BRANCH,
        NT_TC_PROG_TRACE_CORRELATION};
    static const uint64_t vals[] = {0, 1, 2, 0x3f, 0x40, 0x7D, 0xFFE, 0x80000000, 0x12345678, 0xFFFFFFFFFFFFFFFFull};
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    unsigned count = 0;
    for (unsigned src_bits = 0; src_bits <= NT_MAX_SRC_BITS; src_bits += 3) {
        for (unsigned xl = 0; xl < 2; xl++) {
            for (unsigned ext = 0; ext < 2; ext++) {
                struct nt_wire w = {src_bits, xl ? 64u : 32u, ext != 0};
                for (size_t t = 0; t < sizeof tcodes / sizeof tcodes[0]; t++) {
                    for (unsigned variant = 0; variant < 12; variant++) {
                        seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
                        struct nt_msg m;
                        nt_msg_init(&m, tcodes[t]);
                        uint64_t v = variant < 10 ? vals[variant] : seed;
                        uint64_t amask = (w.xlen == 32 ? 0xffffffffull : ~0ull) >> 1;
                        if (src_bits)
                            nt_set(&m, NT_F_SRC, v & ((1u << src_bits) - 1));
                        switch (tcodes[t]) {
                        case NT_TC_OWNERSHIP: nt_set(&m, NT_F_PROCESS, v); break;
                        case NT_TC_DIRECT_BRANCH: nt_set(&m, NT_F_ICNT, v); break;
                        case NT_TC_ERROR:
                            nt_set(&m, NT_F_ETYPE, v & 15);
                            nt_set(&m, NT_F_ECODE, v);
                            break;
                        case NT_TC_REPEAT_BRANCH: nt_set(&m, NT_F_BCNT, v); break;
                        case NT_TC_RESOURCE_FULL:
                            nt_set(&m, NT_F_RCODE, variant % 3);
                            nt_set(&m, NT_F_RDATA, v | 1);
                            if (variant % 3 == 2)
                                nt_set(&m, NT_F_HREPEAT, v >> 3);
                            break;
                        case NT_TC_PROG_TRACE_CORRELATION:
                            nt_set(&m, NT_F_EVCODE, v & 15);
                            nt_set(&m, NT_F_CDF, variant & 1);
                            nt_set(&m, NT_F_ICNT, v);
                            if (variant & 1)
                                nt_set(&m, NT_F_HIST, v | 1);
                            break;
                        default:
                            if (nt_tcode_is_sync(tcodes[t]))
                                nt_set(&m, NT_F_SYNC, v & 15);
                            if (tcodes[t] == NT_TC_INDIRECT_BRANCH || tcodes[t] == NT_TC_INDIRECT_BRANCH_SYNC ||
                                tcodes[t] == NT_TC_INDIRECT_BRANCH_HIST || tcodes[t] == NT_TC_INDIRECT_BRANCH_HIST_SYNC)
                                nt_set(&m, NT_F_BTYPE, v & 3);
                            nt_set(&m, NT_F_ICNT, v >> 1);
                            nt_set(&m, nt_tcode_is_sync(tcodes[t]) ? NT_F_FADDR : NT_F_UADDR, v & amask);
                            if (tcodes[t] == NT_TC_INDIRECT_BRANCH_HIST || tcodes[t] == NT_TC_INDIRECT_BRANCH_HIST_SYNC)
                                nt_set(&m, NT_F_HIST, v | 1);
                            break;
                        }
                        if (variant & 2)
                            nt_set(&m, NT_F_TSTAMP, v ^ 0x5555);
                        uint8_t buf[NT_MSG_MAX + 2];
                        struct rvt_diag d;
                        buf[0] = 0xFF; /* idle before */
                        int n = nt_msg_encode(&w, &m, buf + 1, &d);
                        REQUIRE(n > 0 && n <= NT_MSG_MAX);
                        /* only the last byte ends the message */
                        for (int i = 0; i < n - 1; i++)
                            CHECK((buf[1 + i] & 3u) != 3u);
                        CHECK_EQ(buf[n] & 3u, 3u);
                        struct nt_msg back;
                        int rc = decode1(&w, buf, (size_t)n + 1, &back);
                        CHECK_MSG(rc == 0, "tcode %u variant %u src %u: decode %d", tcodes[t], variant, src_bits, rc);
                        if (rc)
                            continue;
                        CHECK_EQ(back.tcode, m.tcode);
                        CHECK_EQ(back.present, m.present);
                        for (unsigned f = 0; f < NT_F__COUNT; f++)
                            if (nt_has(&m, (enum nt_field)f))
                                CHECK_MSG(back.v[f] == m.v[f], "tcode %u field %s: 0x%llx != 0x%llx", m.tcode,
                                          nt_field_name(f), (unsigned long long)back.v[f],
                                          (unsigned long long)m.v[f]);
                        count++;
                    }
                }
            }
        }
    }
    CHECK(count > 1000);
}

/* Bad input: framing and field errors name the offset and resynchronise. */
static void test_bad_input(void)
{
    struct rvt_diag d;
    size_t pos, start, n;
    /* MSEO=01 where a message must start: skipped to after the next end. */
    const uint8_t a[] = {0x05, 0x08, 0x0B, 0x24, 0x05, 0x44, 0x28, 0x20, 0x00, 0x43};
    pos = 0;
    CHECK(nt_frame_next(a, sizeof a, &pos, &start, &n, &d) == -RVT_ERR_FORMAT);
    CHECK(strstr(d.msg, "offset 0x0") != NULL);
    CHECK_EQ(pos, 3);
    CHECK_EQ(nt_frame_next(a, sizeof a, &pos, &start, &n, &d), 1);
    CHECK_EQ(start, 3);
    CHECK_EQ(n, 7);
    /* Reserved MSEO=10 inside a message. */
    const uint8_t b[] = {0x24, 0x06, 0x43, 0x6C, 0x07};
    pos = 0;
    CHECK(nt_frame_next(b, sizeof b, &pos, &start, &n, &d) == -RVT_ERR_FORMAT);
    CHECK(strstr(d.msg, "MSEO=10") != NULL);
    CHECK_EQ(pos, 3);
    CHECK_EQ(nt_frame_next(b, sizeof b, &pos, &start, &n, &d), 1);
    /* Truncated. */
    const uint8_t c[] = {0x24, 0x05, 0x44};
    pos = 0;
    CHECK(nt_frame_next(c, sizeof c, &pos, &start, &n, &d) == -RVT_ERR_TRUNCATED);
    CHECK_EQ(pos, sizeof c);
    /* A message of zeros never ends: bounded. */
    uint8_t *z = calloc(1000, 1);
    REQUIRE(z);
    pos = 0;
    CHECK(nt_frame_next(z, 1000, &pos, &start, &n, &d) < 0);
    CHECK(pos == 1000);
    free(z);
    /* Field wider than 64 bits (13 chunks of ones). */
    uint8_t wide[16];
    wide[0] = NT_TC_DIRECT_BRANCH << 2;
    for (int i = 1; i < 14; i++)
        wide[i] = 0xFC;
    wide[13] |= 3;
    struct nt_msg m;
    CHECK(decode1(&wire32, wide, 14, &m) == -RVT_ERR_FORMAT);
    /* The widest field that fits: 10 whole chunks and 4 bits of an 11th
     * (64 bits, past where the fast path of get_var stops checking); one
     * bit more is too wide, and so is a nonzero chunk after 64 bits. */
    uint8_t w64[12];
    w64[0] = NT_TC_DIRECT_BRANCH << 2;
    for (int i = 1; i < 11; i++)
        w64[i] = 0xFC;
    w64[11] = 0x0F << 2 | 3;
    CHECK(decode1(&wire32, w64, 12, &m) == 0);
    CHECK_EQ(m.v[NT_F_ICNT], ~0ull);
    w64[11] = 0x1F << 2 | 3;
    CHECK(decode1(&wire32, w64, 12, &m) == -RVT_ERR_FORMAT);
    uint8_t w70[13];
    memcpy(w70, w64, 11);
    w70[11] = 0x0F << 2;
    w70[12] = 1 << 2 | 3;
    CHECK(decode1(&wire32, w70, 13, &m) == -RVT_ERR_FORMAT);
    w70[12] = 0 << 2 | 3; /* leading zeros past 64 bits are fine */
    CHECK(decode1(&wire32, w70, 13, &m) == 0);
    CHECK_EQ(m.v[NT_F_ICNT], ~0ull);
    /* Missing field: IndirectBranch that ends after I-CNT. */
    const uint8_t miss[] = {NT_TC_INDIRECT_BRANCH << 2, 0x13};
    CHECK(decode1(&wire32, miss, sizeof miss, &m) == -RVT_ERR_FORMAT);
    /* Too many fields: DirectBranch I-CNT, TSTAMP, and one more. */
    const uint8_t extra[] = {NT_TC_DIRECT_BRANCH << 2, 0x05, 0x05, 0x07};
    CHECK(decode1(&wire32, extra, sizeof extra, &m) == -RVT_ERR_FORMAT);
    const uint8_t ts[] = {NT_TC_DIRECT_BRANCH << 2, 0x05, 0x0B};
    CHECK(decode1(&wire32, ts, sizeof ts, &m) == 0);
    CHECK_EQ(m.v[NT_F_ICNT], 1);
    CHECK_EQ(m.v[NT_F_TSTAMP], 2);
    /* Field end inside a fixed field: ProgTraceSync whose SYNC byte ends at TCODE. */
    const uint8_t fx[] = {(NT_TC_PROG_TRACE_SYNC << 2) | 1, 0x05, 0x07};
    CHECK(decode1(&wire32, fx, sizeof fx, &m) < 0);
    /* Vendor message: only TCODE. */
    const uint8_t vend[] = {56 << 2, 0xFF};
    CHECK(decode1(&wire32, vend, sizeof vend, &m) == 0);
    CHECK_EQ(m.tcode, 56);
    CHECK(!nt_tcode_known(56));
    CHECK_STR(nt_tcode_name(56), "VendorDefined");
}

/* ---- the reference dump of the golden vector ------------------------------ */

struct refmsg {
    size_t offset, nbytes;
    unsigned nfields;
    char name[16][16];
    uint64_t val[16];
};

static int map_field(const char *name)
{
    static const struct {
        const char *ref;
        int f;
    } map[] = {{"SYNC", NT_F_SYNC},   {"BTYPE", NT_F_BTYPE},     {"ICNT", NT_F_ICNT},     {"FADDR", NT_F_FADDR},
               {"UADDR", NT_F_UADDR}, {"HIST", NT_F_HIST},       {"RCODE", NT_F_RCODE},   {"RDATA", NT_F_RDATA},
               {"HREPEAT", NT_F_HREPEAT}, {"EVCODE", NT_F_EVCODE}, {"CDF", NT_F_CDF},     {"BCNT", NT_F_BCNT},
               {"ETYPE", NT_F_ETYPE}, {"ECODE", NT_F_ECODE},     {"PROCESS", NT_F_PROCESS}, {"TSTAMP", NT_F_TSTAMP}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(map[i].ref, name))
            return map[i].f;
    return -1;
}

static void test_golden_dump(void)
{
    char *dump_path = rvt_test_data("ntrace-t1/test-DUMP.txt");
    char *bin_path = rvt_test_data("ntrace-t1/test-NEX.bin");
    size_t dlen = 0, blen = 0;
    uint8_t *dump = rvt_test_read(dump_path, &dlen);
    uint8_t *bin = rvt_test_read(bin_path, &blen);
    free(dump_path);
    free(bin_path);
    REQUIRE(dump && bin);
    CHECK_EQ(blen, 2604);

    /* Parse the reference dump: one block of byte lines per message. */
    size_t cap = 512, nref = 0, off = 0;
    struct refmsg *ref = calloc(cap, sizeof *ref);
    REQUIRE(ref);
    char *text = malloc(dlen + 1);
    REQUIRE(text);
    memcpy(text, dump, dlen);
    text[dlen] = 0;
    struct refmsg *cur = NULL;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        unsigned byte;
        if (sscanf(line, "0x%2x", &byte) != 1)
            continue;
        char *fields = strchr(line, ':');
        if (fields && strstr(fields, "TCODE[")) {
            REQUIRE(nref < cap);
            cur = &ref[nref++];
            cur->offset = off;
        }
        REQUIRE(cur);
        CHECK_EQ(bin[off], byte); /* the dump shows the file's bytes */
        cur->nbytes++;
        off++;
        for (char *p = fields ? fields + 1 : NULL; p && *p;) {
            while (*p == ' ')
                p++;
            char name[16];
            unsigned bits;
            char val[40];
            int used = 0;
            if (sscanf(p, "%15[A-Z][%u]=%39[0-9A-Fa-fx]%n", name, &bits, val, &used) != 3)
                break;
            if (strcmp(name, "TCODE") != 0) {
                REQUIRE(cur->nfields < 16);
                snprintf(cur->name[cur->nfields], sizeof cur->name[0], "%s", name);
                cur->val[cur->nfields++] = strtoull(val, NULL, 0);
            } else {
                cur->val[15] = strtoull(val, NULL, 0); /* TCODE kept apart */
            }
            p += used;
            if (strstr(p, " - ") == p || strstr(p, " (MSG") == p)
                break;
        }
    }
    CHECK_EQ(off, blen);
    CHECK_EQ(nref, 367);

    /* Our packet layer on the same bytes: same messages, same fields. */
    size_t pos = 0, start, n, k = 0;
    struct rvt_diag d;
    struct nt_msg m;
    int rc;
    while ((rc = nt_frame_next(bin, blen, &pos, &start, &n, &d)) == 1) {
        REQUIRE(k < nref);
        CHECK_EQ(start, ref[k].offset);
        CHECK_EQ(n, ref[k].nbytes);
        REQUIRE(nt_msg_decode(&wire32, bin + start, n, start, &m, &d) == 0);
        CHECK_EQ(m.tcode, ref[k].val[15]);
        unsigned ours = 0;
        for (unsigned f = 0; f < NT_F__COUNT; f++)
            ours += nt_has(&m, (enum nt_field)f);
        CHECK_MSG(ours == ref[k].nfields, "message %zu: %u fields, reference %u", k, ours, ref[k].nfields);
        for (unsigned i = 0; i < ref[k].nfields; i++) {
            int f = map_field(ref[k].name[i]);
            CHECK_MSG(f >= 0 && nt_has(&m, (enum nt_field)f) && m.v[f] == ref[k].val[i],
                      "message %zu field %s: ours 0x%llx, reference 0x%llx", k, ref[k].name[i],
                      f >= 0 ? (unsigned long long)m.v[f] : 0ull, (unsigned long long)ref[k].val[i]);
        }
        /* Symmetry: re-encoding gives the same bytes. */
        uint8_t out[NT_MSG_MAX];
        int e = nt_msg_encode(&wire32, &m, out, &d);
        CHECK(e == (int)n && memcmp(out, bin + start, n) == 0);
        k++;
    }
    CHECK_EQ(rc, 0);
    CHECK_EQ(k, nref);

    /* Spot values from the dump (first and last messages). */
    pos = 0;
    REQUIRE(nt_frame_next(bin, blen, &pos, &start, &n, &d) == 1);
    REQUIRE(nt_msg_decode(&wire32, bin + start, n, start, &m, &d) == 0);
    CHECK_EQ(m.tcode, NT_TC_PROG_TRACE_SYNC);
    CHECK_EQ(m.v[NT_F_FADDR] << 1, 0x20010522);

    /* The dump tool output names every message and resolves F-ADDR. */
    struct nt_cfg cfg;
    nt_cfg_init(&cfg);
    cfg.xlen = 32;
    uint64_t last = 0;
    char line[512];
    nt_msg_format(&cfg, &m, &last, line, sizeof line);
    CHECK(strstr(line, "ProgTraceSync") && strstr(line, "SYNC=1") && strstr(line, "F-ADDR=0x10008291 -> 0x20010522"));
    CHECK_EQ(last, 0x20010522);

    free(text);
    free(ref);
    free(dump);
    free(bin);
}

int main(void)
{
    test_spec_mseo_example();
    test_spec_vaddr_examples();
    test_process();
    test_all_messages_roundtrip();
    test_bad_input();
    test_golden_dump();
    return rvt_test_summary("ntrace_packet");
}
