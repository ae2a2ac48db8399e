/* Funnel: several packet sources into one sink at packet granularity,
 * input disable, FIFOs with round-robin arbitration, the trFunnel*
 * registers; and the split of the merged stream back per source.
 *
 * Packets here use the E-Trace encapsulation shape (header: length in
 * bits 4:0, flow 6:5, extend 7; an 8-bit srcID; length payload bytes; a
 * header with length 0 is a null packet) so the classifier is real. */
#include "rvtrace/sink.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

static size_t make_packet(uint8_t *p, unsigned src, unsigned len, uint8_t seed)
{
    p[0] = (uint8_t)len;
    p[1] = (uint8_t)src;
    for (unsigned i = 0; i < len; i++)
        p[2 + i] = (uint8_t)(seed + i);
    return 2 + len;
}

static int classify(void *ctx, const uint8_t *p, size_t n, uint64_t off, struct rvt_split_item *it)
{
    (void)ctx;
    (void)off;
    unsigned len = p[0] & 0x1F;
    if (!len) {
        it->kind = RVT_SPLIT_FILLER;
        it->len = 1;
        return 0;
    }
    if (p[0] & 0x80) { /* this test never sets extend: treat as garbage */
        it->kind = RVT_SPLIT_GARBAGE;
        it->len = 1;
        return 0;
    }
    it->kind = RVT_SPLIT_PACKET;
    it->len = 2 + len;
    it->src = n >= 2 ? p[1] : 0;
    return 0;
}

static uint32_t frd(struct rvt_funnel *f, uint32_t off)
{
    uint32_t v = 0xDEADBEEF;
    CHECK_EQ(rvt_funnel_reg_read(f, off, &v), 0);
    return v;
}

static void test_pass_through(void)
{
    struct rvt_membuf out;
    rvt_membuf_init(&out);
    struct rvt_funnel_config c = {.size = sizeof c, .n_inputs = 3, .out = rvt_membuf_sink(&out)};
    struct rvt_funnel *f = NULL;
    struct rvt_diag d = {0};
    REQUIRE(rvt_funnel_new(&c, &f, &d) == 0);
    struct rvt_byte_sink in[3];
    for (unsigned i = 0; i < 3; i++)
        in[i] = rvt_funnel_input(f, i);
    /* Interleave packets of three sources as the callers write them. */
    uint8_t p[64];
    size_t expect_len = 0;
    uint8_t expect[1024];
    for (unsigned round = 0; round < 10; round++) {
        for (unsigned s = 0; s < 3; s++) {
            size_t n = make_packet(p, s, 1 + (round * 3 + s) % 17, (uint8_t)(round * 16 + s));
            CHECK_EQ(in[s].write(in[s].ctx, p, n), (long)n);
            memcpy(expect + expect_len, p, n);
            expect_len += n;
        }
    }
    CHECK_EQ(out.len, expect_len);
    CHECK(memcmp(out.data, expect, expect_len) == 0);

    /* Split it back: each source gets exactly its packets, in order. */
    struct rvt_membuf per[3];
    for (int i = 0; i < 3; i++)
        rvt_membuf_init(&per[i]);
    struct rvt_split_bufs sb = {per, 3, 0};
    struct rvt_split_config sc = {.size = sizeof sc,
                                  .classify = classify,
                                  .deliver = rvt_split_deliver_membufs,
                                  .deliver_ctx = &sb};
    struct rvt_split_stats st;
    REQUIRE(rvt_split(out.data, out.len, &sc, &st, &d) == 0);
    CHECK_EQ(st.packets, 30);
    CHECK_EQ(st.packet_bytes, expect_len);
    for (unsigned s = 0; s < 3; s++) {
        size_t off = 0;
        for (unsigned round = 0; round < 10; round++) {
            size_t n = make_packet(p, s, 1 + (round * 3 + s) % 17, (uint8_t)(round * 16 + s));
            CHECK(off + n <= per[s].len && memcmp(per[s].data + off, p, n) == 0);
            off += n;
        }
        CHECK_EQ(per[s].len, off);
        rvt_membuf_free(&per[s]);
    }
    struct rvt_funnel_input_stats is;
    REQUIRE(rvt_funnel_input_stats(f, 1, &is) == 0);
    CHECK_EQ(is.packets, 10);
    rvt_funnel_free(f);
    rvt_membuf_free(&out);
}

/* trFunnelDisInput: a disabled input's packets are read and discarded;
 * bits of inputs that do not exist read 0. */
static void test_disable(void)
{
    struct rvt_membuf out;
    rvt_membuf_init(&out);
    struct rvt_funnel_config c = {.size = sizeof c, .n_inputs = 2, .out = rvt_membuf_sink(&out), .power_on_reset = 1};
    struct rvt_funnel *f = NULL;
    struct rvt_diag d = {0};
    REQUIRE(rvt_funnel_new(&c, &f, &d) == 0);
    /* Power-up: trFunnelActive 0, Enable 0, Empty 1. */
    CHECK_EQ(frd(f, 0x000), 0x8);
    CHECK_EQ(frd(f, 0x004), 0); /* in reset */
    struct rvt_byte_sink in0 = rvt_funnel_input(f, 0), in1 = rvt_funnel_input(f, 1);
    uint8_t p[8];
    size_t n = make_packet(p, 0, 3, 0);
    CHECK_EQ(in0.write(in0.ctx, p, n), 0); /* not enabled: refused */
    CHECK_EQ(rvt_funnel_reg_write(f, 0x000, 1), 0);
    CHECK_EQ(frd(f, 0x000), 0x9);
    /* trFunnelImpl: VerMajor 1, VerMinor 0, CompType 8. */
    CHECK_EQ(frd(f, 0x004), 0x801);
    CHECK_EQ(rvt_funnel_reg_write(f, 0x008, 0xFFFF), 0);
    CHECK_EQ(frd(f, 0x008), 0x3); /* detection: only inputs 0 and 1 exist */
    CHECK_EQ(rvt_funnel_reg_write(f, 0x008, 0x2), 0);
    CHECK_EQ(rvt_funnel_reg_write(f, 0x000, 3), 0);
    CHECK_EQ(frd(f, 0x000), 0xB);
    CHECK_EQ(in0.write(in0.ctx, p, n), (long)n);
    n = make_packet(p, 1, 4, 9);
    CHECK_EQ(in1.write(in1.ctx, p, n), (long)n); /* accepted, discarded */
    CHECK_EQ(out.len, 5);
    struct rvt_funnel_input_stats is;
    rvt_funnel_input_stats(f, 1, &is);
    CHECK_EQ(is.discarded, 6);
    rvt_funnel_input_stats(f, 0, &is);
    CHECK_EQ(is.refused, 5);
    CHECK_EQ(rvt_funnel_reg_write(f, 0x008, 0), 0);
    CHECK_EQ(in1.write(in1.ctx, p, n), (long)n);
    CHECK_EQ(out.len, 11);
    uint32_t v;
    CHECK_EQ(rvt_funnel_reg_read(f, 0x006, &v), -RVT_ERR_INVAL);
    CHECK_EQ(frd(f, 0x040), 0); /* timestamp unit not implemented: reserved */
    rvt_funnel_free(f);
    rvt_membuf_free(&out);
}

/* With FIFOs: packets wait; draining sends one packet per input per round. */
static void test_fifo(void)
{
    struct rvt_membuf out;
    rvt_membuf_init(&out);
    struct rvt_funnel_config c = {.size = sizeof c, .n_inputs = 2, .out = rvt_membuf_sink(&out), .fifo_bytes = 20};
    struct rvt_funnel *f = NULL;
    struct rvt_diag d = {0};
    REQUIRE(rvt_funnel_new(&c, &f, &d) == 0);
    struct rvt_byte_sink in0 = rvt_funnel_input(f, 0), in1 = rvt_funnel_input(f, 1);
    uint8_t a[3][8], b[2][8];
    size_t na[3], nb[2];
    for (int i = 0; i < 3; i++) {
        na[i] = make_packet(a[i], 0, 4, (uint8_t)(0x10 * i));
        CHECK_EQ(in0.write(in0.ctx, a[i], na[i]), 6);
    }
    /* FIFO 0 holds 18 of 20 bytes: the next packet does not fit whole. */
    uint8_t big[8];
    size_t nbig = make_packet(big, 0, 2, 0x77);
    CHECK_EQ(in0.write(in0.ctx, big, nbig), 0);
    for (int i = 0; i < 2; i++) {
        nb[i] = make_packet(b[i], 1, 5, (uint8_t)(0x80 + 0x10 * i));
        CHECK_EQ(in1.write(in1.ctx, b[i], nb[i]), 7);
    }
    CHECK_EQ(out.len, 0);
    CHECK_EQ(frd(f, 0x000) & 0x8, 0); /* not empty */
    /* A budget of 1 byte still moves one whole packet. */
    CHECK_EQ(rvt_funnel_drain(f, 1), 6);
    CHECK(memcmp(out.data, a[0], 6) == 0);
    CHECK_EQ(rvt_funnel_flush(f), 0);
    /* Round-robin: a0 | b0 a1 | b1 a2. */
    size_t o = 6;
    CHECK(memcmp(out.data + o, b[0], 7) == 0);
    o += 7;
    CHECK(memcmp(out.data + o, a[1], 6) == 0);
    o += 6;
    CHECK(memcmp(out.data + o, b[1], 7) == 0);
    o += 7;
    CHECK(memcmp(out.data + o, a[2], 6) == 0);
    o += 6;
    CHECK_EQ(out.len, o);
    CHECK_EQ(frd(f, 0x000) & 0x8, 0x8);
    /* Ring wrap-around: packets that straddle the end of the FIFO ring. */
    for (int round = 0; round < 20; round++) {
        uint8_t p[16];
        size_t n = make_packet(p, 0, (unsigned)(1 + round % 9), (uint8_t)round);
        CHECK_EQ(in0.write(in0.ctx, p, n), (long)n);
        size_t before = out.len;
        CHECK_EQ(rvt_funnel_drain(f, 0), (long)n);
        CHECK(out.len == before + n && memcmp(out.data + before, p, n) == 0);
    }
    /* Disabling the funnel flushes queued packets. */
    CHECK_EQ(in1.write(in1.ctx, b[0], nb[0]), 7);
    size_t before = out.len;
    CHECK_EQ(rvt_funnel_reg_write(f, 0x000, 1), 0);
    CHECK_EQ(out.len, before + 7);
    struct rvt_funnel_input_stats is;
    rvt_funnel_input_stats(f, 0, &is);
    CHECK_EQ(is.refused, nbig);
    CHECK_EQ(is.queued, 0);
    rvt_funnel_free(f);
    rvt_membuf_free(&out);
}

/* A funnel into a stop-mode RAM sink: the encoder sees the overflow. */
static void test_into_stopped_sink(void)
{
    struct rvt_ramsink *s = NULL;
    struct rvt_sink_spec sp;
    struct rvt_diag d = {0};
    REQUIRE(rvt_sink_spec_parse("sram:16:stop", &sp, &d) == 0);
    REQUIRE(rvt_ramsink_from_spec(&sp, 0xFF, &s, &d) == 0);
    struct rvt_funnel_config c = {.size = sizeof c, .n_inputs = 2, .out = rvt_ramsink_sink(s)};
    struct rvt_funnel *f = NULL;
    REQUIRE(rvt_funnel_new(&c, &f, &d) == 0);
    struct rvt_byte_sink in0 = rvt_funnel_input(f, 0);
    uint8_t p[16];
    size_t n = make_packet(p, 0, 8, 1);
    CHECK_EQ(in0.write(in0.ctx, p, n), 10);
    CHECK_EQ(in0.write(in0.ctx, p, n), 6);
    struct rvt_funnel_input_stats is;
    rvt_funnel_input_stats(f, 0, &is);
    CHECK_EQ(is.lost_downstream, 4);
    rvt_funnel_free(f);
    rvt_ramsink_free(s);
}

/* Nested funnels: a funnel's output is another funnel's input. */
static void test_nested(void)
{
    struct rvt_membuf out;
    rvt_membuf_init(&out);
    struct rvt_diag d = {0};
    struct rvt_funnel_config tc = {.size = sizeof tc, .n_inputs = 2, .out = rvt_membuf_sink(&out)};
    struct rvt_funnel *top = NULL, *low = NULL;
    REQUIRE(rvt_funnel_new(&tc, &top, &d) == 0);
    struct rvt_funnel_config lc = {.size = sizeof lc, .n_inputs = 2, .out = rvt_funnel_input(top, 0)};
    REQUIRE(rvt_funnel_new(&lc, &low, &d) == 0);
    struct rvt_byte_sink a = rvt_funnel_input(low, 1), b = rvt_funnel_input(top, 1);
    uint8_t p[16];
    size_t n = make_packet(p, 5, 3, 0);
    CHECK_EQ(a.write(a.ctx, p, n), 5);
    n = make_packet(p, 6, 2, 0);
    CHECK_EQ(b.write(b.ctx, p, n), 4);
    CHECK_EQ(out.len, 9);
    CHECK_EQ(out.data[1], 5);
    CHECK_EQ(out.data[6], 6);
    /* The top funnel disables input 0: the whole lower cluster is off. */
    rvt_funnel_reg_write(top, 0x008, 1);
    n = make_packet(p, 5, 3, 0);
    CHECK_EQ(a.write(a.ctx, p, n), 5);
    CHECK_EQ(out.len, 9);
    rvt_funnel_free(low);
    rvt_funnel_free(top);
    rvt_membuf_free(&out);
}

/* Split: filler and garbage are counted, a cut final packet delivered. */
static void test_split_edges(void)
{
    uint8_t buf[64];
    size_t n = 0;
    buf[n++] = 0x00; /* null */
    buf[n++] = 0x00;
    n += make_packet(buf + n, 1, 2, 0x40);
    buf[n++] = 0x81; /* extend set: garbage for this classifier */
    n += make_packet(buf + n, 7, 3, 0x50);
    n += make_packet(buf + n, 2, 6, 0x60);
    size_t cut = n - 3;
    struct rvt_membuf per[4];
    for (int i = 0; i < 4; i++)
        rvt_membuf_init(&per[i]);
    struct rvt_split_bufs sb = {per, 4, 0};
    struct rvt_split_config sc = {.size = sizeof sc,
                                  .classify = classify,
                                  .deliver = rvt_split_deliver_membufs,
                                  .deliver_ctx = &sb};
    struct rvt_split_stats st;
    struct rvt_diag d = {0};
    REQUIRE(rvt_split(buf, cut, &sc, &st, &d) == 0);
    CHECK_EQ(st.filler_bytes, 2);
    CHECK_EQ(st.garbage_bytes, 1);
    CHECK_EQ(st.packets, 2);
    CHECK_EQ(st.truncated_bytes, 5);
    CHECK_EQ(sb.unrouted_bytes, 5); /* source 7 has no consumer */
    CHECK_EQ(per[1].len, 4);
    CHECK_EQ(per[2].len, 5);
    for (int i = 0; i < 4; i++)
        rvt_membuf_free(&per[i]);
    struct rvt_split_config none = {.size = sizeof none};
    CHECK_EQ(rvt_split(buf, n, &none, &st, &d), -RVT_ERR_INVAL);
}

static void test_bad_config(void)
{
    struct rvt_funnel *f = NULL;
    struct rvt_diag d = {0};
    struct rvt_funnel_config c = {.size = sizeof c, .n_inputs = 17};
    CHECK_EQ(rvt_funnel_new(&c, &f, &d), -RVT_ERR_INVAL);
    CHECK(strstr(d.msg, "17 inputs") != NULL);
    c.n_inputs = 0;
    CHECK_EQ(rvt_funnel_new(&c, &f, &d), -RVT_ERR_INVAL);
    /* No output yet: packets vanish until one is set (counted as lost). */
    c.n_inputs = 1;
    REQUIRE(rvt_funnel_new(&c, &f, &d) == 0);
    struct rvt_byte_sink in = rvt_funnel_input(f, 0);
    uint8_t p[4] = {2, 0, 1, 2};
    CHECK_EQ(in.write(in.ctx, p, 4), 0);
    struct rvt_byte_sink nosuch = rvt_funnel_input(f, 3);
    CHECK_EQ(nosuch.write(nosuch.ctx, p, 4), 0);
    rvt_funnel_free(f);
}

int main(void)
{
    test_pass_through();
    test_disable();
    test_fifo();
    test_into_stopped_sink();
    test_nested();
    test_split_edges();
    test_bad_config();
    return rvt_test_summary("test_funnel");
}
