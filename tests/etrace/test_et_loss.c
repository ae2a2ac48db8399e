/* E-Trace when the byte sink refuses bytes (a full FIFO, a RAM sink that
 * stops when full).
 *
 * The encoder then owes a trace_lost support packet and offers it in place
 * of the next packet it produces, until the sink takes it; a sync packet
 * follows.  The statistics count what the encoder produced, each packet
 * once (the packets it kept producing while the sink refused them
 * included: what it would have produced without the overflow), and `lost`
 * the bytes of them the sink did not take, so bytes - lost is what the
 * sink holds.  Refused offers of the owed packet are not packets.
 *
 * Checked on the t1 execution: against the loss-free encode (a sink that
 * never takes bytes again leaves the produced stream exactly the loss-free
 * one), the number of sink writes (one offer per produced packet, not one
 * per instruction), a refusal window (the loss is reported where the sink
 * takes bytes again, then a sync), and a packet cut by the sink (its rest
 * goes first when the sink takes bytes again, so the stream stays
 * parseable). */
#include "etrace/encoder.h"
#include "etrace/etrace.h"
#include "roundtrip.h"
#include "testlib.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

extern const struct rvt_codec rvt_codec_etrace;

/* A sink that takes at most `cap` bytes (0: any number) and then refuses
 * everything (writes [from, to) are refused whole, as a FIFO without room
 * for a packet; a write crossing `cut` is accepted up to it, then the next
 * `refuse_after_cut` writes are refused); it counts its write calls. */
struct tsink {
    struct rvt_membuf mb;
    uint64_t calls, from, to;
    size_t cap;
    size_t cut;
    unsigned refuse_after_cut, refusing;
    bool did_cut;
};

static long tsink_write(void *ctx, const uint8_t *p, size_t n)
{
    struct tsink *s = ctx;
    uint64_t k = s->calls++;
    if (k >= s->from && k < s->to)
        return 0;
    if (s->refusing) {
        s->refusing--;
        return 0;
    }
    size_t take = n;
    if (s->cap && s->mb.len + take > s->cap)
        take = s->cap - s->mb.len;
    if (s->cut && !s->did_cut && s->mb.len + take > s->cut) {
        take = s->cut - s->mb.len;
        s->did_cut = true;
        s->refusing = s->refuse_after_cut;
    }
    if (take && rvt_membuf_append(&s->mb, p, take) < 0)
        return -RVT_ERR_NOMEM;
    return (long)take;
}

struct run {
    struct rvt_codec_stats st;
    uint64_t observed; /* packets the encoder's observer saw */
    uint64_t calls;
    uint8_t *bytes;
    size_t len;
};

static void observe(void *ctx, const struct et_packet *k, unsigned full, unsigned sent)
{
    (void)k;
    (void)full;
    (void)sent;
    ((struct run *)ctx)->observed++;
}

static bool encode(const struct rvt_recs *recs, const struct et_params *p, struct tsink *s, struct run *r)
{
    memset(r, 0, sizeof *r);
    rvt_membuf_init(&s->mb);
    struct rvt_byte_sink sink = {tsink_write, s};
    struct et_encoder *e;
    struct rvt_diag d = {0};
    if (et_enc_new(&e, p, &sink, &d) < 0) {
        rvt_test_fail(__FILE__, __LINE__, "et_enc_new: %s", d.msg);
        return false;
    }
    et_enc_set_observer(e, observe, r);
    int rc = 0;
    for (size_t i = 0; i < recs->n && rc == 0; i++)
        rc = et_enc_put(e, &recs->r[i]);
    if (rc == 0)
        rc = et_enc_finish(e);
    CHECK_MSG(rc == 0, "encode: %s", et_enc_error(e));
    et_enc_stats(e, &r->st);
    et_enc_free(e);
    r->calls = s->calls;
    r->bytes = s->mb.data;
    r->len = s->mb.len;
    return rc == 0;
}

/* The packets of a stream (null frames skipped). */
struct pkts {
    struct et_packet k[4096];
    size_t n;
    bool error;
};

static void parse(const struct et_params *p, const uint8_t *buf, size_t len, struct pkts *out)
{
    struct et_deframer df;
    et_deframer_init(&df, p, buf, len);
    struct et_frame fr;
    struct rvt_diag d = {0};
    out->n = 0;
    out->error = false;
    int rc;
    while ((rc = et_deframer_next(&df, &fr, &d)) > 0) {
        if (fr.is_null)
            continue;
        struct et_packet k;
        if (et_pkt_unpack_bits(p, fr.msg, &fr.bits, &k, &d) < 0) {
            out->error = true;
            return;
        }
        if (out->n < sizeof out->k / sizeof out->k[0])
            out->k[out->n++] = k;
    }
    if (rc < 0 && rc != -RVT_ERR_TRUNCATED)
        out->error = true;
}

static bool is_lost(const struct et_params *p, const struct et_packet *k)
{
    bool support = k->msg == ET_MSG_TE_SUPPORT || (k->format == ET_F3 && k->subformat == ET_SF_SUPPORT);
    /* (0.026 has no trace_lost: its te_support says ended) */
    return support && k->ienable &&
           k->qual_status == (p->version == ET_V0_026 ? ET_QUAL_ENDED_REP : ET_QUAL_TRACE_LOST);
}

/* Decode: errors and lost gaps. */
struct dres {
    unsigned errors, lost, off, insns;
};
static int d_block(void *ctx, const struct rvt_block *b)
{
    ((struct dres *)ctx)->insns += b->ninsns;
    return 0;
}
static int d_note(void *ctx, const struct rvt_note *n)
{
    struct dres *r = ctx;
    if (n->kind == RVT_NOTE_ERROR)
        r->errors++;
    else if (n->kind == RVT_NOTE_GAP && n->reason == RVT_GAP_LOST)
        r->lost++;
    else if (n->kind == RVT_NOTE_GAP && n->reason == RVT_GAP_TRACE_OFF)
        r->off++;
    return 0;
}

static void decode(void *cfg, const struct rvt_image *img, const uint8_t *buf, size_t len, struct dres *r)
{
    memset(r, 0, sizeof *r);
    struct rvt_flow_sink fs = {.block = d_block, .note = d_note, .ctx = r};
    struct rvt_diag d = {0};
    CHECK_MSG(rvt_decode_buffer(&rvt_codec_etrace, cfg, img, -1, buf, len, &fs, &d) == 0, "decode: %s", d.msg);
    if (((struct et_config *)cfg)->p.version == ET_V0_026) {
        /* the draft cannot say "lost": its support packet says tracing ended */
        r->lost += r->off;
        r->off = 0;
    }
}

static void run_set(const char *name, const char *const *opts, const struct rvt_image *img,
                    const struct rvt_recs *recs)
{
    void *cfg = rvt_codec_cfg_new(&rvt_codec_etrace);
    struct rvt_diag d = {0};
    for (const char *const *o = opts; *o; o += 2)
        CHECK_MSG(rvt_codec_etrace.cfg_set(cfg, o[0], o[1], &d) == 0, "%s: %s", name, d.msg);
    REQUIRE(rvt_codec_etrace.cfg_finish(cfg, rvt_img_xlen(img), img, &d) == 0);
    const struct et_params *p = &((struct et_config *)cfg)->p;
    static struct pkts pk;

    /* Loss free: everything produced is in the sink, one write per packet
     * (and per synchronisation sequence). */
    struct tsink s0 = {0};
    struct run r0;
    REQUIRE(encode(recs, p, &s0, &r0));
    parse(p, r0.bytes, r0.len, &pk);
    CHECK(!pk.error);
    CHECK_EQ(r0.st.lost, 0);
    CHECK_EQ(r0.st.bytes, r0.len);
    CHECK_EQ(r0.st.packets, pk.n);
    CHECK_EQ(r0.observed, pk.n);
    const uint64_t L = r0.len, P = r0.st.packets, W = r0.calls;
    printf("  %-8s loss free: %" PRIu64 " bytes, %" PRIu64 " packets, %" PRIu64 " writes\n", name, L, P, W);

    /* A sink that takes 1024 bytes (cutting the packet that crosses the
     * limit) and nothing after: the encoder produces exactly the loss-free
     * stream, the sink holds 1024 bytes of it, the rest is lost; the owed
     * support packet is offered once per packet produced. */
    struct tsink s1 = {.cap = 1024};
    struct run r1;
    REQUIRE(encode(recs, p, &s1, &r1));
    CHECK_EQ(r1.len, 1024);
    CHECK_MSG(r1.st.bytes == L && r1.st.packets == P, "%s: stop at 1024 bytes: %" PRIu64 " bytes, %" PRIu64
              " packets produced; loss free %" PRIu64 ", %" PRIu64, name, r1.st.bytes, r1.st.packets, L, P);
    CHECK_MSG(r1.st.lost == L - 1024, "%s: %" PRIu64 " bytes lost, expected %" PRIu64, name, r1.st.lost, L - 1024);
    CHECK_EQ(r1.observed, r1.st.packets);
    CHECK_MSG(memcmp(r1.bytes, r0.bytes, 1024) == 0, "%s: the bytes before the overflow differ", name);
    CHECK_MSG(r1.calls <= W + P, "%s: %" PRIu64 " sink writes (loss free %" PRIu64 ", %" PRIu64 " packets)", name,
              r1.calls, W, P);
    free(r1.bytes);

    /* Writes refused for a while (a FIFO that overflows, then drains): the
     * first packet the sink takes afterwards is the support packet, then a
     * sync; bytes - lost is what the sink holds; one lost gap. */
    uint64_t win[][2] = {{W / 3, W / 3 + W / 20 + 1}, {W / 2, W / 2 + 1}};
    for (unsigned w = 0; w < 2; w++) {
        struct tsink s2 = {.from = win[w][0], .to = win[w][1]};
        struct run r2;
        REQUIRE(encode(recs, p, &s2, &r2));
        CHECK_MSG(r2.st.bytes - r2.st.lost == r2.len, "%s: window %u: %" PRIu64 " bytes produced, %" PRIu64
                  " lost, the sink holds %zu", name, w, r2.st.bytes, r2.st.lost, r2.len);
        CHECK(r2.st.lost > 0);
        CHECK_EQ(r2.observed, r2.st.packets);
        parse(p, r2.bytes, r2.len, &pk);
        CHECK(!pk.error);
        size_t i = 0;
        while (i < pk.n && !is_lost(p, &pk.k[i]))
            i++;
        CHECK_MSG(i + 1 < pk.n, "%s: window %u: no lost support packet in %zu packets", name, w, pk.n);
        if (i + 1 < pk.n)
            CHECK_MSG(pk.k[i + 1].format == ET_F3 &&
                          (pk.k[i + 1].subformat == ET_SF_START || pk.k[i + 1].subformat == ET_SF_TRAP),
                      "%s: window %u: %s after the lost support packet", name, w, et_pkt_name(&pk.k[i + 1], false));
        /* produced: what was taken plus the packets dropped while the
         * sink refused them (at most the loss-free encode's) */
        CHECK_MSG(r2.st.packets >= pk.n && r2.st.packets <= pk.n + P, "%s: window %u: %" PRIu64
                  " packets produced, %zu in the sink", name, w, r2.st.packets, pk.n);
        CHECK_MSG(r2.calls <= W + 2 * P, "%s: window %u: %" PRIu64 " writes", name, w, r2.calls);
        struct dres dr;
        decode(cfg, img, r2.bytes, r2.len, &dr);
        CHECK_MSG(dr.errors == 0 && dr.lost == 1, "%s: window %u: %u errors, %u lost gaps", name, w, dr.errors,
                  dr.lost);
        free(r2.bytes);
    }

    /* The sink cuts a packet, refuses a few writes, then takes bytes
     * again: the rest of the cut packet goes first, so the stream parses
     * and decodes with one lost gap. */
    struct tsink s3 = {.cut = (size_t)(L / 2) + 1, .refuse_after_cut = 5};
    struct run r3;
    REQUIRE(encode(recs, p, &s3, &r3));
    CHECK(s3.did_cut);
    CHECK_MSG(r3.st.bytes - r3.st.lost == r3.len, "%s: cut: %" PRIu64 " bytes produced, %" PRIu64
              " lost, the sink holds %zu", name, r3.st.bytes, r3.st.lost, r3.len);
    parse(p, r3.bytes, r3.len, &pk);
    CHECK_MSG(!pk.error, "%s: the stream after a cut packet does not parse", name);
    struct dres dr;
    decode(cfg, img, r3.bytes, r3.len, &dr);
    CHECK_MSG(dr.errors == 0 && dr.lost == 1, "%s: cut: %u errors, %u lost gaps", name, dr.errors, dr.lost);
    free(r3.bytes);

    free(r0.bytes);
    rvt_codec_cfg_free(cfg);
}

int main(void)
{
    char *elf = rvt_test_data("ntrace-t1/test.elf"), *pcs = rvt_test_data("ntrace-t1/test-PCONLY.txt");
    struct rvt_image *img = rvt_img_new();
    struct rvt_recs recs = {0};
    struct rvt_diag d = {0};
    if (rvt_img_load_elf(img, elf) < 0 || rvt_recs_load(&recs, pcs, img, &d) < 0) {
        rvt_test_fail(__FILE__, __LINE__, "t1: %s %s", rvt_img_error(img), d.msg);
    } else {
        const char *const defaults[] = {NULL};
        const char *const fixed[] = {"implicit-return", "fixed", "resync-max", "0", NULL};
        const char *const refraw[] = {"framing", "refraw", "branch-prediction", "1", NULL};
        const char *const v026[] = {"etrace-version", "0.026", NULL};
        run_set("defaults", defaults, img, &recs);
        run_set("fixed", fixed, img, &recs);
        run_set("refraw", refraw, img, &recs);
        run_set("0.026", v026, img, &recs);
    }
    rvt_recs_free(&recs);
    rvt_img_free(img);
    free(elf);
    free(pcs);
    return rvt_test_summary("test_et_loss");
}
