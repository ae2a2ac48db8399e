/* The shared nybble-stream module (src/nybble): word packing as both seeds
 * state it, unpacking a wrapped RAM image, sync point lists, and the staged
 * writer — whole units through stage flushes, the unit a refused write cuts
 * completed and everything after it dropped until the family resumes,
 * sync points the sink did not take forgotten, write errors naming the
 * family. */
#include "nybble/nybble.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

static uint32_t word_le(const uint8_t *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static void test_packing(void)
{
    /* cdl (seed 000): "the first nybble is in the lowest data nybble at the
     * lowest address": nybbles 1..8 form the little-endian word 0x87654321. */
    const uint8_t cdl[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    uint8_t b[5] = {0, 0, 0, 0, 0xAA};
    rvt_nyb_pack(cdl, 8, b);
    CHECK_EQ(word_le(b), 0x87654321u);
    uint8_t back[8];
    rvt_nyb_unpack(b, 4, back);
    CHECK(memcmp(back, cdl, 8) == 0);
    /* dbg (seed 004): "the first packet in bits 3:0 of the 32-bit word, the
     * second packet into bits 7:4". */
    const uint8_t dbg[9] = {0x4, 0x0, 0x6, 0x6, 0x1, 0x0, 0x8, 0x2, 0xF};
    rvt_nyb_pack(dbg, 9, b); /* the odd last nybble is not packed */
    CHECK_EQ(word_le(b), 0x28016604u);
    CHECK_EQ(b[4], 0xAA);
    rvt_nyb_unpack(b, 4, back);
    CHECK(memcmp(back, dbg, 8) == 0);

    /* A wrapped image: the oldest byte is at `start`. */
    const uint8_t ring[4] = {0x21, 0x43, 0x65, 0x87};
    uint8_t n[8];
    rvt_nyb_unpack_ring(ring, 4, 2, 4, n);
    const uint8_t want[8] = {5, 6, 7, 8, 1, 2, 3, 4};
    CHECK(memcmp(n, want, 8) == 0);
    rvt_nyb_unpack_ring(ring, 4, 1, 2, n);
    CHECK(n[0] == 3 && n[1] == 4 && n[2] == 5 && n[3] == 6);
    rvt_nyb_unpack_ring(NULL, 0, 0, 0, n); /* nothing recorded */
}

static void test_syncs(void)
{
    struct rvt_nyb_syncs s = {0};
    for (uint64_t i = 0; i < 200; i++)
        CHECK(rvt_nyb_syncs_add(&s, 10 * i, i) == 0);
    REQUIRE(s.n == 200 && s.cap >= 200);
    CHECK(s.p[0].nybble == 0 && s.p[199].nybble == 1990 && s.p[199].insns == 199);
    rvt_nyb_syncs_free(&s);
    CHECK(s.p == NULL && s.n == 0);
}

/* Units for the writer: the first nybble is the unit's length (1..15). */
static unsigned unit_len(const uint8_t *nyb, size_t avail, const void *ctx)
{
    (void)ctx;
    return avail ? nyb[0] : 0;
}

static size_t make_unit(unsigned i, uint8_t *u)
{
    unsigned len = 1 + i % 15;
    u[0] = (uint8_t)len;
    for (unsigned k = 1; k < len; k++)
        u[k] = (uint8_t)((i + k) & 0xf);
    return len;
}

/* A sink that takes bytes up to `cap` in all (a full FIFO refuses the rest
 * of a write), or fails. */
struct cap_sink {
    uint8_t *data;
    size_t len, cap, size;
    unsigned writes;
    bool fail;
};
static long cap_write(void *ctx, const uint8_t *p, size_t n)
{
    struct cap_sink *s = ctx;
    s->writes++;
    if (s->fail)
        return -RVT_ERR_IO;
    size_t take = s->len + n > s->cap ? s->cap - s->len : n;
    if (s->len + take > s->size) {
        s->size = 2 * (s->len + take);
        s->data = realloc(s->data, s->size);
    }
    memcpy(s->data + s->len, p, take);
    s->len += take;
    return (long)take;
}

/* What the sink must hold: want[0..n) packed. */
static void check_holds(const struct cap_sink *s, const uint8_t *want, size_t n, int line)
{
    uint8_t *b = malloc(n / 2 + 1);
    rvt_nyb_pack(want, n, b);
    CHECK_MSG(s->len == n / 2, "line %d: the sink holds %zu bytes, expected %zu", line, s->len, n / 2);
    if (s->len == n / 2)
        CHECK_MSG(memcmp(s->data, b, n / 2) == 0, "line %d: the sink's bytes differ", line);
    free(b);
}

/* Units through several stage flushes, and a run of one-nybble units
 * longer than the stage: the sink gets exactly the stream. */
static void test_writer_stream(void)
{
    struct cap_sink cs = {.cap = SIZE_MAX};
    struct rvt_byte_sink sink = {cap_write, &cs};
    struct rvt_diag d = {0};
    struct rvt_nyb_writer *w = malloc(sizeof *w);
    rvt_nyb_writer_init(w, &sink, "test", &d, unit_len, NULL, NULL);
    size_t cap = 3 * RVT_NYB_STAGE + 20000, n = 0;
    uint8_t *all = malloc(cap);
    for (unsigned i = 0; i < 3000; i++) {
        uint8_t u[16];
        size_t len = make_unit(i, u);
        CHECK(rvt_nyb_writer_put(w, u, len, 0, false) == 0);
        memcpy(all + n, u, len);
        n += len;
        CHECK_EQ(rvt_nyb_writer_pos(w), n);
    }
    uint8_t *ones = calloc(RVT_NYB_STAGE + 5000, 1);
    for (size_t i = 0; i < RVT_NYB_STAGE + 5000; i++)
        ones[i] = 1; /* a one-nybble unit each */
    CHECK(rvt_nyb_writer_put(w, ones, RVT_NYB_STAGE + 5000, RVT_NYB_STAGE + 4999, true) == 0);
    memcpy(all + n, ones, RVT_NYB_STAGE + 5000);
    n += RVT_NYB_STAGE + 5000;
    if (n % 2) { /* an even end: the sink takes bytes */
        const uint8_t one = 1;
        CHECK(rvt_nyb_writer_put(w, &one, 1, 0, false) == 0);
        all[n++] = 1;
    }
    CHECK_EQ(rvt_nyb_writer_pos(w), n);
    CHECK(cs.writes >= 3);
    CHECK(rvt_nyb_writer_flush(w) == 0);
    check_holds(&cs, all, n, __LINE__);
    CHECK(!w->lost && w->bytes_out == n / 2 && w->nstage == 0);
    free(ones);
    free(all);
    free(w);
    free(cs.data);
}

/* The sink fills up in the middle of a unit: it holds the stream up to
 * the cut; the writer completes that unit with its next write, drops what
 * follows until resumed, and forgets the sync points past what the sink
 * took.  Refused again while only the completion is staged (the cut before
 * the first whole unit), the completion stays staged. */
static void test_writer_refusal(bool refuse_again)
{
    struct cap_sink cs = {.cap = 1001};
    struct rvt_byte_sink sink = {cap_write, &cs};
    struct rvt_diag d = {0};
    struct rvt_nyb_syncs syncs = {0};
    struct rvt_nyb_writer *w = malloc(sizeof *w);
    rvt_nyb_writer_init(w, &sink, "test", &d, unit_len, NULL, &syncs);
    uint8_t *all = malloc(4 * RVT_NYB_STAGE);
    size_t n = 0;
    unsigned i = 0;
    const uint64_t at[4] = {1000, 2001, 2002, 3000};
    unsigned nsync = 0;
    while (!w->lost && i < 3000) {
        while (nsync < 4 && n >= at[nsync])
            CHECK(rvt_nyb_syncs_add(&syncs, at[nsync++], 0) == 0);
        uint8_t u[16];
        size_t len = make_unit(i++, u);
        CHECK(rvt_nyb_writer_put(w, u, len, 0, false) == 0);
        memcpy(all + n, u, len);
        n += len;
    }
    REQUIRE(w->lost);
    CHECK_EQ(w->bytes_out, 1001);
    /* Kept: the points before nybble 2002 (what the sink took). */
    CHECK(syncs.n == 2 && syncs.p[0].nybble == 1000 && syncs.p[1].nybble == 2001);
    /* The stream goes on to the end of the unit nybble 2002 is in. */
    size_t end = 0;
    while (end < 2002)
        end += all[end];
    CHECK(end > 2002); /* (the cut falls inside a unit here) */
    CHECK_EQ(rvt_nyb_writer_pos(w), end);
    /* Dropped while lost. */
    uint8_t u[16];
    size_t len = make_unit(7, u);
    CHECK(rvt_nyb_writer_put(w, u, len, 0, false) == 0);
    CHECK_EQ(rvt_nyb_writer_pos(w), end);
    n = end;

    rvt_nyb_writer_resume(w);
    if (refuse_again) {
        /* Still full: everything after the completion is dropped again. */
        CHECK(rvt_nyb_writer_put(w, u, len, 0, false) == 0);
        CHECK(rvt_nyb_writer_flush(w) == 0);
        CHECK(w->lost && w->nstage == end - 2002);
        rvt_nyb_writer_resume(w);
        cs.cap = SIZE_MAX;
    } else {
        cs.cap = SIZE_MAX;
        for (unsigned k = 0; k < 40; k++) {
            len = make_unit(100 + k, u);
            CHECK(rvt_nyb_writer_put(w, u, len, 0, false) == 0);
            memcpy(all + n, u, len);
            n += len;
        }
        if (n % 2) {
            u[0] = 1;
            CHECK(rvt_nyb_writer_put(w, u, 1, 0, false) == 0);
            all[n++] = 1;
        }
    }
    CHECK(rvt_nyb_writer_flush(w) == 0);
    CHECK(!w->lost);
    if (refuse_again && n % 2)
        n--; /* (an odd end: the last nybble cannot be a byte) */
    check_holds(&cs, all, n, __LINE__);
    rvt_nyb_syncs_free(&syncs);
    free(all);
    free(w);
    free(cs.data);
}

/* A failing sink: the error names the family and what reached it. */
static void test_writer_error(void)
{
    struct cap_sink cs = {.cap = SIZE_MAX};
    struct rvt_byte_sink sink = {cap_write, &cs};
    struct rvt_diag d = {0};
    struct rvt_nyb_writer *w = malloc(sizeof *w);
    rvt_nyb_writer_init(w, &sink, "cdl", &d, unit_len, NULL, NULL);
    const uint8_t u[4] = {4, 1, 2, 3};
    CHECK(rvt_nyb_writer_put(w, u, 4, 0, false) == 0);
    CHECK(rvt_nyb_writer_flush(w) == 0);
    CHECK(rvt_nyb_writer_put(w, u, 4, 0, false) == 0);
    cs.fail = true;
    CHECK(rvt_nyb_writer_flush(w) == -RVT_ERR_IO);
    CHECK_STR(d.msg, "cdl: output write failed after 2 bytes");
    free(w);
    free(cs.data);
}

int main(void)
{
    test_packing();
    test_syncs();
    test_writer_stream();
    test_writer_refusal(false);
    test_writer_refusal(true);
    test_writer_error();
    return rvt_test_summary("test_nybble");
}
