/* RAM sink: SRAM and SMEM modes, stop and wrap, trace word packing and
 * padding, the trRam* registers (TCI "Trace RAM Sink") and the linear view. */
#include "rvtrace/sink.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

enum {
    CONTROL = 0x000,
    IMPL = 0x004,
    START_LOW = 0x010,
    START_HIGH = 0x014,
    LIMIT_LOW = 0x018,
    LIMIT_HIGH = 0x01C,
    WP_LOW = 0x020,
    WP_HIGH = 0x024,
    RP_LOW = 0x028,
    RP_HIGH = 0x02C,
    DATA = 0x040
};

static struct rvt_ramsink *sram(uint64_t bytes, unsigned width, int stop, uint8_t pad)
{
    struct rvt_ramsink_config c = {.size = sizeof c,
                                   .mode = RVT_RAM_SRAM,
                                   .stop_on_wrap = stop,
                                   .width_bits = width,
                                   .pad_byte = pad,
                                   .sram_bytes = bytes};
    struct rvt_ramsink *s = NULL;
    struct rvt_diag d = {0};
    int rc = rvt_ramsink_new(&c, &s, &d);
    CHECK_MSG(rc == 0, "ramsink_new: %s", d.msg);
    return s;
}

static uint32_t rd(struct rvt_ramsink *s, uint32_t off)
{
    uint32_t v = 0xDEADBEEF;
    CHECK_EQ(rvt_ramsink_reg_read(s, off, &v), 0);
    return v;
}

static void wr(struct rvt_ramsink *s, uint32_t off, uint32_t v)
{
    CHECK_EQ(rvt_ramsink_reg_write(s, off, v), 0);
}

static void seq(uint8_t *p, size_t n, uint8_t first)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(first + i);
}

/* 32-bit words: bytes go in LSB first, a word is stored only when
 * complete, WP advances by 4, the flush pads with the idle byte. */
static void test_word_packing(void)
{
    struct rvt_ramsink *s = sram(64, 32, 0, 0xFF);
    REQUIRE(s);
    uint8_t b[16];
    seq(b, sizeof b, 1);
    CHECK_EQ(rvt_ramsink_write(s, b, 6), 6);
    /* One word stored (01 02 03 04), two bytes held inside. */
    CHECK_EQ(rd(s, WP_LOW), 0x4);
    CHECK_EQ(rd(s, CONTROL) & 0x8, 0); /* trRamEmpty = 0 while a word is incomplete */
    size_t n;
    const uint8_t *buf = rvt_ramsink_buffer(s, &n);
    CHECK_EQ(n, 64);
    CHECK_EQ(buf[0], 1);
    CHECK_EQ(buf[3], 4);
    CHECK_EQ(buf[4], 0); /* not yet written */
    rvt_ramsink_flush(s);
    CHECK_EQ(rd(s, WP_LOW), 0x8);
    CHECK_EQ(rd(s, CONTROL) & 0x8, 0x8);
    CHECK_EQ(buf[4], 5);
    CHECK_EQ(buf[5], 6);
    CHECK_EQ(buf[6], 0xFF);
    CHECK_EQ(buf[7], 0xFF);
    /* The data window reads 32-bit words LSB first: 0x04030201, 0xFFFF0605. */
    wr(s, RP_LOW, 0);
    CHECK_EQ(rd(s, DATA), 0x04030201);
    CHECK_EQ(rd(s, RP_LOW), 4);
    CHECK_EQ(rd(s, DATA), 0xFFFF0605);
    struct rvt_ramsink_state st;
    rvt_ramsink_state(s, &st);
    CHECK_EQ(st.accepted, 6);
    CHECK_EQ(st.written, 8);
    CHECK_EQ(st.padded, 2);
    rvt_ramsink_free(s);

    /* 64-bit words: WP moves in steps of 8; E-Trace pads with 0x00. */
    s = sram(64, 64, 0, 0x00);
    REQUIRE(s);
    CHECK_EQ(rvt_ramsink_write(s, b, 9), 9);
    CHECK_EQ(rd(s, WP_LOW), 0x8);
    rvt_ramsink_flush(s);
    CHECK_EQ(rd(s, WP_LOW), 0x10);
    buf = rvt_ramsink_buffer(s, &n);
    CHECK_EQ(buf[8], 9);
    for (int i = 9; i < 16; i++)
        CHECK_EQ(buf[i], 0);
    /* Limit of a 64-byte SRAM: 2^M - 4 = 0x3C. */
    CHECK_EQ(rd(s, LIMIT_LOW), 0x3C);
    rvt_ramsink_free(s);
}

/* Wrap mode: after the word at trRamLimit, WP returns to trRamStart and
 * trRamWrap (WP bit 0) is set; the oldest data is overwritten. */
static void test_wrap(void)
{
    struct rvt_ramsink *s = sram(32, 32, 0, 0xFF);
    REQUIRE(s);
    uint8_t b[80];
    seq(b, sizeof b, 0x10);
    CHECK_EQ(rvt_ramsink_write(s, b, 32), 32);
    CHECK_EQ(rd(s, WP_LOW), 0x1); /* WP = start (0), wrap = 1 */
    CHECK_EQ(rvt_ramsink_write(s, b + 32, 13), 13);
    CHECK_EQ(rd(s, WP_LOW), 0x0C | 1);
    rvt_ramsink_flush(s); /* 45 bytes + 3 pad = 48 written */
    CHECK_EQ(rd(s, WP_LOW), 0x10 | 1);
    uint8_t *lin;
    size_t n;
    uint64_t lost;
    REQUIRE(rvt_ramsink_linear(s, &lin, &n, &lost) == 0);
    CHECK_EQ(n, 32);
    CHECK_EQ(lost, 16);
    /* Oldest surviving byte: the 17th written (0x10 + 16). */
    CHECK_EQ(lin[0], 0x20);
    CHECK_EQ(lin[28], 0x10 + 44);
    CHECK_EQ(lin[29], 0xFF);
    CHECK_EQ(lin[31], 0xFF);
    free(lin);
    /* Data window from WP reads the oldest word first and wraps at the limit. */
    wr(s, RP_LOW, 0x10);
    CHECK_EQ(rd(s, DATA), 0x23222120);
    wr(s, RP_LOW, 0x1C);
    CHECK_EQ(rd(s, DATA), 0x2F2E2D2C);
    CHECK_EQ(rd(s, RP_LOW), 0); /* RP went from the limit back to the start */
    CHECK_EQ(rd(s, DATA), 0x33323130);
    rvt_ramsink_free(s);
}

/* Stop mode: the sink accepts up to the end of the buffer, then disables
 * itself (trRamEnable -> 0); the encoder sees the short write. */
static void test_stop(void)
{
    struct rvt_ramsink *s = sram(16, 32, 1, 0xFF);
    REQUIRE(s);
    uint8_t b[32];
    seq(b, sizeof b, 0xA0);
    CHECK_EQ(rvt_ramsink_write(s, b, 10), 10);
    CHECK_EQ(rvt_ramsink_write(s, b + 10, 10), 6); /* overflow: 4 dropped */
    CHECK_EQ(rd(s, CONTROL) & 0x2, 0);            /* stopped */
    CHECK_EQ(rd(s, CONTROL) & 0x100, 0x100);      /* trRamStopOnWrap */
    CHECK_EQ(rd(s, WP_LOW), 0x1);                 /* WP wrapped to start, wrap = 1 */
    CHECK_EQ(rvt_ramsink_write(s, b, 3), 0);
    struct rvt_ramsink_state st;
    rvt_ramsink_state(s, &st);
    CHECK_EQ(st.dropped, 7);
    CHECK_EQ(st.written, 16);
    uint8_t *lin;
    size_t n;
    uint64_t lost = 99;
    REQUIRE(rvt_ramsink_linear(s, &lin, &n, &lost) == 0);
    CHECK_EQ(n, 16);
    CHECK_EQ(lost, 0);
    CHECK(memcmp(lin, b, 16) == 0);
    free(lin);
    rvt_ramsink_free(s);

    /* Stop mode with a partial word: the flush pads inside the room left. */
    s = sram(16, 32, 1, 0xEE);
    REQUIRE(s);
    CHECK_EQ(rvt_ramsink_write(s, b, 14), 14);
    rvt_ramsink_flush(s);
    CHECK_EQ(rd(s, WP_LOW), 0x1);
    CHECK_EQ(rvt_ramsink_write(s, b, 1), 0);
    size_t bl;
    const uint8_t *buf = rvt_ramsink_buffer(s, &bl);
    CHECK_EQ(buf[13], 0xAD);
    CHECK_EQ(buf[14], 0xEE);
    CHECK_EQ(buf[15], 0xEE);
    rvt_ramsink_free(s);
}

/* Register block: reset, discovery, WARL legalisation (TCI "Accessing and
 * Detecting RAM Sink Registers"). */
static void test_registers(void)
{
    struct rvt_ramsink_config c = {.size = sizeof c,
                                   .mode = RVT_RAM_SRAM,
                                   .width_bits = 32,
                                   .sram_bytes = 0x1000,
                                   .has_sram = 1,
                                   .impl_vendor = 0x5A,
                                   .power_on_reset = 1};
    struct rvt_ramsink *s = NULL;
    struct rvt_diag d = {0};
    REQUIRE(rvt_ramsink_new(&c, &s, &d) == 0);
    /* Power-up: trRamActive = 0, trRamEnable = 0, trRamEmpty = 1 (reset 1). */
    CHECK_EQ(rd(s, CONTROL), 0x8);
    CHECK_EQ(rd(s, IMPL), 0); /* inaccessible while in reset */
    uint8_t b[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    CHECK_EQ(rvt_ramsink_write(s, b, 8), 0); /* not enabled */
    wr(s, CONTROL, 0x1);
    CHECK_EQ(rd(s, CONTROL), 0x9);
    /* trRamImpl: VerMajor 1, VerMinor 0, CompType 9, HasSRAM, vendor 0x5A. */
    CHECK_EQ(rd(s, IMPL), 0x5A001901);
    CHECK_EQ(rd(s, START_LOW), 0);
    wr(s, START_LOW, 0x100); /* SRAM: start fixed at 0 */
    CHECK_EQ(rd(s, START_LOW), 0);
    /* Mode SMEM is not implemented: stays SRAM. */
    wr(s, CONTROL, 0x11);
    CHECK_EQ(rd(s, CONTROL) & 0x10, 0);
    /* Limit detection: 0 gives the lowest legal value, ~0 the highest. */
    wr(s, LIMIT_LOW, 0);
    CHECK_EQ(rd(s, LIMIT_LOW), 0x0);
    wr(s, LIMIT_LOW, 0xFFFFFFFF);
    CHECK_EQ(rd(s, LIMIT_LOW), 0xFFC);
    wr(s, LIMIT_HIGH, 0xFFFFFFFF); /* not implemented for SRAM */
    CHECK_EQ(rd(s, LIMIT_HIGH), 0);
    wr(s, LIMIT_LOW, 0x7FE); /* trimmed to 2 KiB (last word 0x7FC) */
    CHECK_EQ(rd(s, LIMIT_LOW), 0x7FC);
    /* RP: any 32-bit aligned value in 0..limit. */
    wr(s, RP_LOW, 0x7FC);
    CHECK_EQ(rd(s, RP_LOW), 0x7FC);
    wr(s, RP_LOW, 0x803);
    CHECK_EQ(rd(s, RP_LOW), 0x7FC);
    /* WP low bit 0 is trRamWrap; bit 1 reads 0. */
    wr(s, WP_LOW, 0x7FF);
    CHECK_EQ(rd(s, WP_LOW), 0x7FD);
    wr(s, WP_LOW, 0x7F8);
    CHECK_EQ(rd(s, WP_LOW), 0x7F8);
    /* Enable: WP unchanged; write 12 bytes: 8 to 0x7F8..0x7FF, wrap to 0. */
    wr(s, CONTROL, 0x3);
    CHECK_EQ(rd(s, WP_LOW), 0x7F8);
    uint8_t big[12];
    seq(big, sizeof big, 0x40);
    CHECK_EQ(rvt_ramsink_write(s, big, 12), 12);
    CHECK_EQ(rd(s, WP_LOW), 0x5);
    /* While enabled, start/limit/WP writes are ignored. */
    wr(s, WP_LOW, 0x100);
    CHECK_EQ(rd(s, WP_LOW), 0x5);
    /* Disable: flush (nothing pending here). */
    wr(s, CONTROL, 0x1);
    CHECK_EQ(rd(s, CONTROL), 0x9);
    /* Read back from WP (the oldest) through the data window. */
    wr(s, RP_LOW, 0x7F8);
    CHECK_EQ(rd(s, DATA), 0x43424140);
    CHECK_EQ(rd(s, DATA), 0x47464544);
    CHECK_EQ(rd(s, RP_LOW), 0);
    CHECK_EQ(rd(s, DATA), 0x4B4A4948);
    /* Writing the data window stores at RP (test path). */
    wr(s, RP_LOW, 0x10);
    wr(s, DATA, 0xCAFEF00D);
    wr(s, RP_LOW, 0x10);
    CHECK_EQ(rd(s, DATA), 0xCAFEF00D);
    /* Unaligned and out-of-block offsets are refused. */
    uint32_t v;
    CHECK_EQ(rvt_ramsink_reg_read(s, 0x2, &v), -RVT_ERR_INVAL);
    CHECK_EQ(rvt_ramsink_reg_write(s, 0x1000, 0), -RVT_ERR_INVAL);
    CHECK_EQ(rd(s, 0x030), 0); /* reserved */
    /* Into reset and out again: WARL fields to defaults, enable 0. */
    wr(s, CONTROL, 0x103);
    wr(s, CONTROL, 0x0);
    CHECK_EQ(rd(s, CONTROL) & 0xB, 0x8); /* other fields are Undef in reset */
    wr(s, CONTROL, 0x1);
    CHECK_EQ(rd(s, CONTROL), 0x9);
    rvt_ramsink_free(s);
}

/* A pending partial word is flushed when trRamEnable goes to 0. */
static void test_disable_flushes(void)
{
    struct rvt_ramsink *s = sram(64, 32, 0, 0xFF);
    REQUIRE(s);
    uint8_t b[5] = {9, 8, 7, 6, 5};
    CHECK_EQ(rvt_ramsink_write(s, b, 5), 5);
    CHECK_EQ(rd(s, WP_LOW), 4);
    wr(s, CONTROL, 0x1);
    CHECK_EQ(rd(s, WP_LOW), 8);
    CHECK_EQ(rd(s, CONTROL), 0x9);
    wr(s, RP_LOW, 4);
    CHECK_EQ(rd(s, DATA), 0xFFFFFF05);
    rvt_ramsink_free(s);
}

/* SMEM: the buffer lies at trRamStart..trRamLimit inside a memory image
 * the caller owns; bytes outside it are untouched. */
static void test_smem(void)
{
    uint8_t mem[256];
    memset(mem, 0xCC, sizeof mem);
    struct rvt_ramsink_config c = {.size = sizeof c,
                                   .mode = RVT_RAM_SMEM,
                                   .width_bits = 64,
                                   .pad_byte = 0,
                                   .mem = mem,
                                   .mem_base = 0x80000000,
                                   .mem_len = sizeof mem,
                                   .start = 0x80000040,
                                   .limit = 0x8000007C};
    struct rvt_ramsink *s = NULL;
    struct rvt_diag d = {0};
    REQUIRE(rvt_ramsink_new(&c, &s, &d) == 0);
    CHECK_EQ(rd(s, IMPL), 0x2901); /* HasSMEM */
    CHECK_EQ(rd(s, CONTROL), 0x1B); /* active, enabled, empty, mode SMEM */
    CHECK_EQ(rd(s, START_LOW), 0x80000040);
    CHECK_EQ(rd(s, LIMIT_LOW), 0x8000007C);
    CHECK_EQ(rd(s, WP_LOW), 0x80000040);
    uint8_t b[70];
    seq(b, sizeof b, 0);
    CHECK_EQ(rvt_ramsink_write(s, b, 70), 70);
    rvt_ramsink_flush(s); /* 72 bytes in a 64-byte buffer */
    CHECK_EQ(rd(s, WP_LOW), 0x80000048 | 1);
    CHECK_EQ(mem[0x3F], 0xCC);
    CHECK_EQ(mem[0x80], 0xCC);
    CHECK_EQ(mem[0x40], 64); /* byte 64 wrapped onto the start */
    CHECK_EQ(mem[0x45], 69);
    CHECK_EQ(mem[0x46], 0);  /* padding */
    CHECK_EQ(mem[0x48], 8);
    uint8_t *lin;
    size_t n;
    uint64_t lost;
    REQUIRE(rvt_ramsink_linear(s, &lin, &n, &lost) == 0);
    CHECK_EQ(n, 64);
    CHECK_EQ(lost, 8);
    CHECK_EQ(lin[0], 8);
    CHECK_EQ(lin[61], 69);
    free(lin);
    struct rvt_sink_info info;
    rvt_ramsink_info(s, &info);
    CHECK_EQ(info.start, 0x80000040);
    CHECK_EQ(info.size, 64);
    CHECK_EQ(info.wp, 0x80000048);
    CHECK_EQ(info.wrap, 1);
    CHECK_EQ(info.written, 72);
    /* Register WARL: start aligned to the 8-byte trace word and kept in
     * memory; limit selects the word holding the address written. */
    wr(s, CONTROL, 0x11); /* disable (mode SMEM kept) */
    wr(s, START_LOW, 0x80000013);
    CHECK_EQ(rd(s, START_LOW), 0x80000010);
    wr(s, START_LOW, 0);
    CHECK_EQ(rd(s, START_LOW), 0x80000000);
    wr(s, START_LOW, 0xFFFFFFFF);
    CHECK_EQ(rd(s, START_LOW), 0x800000F8);
    CHECK_EQ(rd(s, LIMIT_LOW), 0x800000FC);
    wr(s, START_LOW, 0x80000020);
    wr(s, LIMIT_LOW, 0x80000038); /* word 0x38..0x3F */
    CHECK_EQ(rd(s, LIMIT_LOW), 0x8000003C);
    wr(s, LIMIT_LOW, 0);
    CHECK_EQ(rd(s, LIMIT_LOW), 0x80000024); /* one word */
    wr(s, LIMIT_LOW, 0xFFFFFFFF);
    CHECK_EQ(rd(s, LIMIT_LOW), 0x800000FC);
    CHECK_EQ(rd(s, START_HIGH), 0);
    wr(s, START_HIGH, 0xFFFFFFFF); /* nothing above 4 GiB in this memory */
    CHECK_EQ(rd(s, START_HIGH), 0);
    CHECK_EQ(rd(s, START_LOW), 0x800000F8);
    rvt_ramsink_free(s);
}

static void test_bad_configs(void)
{
    struct rvt_diag d = {0};
    struct rvt_ramsink *s = NULL;
    struct rvt_ramsink_config c = {.size = sizeof c, .mode = RVT_RAM_SRAM, .width_bits = 48, .sram_bytes = 64};
    CHECK_EQ(rvt_ramsink_new(&c, &s, &d), -RVT_ERR_INVAL);
    CHECK(strstr(d.msg, "48") != NULL);
    c.width_bits = 64;
    c.sram_bytes = 20;
    CHECK_EQ(rvt_ramsink_new(&c, &s, &d), -RVT_ERR_INVAL);
    CHECK(strstr(d.msg, "multiple") != NULL);
    c.size = 4;
    CHECK_EQ(rvt_ramsink_new(&c, &s, &d), -RVT_ERR_INVAL);
    struct rvt_ramsink_config m = {.size = sizeof m,
                                   .mode = RVT_RAM_SMEM,
                                   .mem_base = 0x1000,
                                   .mem_len = 0x100,
                                   .start = 0x1004,
                                   .limit = 0x10FC,
                                   .width_bits = 64};
    CHECK_EQ(rvt_ramsink_new(&m, &s, &d), -RVT_ERR_INVAL);
    CHECK(strstr(d.msg, "nearest legal: start 0x1000") != NULL);
    CHECK(s == NULL);
}

/* Sustained writes of odd sizes against a byte-level model of the buffer. */
static void test_model(void)
{
    for (unsigned width = 32; width <= 256; width *= 2) {
        for (int stop = 0; stop <= 1; stop++) {
            const size_t size = 256;
            struct rvt_ramsink *s = sram(size, width, stop, 0xFF);
            REQUIRE(s);
            uint8_t *all = malloc(5000);
            REQUIRE(all);
            size_t total = 0, accepted = 0;
            uint32_t x = 12345 + width + (unsigned)stop;
            while (total < 4000) {
                x = x * 1103515245u + 12345u;
                size_t n = 1 + (x >> 16) % 23;
                for (size_t i = 0; i < n; i++)
                    all[total + i] = (uint8_t)(x >> (i % 24));
                long r = rvt_ramsink_write(s, all + total, n);
                CHECK(r >= 0 && (size_t)r <= n);
                if (r < (long)n) {
                    CHECK(stop);
                    accepted += (size_t)r;
                    total += n;
                    break;
                }
                accepted += n;
                total += n;
            }
            rvt_ramsink_flush(s);
            uint8_t *lin;
            size_t n;
            uint64_t lost;
            REQUIRE(rvt_ramsink_linear(s, &lin, &n, &lost) == 0);
            unsigned w = width / 8;
            size_t stored = (accepted + w - 1) / w * w;
            if (stop) {
                CHECK_EQ(n, size);
                CHECK_EQ(lost, 0);
                CHECK(memcmp(lin, all, size) == 0);
            } else {
                CHECK_EQ(n, size);
                CHECK_EQ(lost, stored - size);
                size_t data = size - (stored - accepted);
                CHECK(memcmp(lin, all + (accepted - data), data) == 0);
                for (size_t i = data; i < size; i++)
                    CHECK_EQ(lin[i], 0xFF);
            }
            free(lin);
            free(all);
            rvt_ramsink_free(s);
        }
    }
}

int main(void)
{
    test_word_packing();
    test_wrap();
    test_stop();
    test_registers();
    test_disable_flushes();
    test_smem();
    test_bad_configs();
    test_model();
    return rvt_test_summary("test_ramsink");
}
