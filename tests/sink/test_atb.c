/* ATB bridge: CoreSight formatter frames, exact bytes for known inputs,
 * the "previous ID" auxiliary flag, frame and halfword syncs, errors, and
 * random round trips (also decoding from a frame sync in the middle). */
#include "rvtrace/sink.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

static void hexcmp(const char *what, const uint8_t *got, size_t gn, const uint8_t *exp, size_t en)
{
    int same = gn == en && memcmp(got, exp, en) == 0;
    CHECK_MSG(same, "%s: %zu bytes differ from the %zu expected", what, gn, en);
    if (!same) {
        for (size_t i = 0; i < gn; i++)
            fprintf(stderr, "%02x%s", got[i], i % 16 == 15 ? "\n" : " ");
        fprintf(stderr, "\n");
    }
}

static struct rvt_atb_writer *writer(struct rvt_membuf *out, int fsync_at_start, unsigned period, unsigned repeat)
{
    struct rvt_atb_writer_config c = {.size = sizeof c,
                                      .out = rvt_membuf_sink(out),
                                      .fsync_at_start = fsync_at_start,
                                      .fsync_period = period,
                                      .id_repeat_frames = repeat};
    struct rvt_atb_writer *w = NULL;
    struct rvt_diag d = {0};
    CHECK_MSG(rvt_atb_writer_new(&c, &w, &d) == 0, "%s", d.msg);
    return w;
}

/* One source: the ID in byte 0, data bit 0 of even bytes in byte 15. */
static void test_exact_single(void)
{
    struct rvt_membuf out;
    rvt_membuf_init(&out);
    struct rvt_atb_writer *w = writer(&out, 1, 0, 0);
    REQUIRE(w);
    uint8_t d[16];
    for (int i = 0; i < 16; i++)
        d[i] = (uint8_t)(0x40 + i);
    CHECK_EQ(rvt_atb_write(w, 0x10, d, 16), 0);
    static const uint8_t f0[] = {0xFF, 0xFF, 0xFF, 0x7F, /* frame sync */
                                 0x21, 0x40, 0x40, 0x42, 0x42, 0x44, 0x44, 0x46,
                                 0x46, 0x48, 0x48, 0x4A, 0x4A, 0x4C, 0x4C, 0xFE};
    hexcmp("first frame", out.data, out.len, f0, sizeof f0);
    uint8_t e[3] = {0x81, 0x82, 0x83};
    CHECK_EQ(rvt_atb_write(w, 0x11, e, 3), 0);
    CHECK_EQ(rvt_atb_writer_flush(w), 0);
    static const uint8_t f1[] = {0x4E, 0x4F, 0x23, 0x81, 0x82, 0x83, 0x01, 0x00,
                                 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    REQUIRE(out.len == sizeof f0 + sizeof f1);
    hexcmp("padded frame", out.data + sizeof f0, 16, f1, sizeof f1);
    struct rvt_atb_writer_stats st;
    rvt_atb_writer_stats(w, &st);
    CHECK_EQ(st.frames, 2);
    CHECK_EQ(st.data_bytes, 19);
    CHECK_EQ(st.fsyncs, 1);
    CHECK_EQ(st.id_changes, 2);
    CHECK_EQ(st.pad_bytes, 8); /* bytes 7..14 of the last frame */

    struct rvt_membuf per[128];
    for (int i = 0; i < 128; i++)
        rvt_membuf_init(&per[i]);
    struct rvt_atb_read_stats rs;
    struct rvt_diag dg = {0};
    CHECK_EQ(rvt_atb_demux(out.data, out.len, 0, per, &rs, &dg), 0);
    hexcmp("ID 0x10", per[0x10].data, per[0x10].len, d, 16);
    hexcmp("ID 0x11", per[0x11].data, per[0x11].len, e, 3);
    CHECK_EQ(rs.frames, 2);
    CHECK_EQ(rs.fsyncs, 1);
    CHECK_EQ(rs.null_bytes, 8);
    CHECK_EQ(rs.data_bytes, 19);
    for (int i = 0; i < 128; i++)
        rvt_membuf_free(&per[i]);
    rvt_atb_writer_free(w);
    rvt_membuf_free(&out);
}

/* A source change at an odd position: the ID byte goes first with its
 * auxiliary bit set, meaning "the next byte is still the old ID's". */
static void test_exact_previous_id(void)
{
    struct rvt_membuf out;
    rvt_membuf_init(&out);
    struct rvt_atb_writer *w = writer(&out, 0, 0, 0);
    REQUIRE(w);
    uint8_t a[2] = {0x01, 0x02}, b[14];
    for (int i = 0; i < 14; i++)
        b[i] = (uint8_t)(0x90 + i);
    struct rvt_byte_sink sa = rvt_atb_writer_input(w, 0x10), sb = rvt_atb_writer_input(w, 0x11);
    CHECK_EQ(sa.write(sa.ctx, a, 2), 2);
    CHECK_EQ(sb.write(sb.ctx, b, 14), 14);
    CHECK_EQ(rvt_atb_writer_flush(w), 0);
    static const uint8_t exp[] = {0x21, 0x01, 0x23, 0x02, 0x90, 0x91, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97,
                                  0x98, 0x99, 0x9A, 0x02, /* aux: bit 1 = previous ID for byte 3 */
                                  0x9A, 0x9C, 0x01, 0x9D, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                  0x00, 0x00, 0x00, 0x03};
    hexcmp("frames", out.data, out.len, exp, sizeof exp);
    struct rvt_membuf per[128];
    for (int i = 0; i < 128; i++)
        rvt_membuf_init(&per[i]);
    struct rvt_diag dg = {0};
    CHECK_EQ(rvt_atb_demux(exp, sizeof exp, 0, per, NULL, &dg), 0);
    hexcmp("ID 0x10", per[0x10].data, per[0x10].len, a, 2);
    hexcmp("ID 0x11", per[0x11].data, per[0x11].len, b, 14);
    for (int i = 0; i < 128; i++)
        rvt_membuf_free(&per[i]);
    /* Bad IDs are refused. */
    CHECK_EQ(rvt_atb_write(w, 0, a, 1), -RVT_ERR_INVAL);
    CHECK_EQ(rvt_atb_write(w, 0x70, a, 1), -RVT_ERR_INVAL);
    CHECK(strstr(rvt_atb_writer_error(w), "0x70") != NULL);
    rvt_atb_writer_free(w);
    rvt_membuf_free(&out);
}

/* A hand-made frame: ID byte at 14 (no data after it), the same ID
 * restated with the aux bit (no effect), reserved and null IDs. */
static void test_reader_details(void)
{
    static const uint8_t fr[] = {
        /* frame 1 */
        0x21, 0xAA,       /* ID 0x10, then data 0xAA */
        0x21, 0xAB,       /* ID 0x10 again with aux 1: same ID, 0xAB still 0x10's */
        0xFB, 0xAC,       /* ID 0x7D (reserved, trigger): data to it */
        0x01, 0xAD,       /* ID 0 (null) */
        0x22, 0xAE,       /* data 0x22|aux bit 4 = 0x23, then 0xAE, both null */
        0x25, 0xAF,       /* ID 0x12 with aux 1: 0xAF still null */
        0x10, 0xB0,       /* data 0x10|aux for 0x12 */
        0x27,             /* byte 14: ID 0x13, no data */
        0x72,             /* aux: bits 1, 4, 5, 6 */
        /* frame 2: data for 0x13 */
        0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4A, 0x4B, 0x4C, 0x4D, 0x4E, 0x4F, 0x50, 0x51, 0x52, 0x00,
    };
    struct rvt_membuf per[128];
    for (int i = 0; i < 128; i++)
        rvt_membuf_init(&per[i]);
    struct rvt_atb_read_stats rs;
    struct rvt_diag dg = {0};
    CHECK_EQ(rvt_atb_demux(fr, sizeof fr, 0, per, &rs, &dg), 0);
    static const uint8_t id10[] = {0xAA, 0xAB};
    static const uint8_t id12[] = {0x11, 0xB0};
    static const uint8_t id13[] = {0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4A, 0x4B,
                                   0x4C, 0x4D, 0x4E, 0x4F, 0x50, 0x51, 0x52};
    hexcmp("ID 0x10", per[0x10].data, per[0x10].len, id10, sizeof id10);
    hexcmp("ID 0x12", per[0x12].data, per[0x12].len, id12, sizeof id12);
    hexcmp("ID 0x13", per[0x13].data, per[0x13].len, id13, sizeof id13);
    CHECK_EQ(rs.reserved_bytes, 1);
    CHECK_EQ(rs.null_bytes, 4); /* 0xAD, 0x22|1, 0xAE, 0xAF */
    CHECK_EQ(per[0x7D].len, 0);
    for (int i = 0; i < 128; i++)
        rvt_membuf_free(&per[i]);
}

/* Halfword syncs inside frames, leading bytes before the first frame
 * sync, a frame sync inside a frame, an ID 0x7F, a partial last frame. */
static void test_syncs_and_errors(void)
{
    struct rvt_membuf out;
    rvt_membuf_init(&out);
    struct rvt_atb_writer *w = writer(&out, 1, 0, 0);
    REQUIRE(w);
    uint8_t d[40];
    for (int i = 0; i < 40; i++)
        d[i] = (uint8_t)(i * 13);
    CHECK_EQ(rvt_atb_write(w, 0x05, d, 40), 0);
    CHECK_EQ(rvt_atb_writer_flush(w), 0);
    rvt_atb_writer_free(w);
    /* Leading garbage, and halfword syncs after bytes 2 and 10 of frame 0. */
    uint8_t s[128];
    size_t n = 0;
    static const uint8_t junk[] = {0x12, 0x34, 0xFF, 0xFF, 0xFF};
    memcpy(s, junk, sizeof junk);
    n += sizeof junk;
    memcpy(s + n, out.data, 4 + 2); /* fsync + 2 bytes */
    n += 6;
    s[n++] = 0xFF;
    s[n++] = 0x7F;
    memcpy(s + n, out.data + 6, 8);
    n += 8;
    s[n++] = 0xFF;
    s[n++] = 0x7F;
    memcpy(s + n, out.data + 14, out.len - 14);
    n += out.len - 14;
    struct rvt_membuf got;
    rvt_membuf_init(&got);
    struct rvt_atb_read_stats rs;
    struct rvt_diag dg = {0};
    struct rvt_membuf per[128];
    for (int i = 0; i < 128; i++)
        rvt_membuf_init(&per[i]);
    struct rvt_atb_reader_config rc = {.size = sizeof rc, .hsyncs = 1, .find_fsync = 1};
    rc.ctx = per;
    rc.deliver = NULL;
    CHECK_EQ(rvt_atb_read(s, n, &rc, &rs, &dg), 0);
    CHECK_EQ(rs.skipped_bytes, 5);
    CHECK_EQ(rs.hsyncs, 2);
    CHECK_EQ(rs.data_bytes, 40);
    CHECK_EQ(rs.frames, 3);
    /* Without hsyncs allowed, the FF 7F pair reads as ID 0x7F: an error. */
    rc.hsyncs = 0;
    CHECK_EQ(rvt_atb_read(s, n, &rc, &rs, &dg), -RVT_ERR_FORMAT);
    CHECK(strstr(dg.msg, "ID byte 0x7f at frame byte") != NULL);
    CHECK(strstr(dg.msg, "offset 0x9") != NULL);
    CHECK_EQ(rs.errors, 1); /* frame 0 only: the two syncs shift later frames by 4 bytes */
    /* No frame sync at all. */
    CHECK_EQ(rvt_atb_read(junk, sizeof junk, &rc, &rs, &dg), -RVT_ERR_NOSYNC);

    /* A frame sync 8 bytes into a frame: the frame is dropped, reading
     * goes on after the sync. */
    n = 0;
    memcpy(s, out.data + 4, 8);
    n = 8;
    memcpy(s + n, out.data, out.len);
    n += out.len;
    s[n++] = 0x21; /* a partial frame at the end */
    struct rvt_atb_reader_config rc2 = {.size = sizeof rc2};
    CHECK_EQ(rvt_atb_read(s, n, &rc2, &rs, &dg), -RVT_ERR_FORMAT);
    CHECK(strstr(dg.msg, "offset 0x8: frame sync inside the frame at 0x0") != NULL);
    CHECK_EQ(rs.skipped_bytes, 8);
    CHECK_EQ(rs.data_bytes, 40);
    CHECK_EQ(rs.partial_bytes, 1);
    for (int i = 0; i < 128; i++)
        rvt_membuf_free(&per[i]);
    rvt_membuf_free(&got);
    rvt_membuf_free(&out);
}

struct collect {
    struct rvt_membuf per[128];
};

static int collect_deliver(void *ctx, unsigned id, uint64_t off, const uint8_t *p, size_t n)
{
    struct collect *c = ctx;
    (void)off;
    CHECK(id >= 1 && id <= 0x6F);
    return rvt_membuf_append(&c->per[id], p, n);
}

static uint32_t rng(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

/* Random sources, packet sizes and writer options: every ID's bytes come
 * back exactly; from a frame sync in the middle, each ID's bytes are a
 * suffix of what was written. */
static void test_random_round_trip(void)
{
    for (unsigned trial = 0; trial < 40; trial++) {
        uint32_t seed = 0x9E3779B9u ^ (trial * 7919u);
        struct rvt_membuf out;
        rvt_membuf_init(&out);
        unsigned period = trial % 3 == 0 ? 0 : 1 + trial % 5;
        struct rvt_atb_writer *w = writer(&out, (int)(trial & 1), period, trial % 4);
        REQUIRE(w);
        struct collect want;
        for (int i = 0; i < 128; i++)
            rvt_membuf_init(&want.per[i]);
        unsigned ids[4] = {1 + trial % 0x6F, 0x10, 0x6F, 0x22};
        for (int k = 0; k < 60; k++) {
            unsigned id = ids[rng(&seed) % 4];
            size_t n = rng(&seed) % 40;
            uint8_t p[40];
            for (size_t i = 0; i < n; i++)
                p[i] = (uint8_t)rng(&seed);
            if (rng(&seed) % 5 == 0)
                memset(p, 0xFF, n); /* bytes that look like syncs */
            CHECK_EQ(rvt_atb_write(w, id, p, n), 0);
            rvt_membuf_append(&want.per[id], p, n);
        }
        CHECK_EQ(rvt_atb_writer_flush(w), 0);
        CHECK(out.len % 4 == 0);
        struct collect got;
        for (int i = 0; i < 128; i++)
            rvt_membuf_init(&got.per[i]);
        struct rvt_atb_reader_config rc = {.size = sizeof rc, .deliver = collect_deliver, .ctx = &got};
        struct rvt_atb_read_stats rs;
        struct rvt_diag dg = {0};
        CHECK_MSG(rvt_atb_read(out.data, out.len, &rc, &rs, &dg) == 0, "trial %u: %s", trial, dg.msg);
        for (int i = 1; i <= 0x6F; i++) {
            CHECK_MSG(got.per[i].len == want.per[i].len &&
                          (!want.per[i].len || memcmp(got.per[i].data, want.per[i].data, want.per[i].len) == 0),
                      "trial %u ID 0x%x: %zu bytes back of %zu", trial, i, got.per[i].len, want.per[i].len);
            rvt_membuf_free(&got.per[i]);
        }
        CHECK_EQ(rs.partial_bytes, 0);
        CHECK_EQ(rs.unknown_bytes, 0);
        /* From the second frame sync on. */
        if (period) {
            size_t at = 0;
            int seen = 0;
            for (size_t i = 0; i + 4 <= out.len; i += 4) {
                if (out.data[i] == 0xFF && out.data[i + 1] == 0xFF && out.data[i + 2] == 0xFF &&
                    out.data[i + 3] == 0x7F && ++seen == 2) {
                    at = i;
                    break;
                }
            }
            if (seen == 2) {
                for (int i = 0; i < 128; i++)
                    rvt_membuf_init(&got.per[i]);
                CHECK(rvt_atb_read(out.data + at, out.len - at, &rc, &rs, &dg) == 0);
                CHECK_EQ(rs.unknown_bytes, 0);
                for (int i = 1; i <= 0x6F; i++) {
                    size_t gl = got.per[i].len, wl = want.per[i].len;
                    CHECK_MSG(gl <= wl && (!gl || memcmp(got.per[i].data, want.per[i].data + wl - gl, gl) == 0),
                              "trial %u ID 0x%x: not a suffix", trial, i);
                    rvt_membuf_free(&got.per[i]);
                }
            }
        }
        for (int i = 0; i < 128; i++)
            rvt_membuf_free(&want.per[i]);
        rvt_atb_writer_free(w);
        rvt_membuf_free(&out);
    }
}

/* ID restatement: with id_repeat_frames = 2, a frame starts with the
 * current ID after two frames without any ID byte. */
static void test_id_repeat(void)
{
    struct rvt_membuf out;
    rvt_membuf_init(&out);
    struct rvt_atb_writer *w = writer(&out, 0, 0, 2);
    REQUIRE(w);
    uint8_t d[80];
    memset(d, 0x44, sizeof d);
    CHECK_EQ(rvt_atb_write(w, 0x33, d, sizeof d), 0);
    CHECK_EQ(rvt_atb_writer_flush(w), 0);
    /* Frame 0 states the ID; frames 1, 2 carry none; frame 3 restates. */
    REQUIRE(out.len >= 64);
    CHECK_EQ(out.data[0], 0x67);
    CHECK_EQ(out.data[16] & 1, 0);
    CHECK_EQ(out.data[32] & 1, 0);
    CHECK_EQ(out.data[48], 0x67);
    rvt_atb_writer_free(w);
    rvt_membuf_free(&out);
}


/* rvt_atb_payload_bytes is a lower bound: every window of the writer's
 * output, wherever it starts, carries at least that many of the source's
 * bytes (what a wrapping RAM behind the bridge keeps). */
struct count_ctx {
    uint64_t n;
};
static int count_id5(void *ctx, unsigned id, uint64_t off, const uint8_t *p, size_t n)
{
    (void)off;
    (void)p;
    if (id == 5)
        ((struct count_ctx *)ctx)->n += n;
    return 0;
}

static void test_payload_bound(void)
{
    struct rvt_membuf mb;
    rvt_membuf_init(&mb);
    struct rvt_atb_writer_config c = {.size = sizeof c, .out = rvt_membuf_sink(&mb), .fsync_at_start = 1,
                                      .fsync_period = 16};
    struct rvt_atb_writer *w = NULL;
    struct rvt_diag d = {0};
    REQUIRE(rvt_atb_writer_new(&c, &w, &d) == 0);
    uint8_t pkt[7] = {1, 2, 3, 4, 5, 6, 7};
    for (int i = 0; i < 3000; i++)
        REQUIRE(rvt_atb_write(w, 5, pkt, 1 + (size_t)(i % 7)) == 0);
    REQUIRE(rvt_atb_writer_flush(w) == 0);
    static const uint64_t windows[] = {64, 100, 512, 1024, 4096};
    for (size_t k = 0; k < sizeof windows / sizeof windows[0]; k++) {
        uint64_t win = windows[k], bound = rvt_atb_payload_bytes(win, 16), least = UINT64_MAX;
        for (size_t start = 0; start + win <= mb.len; start += 3) {
            struct count_ctx cc = {0};
            struct rvt_atb_reader_config rc = {.size = sizeof rc, .deliver = count_id5, .ctx = &cc, .find_fsync = 1};
            struct rvt_atb_read_stats st;
            rvt_atb_read(mb.data + start, (size_t)win, &rc, &st, &d);
            if (cc.n < least)
                least = cc.n;
        }
        CHECK_MSG(least >= bound, "window %llu: a slice carries %llu bytes, the bound says %llu",
                  (unsigned long long)win, (unsigned long long)least, (unsigned long long)bound);
        CHECK_MSG(win < 512 || (bound > 0 && bound * 2 > least), "window %llu: bound %llu is far below the %llu carried",
                  (unsigned long long)win, (unsigned long long)bound, (unsigned long long)least);
    }
    rvt_atb_writer_free(w);
    rvt_membuf_free(&mb);
}

int main(void)
{
    test_exact_single();
    test_exact_previous_id();
    test_reader_details();
    test_syncs_and_errors();
    test_random_round_trip();
    test_id_repeat();
    test_payload_bound();
    return rvt_test_summary("test_atb");
}
