/* N-Trace encoder: ingress records -> messages, checked field by field
 * against the spec's I-CNT, HIST and address examples (seed 003) and the
 * rules for every option.  No code image is needed: the encoder only sees
 * ingress records. */
#include "ntrace/ntrace.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

#define MAXMSG 4096

struct run {
    struct nt_msg m[MAXMSG];
    size_t off[MAXMSG];
    size_t n;
    struct rvt_codec_stats st;
    struct rvt_membuf buf;
};

static struct rvt_ing_rec R(uint64_t iaddr, uint32_t iretire, uint8_t ilastsize, uint8_t itype)
{
    struct rvt_ing_rec r;
    memset(&r, 0, sizeof r);
    r.iaddr = iaddr;
    r.iretire = iretire;
    r.ilastsize = ilastsize;
    r.itype = itype;
    r.priv = RVT_PRIV_M;
    return r;
}

/* Options as "key=value,key,..." (flags without '='). */
static void make_cfg(struct nt_cfg *c, const char *opts, unsigned xlen)
{
    nt_cfg_init(c);
    struct rvt_diag d;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", opts ? opts : "");
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        char *eq = strchr(tok, '=');
        if (eq)
            *eq++ = 0;
        int rc = nt_cfg_set(c, tok, eq ? eq : "1", &d);
        CHECK_MSG(rc == 0, "option %s: %s", tok, d.msg);
    }
    int rc = nt_cfg_finish(c, xlen, NULL, &d);
    CHECK_MSG(rc == 0, "cfg_finish: %s", d.msg);
}

static void parse_all(struct run *r, const struct nt_cfg *c)
{
    struct nt_wire w;
    nt_cfg_wire(c, &w);
    size_t pos = 0, start, n;
    struct rvt_diag d;
    int rc;
    r->n = 0;
    while ((rc = nt_frame_next(r->buf.data, r->buf.len, &pos, &start, &n, &d)) == 1) {
        if (r->n >= MAXMSG)
            break;
        rc = nt_msg_decode(&w, r->buf.data + start, n, start, &r->m[r->n], &d);
        CHECK_MSG(rc == 0, "decode at %zu: %s", start, d.msg);
        r->off[r->n++] = start;
    }
    CHECK_EQ(rc, 0);
}

static void encode(struct run *r, const char *opts, unsigned xlen, const struct rvt_ing_rec *recs, size_t nrec)
{
    struct nt_cfg c;
    make_cfg(&c, opts, xlen);
    rvt_membuf_init(&r->buf);
    struct rvt_byte_sink sink = rvt_membuf_sink(&r->buf);
    struct nt_encoder *e;
    struct rvt_diag d;
    REQUIRE(nt_enc_new(&e, &c, &sink, &d) == 0);
    for (size_t i = 0; i < nrec; i++) {
        int rc = nt_enc_put(e, &recs[i]);
        CHECK_MSG(rc == 0, "record %zu: %s", i, nt_enc_error(e));
    }
    CHECK(nt_enc_finish(e) == 0);
    nt_enc_stats(e, &r->st);
    nt_enc_free(e);
    parse_all(r, &c);
}

static struct run g_run;

/* Seed 003 "Example of I-CNT Handling in BTM mode" and "... in HTM mode":
 * 0x100 c.add, 0x102 b 0x200, 0x106 add, 0x10A b 0x300, 0x10E c.add,
 * 0x110 add, 0x114 c.ebreak; 0x200 c.add, 0x202 c.ebreak; 0x300 add,
 * 0x304 c.ebreak.  The ebreak enters debug mode without retiring. */
static void test_icnt_examples(void)
{
    struct run *r = &g_run;
    const struct rvt_ing_rec run1[] = {R(0x100, 3, 1, RVT_ITYPE_TAKEN), R(0x200, 1, 0, RVT_ITYPE_NONE)};
    const struct rvt_ing_rec run2[] = {R(0x100, 3, 1, RVT_ITYPE_NOT_TAKEN), R(0x106, 4, 1, RVT_ITYPE_TAKEN),
                                       R(0x300, 2, 1, RVT_ITYPE_NONE)};
    const struct rvt_ing_rec run3[] = {R(0x100, 3, 1, RVT_ITYPE_NOT_TAKEN), R(0x106, 4, 1, RVT_ITYPE_NOT_TAKEN),
                                       R(0x10E, 3, 1, RVT_ITYPE_NONE)};

    /* BTM run 1: ProgTraceSync I-CNT=0 F-ADDR=0x80, DirectBranch I-CNT=3, ProgTraceCorrelation I-CNT=1. */
    encode(r, "ntrace-mode=btm", 64, run1, 2);
    REQUIRE(r->n == 3);
    CHECK_EQ(r->m[0].tcode, NT_TC_PROG_TRACE_SYNC);
    CHECK_EQ(r->m[0].v[NT_F_ICNT], 0);
    CHECK_EQ(r->m[0].v[NT_F_FADDR], 0x80);
    CHECK_EQ(r->m[1].tcode, NT_TC_DIRECT_BRANCH);
    CHECK_EQ(r->m[1].v[NT_F_ICNT], 3);
    CHECK_EQ(r->m[2].tcode, NT_TC_PROG_TRACE_CORRELATION);
    CHECK_EQ(r->m[2].v[NT_F_CDF], 0);
    CHECK_EQ(r->m[2].v[NT_F_ICNT], 1);
    CHECK(!nt_has(&r->m[2], NT_F_HIST));
    rvt_membuf_free(&r->buf);
    /* BTM run 2: DirectBranch I-CNT=7, then I-CNT=2. */
    encode(r, "ntrace-mode=btm", 64, run2, 3);
    REQUIRE(r->n == 3);
    CHECK_EQ(r->m[1].v[NT_F_ICNT], 7);
    CHECK_EQ(r->m[2].v[NT_F_ICNT], 2);
    rvt_membuf_free(&r->buf);
    /* BTM run 3: only ProgTraceCorrelation I-CNT=10. */
    encode(r, "ntrace-mode=btm", 64, run3, 3);
    REQUIRE(r->n == 2);
    CHECK_EQ(r->m[1].tcode, NT_TC_PROG_TRACE_CORRELATION);
    CHECK_EQ(r->m[1].v[NT_F_ICNT], 10);
    rvt_membuf_free(&r->buf);

    /* HTM: I-CNT=4 HIST=0x3; I-CNT=9 HIST=0x5; I-CNT=10 HIST=0x4. */
    encode(r, "ntrace-mode=htm", 64, run1, 2);
    REQUIRE(r->n == 2);
    CHECK_EQ(r->m[1].v[NT_F_CDF], 1);
    CHECK_EQ(r->m[1].v[NT_F_ICNT], 4);
    CHECK_EQ(r->m[1].v[NT_F_HIST], 0x3);
    rvt_membuf_free(&r->buf);
    encode(r, "ntrace-mode=htm", 64, run2, 3);
    REQUIRE(r->n == 2);
    CHECK_EQ(r->m[1].v[NT_F_ICNT], 9);
    CHECK_EQ(r->m[1].v[NT_F_HIST], 0x5);
    rvt_membuf_free(&r->buf);
    encode(r, "ntrace-mode=htm", 64, run3, 3);
    REQUIRE(r->n == 2);
    CHECK_EQ(r->m[1].v[NT_F_ICNT], 10);
    CHECK_EQ(r->m[1].v[NT_F_HIST], 0x4);
    rvt_membuf_free(&r->buf);
}

/* Seed 003 "Examples of I-CNT Field Full Generation": a 4-bit I-CNT
 * whose top bit is the overflow flag; one instruction per record. */
static void test_icnt_full_example(void)
{
    struct run *r = &g_run;
    const struct rvt_ing_rec recs[] = {
        R(0x100, 1, 0, RVT_ITYPE_NONE), R(0x102, 2, 1, RVT_ITYPE_NOT_TAKEN), R(0x106, 2, 1, RVT_ITYPE_NONE),
        R(0x10A, 2, 1, RVT_ITYPE_NONE), R(0x10E, 2, 1, RVT_ITYPE_NONE),      R(0x112, 2, 1, RVT_ITYPE_NONE),
        R(0x116, 2, 1, RVT_ITYPE_NONE), R(0x11A, 1, 0, RVT_ITYPE_NONE)};
    /* HTM with ResourceFull. */
    encode(r, "ntrace-mode=htm,icnt-bits=4,start-sync=3", 64, recs, 8);
    REQUIRE(r->n == 3);
    CHECK_EQ(r->m[0].tcode, NT_TC_PROG_TRACE_SYNC);
    CHECK_EQ(r->m[0].v[NT_F_SYNC], 3);
    CHECK_EQ(r->m[0].v[NT_F_ICNT], 0);
    CHECK_EQ(r->m[0].v[NT_F_FADDR], 0x80);
    CHECK_EQ(r->m[1].tcode, NT_TC_RESOURCE_FULL);
    CHECK_EQ(r->m[1].v[NT_F_RCODE], 0);
    CHECK_EQ(r->m[1].v[NT_F_RDATA], 9);
    CHECK_EQ(r->m[2].tcode, NT_TC_PROG_TRACE_CORRELATION);
    CHECK_EQ(r->m[2].v[NT_F_EVCODE], 0);
    CHECK_EQ(r->m[2].v[NT_F_CDF], 1);
    CHECK_EQ(r->m[2].v[NT_F_ICNT], 5);
    CHECK_EQ(r->m[2].v[NT_F_HIST], 0x2);
    rvt_membuf_free(&r->buf);
    /* BTM with SYNC=4 (Sequential Instruction Counter). */
    encode(r, "ntrace-mode=btm,icnt-bits=4,icnt-sync,start-sync=3", 64, recs, 8);
    REQUIRE(r->n == 3);
    CHECK_EQ(r->m[1].tcode, NT_TC_PROG_TRACE_SYNC);
    CHECK_EQ(r->m[1].v[NT_F_SYNC], NT_SYNC_ICNT);
    CHECK_EQ(r->m[1].v[NT_F_ICNT], 9);
    CHECK_EQ(r->m[1].v[NT_F_FADDR], 0x89);
    CHECK_EQ(r->m[2].v[NT_F_CDF], 0);
    CHECK_EQ(r->m[2].v[NT_F_ICNT], 5);
    rvt_membuf_free(&r->buf);
}

/* Seed 003 "Address XOR Calculation Examples". */
static void test_address_xor(void)
{
    struct run *r = &g_run;
    const struct rvt_ing_rec recs[] = {R(0x3FC04, 2, 1, RVT_ITYPE_JUMP_UNINF), R(0x3F368, 2, 1, RVT_ITYPE_JUMP_UNINF),
                                       R(0x3E100, 1, 0, RVT_ITYPE_NONE)};
    for (int mode = 0; mode < 2; mode++) {
        encode(r, mode ? "ntrace-mode=btm" : "ntrace-mode=htm", 32, recs, 3);
        REQUIRE(r->n == 4);
        CHECK_EQ(r->m[0].v[NT_F_FADDR], 0x1FE02);
        /* HTM with no branch outcomes sends IndirectBranch too. */
        CHECK_EQ(r->m[1].tcode, NT_TC_INDIRECT_BRANCH);
        CHECK_EQ(r->m[1].v[NT_F_UADDR], 0x7B6);
        CHECK_EQ(r->m[1].v[NT_F_ICNT], 2);
        CHECK_EQ(r->m[2].v[NT_F_UADDR], 0x934);
        /* The dump follows the chain. */
        struct nt_cfg c;
        make_cfg(&c, NULL, 32);
        uint64_t last = 0;
        char line[512];
        nt_msg_format(&c, &r->m[0], &last, line, sizeof line);
        CHECK_EQ(last, 0x3FC04);
        nt_msg_format(&c, &r->m[1], &last, line, sizeof line);
        CHECK_EQ(last, 0x3F368);
        nt_msg_format(&c, &r->m[2], &last, line, sizeof line);
        CHECK_EQ(last, 0x3E100);
        CHECK(strstr(line, "U-ADDR=0x934 -> 0x3e100") != NULL);
        rvt_membuf_free(&r->buf);
    }
}

/* Seed 003 "HIST Field Generation" examples: 101 (not taken, taken),
 * 1111 (three taken), 10000 (four not taken), 1 (none). */
static void test_hist_examples(void)
{
    struct run *r = &g_run;
    static const struct {
        const char *outcomes;
        uint64_t hist;
    } ex[] = {{"NT", 0x5}, {"TTT", 0xF}, {"NNNN", 0x10}, {"", 0x1}};
    for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
        struct rvt_ing_rec recs[8];
        size_t n = 0;
        uint64_t a = 0x1000;
        for (const char *p = ex[i].outcomes; *p; p++, a += 0x10)
            recs[n++] = R(a, 2, 1, *p == 'T' ? RVT_ITYPE_TAKEN : RVT_ITYPE_NOT_TAKEN);
        recs[n++] = R(a, 2, 1, RVT_ITYPE_JUMP_UNINF);
        recs[n++] = R(0x8000, 1, 0, RVT_ITYPE_NONE);
        encode(r, "ntrace-mode=htm", 64, recs, n);
        REQUIRE(r->n == 3);
        if (ex[i].hist == 1) {
            CHECK_EQ(r->m[1].tcode, NT_TC_INDIRECT_BRANCH);
        } else {
            CHECK_EQ(r->m[1].tcode, NT_TC_INDIRECT_BRANCH_HIST);
            CHECK_EQ(r->m[1].v[NT_F_HIST], ex[i].hist);
        }
        CHECK_EQ(r->m[1].v[NT_F_ICNT], 2 * (n - 1));
        CHECK_EQ(r->m[2].v[NT_F_HIST], 1);
        rvt_membuf_free(&r->buf);
    }
}

/* Rebuild the branch outcome sequence from HIST-carrying messages. */
static size_t outcomes_of(const struct run *r, char *out, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < r->n; i++) {
        const struct nt_msg *m = &r->m[i];
        uint64_t h = 0, rep = 1;
        if (m->tcode == NT_TC_RESOURCE_FULL && m->v[NT_F_RCODE] != NT_RCODE_ICNT) {
            h = m->v[NT_F_RDATA];
            if (m->v[NT_F_RCODE] == NT_RCODE_HIST_REPEAT)
                rep = m->v[NT_F_HREPEAT];
        } else if (nt_has(m, NT_F_HIST)) {
            h = m->v[NT_F_HIST];
        } else {
            continue;
        }
        unsigned nb = 63u - (unsigned)__builtin_clzll(h);
        for (uint64_t j = 0; j < rep; j++)
            for (unsigned b = nb; b-- > 0;)
                if (k < cap)
                    out[k++] = ((h >> b) & 1) ? 'T' : 'N';
    }
    return k;
}

/* HIST full (ResourceFull RCODE 1) and repeated history (RCODE 2):
 * whatever grouping the encoder picks, the outcomes concatenate to the
 * executed sequence; the reference's choices are checked on patterns. */
static void test_hist_full_and_repeat(void)
{
    struct run *r = &g_run;
    enum { NB = 2000 };
    static struct rvt_ing_rec recs[NB + 2];
    static char seq[NB + 1], got[NB * 2];
    /* Periods that divide 31, 30 or 28 outcomes are found (the reference's
     * detector); a period of 21 is not; random outcomes never repeat. */
    static const struct {
        const char *pat;
        bool repeats;
    } pats[] = {{"N", true},        {"T", true},      {"NT", true},      {"TTN", true},
                {"NNTNTTT", true},  {"NNNTTNTNTTTNNNTNTNTTT", false}, {NULL, false}};
    for (size_t p = 0; p < sizeof pats / sizeof pats[0]; p++) {
        const char *pat = pats[p].pat;
        uint64_t s = 12345;
        for (int i = 0; i < NB; i++) {
            char o;
            if (pat) {
                o = pat[i % strlen(pat)];
            } else {
                s ^= s << 13, s ^= s >> 7, s ^= s << 17;
                o = (s & 1) ? 'T' : 'N';
            }
            seq[i] = o;
            recs[i] = R(0x1000 + 4u * (unsigned)i, 2, 1, o == 'T' ? RVT_ITYPE_TAKEN : RVT_ITYPE_NOT_TAKEN);
        }
        for (unsigned rep = 0; rep <= 3; rep++) {
            char opts[64];
            snprintf(opts, sizeof opts, "repeat=%u", rep);
            encode(r, opts, 64, recs, NB);
            size_t k = outcomes_of(r, got, sizeof got);
            CHECK_MSG(k == NB && memcmp(got, seq, NB) == 0, "pattern %zu repeat %u: outcomes differ (%zu)", p, rep, k);
            size_t rf = 0, rf2 = 0;
            for (size_t i = 0; i < r->n; i++) {
                if (r->m[i].tcode != NT_TC_RESOURCE_FULL)
                    continue;
                rf++;
                if (r->m[i].v[NT_F_RCODE] == NT_RCODE_HIST_REPEAT)
                    rf2++;
                else
                    CHECK_EQ(r->m[i].v[NT_F_RDATA] >> 31, 1); /* full: 31 outcomes + stop bit */
            }
            if (!(rep & 2)) {
                CHECK_EQ(rf, NB / 31);
                CHECK_EQ(rf2, 0);
            } else if (pats[p].repeats) {
                /* A periodic pattern collapses into one repeated message. */
                CHECK_MSG(rf2 == 1 && rf <= 2, "pattern %s: %zu ResourceFull, %zu repeated", pat, rf, rf2);
            } else {
                CHECK_MSG(rf2 == 0 && rf == NB / 31, "pattern %s: %zu ResourceFull, %zu repeated", pat ? pat : "random",
                          rf, rf2);
            }
            rvt_membuf_free(&r->buf);
        }
    }

    /* The reference's shorter-pattern choice: alternating outcomes repeat
     * with a period of 2, so 28 (tried before 30) outcomes per RDATA. */
    for (int i = 0; i < NB; i++)
        recs[i] = R(0x1000 + 4u * (unsigned)i, 2, 1, (i & 1) ? RVT_ITYPE_TAKEN : RVT_ITYPE_NOT_TAKEN);
    encode(r, "repeat=2", 64, recs, NB);
    REQUIRE(r->n >= 3);
    CHECK_EQ(r->m[1].tcode, NT_TC_RESOURCE_FULL);
    CHECK_EQ(r->m[1].v[NT_F_RCODE], NT_RCODE_HIST_REPEAT);
    CHECK_EQ(r->m[1].v[NT_F_RDATA], (1u << 28) | 0x5555555); /* N,T,N,T... oldest first */
    CHECK_EQ(r->m[1].v[NT_F_HREPEAT], NB / 28 - (NB % 28 < 6 ? 1 : 0));
    rvt_membuf_free(&r->buf);
}

/* Implicit return: a matching return sends nothing; a mismatch does. */
static void test_callstack(void)
{
    struct run *r = &g_run;
    /* 0x1000: jal f (4 bytes) -> 0x2000; f returns to 0x1004 (match), then
     * 0x1004: jal f -> 0x2000; f returns to 0x1100 (mismatch: longjmp). */
    const struct rvt_ing_rec recs[] = {
        R(0x1000, 2, 1, RVT_ITYPE_CALL_INF), R(0x2000, 3, 0, RVT_ITYPE_RETURN), R(0x1004, 2, 1, RVT_ITYPE_CALL_INF),
        R(0x2000, 3, 0, RVT_ITYPE_RETURN),   R(0x1100, 1, 0, RVT_ITYPE_NONE)};
    encode(r, "callstack=8", 64, recs, 5);
    /* PTS, IndirectBranch (second return, to 0x1100), PTC. */
    REQUIRE(r->n == 3);
    CHECK_EQ(r->m[1].tcode, NT_TC_INDIRECT_BRANCH);
    CHECK_EQ(r->m[1].v[NT_F_ICNT], 10);
    CHECK_EQ(r->m[1].v[NT_F_UADDR], (0x1000 ^ 0x1100) >> 1);
    rvt_membuf_free(&r->buf);
    /* No call stack: both returns are messages. */
    encode(r, "callstack=0", 64, recs, 5);
    CHECK_EQ(r->n, 4);
    rvt_membuf_free(&r->buf);
    /* Counter only: both returns implicit (the second is then wrong for a
     * decoder — the documented limit of that mode). */
    encode(r, "callstack=8,callstack-mode=count", 64, recs, 5);
    CHECK_EQ(r->n, 2);
    /* ... which the statistics say: the second return, at 0x2004 (the
     * 2-byte instruction after the 4-byte one at 0x2000, the sixth
     * instruction), went to 0x1100 where the stack predicts 0x1008; the
     * first went back to its caller. */
    CHECK_EQ(r->st.misled_returns, 1);
    CHECK_EQ(r->st.misled_at, 0x2004);
    CHECK_EQ(r->st.misled_to, 0x1100);
    CHECK_EQ(r->st.misled_predicted, 0x1008);
    CHECK_EQ(r->st.misled_insns, 6);
    char warning[1024];
    CHECK(rvt_codec_stats_warning(&r->st, warning, sizeof warning) > 0);
    CHECK_MSG(strstr(warning, "1 return did not go back to its caller (the first: the return at 0x2004, "
                              "instruction 6, went to 0x1100; the call stack predicts 0x1008)") != NULL,
              "%s", warning);
    rvt_membuf_free(&r->buf);
    /* With a sync message right after that return (due after 8
     * halfwords: the boundary after the 10th), its I-CNT ends at the return
     * and its address says where the return went: nothing misleads. */
    encode(r, "callstack=8,callstack-mode=count,sync-period=8", 64, recs, 5);
    CHECK_EQ(r->n, 3);
    CHECK_EQ(r->m[1].tcode, NT_TC_PROG_TRACE_SYNC);
    CHECK_EQ(r->m[1].v[NT_F_ICNT], 10);
    CHECK_EQ(r->st.misled_returns, 0);
    rvt_membuf_free(&r->buf);
    /* The stack of addresses reports the second return: nothing misleads. */
    encode(r, "callstack=8", 64, recs, 5);
    CHECK_EQ(r->st.misled_returns, 0);
    CHECK(rvt_codec_stats_warning(&r->st, warning, sizeof warning) == 0 && warning[0] == 0);
    rvt_membuf_free(&r->buf);
    /* Depth 1: an overflowed (dropped) entry makes the outer return explicit. */
    const struct rvt_ing_rec deep[] = {
        R(0x1000, 2, 1, RVT_ITYPE_CALL_INF), R(0x2000, 2, 1, RVT_ITYPE_CALL_INF), R(0x3000, 1, 0, RVT_ITYPE_RETURN),
        R(0x2004, 1, 0, RVT_ITYPE_RETURN),   R(0x1004, 1, 0, RVT_ITYPE_NONE)};
    encode(r, "callstack=1", 64, deep, 5);
    REQUIRE(r->n == 3);
    CHECK_EQ(r->m[1].tcode, NT_TC_INDIRECT_BRANCH);
    CHECK_EQ(r->m[1].v[NT_F_ICNT], 6);
    rvt_membuf_free(&r->buf);
    encode(r, "callstack=2", 64, deep, 5);
    CHECK_EQ(r->n, 2);
    rvt_membuf_free(&r->buf);
}

/* RepeatBranch: identical branch messages collapse. */
static void test_repeat_branch(void)
{
    struct run *r = &g_run;
    struct rvt_ing_rec recs[40];
    size_t n = 0;
    /* A loop of "jr a0" back to 0x4000 five times, then one to 0x5000. */
    for (int i = 0; i < 5; i++) {
        recs[n++] = R(0x4000, 2, 1, RVT_ITYPE_NOT_TAKEN);
        recs[n++] = R(0x4004, 1, 0, RVT_ITYPE_JUMP_UNINF);
    }
    recs[n++] = R(0x4000, 2, 1, RVT_ITYPE_TAKEN);
    recs[n++] = R(0x4100, 1, 0, RVT_ITYPE_JUMP_UNINF);
    recs[n++] = R(0x5000, 1, 0, RVT_ITYPE_NONE);
    encode(r, "repeat=1", 64, recs, n);
    /* PTS, IBH (to 0x4000), RepeatBranch 4, IBH (to 0x5000), PTC */
    REQUIRE(r->n == 5);
    CHECK_EQ(r->m[1].tcode, NT_TC_INDIRECT_BRANCH_HIST);
    CHECK_EQ(r->m[1].v[NT_F_ICNT], 3);
    CHECK_EQ(r->m[1].v[NT_F_HIST], 0x2);
    CHECK_EQ(r->m[1].v[NT_F_UADDR], 0);
    CHECK_EQ(r->m[2].tcode, NT_TC_REPEAT_BRANCH);
    CHECK_EQ(r->m[2].v[NT_F_BCNT], 4);
    CHECK_EQ(r->m[3].tcode, NT_TC_INDIRECT_BRANCH_HIST);
    CHECK_EQ(r->m[3].v[NT_F_HIST], 0x3);
    CHECK_EQ(r->m[3].v[NT_F_UADDR], (0x4000 ^ 0x5000) >> 1);
    CHECK_EQ(r->m[4].tcode, NT_TC_PROG_TRACE_CORRELATION);
    rvt_membuf_free(&r->buf);
    encode(r, "repeat=0", 64, recs, n);
    CHECK_EQ(r->n, 8);
    rvt_membuf_free(&r->buf);
}

/* Timestamps (absolute in sync messages, relative otherwise), SRC on every
 * message, traps with B-TYPE 2/3 (or 1), trap returns, and Ownership
 * after syncs and at privilege changes. */
static void test_fields_and_traps(void)
{
    struct run *r = &g_run;
    struct rvt_ing_rec recs[8];
    /* U code at 0x1000 (time 100) is interrupted before 0x1008, the M
     * handler at 0x8000 (time 130) returns with mret to 0x1008 (time 170);
     * then an exception at 0x100a (illegal, did not retire), handler again. */
    recs[0] = R(0x1000, 4, 1, RVT_ITYPE_NONE);
    recs[0].priv = RVT_PRIV_U;
    recs[1] = R(0x1008, 0, 1, RVT_ITYPE_INTERRUPT);
    recs[1].priv = RVT_PRIV_U;
    recs[2] = R(0x8000, 3, 1, RVT_ITYPE_TRAPRET);
    recs[3] = R(0x1008, 1, 0, RVT_ITYPE_NONE);
    recs[3].priv = RVT_PRIV_U;
    recs[4] = R(0x100a, 0, 1, RVT_ITYPE_EXCEPTION);
    recs[4].priv = RVT_PRIV_U;
    recs[5] = R(0x8000, 1, 0, RVT_ITYPE_NONE);
    static const uint64_t times[] = {100, 100, 130, 170, 175, 180};
    for (int i = 0; i < 6; i++) {
        recs[i].flags |= RVT_ING_HAS_TIME;
        recs[i].time = times[i];
    }
    encode(r, "timestamps,context,src-bits=5,src-id=21", 64, recs, 6);
    /* PTS, Ownership(U), IB(interrupt) ->0x8000, Ownership(M), IB(mret) ->0x1008,
     * Ownership(U), IB(exception) ->0x8000, Ownership(M), PTC */
    static const uint8_t tc[] = {NT_TC_PROG_TRACE_SYNC, NT_TC_OWNERSHIP, NT_TC_INDIRECT_BRANCH, NT_TC_OWNERSHIP,
                                 NT_TC_INDIRECT_BRANCH, NT_TC_OWNERSHIP, NT_TC_INDIRECT_BRANCH, NT_TC_OWNERSHIP,
                                 NT_TC_PROG_TRACE_CORRELATION};
    REQUIRE(r->n == sizeof tc);
    uint64_t now = 0;
    for (size_t i = 0; i < r->n; i++) {
        CHECK_EQ(r->m[i].tcode, tc[i]);
        CHECK_EQ(r->m[i].v[NT_F_SRC], 21);
        REQUIRE(nt_has(&r->m[i], NT_F_TSTAMP));
        now = nt_tcode_is_sync(r->m[i].tcode) ? r->m[i].v[NT_F_TSTAMP] : now + r->m[i].v[NT_F_TSTAMP];
        if (i == 0)
            CHECK_EQ(now, 100);
        if (i == 2)
            CHECK_EQ(now, 100); /* the interrupt came after the time-100 record */
        if (i == 4)
            CHECK_EQ(now, 130); /* the mret */
    }
    uint8_t priv;
    uint64_t ctx;
    bool has;
    CHECK(nt_process_decode(r->m[1].v[NT_F_PROCESS], &priv, &ctx, &has) && priv == RVT_PRIV_U && has);
    CHECK(nt_process_decode(r->m[3].v[NT_F_PROCESS], &priv, &ctx, &has) && priv == RVT_PRIV_M && !has);
    CHECK(nt_process_decode(r->m[5].v[NT_F_PROCESS], &priv, &ctx, &has) && priv == RVT_PRIV_U);
    CHECK_EQ(r->m[2].v[NT_F_BTYPE], NT_BTYPE_INTERRUPT);
    CHECK_EQ(r->m[2].v[NT_F_ICNT], 4);
    CHECK_EQ(r->m[4].v[NT_F_BTYPE], NT_BTYPE_INDIRECT);
    CHECK_EQ(r->m[4].v[NT_F_ICNT], 3);
    CHECK_EQ(r->m[6].v[NT_F_BTYPE], NT_BTYPE_EXCEPTION);
    CHECK_EQ(r->m[6].v[NT_F_ICNT], 1); /* the faulting instruction did not retire */
    rvt_membuf_free(&r->buf);

    /* B-TYPE 1 for every trap with btype-compat; no Ownership without context. */
    encode(r, "btype-compat", 64, recs, 6);
    REQUIRE(r->n == 5);
    CHECK_EQ(r->m[1].v[NT_F_BTYPE], NT_BTYPE_TRAP);
    CHECK_EQ(r->m[3].v[NT_F_BTYPE], NT_BTYPE_TRAP);
    CHECK(!nt_has(&r->m[1], NT_F_TSTAMP) && !nt_has(&r->m[1], NT_F_SRC));
    rvt_membuf_free(&r->buf);

    /* A context change on linear code is pinned by a sync (SYNC=6) then Ownership. */
    struct rvt_ing_rec lin[3] = {R(0x1000, 2, 1, RVT_ITYPE_NONE), R(0x1004, 2, 1, RVT_ITYPE_NONE),
                                 R(0x1008, 1, 0, RVT_ITYPE_NONE)};
    lin[1].context = 7;
    lin[1].ctype = RVT_CTYPE_PRECISE;
    lin[2].context = 7;
    encode(r, "context", 64, lin, 3);
    REQUIRE(r->n == 5);
    CHECK_EQ(r->m[2].tcode, NT_TC_PROG_TRACE_SYNC);
    CHECK_EQ(r->m[2].v[NT_F_SYNC], NT_SYNC_TRACE_EVENT);
    CHECK_EQ(r->m[2].v[NT_F_ICNT], 2);
    CHECK_EQ(r->m[2].v[NT_F_FADDR] << 1, 0x1004);
    CHECK(nt_process_decode(r->m[3].v[NT_F_PROCESS], &priv, &ctx, &has) && has && ctx == 7);
    rvt_membuf_free(&r->buf);
}

/* Periodic synchronisation: by halfwords and by messages; each sync
 * carries the full address and resets the U-ADDR reference. */
static void test_periodic_sync(void)
{
    struct run *r = &g_run;
    static struct rvt_ing_rec recs[400];
    for (int i = 0; i < 400; i += 2) {
        recs[i] = R(0x2000 + 0x100 * (unsigned)(i % 16), 8, 1, RVT_ITYPE_NOT_TAKEN);
        recs[i + 1] = R(0x2000 + 0x100 * (unsigned)(i % 16) + 16, 2, 1, RVT_ITYPE_JUMP_UNINF);
    }
    encode(r, "sync-period=100", 64, recs, 400);
    uint64_t since = 0, syncs = 0, last = 0;
    for (size_t i = 1; i + 1 < r->n; i++) {
        if (nt_tcode_is_sync(r->m[i].tcode)) {
            syncs++;
            CHECK_EQ(r->m[i].v[NT_F_SYNC], NT_SYNC_PERIODIC);
            CHECK_EQ(r->m[i].tcode, NT_TC_INDIRECT_BRANCH_HIST_SYNC);
            CHECK(since + r->m[i].v[NT_F_ICNT] >= 100);
            since = 0;
            last = r->m[i].v[NT_F_FADDR] << 1;
        } else {
            since += r->m[i].v[NT_F_ICNT];
            CHECK(since < 100 + 10);
            last ^= r->m[i].v[NT_F_UADDR] << 1;
            CHECK_EQ(last & 0xff, 0);
        }
    }
    CHECK(syncs >= 2000 / 100 - 2 && syncs <= 2000 / 100); /* 2000 halfwords in all */
    rvt_membuf_free(&r->buf);
    encode(r, "sync-msgs=10", 64, recs, 400);
    size_t count = 0;
    for (size_t i = 1; i < r->n; i++) {
        if (nt_tcode_is_sync(r->m[i].tcode)) {
            CHECK_EQ(count, 10);
            count = 0;
        } else {
            count++;
        }
    }
    rvt_membuf_free(&r->buf);
}

/* Filtered trace: unqualified records stop tracing (ProgTraceCorrelation
 * EVCODE 4 covering what was retired), the next qualified one restarts it
 * (ProgTraceSync SYNC=5); a notify request reports the address after its
 * record with a SYNC=6 message. */
static void test_filtered(void)
{
    struct run *r = &g_run;
    struct rvt_ing_rec recs[7] = {R(0x1000, 2, 1, RVT_ITYPE_TAKEN),   R(0x1100, 2, 1, RVT_ITYPE_NONE),
                                  R(0x1104, 4, 1, RVT_ITYPE_JUMP_UNINF), R(0x2000, 2, 1, RVT_ITYPE_NONE),
                                  R(0x2004, 2, 1, RVT_ITYPE_NOT_TAKEN), R(0x2008, 2, 1, RVT_ITYPE_NONE),
                                  R(0x200c, 1, 0, RVT_ITYPE_NONE)};
    recs[2].flags |= RVT_ING_UNQUALIFIED;
    recs[3].flags |= RVT_ING_UNQUALIFIED;
    recs[4].flags |= RVT_ING_NOTIFY;
    encode(r, "", 64, recs, 7);
    /* PTS(1), PTC(EVCODE 4: I-CNT 4, HIST 0x3), PTS(5) at 0x2004, PTS(6) at 0x2008 with I-CNT 2 HIST 0x2 -> an
     * IndirectBranchHistSync, PTC */
    REQUIRE(r->n == 5);
    CHECK_EQ(r->m[1].tcode, NT_TC_PROG_TRACE_CORRELATION);
    CHECK_EQ(r->m[1].v[NT_F_EVCODE], 4);
    CHECK_EQ(r->m[1].v[NT_F_ICNT], 4);
    CHECK_EQ(r->m[1].v[NT_F_HIST], 0x3);
    CHECK_EQ(r->m[2].tcode, NT_TC_PROG_TRACE_SYNC);
    CHECK_EQ(r->m[2].v[NT_F_SYNC], NT_SYNC_TRACE_ENABLE);
    CHECK_EQ(r->m[2].v[NT_F_FADDR] << 1, 0x2004);
    CHECK_EQ(r->m[3].tcode, NT_TC_INDIRECT_BRANCH_HIST_SYNC);
    CHECK_EQ(r->m[3].v[NT_F_SYNC], NT_SYNC_TRACE_EVENT);
    CHECK_EQ(r->m[3].v[NT_F_BTYPE], 0);
    CHECK_EQ(r->m[3].v[NT_F_FADDR] << 1, 0x2008);
    CHECK_EQ(r->m[4].v[NT_F_EVCODE], 0);
    CHECK_EQ(r->m[4].v[NT_F_ICNT], 3);
    rvt_membuf_free(&r->buf);
    /* Seed 003's corner cases.  "Trace starts disabled: ProgTraceCorrelation
     * with EVCODE=4 (Trace Disabled).  Once trace is enabled message with
     * SYNC=5 (Trace Enable)." */
    encode(r, "", 64, recs + 2, 3);
    REQUIRE(r->n == 3); /* (the notify on the last record has no next address to report) */
    CHECK_EQ(r->m[0].tcode, NT_TC_PROG_TRACE_CORRELATION);
    CHECK_EQ(r->m[0].v[NT_F_EVCODE], 4);
    CHECK_EQ(r->m[0].v[NT_F_ICNT], 0);
    CHECK_EQ(r->m[0].v[NT_F_CDF], 1);
    CHECK_EQ(r->m[0].v[NT_F_HIST], 1);
    CHECK_EQ(r->m[1].tcode, NT_TC_PROG_TRACE_SYNC);
    CHECK_EQ(r->m[1].v[NT_F_SYNC], NT_SYNC_TRACE_ENABLE);
    CHECK_EQ(r->m[1].v[NT_F_FADDR] << 1, 0x2004);
    CHECK_EQ(r->m[2].v[NT_F_EVCODE], 0);
    rvt_membuf_free(&r->buf);
    /* "Hart halted with trace disabled: ProgTraceCorrelation with EVCODE=0
     * (Enter Debug mode) and I-CNT=0 (nothing executed)." */
    recs[1].flags |= RVT_ING_UNQUALIFIED;
    encode(r, "ntrace-mode=btm", 64, recs, 4);
    REQUIRE(r->n == 3);
    CHECK_EQ(r->m[1].v[NT_F_EVCODE], 4);
    CHECK_EQ(r->m[1].v[NT_F_ICNT], 2);
    CHECK_EQ(r->m[2].tcode, NT_TC_PROG_TRACE_CORRELATION);
    CHECK_EQ(r->m[2].v[NT_F_EVCODE], 0);
    CHECK_EQ(r->m[2].v[NT_F_ICNT], 0);
    CHECK_EQ(r->m[2].v[NT_F_CDF], 0);
    rvt_membuf_free(&r->buf);
    /* Never enabled: both, and nothing else. */
    encode(r, "", 64, recs + 1, 3);
    REQUIRE(r->n == 2);
    CHECK_EQ(r->m[0].v[NT_F_EVCODE], 4);
    CHECK_EQ(r->m[1].v[NT_F_EVCODE], 0);
    CHECK_EQ(r->m[1].v[NT_F_ICNT], 0);
    rvt_membuf_free(&r->buf);
    /* --end-evcode 4: a trace disabled at the end says nothing more. */
    encode(r, "end-evcode=4", 64, recs, 4);
    REQUIRE(r->n == 2);
    CHECK_EQ(r->m[1].v[NT_F_EVCODE], 4);
    rvt_membuf_free(&r->buf);
}

/* Option parsing and the decoder's flow settings. */
static void test_options(void)
{
    struct nt_cfg c;
    struct rvt_diag d;
    static const struct {
        const char *val;
        enum rvt_flow_ecall mode;
    } ec[] = {{"uninferable", RVT_FLOW_ECALL_UNINFERABLE}, {"sequential", RVT_FLOW_ECALL_SEQUENTIAL},
              {"trap", RVT_FLOW_ECALL_TRAP}};
    for (size_t i = 0; i < 3; i++) {
        nt_cfg_init(&c);
        CHECK(nt_cfg_set(&c, "ecall", ec[i].val, &d) == 0);
        CHECK_EQ(c.ecall, ec[i].mode);
        struct rvt_flow_config fc;
        memset(&fc, 0, sizeof fc);
        rvt_codec_ntrace.flow_config(&c, &fc);
        CHECK_EQ(fc.ecall, ec[i].mode);
        CHECK(fc.pop_on_explicit_return);
        CHECK_EQ(fc.callstack_depth, RVT_CALLSTACK_MAX);
    }
    nt_cfg_init(&c);
    CHECK_EQ(c.ecall, RVT_FLOW_ECALL_SEQUENTIAL);
    CHECK(nt_cfg_set(&c, "ecall", "maybe", &d) < 0);
    CHECK(nt_cfg_set(&c, "ntrace-mode", "btm", &d) == 0 && c.mode == NT_MODE_BTM);
    CHECK(nt_cfg_set(&c, "callstack", "1025", &d) < 0);
    CHECK(nt_cfg_set(&c, "src-bits", "13", &d) < 0);
    CHECK(nt_cfg_set(&c, "repeat", "2", &d) == 0);
    CHECK(nt_cfg_finish(&c, 64, NULL, &d) < 0); /* repeated history needs HTM */
    CHECK(strstr(d.msg, "htm") != NULL);
    CHECK(nt_cfg_set(&c, "bogus", "1", &d) < 0);
    CHECK(strstr(d.msg, "bogus") != NULL);
    /* Every option in the table is accepted by cfg_set. */
    for (const struct rvt_codec_opt *o = rvt_codec_ntrace.options; o->name; o++) {
        nt_cfg_init(&c);
        const char *v = o->arg ? (strchr(o->arg, '|') ? NULL : "1") : "1";
        char first[32];
        if (!v) {
            snprintf(first, sizeof first, "%.*s", (int)strcspn(o->arg, "|"), o->arg);
            v = first;
        }
        CHECK_MSG(nt_cfg_set(&c, o->name, v, &d) == 0, "--%s %s: %s", o->name, v, d.msg);
        CHECK(o->help && strlen(o->help) > 10);
    }
}

/* The fast paths (nt_enc_put's one record, nt_enc_put_plain's runs, as
 * rvt_encode_stream hands batches) against the general path alone: the
 * same bytes and counts for random executions with every kind of record
 * that stops a run (branches in BTM, a full HIST or I-CNT, a sync period
 * or message count reached, a privilege or context change, flags, jumps,
 * traps, filtered stretches, merged records) under the options that
 * change what is due. */
static uint64_t g_rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    return rvt_test_xorshift(&g_rng);
}

static size_t random_exec(struct rvt_ing_rec *recs, size_t cap)
{
    static const uint8_t itypes[] = {RVT_ITYPE_NOT_TAKEN, RVT_ITYPE_TAKEN,     RVT_ITYPE_TRAPRET,
                                     RVT_ITYPE_CALL_INF,  RVT_ITYPE_CALL_UNINF, RVT_ITYPE_JUMP_INF,
                                     RVT_ITYPE_JUMP_UNINF, RVT_ITYPE_RETURN,   RVT_ITYPE_COSWAP,
                                     RVT_ITYPE_EXCEPTION, RVT_ITYPE_INTERRUPT, RVT_ITYPE_OTHER_UNINF};
    uint64_t pc = 0x1000, ctx = 0;
    uint8_t priv = RVT_PRIV_M;
    for (size_t i = 0; i < cap; i++) {
        uint64_t x = rnd();
        uint8_t size = (x & 3) ? 1 : 0;
        struct rvt_ing_rec r = R(pc, 1u << size, size, RVT_ITYPE_NONE);
        if ((x >> 2) % 4 == 0) /* a branch most often, a jump, trap or return sometimes */
            r.itype = (x >> 8) % 3 ? (uint8_t)(RVT_ITYPE_NOT_TAKEN + ((x >> 12) & 1)) : itypes[(x >> 16) % 12];
        if ((x >> 20) % 64 == 0)
            r.iretire += 2 * (uint32_t)((x >> 26) % 5); /* merged */
        if ((x >> 30) % 200 == 0)
            priv = priv == RVT_PRIV_M ? RVT_PRIV_U : RVT_PRIV_M;
        if ((x >> 38) % 300 == 0)
            ctx++;
        if ((x >> 47) % 150 == 0)
            r.flags = (uint16_t)((x >> 55) & 1 ? RVT_ING_NOTIFY : RVT_ING_UNQUALIFIED);
        if ((x >> 56) % 100 == 0) {
            r.flags |= RVT_ING_HAS_TIME;
            r.time = i * 3;
        }
        r.priv = priv;
        r.context = ctx;
        r.ctype = RVT_CTYPE_PRECISE;
        recs[i] = r;
        pc = r.itype == RVT_ITYPE_NONE || r.itype == RVT_ITYPE_NOT_TAKEN ? rvt_ing_next_addr(&r)
                                                                        : 0x1000 + ((x >> 40) % 64) * 4;
    }
    return cap;
}

/* how: 0 the general path alone, 1 nt_enc_put per record, 2 runs of
 * random lengths through nt_enc_put_plain, 3 the same in short
 * (nt_enc_put_short: the records that can be, with the privilege and
 * context of their batch's first record), as rvt_encode_stream feeds a
 * reader's short batches. */
static void encode_how(struct rvt_membuf *out, struct rvt_codec_stats *st, const char *opts,
                       const struct rvt_ing_rec *recs, size_t nrec, int how)
{
    struct nt_cfg c;
    make_cfg(&c, opts, 64);
    rvt_membuf_init(out);
    struct rvt_byte_sink sink = rvt_membuf_sink(out);
    struct nt_encoder *e;
    struct rvt_diag d;
    REQUIRE(nt_enc_new(&e, &c, &sink, &d) == 0);
    if (how == 0)
        nt_enc_general_only(e);
    static struct rvt_ing_fast fs[300];
    for (size_t i = 0; i < nrec;) {
        if (how == 2) {
            size_t n = 1 + rnd() % 300;
            if (n > nrec - i)
                n = nrec - i;
            size_t k = nt_enc_put_plain(e, recs + i, n);
            CHECK(k <= n);
            if ((i += k) == nrec)
                break;
        } else if (how == 3) {
            size_t n = 1 + rnd() % 300;
            if (n > nrec - i)
                n = nrec - i;
            for (size_t j = 0; j < n; j++)
                fs[j] = rvt_test_in_short(&recs[i + j], recs[i].priv, recs[i].context);
            size_t k = fs[0].len ? nt_enc_put_short(e, fs, n, recs[i].priv, recs[i].context) : 0;
            CHECK(k <= n);
            for (size_t j = 0; j < k; j++)
                CHECK(fs[j].len != 0);
            if ((i += k) == nrec)
                break;
        }
        int rc = nt_enc_put(e, &recs[i]);
        CHECK_MSG(rc == 0, "record %zu: %s", i, nt_enc_error(e));
        i++;
    }
    CHECK(nt_enc_finish(e) == 0);
    nt_enc_stats(e, st);
    nt_enc_free(e);
}

static void test_fast_paths(void)
{
    static const char *const opts[] = {
        "",
        "ntrace-mode=htm",
        "ntrace-mode=htm,repeat=3,callstack=8",
        "ntrace-mode=htm,hist-bits=3,repeat=2",
        "ntrace-mode=htm,icnt-bits=4",
        "ntrace-mode=btm,icnt-bits=3,icnt-sync",
        "ntrace-mode=htm,sync-period=37",
        "ntrace-mode=htm,sync-msgs=5,timestamps",
        "ntrace-mode=htm,context",
        "ntrace-mode=btm,sync-period=100,context,timestamps",
    };
    enum { N = 20000 };
    static struct rvt_ing_rec recs[N], recs0[N];
    random_exec(recs, N);
    for (size_t i = 0; i < N; i++) {
        recs0[i] = recs[i];
        recs0[i].ctype = RVT_CTYPE_UNREPORTED;
    }
    size_t plain_runs = 0;
    for (size_t o = 0; o < sizeof opts / sizeof opts[0]; o++) {
        struct rvt_membuf ref, one, runs, shorts;
        struct rvt_codec_stats s0, s1, s2, s3;
        encode_how(&ref, &s0, opts[o], recs, N, 0);
        encode_how(&one, &s1, opts[o], recs, N, 1);
        encode_how(&runs, &s2, opts[o], recs, N, 2);
        CHECK_MSG(ref.len > 100, "%s: %zu bytes", opts[o], ref.len);
        CHECK_MSG(one.len == ref.len && !memcmp(one.data, ref.data, ref.len), "%s: nt_enc_put differs", opts[o]);
        CHECK_MSG(runs.len == ref.len && !memcmp(runs.data, ref.data, ref.len), "%s: nt_enc_put_plain differs",
                  opts[o]);
        CHECK_MSG(!memcmp(&s0, &s1, sizeof s0) && !memcmp(&s0, &s2, sizeof s0), "%s: counts differ", opts[o]);
        rvt_membuf_free(&ref);
        /* In short: records of the context type a short one has (0),
         * which the general path and the short ones must encode alike,
         * privilege and context changes among them. */
        encode_how(&ref, &s0, opts[o], recs0, N, 0);
        encode_how(&shorts, &s3, opts[o], recs0, N, 3);
        CHECK_MSG(shorts.len == ref.len && !memcmp(shorts.data, ref.data, ref.len), "%s: nt_enc_put_short differs",
                  opts[o]);
        CHECK_MSG(!memcmp(&s0, &s3, sizeof s0), "%s: counts differ in short", opts[o]);
        rvt_membuf_free(&shorts);
        rvt_membuf_free(&ref);
        rvt_membuf_free(&one);
        rvt_membuf_free(&runs);
    }
    /* The runs are taken at all (else the comparison proves nothing). */
    struct nt_cfg c;
    make_cfg(&c, "ntrace-mode=htm", 64);
    struct rvt_membuf b;
    rvt_membuf_init(&b);
    struct rvt_byte_sink sink = rvt_membuf_sink(&b);
    struct nt_encoder *e;
    struct rvt_diag d;
    REQUIRE(nt_enc_new(&e, &c, &sink, &d) == 0);
    for (size_t i = 0; i < N;) {
        size_t k = nt_enc_put_plain(e, recs + i, N - i);
        plain_runs += k;
        if ((i += k) == N)
            break;
        CHECK(nt_enc_put(e, &recs[i]) == 0);
        i++;
    }
    nt_enc_free(e);
    rvt_membuf_free(&b);
    CHECK_MSG(plain_runs > N / 2, "%zu of %d records taken in runs", plain_runs, (int)N);
}

int main(void)
{
    test_fast_paths();
    test_options();
    test_fields_and_traps();
    test_periodic_sync();
    test_filtered();
    test_icnt_examples();
    test_icnt_full_example();
    test_address_xor();
    test_hist_examples();
    test_hist_full_and_repeat();
    test_callstack();
    test_repeat_branch();
    return rvt_test_summary("ntrace_encoder");
}
